/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/alloc.h"
#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "reporters/report.h"
#include "reporters/summary.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	const char *store, *suite, *report_dir, *json;
	double threshold, confidence;
	size_t chart_cases;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.store),
	CLI_OPTS_GATE(args.threshold, args.confidence),
	CLI_OPT_STRING("report", "DIR", &args.report_dir,
		       "write the reports into DIR"),
	CLI_OPT_STRING("json", "FILE", &args.json,
		       "also write the comparison document to FILE"),
	CLI_OPT_CHARTS(args.chart_cases),
	CLI_OPT_STRING("suite", "S", &args.suite,
		       "the suite whose stored results BASE and CAND name, "
		       "when they are revisions"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	struct baseline base = { 0 }, cand = { 0 };
	struct compare_options compare_opts;
	struct report_model model = { 0 };
	struct comparison *comparison = NULL;
	struct store *store = NULL;
	int error;

	args.threshold = args.confidence = -1;
	CLI_PARSE_OR_RETURN(&cli_cmd_compare, &args.common, argc, argv);
	if ((error = cli_open_store(&store, args.store)) < 0 ||
	    (error = baseline_resolve_side(&base, store, args.common.args[0],
					   "BASE", args.suite)) < 0 ||
	    (error = baseline_resolve_side(&cand, store, args.common.args[1],
					   "CAND", args.suite)) < 0)
		goto done;
	compare_options_init(&compare_opts);
	compare_opts.threshold = args.threshold;
	compare_opts.confidence = args.confidence;
	if ((error = compare_results(&comparison, base.result, cand.result,
				     &compare_opts)) < 0)
		goto done;
	comparison->baseline.source = xstrdup(base.source);
	comparison->baseline.path = xstrdup(base.path);
	comparison->candidate.path = xstrdup(cand.path);
	summary_print_comparison(stdout, comparison, args.common.color,
				 !args.common.quiet);
	if (comparison->settings_defaulted)
		bg_warn("neither result records its suite's gate settings "
			"(written before benchgate recorded them): judged at "
			"the defaults, threshold %g %% and confidence %g, "
			"where --threshold and --confidence do not say "
			"otherwise",
			COMPARE_THRESHOLD_DEFAULT * 100,
			COMPARE_CONFIDENCE_DEFAULT);
	model.comparison = comparison;
	if ((error = cli_write_outputs(&model, args.json, args.report_dir,
				       args.chart_cases,
				       args.common.quiet)) == BG_OK)
		error = cli_outcome_of(comparison);
done:
	comparison_free(comparison);
	baseline_release(&base);
	baseline_release(&cand);
	store_free(store);
	return error;
}

const struct cli_command cli_cmd_compare = {
	.name = "compare",
	.usage = "BASE CAND [options]",
	.summary = "compare two result files (or revisions)",
	.help = "BASE and CAND are result files, or revisions (\"main\", "
		"\"HEAD~1\", a commit) whose\nnearest stored result for this "
		"machine is used; revisions need --suite. --report DIR writes "
		"the reports\nas `check` does. Exit status 1 on a regression, 3 "
		"when a case failed, 0\notherwise.",
	.options = options,
	.min_args = 2,
	.max_args = 2,
	.run = run,
};
