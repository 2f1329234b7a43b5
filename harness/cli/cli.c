/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/terminal.h"
#include "harness/gate/compare.h"
#include "harness/gate/attribution.h"
#include "harness/gate/history.h"
#include "harness/git/gitinfo.h"
#include "harness/store/store.h"
#include "harness/util/process.h"
#include "harness/run/session.h"
#include "harness/run/stacks.h"
#include "reporters/flamegraph.h"
#include "reporters/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cli_command *const cli_commands[] = {
	&cli_cmd_run,	   &cli_cmd_compare, &cli_cmd_check,   &cli_cmd_report,
	&cli_cmd_baseline, &cli_cmd_comment, &cli_cmd_sync,    &cli_cmd_merge,
	&cli_cmd_validate, &cli_cmd_devices, &cli_cmd_history, &cli_cmd_bisect,
	&cli_cmd_import,   &cli_cmd_export,  &cli_cmd_publish, NULL,
};

/* The run layer reads a profile's stacks, the reporters draw them
 * (report.h): handed over in the order they are drawn in. */
static int read_folded_stacks(struct flamegraph_stacks *out, const char *path)
{
	struct stacks stacks = STACKS_INIT;
	struct strbuf text = STRBUF_INIT;
	const struct stack **sorted = NULL;
	int error;

	if ((error = strbuf_read_file(&text, path)) < 0 ||
	    (error = stacks_parse_folded(&stacks, text.buf, text.len)) < 0)
		goto done;
	sorted = stacks_sorted(&stacks);
	for (size_t i = 0; i < stacks.nr; i++)
		flamegraph_stacks_add(out, sorted[i]->frames, sorted[i]->count);
done:
	free(sorted);
	stacks_release(&stacks);
	strbuf_release(&text);
	return error;
}

void cli_draw_profiles(struct session *session)
{
	struct strbuf sampling = STRBUF_INIT;

	if (profiler_describe_perf(session->profiler, &sampling) < 0)
		goto done;
	report_draw_flamegraphs(session->result, session->result_dir,
				sampling.buf, read_folded_stacks);
	/* the baseline tree's profiles lie beside the candidate's */
	if (session->baseline)
		report_draw_flamegraphs(session->baseline, session->result_dir,
					sampling.buf, read_folded_stacks);
done:
	strbuf_release(&sampling);
}

int cli_open_store(struct store **out, const char *store_spec)
{
	struct strbuf spec = STRBUF_INIT;
	int error;

	if (store_spec)
		strbuf_addstr(&spec, store_spec);
	else
		store_default_spec(&spec, NULL);
	error = store_open(out, spec.buf);
	strbuf_release(&spec);
	return error;
}

int cli_build_history(struct history *out, struct store **store,
		      const char *store_spec, const struct history_request *req)
{
	int error;

	if ((error = cli_open_store(store, store_spec)) < 0 ||
	    (error = history_build(out, *store, req)) < 0)
		return error;
	return attribution_find(out, NULL);
}

int cli_write_outputs(const struct report_model *model, const char *json_path,
		      const char *report_dir, size_t chart_cases, bool quiet)
{
	struct strbuf text = STRBUF_INIT;
	int error = BG_OK;

	if (json_path) {
		comparison_to_json(model->comparison, &text);
		error = write_file_atomic(json_path, text.buf, text.len);
	}
	if (!error && report_dir) {
		struct report_model bounded = *model;

		bounded.chart_cases = chart_cases;
		strbuf_reset(&text);
		error = report_write_all(&bounded, report_dir, REPORT_ALL,
					 &text);
		if (!error && !quiet)
			terminal_print_line(stdout, "reports in %s",
					    report_dir);
	}
	strbuf_release(&text);
	return error;
}

int cli_outcome_of(const struct comparison *comparison)
{
	switch (comparison->overall) {
	case OVERALL_FAILED:
		return OUTCOME_CASE_FAILED;
	case OVERALL_REGRESSION:
		return OUTCOME_REGRESSION;
	case OVERALL_PASS:
		break;
	}
	return OUTCOME_PASS;
}

int cli_outcome_of_session(const struct session *session)
{
	return session_failed(session) ? OUTCOME_CASE_FAILED : OUTCOME_PASS;
}

int cli_outcome_after_measuring(const struct session *session, int writing,
				int outcome)
{
	bool unstored = session->unstored.len > 0;

	if (writing < 0)
		terminal_print_error(bg_error_last());
	if (unstored)
		terminal_print_error(session->unstored.buf);
	if (outcome < 0 || (!unstored && writing >= 0))
		return outcome;
	return OUTCOME_NOT_SAVED;
}

static void print_usage(FILE *to)
{
	fprintf(to, "usage: benchgate COMMAND [options]\n\n"
		    "CI regression benchmarking: run suites, store results "
		    "by commit and machine,\ncompare against a baseline, and "
		    "fail the build on a real regression.\n\ncommands:\n");
	for (size_t i = 0; cli_commands[i]; i++)
		if (!cli_commands[i]->hidden)
			fprintf(to, "  %-10s %s\n", cli_commands[i]->name,
				cli_commands[i]->summary);
	fprintf(to, "\n'benchgate COMMAND --help' shows a command's options.\n"
		    "exit status: 0 pass, 1 regression, 2 usage or input "
		    "error (nothing run), 3 a benchmark case failed,\n"
		    "4 measured but the result not stored (kept in the file "
		    "named) or an output not written\n");
}

static int exit_status(int outcome)
{
	if (outcome >= 0)
		return outcome;
	terminal_print_error(bg_error_last());
	return EXIT_INPUT;
}

int cli_main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	int status;

	if (!name || !strcmp(name, "--help") || !strcmp(name, "-h") ||
	    !strcmp(name, "help")) {
		print_usage(name ? stdout : stderr);
		return name ? EXIT_PASS : EXIT_INPUT;
	}
	if (!strcmp(name, "--version")) {
		printf("benchgate %s\n", BENCHGATE_VERSION);
		return EXIT_PASS;
	}
	for (size_t i = 0; cli_commands[i]; i++) {
		if (strcmp(cli_commands[i]->name, name))
			continue;
		gitinfo_libgit2_init();
		process_forward_termination();
		status = exit_status(cli_commands[i]->run(argc - 1, argv + 1));
		/* said why above; now end as the signal would have */
		process_end_if_interrupted();
		return status;
	}
	bg_error("unknown command '%s' (see 'benchgate --help')", name);
	terminal_print_error(bg_error_last());
	return EXIT_INPUT;
}
