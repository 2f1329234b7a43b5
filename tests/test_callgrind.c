/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The callgrind source: reading totals from callgrind's output, summing a
 * run's files, and the suite syntax. The format is callgrind's "Callgrind
 * Format Specification" (valgrind 3.19 docs, section 3.2): a header with
 * "events:", and "summary:" / "totals:" lines with one count per event.
 * The fixture below is the header and trailer of a real callgrind.out
 * (valgrind 3.19, `sh -c 'i=0; ...'`), its cost lines cut.
 */
#include "harness/run/callgrind.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(callgrind);

static const char real_output[] =
	"# callgrind format\n"
	"version: 1\n"
	"creator: callgrind-3.19.0\n"
	"pid: 31580\n"
	"cmd:  sh -c i=0; while [ $i -lt 1000 ]; do i=$((i+1)); done\n"
	"part: 1\n"
	"\n"
	"desc: I1 cache: \n"
	"positions: line\n"
	"events: Ir\n"
	"summary: 11522395\n"
	"\n"
	"ob=(1) /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
	"fl=(1) ???\n"
	"fn=(1) 0x000000000001d100\n"
	"0 3\n"
	"\n"
	"totals: 11522395\n";

static struct suite *parse(const char *metric)
{
	struct strbuf text = STRBUF_INIT;
	struct suite *suite = NULL;

	strbuf_addf(&text,
		    "{\"benchgate\": 1, \"suite\": \"s\", "
		    "\"benchmarks\": [{\"name\": \"b\", \"command\": "
		    "[\"true\"], \"metrics\": [%s]}]}",
		    metric);
	suite_parse(&suite, "s.json", text.buf, text.len);
	strbuf_release(&text);
	return suite;
}

Test(callgrind, suite_metric_needs_no_field_and_counts_instructions)
{
	struct suite *suite = parse("{\"name\": \"instructions\", "
				    "\"from\": \"callgrind\"}");

	cr_assert_not_null(suite, "%s", bg_error_last());
	cr_assert_eq(suite->benchmarks[0].metrics[0].from, SOURCE_CALLGRIND);
	cr_assert_str_eq(suite->benchmarks[0].metrics[0].unit, "instructions");
	cr_assert(callgrind_wanted(&suite->benchmarks[0]));
	suite_free(suite);

	cr_assert_null(parse("{\"name\": \"i\", \"from\": \"callgrind\", "
			     "\"field\": \"Ir\"}"));
	cr_assert(strstr(bg_error_last(), "'field' does not apply to source "
					  "'callgrind'"),
		  "%s", bg_error_last());
	suite = parse("{\"name\": \"w\", \"from\": \"wall\"}");
	cr_assert(!callgrind_wanted(&suite->benchmarks[0]));
	suite_free(suite);
}

static struct suite *two_metrics(void)
{
	struct suite *suite = parse(
		"{\"name\": \"ir\", \"from\": \"callgrind\", \"exact\": true, "
		"\"tolerance\": 10}, {\"name\": \"w\", \"from\": \"wall\"}");

	cr_assert_not_null(suite, "%s", bg_error_last());
	return suite;
}

/* The total callgrind_finish() reads from one output file holding text,
 * named "<stem>.1". */
static int total_of(const char *text, const char *stem, uint64_t *ir)
{
	struct suite *suite = two_metrics();
	struct result *result = result_new();
	struct result_case *rcase = result_add_case(result, "b", "v", "cpu");
	struct callgrind_run run;
	struct strbuf name = STRBUF_INIT;
	char *dir = test_tmpdir();
	int error;

	strbuf_addf(&name, "%s.1", stem);
	free(test_write_file(dir, name.buf, text));
	callgrind_prepare(&run, dir, stem);
	error = callgrind_finish(&run, &suite->benchmarks[0], rcase, false,
				 NULL);
	if (!error)
		*ir = (uint64_t)result_case_find_metric(rcase, "ir")->samples[0];
	callgrind_run_release(&run);
	test_rmtree(dir);
	free(dir);
	strbuf_release(&name);
	result_free(result);
	suite_free(suite);
	return error;
}

Test(callgrind, total_of_a_real_output_file)
{
	uint64_t ir = 0;

	cr_assert_eq(total_of(real_output, "cg.out", &ir), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(ir, 11522395);
}

Test(callgrind, total_is_read_at_the_position_of_ir)
{
	static const char several[] =
		"events: Dr Ir Dw\nsummary: 1 2 3\ntotals: 10 20 30\n";
	static const char summary_only[] = "events: Ir\nsummary: 77\n";
	uint64_t ir = 0;

	cr_assert_eq(total_of(several, "x", &ir), BG_OK);
	cr_assert_eq(ir, 20, "totals win over summary, at Ir's place");
	cr_assert_eq(total_of(summary_only, "x", &ir), BG_OK);
	cr_assert_eq(ir, 77);
}

Test(callgrind, output_without_a_total_is_an_input_error)
{
	static const char no_ir[] = "events: Dr\ntotals: 5\n";
	uint64_t ir = 0;

	cr_assert_eq(total_of("", "empty.out", &ir), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "empty.out.1: no instruction total"),
		  "%s", bg_error_last());
	cr_assert_eq(total_of(no_ir, "x", &ir), BG_EINPUT);
}

Test(callgrind, finish_sums_every_process_and_removes_what_it_need_not_keep)
{
	struct suite *suite = two_metrics();
	struct result *result = result_new();
	struct result_case *rcase = result_add_case(result, "b", "v", "cpu");
	struct callgrind_run run;
	const struct metric_samples *metric;
	char *dir = test_tmpdir();
	char *one =
		test_write_file(dir, "cg-1.100", "events: Ir\ntotals: 40\n");
	char *two = test_write_file(dir, "cg-1.101", "events: Ir\ntotals: 2\n");
	char *other = test_write_file(dir, "cg-10.5", "not ours");

	callgrind_prepare(&run, dir, "cg-1");
	cr_assert_str_eq(run.prefix[0], "valgrind");
	cr_assert(strstr(run.out_option, "/cg-1.%p"));
	cr_assert_eq(callgrind_finish(&run, &suite->benchmarks[0], rcase, false,
				      NULL),
		     BG_OK, "%s", bg_error_last());
	metric = result_case_find_metric(rcase, "ir");
	cr_assert_not_null(metric);
	cr_assert_eq(metric->nr, 1);
	cr_assert_eq(metric->samples[0], 42);
	cr_assert_str_eq(metric->unit, "instructions");
	cr_assert(metric->exact && metric->tolerance == 10);
	cr_assert_null(result_case_find_metric(rcase, "w"));
	cr_assert_eq(access(one, F_OK), -1);
	cr_assert_eq(access(two, F_OK), -1);
	cr_assert_eq(access(other, F_OK), 0, "another run's file stays");
	cr_assert_eq(rcase->artifacts_nr, 0);
	callgrind_run_release(&run);

	callgrind_prepare(&run, dir, "cg-2");
	cr_assert_eq(callgrind_finish(&run, &suite->benchmarks[0], rcase, false,
				      NULL),
		     BG_ERROR);
	cr_assert(strstr(bg_error_last(), "callgrind wrote no output"));
	callgrind_run_release(&run);

	test_rmtree(dir);
	free(dir);
	free(one);
	free(two);
	free(other);
	result_free(result);
	suite_free(suite);
}

Test(callgrind, finish_keeps_one_output_under_a_plain_name)
{
	struct suite *suite = two_metrics();
	struct result *result = result_new();
	struct result_case *rcase = result_add_case(result, "b", "v", "cpu");
	struct callgrind_run run;
	struct strbuf kept = STRBUF_INIT;
	char *dir = test_tmpdir();
	char *out = test_write_file(dir, "case/callgrind.out.77", real_output);

	strbuf_addf(&kept, "%s/case", dir);
	callgrind_prepare(&run, kept.buf, "callgrind.out");
	cr_assert_eq(callgrind_finish(&run, &suite->benchmarks[0], rcase, true,
				      dir),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(rcase->artifacts_nr, 1);
	cr_assert_str_eq(rcase->artifacts[0].kind, "callgrind");
	cr_assert_str_eq(rcase->artifacts[0].path, "case/callgrind.out");
	strbuf_addstr(&kept, "/callgrind.out");
	cr_assert_eq(access(kept.buf, F_OK), 0);
	cr_assert_eq(result_case_find_metric(rcase, "ir")->samples[0],
		     11522395);
	callgrind_run_release(&run);

	test_rmtree(dir);
	free(dir);
	free(out);
	strbuf_release(&kept);
	result_free(result);
	suite_free(suite);
}
