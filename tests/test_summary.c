#include "harness/util/alloc.h"
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "reporters/summary.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(summary);

/* A result of one case whose latency runs are `values`. */
static struct result *result_of(const char *commit, const double *values,
				size_t n)
{
	struct result *r = result_new();
	struct metric_samples *m;

	r->suite = xstrdup("s");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	m = result_case_metric(result_add_case(r, "b", "original", "cpu"),
			       "latency");
	m->unit = xstrdup("ms");
	for (size_t i = 0; i < n; i++)
		metric_samples_push(m, values[i]);
	return r;
}

/* What summary_print_comparison() prints for base against cand. */
static char *summary_of(const double *base, const double *cand, size_t n)
{
	struct result *b = result_of("a", base, n),
		      *c = result_of("b", cand, n);
	struct compare_options opts;
	struct comparison *comparison = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	compare_options_init(&opts);
	cr_assert_eq(compare_results(&comparison, b, c, &opts), BG_OK);
	summary_print_comparison(out, comparison, false, true);
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
