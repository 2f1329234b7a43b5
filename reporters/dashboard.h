/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_DASHBOARD_H
#define BENCHGATE_DASHBOARD_H

#include "reporters/dashboard_series.h"
#include "reporters/report.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The static dashboard `benchgate publish` writes: the pages of a branch's
 * history (harness/gate/history.h, through reporters/report.h), made in
 * memory as text, so that harness/app/publish.h can write only the ones that changed.
 * Nothing in a page loads from the network: the pages carry a
 * Content-Security-Policy that forbids it, their style inline, their
 * small charts as inline SVG and their big charts as SVG files of the
 * site; the only script that may run is the series pages' own
 * (dashboard_script.h), allowed by its hash. Every user string (names,
 * units, subjects, the repository address) is escaped for HTML or XML
 * (escape.h); the script reads them from attributes and writes them
 * back as text.
 *
 * The site, relative to its directory:
 *   index.html         the latest change points of all series, then per
 *                      suite and machine a folding section per
 *                      benchmark, a heading per variant, and per series
 *                      a sparkline on its own scale (its range beneath),
 *                      its latest value, its change from the previous
 *                      point and its last change point
 *   regressions.html   every worse-direction change point, newest first,
 *                      grouped by commit (one regression, not forty)
 *   feed.xml           Atom feed of the change points, newest first
 *   series/NAME.html   one page per series: its interactive chart
 *                      (dashboard_chart.h: hover, zoom), its gnuplot
 *                      chart, change points and newest points, each
 *                      point with links to its run's log and report
 *                      where opts->run_pages gives them (the caller
 *                      adds those pages to the site)
 *   charts/NAME.gp/dat the series' gnuplot chart (charts_series()), drawn
 *                      into charts/NAME.svg
 */

struct dashboard_options {
	/* The repository's web address (https://host/owner/name), which
	 * links each commit; NULL links none. */
	const char *repo_url;
	/* Optional: the pages of the run that point `point` of
	 * history->series[series] came from, as the site publishes them
	 * (paths relative to the site: "logs/NAME.html", "reports/
	 * NAME.html"): sets *log and *report, NULL for none (borrowed, valid
	 * while the dashboard is rendered). NULL: no point links a run. */
	void (*run_pages)(void *payload, size_t series, size_t point,
			  const char **log, const char **report);
	void *payload;
};

/* One file of the site: its path relative to the site, its content. */
struct dashboard_file {
	char *path;
	struct strbuf text;
	/* The file an earlier publish wrote is kept as it is, text unused:
	 * a page that costs a result's loading to make and never changes
	 * (a run's log or report). */
	bool keep;
};

struct dashboard {
	struct dashboard_file *files; /* the pages and the feed */
	size_t files_nr, files_alloc;
	/* One per series: charts/STEM.gp draws charts/STEM.dat into
	 * charts/STEM.svg, which the series page shows. */
	struct charts charts;
};

/* The sparkline of the index: the newest points at most. */
#define DASHBOARD_SPARK_POINTS 60
/* The change points listed on the index (the feed: feed.h). */
#define DASHBOARD_LATEST_CHANGES 20
/* The newest points a series page lists in its table. */
#define DASHBOARD_TABLE_POINTS 100

/*
 * Renders every file of the site of history into *out (zeroed by the
 * caller; release with dashboard_release()). Deterministic: the same
 * history gives the same bytes, so an unchanged page is known by its
 * content; no page holds the time it was made. Never fails.
 */
void dashboard_render(struct dashboard *out, const struct history *history,
		      const struct dashboard_options *opts);

void dashboard_release(struct dashboard *dashboard);

/* Adds a file to the site: text is moved into it (text is left empty);
 * keep as in struct dashboard_file. */
void dashboard_add_file(struct dashboard *dashboard, const char *path,
			struct strbuf *text, bool keep);

/*
 * The page of a run's log (logs/NAME.html): its title (plain text), then
 * the log's bytes escaped in a <pre> (invalid UTF-8 replaced), with a note
 * when it was cut short; the site's CSP, no script. depth as the site's
 * pages: "../".
 */
void dashboard_log_page(struct strbuf *out, const char *title,
			const char *log, size_t len, bool truncated);

#endif
