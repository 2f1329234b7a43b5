/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/verdict.h"

static struct {
	struct cli_common common;
	struct app_compare_request req;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.req.store),
	CLI_OPTS_GATE(args.req.threshold, args.req.confidence),
	CLI_OPT_REPORT(args.req.out.report_dir),
	CLI_OPT_JSON(args.req.out.json, "comparison"),
	CLI_OPT_CHARTS(args.req.out.chart_cases),
	CLI_OPT_STRING("suite", "S", &args.req.suite,
		       "the suite whose stored results BASE and CAND name, "
		       "when they are revisions"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	args.req.threshold = args.req.confidence = -1;
	CLI_PARSE_OR_RETURN(&cli_cmd_compare, &args.common, argc, argv);
	args.req.base = args.common.args[0];
	args.req.cand = args.common.args[1];
	args.req.out.quiet = args.common.quiet;
	args.req.out.color = args.common.color;
	return app_compare(&args.req);
}

const struct cli_command cli_cmd_compare = {
	.name = "compare",
	.usage = "BASE CAND [options]",
	.summary = "compare two result files (or revisions)",
	.help = "BASE and CAND are result files, or revisions (\"main\", "
		"\"HEAD~1\", a commit) whose\nnearest stored result for this "
		"machine is used; revisions need --suite. --report DIR writes "
		"the reports\nas `check` does. Exit status 1 on a regression, 3 "
		"when a case failed, 0\notherwise.",
	.options = options,
	.min_args = 2,
	.max_args = 2,
	.run = run,
};
