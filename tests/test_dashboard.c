/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/dashboard.h"

#include "harness/gate/history.h"
#include "harness/util/alloc.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The pages of the dashboard from a history made by hand: which files,
 * what each shows, that every user string is escaped, and that the same
 * history gives the same bytes (publish.c relies on it to keep pages).
 */

TestSuite(dashboard);

#define HOSTILE "<script>alert(1)</script>\"'&]]>\xff"

/* A history of 30 commits ("c0".."c29", ids 0000..., 1111..., cycling
 * hex digits) with one series per name in `metrics`, each a step of
 * `step` (relative) at commit 20, measured at every commit. */
static void make_history(struct history *h, const char *suite,
			 const char *const *metrics, double step)
{
	memset(h, 0, sizeof(*h));
	h->branch = xstrdup("main");
	h->commits_nr = h->commits_alloc = 30;
	h->commits = xcalloc(30, sizeof(*h->commits));
	for (size_t i = 0; i < 30; i++) {
		char subject[64];

		memset(h->commits[i].commit, "0123456789abcdef"[i % 16], 40);
		h->commits[i].commit[0] = "0123456789abcdef"[i / 16];
		if (i == 20)
			snprintf(subject, sizeof(subject), "fix %s", HOSTILE);
		else
			snprintf(subject, sizeof(subject), "c%zu", i);
		h->commits[i].subject = xstrdup(subject);
		h->commits[i].commit_time =
			xstrdup("2026-01-01T00:00:00+00:00");
	}
	for (size_t k = 0; metrics[k]; k++) {
		struct history_series *s;

		ALLOC_GROW(h->series, h->series_nr + 1, h->series_alloc);
		s = &h->series[h->series_nr++];
		memset(s, 0, sizeof(*s));
		s->suite = xstrdup(suite);
		s->benchmark = xstrdup("bench");
		s->variant = xstrdup("original");
		s->device = xstrdup("cpu");
		s->machine = xstrdup("box");
		s->metric = xstrdup(metrics[k]);
		s->unit = xstrdup("ms");
		s->better = BETTER_LOWER;
		s->points_nr = s->points_alloc = 30;
		s->points = xcalloc(30, sizeof(*s->points));
		for (size_t i = 0; i < 30; i++) {
			double level = 10 * (i >= 20 ? 1 + step : 1) *
				       (1 + 0.003 * (double)((int)(i * 7 % 5) -
							     2));

			s->points[i] = (struct history_point){
				.commit = i, .n = 5, .median = level,
				.ci_low = level * 0.99, .ci_high = level * 1.01
			};
		}
		if (step == 0)
			continue;
		s->changes_nr = s->changes_alloc = 1;
		s->changes = xcalloc(1, sizeof(*s->changes));
		s->changes[0] = (struct history_change){
			.at = { .index = 20, .before = 10, .after = 10 * (1 + step),
				.change = step, .change_lo = step * 0.9,
				.change_hi = step * 1.1, .p = 1e-6 },
			.regression = step > 0,
			.range_first = 18,
		};
	}
}

static const struct dashboard_file *file(const struct dashboard *d,
					 const char *path)
{
	for (size_t i = 0; i < d->files_nr; i++)
		if (!strcmp(d->files[i].path, path))
			return &d->files[i];
	cr_assert_fail("no file %s", path);
	return NULL;
}

static const char *find(const char *haystack, const char *needle)
{
	const char *at = strstr(haystack, needle);

	cr_assert_not_null(at, "no \"%s\" in\n%s", needle, haystack);
	return at;
}

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static const struct dashboard_options linked = {
	.repo_url = "https://github.com/o/r"
};

/* Every `index N` the chart's script plots is a block of its data with a
 * data line: gnuplot numbers the blocks between two blank lines, and
 * skips one without data (gnuplot 5 manual, "index"), so an empty block
 * would move the marks of change points to another index or none. */
static void assert_indexes_have_data(const struct chart *chart)
{
	const char *gp = chart->gp.buf;
	size_t plotted = 0;

	for (const char *at = strstr(gp, " index "); at;
	     at = strstr(at + 1, " index ")) {
		long wanted = strtol(at + 7, NULL, 10), block = 0;
		const char *p = chart->dat.buf;
		bool data = false, in_block = false;

		/* Two blank lines end a block that had data; comments are
		 * not data. */
		for (; *p; p = strchr(p, '\n') + 1) {
			if (!strncmp(p, "\n\n", 2) && in_block) {
				block++;
				in_block = false;
			} else if (*p != '#' && *p != '\n') {
				in_block = true;
				data = block == wanted;
			}
			if (data || !strchr(p, '\n'))
				break;
		}
		cr_assert(data, "index %ld is plotted but has no data:\n%s\n%s",
			  wanted, gp, chart->dat.buf);
		plotted++;
	}
	cr_assert_geq(plotted, 3, "%s", gp);
}

Test(dashboard, one_page_and_chart_per_series_and_the_three_pages)
{
	const char *const metrics[] = { "latency", "memory", NULL };
	struct history h;
	struct dashboard d = { 0 };
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT;

	make_history(&h, "s", metrics, 0.2);
	dashboard_render(&d, &h, &linked);
	cr_assert_eq(d.files_nr, 3 + 2);
	file(&d, "index.html");
	file(&d, "regressions.html");
	file(&d, "feed.xml");
	cr_assert_eq(d.charts.nr, 2);
	dashboard_series_name(&name, &h.series[0]);
	strbuf_addf(&path, "series/%s.html", name.buf);
	find(file(&d, path.buf)->text.buf, "<img class=\"chart\" src=\"../"
					   "charts/");
	cr_assert_str_eq(d.charts.items[0].stem.buf, name.buf);
	cr_assert(!strncmp(name.buf, "box_bench_original_cpu_latency-", 31),
		  "%s", name.buf);
	/* The chart marks the change point and draws the levels. */
	find(d.charts.items[0].gp.buf, "reset\n");
	find(d.charts.items[0].gp.buf, "set output '");
	find(d.charts.items[0].gp.buf, "title 'regression'");
	find(d.charts.items[0].dat.buf, "# index 1: levels");
	assert_indexes_have_data(&d.charts.items[0]);
	cr_assert_null(strstr(d.charts.items[0].gp.buf, "png"), "SVG only");
	dashboard_release(&d);
	history_release(&h);
	strbuf_release(&name);
	strbuf_release(&path);
}

Test(dashboard, index_lists_series_sparklines_and_latest_change_points)
{
	const char *const metrics[] = { "latency", NULL };
	struct history h;
	struct dashboard d = { 0 };
	const char *index, *latest, *table;

	make_history(&h, "s", metrics, 0.2);
	/* point 5 measured while 2 cores were busy, the latest at a quarter
	 * of one (MACHINE_LOAD_BUSY_CPU: busy), point 6 just below it */
	h.series[0].points[5].busy = 2;
	h.series[0].points[6].busy = 0.24;
	h.series[0].points[29].busy = 0.25;
	dashboard_render(&d, &h, &linked);
	index = file(&d, "index.html")->text.buf;
	cr_assert_eq(count(index, "<circle class=\"busy\""), 2, "%s", index);
	find(index, "<span class=\"busy\" title=\"measured on a busy machine: "
		    "other processes kept 0.25 cores busy\">busy</span>");
	for (size_t i = 0; i < d.files_nr; i++)
		if (!strncmp(d.files[i].path, "series/", 7)) {
			const char *page = d.files[i].text.buf;

			cr_assert_eq(count(page, "<g class=\"pt busy\""), 2,
				     "%s", page);
			find(page, " data-busy=\"measured on a busy machine: "
				   "other processes kept 2 cores busy\"");
		}
	find(index, "<meta http-equiv=\"Content-Security-Policy\" content="
		    "\"default-src 'none'; style-src 'unsafe-inline'; img-src "
		    "'self' data:\">");
	latest = find(index, "<h2 id=\"latest\">Latest change points</h2>");
	table = find(index, "<h2>s <small>on machine box</small></h2>");
	/* grouped: a folding section per benchmark, a heading per variant */
	cr_assert_lt(table, find(index, "<details class=\"benchmark\" open>"
					"<summary>bench "));
	find(index, "<tr class=\"variant\"><th colspan=\"6\">original</th>");
	cr_assert_lt(latest, table);
	/* The change point's commit, linked, in both. */
	cr_assert_eq(count(index, "<a href=\"https://github.com/o/r/commit/"
				  "1444444444444444444444444444444444444444"
				  "\">"),
		     2 + 0, "%s", index);
	find(index, "<span class=\"regression\">+20.0%</span>");
	/* 30 points, one mark. */
	find(index, "<svg class=\"spark\"");
	cr_assert_eq(count(index, "<circle class=\"regression\""), 1);
	find(index, "<title>30 points</title>");
	cr_assert_null(strstr(index, "<script"), "no script at all");
	dashboard_release(&d);
	history_release(&h);
}

Test(dashboard, without_a_web_address_nothing_is_linked_to_a_forge)
{
	const char *const metrics[] = { "latency", NULL };
	struct history h;
	struct dashboard d = { 0 };
	const struct dashboard_options none = { .repo_url = NULL };

	make_history(&h, "s", metrics, 0.2);
	dashboard_render(&d, &h, &none);
	for (size_t i = 0; i < d.files_nr; i++)
		cr_assert_null(strstr(d.files[i].text.buf, "https://"),
			       "%s links out", d.files[i].path);
	find(file(&d, "index.html")->text.buf,
	     "<code title=\"1444444444444444444444444444444444444444\">"
	     "144444444444</code>");
	dashboard_release(&d);
	history_release(&h);
}

Test(dashboard, hostile_names_and_subjects_come_out_inert)
{
	const char *const metrics[] = { HOSTILE, NULL };
	struct history h;
	struct dashboard d = { 0 };

	make_history(&h, HOSTILE, metrics, 0.2);
	/* Every other name of the series, and the branch, too. */
	for (size_t i = 0; i < 6; i++) {
		struct history_series *s = &h.series[0];
		char **names[] = { &s->benchmark, &s->variant, &s->device,
				   &s->machine, &s->unit, &h.branch };

		free(*names[i]);
		*names[i] = xstrdup(HOSTILE);
	}
	dashboard_render(&d, &h, &linked);
	for (size_t i = 0; i < d.files_nr; i++) {
		const char *text = d.files[i].text.buf;

		cr_assert_null(strstr(text, "<script>alert"), "%s",
			       d.files[i].path);
		cr_assert_null(strstr(text, "]]>"), "%s", d.files[i].path);
		cr_assert_null(strstr(text, "\xff"), "%s", d.files[i].path);
		find(text, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;"
			   "&amp;]]&gt;\xef\xbf\xbd");
	}
	/* The page name is a slug: nothing of the name's markup. */
	for (size_t i = 0; i < d.files_nr; i++)
		cr_assert_eq(strcspn(d.files[i].path, "<>\"'&\\ "),
			     strlen(d.files[i].path), "%s", d.files[i].path);
	dashboard_release(&d);
	history_release(&h);
}

Test(dashboard, regressions_page_groups_by_commit_and_skips_improvements)
{
	const char *const slower[] = { "latency", "memory", NULL };
	const char *const faster[] = { "size", NULL };
	struct history h, h2;
	struct dashboard d = { 0 };
	const char *page;

	make_history(&h, "s", slower, 0.2);
	make_history(&h2, "t", faster, -0.3);
	/* Move h2's improvement series into h. */
	ALLOC_GROW(h.series, h.series_nr + 1, h.series_alloc);
	h.series[h.series_nr++] = h2.series[0];
	h2.series_nr = 0;
	history_release(&h2);
	dashboard_render(&d, &h, &linked);
	page = file(&d, "regressions.html")->text.buf;
	for (size_t i = 0; i < d.charts.nr; i++)
		assert_indexes_have_data(&d.charts.items[i]);
	find(d.charts.items[2].gp.buf, "title 'improvement'");
	cr_assert_eq(count(page, "<h2 class=\"commit\">"), 1,
		     "two series, one commit: %s", page);
	cr_assert_eq(count(page, "<tr class=\"change\">"), 2);
	cr_assert_null(strstr(page, "<span class=\"improvement\""), "%s",
		       page);
	find(file(&d, "index.html")->text.buf,
	     "<span class=\"improvement\">-30.0%</span>");
	dashboard_release(&d);
	history_release(&h);
}

Test(dashboard, feed_is_atom_with_stable_ids_and_no_publish_time)
{
	const char *const metrics[] = { "latency", NULL };
	struct history h;
	struct dashboard d = { 0 }, again = { 0 };
	const char *feed;

	make_history(&h, "s", metrics, 0.2);
	dashboard_render(&d, &h, &linked);
	feed = file(&d, "feed.xml")->text.buf;
	cr_assert(!strncmp(feed, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
				 "<feed xmlns=\"http://www.w3.org/2005/Atom\">",
			   77));
	cr_assert_eq(count(feed, "<entry>"), 1);
	find(feed, "<id>urn:benchgate:change:");
	find(feed, "<updated>2026-01-01T00:00:00+00:00</updated>");
	find(feed, "<link rel=\"related\" href=\"https://github.com/o/r/"
		   "commit/1444444444444444444444444444444444444444\"/>");
	find(feed, "<title>Regression +20.0% in bench/original/cpu latency on "
		   "box at 144444444444</title>");
	/* Deterministic: every file the same bytes again. */
	dashboard_render(&again, &h, &linked);
	cr_assert_eq(again.files_nr, d.files_nr);
	for (size_t i = 0; i < d.files_nr; i++)
		cr_assert_str_eq(again.files[i].text.buf, d.files[i].text.buf);
	cr_assert_str_eq(again.charts.items[0].gp.buf,
			 d.charts.items[0].gp.buf);
	dashboard_release(&d);
	dashboard_release(&again);
	history_release(&h);
}

Test(dashboard, series_names_differ_for_names_a_slug_would_merge)
{
	const char *const metrics[] = { "a b", "a_b", "a/b", NULL };
	struct history h;
	struct strbuf names[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };

	make_history(&h, "s", metrics, 0);
	for (size_t i = 0; i < 3; i++)
		dashboard_series_name(&names[i], &h.series[i]);
	cr_assert_str_neq(names[0].buf, names[1].buf);
	cr_assert_str_neq(names[1].buf, names[2].buf);
	cr_assert_str_neq(names[0].buf, names[2].buf);
	for (size_t i = 0; i < 3; i++)
		strbuf_release(&names[i]);
	history_release(&h);
}
