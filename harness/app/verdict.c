/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/verdict.h"

#include "harness/app/outcome.h"
#include "harness/app/outputs.h"
#include "harness/app/profiles.h"
#include "harness/gate/baseline.h"
#include "harness/store/store.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "reporters/report.h"
#include "reporters/summary.h"

#include <stdio.h>

/* The terminal's story of a concluded check, from its report model. */
static void print_check(const struct check *check,
			const struct report_model *model, bool quiet,
			bool color)
{
	if (!quiet)
		terminal_print_line(stdout, "baseline: %s",
				    check->baseline.note);
	/* Without a baseline every metric is "new": the measurements
	 * themselves are the news. */
	if (!check->baseline.result && !quiet)
		summary_print_measures(stdout, model, color);
	summary_warn_load(check->session->result);
	/* --quiet: the verdict line alone (and the CI annotations, which
	 * are the verdict as the CI system shows it) */
	if (quiet)
		summary_print_verdict(stdout, model->comparison, color);
	else
		summary_print_comparison(stdout, model, color, false);
	report_annotate_ci(stdout, model);
	if (!quiet && !check->session->unstored.len)
		terminal_print_line(stdout, "stored %s",
				    check->session->result_path.buf);
}

int app_check(const struct app_check_request *req)
{
	const struct app_outputs *out = &req->out;
	struct check_options opts = req->check;
	struct report_model model = { 0 };
	struct check *check = NULL;
	struct against against;
	int error;

	against_init(&against);
	if ((error = app_prepare_outputs(out->json, out->report_dir)) < 0 ||
	    (req->against.ref &&
	     (error = against_prepare(&against, &req->against, &opts)) != 0))
		goto done;
	error = check_run(&check, &opts);
	/* measured: the merge base's tree is not needed any more */
	if (req->against.ref)
		against_remove_tree(&against);
	if (error < 0)
		goto done;
	app_draw_profiles(check->session);
	if ((error = check_conclude(check)) < 0) {
		error = app_outcome_after_measuring(check->session, BG_OK,
						    error);
		goto done;
	}
	/* one model for the terminal, the annotations and every report */
	model.comparison = check->comparison;
	model.baseline = check->baseline.result;
	model.candidate = check->session->result;
	model.history = check->baseline.history;
	model.history_nr = check->baseline.history_nr;
	model.chart_cases = out->chart_cases;
	report_model_build(&model);
	print_check(check, &model, out->quiet, out->color);
	/* the reports are written whether or not the result was stored */
	error = app_write_outputs(&model, out->json, out->report_dir,
				  out->quiet);
	error = app_outcome_after_measuring(check->session, error,
					    app_outcome_of(check->comparison));
done:
	report_model_release(&model);
	if (req->against.ref)
		against_release(&against);
	check_free(check);
	return error;
}

static void warn_if_defaulted(const struct comparison *comparison)
{
	if (comparison->settings_defaulted)
		bg_warn("neither result records its suite's gate settings "
			"(written before benchgate recorded them): judged at "
			"the defaults, threshold %g %% and confidence %g, "
			"where --threshold and --confidence do not say "
			"otherwise",
			COMPARE_THRESHOLD_DEFAULT * 100,
			COMPARE_CONFIDENCE_DEFAULT);
}

int app_compare(const struct app_compare_request *req)
{
	struct baseline base = { 0 }, cand = { 0 };
	struct compare_options compare;
	struct report_model model = { 0 };
	struct comparison *comparison = NULL;
	struct store *store = NULL;
	int error;

	if ((error = app_store_open(&store, req->store)) < 0 ||
	    (error = baseline_resolve_side(&base, store, req->base, "BASE",
					   req->suite)) < 0 ||
	    (error = baseline_resolve_side(&cand, store, req->cand, "CAND",
					   req->suite)) < 0)
		goto done;
	compare_options_init(&compare);
	compare.threshold = req->threshold;
	compare.confidence = req->confidence;
	if ((error = compare_results(&comparison, base.result, cand.result,
				     &compare)) < 0)
		goto done;
	comparison->baseline.source = xstrdup(base.source);
	comparison->baseline.path = xstrdup(base.path);
	comparison->candidate.path = xstrdup(cand.path);
	/* one model for the terminal and every report */
	model.comparison = comparison;
	model.chart_cases = req->out.chart_cases;
	report_model_build(&model);
	if (req->out.quiet)
		summary_print_verdict(stdout, comparison, req->out.color);
	else
		summary_print_comparison(stdout, &model, req->out.color,
					 true);
	warn_if_defaulted(comparison);
	if ((error = app_write_outputs(&model, req->out.json,
				       req->out.report_dir,
				       req->out.quiet)) == BG_OK)
		error = app_outcome_of(comparison);
done:
	report_model_release(&model);
	comparison_free(comparison);
	baseline_release(&base);
	baseline_release(&cand);
	store_free(store);
	return error;
}
