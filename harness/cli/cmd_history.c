/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/history.h"
#include "harness/util/error.h"

static struct {
	struct cli_common common;
	struct app_history_request req;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.req.store),
	CLI_OPTS_SERIES_CASE(args.req.history),
	CLI_OPT_JSON(args.req.json, "history"),
	CLI_OPTS_SERIES_REST(args.req.history),
	CLI_OPT_SWITCH("csv", &args.req.csv,
		       "print CSV, one row per point, instead of the view"),
	CLI_OPT_SWITCH("alert", &args.req.alert,
		       "exit 1 naming each worse-direction change point that "
		       "the site of --published does not have yet"),
	CLI_OPT_STRING("published", "DIR", &args.req.published,
		       "the directory `benchgate publish --out` wrote (for "
		       "--alert)"),
	CLI_OPT_STRING("issue", "FILE", &args.req.issue,
		       "with --alert: when there are new regressions, also "
		       "write FILE, their issue body (Markdown, the alert "
		       "fenced so that no mention, image or HTML in a commit "
		       "subject goes live)"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	CLI_PARSE_OR_RETURN(&cli_cmd_history, &args.common, argc, argv);
	if (args.req.alert != !!args.req.published)
		return bg_input_error("history: --alert and --published DIR "
				      "go together");
	if (args.req.issue && !args.req.alert)
		return bg_input_error("history: --issue FILE writes the "
				      "issue of --alert");
	args.req.quiet = args.common.quiet;
	args.req.color = args.common.color;
	return app_history(&args.req);
}

const struct cli_command cli_cmd_history = {
	.name = "history",
	.usage = "[options]",
	.summary = "the series of every metric along a branch, with change "
		   "points",
	.help = "Walks the first parents of --branch (default: origin/HEAD, "
		"main or master,\nelse HEAD) and reads each commit's results "
		"from the store: one point per\nmeasured commit (the median of "
		"its samples, its 99% interval, n), commits\nwithout a result "
		"as gaps. Several results of one commit, suite and machine:\n"
		"the newest counts. A series is one case, machine and metric; "
		"a change point\nis the first commit of a new level. --json "
		"FILE writes the\n\"benchgate_history\": 1 document. "
		"--alert --published DIR prints only the\nworse-direction "
		"change points that DIR's benchgate-state.json (from\n"
		"`benchgate publish --out DIR`) does not list, and exits 1 "
		"when there is one;\nwithout a state file, those among the "
		"newest 10 commits. Exit status 0,\n1 on such an alert, or 2 "
		"for a bad option, branch, --since or state file.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
