/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/init.h"

#include "harness/app/run.h"

static struct {
	struct cli_common common;
	struct app_run_request req;
	struct plan_filter filter;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.req.session.store_spec),
	CLI_OPTS_RUNS(args.req.session),
	CLI_OPTS_SELECT(args.filter),
	CLI_OPT_ORDER(args.req.session.sequential),
	CLI_OPT_BUILD_DIR(args.req.session.build_dir),
	CLI_OPT_JSON(args.req.json, "result"),
	CLI_OPTS_DEVICES(args.req.session),
	CLI_OPT_PROFILE(args.req.session.profile),
	CLI_OPT_NO_WAIT(args.req.session.no_wait),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	cli_session_defaults(&args.req.session, &args.filter);
	CLI_PARSE_OR_RETURN(&cli_cmd_run, &args.common, argc, argv);
	args.req.session.suite_path = args.common.args_nr ? args.common.args[0]
						  : INIT_SUITE_FILE;
	args.req.session.progress = args.common.progress;
	args.req.quiet = args.common.quiet;
	args.req.color = args.common.color;
	return app_run(&args.req);
}

const struct cli_command cli_cmd_run = {
	.name = "run",
	.usage = "[SUITE] [options]",
	.summary = "run a suite, store a result file, print a summary",
	.help = "Each case runs its warmup runs (discarded) and measured runs, "
		"interleaved round-robin\nacross cases. The result is stored "
		"under <store>/<commit>/<machine>/ with one log\nper case. Exit "
		"status 3 when a case failed or timed out (the others still "
		"run);\n4 when they ran but the result could not be stored: "
		"it is then written to --json FILE,\nelse to a "
		"benchgate-unstored-*.json file in the current directory (or "
		"$TMPDIR),\nand the message names it.\n"
		"SUITE defaults to " INIT_SUITE_FILE ", the file init writes.",
	.options = options,
	.min_args = 0,
	.max_args = 1,
	.run = run,
};
