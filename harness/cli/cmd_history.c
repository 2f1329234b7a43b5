#include "harness/cli/cli.h"

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
		"FILE writes the\n\"benchgate_history\": 1 document. Exit "
		"status 0, or 2 for a bad option, branch\nor --since.",
	.options = OPT_STORE | OPT_HISTORY | OPT_SERIES | OPT_JSON,
	.min_args = 0,
	.max_args = 0,
};

int cmd_history(int argc, char **argv)
{
	struct strbuf text = STRBUF_INIT;
	struct history history = { 0 };
	struct store *store = NULL;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if ((error = cli_open_store(&store, &opts)) < 0 ||
	    (error = history_build(&history, store,
				   &(struct history_request){
					   .branch = opts.branch,
					   .since = opts.since,
					   .suite = opts.suite,
					   .benchmark = opts.benchmark,
					   .variant = opts.filter.variant,
					   .device = opts.filter.device,
					   .metric = opts.metric,
					   .machine = opts.machine,
				   })) < 0)
		goto done;
	if (opts.json_path) {
		history_view_json(&text, &history);
		if ((error = write_file_atomic(opts.json_path, text.buf,
					       text.len)) < 0)
			goto done;
		strbuf_reset(&text);
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
