#include "harness/cli/cli.h"

#include "harness/cli/mlflow_export.h"
#include "harness/gate/compare.h"
#include "harness/store/result.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/strbuf.h"
#include "reporters/report.h"

#include <stdio.h>
#include <stdlib.h>

static const struct cli_command_spec spec = {
	.name = "export",
	.usage = "--mlflow URI [--experiment NAME] RESULT|COMPARISON",
	.summary = "Send a result file or a comparison document to an MLflow "
		   "tracking server.",
	.help = "Makes one parent run for the export, with the reports as "
		"artifacts, and one\nchild run per case: params suite, "
		"benchmark, variant, device, commit and\nmachine; each "
		"metric's median, its samples as steps of NAME.samples, its\n"
		"change as NAME.change; tags verdict.NAME and benchgate."
		"verdict. Credentials:\nMLFLOW_TRACKING_TOKEN, else "
		"MLFLOW_TRACKING_USERNAME and _PASSWORD; never\nprinted. "
		"Exit status 0, or 2 for bad input or a server that refuses.",
	.options = OPT_EXPORT,
	.min_args = 1,
	.max_args = 1,
};

/* A comparison's candidate result, for its samples: NULL when its file is
 * not at hand (the export then carries medians only). */
static struct result *candidate_of(const struct comparison *comparison)
{
	struct result *result = NULL;

	if (comparison->candidate.path &&
	    result_load(&result, comparison->candidate.path) < 0) {
		bg_warn("%s: %s; exporting medians without samples",
			comparison->candidate.path, bg_error_last());
		bg_error_clear();
	}
	return result;
}

static void print_summary(const struct cli_options *opts,
			  const struct mlflow_export_summary *s)
{
	printf("exported %zu run%s to %s, experiment %s, under parent run "
	       "%s; %zu report%s uploaded\n",
	       s->runs, s->runs == 1 ? "" : "s", opts->mlflow,
	       s->experiment_id, s->parent_run_id, s->uploaded,
	       s->uploaded == 1 ? "" : "s");
	if (s->artifacts_note)
		printf("note: %s\n", s->artifacts_note);
}

int cmd_export(int argc, char **argv)
{
	struct mlflow_export_summary summary = { 0 };
	struct comparison *comparison = NULL;
	struct result *result = NULL, *candidate = NULL;
	struct report_model model = { 0 };
	char reports[] = "/tmp/benchgate-export-XXXXXX";
	bool have_reports = false;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (!opts.mlflow)
		return bg_input_error("export: --mlflow URI is required");
	if ((error = comparison_read(&comparison, &result, opts.args[0])) < 0)
		goto done;
	candidate = result ? result : candidate_of(comparison);
	model.comparison = comparison;
	model.candidate = candidate;
	if (!mkdtemp(reports)) {
		error = bg_error("cannot make a directory for the reports: %m");
		goto done;
	}
	have_reports = true;
	if ((error = report_write_all(&model, reports,
				      REPORT_ALL & ~REPORT_CHARTS, NULL)) < 0 ||
	    (error = mlflow_export(&(struct mlflow_export_request){
					   .uri = opts.mlflow,
					   .experiment = opts.experiment,
					   .comparison = comparison,
					   .compared = !result,
					   .candidate = candidate,
					   .report_dir = reports,
				   },
				   &summary)) < 0)
		goto done;
	if (!opts.quiet)
		print_summary(&opts, &summary);
	error = OUTCOME_PASS;
done:
	if (have_reports)
		remove_tree(reports);
	report_model_release(&model);
	mlflow_export_summary_release(&summary);
	comparison_free(comparison);
	if (candidate != result)
		result_free(candidate);
	result_free(result);
	return error;
}
