/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/bridge/bridge.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/*
 * The peers' documents, cut down from what the tools wrote here (Google
 * Benchmark 1.7.1 with --benchmark_repetitions, hyperfine 1.15.0
 * --export-json, pytest-benchmark 3.2.2 --benchmark-json and
 * --benchmark-save) and from github-action-benchmark's README
 * ("customSmallerIsBetter"). Positions in expected messages are counted
 * by hand in the text: lines and columns from 1, columns in bytes.
 */

TestSuite(bridge);

static struct bridge_doc doc;

static void parse_ok(enum bridge_format format, const char *text)
{
	cr_assert_eq(bridge_parse(&doc, format, text, strlen(text), "in.json"),
		     BG_OK, "%s", bg_error_last());
}

static void parse_fails(enum bridge_format format, const char *text,
			const char *message)
{
	cr_assert_eq(bridge_parse(&doc, format, text, strlen(text), "in.json"),
		     BG_EINPUT, "parsed: %s", text);
	cr_assert_str_eq(bg_error_last(), message);
	bridge_doc_release(&doc);
}

static const struct bridge_series *series(const char *benchmark,
					  const char *metric)
{
	const struct bridge_series *found = NULL;

	cr_assert_eq(bridge_find(&doc, benchmark, metric, &found), BG_OK,
		     "%s", bg_error_last());
	return found;
}

#define GBENCH_ENTRY(name, type, extra, real, unit)                         \
	"{\"name\": \"" name "\", \"run_name\": \"BM_sum/1000\", "          \
	"\"run_type\": \"" type "\", " extra "\"iterations\": 54637, "      \
	"\"real_time\": " real ", \"cpu_time\": 250, \"time_unit\": \"" unit \
	"\", \"items_per_second\": 7.1e4, \"n\": 1000}"

static const char gbench_repetitions[] =
	"{\"context\": {\"num_cpus\": 2}, \"benchmarks\": [\n" GBENCH_ENTRY(
		"BM_sum/1000", "iteration", "\"repetition_index\": 0, ", "257",
		"ns") ",\n" GBENCH_ENTRY("BM_sum/1000", "iteration",
					 "\"repetition_index\": 1, ", "0.277",
					 "us") ",\n"
	GBENCH_ENTRY("BM_sum/1000_mean", "aggregate",
		     "\"aggregate_name\": \"mean\", ", "999", "ns") "]}";

Test(bridge, gbench_repetitions_are_samples_and_aggregates_are_ignored)
{
	const struct bridge_series *real, *rate, *counter;

	parse_ok(BRIDGE_GBENCH, gbench_repetitions);
	real = series("BM_sum/1000", NULL);
	cr_assert_str_eq(real->metric, "real_time");
	cr_assert_eq(real->nr, 2, "the mean aggregate is no sample");
	cr_assert_eq(real->independent, 2);
	cr_assert_str_eq(real->unit, "ns");
	/* the second repetition said 0.277 us: in the benchmark's ns */
	cr_assert_float_eq(real->values[1], 277, 1e-9);
	cr_assert_eq(series("BM_sum/1000", "cpu_time")->nr, 2);
	rate = series("BM_sum/1000", "items_per_second");
	cr_assert_eq(rate->better, BETTER_HIGHER);
	cr_assert(rate->gate);
	counter = series("BM_sum/1000", "n");
	cr_assert_not(counter->gate, "a counter without a direction");
	cr_assert_str_empty(doc.notes.buf);
	bridge_doc_release(&doc);
}

Test(bridge, gbench_aggregates_only_give_the_median_as_one_value)
{
	parse_ok(BRIDGE_GBENCH,
		 "{\"benchmarks\": [" GBENCH_ENTRY(
			 "BM_sum/1000_mean", "aggregate",
			 "\"aggregate_name\": \"mean\", ", "300",
			 "ms") "," GBENCH_ENTRY("BM_sum/1000_median",
						"aggregate",
						"\"aggregate_name\": "
						"\"median\", ",
						"290", "ms") "]}");
	cr_assert_eq(series("BM_sum_1000", NULL)->nr, 1);
	cr_assert_float_eq(series("BM_sum_1000", NULL)->values[0], 290, 1e-9);
	cr_assert_eq(series("BM_sum_1000", NULL)->independent, 1);
	cr_assert_str_eq(series("BM_sum_1000", NULL)->unit, "ms");
	cr_assert(strstr(doc.notes.buf, "its median is one value"), "%s",
		  doc.notes.buf);
	bridge_doc_release(&doc);
}

Test(bridge, gbench_error_fails_the_benchmark)
{
	const struct bridge_series *found;

	parse_ok(BRIDGE_GBENCH,
		 "{\"benchmarks\": [{\"name\": \"BM_x\", \"run_name\": "
		 "\"BM_x\", \"run_type\": \"iteration\", \"error_occurred\": "
		 "true, \"error_message\": \"out of memory\"}]}");
	cr_assert_eq(bridge_find(&doc, "BM_x", NULL, &found), BG_ERROR);
	cr_assert_str_eq(bg_error_last(),
			 "gbench benchmark 'BM_x' failed: out of memory");
	bridge_doc_release(&doc);
}

Test(bridge, gbench_bad_value_is_named_at_its_position)
{
	/* line 2, column 58: the value of real_time */
	parse_fails(BRIDGE_GBENCH,
		    "{\"benchmarks\": [\n"
		    "  {\"name\": \"BM_x\", \"run_type\": \"iteration\", "
		    "\"real_time\": \"fast\"}]}",
		    "in.json:2:58: benchmarks[0].real_time: expected a "
		    "number, found a string");
	parse_fails(BRIDGE_GBENCH,
		    "{\"benchmarks\": [{\"name\": \"BM_x\", \"real_time\": 1, "
		    "\"cpu_time\": 1, \"time_unit\": \"h\"}]}",
		    "in.json:1:78: benchmarks[0].time_unit: expected ns, us, "
		    "ms or s, found 'h'");
	parse_fails(BRIDGE_GBENCH, "{\"benchmarks\": []}",
		    "in.json:1:1: expected at least one benchmark, found none");
}

static const char hyperfine_doc[] =
	"{\"results\": [\n"
	" {\"command\": \"sleep 0.01\", \"mean\": 0.0122, \"user\": 0.0011,"
	"  \"system\": 0.0, \"times\": [0.0112, 0.0142, 0.0119],"
	"  \"memory_usage_byte\": [2048, 4096, 2048],"
	"  \"exit_codes\": [0, 0, 0]},\n"
	" {\"command\": \"false\", \"mean\": 0.001, \"user\": 0.0,"
	"  \"system\": 0.0, \"times\": [0.001, 0.001],"
	"  \"exit_codes\": [1, null]}]}";

Test(bridge, hyperfine_times_are_samples_and_user_a_summary)
{
	const struct bridge_series *time, *user, *memory, *found;

	parse_ok(BRIDGE_HYPERFINE, hyperfine_doc);
	time = series("sleep 0.01", NULL);
	cr_assert_str_eq(time->metric, "time");
	cr_assert_eq(time->nr, 3);
	cr_assert_eq(time->independent, 3);
	cr_assert_str_eq(time->unit, "s");
	user = series("sleep_0.01", "user");
	cr_assert_eq(user->nr, 1);
	cr_assert_eq(user->independent, 1);
	cr_assert_not(user->gate, "a mean over the runs is not gated");
	memory = series("sleep 0.01", "memory");
	cr_assert_str_eq(memory->unit, "B");
	cr_assert_eq(memory->nr, 3);
	cr_assert_eq(bridge_find(&doc, "false", NULL, &found), BG_ERROR);
	cr_assert(strstr(bg_error_last(), "2 of 2 runs failed under "
					  "hyperfine (the first with exit "
					  "code 1)"),
		  "%s", bg_error_last());
	bridge_doc_release(&doc);
}

Test(bridge, find_names_what_the_document_has)
{
	const struct bridge_series *found;

	parse_ok(BRIDGE_HYPERFINE, hyperfine_doc);
	cr_assert_eq(bridge_find(&doc, "sleep 1", NULL, &found), BG_ERROR);
	cr_assert_str_eq(bg_error_last(),
			 "no hyperfine benchmark 'sleep 1'; the document has "
			 "'sleep 0.01', 'false'");
	cr_assert_eq(bridge_find(&doc, "sleep 0.01", "wall", &found),
		     BG_ERROR);
	cr_assert_str_eq(bg_error_last(),
			 "hyperfine benchmark 'sleep 0.01' has no metric "
			 "'wall'; it has 'time', 'memory', 'user', 'system'");
	bridge_doc_release(&doc);
	parse_ok(BRIDGE_HYPERFINE,
		 "{\"results\": [{\"command\": \"a\", \"times\": [1]},"
		 " {\"command\": \"b\", \"times\": [2]}]}");
	cr_assert_eq(bridge_find(&doc, NULL, NULL, &found), BG_ERROR);
	cr_assert(strstr(bg_error_last(), "several benchmarks ('a', 'b')"),
		  "%s", bg_error_last());
	bridge_doc_release(&doc);
}

Test(bridge, pytest_data_are_samples_and_a_summary_is_one_value)
{
	parse_ok(BRIDGE_PYTEST_BENCHMARK,
		 "{\"benchmarks\": ["
		 " {\"name\": \"test_sum\", \"fullname\": \"a.py::test_sum\","
		 "  \"stats\": {\"median\": 9.5e-06, \"rounds\": 3,"
		 "   \"data\": [9.4e-06, 9.5e-06, 9.9e-06]}},"
		 " {\"name\": \"test_mul\", \"fullname\": \"a.py::test_mul\","
		 "  \"stats\": {\"median\": 2e-06, \"mean\": 2.1e-06,"
		 "   \"rounds\": 4000}}]}");
	cr_assert_eq(series("test_sum", NULL)->nr, 3);
	cr_assert_eq(series("test_sum", NULL)->independent, 3);
	cr_assert_eq(series("test_mul", NULL)->nr, 1,
		     "4000 rounds summarised are one value");
	cr_assert_eq(series("test_mul", NULL)->independent, 1);
	cr_assert(strstr(doc.notes.buf,
			 "benchmark 'test_mul' has no stats.data"),
		  "%s", doc.notes.buf);
	cr_assert(strstr(doc.notes.buf, "judge it only as one value"));
	bridge_doc_release(&doc);
}

Test(bridge, pytest_names_shared_by_two_tests_become_full_names)
{
	parse_ok(BRIDGE_PYTEST_BENCHMARK,
		 "{\"benchmarks\": ["
		 " {\"name\": \"test_x\", \"fullname\": \"a.py::test_x\","
		 "  \"stats\": {\"data\": [1]}},"
		 " {\"name\": \"test_x\", \"fullname\": \"b.py::test_x\","
		 "  \"stats\": {\"data\": [2]}}]}");
	cr_assert_eq(series("a.py::test_x", NULL)->values[0], 1);
	cr_assert_eq(series("b.py::test_x", NULL)->values[0], 2);
	bridge_doc_release(&doc);
}

Test(bridge, gab_arrays_are_one_value_each_in_their_direction)
{
	static const char text[] =
		"[{\"name\": \"My Custom Smaller Is Better Benchmark - CPU "
		"Load\", \"unit\": \"Percent\", \"value\": 50, \"range\": "
		"\"3\", \"extra\": \"Value for Tooltip: 25\"}]";

	parse_ok(BRIDGE_GAB_SMALLER, text);
	cr_assert_eq(series(NULL, NULL)->better, BETTER_LOWER);
	cr_assert_eq(series(NULL, "value")->independent, 1);
	cr_assert_str_eq(series(NULL, NULL)->unit, "Percent");
	bridge_doc_release(&doc);
	parse_ok(BRIDGE_GAB_BIGGER, text);
	cr_assert_eq(series(NULL, NULL)->better, BETTER_HIGHER);
	bridge_doc_release(&doc);
	parse_fails(BRIDGE_GAB_BIGGER, "{\"name\": \"x\"}",
		    "in.json:1:1: expected an array of {\"name\", \"unit\", "
		    "\"value\"}, found an object");
	parse_fails(BRIDGE_GAB_SMALLER,
		    "[{\"name\": \"x\", \"unit\": \"ms\", \"value\": 1e999}]",
		    "in.json:1:39: [0].value: expected a finite number, "
		    "found a number");
}

Test(bridge, names_keep_to_the_alphabet)
{
	static const char *const cases[][2] = {
		{ "BM_sum/1000", "BM_sum_1000" },
		{ "sleep 0.01", "sleep_0.01" },
		{ "test_x[a-1]", "test_x_a-1" },
		{ "//", "_" },
		{ "é/x", "x" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct strbuf out = STRBUF_INIT;

		bridge_name(&out, cases[i][0]);
		cr_assert_str_eq(out.buf, cases[i][1]);
		strbuf_release(&out);
	}
}

Test(bridge, result_keeps_the_independent_values_and_failures)
{
	struct result *result = result_new();
	struct strbuf json = STRBUF_INIT;
	struct result *again = NULL;
	const struct metric_samples *user;

	result->suite = strdup("hf");
	parse_ok(BRIDGE_HYPERFINE, hyperfine_doc);
	cr_assert_eq(bridge_add_to_result(&doc, result, "in.json"), BG_OK);
	cr_assert_eq(result->cases_nr, 2);
	cr_assert_str_eq(result->cases[0].benchmark, "sleep_0.01");
	cr_assert_eq(result->cases[1].status, CASE_FAILED);
	/* a second document with the same benchmark is refused whole */
	cr_assert_eq(bridge_add_to_result(&doc, result, "again.json"),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "again.json: benchmark 'sleep "
					  "0.01' (as 'sleep_0.01') is "
					  "imported already"),
		  "%s", bg_error_last());
	cr_assert_eq(result->cases_nr, 2);
	result_to_json(result, &json);
	cr_assert_eq(result_parse(&again, json.buf, json.len, "r.json"), BG_OK,
		     "%s", bg_error_last());
	user = result_case_find_metric(&again->cases[0], "user");
	cr_assert_eq(user->independent, 1);
	cr_assert_not(user->gate);
	cr_assert_eq(result_case_find_metric(&again->cases[0], "time")
			     ->independent,
		     3);
	result_free(again);
	result_free(result);
	strbuf_release(&json);
	bridge_doc_release(&doc);
}

Test(bridge, two_peer_names_for_one_case_are_refused)
{
	struct result *result = result_new();

	parse_ok(BRIDGE_GAB_SMALLER,
		 "[{\"name\": \"a b\", \"unit\": \"ms\", \"value\": 1},"
		 " {\"name\": \"a/b\", \"unit\": \"ms\", \"value\": 2}]");
	cr_assert_eq(bridge_add_to_result(&doc, result, "in.json"),
		     BG_EINPUT);
	cr_assert_str_eq(bg_error_last(),
			 "in.json: benchmarks 'a b' and 'a/b' both become "
			 "'a_b' in benchgate's names");
	cr_assert_eq(result->cases_nr, 0);
	result_free(result);
	bridge_doc_release(&doc);
}

/* Found by fuzz_bridge: a counter named "~" made a result that benchgate
 * then refused to read back. */
Test(bridge, counter_names_keep_to_the_alphabet)
{
	struct result *result = result_new();
	const struct result_case *rcase;

	parse_ok(BRIDGE_GBENCH,
		 "{\"benchmarks\": [{\"name\": \"BM_x\", \"real_time\": 1,"
		 " \"cpu_time\": 1, \"bytes/op\": 12, \"~\": 3}]}");
	cr_assert_eq(bridge_add_to_result(&doc, result, "in.json"), BG_OK);
	rcase = &result->cases[0];
	cr_assert_not_null(result_case_find_metric(rcase, "bytes_op"));
	cr_assert_not_null(result_case_find_metric(rcase, "_"));
	result_free(result);
	bridge_doc_release(&doc);
}

/* A report of tests/peers/optimum/ (its README names where each is from),
 * parsed into doc. */
static void parse_peer(const char *name)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;

	strbuf_addf(&path, "%s/tests/peers/optimum/%s", BENCHGATE_SOURCE_DIR,
		    name);
	cr_assert_geq(strbuf_read_file(&text, path.buf), 0, "%s", bg_error_last());
	cr_assert_eq(bridge_parse(&doc, BRIDGE_OPTIMUM, text.buf, text.len,
				  path.buf),
		     BG_OK, "%s", bg_error_last());
	strbuf_release(&path);
	strbuf_release(&text);
}

Test(bridge, optimum_forward_latencies_are_samples_of_the_real_report)
{
	const struct bridge_series *latency, *throughput, *found;

	/* written by optimum-benchmark (py-txi, BAAI/bge-base-en-v1.5, CPU),
	 * its commit 83c4c9f5: load and forward phases, memory and energy
	 * null */
	parse_peer("py-txi-bert-cpu.benchmark_report.json");
	latency = series("forward", NULL);
	cr_assert_str_eq(latency->metric, "latency");
	cr_assert_str_eq(latency->unit, "s");
	cr_assert_eq(latency->nr, 10);
	cr_assert_eq(latency->independent, 10);
	cr_assert(latency->gate);
	cr_assert_eq(latency->better, BETTER_LOWER);
	cr_assert_float_eq(latency->values[0], 11.477741526905447, 1e-12);
	cr_assert_float_eq(latency->values[9], 11.333256351063028, 1e-12);
	throughput = series("forward", "throughput");
	cr_assert_str_eq(throughput->unit, "samples/s");
	cr_assert_eq(throughput->better, BETTER_HIGHER);
	cr_assert_eq(throughput->independent, 1);
	cr_assert_float_eq(throughput->values[0], 5.648934083819028, 1e-12);
	cr_assert_eq(series("load", NULL)->nr, 1);
	cr_assert_eq(bridge_find(&doc, "forward", "max_ram", &found),
		     BG_ERROR);
	cr_assert_str_eq(bg_error_last(),
			 "optimum benchmark 'forward' has no metric 'max_ram'; "
			 "it has 'latency', 'throughput'");
	cr_assert_eq(bridge_find(&doc, NULL, NULL, &found), BG_ERROR);
	cr_assert(strstr(bg_error_last(), "several benchmarks ('load', "
					  "'forward')"),
		  "%s", bg_error_last());
	bridge_doc_release(&doc);

	/* the same run's benchmark.json: the report beside its config */
	parse_peer("py-txi-bert-cpu.benchmark.json");
	cr_assert_eq(series("forward", NULL)->nr, 10);
	bridge_doc_release(&doc);
}

Test(bridge, optimum_phases_give_memory_energy_and_rates)
{
	const struct bridge_series *s, *found;

	/* after optimum-benchmark's report.py and trackers/ (commit
	 * b263af4): the text-generation phases with memory and energy */
	parse_peer("gpt2-cuda-schema.benchmark_report.json");
	cr_assert_eq(series("prefill", "latency")->nr, 10);
	cr_assert_eq(series("decode", "latency")->nr, 10);
	cr_assert_eq(series("per_token", "latency")->nr, 6);
	s = series("decode", "max_allocated");
	cr_assert_str_eq(s->unit, "MB");
	cr_assert_eq(s->better, BETTER_LOWER);
	cr_assert(s->gate);
	cr_assert_eq(s->nr, 1);
	cr_assert_float_eq(s->values[0], 611.8, 1e-9);
	s = series("decode", "energy_total");
	cr_assert_str_eq(s->unit, "kWh");
	cr_assert_float_eq(s->values[0], 1.4154e-04, 1e-12);
	s = series("prefill", "efficiency");
	cr_assert_str_eq(s->unit, "tokens/kWh");
	cr_assert_eq(s->better, BETTER_HIGHER);
	cr_assert_str_eq(series("decode", "throughput")->unit, "tokens/s");
	/* null where the tracker had nothing: no GPU peaks at load */
	cr_assert_float_eq(series("load_model", "max_ram")->values[0], 912.6,
			   1e-9);
	cr_assert_eq(bridge_find(&doc, "load_model", "max_allocated", &found),
		     BG_ERROR);
	cr_assert_eq(bridge_find(&doc, "per_token", "max_ram", &found),
		     BG_ERROR);
	bridge_doc_release(&doc);
}

Test(bridge, optimum_bad_report_is_named_at_its_position)
{
	parse_fails(BRIDGE_OPTIMUM, "[1, 2]",
		    "in.json:1:1: expected an object of phases (load, "
		    "prefill, decode, forward, ...), found an array");
	/* line 2, column 14: the prefill phase */
	parse_fails(BRIDGE_OPTIMUM, "{\"load\": null,\n \"prefill\": 3}",
		    "in.json:2:13: prefill: expected an object of "
		    "measurements (memory, latency, throughput, energy, "
		    "efficiency), found a number");
	parse_fails(BRIDGE_OPTIMUM,
		    "{\"decode\": {\"latency\": {\"unit\": \"s\",\n"
		    "  \"values\": [0.4, \"slow\"]}}}",
		    "in.json:2:19: decode.latency.values[1]: expected a "
		    "finite number, found a string");
	parse_fails(BRIDGE_OPTIMUM,
		    "{\"decode\": {\"throughput\": {\"value\": 3}}}",
		    "in.json:1:27: decode.throughput: missing required key "
		    "'unit'");
	parse_fails(BRIDGE_OPTIMUM,
		    "{\"forward\": {\"memory\": {\"unit\": \"MB\", "
		    "\"max_ram\": \"big\"}}}",
		    "in.json:1:50: forward.memory.max_ram: expected a number, "
		    "found a string");
	parse_fails(BRIDGE_OPTIMUM, "{\"forward\": {\"latency\": null}}",
		    "in.json:1:1: expected at least one benchmark, found none");
	parse_fails(BRIDGE_OPTIMUM, "{\"config\": {}, \"results\": {}}",
		    "in.json:1:1: missing required key 'report'");
}
