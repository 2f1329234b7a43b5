/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: documents from elsewhere (results given to `compare` and
 * `merge`, comparisons given to `report`) are checked as the suite loader
 * checks a suite. A hostile one is refused with its position and exit 2,
 * and nothing of it reaches the terminal raw: no line of benchgate's
 * output starts with a workflow command a CI runner would execute, and no
 * ESC sequence gets through.
 *
 * The tests run the sanitizer build (ci/test): a leak on the way to the
 * refusal makes LeakSanitizer end benchgate with its own status, 23, not
 * 2, so the refusals below also check that nothing read before the error
 * is lost.
 */
#include "harness/model/result.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN(out, ...)                    \
	test_benchgate((out), dir, NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

static char *dir;

/* A result of one case whose benchmark, unit and run count are the
 * test's; the case is on line 3. */
static void write_result(const char *name, const char *benchmark,
			 const char *unit, const char *runs)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text,
		    "{\"benchgate_result\": 1, \"suite\": \"s\", \"git\": "
		    "{\"commit\": \"unknown\"},\n"
		    " \"machine\": {\"id\": \"box\"}, \"cases\": [\n"
		    "{\"benchmark\": \"%s\", \"variant\": \"v\", \"device\": "
		    "\"cpu\", \"status\": \"ok\", \"runs\": %s, \"metrics\": "
		    "{\"t\": {\"unit\": \"%s\", \"better\": \"higher\", "
		    "\"samples\": [1, 2, 3]}}}]}\n",
		    benchmark, runs, unit);
	free(test_write_file(dir, name, text.buf));
	strbuf_release(&text);
}

static void setup(void)
{
	dir = test_tmpdir();
	write_result("base.json", "b", "ms", "3");
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(untrusted, .init = setup, .fini = teardown, .timeout = 60);

/* Nothing a runner would act on: no line starting with "::" and no ESC. */
static void assert_inert(const struct strbuf *text)
{
	cr_assert_neq(strncmp(text->buf, "::", 2), 0, "%s", text->buf);
	cr_assert_null(strstr(text->buf, "\n::"), "%s", text->buf);
	cr_assert_null(strchr(text->buf, '\x1b'), "%s", text->buf);
}

static void assert_refused(struct test_output *out, const char *message)
{
	cr_assert_eq(out->exit_code, 2, "exit %d: %s%s", out->exit_code,
		     out->out.buf, out->err.buf);
	cr_assert(strstr(out->err.buf, message), "'%s' lacks '%s'",
		  out->err.buf, message);
	assert_inert(&out->out);
	assert_inert(&out->err);
}

/* Writes cand.json with write_result() and asserts that both `compare`
 * and `merge` refuse it with message. */
static void assert_candidate_refused(const char *benchmark, const char *unit,
				     const char *runs, const char *message)
{
	struct test_output out;

	write_result("cand.json", benchmark, unit, runs);
	RUN(&out, "compare", "base.json", "cand.json");
	assert_refused(&out, message);
	test_output_release(&out);
	RUN(&out, "merge", "cand.json", "--out", "merged.json");
	assert_refused(&out, message);
	test_output_release(&out);
}

Test(untrusted, a_benchmark_name_that_injects_a_line_is_refused)
{
	/* line 3 `{"benchmark": "a\n::set-env...`: the value is column 15 */
	assert_candidate_refused(
		"a\\n::set-env name=PATH::/tmp", "ms", "3",
		"cand.json:3:15: cases[0].benchmark: expected "
		"a name of letters, digits, '-', '_', '.' and "
		"'+', found 'a\\x0a::set-env name=PATH::/tmp'");
}

Test(untrusted, escape_sequences_in_names_and_units_are_refused)
{
	assert_candidate_refused("\\u001b]0;pwned\\u0007", "ms", "3",
				 "cand.json:3:15: cases[0].benchmark: expected "
				 "a name");
	assert_candidate_refused("b", "\\u001b[2J", "3",
				 "cases[0].metrics.t.unit: expected printable "
				 "text");
}

Test(untrusted, a_negative_run_count_is_refused)
{
	/* `..."status": "ok", "runs": -1`: column 77 of line 3 */
	assert_candidate_refused("b", "ms", "-1",
				 "cand.json:3:77: cases[0].runs: expected a "
				 "whole number from 0 to 2147483647");
}

Test(untrusted, report_refuses_a_comparison_without_a_sample_count)
{
	struct test_output out;

	/* line 2 `{"verdict": "new", ..., "candidate": {"n": null}}`: the
	 * null (how cJSON writes NaN) is column 119 */
	free(test_write_file(dir, "c.json",
			     "{\"benchgate_comparison\": 1, \"comparisons\": [\n"
			     "{\"verdict\": \"new\", \"suite\": \"s\", "
			     "\"benchmark\": \"b\", \"variant\": \"v\", "
			     "\"device\": \"cpu\", \"metric\": \"t\", "
			     "\"candidate\": {\"n\": null}}]}\n"));
	RUN(&out, "report", "c.json", "--out", "out");
	assert_refused(&out, "c.json:2:119: comparisons[0].candidate.n: "
			     "expected a whole number from 0 to 2147483647");
	test_output_release(&out);
}

/* A metric key written twice pooled both sample lists into one metric and
 * leaked the first unit. */
Test(untrusted, compare_refuses_a_metric_written_twice)
{
	struct test_output out;

	/* line 3 of the result: the second "t" is column 66 */
	free(test_write_file(
		dir, "cand.json",
		"{\"benchgate_result\": 1, \"suite\": \"s\", \"git\": "
		"{\"commit\": \"unknown\"},\n"
		" \"machine\": {\"id\": \"box\"}, \"cases\": [{\"benchmark\": "
		"\"b\", \"variant\": \"v\", \"device\": \"cpu\",\n"
		"\"status\": \"ok\", \"metrics\": {\"t\": {\"unit\": \"ms\", "
		"\"samples\": [1]}, \"t\": {\"unit\": \"s\", \"samples\": "
		"[2]}}}]}\n"));
	RUN(&out, "compare", "base.json", "cand.json");
	assert_refused(&out, "cand.json:3:66: cases[0].metrics.t: duplicate "
			     "key 't'");
	test_output_release(&out);
}

/* The comparison reader once returned early here with `better` read and
 * never freed. */
Test(untrusted, report_refuses_an_item_without_its_names)
{
	struct test_output out;

	/* line 2 `{"verdict": "new", "better": "higher"}`: the item's '{' */
	free(test_write_file(
		dir, "c.json",
		"{\"benchgate_comparison\": 1, \"comparisons\": [\n"
		"{\"verdict\": \"new\", \"better\": \"higher\"}]}\n"));
	RUN(&out, "report", "c.json", "--out", "out");
	assert_refused(&out, "c.json:2:1: comparisons[0]: missing required "
			     "key 'suite'");
	test_output_release(&out);
}

/* What enters a result is held to the reader's rules where it enters: a
 * unit with an ESC or starting with "::" in the metrics file fails its
 * case with the line named; `run` never says "stored" of a result that
 * `compare` would then refuse, and the raw ESC reaches no output. */
Test(untrusted, a_unit_from_the_metrics_file_is_checked_where_it_enters)
{
	const char *const units[] = { "\\\\033[31mms", "::add-mask::x" };
	struct test_output out;
	char store[4096], *suite;
	struct strbuf text = STRBUF_INIT;

	for (size_t i = 0; i < 2; i++) {
		snprintf(store, sizeof(store), "%s/store%zu", dir, i);
		strbuf_reset(&text);
		strbuf_addf(&text,
			    "{\"benchgate\": 1, \"suite\": \"u\","
			    " \"defaults\": {\"runs\": 1, \"warmup\": 0},"
			    " \"benchmarks\": [{\"name\": \"b\", \"command\": "
			    "[\"sh\", \"-c\", \"printf 'latency 1.5 %s\\\\n' > "
			    "\\\"$BENCHGATE_METRICS_FILE\\\"\"], \"metrics\": "
			    "[{\"name\": \"latency\", \"from\": \"metrics\"}]}]}",
			    units[i]);
		suite = test_write_file(dir, "u.json", text.buf);
		RUN(&out, "run", "u.json", "--store", store);
		cr_assert_neq(out.exit_code, 0, "unit %zu accepted: %s%s", i,
			      out.out.buf, out.err.buf);
		cr_assert(strstr(out.err.buf, "line 1") ||
				  strstr(out.out.buf, "line 1"),
			  "%s%s", out.out.buf, out.err.buf);
		assert_inert(&out.out);
		assert_inert(&out.err);
		test_output_release(&out);
		free(suite);
		/* whatever was stored reads back */
		if (access(store, F_OK) == 0)
			result_free(test_only_result(store));
	}
	strbuf_release(&text);
}

/* `merge` never writes what it cannot read back: a load that is not a
 * finite number (1e999 reads as infinity, and JSON has no way to write
 * one) is refused where it is read. */
Test(untrusted, merge_refuses_a_load_that_is_not_finite)
{
	const char *const loads[] = {
		"{\"loadavg\": [1e999, 0, 0]}",
		"{\"cpu_busy\": -1e999}",
		"{\"busy\": [{\"pid\": 1, \"command\": \"x\", \"cpu\": 1e999}]}",
	};
	struct test_output out;
	struct strbuf text = STRBUF_INIT;

	for (size_t i = 0; i < 3; i++) {
		strbuf_reset(&text);
		strbuf_addf(&text,
			    "{\"benchgate_result\": 1, \"suite\": \"s\", "
			    "\"git\": {\"commit\": \"unknown\"},\n"
			    " \"machine\": {\"id\": \"box\"}, "
			    "\"load_at_start\": %s, \"cases\": [\n"
			    "{\"benchmark\": \"b\", \"variant\": \"v\", "
			    "\"device\": \"cpu\", \"status\": \"ok\", "
			    "\"runs\": 3, \"metrics\": {\"t\": {\"unit\": "
			    "\"ms\", \"better\": \"higher\", \"samples\": "
			    "[1, 2, 3]}}}]}\n",
			    loads[i]);
		free(test_write_file(dir, "load.json", text.buf));
		RUN(&out, "merge", "load.json", "--out", "merged.json");
		assert_refused(&out, "finite");
		test_output_release(&out);
	}
	strbuf_release(&text);
}
