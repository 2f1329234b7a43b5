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

static struct {
	struct cli_common common;
	struct session_options session;
	struct plan_filter filter;
	const char *json;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.session.store_spec),
	CLI_OPTS_RUNS(args.session),
	CLI_OPTS_SELECT(args.filter),
	CLI_OPT_ORDER(args.session.sequential),
	CLI_OPT_BUILD_DIR(args.session.build_dir),
	CLI_OPT_STRING("json", "FILE", &args.json,
		       "also write the result document to FILE"),
	CLI_OPTS_DEVICES(args.session),
	CLI_OPT_PROFILE(args.session.profile),
	CLI_OPT_NO_WAIT(args.session.no_wait),
	CLI_COMMON_OPTS(args.common),
};

/* The variants compared inside the run (README): what check prints
 * below its comparison. */
static void print_variants(const struct session *session, bool color)
{
	struct compare_options compare;
	struct comparison *comparison = NULL;

	compare_options_init(&compare);
	if (compare_results(&comparison, NULL, session->result, &compare) ==
	    BG_OK)
		summary_print_variants(stdout, comparison, color);
	comparison_free(comparison);
}

static int run(int argc, char **argv)
{
	struct session *session = NULL;
	struct strbuf json = STRBUF_INIT;
	int error;

	cli_session_defaults(&args.session, &args.filter);
	CLI_PARSE_OR_RETURN(&cli_cmd_run, &args.common, argc, argv);
	args.session.suite_path = args.common.args[0];
	args.session.progress = args.common.progress;
	if ((error = session_prepare(&session, &args.session)) < 0 ||
	    (error = check_measure(session, NULL)) < 0)
		goto done;
	cli_draw_profiles(session);
	if (session_store(session) < 0) {
		/* --json, else a fallback file: it says where (session.h) */
		session_keep(session, args.json);
	} else if (args.json) {
		result_to_json(session->result, &json);
		error = write_file_atomic(args.json, json.buf, json.len);
	}
	if (!args.common.quiet) {
		summary_print_result_at(stdout, session->result,
					session->result_path.buf,
					args.common.color);
		print_variants(session, args.common.color);
	} else { /* a warning all the same */
		summary_print_load_warning(stdout, session->result,
					   args.common.color);
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

const struct cli_command cli_cmd_run = {
	.name = "run",
	.usage = "SUITE [options]",
	.summary = "run a suite, store a result file, print a summary",
	.help = "Each case runs its warmup runs (discarded) and measured runs, "
		"interleaved round-robin\nacross cases. The result is stored "
		"under <store>/<commit>/<machine>/ with one log\nper case. Exit "
		"status 3 when a case failed or timed out (the others still "
		"run);\n4 when they ran but the result could not be stored: "
		"it is then written to --json FILE,\nelse to a "
		"benchgate-unstored-*.json file in the current directory (or "
		"$TMPDIR),\nand the message names it.",
	.options = options,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
