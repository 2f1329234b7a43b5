/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/alloc.h"
#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "reporters/report.h"
#include "reporters/summary.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "compare",
	.usage = "BASE CAND [options]",
	.summary = "Compare two result files (or the stored results of two "
		   "revisions).",
	.help = "BASE and CAND are result files, or revisions (\"main\", "
		"\"HEAD~1\", a commit) whose\nnearest stored result for this "
		"machine is used; revisions need --suite. --report DIR writes "
		"the reports\nas `check` does. Exit status 1 on a regression, 3 "
		"when a case failed, 0\notherwise.",
	.options = OPT_STORE | OPT_GATE | OPT_JSON | OPT_REPORT |
		   OPT_COMPARE_SUITE,
	.min_args = 2,
	.max_args = 2,
};

int cmd_compare(int argc, char **argv)
{
	struct baseline base = { 0 }, cand = { 0 };
	struct compare_options compare_opts;
	struct report_model model = { 0 };
	struct comparison *comparison = NULL;
	struct store *store = NULL;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if ((error = cli_open_store(&store, &opts)) < 0 ||
	    (error = baseline_resolve_side(&base, store, opts.args[0], "BASE",
					   opts.suite)) < 0 ||
	    (error = baseline_resolve_side(&cand, store, opts.args[1], "CAND",
					   opts.suite)) < 0)
		goto done;
	compare_options_init(&compare_opts);
	compare_opts.threshold = opts.threshold;
	compare_opts.confidence = opts.confidence;
	if ((error = compare_results(&comparison, base.result, cand.result,
				     &compare_opts)) < 0)
		goto done;
	comparison->baseline.source = xstrdup(base.source);
	comparison->baseline.path = xstrdup(base.path);
	comparison->candidate.path = xstrdup(cand.path);
	summary_print_comparison(stdout, comparison, opts.color, !opts.quiet);
	if (comparison->settings_defaulted)
		bg_warn("neither result records its suite's gate settings "
			"(written before benchgate recorded them): judged at "
			"the defaults, threshold %g %% and confidence %g, "
			"where --threshold and --confidence do not say "
			"otherwise",
			COMPARE_THRESHOLD_DEFAULT * 100,
			COMPARE_CONFIDENCE_DEFAULT);
	model.comparison = comparison;
	if ((error = cli_write_outputs(&opts, &model)) == BG_OK)
		error = cli_outcome_of(comparison);
done:
	comparison_free(comparison);
	baseline_release(&base);
	baseline_release(&cand);
	store_free(store);
	return error;
}
