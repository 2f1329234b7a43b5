/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end, issue 21: a benchmark's gate settings ("threshold": "50%")
 * travel in the result, so `check --baseline a.json`, `compare a.json
 * b.json` and `report` of that comparison give one verdict for the same
 * data; a command-line option stays an override; two results written
 * before the settings were recorded are judged at the defaults, and
 * compare says so (docs/gate-settings.md).
 */
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/model/result.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, cwd, ...)                                 \
	test_benchgate((out), (cwd), env,                  \
		       (const char *const[]){ __VA_ARGS__, NULL })

static const char *const env[] = { "BENCHGATE_DEVICES=cpu",
				   "BENCHGATE_MACHINE_ID=gate-box", NULL };

TestSuite(gate_settings, .init = test_dir_setup, .fini = test_dir_teardown);

/* Prints latency=LEVEL x (1 +- 0.2 %), LEVEL from the file `level`: the
 * runs' values are recorded, never timed, so the verdicts cannot depend
 * on how busy the machine is. */
static const char script[] =
	"n=$(cat count 2>/dev/null || echo 0)\n"
	"echo $((n + 1)) > count\n"
	"awk -v n=\"$n\" -v l=\"$(cat level)\" "
	"'BEGIN { printf \"latency=%.5f\\n\", l * (1 + 0.001 * (n % 5 - 2)) }'"
	"\n";

static const char suite[] =
	"{\"benchgate\": 1, \"suite\": \"settings\","
	" \"defaults\": {\"runs\": 10, \"warmup\": 0},"
	" \"benchmarks\": [{\"name\": \"b\", \"threshold\": \"50%\","
	"  \"command\": [\"/bin/sh\", \"level.sh\"],"
	"  \"metrics\": [{\"name\": \"latency\", \"from\": \"stdout\","
	"   \"regex\": \"latency=([0-9.]+)\", \"unit\": \"ms\"}]}]}";

static void set_level(const char *level)
{
	free(test_write_file(test_dir, "level", level));
}

/* a.json at 1.00 ms, b.json at 1.20 ms: +20 %, beyond the 3 % default,
 * within the suite's 50 %. */
static void measure_both(void)
{
	struct test_output out;

	free(test_write_file(test_dir, "level.sh", script));
	free(test_write_file(test_dir, "s.json", suite));
	set_level("1.00");
	RUN(&out, test_dir, "run", "s.json", "--store", "store", "--json",
	    "a.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	set_level("1.20");
	RUN(&out, test_dir, "run", "s.json", "--store", "store", "--json",
	    "b.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

/* The file's text without its blanks, so that '"verdict":"pass"' reads
 * however the document is indented. */
static char *read_in_dir(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text;
	size_t kept = 0;

	strbuf_addf(&path, "%s/%s", test_dir, name);
	text = test_read_file(path.buf);
	cr_assert(text, "%s was not written", path.buf);
	for (size_t i = 0; text[i]; i++)
		if (!strchr(" \t\n", text[i]))
			text[kept++] = text[i];
	text[kept] = '\0';
	strbuf_release(&path);
	return text;
}

Test(gate_settings, check_compare_and_report_judge_alike)
{
	struct test_output out;
	char *text;

	measure_both();
	RUN(&out, test_dir, "check", "s.json", "--store", "store",
	    "--baseline", "a.json", "--json", "check.json");
	cr_assert_eq(out.exit_code, 0, "check: %s%s", out.out.buf,
		     out.err.buf);
	test_output_release(&out);

	RUN(&out, test_dir, "compare", "a.json", "b.json", "--json",
	    "compare.json");
	cr_assert_eq(out.exit_code, 0, "compare judged otherwise: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "PASS"), "%s", out.out.buf);
	cr_assert_null(strstr(out.err.buf, "record"),
		       "both results record their settings: %s", out.err.buf);
	test_output_release(&out);

	RUN(&out, test_dir, "report", "compare.json", "--out", "out",
	    "--format", "junit,json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	text = read_in_dir("out/comparison.json");
	cr_assert(strstr(text, "\"verdict\":\"pass\""), "%s", text);
	cr_assert(strstr(text, "\"threshold\":0.5"), "%s", text);
	free(text);
	text = read_in_dir("out/junit.xml");
	cr_assert_null(strstr(text, "<failure"), "%s", text);
	free(text);
	text = read_in_dir("check.json");
	cr_assert(strstr(text, "\"verdict\":\"pass\""), "%s", text);
	free(text);

	/* the command line still overrides */
	RUN(&out, test_dir, "compare", "a.json", "b.json", "--threshold",
	    "3%");
	cr_assert_eq(out.exit_code, 1, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

/* Drops the settings from a result file, as benchgate wrote it before it
 * recorded them. */
static void forget_settings(const char *name)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct result *result = NULL;

	strbuf_addf(&path, "%s/%s", test_dir, name);
	cr_assert_eq(result_load(&result, path.buf), BG_OK, "%s",
		     bg_error_last());
	result->confidence = NAN;
	for (size_t i = 0; i < result->cases_nr; i++)
		result->cases[i].threshold = result->cases[i].confidence = NAN;
	result_to_json(result, &text);
	cr_assert_null(strstr(text.buf, "\"threshold\""), "%s", text.buf);
	cr_assert_eq(write_file_atomic(path.buf, text.buf, text.len), BG_OK);
	result_free(result);
	strbuf_release(&text);
	strbuf_release(&path);
}

Test(gate_settings, results_without_settings_are_judged_at_the_defaults)
{
	struct test_output out;

	measure_both();
	forget_settings("a.json");
	/* the candidate's settings decide */
	RUN(&out, test_dir, "compare", "a.json", "b.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	/* a candidate without them is judged by its baseline's */
	RUN(&out, test_dir, "compare", "b.json", "a.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);

	forget_settings("b.json");
	RUN(&out, test_dir, "compare", "a.json", "b.json");
	cr_assert_eq(out.exit_code, 1, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "neither result records its suite's "
				      "gate settings"),
		  "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, test_dir, "compare", "a.json", "b.json", "--threshold",
	    "50%", "--confidence", "0.99");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_null(strstr(out.err.buf, "records"), "%s", out.err.buf);
	test_output_release(&out);
}
