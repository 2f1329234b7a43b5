/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/gate/history.h"
#include "harness/git/weburl.h"
#include "harness/util/error.h"
#include "harness/util/name.h"
#include "harness/util/terminal.h"
#include "reporters/dashboard.h"
#include "reporters/publish.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct history_request history;
	const char *store, *out;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.store),
	CLI_OPTS_SERIES_CASE(args.history),
	CLI_OPT_STRING("out", "DIR", &args.out,
		       "the site's directory: pages that did not change are "
		       "kept"),
	CLI_OPTS_SERIES_REST(args.history),
	CLI_COMMON_OPTS(args.common),
};


static int run(int argc, char **argv)
{
	struct history history = { 0 };
	struct dashboard site = { 0 };
	struct publish_counts counts;
	struct strbuf repo_url = STRBUF_INIT, text = STRBUF_INIT;
	struct store *store = NULL;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_publish, &args.common, argc, argv);
	if (!args.out)
		return bg_input_error("publish: --out DIR is required (see "
				      "'benchgate publish --help')");
	if ((error = cli_build_history(&history, &store, args.store,
				       &args.history)) < 0)
		goto done;
	weburl_of_repository(&repo_url, NULL, NULL);
	dashboard_render(&site, &history,
			 &(struct dashboard_options){
				 .repo_url = repo_url.len ? repo_url.buf : NULL,
			 });
	if ((error = publish_site(&counts, args.out, &site, &history)) < 0)
		goto done;
	if (counts.charts_skipped)
		bg_warn("gnuplot not found: charts skipped (install "
			"gnuplot-nox); the next publish draws them");
	if (!args.common.quiet) {
		strbuf_addf(&text, "published %zu series of ",
			    history.series_nr);
		name_quote(&text, history.branch);
		strbuf_addstr(&text, " into ");
		name_quote(&text, args.out);
		strbuf_addf(&text, ": %zu files written, %zu kept, %zu removed "
				   "(%zu chart%s drawn)\n",
			    counts.written, counts.kept, counts.removed,
			    counts.charts_drawn,
			    counts.charts_drawn == 1 ? "" : "s");
		terminal_write(stdout, text.buf, 0);
	}
	error = OUTCOME_PASS;
done:
	dashboard_release(&site);
	history_release(&history);
	store_free(store);
	strbuf_release(&repo_url);
	strbuf_release(&text);
	return error;
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
