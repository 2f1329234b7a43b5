/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One text per quantity: the terminal and every report print a speed-up,
 * a size ratio and an accuracy difference the same way, with where a
 * variant was in the baseline beside where it is.
 */
#include "reporters/report.h"
#include "reporters/summary.h"

#include "harness/gate/compare.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/format.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(report_texts);

/* A latency of `ms` on every run, an exact accuracy and model size. */
static void add_variant(struct result *r, const char *variant, double ms,
			double accuracy, double bytes)
{
	struct result_case *c = result_add_case(r, "infer", variant, "cpu");
	struct metric_samples *m = result_case_metric(c, "latency");

	m->unit = xstrdup("ms");
	for (int i = 0; i < 8; i++)
		metric_samples_push(m, ms * (1 + 0.001 * (i % 3)));
	m->runs = 8;
	m = result_case_metric(c, "accuracy");
	m->exact = true;
	m->tolerance = 0.002;
	m->better = BETTER_HIGHER;
	metric_samples_push(m, accuracy);
	m = result_case_metric(c, "model_size");
	m->unit = xstrdup("B");
	m->exact = true;
	metric_samples_push(m, bytes);
}

static struct result *make(const char *commit, double distilled_ms,
			   double distilled_accuracy)
{
	struct result *r = result_new();

	r->suite = xstrdup("mlp");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	add_variant(r, "original", 15.3, 0.95, 400000);
	add_variant(r, "distilled", distilled_ms, distilled_accuracy, 35000);
	return r;
}

/* The story: a distilled model that fell from 15.3x to 3.95x
 * faster than the original, its accuracy from -0.20 to -0.22 points. */
static struct comparison *distilled_story(void)
{
	struct result *base = make("a", 1.0, 0.948);
	struct result *cand = make("b", 15.3 / 3.95, 0.9478);
	struct compare_options opts;
	struct comparison *c = NULL;

	compare_options_init(&opts);
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	result_free(base);
	result_free(cand);
	return c;
}

static char *terminal_text(const struct comparison *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct report_model model = { .comparison = c };

	report_model_build(&model);
	summary_print_comparison(out, &model, false, true);
	report_model_release(&model);
	fclose(out);
	return text;
}

static void render(void (*reporter)(const struct report_model *,
				    struct strbuf *),
		   const struct comparison *c, struct strbuf *out)
{
	struct report_model model = { .comparison = c };

	report_model_build(&model);
	reporter(&model, out);
	report_model_release(&model);
}

/* Whether needle occurs in text other than as an attribute's value. */
static bool shown(const char *text, const char *needle)
{
	for (const char *at = strstr(text, needle); at;
	     at = strstr(at + 1, needle))
		if (at == text || at[-1] != '"')
			return true;
	return false;
}

Test(report_texts, the_variant_story_reads_the_same_everywhere)
{
	struct comparison *c = distilled_story();
	struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;
	char *terminal = terminal_text(c);
	const char *texts[] = { terminal, NULL, NULL };
	/* where it was -> where it is: speed-up, size, accuracy */
	static const char *const expected[] = {
		"15.3\u00d7 \u2192 3.95\u00d7",
		"0.0875\u00d7 \u2192 0.0875\u00d7",
		"-0.20 pts \u2192 -0.22 pts",
		/* the distilled accuracy's own change, in points too */
		"-0.02 pts",
	};

	cr_assert_eq(c->variants_nr, 1);
	cr_assert_float_eq(c->variants[0].baseline_speedup, 15.3, 0.05);
	render(report_markdown, c, &md);
	render(report_html, c, &html);
	texts[1] = md.buf;
	texts[2] = html.buf;
	for (size_t t = 0; t < 3; t++) {
		for (size_t e = 0; e < sizeof(expected) / sizeof(*expected);
		     e++)
			cr_assert(strstr(texts[t], expected[e]),
				  "no \"%s\" in report %zu:\n%s", expected[e],
				  t, texts[t]);
		/* no raw difference of fractions shown anywhere (an HTML
		 * sort key, an attribute value, is no text) */
		cr_assert_not(shown(texts[t], "-0.0002"), "%s", texts[t]);
	}
	free(terminal);
	strbuf_release(&md);
	strbuf_release(&html);
	comparison_free(c);
}

Test(report_texts, without_a_baseline_the_candidate_stands_alone)
{
	struct result *cand = make("b", 15.3 / 3.95, 0.9478);
	struct compare_options opts;
	struct comparison *c = NULL;
	struct report_model model = { 0 };

	compare_options_init(&opts);
	cr_assert_eq(compare_results(&c, NULL, cand, &opts), BG_OK);
	cr_assert(isnan(c->variants[0].baseline_speedup));
	model.comparison = c;
	report_model_build(&model);
	cr_assert_str_eq(model.variants[0].speedup_move, "3.95\u00d7");
	cr_assert_str_eq(model.variants[0].accuracy, "-0.22 pts");
	report_model_release(&model);
	comparison_free(c);
	result_free(cand);
}

Test(report_texts, one_formatter_per_quantity)
{
	struct strbuf out = STRBUF_INIT;

	format_ratio(&out, 15.3);
	strbuf_addch(&out, ' ');
	format_ratio(&out, 10.04);
	strbuf_addch(&out, ' ');
	format_ratio(&out, 0.0879);
	strbuf_addch(&out, ' ');
	format_ratio(&out, INFINITY);
	strbuf_addch(&out, ' ');
	format_points(&out, -0.000244);
	strbuf_addch(&out, ' ');
	format_points(&out, NAN);
	strbuf_addch(&out, ' ');
	format_move(&out, format_ratio, NAN, 3.95);
	cr_assert_str_eq(out.buf, "15.3\u00d7 10.0\u00d7 0.0879\u00d7 - "
				  "-0.02 pts - 3.95\u00d7");
	strbuf_release(&out);
}
