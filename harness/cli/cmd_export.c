/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/mlflow_export.h"
#include "harness/util/error.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	struct mlflow_export_request export;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STRING("mlflow", "URI", &args.export.uri,
		       "the MLflow tracking server, such as "
		       "http://mlflow:5000"),
	CLI_OPT_STRING("experiment", "NAME", &args.export.experiment,
		       "the MLflow experiment (default "
		       "$MLFLOW_EXPERIMENT_NAME, else the suite's name)"),
	CLI_COMMON_OPTS(args.common),
};

static void print_summary(const struct mlflow_export_summary *s)
{
	printf("exported %zu run%s to %s, experiment %s, under parent run "
	       "%s; %zu report%s uploaded\n",
	       s->runs, s->runs == 1 ? "" : "s", args.export.uri,
	       s->experiment_id, s->parent_run_id, s->uploaded,
	       s->uploaded == 1 ? "" : "s");
	if (s->artifacts_note)
		printf("note: %s\n", s->artifacts_note);
}

static int run(int argc, char **argv)
{
	struct mlflow_export_summary summary = { 0 };
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_export, &args.common, argc, argv);
	if (!args.export.uri)
		return bg_input_error("export: --mlflow URI is required");
	args.export.input = args.common.args[0];
	if ((error = mlflow_export(&args.export, &summary)) >= 0) {
		if (!args.common.quiet)
			print_summary(&summary);
		error = OUTCOME_PASS;
	}
	mlflow_export_summary_release(&summary);
	return error;
}

const struct cli_command cli_cmd_export = {
	.name = "export",
	.usage = "--mlflow URI [--experiment NAME] RESULT|COMPARISON",
	.summary = "send a result or comparison to an experiment tracker "
		   "(MLflow)",
	.help = "Makes one parent run for the export, with the reports as "
		"artifacts, and one\nchild run per case: params suite, "
		"benchmark, variant, device, commit and\nmachine; each "
		"metric's median, its samples as steps of NAME.samples, its\n"
		"change as NAME.change; tags verdict.NAME and benchgate."
		"verdict. Credentials:\nMLFLOW_TRACKING_TOKEN, else "
		"MLFLOW_TRACKING_USERNAME and _PASSWORD; never\nprinted. "
		"Exit status 0, or 2 for bad input or a server that refuses.",
	.options = options,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
