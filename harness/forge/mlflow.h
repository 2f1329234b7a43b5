/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_MLFLOW_H
#define BENCHGATE_MLFLOW_H

#include <stddef.h>

/*
 * A client of the MLflow tracking server's REST API (api/2.0/mlflow), the
 * calls `benchgate export --mlflow` needs: find or create an experiment,
 * create a run, log a batch of metrics, params and tags, end the run, and
 * upload an artifact through the server's artifact proxy
 * (api/2.0/mlflow-artifacts, `mlflow server --serve-artifacts`, the
 * default since MLflow 2.0).
 *
 * Credentials come from the environment as MLflow's own client reads them:
 * MLFLOW_TRACKING_TOKEN (a bearer token), else MLFLOW_TRACKING_USERNAME and
 * MLFLOW_TRACKING_PASSWORD (basic auth). They go into the Authorization
 * header only, and every message is scrubbed of them (forge/redact.h).
 * Calls are retried as http.h says; the calls that are safe to repeat are
 * marked so (every one but the creation of a run and of an experiment,
 * which would be made twice).
 */

struct mlflow;

struct mlflow_metric {
	const char *key;
	double value;
	long long timestamp_ms;
	long long step;
};

/* A param or a tag. */
struct mlflow_pair {
	const char *key;
	const char *value;
};

/* What one run gets in its log-batch calls; split by the client into as
 * many requests as MLflow's limits need (1000 metrics, 100 params, 100
 * tags, 1000 items per request). */
struct mlflow_batch {
	const struct mlflow_metric *metrics;
	size_t metrics_nr;
	const struct mlflow_pair *params;
	size_t params_nr;
	const struct mlflow_pair *tags;
	size_t tags_nr;
};

/* A run as the server created it. */
struct mlflow_run {
	char *id;
	char *artifact_uri; /* "mlflow-artifacts:/1/abc/artifacts", or a
			     * store the server does not proxy */
};

/* Connects to the tracking server at uri (http:// or https://, no
 * trailing path needed). BG_EINPUT for another scheme. */
int mlflow_open(struct mlflow **out, const char *uri);
void mlflow_close(struct mlflow *client);

/* The id of the experiment called name, created when it does not exist.
 * The caller frees *id. */
int mlflow_experiment(struct mlflow *client, const char *name, char **id);

/* Creates a run in the experiment, started at start_ms, with the tags
 * (mlflow.runName and mlflow.parentRunId among them when wanted). */
int mlflow_run_create(struct mlflow *client, const char *experiment_id,
		      const char *run_name, long long start_ms,
		      const struct mlflow_pair *tags, size_t tags_nr,
		      struct mlflow_run *out);
void mlflow_run_release(struct mlflow_run *run);

int mlflow_log(struct mlflow *client, const char *run_id,
	       const struct mlflow_batch *batch);

/* Ends the run: status FINISHED or FAILED. */
int mlflow_run_end(struct mlflow *client, const char *run_id,
		   const char *status, long long end_ms);

/*
 * Uploads text (len bytes, no NUL inside) as the artifact `name` of the run
 * through the artifact proxy. Returns 1 without sending anything when the
 * run's artifacts do not live behind the proxy (an s3:// or file store the
 * server only names), for the caller to say so.
 */
int mlflow_upload(struct mlflow *client, const struct mlflow_run *run,
		  const char *name, const char *text, size_t len);

#endif
