/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A series page's chart (dashboard_chart.h), drawn as the script draws it
 * after a zoom: the same geometry (dashboard_script.c's L, R, T, B).
 */
#include "reporters/dashboard_chart.h"

#include "harness/util/format.h"
#include "reporters/escape.h"

#include <math.h>
#include <string.h>

#define CHART_WIDTH  800
#define CHART_HEIGHT 300
#define PLOT_LEFT    72
#define PLOT_RIGHT   788
#define PLOT_TOP     12
#define PLOT_BOTTOM  262

/* The x- and y-ranges shown; a point maps into the plot area by them. */
struct frame {
	double x0, x1, y0, y1;
};

static double frame_x(const struct frame *f, double x)
{
	return f->x1 > f->x0
		       ? PLOT_LEFT + (x - f->x0) * (PLOT_RIGHT - PLOT_LEFT) /
					     (f->x1 - f->x0)
		       : (PLOT_LEFT + PLOT_RIGHT) / 2.0;
}

static double frame_y(const struct frame *f, double y)
{
	return f->y1 > f->y0
		       ? PLOT_BOTTOM - (y - f->y0) * (PLOT_BOTTOM - PLOT_TOP) /
					       (f->y1 - f->y0)
		       : (PLOT_TOP + PLOT_BOTTOM) / 2.0;
}

static void frame_fit(struct frame *f, const struct history_series *s,
		      size_t first)
{
	double pad;

	f->x0 = (double)s->points[first].commit;
	f->x1 = (double)s->points[s->points_nr - 1].commit;
	f->y0 = INFINITY;
	f->y1 = -INFINITY;
	for (size_t i = first; i < s->points_nr; i++) {
		const double values[] = { s->points[i].median,
					  s->points[i].ci_low,
					  s->points[i].ci_high };

		for (size_t k = 0; k < 3; k++) {
			if (!isfinite(values[k]))
				continue;
			f->y0 = fmin(f->y0, values[k]);
			f->y1 = fmax(f->y1, values[k]);
		}
	}
	if (!(f->y1 >= f->y0)) {
		f->y0 = 0;
		f->y1 = 1;
	}
	pad = (f->y1 - f->y0) * 0.05;
	if (pad == 0)
		pad = fabs(f->y0) * 0.05;
	if (pad == 0)
		pad = 1;
	f->y0 -= pad;
	f->y1 += pad;
}

/* A number as an attribute, or nothing when it is not finite (the script
 * reads a missing one as NaN). */
static void add_number_attr(struct strbuf *out, const char *name, double value)
{
	if (isfinite(value))
		strbuf_addf(out, " %s=\"%.17g\"", name, value);
}

static void add_text_attr(struct strbuf *out, const char *name,
			  const char *value)
{
	if (!value || !*value)
		return;
	strbuf_addf(out, " %s=\"", name);
	escape_html(out, value);
	strbuf_addch(out, '"');
}

static void add_quantity_attr(struct strbuf *out, const char *name,
			      double value, const char *unit)
{
	struct strbuf text = STRBUF_INIT;

	format_quantity(&text, value, unit);
	add_text_attr(out, name, text.buf);
	strbuf_release(&text);
}

/* Whether the point was measured while other processes kept the machine
 * busy (machine_load_quiet()'s bound). */
static bool point_busy(const struct history_point *p)
{
	return p->busy >= MACHINE_LOAD_BUSY_CPU;
}

/* The class of the point: "pt", with the direction of the change point
 * it starts, if any, and "busy". */
static void add_point_class(struct strbuf *out, const struct history_series *s,
			    size_t index)
{
	strbuf_addstr(out, "pt");
	for (size_t i = 0; i < s->changes_nr; i++)
		if (s->changes[i].at.index == index)
			strbuf_addstr(out, s->changes[i].regression
						   ? " regression"
						   : " improvement");
	if (point_busy(&s->points[index]))
		strbuf_addstr(out, " busy");
}

static void add_point(struct strbuf *out, const struct history *history,
		      const struct history_series *s, size_t i,
		      const struct frame *f,
		      const struct dashboard_point_links *links)
{
	const struct history_point *p = &s->points[i];
	const struct git_meta *commit = &history->commits[p->commit];
	struct strbuf text = STRBUF_INIT;
	double x = frame_x(f, (double)p->commit), y = frame_y(f, p->median);

	strbuf_addstr(out, "<g class=\"");
	add_point_class(out, s, i);
	strbuf_addf(out, "\" data-x=\"%zu\"", p->commit);
	add_number_attr(out, "data-y", p->median);
	add_number_attr(out, "data-lo", p->ci_low);
	add_number_attr(out, "data-hi", p->ci_high);
	add_text_attr(out, "data-commit", commit->commit);
	add_text_attr(out, "data-date", commit->commit_time);
	add_quantity_attr(out, "data-value", p->median, s->unit);
	format_quantity(&text, p->ci_low, s->unit);
	strbuf_addstr(&text, " \u2013 ");
	format_quantity(&text, p->ci_high, s->unit);
	add_text_attr(out, "data-ci", text.buf);
	if (commit->subject) {
		strbuf_addstr(out, " data-subject=\"");
		report_add_cut(out, commit->subject, 80, escape_html);
		strbuf_addch(out, '"');
	}
	if (point_busy(p))
		strbuf_addf(out,
			    " data-busy=\"measured on a busy machine: other "
			    "processes kept %.2g cores busy\"",
			    p->busy);
	if (links && links->logs && links->logs[i])
		add_text_attr(out, "data-log", links->logs[i]);
	if (links && links->reports && links->reports[i])
		add_text_attr(out, "data-report", links->reports[i]);
	strbuf_addf(out,
		    "><line class=\"ci\" x1=\"%.1f\" x2=\"%.1f\" "
		    "y1=\"%.1f\" y2=\"%.1f\"/>",
		    x, x,
		    frame_y(f, isfinite(p->ci_low) ? p->ci_low : p->median),
		    frame_y(f, isfinite(p->ci_high) ? p->ci_high : p->median));
	strbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", x,
		    y);
	strbuf_reset(&text);
	strbuf_add(&text, commit->commit, strnlen(commit->commit, 12));
	strbuf_addstr(&text, " ");
	if (commit->commit_time)
		strbuf_addf(&text, "%s ", commit->commit_time);
	format_quantity(&text, p->median, s->unit);
	if (point_busy(p))
		strbuf_addstr(&text, " (busy machine)");
	escape_html(out, text.buf);
	strbuf_addstr(out, "</title></circle></g>\n");
	strbuf_release(&text);
}

static void add_label(struct strbuf *out, const char *id, double x, double y,
		      const char *anchor, const char *text)
{
	strbuf_addf(out,
		    "<text id=\"%s\" class=\"label\" x=\"%.1f\" y=\"%.1f\" "
		    "text-anchor=\"%s\">",
		    id, x, y, anchor);
	escape_html(out, text ? text : "");
	strbuf_addstr(out, "</text>\n");
}

void dashboard_chart_render(struct strbuf *out, const struct history *history,
			    const struct history_series *s,
			    const struct dashboard_point_links *links)
{
	size_t first = s->points_nr > DASHBOARD_CHART_POINTS
			       ? s->points_nr - DASHBOARD_CHART_POINTS
			       : 0;
	struct strbuf text = STRBUF_INIT;
	struct frame f;

	frame_fit(&f, s, first);
	strbuf_addstr(out, "<div class=\"chart\" id=\"chart\">\n"
			   "<p class=\"zoom\">Show <button type=\"button\" "
			   "data-last=\"0\">all</button> <button "
			   "type=\"button\" data-last=\"100\">newest 100"
			   "</button> <button type=\"button\" "
			   "data-last=\"30\">newest 30</button> <span "
			   "id=\"range\">");
	strbuf_addf(out, "%zu of %zu points shown", s->points_nr - first,
		    s->points_nr);
	strbuf_addstr(out, "</span> <small>drag across the chart to zoom in, "
			   "double-click for all, click a point to keep its "
			   "values</small></p>\n");
	strbuf_addf(out,
		    "<svg id=\"plot\" class=\"plot\" viewBox=\"0 0 %d %d\" "
		    "role=\"img\"",
		    CHART_WIDTH, CHART_HEIGHT);
	add_text_attr(out, "data-unit", s->unit);
	strbuf_addstr(out, " aria-label=\"");
	strbuf_addf(&text, "%s/%s/%s %s", s->benchmark, s->variant, s->device,
		    s->metric);
	escape_html(out, text.buf);
	strbuf_addf(out,
		    "\">\n<rect class=\"hit\" x=\"%d\" y=\"%d\" width=\"%d\" "
		    "height=\"%d\"/>\n<path class=\"axis\" d=\"M%d %dV%dH%d\"/>"
		    "\n",
		    PLOT_LEFT, PLOT_TOP, PLOT_RIGHT - PLOT_LEFT,
		    PLOT_BOTTOM - PLOT_TOP, PLOT_LEFT, PLOT_TOP, PLOT_BOTTOM,
		    PLOT_RIGHT);
	strbuf_reset(&text);
	format_quantity(&text, f.y1, s->unit);
	add_label(out, "ymax", PLOT_LEFT - 6, PLOT_TOP + 8, "end", text.buf);
	strbuf_reset(&text);
	format_quantity(&text, f.y0, s->unit);
	add_label(out, "ymin", PLOT_LEFT - 6, PLOT_BOTTOM, "end", text.buf);
	add_label(out, "xfirst", PLOT_LEFT, PLOT_BOTTOM + 20, "start",
		  history->commits[s->points[first].commit].commit_time);
	add_label(out, "xlast", PLOT_RIGHT, PLOT_BOTTOM + 20, "end",
		  s->points_nr - first > 1
			  ? history->commits[s->points[s->points_nr - 1].commit]
				    .commit_time
			  : "");
	strbuf_addstr(out, "<polyline id=\"line\" class=\"line\" points=\"");
	for (size_t i = first; i < s->points_nr; i++)
		strbuf_addf(out, "%s%.1f,%.1f", i > first ? " " : "",
			    frame_x(&f, (double)s->points[i].commit),
			    frame_y(&f, s->points[i].median));
	strbuf_addstr(out, "\"/>\n<g id=\"points\">\n");
	for (size_t i = first; i < s->points_nr; i++)
		add_point(out, history, s, i, &f, links);
	strbuf_addf(out,
		    "</g>\n<rect id=\"sel\" class=\"sel\" x=\"0\" y=\"%d\" "
		    "width=\"0\" height=\"%d\"/>\n</svg>\n<div id=\"tip\" "
		    "class=\"tip\" hidden></div>\n</div>\n",
		    PLOT_TOP, PLOT_BOTTOM - PLOT_TOP);
	strbuf_release(&text);
}
