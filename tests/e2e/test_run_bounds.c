/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: what `benchgate run` keeps of a benchmark and what it leaves
 * behind, at the bounds: a flood of output whose every line is a sample,
 * a value printed on both sides of the cut of the kept output, a metrics
 * file far larger than any metric needs, and benchgate killed with
 * SIGKILL while a benchmark runs.
 */
#include "harness/util/error.h"
#include "harness/gate/stats.h"
#include "harness/run/collectors.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

static char *dir;
static char store[4096];

static void setup(void)
{
	dir = test_tmpdir();
	snprintf(store, sizeof(store), "%s/store", dir);
	/*
	 * Benchmarks orphaned by a killed benchgate are re-parented to this
	 * process, which reaps them: "gone" then does not depend on the
	 * container's init reaping zombies.
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(run_bounds, .init = setup, .fini = teardown);

/* Writes s.json: one benchmark per entry of `benchmarks`, the JSON of
 * each given whole; single quotes stand for double quotes. */
static void write_suite(const char *benchmarks)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text,
		    "{ 'benchgate': 1, 'suite': 'bounds',\n"
		    "  'defaults': { 'runs': 1, 'warmup': 0, "
		    "'timeout': '60s' },\n"
		    "  'benchmarks': [ %s ] }\n",
		    benchmarks);
	for (size_t i = 0; i < text.len; i++)
		if (text.buf[i] == '\'')
			text.buf[i] = '"';
	free(test_write_file(dir, "s.json", text.buf));
	strbuf_release(&text);
}

/* The path of the only result file in the store (static). */
static char result_path[4096];

/* The only result file in the store, loaded. */
static struct result *only_result(void)
{
	struct store *opened = NULL;
	struct store_entry *entries = NULL;
	struct result *result = NULL;
	size_t nr = 0;

	cr_assert_eq(store_open(&opened, store), BG_OK);
	cr_assert_eq(store_list(opened, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1, "expected one stored result, found %zu", nr);
	cr_assert_eq(result_load(&result, entries[0].path), BG_OK, "%s",
		     bg_error_last());
	snprintf(result_path, sizeof(result_path), "%s", entries[0].path);
	store_entries_free(entries, nr);
	store_free(opened);
	return result;
}

/*
 * Runs benchmark `name` of s.json, whose one metric "v" reads stdout with
 * `regex`, expecting it to pass; *result is the stored result (free it),
 * and the case is returned.
 */
static const struct result_case *run_stdout_metric(const char *name,
						   const char *command,
						   const char *regex,
						   struct result **result)
{
	const struct result_case *c;
	struct strbuf benchmark = STRBUF_INIT;
	struct test_output out;

	strbuf_addf(&benchmark,
		    "{ 'name': '%s', 'command': %s,"
		    "  'metrics': [ { 'name': 'v', 'from': 'stdout',"
		    "                 'regex': '%s' } ] }",
		    name, command, regex);
	write_suite(benchmark.buf);
	RUN(&out, dir, NULL, "run", "s.json", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	*result = only_result();
	c = result_find_case(*result, name, "default", "cpu");
	cr_assert_eq(c->status, CASE_OK, "%s", c->reason);
	cr_assert_not_null(result_case_find_metric(c, "v"));
	test_output_release(&out);
	strbuf_release(&benchmark);
	return c;
}

Test(run_bounds, every_line_of_a_flood_is_a_sample)
{
	const struct metric_samples *v;
	struct result *result;

	v = result_case_find_metric(
		run_stdout_metric("lines",
				  "['" TEST_WORKLOAD_DIR
				  "/print_values', '200000']",
				  "^v=([0-9]+)$", &result),
		"v");
	/* print_values printed 1 .. 200000 (1.3 MB, more than the 1 MiB
	 * kept); the median of 1 .. 2n is (n + n + 1) / 2 */
	cr_assert_eq(v->nr, 200000, "%zu samples", v->nr);
	cr_assert_eq(v->samples[0], 1);
	cr_assert_eq(v->samples[199999], 200000);
	cr_assert_eq(stats_median(v->samples, v->nr), 100000.5);
	result_free(result);
}

Test(run_bounds, no_value_is_made_up_across_the_cut_and_the_log_marks_it)
{
	const struct result_case *c;
	const struct metric_samples *v;
	struct result *result;
	struct strbuf log_path = STRBUF_INIT;
	char *log;

	/* seam_values puts "v=1" at the end of the kept head and "999" at
	 * the start of the kept tail, 4096 bytes apart (its comment) */
	c = run_stdout_metric("seam", "['" TEST_WORKLOAD_DIR "/seam_values']",
			      "v=([0-9]+)", &result);
	v = result_case_find_metric(c, "v");
	cr_assert_eq(v->nr, 1, "%zu samples", v->nr);
	cr_assert_eq(v->samples[0], 1, "stored %g", v->samples[0]);

	cr_assert_not_null(c->log);
	/* the log is named relative to the result file */
	strbuf_add(&log_path, result_path,
		   (size_t)(strrchr(result_path, '/') + 1 - result_path));
	strbuf_addstr(&log_path, c->log);
	log = test_read_file(log_path.buf);
	cr_assert_not_null(log, "no log at %s", log_path.buf);
	cr_assert_not_null(strstr(log,
				  "\nv=1\n[... 4096 bytes dropped]\n999\n"),
			   "the cut is not marked between the two sides");
	free(log);
	strbuf_release(&log_path);
	result_free(result);
}

Test(run_bounds, oversized_metrics_file_fails_its_case_alone)
{
	const struct result_case *c;
	struct test_output out;
	struct result *result;
	char limit[128];

	/* metrics_big writes 17 MiB of "pad 1" lines and a latency */
	write_suite(
		"{ 'name': 'big', 'command': ['" TEST_WORKLOAD_DIR
		"/metrics_big', '17'],"
		"  'metrics': [ { 'name': 'latency', 'from': 'metrics' } ] },"
		"{ 'name': 'good', 'command': ['" TEST_WORKLOAD_DIR
		"/metrics_lines'],"
		"  'metrics': [ { 'name': 'latency', 'from': 'metrics' } ] }");
	RUN(&out, dir, NULL, "run", "s.json", "--store", store);
	cr_assert_eq(out.exit_code, 3, "%s", out.err.buf);
	result = only_result();
	c = result_find_case(result, "big", "default", "cpu");
	cr_assert_eq(c->status, CASE_FAILED);
	/* 17 MiB / 6 lines of 6 bytes, and 15 bytes of latency */
	cr_assert_not_null(strstr(c->reason, "metric 'latency': the metrics "
					     "file '"),
			   "%s", c->reason);
	cr_assert_not_null(strstr(c->reason, "/metrics'"), "%s", c->reason);
	snprintf(limit, sizeof(limit),
		 "' is %zu bytes; the limit is %zu bytes (16 MiB)",
		 (size_t)17 * 1024 * 1024 / 6 * 6 + 15, COLLECT_FILE_MAX);
	cr_assert_not_null(strstr(c->reason, limit), "%s", c->reason);
	c = result_find_case(result, "good", "default", "cpu");
	cr_assert_eq(c->status, CASE_OK, "%s", c->reason);
	result_free(result);
	test_output_release(&out);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether pid has ended within `seconds`: reaped here (this process is
 * the subreaper of the orphans) or by someone else. */
static bool gone_within(pid_t pid, double seconds)
{
	double until = now_s() + seconds;

	do {
		pid_t got = waitpid(pid, NULL, WNOHANG);

		if (got == pid ||
		    (got < 0 && kill(pid, 0) < 0 && errno == ESRCH))
			return true;
		usleep(10000);
	} while (now_s() < until);
	return false;
}

Test(run_bounds, killed_benchgate_leaves_no_benchmark_running)
{
	char suite_path[4096];
	const char *argv[] = { BENCHGATE_BIN, "run", suite_path,
			       "--store",     store, NULL };
	posix_spawn_file_actions_t actions;
	pid_t benchgate, child = 0, grandchild = 0;
	double until;
	char *pids = NULL;
	bool child_gone, grandchild_gone;

	/* hang_with_grandchild writes "CHILD GRANDCHILD" to pid, then both
	 * hang; the grandchild ignores SIGTERM */
	write_suite("{ 'name': 'hang', 'command': ['" TEST_WORKLOAD_DIR
		    "/hang_with_grandchild', 'pid'],"
		    "  'metrics': [ { 'name': 'w', 'from': 'wall' } ] }");
	/* the benchmark runs in the suite's directory, and writes pid there */
	snprintf(suite_path, sizeof(suite_path), "%s/s.json", dir);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
	cr_assert_eq(posix_spawn(&benchgate, BENCHGATE_BIN, &actions, NULL,
				 (char *const *)argv, environ),
		     0);
	posix_spawn_file_actions_destroy(&actions);

	until = now_s() + 30;
	while (now_s() < until) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/pid", dir);
		if ((pids = test_read_file(path)))
			break;
		usleep(10000);
	}
	cr_assert_not_null(pids, "the benchmark never started");
	cr_assert_eq(sscanf(pids, "%d %d", &child, &grandchild), 2);
	free(pids);

	cr_assert_eq(kill(benchgate, SIGKILL), 0);
	cr_assert_eq(waitpid(benchgate, NULL, 0), benchgate);
	child_gone = gone_within(child, 5);
	grandchild_gone = gone_within(grandchild, 5);
	if (!child_gone || !grandchild_gone) {
		/* leave nothing behind, whatever the verdict */
		kill(child, SIGKILL);
		kill(grandchild, SIGKILL);
		gone_within(child, 5);
		gone_within(grandchild, 5);
	}
	cr_assert(child_gone,
		  "benchmark %d still running after benchgate was "
		  "killed",
		  (int)child);
	cr_assert(grandchild_gone,
		  "its child %d still running after "
		  "benchgate was killed",
		  (int)grandchild);
}
