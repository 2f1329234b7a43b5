/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/app/check.h"
#include "reporters/summary.h"
#include "reporters/report.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "check",
	.usage = "SUITE [options]",
	.summary = "Run a suite, find its baseline, compare, report, and gate.",
	.help = "The baseline (--baseline auto) is the nearest stored result "
		"for this suite and\nmachine on the first-parent history of the "
		"merge base of HEAD and the target\nbranch (--branch, default "
		"origin/HEAD, main or master), else\nbaselines/<suite>/<machine>"
		".json, else none (every metric \"new\", exit 0).\nWith --runs "
		"auto a case stops sampling once its comparison is decided.\n"
		"With --baseline-tree DIR the baseline is measured here "
		"instead: DIR is a work tree\nof the baseline commit with its "
		"build, and every case also runs as the suite file\nat the "
		"same place in DIR says (its directory, ${suite_dir}, env), "
		"with ${build_dir}\nat the same place in DIR as --build-dir, "
		"next to the candidate's runs in every\nround, so drift of the "
		"machine reaches both sides alike.\n"
		"Exit status 1 on a regression, 3 when a case failed, 2 on bad "
		"input (nothing run),\n4 when the result could not be stored "
		"(it is then kept in a benchgate-unstored-*.json\nfile in the "
		"current directory or $TMPDIR, named in the message, and still "
		"compared)\nor a report could not be written.",
	.options = OPT_STORE | OPT_RUNS | OPT_WARMUP | OPT_SELECT | OPT_ORDER |
		   OPT_BUILD_DIR | OPT_BASELINE | OPT_GATE | OPT_REPORT |
		   OPT_JSON | OPT_PROFILE | OPT_DEVICES | OPT_BASELINE_TREE |
		   OPT_NO_WAIT,
	.min_args = 1,
	.max_args = 1,
};

int cmd_check(int argc, char **argv)
{
	struct check_options check_opts;
	struct check *check = NULL;
	struct report_model model = { 0 };
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	cli_session_options(&check_opts.session, &opts);
	check_opts.baseline = opts.baseline;
	check_opts.branch = opts.branch;
	check_opts.threshold = opts.threshold;
	check_opts.confidence = opts.confidence;
	if ((error = check_run(&check, &check_opts)) < 0)
		goto done;
	cli_draw_profiles(check->session);
	if ((error = check_conclude(check)) < 0) {
		error = cli_outcome_after_measuring(check->session, BG_OK,
						    error);
		goto done;
	}
	if (!opts.quiet)
		terminal_print_line(stdout, "baseline: %s",
				    check->baseline.note);
	/* Without a baseline every metric is "new": the measurements
	 * themselves are the news. */
	if (!check->baseline.result && !opts.quiet)
		summary_print_measures(stdout, check->session->result,
				       opts.color);
	else
		summary_print_load_warning(stdout, check->session->result,
					   opts.color);
	summary_print_comparison(stdout, check->comparison, opts.color, false);
	report_annotate_ci(stdout, check->comparison);
	if (!opts.quiet && !check->session->unstored.len)
		terminal_print_line(stdout, "stored %s",
				    check->session->result_path.buf);
	model.comparison = check->comparison;
	model.baseline = check->baseline.result;
	model.candidate = check->session->result;
	model.history = check->baseline.history;
	model.history_nr = check->baseline.history_nr;
	/* the reports are written whether or not the result was stored */
	error = cli_write_outputs(&opts, &model);
	error = cli_outcome_after_measuring(check->session, error,
					    cli_outcome_of(check->comparison));
done:
	check_free(check);
	return error;
}
