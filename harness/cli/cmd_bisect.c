/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/bisect_print.h"
#include "harness/app/build.h"
#include "harness/util/error.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct bisect_options bisect;
	struct plan_filter filter;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.bisect.session.store_spec),
	CLI_OPTS_RUNS(args.bisect.session),
	CLI_OPTS_SELECT(args.filter),
	CLI_OPT_BUILD_DIR(args.bisect.session.build_dir),
	CLI_OPTS_GATE(args.bisect.threshold, args.bisect.confidence),
	CLI_OPT_STRING("good", "REV", &args.bisect.good,
		       "a commit without the regression (bisect)"),
	CLI_OPT_STRING("bad", "REV", &args.bisect.bad,
		       "a later commit with it, --good on its first-parent "
		       "history"),
	CLI_OPT_STRING("build", "CMD", &args.bisect.build_command,
		       "the build command, run by /bin/sh in each commit's "
		       "checkout (failure: the commit is skipped)"),
	CLI_OPT_VALUE("build-timeout", "S", &args.bisect.build_timeout_s,
		      cli_opt_warmup,
		      "seconds a build may take before it is killed and its "
		      "commit skipped (default 1800; 0: no limit)"),
	CLI_OPTS_DEVICES(args.bisect.session),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	cli_session_defaults(&args.bisect.session, &args.filter);
	args.bisect.threshold = args.bisect.confidence = -1;
	args.bisect.build_timeout_s = BUILD_TIMEOUT_DEFAULT_S;
	CLI_PARSE_OR_RETURN(&cli_cmd_bisect, &args.common, argc, argv);
	if (!args.bisect.good || !args.bisect.bad ||
	    !args.bisect.build_command)
		return bg_input_error("bisect: --good, --bad and --build are "
				      "required");
	args.bisect.session.suite_path = args.common.args[0];
	args.bisect.session.progress = args.common.progress;
	args.bisect.quiet = args.common.quiet;
	return app_bisect(&args.bisect);
}

const struct cli_command cli_cmd_bisect = {
	.name = "bisect",
	.usage = "SUITE --good REV --bad REV --build CMD [options]",
	.summary = "measure commits between a good and a bad one: the first "
		   "bad one",
	.help = "Searches the first parents from --bad back to --good. "
		"Each commit tested is\nchecked out into a scratch directory "
		"under $TMPDIR (no .git there), built by\nCMD (/bin/sh -c, "
		"in the checkout) and measured as the suite file at the "
		"same\nplace in it says, with --build-dir at the same place "
		"too; its result goes to\nthe store. The ends are measured "
		"first, side by side: the metrics that\nregressed from good "
		"to bad are bisected, and only their cases measured in\n"
		"between. Each commit between is measured beside both ends, "
		"in rounds added\nuntil it is classified good or bad at the "
		"gate's confidence (or undecided at\nthe suite's max_runs); "
		"the first bad commit is named, with its confidence, only\n"
		"when its parent is good. A commit that cannot be built, "
		"whose suite is missing\nor whose cases fail is skipped. "
		"Progress goes to stderr. Exit status 0 when the\nfirst bad "
		"commit is named (or narrowed to the skipped and undecided "
		"commits), 2\non bad input: a revision, an end that cannot "
		"be built or measured, or ends\nbetween which nothing "
		"regressed.",
	.options = options,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
