/* SPDX-License-Identifier: Apache-2.0 */
/* The MLflow REST client; the contract is in mlflow.h. */
#include "harness/forge/mlflow.h"

#include "harness/forge/http.h"
#include "harness/forge/redact.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

/* MLflow's LogBatch limits (MAX_METRICS_PER_BATCH and friends). */
#define BATCH_METRICS_MAX 1000
#define BATCH_PARAMS_MAX  100
#define BATCH_TAGS_MAX	  100

#define ARTIFACT_SCHEME "mlflow-artifacts:"

struct mlflow {
	struct http_client *http;
	struct strbuf api;    /* "URI/api/2.0/" */
	struct strbuf secret; /* the token or password; scrubbed */
};

/* Appends the Authorization header line from the environment, and sets
 * the secret to scrub; nothing when no credentials are set. */
static void add_credentials(struct mlflow *c, struct strbuf *header)
{
	const char *token = getenv("MLFLOW_TRACKING_TOKEN");
	const char *user = getenv("MLFLOW_TRACKING_USERNAME");
	const char *password = getenv("MLFLOW_TRACKING_PASSWORD");

	if (token && *token) {
		strbuf_addstr(&c->secret, token);
		strbuf_addf(header, "Authorization: Bearer %s", token);
	} else if (user && *user && password) {
		struct strbuf pair = STRBUF_INIT;
		unsigned char *encoded;

		strbuf_addf(&pair, "%s:%s", user, password);
		encoded = xmalloc(4 * (pair.len / 3 + 1) + 1);
		EVP_EncodeBlock(encoded, (const unsigned char *)pair.buf,
				(int)pair.len);
		strbuf_addstr(&c->secret, password);
		strbuf_addf(header, "Authorization: Basic %s", encoded);
		free(encoded);
		strbuf_release(&pair);
	}
}

int mlflow_open(struct mlflow **out, const char *uri)
{
	struct strbuf auth = STRBUF_INIT;
	const char *headers[2] = { NULL, NULL };
	struct mlflow *c;
	int error;

	*out = NULL;
	if (strncmp(uri, "http://", 7) && strncmp(uri, "https://", 8))
		return bg_input_error("--mlflow: expected the tracking "
				      "server's http:// or https:// URL, "
				      "found '%s'",
				      uri);
	c = xcalloc(1, sizeof(*c));
	strbuf_init(&c->api, 0);
	strbuf_init(&c->secret, 0);
	strbuf_addstr(&c->api, uri);
	while (c->api.len && c->api.buf[c->api.len - 1] == '/')
		strbuf_setlen(&c->api, c->api.len - 1);
	strbuf_addstr(&c->api, "/api/2.0/");
	add_credentials(c, &auth);
	if (c->secret.len && !http_url_may_carry_secret(uri)) {
		error = bg_input_error(
			"--mlflow: '%s' is plain http://, which would send "
			"the MLflow credentials in clear text; use https:// "
			"(plain http:// only to loopback: 127.0.0.0/8, ::1, "
			"localhost)",
			uri);
		strbuf_release(&auth);
		mlflow_close(c);
		return error;
	}
	if (auth.len)
		headers[0] = auth.buf;
	error = http_client_new(&c->http, &(struct http_client_options){
						  .service = "MLflow",
						  .secret = c->secret.len
								    ? c->secret
									      .buf
								    : NULL,
						  .headers = headers,
					  });
	strbuf_release(&auth);
	if (error < 0) {
		mlflow_close(c);
		return error;
	}
	*out = c;
	return BG_OK;
}

void mlflow_close(struct mlflow *c)
{
	if (!c)
		return;
	http_client_free(c->http);
	strbuf_release(&c->api);
	strbuf_release(&c->secret);
	free(c);
}

/*
 * Sends body (a JSON object, consumed) to api/2.0/PATH and parses the
 * answer into *answer when asked (the caller frees it). A status other
 * than 2xx is an error naming the call and the server's message; when
 * `missing_ok` and the server answers 404 RESOURCE_DOES_NOT_EXIST,
 * returns 1 instead.
 */
static int call(struct mlflow *c, const char *method, const char *path,
		cJSON *body, unsigned flags, bool missing_ok, cJSON **answer)
{
	struct http_response res = HTTP_RESPONSE_INIT;
	struct strbuf url = STRBUF_INIT;
	char *text = body ? cJSON_PrintUnformatted(body) : NULL;
	int error;

	if (answer)
		*answer = NULL;
	strbuf_addf(&url, "%s%s", c->api.buf, path);
	if ((error = http_call(c->http, method, url.buf, text, flags, &res)) <
	    0)
		goto done;
	if (missing_ok && res.status == 404) {
		error = 1;
	} else if (!http_is_success(res.status)) {
		error = http_status_error(c->http, method, url.buf, &res, 1);
	} else if (answer && !(*answer = cJSON_ParseWithLength(
					res.body.buf, res.body.len))) {
		error = redact_error(c->secret.buf, BG_ERROR,
				     "MLflow answered %s %s with something "
				     "that is not JSON",
				     method, url.buf);
	}
done:
	cJSON_Delete(body);
	free(text);
	http_response_release(&res);
	strbuf_release(&url);
	return error;
}

/* The string at answer.a.b..., or NULL. */
static const char *answer_string(const cJSON *answer, const char *const *keys)
{
	for (; *keys && answer; keys++)
		answer = cJSON_GetObjectItemCaseSensitive(answer, *keys);
	return cJSON_IsString(answer) ? answer->valuestring : NULL;
}

static int missing_member(const char *call_name, const char *member)
{
	return bg_error("MLflow's answer to %s has no \"%s\"", call_name,
			member);
}

int mlflow_experiment(struct mlflow *c, const char *name, char **id)
{
	static const char *const found_id[] = { "experiment", "experiment_id",
						NULL };
	static const char *const created_id[] = { "experiment_id", NULL };
	struct strbuf path = STRBUF_INIT;
	cJSON *answer = NULL, *body;
	const char *value;
	int error;

	*id = NULL;
	strbuf_addstr(&path, "mlflow/experiments/get-by-name?experiment_name=");
	http_add_escaped(&path, name, strlen(name));
	error = call(c, "GET", path.buf, NULL, HTTP_IDEMPOTENT, true, &answer);
	if (error == 1) {
		body = cJSON_CreateObject();
		cJSON_AddStringToObject(body, "name", name);
		error = call(c, "POST", "mlflow/experiments/create", body, 0,
			     false, &answer);
		value = answer_string(answer, created_id);
	} else {
		value = answer_string(answer, found_id);
	}
	if (error >= 0 && !value)
		error = missing_member("the experiment's lookup",
				       "experiment_id");
	if (error >= 0)
		*id = xstrdup(value);
	cJSON_Delete(answer);
	strbuf_release(&path);
	return error < 0 ? error : BG_OK;
}

/* pairs[from, from + nr) as a JSON array; pairs may be NULL when nr is 0 */
static cJSON *pairs_json(const struct mlflow_pair *pairs, size_t from,
			 size_t nr)
{
	cJSON *array = cJSON_CreateArray();

	for (size_t i = from; i < from + nr; i++) {
		cJSON *item = cJSON_CreateObject();

		cJSON_AddStringToObject(item, "key", pairs[i].key);
		cJSON_AddStringToObject(item, "value", pairs[i].value);
		cJSON_AddItemToArray(array, item);
	}
	return array;
}

int mlflow_run_create(struct mlflow *c, const char *experiment_id,
		      const char *run_name, long long start_ms,
		      const struct mlflow_pair *tags, size_t tags_nr,
		      struct mlflow_run *out)
{
	static const char *const run_id[] = { "run", "info", "run_id", NULL };
	static const char *const artifacts[] = { "run", "info", "artifact_uri",
						 NULL };
	cJSON *body = cJSON_CreateObject(), *answer;
	int error;

	memset(out, 0, sizeof(*out));
	cJSON_AddStringToObject(body, "experiment_id", experiment_id);
	cJSON_AddStringToObject(body, "run_name", run_name);
	cJSON_AddNumberToObject(body, "start_time", (double)start_ms);
	cJSON_AddItemToObject(body, "tags", pairs_json(tags, 0, tags_nr));
	if ((error = call(c, "POST", "mlflow/runs/create", body, 0, false,
			  &answer)) < 0)
		return error;
	if (!answer_string(answer, run_id)) {
		error = missing_member("runs/create", "run.info.run_id");
	} else {
		const char *uri = answer_string(answer, artifacts);

		out->id = xstrdup(answer_string(answer, run_id));
		out->artifact_uri = uri ? xstrdup(uri) : NULL;
	}
	cJSON_Delete(answer);
	return error;
}

void mlflow_run_release(struct mlflow_run *run)
{
	free(run->id);
	free(run->artifact_uri);
	memset(run, 0, sizeof(*run));
}

static cJSON *metrics_json(const struct mlflow_metric *metrics, size_t from,
			    size_t nr)
{
	cJSON *array = cJSON_CreateArray();

	for (size_t i = from; i < from + nr; i++) {
		cJSON *item = cJSON_CreateObject();

		cJSON_AddStringToObject(item, "key", metrics[i].key);
		cJSON_AddNumberToObject(item, "value", metrics[i].value);
		cJSON_AddNumberToObject(item, "timestamp",
					(double)metrics[i].timestamp_ms);
		cJSON_AddNumberToObject(item, "step", (double)metrics[i].step);
		cJSON_AddItemToArray(array, item);
	}
	return array;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

int mlflow_log(struct mlflow *c, const char *run_id,
	       const struct mlflow_batch *batch)
{
	size_t metrics = 0, params = 0, tags = 0;

	/* Params first and whole: a param may be logged once, and a request
	 * that fails half way is repeated (idempotent for params and tags;
	 * a metric point may then be logged twice, as MLflow's own client
	 * does on retry). */
	while (metrics < batch->metrics_nr || params < batch->params_nr ||
	       tags < batch->tags_nr) {
		size_t p = min_size(batch->params_nr - params, BATCH_PARAMS_MAX);
		size_t t = min_size(batch->tags_nr - tags, BATCH_TAGS_MAX);
		size_t m = min_size(batch->metrics_nr - metrics,
				    BATCH_METRICS_MAX - p - t);
		cJSON *body = cJSON_CreateObject();
		int error;

		cJSON_AddStringToObject(body, "run_id", run_id);
		cJSON_AddItemToObject(body, "metrics",
				      metrics_json(batch->metrics, metrics, m));
		cJSON_AddItemToObject(body, "params",
				      pairs_json(batch->params, params, p));
		cJSON_AddItemToObject(body, "tags",
				      pairs_json(batch->tags, tags, t));
		if ((error = call(c, "POST", "mlflow/runs/log-batch", body,
				  HTTP_IDEMPOTENT, false, NULL)) < 0)
			return error;
		metrics += m;
		params += p;
		tags += t;
	}
	return BG_OK;
}

int mlflow_run_end(struct mlflow *c, const char *run_id, const char *status,
		   long long end_ms)
{
	cJSON *body = cJSON_CreateObject();

	cJSON_AddStringToObject(body, "run_id", run_id);
	cJSON_AddStringToObject(body, "status", status);
	cJSON_AddNumberToObject(body, "end_time", (double)end_ms);
	return call(c, "POST", "mlflow/runs/update", body, HTTP_IDEMPOTENT,
		    false, NULL);
}

int mlflow_upload(struct mlflow *c, const struct mlflow_run *run,
		  const char *name, const char *text, size_t len)
{
	struct http_response res = HTTP_RESPONSE_INIT;
	struct strbuf url = STRBUF_INIT;
	const char *where = run->artifact_uri;
	int error = BG_OK;

	if (!where || strncmp(where, ARTIFACT_SCHEME, strlen(ARTIFACT_SCHEME)))
		return 1;
	where += strlen(ARTIFACT_SCHEME);
	while (*where == '/')
		where++;
	if (memchr(text, '\0', len))
		return bg_error("artifact %s: binary files are not uploaded",
				name);
	strbuf_addf(&url, "%smlflow-artifacts/artifacts/%s/%s", c->api.buf,
		    where, name);
	if ((error = http_call(c->http, "PUT", url.buf, text, HTTP_IDEMPOTENT,
			       &res)) == BG_OK &&
	    !http_is_success(res.status))
		error = http_status_error(c->http, "PUT", url.buf, &res, 1);
	http_response_release(&res);
	strbuf_release(&url);
	return error;
}
