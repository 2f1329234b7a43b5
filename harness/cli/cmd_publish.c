/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/history.h"
#include "harness/util/error.h"

static struct {
	struct cli_common common;
	struct app_publish_request req;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.req.store),
	CLI_OPTS_SERIES_CASE(args.req.history),
	CLI_OPT_STRING("out", "DIR", &args.req.out,
		       "the site's directory: pages that did not change are "
		       "kept"),
	CLI_OPTS_SERIES_REST(args.req.history),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	CLI_PARSE_OR_RETURN(&cli_cmd_publish, &args.common, argc, argv);
	if (!args.req.out)
		return bg_input_error("publish: --out DIR is required (see "
				      "'benchgate publish --help')");
	args.req.quiet = args.common.quiet;
	return app_publish(&args.req);
}

const struct cli_command cli_cmd_publish = {
	.name = "publish",
	.usage = "--out DIR [options]",
	.summary = "write the static dashboard of a branch's history (site, feed)",
	.help = "Reads the history as `benchgate history` does (same filters) "
		"and writes into\nDIR an index of every series with a "
		"sparkline, a page per series with its\ngnuplot chart and "
		"change points, a regressions page and feed.xml; commits\n"
		"link to the origin remote's web address when it has one. "
		"Nothing in the\npages loads from the network. Incremental: "
		"DIR/benchgate-state.json keeps a\nhash of every file written, "
		"and only changed files are written again (and\nonly changed "
		"charts drawn); files benchgate did not write are left alone."
		"\nExit status 0, or 2 for a bad option, branch or state file.",
	.options = options,
	.min_args = 0,
	.max_args = 0,
	.run = run,
};
