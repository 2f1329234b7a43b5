/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_DASHBOARD_CHART_H
#define BENCHGATE_DASHBOARD_CHART_H

#include "reporters/report.h"

/*
 * The chart at the top of a series page (dashboard.h): the newest points
 * of the series as inline SVG, each median with its 99 % interval, the
 * first point of each new level in its direction's colour, and the y-axis
 * scaled to the points shown. Drawn whole here, so that it reads without
 * a script; dashboard_script.h's script adds the hover (commit, date,
 * value, interval, subject) and the zoom, reading each point from its
 * data- attributes. Every user string (commit subject, unit, time) is
 * escaped for HTML here; numbers are written with enough digits to give
 * back the double.
 *
 * The elements the script finds by id (one chart a page): #chart (the
 * figure), #plot (the SVG; data-unit), #line, #points (a g.pt per point:
 * data-x the commit's index in history->commits, data-y the median,
 * data-lo and data-hi its interval, data-commit, data-date, data-value,
 * data-ci, data-subject, and data-busy, data-log and data-report where
 * there is one), #sel, #range, #ymin, #ymax, #xfirst, #xlast and #tip;
 * the zoom buttons carry data-last, the number of newest points to show
 * (0: all).
 */

/* The newest points the chart holds, as charts_series() does. */
#define DASHBOARD_CHART_POINTS 500

/* What a series page links for each of its points (NULL: nothing), as
 * paths relative to the series page; parallel to series->points. */
struct dashboard_point_links {
	const char *const *logs;
	const char *const *reports;
	size_t nr;
};

/* Appends the chart of s (at least one point) to out; links may be NULL. */
void dashboard_chart_render(struct strbuf *out, const struct history *history,
			    const struct history_series *s,
			    const struct dashboard_point_links *links);

#endif
