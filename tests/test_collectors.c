/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/collectors.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/suite/plan.h"
#include "harness/suite/suite.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORKLOAD(name) TEST_WORKLOAD_DIR "/" name

/*
 * Each test loads a one-benchmark suite whose "metrics" array it gives,
 * fakes (or really runs) one run, and collects into a fresh result case.
 */
static char *dir;
static char *metrics_path;
static struct suite *suite;
static struct plan *plan;
static struct collectors *collectors;
static struct result *result;
static struct result_case *rcase;
static struct process_outcome outcome;

static void setup(void)
{
	dir = test_tmpdir();
	process_outcome_init(&outcome);
	metrics_path = xmalloc(strlen(dir) + 16);
	snprintf(metrics_path, strlen(dir) + 16, "%s/metrics", dir);
	result = result_new();
}

static void teardown(void)
{
	collectors_free(collectors);
	plan_free(plan);
	suite_free(suite);
	result_free(result);
	process_outcome_release(&outcome);
	test_rmtree(dir);
	free(metrics_path);
	free(dir);
}

TestSuite(collectors, .init = setup, .fini = teardown);

/* Loads the suite and plans it; single quotes in the text stand for
 * double quotes. */
static void load_suite_only(const char *metrics)
{
	struct strbuf text = STRBUF_INIT;
	char *path;

	strbuf_addf(&text,
		    "{ 'benchgate': 1, 'suite': 'collect',\n"
		    "  'devices': ['cpu', 'gpu'],\n"
		    "  'variants': { 'orig': {} },\n"
		    "  'benchmarks': [ { 'name': 'bench',\n"
		    "    'command': ['true'],\n"
		    "    'metrics': %s } ] }\n",
		    metrics);
	for (size_t i = 0; i < text.len; i++)
		if (text.buf[i] == '\'')
			text.buf[i] = '"';
	path = test_write_file(dir, "suite.json", text.buf);
	cr_assert_eq(suite_load(&suite, path), 0, "%s", bg_error_last());
	cr_assert_eq(plan_build(&plan, suite, NULL, dir), 0, "%s",
		     bg_error_last());
	strbuf_release(&text);
	free(path);
}

/* Collects into a new result case from now on. */
static void fresh_case(void)
{
	result_free(result);
	result = result_new();
	rcase = result_add_case(result, "bench", "orig", "cpu");
}

/* Loads the suite as load_suite_only() and sets the collectors up. */
static void load_suite(const char *metrics)
{
	load_suite_only(metrics);
	cr_assert_eq(collectors_new(&collectors, suite), 0, "%s",
		     bg_error_last());
	fresh_case();
}

static void write_metrics(const char *text)
{
	free(test_write_file(dir, "metrics", text));
}

/* Collects the run of the plan's case `index` (0: orig/cpu, 1: orig/gpu). */
static int collect_case(size_t index)
{
	struct collect_run run = { .plan = plan,
				   .pcase = &plan->cases[index],
				   .outcome = &outcome,
				   .metrics_path = metrics_path };

	return collectors_collect(collectors, rcase, &run);
}

static int collect(void)
{
	return collect_case(0);
}

/*
 * Hands out and err to the regex metrics as process_run() would, in
 * pieces of `piece` bytes (0: whole), after a collectors_watch().
 */
static void watch_pieces(const char *out, const char *err, size_t piece)
{
	struct process_options options = PROCESS_OPTIONS_INIT;
	const char *text[] = { out, err };

	collectors_watch(collectors, plan->cases[0].benchmark, &options);
	cr_assert_not_null(options.observer);
	for (int i = 0; i < 2; i++) {
		size_t len = text[i] ? strlen(text[i]) : 0;

		for (size_t at = 0; at < len; at += piece ? piece : len) {
			size_t n = piece && len - at > piece ? piece : len - at;

			options.observer->output(options.observer->payload,
						 (enum process_stream)i,
						 text[i] + at, n);
		}
	}
}

static void watch(const char *out, const char *err)
{
	watch_pieces(out, err, 0);
}

static const struct metric_samples *metric(const char *name)
{
	const struct metric_samples *found =
		result_case_find_metric(rcase, name);

	cr_assert_not_null(found, "metric '%s' not collected", name);
	return found;
}

static void assert_samples(const char *name, const double *expected, size_t nr)
{
	const struct metric_samples *m = metric(name);

	cr_assert_eq(m->nr, nr, "metric '%s': %zu samples", name, m->nr);
	for (size_t i = 0; i < nr; i++)
		cr_assert_float_eq(m->samples[i], expected[i], 1e-12,
				   "metric '%s' sample %zu", name, i);
}

static void assert_fails_with(const char *message)
{
	cr_assert_lt(collect(), 0);
	cr_assert_str_eq(bg_error_last(), message);
	cr_assert_eq(rcase->metrics_nr, 0, "a failed run left samples");
}

Test(collectors, wall_and_rusage_come_from_the_outcome)
{
	double wall[] = { 1.25 }, utime[] = { 0.5 }, stime[] = { 0.25 };
	double rss[] = { 1048576 };

	load_suite("[ { 'name': 'wall', 'from': 'wall' },"
		   "  { 'name': 'user', 'from': 'rusage',"
		   "    'field': 'utime' },"
		   "  { 'name': 'sys', 'from': 'rusage',"
		   "    'field': 'stime' },"
		   "  { 'name': 'rss', 'from': 'rusage',"
		   "    'field': 'maxrss' } ]");
	outcome.wall_s = 1.25;
	outcome.utime_s = 0.5;
	outcome.stime_s = 0.25;
	outcome.maxrss_bytes = 1048576;
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("wall", wall, 1);
	assert_samples("user", utime, 1);
	assert_samples("sys", stime, 1);
	assert_samples("rss", rss, 1);
	cr_assert_str_eq(metric("wall")->unit, "s");
	cr_assert_str_eq(metric("user")->unit, "s");
	cr_assert_str_eq(metric("rss")->unit, "B");
	cr_assert_eq(metric("wall")->runs, 1);
}

Test(collectors, metrics_json_numbers_arrays_and_dotted_keys)
{
	double latency[] = { 1.5 }, p50[] = { 2.25 }, batches[] = { 1, 2, 3 };
	double dotted[] = { 7 }, deep[] = { 4 };

	load_suite("[ { 'name': 'latency', 'from': 'metrics',"
		   "    'key': 'latency_ms', 'unit': 'ms' },"
		   "  { 'name': 'p50', 'from': 'metrics',"
		   "    'key': 'stats.p50' },"
		   "  { 'name': 'batches', 'from': 'metrics',"
		   "    'key': 'per_batch_ms', 'better': 'lower' },"
		   "  { 'name': 'dotted', 'from': 'metrics',"
		   "    'key': 'dotted.key' },"
		   "  { 'name': 'deep', 'from': 'metrics',"
		   "    'key': 'a.b.c.d' },"
		   "  { 'name': 'accuracy', 'from': 'metrics',"
		   "    'better': 'higher', 'exact': true,"
		   "    'tolerance': 0.002 } ]");
	write_metrics("{\"latency_ms\": 1.5, \"stats\": {\"p50\": 2.25},\n"
		      " \"per_batch_ms\": [1, 2, 3], \"dotted.key\": 7,\n"
		      " \"a\": {\"b.c\": {\"d\": 4}}, \"accuracy\": 0.94}\n");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("latency", latency, 1);
	assert_samples("p50", p50, 1);
	assert_samples("batches", batches, 3);
	assert_samples("dotted", dotted, 1);
	assert_samples("deep", deep, 1);
	cr_assert_str_eq(metric("latency")->unit, "ms");
	cr_assert_null(metric("p50")->unit);
	cr_assert_eq(metric("batches")->runs, 1);
	cr_assert(metric("accuracy")->exact);
	cr_assert_eq(metric("accuracy")->better, BETTER_HIGHER);
	cr_assert_float_eq(metric("accuracy")->tolerance, 0.002, 1e-15);
}

Test(collectors, metrics_lines_repeat_and_carry_units)
{
	double latency[] = { 1.5, 1.75 }, accuracy[] = { 0.94 };

	load_suite("[ { 'name': 'latency', 'from': 'metrics' },"
		   "  { 'name': 'declared', 'from': 'metrics',"
		   "    'key': 'latency', 'unit': 'us' },"
		   "  { 'name': 'accuracy', 'from': 'metrics' } ]");
	write_metrics("# a comment\n"
		      "latency 1.5 ms\n"
		      "\n"
		      "  latency\t1.75   ms  \r\n"
		      "accuracy 0.94\n");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("latency", latency, 2);
	assert_samples("declared", latency, 2);
	assert_samples("accuracy", accuracy, 1);
	/* the line's unit, unless the suite declares one */
	cr_assert_str_eq(metric("latency")->unit, "ms");
	cr_assert_str_eq(metric("declared")->unit, "us");
	cr_assert_null(metric("accuracy")->unit);
}

Test(collectors, samples_accumulate_over_runs)
{
	double latency[] = { 1.5, 1.75, 1.5, 1.75 };

	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	write_metrics("latency 1.5 ms\nlatency 1.75 ms\n");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("latency", latency, 4);
	cr_assert_eq(metric("latency")->runs, 2);
}

Test(collectors, missing_key_is_named)
{
	load_suite("[ { 'name': 'latency', 'from': 'metrics',"
		   "    'key': 'latency_ms' } ]");
	write_metrics("{\"latency\": 1.5}");
	assert_fails_with("metric 'latency': key 'latency_ms' missing from "
			  "the metrics file; it has 'latency' (closest "
			  "first)");
	write_metrics("latency 1.5 ms\n");
	assert_fails_with("metric 'latency': key 'latency_ms' missing from "
			  "the metrics file; it has 'latency' (closest "
			  "first)");
}

/* What was there, closest to the key first, each once: the typo shows
 * itself (the 'latency_msec' against 'latency_ms'). */
Test(collectors, a_missing_key_lists_what_was_there_closest_first)
{
	load_suite("[ { 'name': 'latency', 'from': 'metrics',"
		   "    'key': 'latency_msec' } ]");
	write_metrics("accuracy 0.9\nthroughput 10\nlatency_ms 1.5 ms\n"
		      "latency_ms 1.6 ms\nlatency_p99_ms 3\n");
	assert_fails_with("metric 'latency': key 'latency_msec' missing from "
			  "the metrics file; it has 'latency_ms', "
			  "'latency_p99_ms', 'accuracy', 'throughput' "
			  "(closest first)");
	write_metrics("{\"accuracy\": 0.9, \"latency_ms\": [1.5, 1.6], "
		      "\"a\\u001b[2Jb\": 1}");
	assert_fails_with("metric 'latency': key 'latency_msec' missing from "
			  "the metrics file; it has 'latency_ms', "
			  "'accuracy', 'a?[2Jb' (closest first)");
	write_metrics("# nothing\n");
	assert_fails_with("metric 'latency': key 'latency_msec' missing from "
			  "the metrics file; it has no keys");
}

Test(collectors, non_finite_and_garbage_values_fail)
{
	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	write_metrics("latency nan ms\n");
	assert_fails_with("metric 'latency': value 'nan' is not a finite "
			  "number");
	write_metrics("latency -inf\n");
	assert_fails_with("metric 'latency': value '-inf' is not a finite "
			  "number");
	write_metrics("latency 12abc\n");
	assert_fails_with("metric 'latency': value '12abc' is not a finite "
			  "number");
	write_metrics("{\"latency\": 1e999}");
	assert_fails_with("metric 'latency': value 'inf' is not a finite "
			  "number");
}

Test(collectors, json_values_of_the_wrong_type_fail)
{
	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	write_metrics("{\"latency\": \"nan\"}");
	assert_fails_with("metric 'latency': key 'latency' in the metrics "
			  "file is the string 'nan', not a number or an "
			  "array of numbers");
	write_metrics("{\"latency\": [1, null]}");
	assert_fails_with("metric 'latency': key 'latency' in the metrics "
			  "file: element 1 is null, not a number");
	write_metrics("{\"latency\": []}");
	assert_fails_with("metric 'latency': key 'latency' in the metrics "
			  "file is an empty array");
	write_metrics("[1, 2]");
	assert_fails_with("metric 'latency': the metrics file is JSON but "
			  "not an object");
}

Test(collectors, invalid_json_says_where)
{
	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	/* Python's json.dump writes NaN for float('nan'): not JSON */
	write_metrics("{\"latency\": NaN}\n");
	assert_fails_with("metric 'latency': the metrics file is not valid "
			  "JSON: line 1, column 13, near 'NaN}'");
}

Test(collectors, malformed_line_and_missing_file_fail)
{
	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	write_metrics("latency 1.5 ms\noops\n");
	assert_fails_with("metric 'latency': metrics file line 2: expected "
			  "'name value [unit]', found 'oops'");
	write_metrics("latency 1.5 ms extra words\n");
	assert_fails_with("metric 'latency': metrics file line 1: expected "
			  "'name value [unit]', found 'latency 1.5 ms extra "
			  "words'");
	remove(metrics_path);
	assert_fails_with("metric 'latency': the benchmark wrote no metrics "
			  "file ($BENCHGATE_METRICS_FILE)");
}

Test(collectors, regex_takes_every_match_of_its_stream)
{
	double throughput[] = { 100, 200.5 }, errors[] = { 3 };
	double anchored[] = { 2 };

	load_suite("[ { 'name': 'throughput', 'from': 'stdout',"
		   "    'regex': 'throughput=([0-9.eE+-]+)',"
		   "    'unit': 'samples/s' },"
		   "  { 'name': 'errors', 'from': 'stderr',"
		   "    'regex': 'errors: ([0-9]+)' },"
		   "  { 'name': 'anchored', 'from': 'stdout',"
		   "    'regex': '^lat ([0-9]+)$' } ]");
	watch("throughput=100 samples/s\n"
	      "not lat 1\nlat 2\nlat 3x\n"
	      "throughput=200.5 samples/s\n",
	      "errors: 3\n");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("throughput", throughput, 2);
	assert_samples("errors", errors, 1);
	assert_samples("anchored", anchored, 1);
	cr_assert_str_eq(metric("throughput")->unit, "samples/s");
}

Test(collectors, regex_without_match_fails)
{
	load_suite("[ { 'name': 'throughput', 'from': 'stdout',"
		   "    'regex': 'throughput=([0-9.]+)' } ]");
	watch("nothing to see\n", "throughput=1\n");
	assert_fails_with("metric 'throughput': regex 'throughput=([0-9.]+)' "
			  "matched nothing in stdout");
}

Test(collectors, regex_lines_may_arrive_in_any_pieces)
{
	double v[] = { 12, 345, 6 };

	load_suite("[ { 'name': 'v', 'from': 'stdout',"
		   "    'regex': '^v=([0-9]+)$' } ]");
	/* one byte at a time, and the last line without its newline: the
	 * run is over, so it is whole */
	for (size_t piece = 1; piece <= 4; piece++) {
		fresh_case();
		watch_pieces("v=12\nv=345\nx v=9\nv=6", NULL, piece);
		cr_assert_eq(collect(), 0, "%s", bg_error_last());
		assert_samples("v", v, 3);
	}
}

Test(collectors, a_new_watch_forgets_the_warmup)
{
	double v[] = { 2 };

	load_suite("[ { 'name': 'v', 'from': 'stdout',"
		   "    'regex': 'v=([0-9]+)' } ]");
	/* a warmup run is watched and not collected; a partial line too */
	watch("v=1\nv=7", NULL);
	watch("v=2\n", NULL);
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("v", v, 1);
}

/* Output of "v=1\n", a line of `len` bytes ("v=2" then 'x's, or no
 * newline at all when it is the last) and "v=3\n". */
static char *long_line_output(size_t len, bool last)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addstr(&text, "v=1\nv=2");
	while (text.len < 4 + len)
		strbuf_addch(&text, 'x');
	if (!last)
		strbuf_addstr(&text, "\nv=3\n");
	return strbuf_detach(&text, NULL);
}

Test(collectors, line_longer_than_the_limit_fails_its_stream)
{
	double all[] = { 1, 2, 3 };
	char *text;

	load_suite("[ { 'name': 'v', 'from': 'stdout',"
		   "    'regex': 'v=([0-9]+)' },"
		   "  { 'name': 'e', 'from': 'stderr',"
		   "    'regex': 'e=([0-9]+)' } ]");
	/* a line of exactly the limit is matched, in pieces as a pipe
	 * gives them */
	text = long_line_output(COLLECT_LINE_MAX, false);
	watch_pieces(text, "e=1\n", 65536);
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("v", all, 3);
	free(text);

	/* one byte more: the value in it would be lost, so the metric
	 * fails; stderr's is not concerned, but the run is all or nothing */
	fresh_case();
	text = long_line_output(COLLECT_LINE_MAX + 1, false);
	watch_pieces(text, "e=1\n", 65536);
	assert_fails_with("metric 'v': line 2 of stdout is longer than 1024 "
			  "KiB, the longest line a regex is matched against; "
			  "a value in it would be lost");
	free(text);
	/* also when it is the last line, and arrives in one piece */
	text = long_line_output(COLLECT_LINE_MAX + 1, true);
	watch(text, "e=1\n");
	assert_fails_with("metric 'v': line 2 of stdout is longer than 1024 "
			  "KiB, the longest line a regex is matched against; "
			  "a value in it would be lost");
	free(text);
}

Test(collectors, regex_with_a_newline_is_refused)
{
	struct collectors *refused = NULL;

	load_suite_only("[ { 'name': 'v', 'from': 'stdout',"
			"    'regex': 'v=\\n([0-9]+)' } ]");
	cr_assert_eq(collectors_new(&refused, suite), BG_EINPUT);
	cr_assert_str_eq(bg_error_last(),
			 "benchmark 'bench': metric 'v': the regular "
			 "expression has a newline in it; stdout and stderr "
			 "are matched one line at a time");
	cr_assert_null(refused);
}

Test(collectors, regex_value_must_be_a_number)
{
	load_suite("[ { 'name': 'throughput', 'from': 'stdout',"
		   "    'regex': 'throughput=([^ ]*) ' } ]");
	watch("throughput=NaN samples/s\n", NULL);
	assert_fails_with("metric 'throughput': value 'NaN' is not a finite "
			  "number");
}

/* Writes a JSON metrics file of exactly `size` bytes: a latency of 1.5
 * and a string of padding. */
static void write_metrics_of_size(size_t size)
{
	static const char start[] = "{\"latency\": 1.5, \"pad\": \"";
	FILE *file = fopen(metrics_path, "w");
	size_t pad = size - (sizeof(start) - 1) - 2;

	cr_assert_not_null(file);
	fputs(start, file);
	for (size_t i = 0; i < pad; i++)
		fputc('x', file);
	fputs("\"}", file);
	cr_assert_eq(fclose(file), 0);
}

Test(collectors, metrics_file_over_the_limit_fails_naming_it_and_its_size)
{
	double latency[] = { 1.5 };
	char expected[4096];

	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	write_metrics_of_size(COLLECT_FILE_MAX);
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("latency", latency, 1);

	fresh_case();
	write_metrics_of_size(COLLECT_FILE_MAX + 1);
	snprintf(expected, sizeof(expected),
		 "metric 'latency': the metrics file '%s' is 16777217 bytes; "
		 "the limit is 16777216 bytes (16 MiB)",
		 metrics_path);
	assert_fails_with(expected);
}

Test(collectors, metrics_file_that_is_a_fifo_fails_without_waiting)
{
	char expected[4096];

	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	cr_assert_eq(mkfifo(metrics_path, 0600), 0);
	snprintf(expected, sizeof(expected),
		 "metric 'latency': the metrics file '%s' is not a regular "
		 "file",
		 metrics_path);
	assert_fails_with(expected);
}

Test(collectors, a_failing_metric_leaves_the_case_unchanged)
{
	load_suite("[ { 'name': 'wall', 'from': 'wall' },"
		   "  { 'name': 'latency', 'from': 'metrics' } ]");
	outcome.wall_s = 1;
	write_metrics("other 1\n");
	assert_fails_with("metric 'latency': key 'latency' missing from the "
			  "metrics file; it has 'other' (closest first)");
}

Test(collectors, file_source_expands_its_path_and_reads_a_key)
{
	double score[] = { 0.5, 0.25 };
	char *expected;
	size_t len;

	load_suite("[ { 'name': 'score', 'from': 'file',"
		   "    'path': 'out/${variant}-${run}.json',"
		   "    'key': 'eval.score' } ]");
	free(test_write_file(dir, "out/orig-0.json",
			     "{\"eval\": {\"score\": [0.5, 0.25]}}"));
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("score", score, 2);

	remove(metrics_path);
	test_rmtree(dir);
	cr_assert_lt(collect(), 0);
	len = strlen(suite->dir) + 128;
	expected = xmalloc(len);
	snprintf(expected, len,
		 "metric 'score': cannot open "
		 "'%s/out/orig-0.json': No such file or directory",
		 suite->dir);
	cr_assert_str_eq(bg_error_last(), expected);
	free(expected);
}

Test(collectors, unavailable_sources_are_left_out_with_one_warning)
{
	double wall[] = { 2, 2 };
	char line[512];
	int warnings = 0;
	FILE *err;

	cr_redirect_stderr();
	load_suite("[ { 'name': 'instructions', 'from': 'perf',"
		   "    'field': 'instructions' },"
		   "  { 'name': 'cycles', 'from': 'perf',"
		   "    'field': 'cycles' },"
		   "  { 'name': 'wall', 'from': 'wall' } ]");
	outcome.wall_s = 2;
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("wall", wall, 2);
	cr_assert_null(result_case_find_metric(rcase, "instructions"));
	cr_assert_null(result_case_find_metric(rcase, "cycles"));

	fflush(stderr);
	err = cr_get_redirected_stderr();
	while (fgets(line, sizeof(line), err))
		if (strstr(line, "source 'perf' is not available yet"))
			warnings++;
	cr_assert_eq(warnings, 1);
}

/* --- "per": values divided by the run's count of samples --- */

Test(collectors, per_divides_every_value_by_the_count_of_its_own_run)
{
	/* run 1: 3 samples, run 2: 2; the per-batch array is pooled */
	double batch_energy[] = { 6.0 / 3, 3.0 / 3, 6.0 / 2, 3.0 / 2 };
	double wall[] = { 1.5 / 3, 1.5 / 2 };
	double samples[] = { 3, 2 };

	load_suite("[ { 'name': 'batch_energy', 'from': 'metrics',"
		   "    'key': 'energy', 'unit': 'J', 'per': 'samples' },"
		   "  { 'name': 'wall_per_sample', 'from': 'wall',"
		   "    'per': 'samples' },"
		   "  { 'name': 'samples', 'from': 'metrics' } ]");
	outcome.wall_s = 1.5;
	write_metrics("{\"energy\": [6, 3], \"samples\": 3}");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	write_metrics("{\"energy\": [6, 3], \"samples\": 2}");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("batch_energy", batch_energy, 4);
	assert_samples("wall_per_sample", wall, 2);
	assert_samples("samples", samples, 2);
	cr_assert_eq(metric("batch_energy")->runs, 2);
	cr_assert_str_eq(metric("batch_energy")->unit, "J");
	cr_assert_str_eq(metric("wall_per_sample")->unit, "s");
}

Test(collectors, per_count_that_is_not_one_positive_value_fails)
{
	load_suite("[ { 'name': 'wall_per_sample', 'from': 'wall',"
		   "    'per': 'samples' },"
		   "  { 'name': 'samples', 'from': 'metrics' } ]");
	outcome.wall_s = 1;
	write_metrics("samples 0\n");
	assert_fails_with("metric 'wall_per_sample': count metric 'samples' "
			  "is 0 in this run; expected a positive number of "
			  "samples");
	write_metrics("samples -4\n");
	assert_fails_with("metric 'wall_per_sample': count metric 'samples' "
			  "is -4 in this run; expected a positive number of "
			  "samples");
	write_metrics("samples 4\nsamples 5\n");
	assert_fails_with("metric 'wall_per_sample': count metric 'samples' "
			  "has 2 values in this run; expected one");
}

Test(collectors, per_count_missing_fails_as_the_count)
{
	load_suite("[ { 'name': 'wall_per_sample', 'from': 'wall',"
		   "    'per': 'samples' },"
		   "  { 'name': 'samples', 'from': 'metrics' } ]");
	write_metrics("latency 1\n");
	assert_fails_with("metric 'samples': key 'samples' missing from the "
			  "metrics file; it has 'latency' (closest first)");
}

Test(collectors, per_metric_of_an_unavailable_source_is_left_out_alone)
{
	double samples[] = { 8 };
	char line[512];
	int warnings = 0;
	FILE *err;

	cr_redirect_stderr();
	/* no sampler: rapl cannot work, as on a machine without RAPL */
	load_suite("[ { 'name': 'energy', 'from': 'rapl', 'field': 'energy' },"
		   "  { 'name': 'energy_per_sample', 'from': 'rapl',"
		   "    'field': 'energy', 'per': 'samples' },"
		   "  { 'name': 'samples', 'from': 'metrics' } ]");
	write_metrics("samples 8\n");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("samples", samples, 1);
	cr_assert_null(result_case_find_metric(rcase, "energy"));
	cr_assert_null(result_case_find_metric(rcase, "energy_per_sample"));
	/* the count is still checked: it is wrong on every machine */
	write_metrics("samples 0\n");
	cr_assert_lt(collect(), 0);
	cr_assert(strstr(bg_error_last(), "count metric 'samples' is 0"), "%s",
		  bg_error_last());

	fflush(stderr);
	err = cr_get_redirected_stderr();
	while (fgets(line, sizeof(line), err))
		warnings += strstr(line, "is left out of the result") != NULL;
	cr_assert_eq(warnings, 1, "one reason, said once");
}

Test(collectors, real_runs_of_the_json_and_lines_workloads)
{
	const char *argv[] = { WORKLOAD("metrics_json"), NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct strbuf env_path = STRBUF_INIT;
	const char *env[] = { NULL, "BENCHGATE_RUN=2", NULL };
	double latency[] = { 3.5 }, throughput[] = { 102, 202 };
	double batches[] = { 1, 2, 3 };

	load_suite("[ { 'name': 'latency', 'from': 'metrics',"
		   "    'key': 'latency_ms', 'unit': 'ms' },"
		   "  { 'name': 'batches', 'from': 'metrics',"
		   "    'key': 'per_batch_ms' },"
		   "  { 'name': 'throughput', 'from': 'stdout',"
		   "    'regex': 'throughput=([0-9]+)' } ]");
	strbuf_addf(&env_path, "BENCHGATE_METRICS_FILE=%s", metrics_path);
	env[0] = env_path.buf;
	options.argv = argv;
	options.env = env;
	options.timeout_s = 10;
	collectors_watch(collectors, plan->cases[0].benchmark, &options);
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(outcome.exit_code, 0);
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("latency", latency, 1);
	assert_samples("batches", batches, 3);
	assert_samples("throughput", throughput, 2);
	strbuf_release(&env_path);
}

Test(collectors, real_run_of_the_nan_workload_fails)
{
	const char *argv[] = { WORKLOAD("metrics_bad"), "nan", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct strbuf env_path = STRBUF_INIT;
	const char *env[] = { NULL, NULL };

	load_suite("[ { 'name': 'latency', 'from': 'metrics' } ]");
	strbuf_addf(&env_path, "BENCHGATE_METRICS_FILE=%s", metrics_path);
	env[0] = env_path.buf;
	options.argv = argv;
	options.env = env;
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(outcome.exit_code, 0);
	assert_fails_with("metric 'latency': value 'nan' is not a finite "
			  "number");
	strbuf_release(&env_path);
}

/* Runs argv as the benchmark of the loaded suite, with the default
 * capture, and checks that it exited 0. */
static void run_workload(const char *const *argv)
{
	struct process_options options = PROCESS_OPTIONS_INIT;

	options.argv = argv;
	options.timeout_s = 60;
	collectors_watch(collectors, plan->cases[0].benchmark, &options);
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(outcome.exit_code, 0);
}

Test(collectors, regex_matches_all_of_a_flood_not_what_was_kept)
{
	const char *argv[] = { WORKLOAD("print_values"), "200000", NULL };
	const struct metric_samples *v;

	load_suite("[ { 'name': 'v', 'from': 'stdout',"
		   "    'regex': '^v=([0-9]+)$' } ]");
	run_workload(argv);
	/* 1.3 MB of output: more than the 1 MiB the capture keeps */
	cr_assert_gt(outcome.out.dropped, 0);
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	v = metric("v");
	/* print_values prints 1 .. 200000, one per line, in order */
	cr_assert_eq(v->nr, 200000, "%zu samples", v->nr);
	for (size_t i = 0; i < v->nr; i++)
		cr_assert_eq(v->samples[i], (double)(i + 1), "sample %zu", i);
}

Test(collectors, regex_never_matches_across_the_cut_of_the_capture)
{
	const char *argv[] = { WORKLOAD("seam_values"), NULL };
	double v[] = { 1 };

	load_suite("[ { 'name': 'v', 'from': 'stdout',"
		   "    'regex': 'v=([0-9]+)' } ]");
	run_workload(argv);
	/* the workload's defaults put "v=1" and "999" on the two sides of
	 * the cut of the default capture */
	cr_assert_eq(outcome.out.dropped, 4096);
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("v", v, 1);
}

/* Issue 13: peers' output formats keep their values in arrays of
 * objects. */
Test(collectors, key_paths_index_arrays)
{
	double times[] = { 3, 4 }, second[] = { 6 }, named[] = { 9 };

	load_suite("[ { 'name': 'times', 'from': 'metrics',"
		   "    'key': 'results[1].times' },"
		   "  { 'name': 'second', 'from': 'metrics',"
		   "    'key': 'a.b[2][1]' },"
		   "  { 'name': 'named', 'from': 'metrics',"
		   "    'key': 'odd[0].x' } ]");
	write_metrics("{\"results\": [{\"times\": [1, 2]}, {\"times\": [3, 4]}],\n"
		      " \"a\": {\"b\": [0, 1, [5, 6]]},\n"
		      " \"odd[0]\": {\"x\": 9}}\n");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("times", times, 2);
	assert_samples("second", second, 1);
	/* a member of that name is found, as a member named "a.b" is */
	assert_samples("named", named, 1);
}

Test(collectors, an_index_past_the_end_is_a_missing_key)
{
	load_suite("[ { 'name': 't', 'from': 'metrics',"
		   "    'key': 'results[2].times' } ]");
	write_metrics("{\"results\": [{\"times\": 1}, {\"times\": 2}]}");
	assert_fails_with("metric 't': key 'results[2].times' missing from "
			  "the metrics file; it has 'results' (closest "
			  "first)");
}

/* A metric of the GPU only (the allocator's peak) is not collected, so
 * not missing, on the CPU; the suite's gate and role travel with the
 * samples. */
Test(collectors, a_device_only_metric_exists_on_its_devices)
{
	double peak[] = { 7 };

	load_suite("[ { 'name': 'lat', 'from': 'metrics', 'role': 'speed',"
		   "    'gate': false },"
		   "  { 'name': 'peak', 'from': 'metrics',"
		   "    'devices': ['gpu'] } ]");
	write_metrics("{\"lat\": 1}");
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	cr_assert_null(result_case_find_metric(rcase, "peak"));
	cr_assert(!metric("lat")->gate);
	cr_assert_str_eq(metric("lat")->role, "speed");
	write_metrics("{\"lat\": 1, \"peak\": 7}");
	cr_assert_eq(collect_case(1), 0, "%s", bg_error_last());
	assert_samples("peak", peak, 1);
	cr_assert(metric("peak")->gate);
	cr_assert_null(metric("peak")->role);
}

/* A peer's document (bridge.h), read after each run: the benchmark by its
 * name as the peer wrote it or as benchgate maps it, the metric by field;
 * every run adds the independent values the peer measured. */
Test(collectors, a_peers_document_is_read_by_key_and_field)
{
	static const double times[] = { 0.1, 0.2, 0.3, 0.1, 0.2, 0.3 };

	load_suite("[ { 'name': 'time', 'from': 'hyperfine', 'path': "
		   "'hf.json', 'key': 'sleep 0.1' },"
		   "  { 'name': 'user', 'from': 'hyperfine', 'path': "
		   "'hf.json', 'key': 'sleep_0.1', 'field': 'user' } ]");
	free(test_write_file(dir, "hf.json",
			     "{\"results\": [{\"command\": \"sleep 0.1\", "
			     "\"user\": 0.002, \"times\": [0.1, 0.2, 0.3]}]}"));
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	cr_assert_eq(collect(), 0, "%s", bg_error_last());
	assert_samples("time", times, 6);
	cr_assert_str_eq(metric("time")->unit, "s");
	cr_assert_eq(metric("time")->runs, 2);
	cr_assert_eq(metric("time")->independent, 6);
	cr_assert_eq(metric("user")->independent, 2);
}

Test(collectors, a_benchmark_missing_from_the_peers_document_is_named)
{
	struct strbuf expected = STRBUF_INIT;

	load_suite("[ { 'name': 'time', 'from': 'hyperfine', 'path': "
		   "'hf.json', 'key': 'nope' } ]");
	free(test_write_file(dir, "hf.json",
			     "{\"results\": [{\"command\": \"true\", "
			     "\"times\": [0.1]}]}"));
	strbuf_addf(&expected,
		    "metric 'time': %s/hf.json: no hyperfine benchmark "
		    "'nope'; the document has 'true'",
		    dir);
	assert_fails_with(expected.buf);
	strbuf_release(&expected);
}
