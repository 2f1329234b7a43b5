/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the peers' real output through `benchgate import` and
 * `benchgate compare`, and a suite that runs hyperfine as its benchmark
 * (docs/how-to/import.md). Each tool measures twice more after a baseline:
 * unchanged, which must pass, and with a planted slowdown (SPIN_SLOWDOWN,
 * SLOW, NAP), which must be caught, or judged from one value and then
 * caught by the threshold, saying so. The tools are the Debian packages
 * libbenchmark-dev (a program of tests/peers/), hyperfine and
 * python3-pytest-benchmark; a test whose tool is missing skips and says
 * which package to install. Slowdowns are large (4x) and the threshold
 * 50 %, and what is timed resists a busy machine (Google Benchmark's CPU
 * time, hyperfine timing a sleep): these tests check the wiring; that
 * +20 % is caught from independent runs is test_compare's.
 */
#include "harness/util/error.h"
#include "harness/model/result.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* hyperfine times a sleep of $NAP seconds: a wall time that a busy
 * machine hardly stretches, unlike a spin's */
#define NAP_COMMAND "sleep $NAP"
static const char *const nap[] = { "NAP=0.02", NULL };
static const char *const slow_nap[] = { "NAP=0.08", NULL };
#define THRESHOLD "50%"

static char *dir;

static void setup(void)
{
	dir = test_tmpdir();
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(import, .init = setup, .fini = teardown, .timeout = 300);

/* The program `name` on $PATH into out; false when there is none. */
static bool find_program(const char *name, struct strbuf *out)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		size_t len = strcspn(path, ":");

		strbuf_reset(out);
		strbuf_addf(out, "%.*s/%s", (int)len, path, name);
		if (len && access(out->buf, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* dir/name, in a buffer per slot (0..3). */
static const char *at(const char *name, int slot)
{
	static struct strbuf paths[4];

	strbuf_reset(&paths[slot]);
	strbuf_addf(&paths[slot], "%s/%s", dir, name);
	return paths[slot].buf;
}

static void run_ok(const char *const *env, const char *const *argv)
{
	struct test_output out;

	test_run(&out, dir, env, argv);
	cr_assert_eq(out.exit_code, 0, "%s: %s%s", argv[0], out.out.buf,
		     out.err.buf);
	test_output_release(&out);
}

/* Imports file as a result written to json (and the store). */
static void import(const char *format, const char *file, const char *json)
{
	static const char *const env[] = { "BENCHGATE_MACHINE_ID=import-test",
					   NULL };
	struct test_output out;

	test_benchgate(&out, dir, env,
		       (const char *const[]){ "import", "--format", format,
					      file, "--store", at("store", 3),
					      "--json", json, NULL });
	cr_assert_eq(out.exit_code, 0, "import %s: %s%s", file, out.out.buf,
		     out.err.buf);
	cr_assert(strstr(out.out.buf, "stored "), "%s", out.out.buf);
	test_output_release(&out);
}

/* `compare base cand`: its exit status, its output into out. */
static int compare(const char *base, const char *cand, struct strbuf *out)
{
	struct test_output output;
	int status;

	test_benchgate(&output, dir, NULL,
		       (const char *const[]){ "compare", base, cand,
					      "--threshold", THRESHOLD,
					      "--no-color", NULL });
	strbuf_reset(out);
	strbuf_addf(out, "%s%s", output.out.buf, output.err.buf);
	status = output.exit_code;
	test_output_release(&output);
	return status;
}

/* Baseline, unchanged and slowed results (at base.json, same.json,
 * slow.json) through compare: unchanged passes, slowed is a regression of
 * `metric`, judged from one value exactly when `one_value` says so. */
static void assert_gate(const char *metric, bool one_value)
{
	struct strbuf out = STRBUF_INIT, what = STRBUF_INIT;
	const char *found;
	char *line;

	cr_assert_eq(compare(at("base.json", 0), at("same.json", 1), &out), 0,
		     "unchanged: %s", out.buf);
	cr_assert_eq(compare(at("base.json", 0), at("slow.json", 1), &out), 1,
		     "slowed: %s", out.buf);
	strbuf_addf(&what, "/cpu %s ", metric);
	found = strstr(out.buf, what.buf);
	cr_assert_not_null(found, "no %s in %s", metric, out.buf);
	line = strndup(found, strcspn(found, "\n"));
	cr_assert(strstr(line, "regression"), "%s", out.buf);
	cr_assert_eq(strstr(line, "judged from one value") != NULL, one_value,
		     "%s", out.buf);
	free(line);
	strbuf_release(&out);
	strbuf_release(&what);
}

/* `compare base cand` of the stored results dir/base and dir/cand: the
 * line of `metric` (owned), and the exit status in *status. */
static char *compared_line(const char *base, const char *cand,
			   const char *metric, int *status)
{
	struct strbuf out = STRBUF_INIT, what = STRBUF_INIT;
	const char *found;
	char *line;

	*status = compare(base, cand, &out);
	strbuf_addf(&what, "/cpu %s ", metric);
	found = strstr(out.buf, what.buf);
	cr_assert_not_null(found, "no %s in %s", metric, out.buf);
	line = strndup(found, strcspn(found, "\n"));
	strbuf_release(&out);
	strbuf_release(&what);
	return line;
}

/* Live runs of a tool, imported at dir/base.json and dir/slow.json, the
 * second with a fourfold slowdown: what holds on a loaded machine is the
 * direction and size of the change in `metric`, not a verdict, as the
 * tool's rounds follow each other and drift together there. */
static void assert_live_slowdown(const char *metric)
{
	char *line, *percent;
	int status;
	double change;

	line = compared_line(at("base.json", 0), at("slow.json", 1), metric,
			     &status);
	/* a regression, or inconclusive when the runs drifted: never a
	 * pass of the change as unchanged, and never an improvement */
	cr_assert(status == 0 || status == 1, "%d: %s", status, line);
	cr_assert(strstr(line, "regression") || strstr(line, "inconclusive"),
		  "%s", line);
	/* the change is the first word ending in '%': +315.5% */
	percent = strchr(line, '%');
	cr_assert_not_null(percent, "%s", line);
	while (percent > line && percent[-1] != ' ')
		percent--;
	change = strtod(percent, NULL);
	cr_assert_gt(change, 100, "a fourfold slowdown read %g %%: %s",
		     change, line);
	free(line);
}

/* The recorded outputs of a tool (TEST_FIXTURE_DIR/<tool>/{base,same,
 * slow}.json: two runs, then one with a fourfold slowdown) imported as
 * dir/base.json, same.json and slow.json. */
static void import_recorded(const char *tool, const char *format)
{
	static const char *const names[] = { "base", "same", "slow" };
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;

	for (size_t i = 0; i < 3; i++) {
		strbuf_reset(&from);
		strbuf_addf(&from, "%s/%s/%s.json", TEST_FIXTURE_DIR, tool,
			    names[i]);
		strbuf_reset(&to);
		strbuf_addf(&to, "%s.json", names[i]);
		import(format, from.buf, at(to.buf, 1));
	}
	strbuf_release(&from);
	strbuf_release(&to);
}

/*
 * Google Benchmark's own output, recorded (tests/fixtures/gbench: ten
 * repetitions each of tests/peers/gbench_spin, then again, then with
 * SPIN_SLOWDOWN=3; only the executable's path shortened), through import
 * and the gate: the verdicts are the gate's on fixed values. Live runs of
 * the tool cannot carry them: its ten repetitions follow each other
 * within a tenth of a second, so on a loaded runner one burst of load
 * covers a whole side, the runs drift, and the honest verdict on them can
 * be "inconclusive" (the next test).
 */
Test(import, google_benchmark_repetitions_gate)
{
	char *text;

	import_recorded("gbench", "gbench");
	text = test_read_file(at("base.json", 0));
	/* ten repetitions, and not the mean, median, stddev and cv */
	cr_assert(strstr(text, "\"independent\":\t10"), "%s", text);
	cr_assert(strstr(text, "\"BM_spin_20000\""), "%s", text);
	free(text);
	assert_gate("cpu_time", false);
}

/*
 * The same through the tool itself, run here: what holds on a loaded
 * machine is the wiring (ten repetitions imported as ten values) and the
 * direction and size of a fourfold slowdown in CPU time, not a verdict
 * (see above).
 */
Test(import, google_benchmark_live_runs)
{
	static const char *const slow[] = { "SPIN_SLOWDOWN=3", NULL };
	static const char *const outputs[][2] = { { "gb-base.json",
						    "base.json" },
						  { "gb-slow.json",
						    "slow.json" } };
	struct strbuf flag = STRBUF_INIT;
	char *text;

	if (!*TEST_GBENCH_BIN)
		cr_skip_test("no Google Benchmark program was built: install "
			     "g++ and libbenchmark-dev, and configure again");
	for (size_t i = 0; i < 2; i++) {
		strbuf_reset(&flag);
		strbuf_addf(&flag, "--benchmark_out=%s", at(outputs[i][0], 0));
		run_ok(i == 1 ? slow : NULL,
		       (const char *const[]){ TEST_GBENCH_BIN,
					      "--benchmark_repetitions=10",
					      "--benchmark_min_time=0.01",
					      "--benchmark_out_format=json",
					      flag.buf, NULL });
		import("gbench", at(outputs[i][0], 0), at(outputs[i][1], 1));
	}
	text = test_read_file(at("base.json", 0));
	cr_assert(strstr(text, "\"independent\":\t10"), "%s", text);
	free(text);
	assert_live_slowdown("cpu_time");
	strbuf_release(&flag);
}

/* hyperfine's runs of NAP_COMMAND, exported to dir/name: thirty, so that
 * a burst of load in a few of them leaves enough values to decide on. */
static void hyperfine(const char *program, const char *const *env,
		      const char *name)
{
	char command[64];

	/* -N: no shell between hyperfine and the sleep, so hyperfine need
	 * not measure a shell's start-up, which it refuses to do on a
	 * busy machine ("could not measure shell execution time") */
	snprintf(command, sizeof(command), "sleep %s",
		 strchr(env[0], '=') + 1);
	run_ok(env, (const char *const[]){ program, "-N", "--runs", "30",
					   "--warmup", "1", "--command-name",
					   "nap", "--export-json", at(name, 0),
					   command, NULL });
}

Test(import, hyperfine_runs_gate)
{
	struct strbuf program = STRBUF_INIT;

	if (!find_program("hyperfine", &program))
		cr_skip_test("no hyperfine on $PATH: apt-get install "
			     "hyperfine");
	hyperfine(program.buf, nap, "hf-base.json");
	hyperfine(program.buf, nap, "hf-same.json");
	hyperfine(program.buf, slow_nap, "hf-slow.json");
	import("hyperfine", at("hf-base.json", 0), at("base.json", 1));
	import("hyperfine", at("hf-same.json", 0), at("same.json", 1));
	import("hyperfine", at("hf-slow.json", 0), at("slow.json", 1));
	assert_gate("time", false);
	strbuf_release(&program);
}

/* An interpreter that has pytest-benchmark: /usr/bin/python3 (where
 * Debian installs it), else python3 on $PATH. */
static bool find_pytest_benchmark(struct strbuf *python)
{
	struct test_output out;
	bool found = false;

	for (int i = 0; i < 2 && !found; i++) {
		if (i == 0) {
			strbuf_reset(python);
			strbuf_addstr(python, "/usr/bin/python3");
		} else if (!find_program("python3", python)) {
			break;
		}
		if (access(python->buf, X_OK))
			continue;
		test_run(&out, dir, NULL,
			 (const char *const[]){ python->buf, "-c",
						"import pytest_benchmark",
						NULL });
		found = out.exit_code == 0;
		test_output_release(&out);
	}
	return found;
}

#define PYTEST_FILE                                                  \
	"import os\n\n"                                              \
	"def work():\n"                                              \
	"    n = int(20000 * (1 + float(os.environ.get('SLOW', 0))))\n" \
	"    return sum(range(n))\n\n"                               \
	"def test_sum(benchmark):\n"                                 \
	"    benchmark(work)\n"

/* pytest on the test file in dir with SLOW as given and one or two more
 * arguments (second may be NULL). */
static void pytest(const char *python, const char *slow, const char *arg,
		   const char *arg2)
{
	struct strbuf env = STRBUF_INIT;

	strbuf_addf(&env, "SLOW=%s", slow);
	run_ok((const char *const[]){ env.buf, NULL },
	       (const char *const[]){ python, "-m", "pytest", "-q", "-p",
				      "no:cacheprovider",
				      "--benchmark-min-rounds=20",
				      "--benchmark-max-time=0.2",
				      at("test_work.py", 1), arg, arg2,
				      NULL });
	strbuf_release(&env);
}

static struct strbuf python = STRBUF_INIT;

static void need_pytest_benchmark(void)
{
	if (!find_pytest_benchmark(&python))
		cr_skip_test("no interpreter with pytest-benchmark (tried "
			     "/usr/bin/python3 and python3 on $PATH): "
			     "apt-get install python3-pytest-benchmark");
	free(test_write_file(dir, "test_work.py", PYTEST_FILE));
}

/* pytest-benchmark's recorded rounds (tests/fixtures/pytest-benchmark,
 * from PYTEST_FILE at SLOW 0, 0 and 3) through import and the gate. */
Test(import, pytest_benchmark_rounds_gate)
{
	import_recorded("pytest-benchmark", "pytest-benchmark");
	assert_gate("time", false);
}

/* The same, run here: the wiring and the size of the change. */
Test(import, pytest_benchmark_live_rounds)
{
	static const char *const names[][3] = {
		{ "0", "pb-base.json", "base.json" },
		{ "3", "pb-slow.json", "slow.json" },
	};
	struct strbuf flag = STRBUF_INIT;

	need_pytest_benchmark();
	for (size_t i = 0; i < 2; i++) {
		strbuf_reset(&flag);
		strbuf_addf(&flag, "--benchmark-json=%s", at(names[i][1], 0));
		pytest(python.buf, names[i][0], flag.buf, NULL);
		import("pytest-benchmark", at(names[i][1], 0),
		       at(names[i][2], 1));
	}
	assert_live_slowdown("time");
	strbuf_release(&flag);
}

/* The one file pytest-benchmark saved as `name` (storage/<machine and
 * python>/0001_<name>.json) into out. */
static void saved_file(const char *name, struct strbuf *out)
{
	struct strbuf pattern = STRBUF_INIT;
	glob_t found;

	strbuf_addf(&pattern, "%s/storage/*/*_%s.json", dir, name);
	cr_assert_eq(glob(pattern.buf, 0, NULL, &found), 0, "no %s",
		     pattern.buf);
	cr_assert_eq(found.gl_pathc, 1);
	strbuf_reset(out);
	strbuf_addstr(out, found.gl_pathv[0]);
	globfree(&found);
	strbuf_release(&pattern);
}

Test(import, pytest_benchmark_summary_is_judged_from_one_value)
{
	static const char *const names[][3] = {
		{ "0", "base", "base.json" },
		{ "0", "same", "same.json" },
		{ "3", "slow", "slow.json" },
	};
	struct strbuf storage = STRBUF_INIT, save = STRBUF_INIT;
	struct strbuf saved = STRBUF_INIT;
	char *text;

	need_pytest_benchmark();
	strbuf_addf(&storage, "--benchmark-storage=file://%s/storage", dir);
	for (size_t i = 0; i < 3; i++) {
		/* One value a side has no spread: the threshold alone judges
		 * it, and a busy machine moves one mean by more than 50 %.
		 * So "unchanged" is the baseline's own summary imported
		 * again (a recorded value); the slowdown (4x) is measured. */
		if (i == 1) {
			saved_file(names[0][1], &saved);
			import("pytest-benchmark", saved.buf,
			       at(names[i][2], 1));
			continue;
		}
		/* a save without --benchmark-save-data keeps no data */
		strbuf_reset(&save);
		strbuf_addf(&save, "--benchmark-save=%s", names[i][1]);
		pytest(python.buf, names[i][0], storage.buf, save.buf);
		saved_file(names[i][1], &saved);
		import("pytest-benchmark", saved.buf, at(names[i][2], 1));
	}
	text = test_read_file(at("base.json", 0));
	cr_assert(strstr(text, "\"independent\":\t1"), "%s", text);
	free(text);
	assert_gate("time", true);
	strbuf_release(&storage);
	strbuf_release(&save);
	strbuf_release(&saved);
}

/* A suite whose benchmark is hyperfine and whose metrics its export. */
static const char hyperfine_suite[] =
	"{ \"benchgate\": 1, \"suite\": \"hf\",\n"
	"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
	"  \"benchmarks\": [ { \"name\": \"nap\",\n"
	"    \"command\": [\"%s\", \"--runs\", \"30\",\n"
	"      \"--export-json\", \"${suite_dir}/hf.json\",\n"
	"      \"" NAP_COMMAND "\"],\n"
	"    \"metrics\": [\n"
	"      { \"name\": \"time\", \"from\": \"hyperfine\",\n"
	"        \"path\": \"hf.json\" },\n"
	"      { \"name\": \"user\", \"from\": \"hyperfine\",\n"
	"        \"path\": \"hf.json\", \"field\": \"user\",\n"
	"        \"gate\": false } ] } ] }\n";

static void run_suite(const char *suite, const char *const *env,
		      const char *json)
{
	struct test_output out;

	test_benchgate(&out, dir, env,
		       (const char *const[]){ "run", suite, "--store",
					      at("store", 2), "--json", json,
					      NULL });
	cr_assert_eq(out.exit_code, 0, "run: %s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

Test(import, a_suite_runs_hyperfine_and_gates_on_its_runs)
{
	struct strbuf program = STRBUF_INIT, text = STRBUF_INIT;
	char *suite, *result;

	if (!find_program("hyperfine", &program))
		cr_skip_test("no hyperfine on $PATH: apt-get install "
			     "hyperfine");
	strbuf_addf(&text, hyperfine_suite, program.buf);
	suite = test_write_file(dir, "suite/suite.json", text.buf);
	run_suite(suite, nap, at("base.json", 1));
	run_suite(suite, nap, at("same.json", 1));
	run_suite(suite, slow_nap, at("slow.json", 1));
	result = test_read_file(at("base.json", 0));
	/* one benchgate run, thirty independent runs of hyperfine */
	cr_assert(strstr(result, "\"independent\":\t30"), "%s", result);
	free(result);
	assert_gate("time", false);
	free(suite);
	strbuf_release(&program);
	strbuf_release(&text);
}

Test(import, a_bad_document_is_named_at_its_position_and_nothing_stored)
{
	struct strbuf listing = STRBUF_INIT;
	struct test_output out;
	char *bad = test_write_file(dir, "bad.json",
				    "{\"results\": [\n"
				    "  {\"command\": \"x\", \"times\": [1, \"a\"]}]}");

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "import", "--format",
					      "hyperfine", bad, "--store",
					      at("store", 0), NULL });
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	/* line 2, column 33: the "a" */
	cr_assert(strstr(out.err.buf, "bad.json:2:33: results[0].times[1]: "
				      "expected a finite number, found a "
				      "string"),
		  "%s", out.err.buf);
	test_list_tree(&listing, at("store", 0));
	cr_assert_str_empty(listing.buf, "stored: %s", listing.buf);
	test_output_release(&out);

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "import", bad, NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--format FMT is required"), "%s",
		  out.err.buf);
	test_output_release(&out);

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "import", "--format", "junit",
					      bad, NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "unknown format 'junit'; expected one "
				      "of: gbench, hyperfine, "
				      "pytest-benchmark, customSmallerIsBetter, "
				      "customBiggerIsBetter"),
		  "%s", out.err.buf);
	test_output_release(&out);
	strbuf_release(&listing);
	free(bad);
}

Test(import, a_failed_benchmark_is_a_failed_case)
{
	struct test_output out;
	char *file = test_write_file(
		dir, "hf.json",
		"{\"results\": [{\"command\": \"false\", \"times\": [0.001],"
		" \"exit_codes\": [1]}]}");

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "import", "--format",
					      "hyperfine", file, "--store",
					      at("store", 0), "--no-color",
					      NULL });
	cr_assert_eq(out.exit_code, 3, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "1 of 1 runs failed under hyperfine"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "stored "), "%s", out.out.buf);
	test_output_release(&out);
	free(file);
}

/* optimum-benchmark's own report (tests/peers/optimum/README.md: the
 * py-txi backend on a CPU, from its repository at commit 83c4c9f5). */
#define OPTIMUM_REPORT                            \
	BENCHGATE_SOURCE_DIR "/tests/peers/optimum/" \
			     "py-txi-bert-cpu.benchmark_report.json"

/* The report with every forward latency times factor and its throughput
 * divided by it, as a slower model would leave it, at dir/name. */
static char *slowed_report(const char *name, double factor)
{
	char *text = test_read_file(OPTIMUM_REPORT), *printed, *path;
	cJSON *report = cJSON_Parse(text), *forward, *value;

	cr_assert_not_null(report);
	forward = cJSON_GetObjectItem(report, "forward");
	cJSON_ArrayForEach(value, cJSON_GetObjectItem(
					  cJSON_GetObjectItem(forward, "latency"),
					  "values"))
		cJSON_SetNumberValue(value, value->valuedouble * factor);
	value = cJSON_GetObjectItem(cJSON_GetObjectItem(forward, "throughput"),
				    "value");
	cJSON_SetNumberValue(value, value->valuedouble / factor);
	printed = cJSON_Print(report);
	path = test_write_file(dir, name, printed);
	free(printed);
	cJSON_Delete(report);
	free(text);
	return path;
}

Test(import, optimum_report_phases_gate)
{
	char *slow = slowed_report("slow_report.json", 4), *text;
	struct strbuf out = STRBUF_INIT;

	import("optimum", OPTIMUM_REPORT, at("base.json", 1));
	/* the same run again: a recorded report, not a measurement */
	import("optimum", OPTIMUM_REPORT, at("same.json", 1));
	import("optimum", slow, at("slow.json", 1));
	text = test_read_file(at("base.json", 0));
	/* ten forward latencies, and one load latency */
	cr_assert(strstr(text, "\"independent\":\t10"), "%s", text);
	cr_assert(strstr(text, "\"benchmark\":\t\"forward\""), "%s", text);
	cr_assert(strstr(text, "\"benchmark\":\t\"load\""), "%s", text);
	cr_assert(strstr(text, "\"samples/s\""), "%s", text);
	free(text);
	assert_gate("latency", false);
	/* a quarter of the throughput: a regression of a higher-better rate */
	compare(at("base.json", 0), at("slow.json", 1), &out);
	text = strstr(out.buf, "forward/original/cpu throughput ");
	cr_assert_not_null(text, "%s", out.buf);
	cr_assert(strstr(text, "regression"), "%s", out.buf);
	strbuf_release(&out);
	free(slow);
}

/* A suite whose benchmark leaves an optimum-benchmark report: here a copy
 * of $REPORT, as optimum-benchmark itself would write one per run. */
static const char optimum_suite[] =
	"{ \"benchgate\": 1, \"suite\": \"ob\",\n"
	"  \"defaults\": { \"warmup\": 0, \"runs\": 2 },\n"
	"  \"benchmarks\": [ { \"name\": \"bert\",\n"
	"    \"shell\": \"cp \\\"$REPORT\\\" benchmark_report.json\",\n"
	"    \"metrics\": [\n"
	"      { \"name\": \"latency\", \"from\": \"optimum\",\n"
	"        \"path\": \"benchmark_report.json\", \"key\": \"forward\" },\n"
	"      { \"name\": \"throughput\", \"from\": \"optimum\",\n"
	"        \"path\": \"benchmark_report.json\", \"key\": \"forward\",\n"
	"        \"field\": \"throughput\" } ] } ] }\n";

Test(import, a_suite_reads_optimum_reports_as_a_metric_source)
{
	char *slow = slowed_report("slow_report.json", 4), *suite, *result;
	struct strbuf env_base = STRBUF_INIT, env_slow = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *base_env[2], *slow_env[2];

	strbuf_addstr(&env_base, "REPORT=" OPTIMUM_REPORT);
	strbuf_addf(&env_slow, "REPORT=%s", slow);
	base_env[0] = env_base.buf;
	slow_env[0] = env_slow.buf;
	base_env[1] = slow_env[1] = NULL;
	suite = test_write_file(dir, "suite/suite.json", optimum_suite);
	run_suite(suite, base_env, at("base.json", 1));
	run_suite(suite, base_env, at("same.json", 1));
	run_suite(suite, slow_env, at("slow.json", 1));
	result = test_read_file(at("base.json", 0));
	/* two benchgate runs, ten latencies each */
	cr_assert(strstr(result, "\"independent\":\t20"), "%s", result);
	/* throughput is higher better without the suite saying so */
	cr_assert(strstr(result, "\"higher\""), "%s", result);
	free(result);
	cr_assert_eq(compare(at("base.json", 0), at("same.json", 1), &out), 0,
		     "%s", out.buf);
	cr_assert_eq(compare(at("base.json", 0), at("slow.json", 1), &out), 1,
		     "%s", out.buf);
	cr_assert(strstr(out.buf, "bert/default/cpu latency "), "%s",
		  out.buf);
	cr_assert(strstr(out.buf, "bert/default/cpu throughput "), "%s",
		  out.buf);
	strbuf_release(&out);
	strbuf_release(&env_base);
	strbuf_release(&env_slow);
	free(suite);
	free(slow);
}

Test(import, a_bad_optimum_report_is_named_at_its_position)
{
	struct strbuf listing = STRBUF_INIT;
	struct test_output out;
	char *bad = test_write_file(
		dir, "benchmark_report.json",
		"{\"forward\": {\n"
		"  \"latency\": {\"unit\": \"s\", \"values\": [1, null]}}}");

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "import", "--format", "optimum",
					      bad, "--store", at("store", 0),
					      NULL });
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	/* line 2, column 42: the null */
	cr_assert(strstr(out.err.buf,
			 "benchmark_report.json:2:42: "
			 "forward.latency.values[1]: expected a finite number, "
			 "found null"),
		  "%s", out.err.buf);
	test_list_tree(&listing, at("store", 0));
	cr_assert_str_empty(listing.buf, "stored: %s", listing.buf);
	test_output_release(&out);
	strbuf_release(&listing);
	free(bad);
}
