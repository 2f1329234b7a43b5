/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_HISTORY_VIEW_H
#define BENCHGATE_HISTORY_VIEW_H

#include "reporters/report.h"

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stdio.h>

/*
 * What `benchgate history` shows of a branch's history
 * (harness/gate/history.h, which reaches the reporters through
 * reporters/report.h): a terminal view, CSV and the JSON document. They
 * only format what the history holds; every user string in it (names,
 * units, commit subjects) is escaped for the format.
 */

/* The width of a sparkline in cells: the newest points beyond it are
 * kept, an ellipsis stands for the older ones. */
#define HISTORY_VIEW_WIDTH 40

/*
 * The terminal view: a line saying what was walked, then per suite and
 * machine a heading and per series one line: the case, the metric, a
 * sparkline of the medians (U+2581..U+2588, scaled to the shown points'
 * range; a space for commits without a result between two points, a '|'
 * before the first point of each new level), the latest median with its
 * unit, and the number of points. Beneath it each change point: its
 * commit, the change with its interval and direction, the levels before
 * and after, the commits a bisect would search, and the subject. Then a
 * block per incident (attribution.h): the commit to blame with its author
 * and subject, the `benchgate bisect` range when it is more than one
 * commit, and every series that moved there with its change. Colour
 * (ANSI: red regressions, green improvements) only with `color`.
 */
void history_view_terminal(struct strbuf *out, const struct history *history,
			   bool color);

/*
 * RFC 4180 CSV with CRLF line ends, a header and one row per point:
 * suite, benchmark, variant, device, machine, metric, unit, better,
 * commit, commit_time, subject, n, median, ci_low, ci_high, change_point
 * (1 on the first point of a new level, else 0). Text goes through
 * escape_csv() (formula injection defused); numbers are written here,
 * empty when not finite.
 */
void history_view_csv(struct strbuf *out, const struct history *history);

/*
 * The document `history --json` writes:
 *   {"benchgate_history": 1, "branch": ..., "series": [{"suite",
 *   "benchmark", "variant", "device", "machine", "metric", "unit",
 *   "better", "points": [{"commit", "commit_time", "subject", "n",
 *   "median", "ci": [lo, hi]}], "change_points": [{"commit", "index",
 *   "before", "after", "change", "change_ci": [lo, hi], "direction",
 *   "range": [first, commit], "resolved_by" (regressions only: the
 *   commit of the change point that took it back, null while it
 *   stands), "author", "incident"}]}],
 *   "incidents": [{"commit", "commit_time", "subject", "author",
 *   "range": [first, last], "range_commits", "regressions", "moves":
 *   [{"series", "change_point", "suite", "benchmark", "variant",
 *   "device", "machine", "metric", "direction", "change"}]}]}
 * points oldest first; a change point's index is into points and its
 * commit the first of the new level; direction "regression" or
 * "improvement" by the metric's better; range the commits a bisect
 * searches, from the first after the previous point to commit; author
 * "Name <email>" (null unless attribution_find() read it), incident an
 * index into incidents (null: none). An incident's commit is the last of
 * its range; its moves index series and their change_points. Unknown
 * numbers are null.
 */
struct history_json {
	const struct history *history;
	size_t next;
	/* each commit's hash, time and subject, side by side in commit
	 * order: the points read them in that order, a series after
	 * another, and strings scattered over the heap missed the cache
	 * at every point */
	struct strbuf commit_text;
	size_t *commit_at; /* 3 per commit, SIZE_MAX for NULL */
};

/* Starts writing history's document with history_json_next();
 * history_json_release() when done. */
void history_json_start(struct history_json *it,
			const struct history *history);
void history_json_release(struct history_json *it);

/* Appends the next piece of the document (the text of cJSON_Print(), one
 * series at a time) to out: a file_producer (fileio.h) for a history_json
 * ctx, false when the piece was the last. */
bool history_json_next(void *ctx, struct strbuf *out);

/*
 * `history --alert`'s lines: per new regression (alert.h), newest commit
 * first, "new regression in SUITE on MACHINE: CASE METRIC" and beneath it
 * the change point as the terminal view shows it (commit, change and
 * interval, levels, bisect range, subject). Colour only with `color`.
 */
void history_view_alerts(struct strbuf *out, const struct history *history,
			 const struct alerts *alerts, bool color);

#endif
