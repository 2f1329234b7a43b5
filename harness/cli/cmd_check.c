/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/build.h"
#include "harness/app/init.h"
#include "harness/app/verdict.h"
#include "harness/util/error.h"

static struct {
	struct cli_common common;
	struct app_check_request req;
	struct plan_filter filter;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.req.check.session.store_spec),
	CLI_OPTS_RUNS(args.req.check.session),
	CLI_OPTS_SELECT(args.filter),
	CLI_OPT_ORDER(args.req.check.session.sequential),
	CLI_OPT_BUILD_DIR(args.req.check.session.build_dir),
	CLI_OPT_STRING("baseline", "auto|REF|FILE", &args.req.check.baseline,
		       "what to compare against (default auto)"),
	CLI_OPT_STRING("baseline-tree", "DIR",
		       &args.req.check.session.baseline_tree,
		       "measure the baseline from DIR, a built work tree of "
		       "its commit, interleaved with the candidate's runs"),
	CLI_OPT_STRING("against", "REF", &args.req.against.ref,
		       "measure the baseline from the merge base of HEAD and "
		       "REF, checked out and built (--build) in a scratch tree"),
	CLI_OPT_STRING("build", "CMD", &args.req.against.build_command,
		       "with --against: the build command, run by /bin/sh in "
		       "both trees (a failed build: exit 3)"),
	CLI_OPT_VALUE("build-timeout", "S", &args.req.against.build_timeout_s,
		      cli_opt_warmup,
		      "seconds a build may take before it is killed (default "
		      "1800; 0: no limit)"),
	CLI_OPT_STRING("branch", "B", &args.req.check.branch,
		       "the target branch of --baseline auto: compare against "
		       "its merge base (default: the default branch)"),
	CLI_OPTS_GATE(args.req.check.threshold, args.req.check.confidence),
	CLI_OPT_VALUE("budget", "S", &args.req.check.budget_s, cli_opt_warmup,
		      "seconds of adaptive sampling (default "
		      "$BENCHGATE_BUDGET, else 900; 0: none)"),
	CLI_OPT_REPORT(args.req.out.report_dir),
	CLI_OPT_JSON(args.req.out.json, "comparison"),
	CLI_OPT_CHARTS(args.req.out.chart_cases),
	CLI_OPTS_DEVICES(args.req.check.session),
	CLI_OPT_PROFILE(args.req.check.session.profile),
	CLI_OPT_NO_WAIT(args.req.check.session.no_wait),
	{ .name = "baseline-build",
	  .replaced_by = "--baseline-tree DIR (README \"Baselines\")" },
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct check_options *check = &args.req.check;

	cli_session_defaults(&check->session, &args.filter);
	check->baseline = "auto";
	check->threshold = check->confidence = -1;
	check->budget_s = -1;
	args.req.against.build_timeout_s = BUILD_TIMEOUT_DEFAULT_S;
	CLI_PARSE_OR_RETURN(&cli_cmd_check, &args.common, argc, argv);
	if (args.req.against.build_command && !args.req.against.ref)
		return bg_input_error("check: --build builds the two trees of "
				      "--against; without it, build before");
	if (check->budget_s < 0 && check_budget_from_env(&check->budget_s) < 0)
		return BG_EINPUT;
	check->session.auto_unless_set = true;
	check->session.suite_path = args.common.args_nr ? args.common.args[0]
						  : INIT_SUITE_FILE;
	check->session.progress = args.common.progress;
	args.req.out.quiet = args.common.quiet;
	args.req.against.quiet = args.common.quiet;
	args.req.out.color = args.common.color;
	return app_check(&args.req);
}

const struct cli_command cli_cmd_check = {
	.name = "check",
	.usage = "[SUITE] [options]",
	.summary = "run + find the baseline + compare + report; the CI gate",
	.help = "The baseline (--baseline auto) is the nearest stored result "
		"for this suite and\nmachine below the merge base of HEAD and "
		"the target branch (--branch), else\nbaselines/<suite>/<machine>"
		".json, else none (every metric \"new\", exit 0).\n"
		"--baseline-tree and --against measure it in this session "
		"instead, interleaved.\nWithout \"runs\" in the suite, cases "
		"sample until decided, within --budget.\nExit status 1 on a "
		"regression, 3 when a case or a --build failed, 2 on bad\ninput "
		"(nothing run), 4 when the result could not be stored (kept in "
		"a file that\nthe message names, and still compared) or a "
		"report could not be written.\n"
		"SUITE defaults to " INIT_SUITE_FILE ", the file init writes.",
	.options = options,
	.min_args = 0,
	.max_args = 1,
	.run = run,
};
