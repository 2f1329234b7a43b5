/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the Graphcore extractors of suites/graphcore-mnist (a
 * PopVision profile reader over libpva and a Poplar log parser) wired
 * through `from: command`, with a stand-in pva module
 * (tests/fixtures/pva) and a benchmark that leaves what a PopTorch run
 * leaves: a profile.pop in its run directory and PopTorch's log lines.
 * The Poplar SDK is not installable here; docs/how-to/ipu.md says so.
 */
#include "harness/model/result.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define SUITE_DIR BENCHGATE_SOURCE_DIR "/suites/graphcore-mnist"

TestSuite(graphcore_bridge, .init = test_dir_setup, .fini = test_dir_teardown);

/* A stand-in PopTorch run: a profile of two tiles and one execution of an
 * exchange and a compute step, and the lines PopTorch and the examples
 * print (the progress bar redrawn with carriage returns). */
static const char fake_run_sh[] =
	"#!/bin/sh\n"
	"[ -n \"$NO_PROFILE\" ] || { mkdir -p \"$BENCHGATE_RUN_DIR/popvision/"
	"inference\"\n"
	"cat > \"$BENCHGATE_RUN_DIR/popvision/inference/profile.pop\" <<EOF\n"
	"{\"tiles\": [1000, 3000], \"runs\": [{\"steps\": [\n"
	" {\"cyclesByTile\": [10, 20], \"program\": {\"type\": \"DoExchange\","
	" \"totalData\": 64}},\n"
	" {\"cyclesByTile\": [500, $((400 + BENCHGATE_RUN))],"
	" \"program\": {\"type\": \"OnTileExecute\"}}]}]}\n"
	"EOF\n"
	"}\n"
	"printf 'Graph compilation:  50%%|#    | 50/100 [00:10<00:10]\\r'\n"
	"printf 'Graph compilation: 100%%|#####| 100/100 [01:02<00:00]\\n'\n"
	"echo 'Throughput: 2500.5 samples/sec'\n"
	"echo 'Latency: 0.025 s'\n";

static char *write_suite(void)
{
	struct strbuf text = STRBUF_INIT;
	const char *extract = "\"python3\", \"" SUITE_DIR
			      "/extract_popvision.py\"";
	const char *parse = "\"python3\", \"" SUITE_DIR
			    "/parse_poplar_log.py\"";
	char *path;

	strbuf_addf(
		&text,
		"{ \"benchgate\": 1, \"suite\": \"ipu-standin\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 2, \"env\": {\n"
		"    \"PYTHONPATH\": \"%s\" } },\n"
		"  \"benchmarks\": [ { \"name\": \"cnn\", \"command\": [\"sh\", "
		"\"${suite_dir}/fake_run.sh\"],\n"
		"    \"metrics\": [\n"
		"      { \"name\": \"total_cycles\", \"from\": \"command\", "
		"\"command\": [%s] },\n"
		"      { \"name\": \"tile_memory\", \"from\": \"command\", \"key\":"
		" \"tile_memory_bytes\", \"command\": [%s] },\n"
		"      { \"name\": \"max_tile_memory\", \"from\": \"command\", "
		"\"key\": \"max_tile_memory_bytes\", \"command\": [%s] },\n"
		"      { \"name\": \"exchange_bytes\", \"from\": \"command\", "
		"\"command\": [%s] },\n"
		"      { \"name\": \"compile_time\", \"from\": \"command\", "
		"\"command\": [%s] },\n"
		"      { \"name\": \"throughput\", \"from\": \"command\", "
		"\"better\": \"higher\", \"command\": [%s] },\n"
		"      { \"name\": \"latency\", \"from\": \"command\", "
		"\"command\": [%s] } ] } ] }\n",
		TEST_FIXTURE_DIR "/pva", extract, extract, extract, extract,
		parse, parse, parse);
	free(test_write_file(test_dir, "fake_run.sh", fake_run_sh));
	path = test_write_file(test_dir, "suite.json", text.buf);
	strbuf_release(&text);
	return path;
}

static struct result *run_suite(const char *const *env, int expect_exit)
{
	char *suite = write_suite();
	struct result *result = test_run_result(test_dir, suite, env,
						expect_exit);

	free(suite);
	return result;
}

static double first(const struct result *result, const char *metric,
		    const char *unit)
{
	const struct metric_samples *m =
		result_case_find_metric(&result->cases[0], metric);

	cr_assert(m && m->nr, "no %s", metric);
	if (unit)
		cr_expect_str_eq(m->unit, unit, "%s", metric);
	return m->samples[0];
}

Test(graphcore_bridge, profile_and_log_become_metrics)
{
	struct result *result = run_suite(NULL, 0);
	const struct metric_samples *cycles =
		result_case_find_metric(&result->cases[0], "total_cycles");

	/* busiest tile: tile 0 has 10 + 500, tile 1 has 20 + 400 + run */
	cr_expect_eq(first(result, "total_cycles", "cycles"), 510);
	cr_expect_eq(cycles->samples[1], 510);
	cr_expect_eq(first(result, "tile_memory", "B"), 4000);
	cr_expect_eq(first(result, "max_tile_memory", "B"), 3000);
	cr_expect_eq(first(result, "exchange_bytes", "B"), 64);
	/* the last, finished progress bar: 1 min 2 s */
	cr_expect_eq(first(result, "compile_time", "s"), 62);
	cr_expect_eq(first(result, "throughput", "samples/s"), 2500.5);
	cr_expect_eq(first(result, "latency", "ms"), 25);
	result_free(result);
}

Test(graphcore_bridge, a_run_without_a_profile_fails_saying_why)
{
	struct result *result =
		run_suite((const char *[]){ "NO_PROFILE=1", NULL }, 3);

	cr_expect_eq(result->cases[0].status, CASE_FAILED);
	cr_expect(strstr(result->cases[0].reason, "no profile.pop under"),
		  "%s", result->cases[0].reason);
	result_free(result);
}
