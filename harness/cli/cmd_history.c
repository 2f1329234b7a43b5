/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/gate/alert.h"
#include "harness/gate/history.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/util/fileio.h"
#include "reporters/history_view.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "history",
	.usage = "[options]",
	.summary = "Show the series of every case and metric along a branch, "
		   "with its change points.",
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
	.options = OPT_STORE | OPT_HISTORY | OPT_SERIES | OPT_CSV | OPT_JSON |
		   OPT_ALERT,
	.min_args = 0,
	.max_args = 0,
};

/* --alert: the regressions the published site does not show yet. */
static int alert(const struct history *history, const char *published,
		 bool quiet, bool color)
{
	struct alerts alerts = { 0 };
	struct strbuf text = STRBUF_INIT;
	int error;

	if ((error = alert_find(&alerts, history, published)) < 0)
		return error;
	history_view_alerts(&text, history, &alerts, color);
	if (!alerts.nr && !quiet)
		strbuf_addf(&text, "no new regression on %s%s\n",
			    history->branch,
			    alerts.first_run ? " among the newest 10 commits "
					       "(no published state yet)"
					     : " since the published state");
	terminal_write(stdout, text.buf, color ? TERMINAL_COLOR : 0);
	error = alerts.nr ? OUTCOME_REGRESSION : OUTCOME_PASS;
	alerts_release(&alerts);
	strbuf_release(&text);
	return error;
}

int cmd_history(int argc, char **argv)
{
	struct strbuf text = STRBUF_INIT;
	struct history history = { 0 };
	struct store *store = NULL;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (opts.alert != !!opts.published)
		return bg_input_error("history: --alert and --published DIR "
				      "go together");
	if ((error = cli_build_history(&history, &store, &opts)) < 0)
		goto done;
	if (opts.json_path) {
		history_view_json(&text, &history);
		if ((error = write_file_atomic(opts.json_path, text.buf,
					       text.len)) < 0)
			goto done;
		strbuf_reset(&text);
	}
	if (opts.alert) {
		error = alert(&history, opts.published, opts.quiet,
			      opts.color);
		goto done;
	}
	if (opts.csv)
		history_view_csv(&text, &history);
	else if (!opts.quiet)
		history_view_terminal(&text, &history, opts.color);
	terminal_write(stdout, text.buf,
		       opts.color && !opts.csv ? TERMINAL_COLOR : 0);
	error = OUTCOME_PASS;
done:
	history_release(&history);
	store_free(store);
	strbuf_release(&text);
	return error;
}
