/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/runner.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/suite/plan.h"
#include "harness/suite/suite.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WORKLOAD(name) TEST_WORKLOAD_DIR "/" name

/*
 * Each test writes a suite file into a fresh directory, loads and plans it
 * with the real suite.c and plan.c, and runs it with logs in dir/logs.
 */
static char *dir;
static char *log_dir;
static struct suite *suite;
static struct plan *plan;
static struct result *result;
static struct runner_options options = RUNNER_OPTIONS_INIT;

static void setup(void)
{
	struct strbuf path = STRBUF_INIT;

	dir = test_tmpdir();
	strbuf_addf(&path, "%s/logs", dir);
	log_dir = strbuf_detach(&path, NULL);
	result = result_new();
	options.log_dir = log_dir;
	options.log_base = dir;
	options.grace_s = 0.5;
	/* orphans come back to this process, which reaps them */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static void teardown(void)
{
	plan_free(plan);
	suite_free(suite);
	result_free(result);
	test_rmtree(dir);
	free(log_dir);
	free(dir);
}

TestSuite(runner, .init = setup, .fini = teardown);

/* Loads suite text, where "@W@" stands for the workload directory and
 * single quotes for double quotes. */
static void load(const char *text)
{
	struct strbuf expanded = STRBUF_INIT;
	const char *p;
	char *path;

	for (p = text; *p; p++) {
		if (!strncmp(p, "@W@", 3)) {
			strbuf_addstr(&expanded, TEST_WORKLOAD_DIR);
			p += 2;
		} else if (*p == '\'') {
			strbuf_addch(&expanded, '"');
		} else {
			strbuf_addch(&expanded, *p);
		}
	}
	path = test_write_file(dir, "suite.json", expanded.buf);
	cr_assert_eq(suite_load(&suite, path), 0, "%s", bg_error_last());
	cr_assert_eq(plan_build(&plan, suite, NULL, dir), 0, "%s",
		     bg_error_last());
	strbuf_release(&expanded);
	free(path);
}

/* Whether an adaptive case that asks (runner_step()) has enough samples;
 * NULL: it stops at once, as with a caller that has no policy. */
static bool (*enough)(const struct result_case *rcase,
		      const struct benchmark *benchmark);

/* Drives the runner as its header shows, asking `enough`. */
static void run(void)
{
	struct runner *runner = NULL;
	size_t asking;
	int ran = 0, error;

	error = runner_new(&runner, result, plan, &options);
	while (!error && (ran = runner_step(runner, &asking)) > 0)
		if (asking != RUNNER_NO_CASE &&
		    (!enough || enough(&result->cases[asking],
				       plan->cases[asking].benchmark)))
			runner_stop_case(runner, asking);
	if (!error)
		error = ran < 0 ? ran : runner_finish(runner);
	runner_free(runner);
	cr_assert_eq(error, 0, "%s", bg_error_last());
	cr_assert_eq(result->cases_nr, plan->nr);
}

static struct result_case *case_at(size_t i)
{
	cr_assert_lt(i, result->cases_nr);
	return &result->cases[i];
}

static char *read_log(const struct result_case *rcase)
{
	struct strbuf path = STRBUF_INIT;
	char *text;

	cr_assert_not_null(rcase->log);
	strbuf_addf(&path, "%s/%s", dir, rcase->log);
	text = test_read_file(path.buf);
	cr_assert_not_null(text, "no log %s", path.buf);
	strbuf_release(&path);
	return text;
}

static bool starts_with(const char *text, const char *prefix)
{
	return text && !strncmp(text, prefix, strlen(prefix));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(runner, runs_cases_in_plan_order_and_collects_their_metrics)
{
	const struct metric_samples *latency, *throughput, *wall;
	struct result_case *rcase;
	char *log, *expected_cwd;
	size_t len;

	load("{ 'benchgate': 1, 'suite': 'runner-test',\n"
	     "  'defaults': { 'warmup': 1, 'runs': 3,\n"
	     "                'env': { 'TEST_FOO': 'bar' } },\n"
	     "  'variants': { 'a': {}, 'b': {} },\n"
	     "  'benchmarks': [ { 'name': 'bench',\n"
	     "    'command': ['@W@/metrics_json'],\n"
	     "    'metrics': [\n"
	     "      { 'name': 'latency', 'from': 'metrics',\n"
	     "        'key': 'latency_ms', 'unit': 'ms' },\n"
	     "      { 'name': 'throughput', 'from': 'stdout',\n"
	     "        'regex': 'throughput=([0-9]+)' },\n"
	     "      { 'name': 'wall', 'from': 'wall' } ] } ] }\n");
	run();

	cr_assert_str_eq(case_at(0)->variant, "a");
	cr_assert_str_eq(case_at(1)->variant, "b");
	for (size_t i = 0; i < 2; i++) {
		rcase = case_at(i);
		cr_assert_eq(rcase->status, CASE_OK, "%s", rcase->reason);
		cr_assert_null(rcase->reason);
		cr_assert_eq(rcase->runs, 3);
		latency = result_case_find_metric(rcase, "latency");
		throughput = result_case_find_metric(rcase, "throughput");
		wall = result_case_find_metric(rcase, "wall");
		cr_assert_not_null(latency);
		cr_assert_not_null(throughput);
		cr_assert_not_null(wall);
		/* metrics_json reports 1.5 + $BENCHGATE_RUN: runs 0, 1, 2 */
		cr_assert_eq(latency->nr, 3);
		cr_assert_float_eq(latency->samples[0], 1.5, 1e-12);
		cr_assert_float_eq(latency->samples[2], 3.5, 1e-12);
		cr_assert_str_eq(latency->unit, "ms");
		cr_assert_eq(throughput->nr, 6);
		cr_assert_eq(throughput->runs, 3);
		cr_assert_eq(wall->nr, 3);
		cr_assert_gt(wall->samples[0], 0);
	}

	rcase = case_at(1);
	cr_assert_str_eq(rcase->log, "logs/bench__b__cpu.log");
	log = read_log(rcase);
	cr_assert(starts_with(log, "# benchgate case bench/b/cpu\n"
				   "=== warmup run 1/1 (BENCHGATE_RUN=0, "
				   "BENCHGATE_WARMUP=1): exited with status "
				   "0 in "),
		  "%s", log);
	cr_assert_not_null(strstr(log, "=== measured run 3/3 "
				       "(BENCHGATE_RUN=2): exited"));
	cr_assert_not_null(strstr(log, "env BENCHGATE_SUITE=runner-test\n"));
	cr_assert_not_null(strstr(log, "env BENCHGATE_BENCHMARK=bench\n"));
	cr_assert_not_null(strstr(log, "env BENCHGATE_VARIANT=b\n"));
	cr_assert_not_null(strstr(log, "env BENCHGATE_DEVICE=cpu\n"));
	cr_assert_not_null(strstr(log, "env BENCHGATE_WARMUP=1\n"));
	cr_assert_not_null(strstr(log, "env TEST_FOO=bar\n"));
	cr_assert_not_null(strstr(log, "env BENCHGATE_METRICS_FILE="));
	/* BENCHGATE_WARMUP appears in the warmup run only */
	cr_assert_null(strstr(strstr(log, "=== measured run 1/3"),
			      "BENCHGATE_WARMUP=1\n"));
	len = strlen(suite->dir) + 16;
	expected_cwd = xmalloc(len);
	snprintf(expected_cwd, len, "cwd=%s\n", suite->dir);
	cr_assert_not_null(strstr(log, expected_cwd));
	free(expected_cwd);
	free(log);
}

static void check_order(enum runner_order order, const char *expected)
{
	struct strbuf path = STRBUF_INIT;
	char *order_log;

	/* each run appends "variant run warmup" to order.txt in the suite
	 * directory, its working directory ("$$" is a literal '$') */
	load("{ 'benchgate': 1, 'suite': 'order',\n"
	     "  'defaults': { 'warmup': 1, 'runs': 2 },\n"
	     "  'variants': { 'a': {}, 'b': {} },\n"
	     "  'benchmarks': [ { 'name': 'bench',\n"
	     "    'shell': 'echo ${variant} ${run} "
	     "$${BENCHGATE_WARMUP:-0} >> order.txt',\n"
	     "    'metrics': [ { 'name': 'wall', 'from': 'wall' } ]"
	     " } ] }\n");
	options.order = order;
	run();
	strbuf_addf(&path, "%s/order.txt", dir);
	order_log = test_read_file(path.buf);
	cr_assert_str_eq(order_log, expected);
	free(order_log);
	strbuf_release(&path);
}

Test(runner, interleaves_measured_rounds_after_all_warmups)
{
	/* Every other round backwards, so neither case is always first. */
	check_order(RUNNER_INTERLEAVED, "a 0 1\nb 0 1\n"
					"a 0 0\nb 0 0\nb 1 0\na 1 0\n");
}

Test(runner, sequential_order_runs_each_case_to_its_end)
{
	check_order(RUNNER_SEQUENTIAL, "a 0 1\na 0 0\na 1 0\n"
				       "b 0 1\nb 0 0\nb 1 0\n");
}

Test(runner, failing_cases_fail_alone_with_reason_and_output_tail)
{
	struct result_case *crash, *status, *ok, *missing;

	load("{ 'benchgate': 1, 'suite': 'failures',\n"
	     "  'defaults': { 'warmup': 0, 'runs': 2 },\n"
	     "  'benchmarks': [\n"
	     "    { 'name': 'crash', 'command': ['@W@/crash_segv'],\n"
	     "      'metrics': [ { 'name': 'wall', 'from': 'wall' } ] },\n"
	     "    { 'name': 'status', 'warmup': 1,\n"
	     "      'command': ['@W@/exit_nonzero', '3'],\n"
	     "      'metrics': [ { 'name': 'wall', 'from': 'wall' } ] },\n"
	     "    { 'name': 'ok', 'command': ['@W@/metrics_lines'],\n"
	     "      'metrics': [ { 'name': 'latency',\n"
	     "                     'from': 'metrics' } ] },\n"
	     "    { 'name': 'missing', 'command': ['./no-such-program'],\n"
	     "      'metrics': [ { 'name': 'wall', 'from': 'wall' } ] }\n"
	     "  ] }\n");
	run();
	crash = case_at(0);
	status = case_at(1);
	ok = case_at(2);
	missing = case_at(3);

	cr_assert_eq(crash->status, CASE_FAILED);
	cr_assert_str_eq(crash->reason, "killed by signal 11 (Segmentation "
					"fault) (measured run 1/2)\n"
					"last lines of stderr:\ncrashing now");
	cr_assert_eq(crash->runs, 0);

	/* a failing warmup fails the case; the last 20 of 30 lines quoted */
	cr_assert_eq(status->status, CASE_FAILED);
	cr_assert(starts_with(status->reason,
			      "exited with status 3 (warmup run 1/1)\n"
			      "last lines of stderr:\nerror line 11\n"),
		  "%s", status->reason);
	cr_assert_not_null(strstr(status->reason, "error line 30"));
	cr_assert_null(strstr(status->reason, "error line 10\n"));
	cr_assert_eq(status->runs, 0);
	cr_assert_eq(status->metrics_nr, 0);

	cr_assert_eq(ok->status, CASE_OK, "%s", ok->reason);
	cr_assert_eq(ok->runs, 2);
	cr_assert_eq(result_case_find_metric(ok, "latency")->nr, 4);

	cr_assert_eq(missing->status, CASE_FAILED);
	cr_assert_str_eq(missing->reason, "cannot execute './no-such-program'"
					  ": No such file or directory "
					  "(measured run 1/2)");
}

Test(runner, bad_metric_fails_the_case)
{
	struct result_case *rcase;

	load("{ 'benchgate': 1, 'suite': 'bad-metric',\n"
	     "  'defaults': { 'warmup': 1, 'runs': 2 },\n"
	     "  'benchmarks': [ { 'name': 'nan',\n"
	     "    'command': ['@W@/metrics_bad', 'nan'],\n"
	     "    'metrics': [ { 'name': 'wall', 'from': 'wall' },\n"
	     "                   { 'name': 'latency', 'from': 'metrics' }"
	     " ] } ] }\n");
	run();
	rcase = case_at(0);
	cr_assert_eq(rcase->status, CASE_FAILED);
	cr_assert_str_eq(rcase->reason, "metric 'latency': value 'nan' is not "
					"a finite number (measured run 1/2)");
	cr_assert_eq(rcase->metrics_nr, 0);
}

Test(runner, timeout_marks_the_case_and_kills_its_processes)
{
	struct result_case *rcase;
	double start, elapsed;

	load("{ 'benchgate': 1, 'suite': 'timeout',\n"
	     "  'defaults': { 'warmup': 0, 'runs': 3,"
	     " 'timeout': '1s' },\n"
	     "  'benchmarks': [ { 'name': 'hang',\n"
	     "    'command': ['@W@/hang_with_grandchild', 'pid',"
	     " 'ignore-term'],\n"
	     "    'metrics': [ { 'name': 'wall', 'from': 'wall' } ]"
	     " } ] }\n");
	start = now_s();
	run();
	elapsed = now_s() - start;
	rcase = case_at(0);
	cr_assert_eq(rcase->status, CASE_TIMEOUT);
	cr_assert(starts_with(rcase->reason, "timed out after 1s (measured "
					     "run 1/3)\nlast lines of stdout:"
					     "\nchild "),
		  "%s", rcase->reason);
	/* one run only: 1 s, then SIGKILL after the 0.5 s grace */
	cr_assert_lt(elapsed, 2.9, "took %.3f s", elapsed);
	cr_assert_eq(rcase->runs, 0);
}

Test(runner, flood_is_capped_in_the_log)
{
	const struct metric_samples *bytes;
	struct result_case *rcase;
	char *log;

	load("{ 'benchgate': 1, 'suite': 'flood',\n"
	     "  'defaults': { 'warmup': 0, 'runs': 2 },\n"
	     "  'benchmarks': [ { 'name': 'flood',\n"
	     "    'command': ['@W@/flood_stdout', '4'],\n"
	     "    'metrics': [ { 'name': 'bytes', 'from': 'stdout',\n"
	     "                     'regex': 'bytes=([0-9]+)' } ] } ] }\n");
	options.log_cap = (size_t)64 << 10;
	options.capture_cap = (size_t)256 << 10;
	run();
	rcase = case_at(0);
	cr_assert_eq(rcase->status, CASE_OK, "%s", rcase->reason);
	/* the last line is found in the kept tail, past the dropped middle */
	bytes = result_case_find_metric(rcase, "bytes");
	cr_assert_eq(bytes->nr, 2);
	cr_assert_float_eq(bytes->samples[1], 4 * 1024 * 1024, 0.5);
	log = read_log(rcase);
	cr_assert_not_null(strstr(log, "bytes dropped]\n"));
	cr_assert_lt(strlen(log), 64 * 1024 + 4096);
	free(log);
}

static int done_calls;

static bool done_at_three(const struct result_case *rcase,
			  const struct benchmark *benchmark)
{
	cr_assert_str_eq(benchmark->name, "auto");
	cr_assert_eq(result_case_find_metric(rcase, "wall")->nr, rcase->runs);
	done_calls++;
	return rcase->runs >= 3;
}

static bool never_done(const struct result_case *rcase,
		       const struct benchmark *benchmark)
{
	(void)rcase;
	(void)benchmark;
	done_calls++;
	return false;
}

static void load_adaptive(void)
{
	load("{ 'benchgate': 1, 'suite': 'adaptive',\n"
	     "  'defaults': { 'warmup': 0, 'runs': 'auto',\n"
	     "                'min_runs': 2, 'max_runs': 5 },\n"
	     "  'benchmarks': [ { 'name': 'auto', 'command': ['true'],\n"
	     "    'metrics': [ { 'name': 'wall', 'from': 'wall' } ]"
	     " } ] }\n");
}

Test(runner, adaptive_sampling_asks_the_hook_from_min_runs)
{
	load_adaptive();
	done_calls = 0;
	enough = done_at_three;
	run();
	cr_assert_eq(case_at(0)->runs, 3);
	cr_assert_eq(done_calls, 2); /* after runs 2 and 3 */
}

Test(runner, adaptive_sampling_stops_at_max_runs)
{
	load_adaptive();
	done_calls = 0;
	enough = never_done;
	run();
	cr_assert_eq(case_at(0)->runs, 5);
	cr_assert_eq(done_calls, 3); /* after runs 2, 3 and 4 */
}

Test(runner, adaptive_sampling_without_a_hook_does_min_runs)
{
	load_adaptive();
	run();
	cr_assert_eq(case_at(0)->runs, 2);
}

Test(runner, fixed_runs_override_adaptive_sampling)
{
	load_adaptive();
	options.runs = 4;
	options.warmup = 0;
	run();
	cr_assert_eq(case_at(0)->runs, 4);
}

static const char *skip_gpu(const struct plan_case *pcase, void *payload)
{
	(void)payload;
	return strcmp(pcase->device, "gpu") ? NULL
					    : "device 'gpu' is not present";
}

Test(runner, skipped_cases_do_not_run)
{
	load("{ 'benchgate': 1, 'suite': 'skip',\n"
	     "  'defaults': { 'warmup': 0, 'runs': 1 },\n"
	     "  'devices': ['cpu', 'gpu'],\n"
	     "  'benchmarks': [ { 'name': 'b', 'command': ['true'],\n"
	     "    'metrics': [ { 'name': 'wall', 'from': 'wall' } ]"
	     " } ] }\n");
	options.skip = skip_gpu;
	run();
	cr_assert_eq(case_at(0)->status, CASE_OK);
	cr_assert_eq(case_at(1)->status, CASE_SKIPPED);
	cr_assert_str_eq(case_at(1)->reason, "device 'gpu' is not present");
	cr_assert_null(case_at(1)->log);
	cr_assert_eq(case_at(1)->runs, 0);
}

Test(runner, progress_goes_to_stderr_on_one_line)
{
	char line[4096];
	size_t got;
	FILE *err;

	cr_redirect_stderr();
	load("{ 'benchgate': 1, 'suite': 'progress',\n"
	     "  'defaults': { 'warmup': 1, 'runs': 2 },\n"
	     "  'benchmarks': [ { 'name': 'b', 'command': ['true'],\n"
	     "    'metrics': [ { 'name': 'wall', 'from': 'wall' } ]"
	     " } ] }\n");
	options.progress = true;
	run();
	fflush(stderr);
	err = cr_get_redirected_stderr();
	got = fread(line, 1, sizeof(line) - 1, err);
	line[got] = '\0';
	cr_assert(starts_with(line, "\rcase 1/1 run 1/3 elapsed 0s\033[K"
				    "\rcase 1/1 run 2/3 elapsed 0s ETA 0s"),
		  "%s", line);
	cr_assert_not_null(strstr(line, "\rcase 1/1 run 3/3 elapsed "));
	cr_assert_null(strchr(line, '\n'));
}

Test(runner, no_logs_without_a_log_dir)
{
	options.log_dir = NULL;
	load("{ 'benchgate': 1, 'suite': 'nolog',\n"
	     "  'defaults': { 'warmup': 0, 'runs': 1 },\n"
	     "  'benchmarks': [ { 'name': 'b', 'command': ['true'],\n"
	     "    'metrics': [ { 'name': 'wall', 'from': 'wall' } ]"
	     " } ] }\n");
	run();
	cr_assert_eq(case_at(0)->status, CASE_OK);
	cr_assert_null(case_at(0)->log);
	cr_assert_neq(access(log_dir, F_OK), 0);
}
