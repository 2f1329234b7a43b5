#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/run/session.h"
#include "reporters/summary.h"
#include "reporters/flamegraph.h"

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
		"run).",
	.options = OPT_STORE | OPT_RUNS | OPT_WARMUP | OPT_SELECT | OPT_ORDER |
		   OPT_BUILD_DIR | OPT_JSON | OPT_PROFILE | OPT_DEVICES,
	.min_args = 1,
	.max_args = 1,
};

/* The profiling runs leave folded stacks (profile.h); their flame graphs
 * are a reporter's to draw, between the runs and the stored result so
 * that the result lists them. */
static int draw_flame_graphs(struct result *result, const char *result_dir,
			     const struct profiler *profiler, void *payload)
{
	struct strbuf sampling = STRBUF_INIT;

	(void)payload;
	if (profiler_describe_perf(profiler, &sampling) == BG_OK)
		flamegraph_draw_profiles(result, result_dir, sampling.buf);
	strbuf_release(&sampling);
	return BG_OK;
}

/* Shared by run and check: the session options the command line sets. */
void cli_session_options(struct session_options *out,
			 const struct cli_options *opts)
{
	*out = (struct session_options){
		.suite_path = opts->args[0],
		.filter = &opts->filter,
		.build_dir = opts->build_dir,
		.store_spec = opts->store,
		.runs = opts->runs,
		.runs_auto = opts->runs_auto,
		.warmup = opts->warmup,
		.sequential = opts->sequential,
		.progress = opts->progress,
		.require_devices = opts->require_devices,
		.sample_interval_s = opts->sample_interval_s,
		.profile = opts->profile,
		.baseline_build_dir = opts->baseline_build,
		.after_run = draw_flame_graphs,
	};
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
	if ((error = session_run(&session, &session_opts)) < 0)
		goto done;
	if (!opts.quiet)
		summary_print_result(stdout, session->result, opts.color);
	printf("stored %s\n", session->result_path.buf);
	if (access(session->artifact_dir.buf, F_OK) == 0)
		printf("artifacts in %s\n", session->artifact_dir.buf);
	if (opts.json_path) {
		result_to_json(session->result, &json);
		error = write_file_atomic(opts.json_path, json.buf, json.len);
	}
done:
	if (error == BG_OK)
		error = session_failed(session) ? OUTCOME_CASE_FAILED
						: OUTCOME_PASS;
	session_free(session);
	strbuf_release(&json);
	return error;
}
