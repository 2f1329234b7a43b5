/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_MLFLOW_EXPORT_H
#define BENCHGATE_MLFLOW_EXPORT_H

#include <stddef.h>

/*
 * `benchgate export --mlflow`: a comparison (or a result compared with
 * nothing, every metric "new") as MLflow runs (forge/mlflow.h):
 *
 * - one parent run for the export, named "SUITE @ COMMIT", holding the
 *   reports (report.html, report.md, comparison.json, junit.xml...) as
 *   artifacts, and the tags benchgate.verdict (pass, regression, failed;
 *   "measured" for a result alone) and mlflow.source.git.commit;
 * - one child run per case (tag mlflow.parentRunId), named
 *   "BENCHMARK/VARIANT/DEVICE", with the params suite, benchmark, variant,
 *   device, commit and machine; per metric the median as metric NAME, each
 *   sample of the candidate as metric NAME.samples at steps 0, 1, ...
 *   (when the candidate's result file is at hand), the relative change
 *   against the baseline as NAME.change; the tags verdict.NAME, and
 *   benchgate.verdict with the case's worst verdict. A failed case's run
 *   ends FAILED, with its reason as the tag benchgate.reason.
 */
struct mlflow_export_request {
	const char *uri;	/* the tracking server */
	const char *experiment; /* NULL: $MLFLOW_EXPERIMENT_NAME, else the
				 * suite's name */
	const char *input; /* a comparison document or a result file; a
			    * comparison's samples come from its candidate's
			    * result file when that is at hand */
};

struct mlflow_export_summary {
	char *experiment_id;
	char *parent_run_id;
	size_t runs;	  /* child runs made */
	size_t uploaded;  /* artifacts */
	char *artifacts_note; /* why none were uploaded; NULL */
};

/* Reads the input, writes its reports into a scratch directory (removed
 * after), and sends everything. BG_EINPUT for an input that is neither
 * document; on a server's error the runs made so far stay on it (MLflow
 * has no transactions), and the message names the call that failed. The
 * caller releases the summary, also after an error. */
int mlflow_export(const struct mlflow_export_request *req,
		  struct mlflow_export_summary *out);
void mlflow_export_summary_release(struct mlflow_export_summary *summary);

#endif
