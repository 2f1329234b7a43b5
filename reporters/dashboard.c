/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pages of `benchgate publish` (dashboard.h): HTML made from a
 * branch's history, every user string through escape_html().
 */
#include "reporters/dashboard.h"
#include "reporters/dashboard_chart.h"
#include "reporters/dashboard_script.h"
#include "reporters/feed.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/format.h"
#include "reporters/escape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPARK_WIDTH  160
#define SPARK_HEIGHT 28

/* Nothing may load, and nothing run but the series pages' own script,
 * allowed by its hash (dashboard_script.h). */
static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
	"'none'; style-src 'unsafe-inline'; img-src 'self' data:";
static const char page_head_end[] =
	"\">\n<meta name=\"viewport\" content=\"width=device-width, "
	"initial-scale=1\">\n";

static const char page_style[] =
	"<style>\n"
	"body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;"
	"max-width:1100px;padding:0 1em;color:#222}\n"
	"nav{margin:1em 0;padding-bottom:.5em;border-bottom:1px solid #ddd}\n"
	"nav a{margin-right:1.2em}\n"
	"table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	"th,td{padding:.25em .6em;border-bottom:1px solid #eee;"
	"text-align:left;vertical-align:middle}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	".scroll{overflow-x:auto}\n"
	".regression{color:#c0392b;font-weight:600}\n"
	".resolved{color:#27ae60;font-weight:400}\n"
	".improvement{color:#1b7e5f;font-weight:600}\n"
	"svg.spark polyline{fill:none;stroke:#1f4e9c;stroke-width:1.5}\n"
	"svg.spark .regression{fill:#c0392b}\n"
	"svg.spark .improvement{fill:#1b9e77}\n"
	"img.chart{max-width:100%;height:auto;border:1px solid #eee}\n"
	"code{font-size:92%}\n"
	"pre.log{white-space:pre-wrap;background:#f8f8f8;padding:.6em;"
	"border:1px solid #eee;font-size:85%}\n"
	"h2 small{font-size:60%;font-weight:normal}\n"
	"details.benchmark{margin:.4em 0 1em}\n"
	"details.benchmark>summary{cursor:pointer;font-weight:600;"
	"font-size:110%}\n"
	"tr.variant th{background:#f4f6fa;font-weight:600}\n"
	"td.spark small{display:block;color:#666;font-size:80%}\n"
	"svg.spark .busy{fill:none;stroke:#e67e22;stroke-width:1.2}\n"
	".busy{color:#b9770e}\n"
	".chart{position:relative;max-width:1000px}\n"
	".zoom button{font:inherit;padding:.1em .6em}\n"
	"svg.plot{width:100%;height:auto;display:block;"
	"border:1px solid #eee;user-select:none}\n"
	"svg.plot .hit{fill:transparent}\n"
	"svg.plot .axis{fill:none;stroke:#999}\n"
	"svg.plot .label{font-size:12px;fill:#555}\n"
	"svg.plot .line{fill:none;stroke:#1f4e9c;stroke-width:1.2;"
	"opacity:.6}\n"
	"svg.plot .ci{stroke:#7f9cc9;stroke-width:1}\n"
	"svg.plot .pt circle{fill:#1f4e9c}\n"
	"svg.plot .pt.regression circle{fill:#c0392b;r:5px}\n"
	"svg.plot .pt.improvement circle{fill:#1b9e77;r:5px}\n"
	"svg.plot .pt.busy circle{stroke:#e67e22;stroke-width:2}\n"
	"svg.plot .pt.on circle{stroke:#000;stroke-width:2}\n"
	"svg.plot .sel{fill:#1f4e9c;opacity:.15;pointer-events:none}\n"
	".tip{position:absolute;z-index:1;background:#fff;"
	"border:1px solid #999;border-radius:4px;padding:.4em .6em;"
	"box-shadow:0 2px 6px rgba(0,0,0,.2);max-width:24em;"
	"font-size:90%}\n"
	".tip[hidden]{display:none}\n"
	".tip .value{font-weight:600}\n"
	".tip .subject{color:#444}\n"
	".tip .links a{margin-right:1em}\n"
	".worse{color:#c0392b}\n.better{color:#1b7e5f}\n"
	"</style>\n";

void dashboard_add_file(struct dashboard *d, const char *path,
			struct strbuf *text, bool keep)
{
	struct dashboard_file *file;

	ALLOC_GROW(d->files, d->files_nr + 1, d->files_alloc);
	file = &d->files[d->files_nr++];
	file->path = xstrdup(path);
	file->text = *text;
	file->keep = keep;
	strbuf_init(text, 0);
}

static void add_file(struct dashboard *d, const char *path,
		     struct strbuf *text)
{
	dashboard_add_file(d, path, text, false);
}

/* depth: "" for the site's top, "../" for series/; script: the CSP
 * source of the page's script, NULL for a page without one. */
static void page_begin(struct strbuf *out, const char *title,
		       const char *depth, const char *script)
{
	strbuf_addstr(out, page_head);
	if (script)
		strbuf_addf(out, "; script-src %s", script);
	strbuf_addstr(out, page_head_end);
	strbuf_addstr(out, "<title>");
	escape_html(out, title);
	strbuf_addf(out,
		    "</title>\n<link rel=\"alternate\" "
		    "type=\"application/atom+xml\" title=\"Change points\" "
		    "href=\"%sfeed.xml\">\n%s</head>\n<body>\n<nav><a "
		    "href=\"%sindex.html\">Index</a><a "
		    "href=\"%sregressions.html\">Regressions</a><a "
		    "href=\"%sfeed.xml\">Atom feed</a></nav>\n",
		    depth, page_style, depth, depth, depth);
}

static void page_end(struct strbuf *out)
{
	strbuf_addstr(out, "<p><small>Made by benchgate publish.</small></p>\n"
			   "</body>\n</html>\n");
}

static const char *direction(const struct history_change *c)
{
	return c->regression ? "regression" : "improvement";
}

static void add_case(struct strbuf *out, const struct history_series *s)
{
	escape_html(out, s->benchmark);
	strbuf_addstr(out, "/");
	escape_html(out, s->variant);
	strbuf_addstr(out, "/");
	escape_html(out, s->device);
}

/* A link to the commit on the forge, else its id in <code>. */
static void add_commit(struct strbuf *out, const char *commit,
		       const struct dashboard_options *opts)
{
	struct strbuf url = STRBUF_INIT;
	bool linked = report_commit_url(&url, commit, opts->repo_url);

	if (linked) {
		strbuf_addstr(out, "<a href=\"");
		escape_html(out, url.buf);
		strbuf_addstr(out, "\">");
	}
	strbuf_addstr(out, "<code title=\"");
	escape_html(out, commit);
	strbuf_addstr(out, "\">");
	/* The short id: 12 of the 40, as the terminal view shows it. */
	strbuf_reset(&url);
	strbuf_add(&url, commit, strnlen(commit, 12));
	escape_html(out, url.buf);
	strbuf_addstr(out, linked ? "</code></a>" : "</code>");
	strbuf_release(&url);
}

static void add_change_text(struct strbuf *out, const struct history_change *c)
{
	struct strbuf text = STRBUF_INIT;

	format_change(&text, c->at.change);
	strbuf_addf(out, "<span class=\"%s\">", direction(c));
	escape_html(out, text.buf);
	strbuf_addstr(out, "</span>");
	strbuf_release(&text);
}

static void add_quantity(struct strbuf *out, double value, const char *unit)
{
	struct strbuf text = STRBUF_INIT;

	format_quantity(&text, value, unit);
	escape_html(out, text.buf);
	strbuf_release(&text);
}

static void add_series_link(struct strbuf *out, const struct history_series *s,
			    const char *depth)
{
	strbuf_addf(out, "<a href=\"%sseries/", depth);
	dashboard_series_name(out, s);
	strbuf_addstr(out, ".html\">");
	add_case(out, s);
	strbuf_addstr(out, " ");
	escape_html(out, s->metric);
	strbuf_addstr(out, "</a>");
}

/* The sparkline: the newest points, scaled to their own range (written
 * beneath it), a dot at each change point in its direction's colour. */
static void add_sparkline(struct strbuf *out, const struct history_series *s)
{
	size_t first = s->points_nr > DASHBOARD_SPARK_POINTS
			       ? s->points_nr - DASHBOARD_SPARK_POINTS
			       : 0;
	size_t nr = s->points_nr - first;
	double low = INFINITY, high = -INFINITY, dx;

	for (size_t i = first; i < s->points_nr; i++) {
		low = fmin(low, s->points[i].median);
		high = fmax(high, s->points[i].median);
	}
	dx = nr > 1 ? (SPARK_WIDTH - 4.0) / (double)(nr - 1) : 0;
	strbuf_addf(out,
		    "<svg class=\"spark\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\"><title>%zu "
		    "points</title><polyline points=\"",
		    SPARK_WIDTH, SPARK_HEIGHT, SPARK_WIDTH, SPARK_HEIGHT,
		    s->points_nr);
	for (size_t i = first; i < s->points_nr; i++) {
		double y = high > low ? (s->points[i].median - low) /
						(high - low)
				      : 0.5;

		strbuf_addf(out, "%s%.1f,%.1f", i > first ? " " : "",
			    2 + dx * (double)(i - first),
			    SPARK_HEIGHT - 3 - y * (SPARK_HEIGHT - 6));
	}
	strbuf_addstr(out, "\"/>");
	/* A busy night, hollow: a dot of its own, under a change's. */
	for (size_t i = first; i < s->points_nr; i++) {
		double y;

		if (!(s->points[i].busy >= MACHINE_LOAD_BUSY_CPU))
			continue;
		y = high > low ? (s->points[i].median - low) / (high - low)
			       : 0.5;
		strbuf_addf(out,
			    "<circle class=\"busy\" cx=\"%.1f\" cy=\"%.1f\" "
			    "r=\"2.5\"/>",
			    2 + dx * (double)(i - first),
			    SPARK_HEIGHT - 3 - y * (SPARK_HEIGHT - 6));
	}
	for (size_t i = 0; i < s->changes_nr; i++) {
		const struct history_change *c = &s->changes[i];
		double y;

		if (c->at.index < first)
			continue;
		y = high > low ? (s->points[c->at.index].median - low) /
					 (high - low)
			       : 0.5;
		strbuf_addf(out,
			    "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" "
			    "r=\"3\"/>",
			    direction(c), 2 + dx * (double)(c->at.index - first),
			    SPARK_HEIGHT - 3 - y * (SPARK_HEIGHT - 6));
	}
	strbuf_addstr(out, "</svg><small>");
	add_quantity(out, low, s->unit);
	strbuf_addstr(out, " \u2013 ");
	add_quantity(out, high, s->unit);
	strbuf_addstr(out, "</small>");
}

/* Change points, newest first */

static void add_change_row(struct strbuf *out, const struct history *history,
			   const struct dashboard_change_ref *ref,
			   const struct dashboard_options *opts,
			   bool with_commit)
{
	const struct history_series *s = &history->series[ref->series];
	const struct history_change *c = &s->changes[ref->change];
	const struct git_meta *commit = dashboard_change_commit(history, ref);

	strbuf_addstr(out, "<tr class=\"change\">");
	if (with_commit) {
		strbuf_addstr(out, "<td>");
		add_commit(out, commit->commit, opts);
		strbuf_addstr(out, "</td>");
	}
	strbuf_addstr(out, "<td>");
	add_series_link(out, s, "");
	strbuf_addstr(out, "</td><td class=\"num\">");
	add_change_text(out, c);
	if (c->resolved) {
		strbuf_addstr(out, " <span class=\"resolved\">resolved at ");
		add_commit(out,
			   history->commits[s->points[s->changes[c->resolved_by]
							      .at.index]
						    .commit]
				   .commit,
			   opts);
		strbuf_addstr(out, "</span>");
	}
	strbuf_addstr(out, "</td><td class=\"num\">");
	add_quantity(out, c->at.before, s->unit);
	strbuf_addstr(out, " \u2192 ");
	add_quantity(out, c->at.after, s->unit);
	if (with_commit) {
		strbuf_addstr(out, "</td><td>");
		report_add_cut(out, commit->subject, 80, escape_html);
	}
	strbuf_addstr(out, "</td></tr>\n");
}

/* The index */

static void add_latest_changes(struct strbuf *out,
			       const struct history *history,
			       const struct dashboard_options *opts)
{
	struct dashboard_change_ref *refs;
	size_t nr = dashboard_changes_newest_first(history, &refs);

	strbuf_addstr(out, "<h2 id=\"latest\">Latest change points</h2>\n");
	if (!nr)
		strbuf_addstr(out, "<p>None found.</p>\n");
	else
		strbuf_addstr(out, "<div class=\"scroll\"><table><tr><th>"
				   "Commit</th><th>Series</th><th>Change</th>"
				   "<th>Level</th><th>Subject</th></tr>\n");
	for (size_t i = 0; i < nr && i < DASHBOARD_LATEST_CHANGES; i++)
		add_change_row(out, history, &refs[i], opts, true);
	if (nr)
		strbuf_addstr(out, "</table></div>\n");
	free(refs);
}

/* " busy" after a value measured while other processes kept the machine
 * busy (machine_load_quiet()'s bound), with how busy in its title. */
static void add_busy_mark(struct strbuf *out, const struct history_point *p)
{
	if (!(p->busy >= MACHINE_LOAD_BUSY_CPU))
		return;
	strbuf_addf(out,
		    " <span class=\"busy\" title=\"measured on a busy "
		    "machine: other processes kept %.2g cores busy\">busy"
		    "</span>",
		    p->busy);
}

/* The change of the latest point from the one before, as compare and
 * the change points measure it. */
static double latest_change(const struct history_series *s)
{
	double last = s->points[s->points_nr - 1].median, prev;

	if (s->points_nr < 2)
		return NAN;
	prev = s->points[s->points_nr - 2].median;
	return prev > 0 ? last / prev - 1 : (last - prev) / fabs(prev);
}

static void add_index_row(struct strbuf *out, const struct history *history,
			  const struct history_series *s,
			  const struct dashboard_options *opts)
{
	const struct history_point *last = &s->points[s->points_nr - 1];
	double change = latest_change(s);
	struct strbuf text = STRBUF_INIT;

	strbuf_addstr(out, "<tr><td>");
	strbuf_addstr(out, "<a href=\"series/");
	dashboard_series_name(out, s);
	strbuf_addstr(out, ".html\">");
	escape_html(out, s->device);
	strbuf_addstr(out, " \u00b7 ");
	escape_html(out, s->metric);
	strbuf_addstr(out, "</a></td><td class=\"spark\">");
	add_sparkline(out, s);
	strbuf_addstr(out, "</td><td class=\"num\">");
	add_quantity(out, last->median, s->unit);
	add_busy_mark(out, last);
	strbuf_addstr(out, "</td><td class=\"num\">");
	if (isfinite(change)) {
		bool worse = s->better == BETTER_HIGHER ? change < 0
							: change > 0;

		format_change(&text, change);
		strbuf_addf(out, "<span class=\"%s\" title=\"vs the previous "
				 "point\">",
			    change == 0 ? "same" : worse ? "worse" : "better");
		escape_html(out, text.buf);
		strbuf_addstr(out, "</span>");
	} else {
		strbuf_addstr(out, "\u2013");
	}
	strbuf_addf(out, "</td><td class=\"num\">%zu</td><td>",
		    s->points_nr);
	if (s->changes_nr) {
		const struct history_change *c = &s->changes[s->changes_nr - 1];

		add_change_text(out, c);
		strbuf_addstr(out, " at ");
		add_commit(out,
			   history->commits[s->points[c->at.index].commit]
				   .commit,
			   opts);
	} else {
		strbuf_addstr(out, "none");
	}
	strbuf_addstr(out, "</td></tr>\n");
	strbuf_release(&text);
}

/* The regressions of series [from, to) that still stand: a mark on a
 * closed section. */
static size_t standing_regressions(const struct history *history, size_t from,
				   size_t to)
{
	size_t nr = 0;

	for (size_t i = from; i < to; i++) {
		const struct history_series *s = &history->series[i];

		for (size_t j = 0; j < s->changes_nr; j++)
			nr += s->changes[j].regression && !s->changes[j].resolved;
	}
	return nr;
}

static bool same_name(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* One benchmark of a suite on a machine: series [from, to), a section
 * that folds, its variants as headings of one table. */
static void add_index_benchmark(struct strbuf *out,
				const struct history *history, size_t from,
				size_t to, const struct dashboard_options *opts)
{
	size_t regressions = standing_regressions(history, from, to);

	strbuf_addstr(out, "<details class=\"benchmark\" open><summary>");
	escape_html(out, history->series[from].benchmark);
	strbuf_addstr(out, " <small>");
	report_add_count(out, to - from, "series", "series");
	if (regressions)
		strbuf_addf(out, ", <span class=\"regression\">%zu "
				 "standing regression%s</span>",
			    regressions, regressions == 1 ? "" : "s");
	strbuf_addstr(out, "</small></summary>\n<div class=\"scroll\"><table>"
			   "<tr><th>Device \u00b7 metric</th><th>History "
			   "<small>(each on its own scale)</small></th>"
			   "<th>Latest</th><th>Change vs previous point</th>"
			   "<th>Points</th><th>Last change point</th></tr>\n");
	for (size_t i = from; i < to; i++) {
		const struct history_series *s = &history->series[i];

		if (i == from ||
		    !same_name(s[-1].variant, s->variant)) {
			strbuf_addstr(out, "<tr class=\"variant\"><th "
					   "colspan=\"6\">");
			escape_html(out, s->variant);
			strbuf_addstr(out, "</th></tr>\n");
		}
		add_index_row(out, history, s, opts);
	}
	strbuf_addstr(out, "</table></div></details>\n");
}

static void render_index(struct dashboard *d, const struct history *history,
			 const struct dashboard_options *opts)
{
	struct strbuf out = STRBUF_INIT, title = STRBUF_INIT;

	strbuf_addf(&title, "Benchmarks of %s", history->branch);
	page_begin(&out, title.buf, "", NULL);
	strbuf_addstr(&out, "<h1>");
	escape_html(&out, title.buf);
	strbuf_addstr(&out, "</h1>\n<p>");
	report_add_count(&out, history->commits_nr, "first-parent commit",
			 "first-parent commits");
	strbuf_addstr(&out, ", ");
	report_add_count(&out, history->series_nr, "series", "series");
	if (history->commits_nr) {
		strbuf_addstr(&out, "; newest ");
		add_commit(&out,
			   history->commits[history->commits_nr - 1].commit,
			   opts);
	}
	strbuf_addstr(&out, ".</p>\n");
	add_latest_changes(&out, history, opts);
	/* Series come ordered by suite, machine, benchmark, variant. */
	for (size_t i = 0, end; i < history->series_nr; i = end) {
		const struct history_series *s = &history->series[i];

		if (!i || !same_name(s[-1].suite, s->suite) ||
		    !same_name(s[-1].machine, s->machine)) {
			strbuf_addstr(&out, "<h2>");
			escape_html(&out, s->suite);
			strbuf_addstr(&out, " <small>on machine ");
			escape_html(&out, s->machine);
			strbuf_addstr(&out, "</small></h2>\n");
		}
		for (end = i + 1; end < history->series_nr; end++) {
			const struct history_series *e = &history->series[end];

			if (!same_name(e->suite, s->suite) ||
			    !same_name(e->machine, s->machine) ||
			    !same_name(e->benchmark, s->benchmark))
				break;
		}
		add_index_benchmark(&out, history, i, end, opts);
	}
	if (!history->series_nr)
		strbuf_addstr(&out, "<p>No results on this branch yet.</p>\n");
	page_end(&out);
	add_file(d, "index.html", &out);
	strbuf_release(&title);
}

/* " by Name <email>" when attribution read the commit's author. */
static void add_author(struct strbuf *out, const struct history *history,
		       size_t commit)
{
	if (!history->authors || !history->authors[commit])
		return;
	strbuf_addstr(out, " <small>by ");
	escape_html(out, history->authors[commit]);
	strbuf_addstr(out, "</small>");
}

/* The regressions page: worse-direction change points by commit. */
static void render_regressions(struct dashboard *d,
			       const struct history *history,
			       const struct dashboard_options *opts)
{
	struct strbuf out = STRBUF_INIT;
	struct dashboard_change_ref *refs;
	size_t nr = dashboard_changes_newest_first(history, &refs), shown = 0;
	const struct git_meta *open = NULL;

	page_begin(&out, "Regressions", "", NULL);
	strbuf_addstr(&out, "<h1>Regressions</h1>\n<p>Every change point in "
			    "the worse direction, newest first, grouped by "
			    "the commit that starts the new level.</p>\n");
	for (size_t i = 0; i < nr; i++) {
		const struct history_series *s = &history->series[refs[i].series];
		const struct git_meta *commit;

		if (!s->changes[refs[i].change].regression)
			continue;
		commit = dashboard_change_commit(history, &refs[i]);
		if (commit != open) {
			if (open)
				strbuf_addstr(&out, "</table></div>\n");
			strbuf_addstr(&out, "<h2 class=\"commit\">");
			add_commit(&out, commit->commit, opts);
			strbuf_addstr(&out, " ");
			report_add_cut(&out, commit->subject, 100,
				       escape_html);
			add_author(&out, history,
				   (size_t)(commit - history->commits));
			strbuf_addstr(&out, "</h2>\n<div class=\"scroll\">"
					    "<table><tr><th>Series</th><th>"
					    "Change</th><th>Level</th></tr>\n");
			open = commit;
		}
		add_change_row(&out, history, &refs[i], opts, false);
		shown++;
	}
	strbuf_addstr(&out, shown ? "</table></div>\n"
				  : "<p>No regressions found.</p>\n");
	page_end(&out);
	add_file(d, "regressions.html", &out);
	free(refs);
}

/* A series page */

static void add_series_changes(struct strbuf *out,
			       const struct history *history,
			       const struct history_series *s,
			       const struct dashboard_options *opts)
{
	strbuf_addstr(out, "<h2>Change points</h2>\n");
	if (!s->changes_nr) {
		strbuf_addstr(out, "<p>None found.</p>\n");
		return;
	}
	strbuf_addstr(out, "<div class=\"scroll\"><table><tr><th>Commit</th>"
			   "<th>Change</th><th>Interval</th><th>Level</th>"
			   "<th>Bisect range</th><th>Subject</th></tr>\n");
	for (size_t i = s->changes_nr; i-- > 0;) {
		const struct history_change *c = &s->changes[i];
		const struct git_meta *commit =
			&history->commits[s->points[c->at.index].commit];
		struct strbuf text = STRBUF_INIT;

		strbuf_addstr(out, "<tr class=\"change\"><td>");
		add_commit(out, commit->commit, opts);
		strbuf_addstr(out, "</td><td class=\"num\">");
		add_change_text(out, c);
		strbuf_addstr(out, "</td><td class=\"num\">[");
		format_change(&text, c->at.change_lo);
		strbuf_addstr(&text, ", ");
		format_change(&text, c->at.change_hi);
		escape_html(out, text.buf);
		strbuf_addstr(out, "]</td><td class=\"num\">");
		add_quantity(out, c->at.before, s->unit);
		strbuf_addstr(out, " \u2192 ");
		add_quantity(out, c->at.after, s->unit);
		strbuf_addstr(out, "</td><td>");
		if (c->range_first < s->points[c->at.index].commit) {
			add_commit(out, history->commits[c->range_first].commit,
				   opts);
			strbuf_addf(out, " .. (%zu commits)",
				    s->points[c->at.index].commit -
					    c->range_first + 1);
		} else {
			strbuf_addstr(out, "this commit");
		}
		strbuf_addstr(out, "</td><td>");
		report_add_cut(out, commit->subject, 80, escape_html);
		strbuf_addstr(out, "</td></tr>\n");
		strbuf_release(&text);
	}
	strbuf_addstr(out, "</table></div>\n");
}

/* The links of point i to its run's log and report, if any. */
static void add_run_links(struct strbuf *out,
			  const struct dashboard_point_links *links, size_t i)
{
	const char *log = links->logs[i], *report = links->reports[i];

	if (log) {
		strbuf_addstr(out, "<a href=\"");
		escape_html(out, log);
		strbuf_addstr(out, "\">log</a>");
	}
	if (log && report)
		strbuf_addstr(out, " \u00b7 ");
	if (report) {
		strbuf_addstr(out, "<a href=\"");
		escape_html(out, report);
		strbuf_addstr(out, "\">report</a>");
	}
}

static void add_series_points(struct strbuf *out,
			      const struct history *history,
			      const struct history_series *s,
			      const struct dashboard_options *opts,
			      const struct dashboard_point_links *links)
{
	size_t shown = 0;

	strbuf_addstr(out, "<h2>Newest points</h2>\n<div class=\"scroll\">"
			   "<table><tr><th>Commit</th><th>Time</th><th>n</th>"
			   "<th>Median</th><th>99% interval</th><th>Run</th>"
			   "<th>Subject</th></tr>\n");
	for (size_t i = s->points_nr; i-- > 0 && shown < DASHBOARD_TABLE_POINTS;
	     shown++) {
		const struct history_point *p = &s->points[i];
		const struct git_meta *commit = &history->commits[p->commit];

		strbuf_addstr(out, "<tr><td>");
		add_commit(out, commit->commit, opts);
		strbuf_addstr(out, "</td><td>");
		escape_html(out, commit->commit_time);
		strbuf_addf(out, "</td><td class=\"num\">%zu</td>"
				 "<td class=\"num\">",
			    p->n);
		add_quantity(out, p->median, s->unit);
		add_busy_mark(out, p);
		strbuf_addstr(out, "</td><td class=\"num\">");
		add_quantity(out, p->ci_low, s->unit);
		strbuf_addstr(out, " \u2013 ");
		add_quantity(out, p->ci_high, s->unit);
		strbuf_addstr(out, "</td><td class=\"run\">");
		add_run_links(out, links, i);
		strbuf_addstr(out, "</td><td>");
		report_add_cut(out, commit->subject, 80, escape_html);
		strbuf_addstr(out, "</td></tr>\n");
	}
	strbuf_addstr(out, "</table></div>\n");
}

/* Each point's links from the series page ("../logs/..."), NULL for
 * none; release with point_links_release(). */
static void point_links(struct dashboard_point_links *links,
			const struct history_series *s, size_t series_index,
			const struct dashboard_options *opts)
{
	char **logs = xcalloc(s->points_nr + 1, sizeof(*logs));
	char **reports = xcalloc(s->points_nr + 1, sizeof(*reports));

	for (size_t i = 0; opts->run_pages && i < s->points_nr; i++) {
		const char *log = NULL, *report = NULL;
		struct strbuf path = STRBUF_INIT;

		opts->run_pages(opts->payload, series_index, i, &log, &report);
		if (log) {
			strbuf_addf(&path, "../%s", log);
			logs[i] = strbuf_detach(&path, NULL);
		}
		if (report) {
			strbuf_addf(&path, "../%s", report);
			reports[i] = strbuf_detach(&path, NULL);
		}
	}
	links->logs = (const char *const *)logs;
	links->reports = (const char *const *)reports;
	links->nr = s->points_nr;
}

static void point_links_release(struct dashboard_point_links *links)
{
	for (size_t i = 0; i < links->nr; i++) {
		free((char *)links->logs[i]);
		free((char *)links->reports[i]);
	}
	free((void *)links->logs);
	free((void *)links->reports);
}

static void render_series(struct dashboard *d, const struct history *history,
			  const struct history_series *s, size_t series_index,
			  const struct dashboard_options *opts,
			  const char *script)
{
	struct strbuf out = STRBUF_INIT, title = STRBUF_INIT;
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT;
	struct report_level *levels =
		xcalloc(s->changes_nr + 1, sizeof(*levels));
	struct chart chart = CHART_INIT;
	struct dashboard_point_links links = { 0 };

	point_links(&links, s, series_index, opts);

	dashboard_series_name(&name, s);
	strbuf_addf(&title, "%s/%s/%s %s", s->benchmark, s->variant,
		    s->device, s->metric);
	page_begin(&out, title.buf, "../", script);
	strbuf_addstr(&out, "<h1>");
	escape_html(&out, title.buf);
	strbuf_addstr(&out, "</h1>\n<p>Suite ");
	escape_html(&out, s->suite);
	strbuf_addstr(&out, " on machine ");
	escape_html(&out, s->machine);
	strbuf_addf(&out, "; %s is better; ",
		    s->better == BETTER_HIGHER ? "higher" : "lower");
	report_add_count(&out, s->points_nr, "point", "points");
	strbuf_addstr(&out, ".</p>\n");
	dashboard_chart_render(&out, history, s, &links);
	strbuf_addstr(&out, "<h2>Levels and change points</h2>\n"
			    "<p><img class=\"chart\" src=\"../charts/");
	escape_html(&out, name.buf);
	strbuf_addstr(&out, ".svg\" width=\"800\" height=\"500\" alt=\"History "
			    "chart of ");
	escape_html(&out, title.buf);
	strbuf_addstr(&out, "\"></p>\n");
	add_series_changes(&out, history, s, opts);
	add_series_points(&out, history, s, opts, &links);
	if (script)
		strbuf_addf(&out, "<script>%s</script>\n", dashboard_script);
	page_end(&out);
	strbuf_addf(&path, "series/%s.html", name.buf);
	add_file(d, path.buf, &out);

	report_series_levels(s, levels);
	charts_series(&chart, name.buf, history, s, levels);
	ALLOC_GROW(d->charts.items, d->charts.nr + 1, d->charts.alloc);
	d->charts.items[d->charts.nr++] = chart;

	free(levels);
	point_links_release(&links);
	strbuf_release(&title);
	strbuf_release(&name);
	strbuf_release(&path);
}

void dashboard_render(struct dashboard *out, const struct history *history,
		      const struct dashboard_options *opts)
{
	struct strbuf feed = STRBUF_INIT, script = STRBUF_INIT;
	/* Without its hash the script could not run: the pages go without
	 * it, their chart still drawn. */
	bool scripted = dashboard_script_csp_source(&script) == 0;

	render_index(out, history, opts);
	render_regressions(out, history, opts);
	feed_render(&feed, history, opts->repo_url);
	add_file(out, "feed.xml", &feed);
	for (size_t i = 0; i < history->series_nr; i++)
		render_series(out, history, &history->series[i], i, opts,
			      scripted ? script.buf : NULL);
	if (!scripted)
		bg_error_clear();
	strbuf_release(&script);
}

void dashboard_log_page(struct strbuf *out, const char *title,
			const char *log, size_t len, bool truncated)
{
	struct strbuf text = STRBUF_INIT;

	/* a NUL would end the text early: shown as U+FFFD */
	for (size_t i = 0; i < len; i++) {
		if (log[i])
			strbuf_addch(&text, log[i]);
		else
			strbuf_addstr(&text, "\xef\xbf\xbd");
	}
	page_begin(out, title, "../", NULL);
	strbuf_addstr(out, "<h1>");
	escape_html(out, title);
	strbuf_addstr(out, "</h1>\n");
	if (truncated)
		strbuf_addf(out, "<p>The first %zu bytes of the log; the "
				 "store holds the rest.</p>\n",
			    len);
	strbuf_addstr(out, "<pre class=\"log\">");
	escape_html(out, text.buf);
	strbuf_addstr(out, "</pre>\n");
	page_end(out);
	strbuf_release(&text);
}

void dashboard_release(struct dashboard *dashboard)
{
	for (size_t i = 0; i < dashboard->files_nr; i++) {
		free(dashboard->files[i].path);
		strbuf_release(&dashboard->files[i].text);
	}
	free(dashboard->files);
	charts_release(&dashboard->charts);
	memset(dashboard, 0, sizeof(*dashboard));
}
