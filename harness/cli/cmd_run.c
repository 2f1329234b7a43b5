/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/util/fileio.h"
#include "harness/app/check.h"
#include "harness/run/session.h"
#include "reporters/summary.h"

#include <stdio.h>
#include <unistd.h>

static const struct cli_command_spec spec = {
	.name = "run",
	.usage = "SUITE [options]",
	.summary = "Run a suite, store a result file, print a summary.",
	.help = "Each case runs its warmup runs (discarded) and measured runs, "
		"interleaved round-robin\nacross cases. The result is stored "
		"under <store>/<commit>/<machine>/ with one log\nper case. Exit "
		"status 3 when a case failed or timed out (the others still "
		"run);\n4 when they ran but the result could not be stored: "
		"it is then written to --json FILE,\nelse to a "
		"benchgate-unstored-*.json file in the current directory (or "
		"$TMPDIR),\nand the message names it.",
	.options = OPT_STORE | OPT_RUNS | OPT_WARMUP | OPT_SELECT | OPT_ORDER |
		   OPT_BUILD_DIR | OPT_JSON | OPT_PROFILE | OPT_DEVICES |
		   OPT_NO_WAIT,
	.min_args = 1,
	.max_args = 1,
};

/* The variants compared inside the run (README): what check prints
 * below its comparison. */
static void print_variants(const struct session *session, bool color)
{
	struct compare_options options;
	struct comparison *comparison = NULL;

	compare_options_init(&options);
	if (compare_results(&comparison, NULL, session->result, &options) ==
	    BG_OK)
		summary_print_variants(stdout, comparison, color);
	comparison_free(comparison);
}

int cmd_run(int argc, char **argv)
{
	struct session_options session_opts;
	struct session *session = NULL;
	struct cli_options opts;
	struct strbuf json = STRBUF_INIT;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	cli_session_options(&session_opts, &opts);
	if ((error = session_prepare(&session, &session_opts)) < 0 ||
	    (error = check_measure(session, NULL)) < 0)
		goto done;
	cli_draw_profiles(session);
	if (session_store(session) < 0) {
		/* --json, else a fallback file: it says where (session.h) */
		session_keep(session, opts.json_path);
	} else if (opts.json_path) {
		result_to_json(session->result, &json);
		error = write_file_atomic(opts.json_path, json.buf, json.len);
	}
	if (!opts.quiet) {
		summary_print_result_at(stdout, session->result,
					session->result_path.buf, opts.color);
		print_variants(session, opts.color);
	} else { /* a warning all the same */
		summary_print_load_warning(stdout, session->result,
					   opts.color);
	}
	if (!session->unstored.len) {
		terminal_print_line(stdout, "stored %s",
				    session->result_path.buf);
		if (access(session->artifact_dir.buf, F_OK) == 0)
			terminal_print_line(stdout, "artifacts in %s",
					    session->artifact_dir.buf);
	}
	error = cli_outcome_after_measuring(session, error,
					    cli_outcome_of_session(session));
done:
	session_free(session);
	strbuf_release(&json);
	return error;
}
