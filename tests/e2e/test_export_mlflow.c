/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate export --mlflow` against a stand-in tracking
 * server (tests/fixtures/mlflow_server.py) that holds every request body
 * to MLflow's documented REST schema and logs what it received. The
 * results exported are made by the built binary from a real suite.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOKEN "mlflow-secret-token-0123456789"

TestSuite(export_mlflow, .init = test_dir_setup, .fini = test_dir_teardown);

struct server {
	pid_t pid;
	struct strbuf url, log_path;
	cJSON *log; /* after server_stop() */
};

/* Starts the stand-in server with extra arguments (NULL-terminated). */
static void server_start(struct server *s, const char *const *extra)
{
	struct strbuf port_path = STRBUF_INIT;
	const char *argv[12] = { "python3",
				 TEST_FIXTURE_DIR "/mlflow_server.py" };
	size_t argc = 2;
	char *port = NULL;

	strbuf_init(&s->url, 0);
	strbuf_init(&s->log_path, 0);
	strbuf_addf(&port_path, "%s/port", test_dir);
	strbuf_addf(&s->log_path, "%s/server-log.json", test_dir);
	argv[argc++] = port_path.buf;
	argv[argc++] = s->log_path.buf;
	for (; extra && *extra; extra++)
		argv[argc++] = *extra;
	s->pid = fork();
	cr_assert_geq(s->pid, 0);
	if (s->pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 200 && access(port_path.buf, F_OK); i++)
		usleep(50 * 1000);
	port = test_read_file(port_path.buf);
	cr_assert(port, "the stand-in MLflow server did not start");
	strbuf_addf(&s->url, "http://127.0.0.1:%s", port);
	free(port);
	strbuf_release(&port_path);
}

static void server_stop(struct server *s)
{
	char *text;

	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	text = test_read_file(s->log_path.buf);
	cr_assert(text, "the server wrote no log");
	s->log = cJSON_Parse(text);
	free(text);
	cr_assert(s->log);
}

static void server_release(struct server *s)
{
	cJSON_Delete(s->log);
	strbuf_release(&s->url);
	strbuf_release(&s->log_path);
}

/* Runs a two-variant suite whose latency is `latency` (the fast variant
 * half of it) and writes the result to NAME.json; returns its path. */
static char *measure(const char *name, const char *latency)
{
	struct test_output out;
	struct strbuf suite = STRBUF_INIT, result = STRBUF_INIT;
	char *suite_path;

	strbuf_addf(&suite,
		    "{ \"benchgate\": 1, \"suite\": \"tracked\",\n"
		    "  \"defaults\": { \"warmup\": 0, \"runs\": 5 },\n"
		    "  \"variants\": { \"original\": { \"vars\": { \"f\": "
		    "\"1\" } }, \"fast\": { \"vars\": { \"f\": \"0.5\" } } },\n"
		    "  \"benchmarks\": [ { \"name\": \"infer\",\n"
		    "    \"shell\": \"awk -v f=${f} -v r=${run} 'BEGIN { "
		    "printf \\\"latency %%.4f\\\\n\\\", f * %s * (1 + r / "
		    "1000) }' > \\\"$BENCHGATE_METRICS_FILE\\\"\",\n"
		    "    \"metrics\": [ { \"name\": \"latency\", \"from\": "
		    "\"metrics\", \"unit\": \"ms\" } ] } ] }\n",
		    latency);
	suite_path = test_write_file(test_dir, "suite.json", suite.buf);
	strbuf_addf(&result, "%s/%s.json", test_dir, name);
	test_benchgate(&out, test_dir, NULL,
		       (const char *[]){ "run", suite_path, "--store", "store",
					 "--json", result.buf, "--quiet",
					 NULL });
	cr_assert_eq(out.exit_code, 0, "run: %s", out.err.buf);
	test_output_release(&out);
	free(suite_path);
	strbuf_release(&suite);
	return strbuf_detach(&result, NULL);
}

/* The runs the server holds, as an array of its run objects. */
static const cJSON *runs_of(const struct server *s)
{
	return cJSON_GetObjectItem(s->log, "runs");
}

static const char *pair_value(const cJSON *pairs, const char *key)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, pairs)
	{
		if (!strcmp(cJSON_GetObjectItem(item, "key")->valuestring, key))
			return cJSON_GetObjectItem(item, "value")->valuestring;
	}
	return NULL;
}

static size_t metric_points(const cJSON *run, const char *key)
{
	const cJSON *item;
	size_t nr = 0;

	cJSON_ArrayForEach(item, cJSON_GetObjectItem(run, "metrics"))
	{
		nr += !strcmp(cJSON_GetObjectItem(item, "key")->valuestring,
			      key);
	}
	return nr;
}

static void assert_schema_kept(const struct server *s)
{
	const cJSON *request;

	cJSON_ArrayForEach(request, cJSON_GetObjectItem(s->log, "requests"))
	{
		const cJSON *problems = cJSON_GetObjectItem(request, "problems");

		cr_expect_eq(cJSON_GetArraySize(problems), 0,
			     "%s %s broke MLflow's schema: %s",
			     cJSON_GetObjectItem(request, "method")->valuestring,
			     cJSON_GetObjectItem(request, "path")->valuestring,
			     cJSON_PrintUnformatted(problems));
	}
}

Test(export_mlflow, a_comparison_becomes_a_parent_run_and_a_run_per_case)
{
	char *base = measure("base", "10"), *cand = measure("cand", "13");
	struct strbuf cmp = STRBUF_INIT;
	struct server s;
	struct test_output out;
	const cJSON *run;
	size_t children = 0;

	strbuf_addf(&cmp, "%s/cmp.json", test_dir);
	test_benchgate(&out, test_dir, NULL,
		       (const char *[]){ "compare", base, cand, "--json",
					 cmp.buf, "--quiet", NULL });
	cr_assert_eq(out.exit_code, 1, "a 30%% slower candidate: %s",
		     out.out.buf);
	test_output_release(&out);

	server_start(&s, (const char *[]){ "--token", TOKEN, NULL });
	test_benchgate(&out, test_dir,
		       (const char *[]){ "MLFLOW_TRACKING_TOKEN=" TOKEN, NULL },
		       (const char *[]){ "export", "--mlflow", s.url.buf,
					 cmp.buf, NULL });
	server_stop(&s);
	cr_assert_eq(out.exit_code, 0, "export: %s", out.err.buf);
	cr_expect(strstr(out.out.buf, "exported 2 runs"), "%s", out.out.buf);
	cr_expect(!strstr(out.out.buf, TOKEN) && !strstr(out.err.buf, TOKEN));
	assert_schema_kept(&s);
	cr_expect(cJSON_GetObjectItem(cJSON_GetObjectItem(s.log, "experiments"),
				      "tracked"),
		  "the experiment is named after the suite");
	cJSON_ArrayForEach(run, runs_of(&s))
	{
		const cJSON *tags = cJSON_GetObjectItem(run, "tags");
		const cJSON *params = cJSON_GetObjectItem(run, "params");

		cr_expect_str_eq(
			cJSON_GetObjectItem(run, "status")->valuestring,
			"FINISHED");
		if (!pair_value(tags, "mlflow.parentRunId")) {
			cr_expect_str_eq(pair_value(tags, "benchgate.verdict"),
					 "regression");
			continue;
		}
		children++;
		for (const char *const *p = (const char *const[]){
			     "suite", "benchmark", "variant", "device",
			     "commit", "machine", NULL };
		     *p; p++)
			cr_expect(pair_value(params, *p), "param %s", *p);
		cr_expect_str_eq(pair_value(tags, "verdict.latency"),
				 "regression");
		cr_expect_eq(metric_points(run, "latency"), 1);
		cr_expect_eq(metric_points(run, "latency.samples"), 5,
			     "one step per run");
		cr_expect_eq(metric_points(run, "latency.change"), 1);
	}
	cr_expect_eq(children, 2, "one run per case");
	cr_expect(strstr(cJSON_PrintUnformatted(
				 cJSON_GetObjectItem(s.log, "artifacts")),
			 "report.html"),
		  "the reports are artifacts");
	test_output_release(&out);
	server_release(&s);
	strbuf_release(&cmp);
	free(base);
	free(cand);
}

Test(export_mlflow, a_result_alone_is_exported_and_busy_calls_are_retried)
{
	char *result = measure("alone", "10");
	struct server s;
	struct test_output out;
	size_t batches = 0;
	const cJSON *request;

	server_start(&s, (const char *[]){ "--fail", "2", NULL });
	test_benchgate(&out, test_dir,
		       (const char *[]){ "BENCHGATE_HTTP_BACKOFF_SCALE=0.001",
					 NULL },
		       (const char *[]){ "export", "--mlflow", s.url.buf,
					 "--experiment", "nightly", result,
					 NULL });
	server_stop(&s);
	cr_assert_eq(out.exit_code, 0, "export: %s", out.err.buf);
	cJSON_ArrayForEach(request, cJSON_GetObjectItem(s.log, "requests"))
	{
		batches += !!strstr(
			cJSON_GetObjectItem(request, "path")->valuestring,
			"log-batch");
	}
	cr_expect_eq(batches, 3 + 2, "two 503s, then one batch per run");
	cr_expect(cJSON_GetObjectItem(cJSON_GetObjectItem(s.log, "experiments"),
				      "nightly"));
	test_output_release(&out);
	server_release(&s);
	free(result);
}

Test(export_mlflow, a_refused_token_is_exit_2_and_never_printed)
{
	char *result = measure("alone", "10");
	struct server s;
	struct test_output out;

	server_start(&s, (const char *[]){ "--token", "another", NULL });
	test_benchgate(&out, test_dir,
		       (const char *[]){ "MLFLOW_TRACKING_TOKEN=" TOKEN, NULL },
		       (const char *[]){ "export", "--mlflow", s.url.buf,
					 result, NULL });
	server_stop(&s);
	cr_expect_eq(out.exit_code, 2);
	cr_expect(strstr(out.err.buf, "401"), "%s", out.err.buf);
	cr_expect(!strstr(out.out.buf, TOKEN) && !strstr(out.err.buf, TOKEN));
	test_output_release(&out);

	test_benchgate(&out, test_dir, NULL,
		       (const char *[]){ "export", "--mlflow", "ftp://x",
					 result, NULL });
	cr_expect_eq(out.exit_code, 2);
	cr_expect(strstr(out.err.buf, "--mlflow"), "%s", out.err.buf);
	test_output_release(&out);
	server_release(&s);
	free(result);
}

/* One rule for credentials over HTTP in every client (http.h): a token
 * or password goes in clear text only to loopback, as `comment` holds
 * the forge's token. 192.0.2.1 is TEST-NET-1 (RFC 5737): nothing
 * answers there, so an attempt would show as a timeout, not a refusal. */
Test(export_mlflow, credentials_never_go_over_plain_http_to_another_host,
     .timeout = 60)
{
	char *result = measure("alone", "10");
	const char *const envs[][2] = {
		{ "MLFLOW_TRACKING_TOKEN=" TOKEN, NULL },
		{ "MLFLOW_TRACKING_USERNAME=u", "MLFLOW_TRACKING_PASSWORD="
						 TOKEN },
	};
	struct test_output out;

	for (size_t i = 0; i < 2; i++) {
		const char *env[] = { envs[i][0], envs[i][1], NULL };

		test_benchgate(&out, test_dir, env,
			       (const char *[]){ "export", "--mlflow",
						 "http://192.0.2.1:5000",
						 result, NULL });
		cr_expect_eq(out.exit_code, 2, "%s", out.err.buf);
		cr_expect(strstr(out.err.buf, "plain http://"), "%s",
			  out.err.buf);
		cr_expect(!strstr(out.err.buf, TOKEN));
		test_output_release(&out);
	}
	free(result);
}
