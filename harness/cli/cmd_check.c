/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/app/check.h"
#include "reporters/summary.h"
#include "reporters/report.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct check_options check;
	struct plan_filter filter;
	const char *report_dir, *json;
	size_t chart_cases;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.check.session.store_spec),
	CLI_OPTS_RUNS(args.check.session),
	CLI_OPTS_SELECT(args.filter),
	CLI_OPT_ORDER(args.check.session.sequential),
	CLI_OPT_BUILD_DIR(args.check.session.build_dir),
	CLI_OPT_STRING("baseline", "auto|REF|FILE", &args.check.baseline,
		       "what to compare against (default auto)"),
	CLI_OPT_STRING("baseline-tree", "DIR",
		       &args.check.session.baseline_tree,
		       "measure the baseline in this session from DIR, a work "
		       "tree of the baseline commit with its build: every "
		       "case also runs as the suite there says, interleaved "
		       "with the candidate's runs"),
	CLI_OPT_STRING("branch", "B", &args.check.branch,
		       "the target branch of --baseline auto: compare against "
		       "its merge base (default: the default branch)"),
	CLI_OPTS_GATE(args.check.threshold, args.check.confidence),
	CLI_OPT_STRING("report", "DIR", &args.report_dir,
		       "write the reports into DIR"),
	CLI_OPT_STRING("json", "FILE", &args.json,
		       "also write the comparison document to FILE"),
	CLI_OPT_CHARTS(args.chart_cases),
	CLI_OPTS_DEVICES(args.check.session),
	CLI_OPT_PROFILE(args.check.session.profile),
	CLI_OPT_NO_WAIT(args.check.session.no_wait),
	{ .name = "baseline-build",
	  .replaced_by = "--baseline-tree DIR (DIR: a work tree of the "
			 "baseline commit with its build; README "
			 "\"Baselines\")" },
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct check *check = NULL;
	struct report_model model = { 0 };
	bool quiet, color;
	int error;

	cli_session_defaults(&args.check.session, &args.filter);
	args.check.baseline = "auto";
	args.check.threshold = args.check.confidence = -1;
	CLI_PARSE_OR_RETURN(&cli_cmd_check, &args.common, argc, argv);
	args.check.session.suite_path = args.common.args[0];
	args.check.session.progress = args.common.progress;
	quiet = args.common.quiet, color = args.common.color;
	if ((error = check_run(&check, &args.check)) < 0)
		goto done;
	cli_draw_profiles(check->session);
	if ((error = check_conclude(check)) < 0) {
		error = cli_outcome_after_measuring(check->session, BG_OK,
						    error);
		goto done;
	}
	if (!quiet)
		terminal_print_line(stdout, "baseline: %s",
				    check->baseline.note);
	/* Without a baseline every metric is "new": the measurements
	 * themselves are the news. */
	if (!check->baseline.result && !quiet)
		summary_print_measures(stdout, check->session->result, color);
	else
		summary_print_load_warning(stdout, check->session->result,
					   color);
	summary_print_comparison(stdout, check->comparison, color, false);
	report_annotate_ci(stdout, check->comparison);
	if (!quiet && !check->session->unstored.len)
		terminal_print_line(stdout, "stored %s",
				    check->session->result_path.buf);
	model.comparison = check->comparison;
	model.baseline = check->baseline.result;
	model.candidate = check->session->result;
	model.history = check->baseline.history;
	model.history_nr = check->baseline.history_nr;
	/* the reports are written whether or not the result was stored */
	error = cli_write_outputs(&model, args.json, args.report_dir,
				  args.chart_cases, quiet);
	error = cli_outcome_after_measuring(check->session, error,
					    cli_outcome_of(check->comparison));
done:
	check_free(check);
	return error;
}

const struct cli_command cli_cmd_check = {
	.name = "check",
	.usage = "SUITE [options]",
	.summary = "run + find the baseline + compare + report; the CI gate",
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
	.options = options,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
