/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/bisect.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "reporters/bisect_view.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "bisect",
	.usage = "SUITE --good REV --bad REV --build CMD [options]",
	.summary = "Find the first commit with a regression by measuring "
		   "commits between a good and a bad one.",
	.help = "Searches the first parents from --bad back to --good. "
		"Each commit tested is\nchecked out into a scratch directory "
		"under $TMPDIR (no .git there), built by\nCMD (/bin/sh -c, "
		"in the checkout) and measured as the suite file at the "
		"same\nplace in it says, with --build-dir at the same place "
		"too; its result goes to\nthe store. The ends are measured "
		"first: the metrics that regressed from good\nto bad are "
		"bisected, and only their cases measured in between. A "
		"commit that\ncannot be built, whose suite is missing or "
		"whose cases fail is skipped.\nProgress goes to stderr. Exit "
		"status 0 when the first bad commit is named (or\nnarrowed "
		"to the skipped commits), 2 on bad input: a revision, an end "
		"that cannot\nbe built or measured, or ends between which "
		"nothing regressed.",
	.options = OPT_STORE | OPT_RUNS | OPT_WARMUP | OPT_SELECT |
		   OPT_BUILD_DIR | OPT_GATE | OPT_DEVICES | OPT_BISECT,
	.min_args = 1,
	.max_args = 1,
};

int cmd_bisect(int argc, char **argv)
{
	struct bisect_options bisect_opts;
	struct strbuf text = STRBUF_INIT;
	struct bisect *bisect = NULL;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (!opts.good || !opts.bad || !opts.build)
		return bg_input_error("bisect: --good, --bad and --build are "
				      "required");
	cli_session_options(&bisect_opts.session, &opts);
	bisect_opts.good = opts.good;
	bisect_opts.bad = opts.bad;
	bisect_opts.build_command = opts.build;
	bisect_opts.threshold = opts.threshold;
	bisect_opts.confidence = opts.confidence;
	bisect_opts.quiet = opts.quiet;
	if ((error = bisect_run(&bisect, &bisect_opts)) < 0)
		goto done;
	bisect_view_terminal(&text, bisect);
	terminal_write(stdout, text.buf, 0);
	error = OUTCOME_PASS;
done:
	bisect_free(bisect);
	strbuf_release(&text);
	return error;
}
