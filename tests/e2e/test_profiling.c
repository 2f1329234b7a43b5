/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: profiling runs (`run --profile`, "profile" in a suite) and
 * the callgrind source, driven through the built binary on fixture suites.
 *
 * The IPU is made present with BENCHGATE_DEVICES (devices.h); the fixture
 * benchmarks are shell scripts that write what they were given into
 * $BENCHGATE_PROFILE_DIR, and count their runs in a file of the suite's
 * directory, so the tests see exactly which runs happened and with what.
 */
#include "harness/util/error.h"
#include "harness/model/result.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XMLLINT "/usr/bin/xmllint"

static char *dir;
static char store[PATH_MAX]; /* absolute: results are read back here */

static void setup(void)
{
	dir = test_tmpdir();
	snprintf(store, sizeof(store), "%s/store", dir);
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(profiling, .init = setup, .fini = teardown);

/* Runs benchgate in the fixture directory, with the IPU present. */
static void run_benchgate(struct test_output *out, const char *const *env,
			  const char *const *args)
{
	static const char *const ipu[] = { "BENCHGATE_DEVICES=cpu,ipu", NULL };

	test_benchgate(out, dir, env ? env : ipu, args);
}

#define RUN(out, env, ...) \
	run_benchgate((out), (env), (const char *const[]){ __VA_ARGS__, NULL })

/* The result `run` stored, from its "stored <path>" line. */
static struct result *stored_result(const struct test_output *out,
				    struct strbuf *path)
{
	const char *line = strstr(out->out.buf, "stored ");
	struct result *result = NULL;

	cr_assert_not_null(line, "%s%s", out->out.buf, out->err.buf);
	line += strlen("stored ");
	strbuf_add(path, line, strcspn(line, "\n"));
	cr_assert_eq(result_load(&result, path->buf), BG_OK, "%s",
		     bg_error_last());
	return result;
}

/* The result's directory + "/" + rel, resolved. */
static void resolve(struct strbuf *out, const char *result_path,
		    const char *rel)
{
	char resolved[PATH_MAX];
	struct strbuf path = STRBUF_INIT;
	const char *slash = strrchr(result_path, '/');

	strbuf_add(&path, result_path, (size_t)(slash - result_path));
	strbuf_addf(&path, "/%s", rel);
	cr_assert_not_null(realpath(path.buf, resolved), "no '%s'", path.buf);
	strbuf_addstr(out, resolved);
	strbuf_release(&path);
}

static size_t count_lines(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text;
	size_t lines = 0;

	strbuf_addf(&path, "%s/%s", dir, name);
	text = test_read_file(path.buf);
	for (const char *p = text; p && *p; p++)
		lines += *p == '\n';
	free(text);
	strbuf_release(&path);
	return lines;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* An IPU benchmark that reports what its profiling run was given. */
static const char ipu_suite[] =
	"{\"benchgate\": 1, \"suite\": \"ipu-prof\", \"devices\": [\"ipu\"],\n"
	" \"defaults\": {\"warmup\": 1, \"runs\": 3, \"env\": "
	"{\"POPLAR_ENGINE_OPTIONS\": \"%s\"}},\n"
	" \"benchmarks\": [{\"name\": \"poplar\", \"shell\": "
	"\"echo run >> runs.txt; if [ -n \\\"$BENCHGATE_PROFILE_DIR\\\" ]; "
	"then printf %%s \\\"$POPLAR_ENGINE_OPTIONS\\\" > "
	"\\\"$BENCHGATE_PROFILE_DIR/options.json\\\"; echo $BENCHGATE_RUN > "
	"\\\"$BENCHGATE_PROFILE_DIR/run\\\"; fi; echo n 1 > "
	"\\\"$BENCHGATE_METRICS_FILE\\\"\",\n"
	"   \"metrics\": [{\"name\": \"wall\", \"from\": \"wall\"},\n"
	"               {\"name\": \"n\", \"from\": \"metrics\"}]}]}\n";

static void write_ipu_suite(const char *user_options)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text, ipu_suite, user_options);
	free(test_write_file(dir, "suite.json", text.buf));
	strbuf_release(&text);
}

/* The href of the report's link labelled `label`, resolved from the
 * report's directory. */
static void link_target(struct strbuf *out, const char *report,
			const char *label)
{
	struct strbuf end = STRBUF_INIT, path = STRBUF_INIT;
	char *text = test_read_file(report);
	const char *at, *href;

	cr_assert_not_null(text, "no %s", report);
	strbuf_addf(&end, "\">%s</a>", label);
	at = strstr(text, end.buf);
	cr_assert_not_null(at, "no link '%s' in %s", label, report);
	for (href = at; href > text && strncmp(href, "href=\"", 6); href--)
		;
	cr_assert(!strncmp(href, "href=\"", 6));
	strbuf_add(&path, report, (size_t)(strrchr(report, '/') - report));
	strbuf_addch(&path, '/');
	strbuf_add(&path, href + 6, (size_t)(at - href - 6));
	strbuf_addstr(out, path.buf);
	free(text);
	strbuf_release(&end);
	strbuf_release(&path);
}

Test(profiling, ipu_profiling_run_gets_poplar_options_and_is_no_sample)
{
	struct strbuf result_path = STRBUF_INIT, profile_dir = STRBUF_INIT;
	struct strbuf file = STRBUF_INIT, report = STRBUF_INIT;
	const struct result_artifact *profile;
	const struct metric_samples *wall;
	const struct result_case *rcase;
	struct test_output out;
	struct result *result;
	char *text;
	cJSON *options;

	write_ipu_suite("{\\\"debug.instrument\\\": \\\"true\\\"}");
	RUN(&out, NULL, "run", "suite.json", "--profile", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	result = stored_result(&out, &result_path);
	rcase = &result->cases[0];
	cr_assert_eq(rcase->status, CASE_OK, "%s", rcase->reason);

	/* one warmup, three measured runs, one profiling run; only the
	 * measured ones are samples */
	cr_assert_eq(count_lines("runs.txt"), 5);
	wall = result_case_find_metric(rcase, "wall");
	cr_assert_eq(wall->nr, 3);
	cr_assert_eq(result_case_find_metric(rcase, "n")->nr, 3);
	cr_assert_eq(rcase->runs, 3);

	profile = test_artifact_of(rcase, "profile");
	cr_assert_not_null(profile, "the artifact directory is linked");
	cr_assert(profile->path[0] != '/', "relative to the result file");
	cr_assert(!strncmp(profile->path, "artifacts/", 10), "%s",
		  profile->path);
	resolve(&profile_dir, result_path.buf, profile->path);
	cr_assert_null(test_artifact_of(rcase, "flamegraph"),
		       "no perf on an IPU");
	cr_assert_null(rcase->profile_note, "%s", rcase->profile_note);

	strbuf_addf(&file, "%s/options.json", profile_dir.buf);
	text = test_read_file(file.buf);
	cr_assert_not_null(text, "the profiling run saw BENCHGATE_PROFILE_DIR");
	options = cJSON_Parse(text);
	cr_assert(cJSON_IsObject(options), "%s", text);
	cr_assert_str_eq(
		cJSON_GetObjectItem(options, "autoReport.all")->valuestring,
		"true");
	cr_assert_str_eq(
		cJSON_GetObjectItem(options, "debug.instrument")->valuestring,
		"true", "the user's option stays");
	strbuf_reset(&file);
	strbuf_addf(&file, "%s/poplar", profile_dir.buf);
	cr_assert_str_eq(cJSON_GetObjectItem(options, "autoReport.directory")
				 ->valuestring,
			 file.buf,
			 "the reports go into the case's artifact directory");
	cJSON_Delete(options);
	free(text);

	strbuf_reset(&file);
	strbuf_addf(&file, "%s/run", profile_dir.buf);
	text = test_read_file(file.buf);
	cr_assert_str_eq(text, "3\n", "BENCHGATE_RUN one past the last");
	free(text);

	/* the reports link the directory, relative to themselves */
	test_output_release(&out);
	RUN(&out, NULL, "report", result_path.buf, "--out", "report",
	    "--format", "html,markdown");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	strbuf_addf(&report, "%s/report/report.html", dir);
	strbuf_reset(&file);
	link_target(&file, report.buf, "profile directory");
	cr_assert(!strncmp(file.buf + strlen(dir), "/report/../store/", 17),
		  "%s", file.buf);
	strbuf_addstr(&file, "/options.json");
	cr_assert(exists(file.buf), "the link leads to %s", file.buf);
	strbuf_reset(&report);
	strbuf_addf(&report, "%s/report/report.md", dir);
	text = test_read_file(report.buf);
	cr_assert(strstr(text, "[profile directory](../store/"), "%s", text);
	free(text);

	test_output_release(&out);
	result_free(result);
	strbuf_release(&result_path);
	strbuf_release(&profile_dir);
	strbuf_release(&file);
	strbuf_release(&report);
}

Test(profiling, invalid_user_poplar_options_are_a_note_not_a_failure)
{
	struct strbuf result_path = STRBUF_INIT;
	const struct result_case *rcase;
	struct test_output out;
	struct result *result;

	write_ipu_suite("{oops");
	RUN(&out, NULL, "run", "suite.json", "--profile", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "POPLAR_ENGINE_OPTIONS is not valid "
				      "JSON"),
		  "%s", out.err.buf);
	result = stored_result(&out, &result_path);
	rcase = &result->cases[0];
	cr_assert_eq(rcase->status, CASE_OK);
	cr_assert_not_null(rcase->profile_note);
	cr_assert(strstr(rcase->profile_note,
			 "not profiled: "
			 "POPLAR_ENGINE_OPTIONS is not valid JSON"),
		  "%s", rcase->profile_note);
	cr_assert_eq(rcase->artifacts_nr, 0);
	cr_assert_eq(count_lines("runs.txt"), 4, "no profiling run");
	test_output_release(&out);
	result_free(result);
	strbuf_release(&result_path);
}

/* Two benchmarks, one that always wants a profile and one never. */
static const char setting_suite[] =
	"{\"benchgate\": 1, \"suite\": \"setting\",\n"
	" \"defaults\": {\"warmup\": 0, \"runs\": 2},\n"
	" \"benchmarks\": [\n"
	"  {\"name\": \"on\", \"profile\": true, \"shell\": \"echo >> on.txt; "
	"[ -z \\\"$BENCHGATE_PROFILE_DIR\\\" ] || echo >> on.profiled\",\n"
	"   \"metrics\": [{\"name\": \"wall\", \"from\": \"wall\"}]},\n"
	"  {\"name\": \"off\", \"profile\": false, \"shell\": \"echo >> "
	"off.txt; [ -z \\\"$BENCHGATE_PROFILE_DIR\\\" ] || echo >> "
	"off.profiled\",\n"
	"   \"metrics\": [{\"name\": \"wall\", \"from\": \"wall\"}]}]}\n";

Test(profiling, the_suite_setting_wins_over_the_command_line)
{
	struct test_output out;

	free(test_write_file(dir, "suite.json", setting_suite));
	RUN(&out, NULL, "run", "suite.json", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(count_lines("on.profiled"), 1);
	cr_assert_eq(count_lines("on.txt"), 3);
	test_output_release(&out);
	RUN(&out, NULL, "run", "suite.json", "--profile", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(count_lines("on.profiled"), 2);
	cr_assert_eq(count_lines("off.profiled"), 0);
	cr_assert_eq(count_lines("off.txt"), 4);
	test_output_release(&out);
}

static void write_spin_suite(void)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text,
		    "{\"benchgate\": 1, \"suite\": \"spin\",\n"
		    " \"benchmarks\": [{\"name\": \"spin\", \"warmup\": 0, "
		    "\"runs\": 2,\n"
		    "   \"command\": [\"%s/spin\", \"--ms\", \"200\"],\n"
		    "   \"metrics\": [{\"name\": \"latency\", \"from\": "
		    "\"metrics\", \"key\": \"latency_ms\", \"unit\": "
		    "\"ms\"}]}]}\n",
		    TEST_WORKLOAD_DIR);
	free(test_write_file(dir, "suite.json", text.buf));
	strbuf_release(&text);
}

static bool perf_records_here(void)
{
	static const char *const argv[] = {
		"/bin/sh", "-c",
		"perf record -q -e cpu-clock -o /dev/null -- true", NULL
	};
	struct test_output out;
	bool works;

	test_run(&out, NULL, NULL, argv);
	works = out.exit_code == 0;
	test_output_release(&out);
	return works;
}

static void assert_well_formed(const char *path)
{
	const char *argv[] = { XMLLINT, "--noout", path, NULL };
	struct test_output out;

	test_run(&out, NULL, NULL, argv);
	cr_assert_eq(out.exit_code, 0, "%s is not well-formed:\n%s", path,
		     out.err.buf);
	test_output_release(&out);
}

Test(profiling, cpu_profile_draws_a_flame_graph_of_the_spin)
{
	struct strbuf result_path = STRBUF_INIT, path = STRBUF_INIT;
	const struct result_artifact *svg, *folded;
	const struct result_case *rcase;
	struct test_output out;
	struct result *result;
	char *text;

	write_spin_suite();
	RUN(&out, NULL, "run", "suite.json", "--profile", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	result = stored_result(&out, &result_path);
	rcase = &result->cases[0];
	cr_assert_eq(result_case_find_metric(rcase, "latency")->nr, 2);
	if (!perf_records_here()) {
		/* the machine cannot: the reason is recorded, nothing more */
		cr_assert_not_null(rcase->profile_note);
		cr_assert(strstr(rcase->profile_note, "perf"), "%s",
			  rcase->profile_note);
		goto done;
	}
	cr_assert_null(rcase->profile_note, "%s", rcase->profile_note);
	svg = test_artifact_of(rcase, "flamegraph");
	folded = test_artifact_of(rcase, "folded");
	cr_assert(svg && folded && test_artifact_of(rcase, "perf"));
	resolve(&path, result_path.buf, svg->path);
	assert_well_formed(path.buf);
	text = test_read_file(path.buf);
	cr_assert(strstr(text, "<title>main ("), "the spin loop is in main");
	cr_assert(strstr(text, "Flame graph of spin/default/cpu"));
	free(text);
	strbuf_reset(&path);
	resolve(&path, result_path.buf, folded->path);
	text = test_read_file(path.buf);
	cr_assert(strstr(text, ";main"), "%s", text);
	free(text);
done:
	test_output_release(&out);
	result_free(result);
	strbuf_release(&result_path);
	strbuf_release(&path);
}

Test(profiling, missing_perf_is_a_note_and_the_run_goes_on)
{
	static const char *const env[] = { "PATH=/nonexistent", NULL };
	struct strbuf result_path = STRBUF_INIT;
	const struct result_case *rcase;
	struct test_output out;
	struct result *result;

	write_spin_suite();
	RUN(&out, env, "run", "suite.json", "--profile", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "no flame graphs: perf is not "
				      "installed"),
		  "%s", out.err.buf);
	result = stored_result(&out, &result_path);
	rcase = &result->cases[0];
	cr_assert_eq(rcase->status, CASE_OK);
	cr_assert_eq(result_case_find_metric(rcase, "latency")->nr, 2);
	cr_assert_str_eq(rcase->profile_note,
			 "no flame graph: perf is not "
			 "installed (no 'perf' on PATH; Debian and Ubuntu "
			 "package it as linux-perf)");
	cr_assert_not_null(test_artifact_of(rcase, "profile"),
			   "the benchmark's own hooks still had a directory");
	test_output_release(&out);
	result_free(result);
	strbuf_release(&result_path);
}

/* A shell loop: its instruction count depends on ${n} alone. */
static const char callgrind_suite[] =
	"{\"benchgate\": 1, \"suite\": \"count\",\n"
	" \"variants\": {\"small\": {\"vars\": {\"n\": \"1000\"}},\n"
	"              \"large\": {\"vars\": {\"n\": \"2000\"}}},\n"
	" \"defaults\": {\"warmup\": 0, \"runs\": 2},\n"
	" \"benchmarks\": [{\"name\": \"loop\", \"shell\": \"i=0; while "
	"[ $i -lt ${n} ]; do i=$((i+1)); done\",\n"
	"   \"metrics\": [{\"name\": \"instructions\", \"from\": "
	"\"callgrind\"},\n"
	"               {\"name\": \"wall\", \"from\": \"wall\"}]}]}\n";

static double instructions_of(const struct result *result, const char *variant)
{
	const struct result_case *rcase =
		result_find_case(result, "loop", variant, "cpu");
	const struct metric_samples *metric;

	cr_assert_not_null(rcase);
	cr_assert_eq(rcase->status, CASE_OK, "%s", rcase->reason);
	metric = result_case_find_metric(rcase, "instructions");
	cr_assert_not_null(metric);
	cr_assert_eq(metric->nr, 1, "one callgrind run per case");
	cr_assert_str_eq(metric->unit, "instructions");
	cr_assert_eq(result_case_find_metric(rcase, "wall")->nr, 2,
		     "the callgrind run is no timing sample");
	cr_assert_not_null(test_artifact_of(rcase, "callgrind"));
	return metric->samples[0];
}

Test(profiling, callgrind_counts_the_same_instructions_every_run)
{
	struct strbuf first_path = STRBUF_INIT, second_path = STRBUF_INIT;
	struct strbuf kept = STRBUF_INIT;
	struct result *first, *second;
	struct test_output out;
	double small;

	cr_assert_eq(access("/usr/bin/valgrind", X_OK), 0,
		     "valgrind is needed: install valgrind");
	free(test_write_file(dir, "suite.json", callgrind_suite));
	RUN(&out, NULL, "run", "suite.json", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	first = stored_result(&out, &first_path);
	test_output_release(&out);
	RUN(&out, NULL, "run", "suite.json", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	second = stored_result(&out, &second_path);

	small = instructions_of(first, "small");
	cr_assert(small > 1000, "%g", small);
	cr_assert_eq(instructions_of(second, "small"), small,
		     "deterministic: %.0f then %.0f", small,
		     instructions_of(second, "small"));
	cr_assert_eq(instructions_of(second, "large"),
		     instructions_of(first, "large"));
	cr_assert(instructions_of(first, "large") > small,
		  "twice the loop costs more");
	resolve(&kept, first_path.buf,
		test_artifact_of(result_find_case(first, "loop", "small",
						  "cpu"),
				 "callgrind")
			->path);
	cr_assert(strstr(kept.buf, "/callgrind.out"), "%s", kept.buf);

	test_output_release(&out);
	result_free(first);
	result_free(second);
	strbuf_release(&first_path);
	strbuf_release(&second_path);
	strbuf_release(&kept);
}

Test(profiling, missing_valgrind_leaves_the_metric_out)
{
	static const char *const env[] = { "PATH=/nonexistent", NULL };
	struct strbuf result_path = STRBUF_INIT;
	const struct result_case *rcase;
	struct test_output out;
	struct result *result;

	free(test_write_file(dir, "suite.json", callgrind_suite));
	RUN(&out, env, "run", "suite.json", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "valgrind is not installed"), "%s",
		  out.err.buf);
	result = stored_result(&out, &result_path);
	rcase = &result->cases[0];
	cr_assert_eq(rcase->status, CASE_OK);
	cr_assert_null(result_case_find_metric(rcase, "instructions"));
	cr_assert_eq(result_case_find_metric(rcase, "wall")->nr, 2);
	test_output_release(&out);
	result_free(result);
	strbuf_release(&result_path);
}
