/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTML report as a reader opens it: written with its charts by
 * report_write_all() from a baseline and a candidate whose variants moved,
 * then loaded in headless Chromium at 1280 px. The verdict, the variant
 * table with both sides and the charts must be in the DOM, nothing may
 * need a horizontal scroll of the page, and the inlined charts must stay
 * inert (no script, no request, no CSP complaint).
 */
#include "reporters/report.h"

#include "harness/gate/compare.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(html_layout, .timeout = 300);

/* The width the report must fit: a laptop's browser window. */
#define WINDOW_WIDTH 1280

static const char *const variants[] = { "original", "quantized", "pruned",
					"distilled" };

/* Latency (ms) of each variant in the baseline and the candidate: the
 * distilled model falls from 15.3x to 3.95x the original's speed. */
static const double base_ms[] = { 15.3, 9.8, 4.4, 1.0 };
static const double cand_ms[] = { 15.3, 9.8, 4.4, 15.3 / 3.95 };
static const double accuracy[] = { 0.951, 0.949, 0.941, 0.948 };

static void add_case(struct result *r, const char *benchmark,
		     const char *variant, double ms, double acc, bool wide)
{
	struct result_case *c = result_add_case(r, benchmark, variant, "cpu");
	struct metric_samples *m = result_case_metric(c, "latency");

	m->unit = xstrdup("ms");
	for (int i = 0; i < 10; i++)
		metric_samples_push(m, ms * (1 + 0.004 * (i % 5)));
	m->runs = 10;
	m = result_case_metric(c, "accuracy");
	m->exact = true;
	m->tolerance = 0.002;
	m->better = BETTER_HIGHER;
	metric_samples_push(m, acc);
	m = result_case_metric(c, "model_size");
	m->unit = xstrdup("B");
	m->exact = true;
	metric_samples_push(m, 400000 / ms);
	/* a metric with a long unit and name, to widen every table */
	m = result_case_metric(c, wide ? "throughput_of_the_whole_pipeline"
				       : "throughput");
	m->unit = xstrdup("samples/s");
	m->better = BETTER_HIGHER;
	for (int i = 0; i < 10; i++)
		metric_samples_push(m, 32000 / ms * (1 - 0.003 * (i % 4)));
	m->runs = 10;
}

static struct result *make(const char *commit, const double *ms,
			   const char *benchmark)
{
	struct result *r = result_new();

	r->suite = xstrdup("mlp-variants");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	for (size_t v = 0; v < 4; v++)
		add_case(r, benchmark, variants[v], ms[v], accuracy[v], true);
	/* a case that failed, with the tail of its stderr */
	result_case_fail(result_add_case(r, benchmark, "broken", "cpu"),
			 CASE_FAILED,
			 "exited with status 1 (warmup run 1/1)\nlast lines of "
			 "stderr:\nTraceback (most recent call last):\n"
			 "ModuleNotFoundError: No module named 'tmodel'");
	return r;
}

/* Writes the reports of the story into dir; returns report.html's path. */
static char *write_report(const char *dir, const char *benchmark)
{
	struct result *base = make("a11ce0b0a11ce0b0a11ce0b0a11ce0b0a11ce0b0",
				   base_ms, benchmark);
	struct result *cand = make("c0ffee1c0ffee1c0ffee1c0ffee1c0ffee1c0ffe",
				   cand_ms, benchmark);
	struct compare_options opts;
	struct comparison *c = NULL;
	struct report_model model = { 0 };
	struct strbuf path = STRBUF_INIT;

	compare_options_init(&opts);
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	model.comparison = c;
	model.baseline = base;
	model.candidate = cand;
	cr_assert_eq(report_write_all(&model, dir, REPORT_HTML | REPORT_CHARTS,
				      NULL),
		     BG_OK, "%s", bg_error_last());
	comparison_free(c);
	result_free(base);
	result_free(cand);
	strbuf_addf(&path, "%s/report.html", dir);
	return strbuf_detach(&path, NULL);
}

/* What the script writes, the width after it. */
#define MEASURED "<pre id=\"measure\">scrollWidth="

/* The page with a script that opens every <details> (the widest table is
 * in one) and writes the page's scroll width into the DOM. */
static char *measuring_page(const char *dir, const char *report)
{
	static const char script[] =
		"<script>document.querySelectorAll('details').forEach("
		"function (d) { d.open = true; });"
		"var p = document.createElement('pre'); p.id = 'measure';"
		"p.textContent = 'scrollWidth=' + "
		"document.documentElement.scrollWidth + ';';"
		"document.body.appendChild(p);</script>";
	char *html = test_read_file(report), *end, *path;
	struct strbuf page = STRBUF_INIT;

	cr_assert_not_null(html, "no %s", report);
	end = strstr(html, "</body>");
	cr_assert_not_null(end);
	strbuf_add(&page, html, (size_t)(end - html));
	strbuf_addstr(&page, script);
	strbuf_addstr(&page, end);
	path = test_write_file(dir, "measure.html", page.buf);
	strbuf_release(&page);
	free(html);
	return path;
}

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(haystack, needle); p;
	     p = strstr(p + 1, needle))
		n++;
	return n;
}

static void find(const char *haystack, const char *needle)
{
	cr_assert(strstr(haystack, needle), "no \"%s\" in:\n%.4000s", needle,
		  haystack);
}

Test(html_layout, fits_1280_px_with_the_verdict_variants_and_charts)
{
	char *dir = test_tmpdir(), *report, *page;
	struct strbuf dom = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf profile = STRBUF_INIT, size = STRBUF_INIT;
	const char *extra[] = { NULL, "--dump-dom", NULL };
	const char *measure;
	long width;

	report = write_report(dir, "infer-batch32");
	page = measuring_page(dir, report);
	strbuf_addf(&size, "--window-size=%d,1600", WINDOW_WIDTH);
	extra[0] = size.buf;
	strbuf_addf(&profile, "%s/profile", dir);
	test_browser_run(page, profile.buf, extra, &dom, &err);

	find(dom.buf, "<strong id=\"verdict\">");
	/* the variant table, both sides of each variant */
	find(dom.buf, "<table class=\"sortable\" id=\"variants\"");
	find(dom.buf, "<strong>15.3\u00d7 \u2192 3.95\u00d7</strong>");
	/* the charts, inline: the variants, the tradeoff with its moves,
	 * and those of the changes */
	find(dom.buf, "<figure data-kind=\"variants\"><svg class=\"chart\"");
	find(dom.buf, "<figure data-kind=\"tradeoff\"><svg class=\"chart\"");
	find(dom.buf, "<figure data-kind=\"distribution\">");
	cr_assert_eq(count(dom.buf, "<svg class=\"chart\""),
		     count(dom.buf, "<figure "));
	/* the failure, once, with its tail */
	find(dom.buf, "No module named 'tmodel'");

	measure = strstr(dom.buf, MEASURED);
	cr_assert_not_null(measure, "the measuring script did not run:\n%s",
			   err.buf);
	width = strtol(measure + strlen(MEASURED), NULL, 10);
	cr_assert_gt(width, 0);
	cr_assert_leq(width, WINDOW_WIDTH,
		      "the page is %ld px wide: it scrolls sideways in a "
		      "%d px window",
		      width, WINDOW_WIDTH);

	strbuf_release(&dom);
	strbuf_release(&err);
	strbuf_release(&profile);
	strbuf_release(&size);
	test_rmtree(dir);
	free(report);
	free(page);
	free(dir);
}

/* Charts come from gnuplot, which draws what names say: inlined, they
 * must still run nothing and load nothing. */
Test(html_layout, inlined_charts_of_hostile_names_stay_inert)
{
	static const char hostile[] =
		"<script>alert(1)</script>\"'><img src=x onerror=alert(1)>"
		"]]>&amp;\xff";
	char *dir = test_tmpdir(), *report, *html;
	struct strbuf dom = STRBUF_INIT, problems = STRBUF_INIT;

	report = write_report(dir, hostile);
	html = test_read_file(report);
	cr_assert_eq(count(html, "<script"), 1, "one script, the sorter");
	cr_assert_null(strstr(html, "<img"));
	cr_assert_gt(count(html, "<svg class=\"chart\""), 1);
	test_browser_load(dir, report, &dom, &problems);
	cr_assert_eq(problems.len, 0, "the page misbehaved:\n%s", problems.buf);
	find(dom.buf, "<figure data-kind=\"tradeoff\">");
	cr_assert_null(strstr(dom.buf, "<img"));
	free(html);
	strbuf_release(&dom);
	strbuf_release(&problems);
	test_rmtree(dir);
	free(report);
	free(dir);
}
