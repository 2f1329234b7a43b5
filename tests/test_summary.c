/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/alloc.h"
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "reporters/summary.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(summary);

/* summary_print_comparison() of c's report model, as a command prints
 * it: every item. */
static void print_comparison(FILE *out, const struct comparison *c)
{
	struct report_model model = { .comparison = c };

	report_model_build(&model);
	summary_print_comparison(out, &model, false, true);
	report_model_release(&model);
}

/* What summary_print_comparison() prints for base against cand. */
static char *summary_of(const double *base, const double *cand, size_t n)
{
	struct result *b = test_latency_result("a", base, n),
		      *c = test_latency_result("b", cand, n);
	struct compare_options opts;
	struct comparison *comparison = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	compare_options_init(&opts);
	cr_assert_eq(compare_results(&comparison, b, c, &opts), BG_OK);
	print_comparison(out, comparison);
	fclose(out);
	comparison_free(comparison);
	result_free(b);
	result_free(c);
	return text;
}

Test(summary, regressions_come_first_and_inconclusive_gets_a_hint)
{
	double base[] = { 10.0, 12.5, 9.0, 11.0, 8.5, 10.5, 12.0, 9.5 };
	double cand[] = { 10.8, 13.6, 9.7, 11.9, 9.2, 11.3, 13.0, 10.3 };
	char *text = summary_of(base, cand, 8);

	/* 8 % slower, noise of 14 %: too few runs to tell. */
	cr_assert(strstr(text, "inconclusive"), "%s", text);
	cr_assert(strstr(text, "need more runs to decide"), "%s", text);
	cr_assert_null(strstr(text, "drift"), "%s", text);
	free(text);
}

Test(summary, the_hint_says_how_few_values_drifting_runs_were_worth)
{
	double base[10], cand[10];
	char *text;

	/* A steady climb on both sides: every run like the one before. */
	for (int i = 0; i < 10; i++) {
		base[i] = 10 + 0.4 * i + (i % 3 == 1 ? 0.1 : 0);
		cand[i] = 1.06 * (10 + 0.4 * (9 - i) + (i % 3 == 2 ? 0.1 : 0));
	}
	text = summary_of(base, cand, 10);

	cr_assert(strstr(text, "inconclusive"), "%s", text);
	cr_assert(strstr(text, "their runs drift from one to the next, so "
			       "they count as no more than"),
		  "%s", text);
	free(text);
}

/* What a failure reason may hold: a carriage return and a newline before
 * workflow commands (GitHub's runner reads both as line ends and runs a
 * line that starts with "::", src/Runner.Common/ActionCommand.cs), the
 * legacy "##[" form, an ESC sequence, U+202E RIGHT-TO-LEFT OVERRIDE. */
#define HOSTILE                                                        \
	"boom\r::add-mask::s ##[error]\x1b[2J\xe2\x80\xae\n::set-env " \
	"name=A::1"

Test(summary, a_result_shows_user_text_escaped_on_its_line)
{
	struct result *r = result_new();
	struct result_case *c;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	r->suite = xstrdup("::add-mask::suite\x1b]0;t\x07");
	snprintf(r->git.commit, sizeof(r->git.commit), "abc\x1b[2J");
	r->git.branch = xstrdup("main\n::error::x");
	snprintf(r->machine.id, sizeof(r->machine.id), "m\xe2\x81\xa6");
	c = result_add_case(r, "b", "v", "cpu");
	c->status = CASE_FAILED;
	c->reason = xstrdup(HOSTILE);
	summary_print_result(out, r, true);
	fclose(out);

	/* colours stay (color is on), the user's sequences do not; of a
	 * reason, the first line is shown, and the lines after it (the
	 * tail of stderr) below, indented so none reads as a command */
	cr_assert_str_eq(
		text,
		"\x1b[1m\\::add-mask::suite\\x1b]0;t\\x07\x1b[0m at "
		"abc\\x1b[2J (main\\x0a::error::x) on machine m\\xe2\\x81\\xa6\n"
		"  case                                 metric                 "
		"      median    spread     n\n"
		"  b/v/cpu                              \x1b[31mfailed\x1b[0m: "
		"boom\\x0d::add-mask::s ##\\[error]\\x1b[2J\\xe2\\x80\\xae\n"
		"      | ::set-env name=A::1\n");
	free(text);
	result_free(r);
}

Test(summary, a_comparison_shows_a_failure_note_escaped_on_its_line)
{
	struct metric_comparison item;
	struct comparison c;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	memset(&c, 0, sizeof(c));
	memset(&item, 0, sizeof(item));
	item.benchmark = (char *)"b";
	item.variant = (char *)"v";
	item.device = (char *)"cpu";
	item.metric = (char *)"t";
	item.verdict = VERDICT_FAILED;
	item.note = (char *)HOSTILE;
	c.items = &item;
	c.nr = 1;
	c.counts[VERDICT_FAILED] = 1;
	c.overall = OVERALL_FAILED;
	print_comparison(out, &c);
	fclose(out);

	cr_assert(strstr(text, "failed: boom\\x0d::add-mask::s ##\\[error]"
			       "\\x1b[2J\\xe2\\x80\\xae\n"),
		  "%s", text);
	cr_assert_null(strchr(text, '\x1b'), "%s", text);
	cr_assert_null(strchr(text, '\r'), "%s", text);
	cr_assert_null(strstr(text, "\n::"), "%s", text);
	free(text);
}
