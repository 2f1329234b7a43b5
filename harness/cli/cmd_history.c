/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/gate/alert.h"
#include "harness/gate/history.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/util/fileio.h"
#include "reporters/history_view.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct history_request history;
	const char *store, *json, *published;
	bool csv, alert;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.store),
	CLI_OPTS_SERIES_CASE(args.history),
	CLI_OPT_STRING("json", "FILE", &args.json,
		       "also write the history document to FILE"),
	CLI_OPTS_SERIES_REST(args.history),
	CLI_OPT_SWITCH("csv", &args.csv,
		       "print CSV, one row per point, instead of the view"),
	CLI_OPT_SWITCH("alert", &args.alert,
		       "exit 1 naming each worse-direction change point that "
		       "the site of --published does not have yet"),
	CLI_OPT_STRING("published", "DIR", &args.published,
		       "the directory `benchgate publish --out` wrote (for "
		       "--alert)"),
	CLI_COMMON_OPTS(args.common),
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

static int run(int argc, char **argv)
{
	struct strbuf text = STRBUF_INIT;
	struct history history = { 0 };
	struct store *store = NULL;
	bool color;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_history, &args.common, argc, argv);
	color = args.common.color;
	if (args.alert != !!args.published)
		return bg_input_error("history: --alert and --published DIR "
				      "go together");
	if ((error = cli_build_history(&history, &store, args.store,
				       &args.history)) < 0)
		goto done;
	if (args.json) {
		history_view_json(&text, &history);
		if ((error = write_file_atomic(args.json, text.buf,
					       text.len)) < 0)
			goto done;
		strbuf_reset(&text);
	}
	if (args.alert) {
		error = alert(&history, args.published, args.common.quiet,
			      color);
		goto done;
	}
	if (args.csv)
		history_view_csv(&text, &history);
	else if (!args.common.quiet)
		history_view_terminal(&text, &history, color);
	terminal_write(stdout, text.buf,
		       color && !args.csv ? TERMINAL_COLOR : 0);
	error = OUTCOME_PASS;
done:
	history_release(&history);
	store_free(store);
	strbuf_release(&text);
	return error;
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
