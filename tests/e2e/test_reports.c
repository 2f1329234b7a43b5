/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: what `run` and `check` tell a user about failed and skipped
 * cases and about variants, in the terminal and in every report: a failed
 * case's last stderr lines and its log, a reason shared by skipped cases
 * said once, the variant table in `run`, and no empty table on a PASS.
 */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

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

TestSuite(reports, .init = setup, .fini = teardown, .timeout = 300);

/* Two variants of a spinning benchmark and one that fails the way a
 * Python benchmark without its module does, each on a CPU and a GPU that
 * BENCHGATE_DEVICES leaves out: four cases skipped for one reason. */
static const char suite[] =
	"{\"benchgate\": 1, \"suite\": \"told\", \"devices\": [\"cpu\", "
	"\"gpu\"],"
	" \"defaults\": {\"runs\": 3, \"warmup\": 0},"
	" \"variants\": {\"original\": {\"vars\": {\"ms\": \"6\"}},"
	"  \"fast\": {\"vars\": {\"ms\": \"2\"}}},"
	" \"benchmarks\": ["
	"  {\"name\": \"spin\", \"command\": [\"" TEST_WORKLOAD_DIR
	"/spin\", \"--ms\", \"${ms}\"],"
	"   \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","
	"    \"key\": \"latency_ms\", \"unit\": \"ms\"}]},"
	"  {\"name\": \"bad\", \"shell\": \"echo loading >&2; echo "
	"\\\"ModuleNotFoundError: No module named 'tmodel'\\\" >&2; exit 1\","
	"   \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}";

static const char *const cpu_only[] = { "BENCHGATE_DEVICES=cpu", NULL };

/* The reason BENCHGATE_DEVICES gives for leaving out the GPU, as every
 * format escapes it alike ("device 'gpu' is not in BENCHGATE_DEVICES"). */
#define SKIP_REASON "is not in BENCHGATE"

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(haystack, needle); p;
	     p = strstr(p + 1, needle))
		n++;
	return n;
}

static char *read_out(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text;

	strbuf_addf(&path, "%s/out/%s", dir, name);
	text = test_read_file(path.buf);
	cr_assert_not_null(text, "no %s", path.buf);
	strbuf_release(&path);
	return text;
}

/* The path after "log: " on the failed case's lines exists. */
static void assert_log_shown(const char *text)
{
	const char *log = strstr(text, "log: ");
	struct strbuf path = STRBUF_INIT;
	struct stat st;

	cr_assert_not_null(log, "no log path in:\n%s", text);
	log += strlen("log: ");
	strbuf_add(&path, log, strcspn(log, "\n"));
	cr_assert_eq(stat(path.buf, &st), 0, "the log '%s' is not there",
		     path.buf);
	strbuf_release(&path);
}

Test(reports, run_explains_a_failure_and_a_skip_once_and_compares_variants)
{
	struct test_output out;

	free(test_write_file(dir, "told.json", suite));
	RUN(&out, dir, cpu_only, "run", "told.json", "--store", "store");
	cr_assert_eq(out.exit_code, 3, "%s%s", out.out.buf, out.err.buf);
	/* the failure: its last stderr lines, once a case, and its log */
	cr_assert_eq(count(out.out.buf, "No module named 'tmodel'"), 2, "%s",
		     out.out.buf);
	cr_assert(strstr(out.out.buf, "| loading\n"), "%s", out.out.buf);
	assert_log_shown(out.out.buf);
	/* four cases skipped for one reason: said once */
	cr_assert_eq(count(out.out.buf, SKIP_REASON), 1, "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "skipped 4 cases ("), "%s", out.out.buf);
	/* the variants compared inside the run */
	cr_assert(strstr(out.out.buf, "variant vs original"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "spin/fast/cpu"), "%s", out.out.buf);
	test_output_release(&out);
}

Test(reports, check_says_each_thing_once_in_the_terminal_and_every_report)
{
	static const char *const reports[] = { "report.md", "report.html",
					       "junit.xml" };
	struct test_output out;

	free(test_write_file(dir, "told.json", suite));
	RUN(&out, dir, cpu_only, "run", "told.json", "--store", "store",
	    "--json", "base.json");
	test_output_release(&out);
	RUN(&out, dir, cpu_only, "check", "told.json", "--store", "store",
	    "--baseline", "base.json", "--report", "out");
	cr_assert_eq(out.exit_code, 3, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(count(out.out.buf, SKIP_REASON), 1, "%s", out.out.buf);
	cr_assert_eq(count(out.out.buf, "No module named 'tmodel'"), 2, "%s",
		     out.out.buf);
	assert_log_shown(out.out.buf);
	/* the variants, where each was and where it is */
	cr_assert(strstr(out.out.buf, "\u2192"), "%s", out.out.buf);
	for (size_t i = 0; i < sizeof(reports) / sizeof(*reports); i++) {
		char *text = read_out(reports[i]);

		cr_assert_eq(count(text, SKIP_REASON), 1,
			     "%s says the reason %zu times:\n%s", reports[i],
			     count(text, SKIP_REASON), text);
		cr_assert(strstr(text, "No module named"),
			  "%s lacks the "
			  "stderr tail:\n%s",
			  reports[i], text);
		cr_assert(strstr(text, "logs/"), "%s lacks the log:\n%s",
			  reports[i], text);
		free(text);
	}
	test_output_release(&out);
}

/* Without a baseline check shows the measures and the comparison: the
 * failures and the skips still come once. */
Test(reports, check_without_a_baseline_says_each_thing_once)
{
	struct test_output out;

	free(test_write_file(dir, "told.json", suite));
	RUN(&out, dir, cpu_only, "check", "told.json", "--store", "store");
	cr_assert_eq(out.exit_code, 3, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(count(out.out.buf, SKIP_REASON), 1, "%s", out.out.buf);
	cr_assert_eq(count(out.out.buf, "No module named 'tmodel'"), 2, "%s",
		     out.out.buf);
	test_output_release(&out);
}

Test(reports, a_pass_with_nothing_to_list_prints_no_empty_table)
{
	struct test_output out;

	free(test_write_file(
		dir, "one.json",
		"{\"benchgate\": 1, \"suite\": \"one\","
		" \"defaults\": {\"runs\": 3, \"warmup\": 0, \"threshold\": "
		"\"50%\"},"
		" \"benchmarks\": [{\"name\": \"spin\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/spin\", \"--ms\", \"3\"],"
		" \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","
		"  \"key\": \"latency_ms\", \"unit\": \"ms\"}]}]}"));
	RUN(&out, dir, NULL, "run", "one.json", "--store", "store", "--json",
	    "base.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	RUN(&out, dir, NULL, "check", "one.json", "--store", "store",
	    "--baseline", "base.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "PASS"), "%s", out.out.buf);
	cr_assert_null(strstr(out.out.buf, "case metric"),
		       "a header over no rows:\n%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "1 unchanged or new"), "%s", out.out.buf);
	test_output_release(&out);
}
