/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/mlflow_export.h"
#include "harness/util/error.h"

#include <stdio.h>

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
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (!opts.mlflow)
		return bg_input_error("export: --mlflow URI is required");
	if ((error = mlflow_export(&(struct mlflow_export_request){
					   .uri = opts.mlflow,
					   .experiment = opts.experiment,
					   .input = opts.args[0],
				   },
				   &summary)) >= 0) {
		if (!opts.quiet)
			print_summary(&opts, &summary);
		error = OUTCOME_PASS;
	}
	mlflow_export_summary_release(&summary);
	return error;
}
