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

static const struct cli_command_spec spec = {
	.name = "publish",
	.usage = "--out DIR [options]",
	.summary = "Write the static dashboard of a branch's history: pages, "
		   "charts, an Atom feed.",
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
	.options = OPT_STORE | OPT_HISTORY | OPT_SERIES | OPT_PUBLISH,
	.min_args = 0,
	.max_args = 0,
};

int cmd_publish(int argc, char **argv)
{
	struct history history = { 0 };
	struct dashboard site = { 0 };
	struct publish_counts counts;
	struct strbuf repo_url = STRBUF_INIT, text = STRBUF_INIT;
	struct store *store = NULL;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (!opts.out_dir)
		return bg_input_error("publish: --out DIR is required (see "
				      "'benchgate publish --help')");
	if ((error = cli_build_history(&history, &store, &opts)) < 0)
		goto done;
	weburl_of_repository(&repo_url, NULL, NULL);
	dashboard_render(&site, &history,
			 &(struct dashboard_options){
				 .repo_url = repo_url.len ? repo_url.buf : NULL,
			 });
	if ((error = publish_site(&counts, opts.out_dir, &site, &history)) < 0)
		goto done;
	if (counts.charts_skipped)
		bg_warn("gnuplot not found: charts skipped (install "
			"gnuplot-nox); the next publish draws them");
	if (!opts.quiet) {
		strbuf_addf(&text, "published %zu series of ",
			    history.series_nr);
		name_quote(&text, history.branch);
		strbuf_addstr(&text, " into ");
		name_quote(&text, opts.out_dir);
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
