/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_HISTORY_SERIES_H
#define BENCHGATE_HISTORY_SERIES_H

#include "harness/model/changepoint.h"
#include "harness/model/result.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The history of a branch as data: for every case, machine and metric
 * stored along the branch, the series of its medians over the branch's
 * first parents, its change points, the incidents that group them, and the
 * regressions a published dashboard does not show yet. The gate makes them
 * (history_build() in harness/gate/history.h, which says how;
 * changepoint_detect(), attribution_find(), alert_find()) and releases
 * them (history_release(), alerts_release()); the reporters only read
 * them (reporters/history_view.h, the dashboard, the charts).
 */

struct store_entry;

/* The level of the interval of each point's median. */
#define HISTORY_CONFIDENCE 0.99

/* One measured commit of a series. */
struct history_point {
	size_t commit;		/* index into history->commits */
	size_t n;		/* the samples measured */
	double median;		/* of the samples */
	double ci_low, ci_high; /* the median's order-statistic interval
				 * at HISTORY_CONFIDENCE,
				 * stats_median_order_ci() */
	/* Cores other processes kept busy while its result was measured
	 * (machine_load's cpu_busy, result.h); 0 when quiet or not
	 * recorded. At MACHINE_LOAD_BUSY_CPU or more the machine was busy:
	 * the dashboard marks the point. */
	double busy;
	size_t source; /* the result it came from: history->sources */
};

/* A change point of a series: points[at.index] starts the new level. */
struct history_change {
	struct changepoint at;
	bool regression; /* the change goes the metric's worse way */
	/* The first commit (index into history->commits) after the point
	 * before at.index: commits from there to points[at.index].commit
	 * are what a bisect searches; equal when nothing lies between. */
	size_t range_first;
	/* index into history->incidents (attribution.h), or
	 * HISTORY_NO_INCIDENT: an improvement that met no regression; valid
	 * only below incidents_nr */
	size_t incident;
	/* A regression that was fixed: resolved, and resolved_by the index
	 * into the series' changes of the first later change point that took
	 * back at least half of it (its level after is nearer the
	 * regression's level before than the regression's level after, on a
	 * log scale when both are positive). false for improvements. */
	bool resolved;
	size_t resolved_by;
};

#define HISTORY_NO_INCIDENT ((size_t)-1)

/* A change point of an incident: history->series[series].changes[change]. */
struct history_move {
	size_t series;
	size_t change;
	bool regression; /* as the change says */
};

/* One cause (attribution.h): the commits a bisect searches and the change
 * points there. */
struct history_incident {
	/* indices into history->commits, first <= last: the commits every
	 * move's range holds; last is the commit to blame when they are
	 * equal, else the end of what a bisect searches */
	size_t range_first, range_last;
	struct history_move *moves; /* regressions first, then in series
				     * order */
	size_t moves_nr, moves_alloc;
	size_t regressions; /* how many moves go the worse way (>= 1) */
};

/* One case, machine and metric along the branch. */
struct history_series {
	char *suite;
	char *benchmark;
	char *variant;
	char *device;
	char *machine;
	char *metric;
	char *unit; /* NULL when the result has none; unit and better as the
		     * newest result of the series says */
	enum better better;
	struct history_point *points; /* oldest first */
	size_t points_nr, points_alloc;
	struct history_change *changes; /* in index order */
	size_t changes_nr, changes_alloc;
};

struct history {
	char *branch; /* what was walked: "main", "origin/HEAD", "HEAD" */
	/* The first-parent commits walked, oldest first: id, commit_time
	 * and subject are set (parents are the commit's own, all of them). */
	struct git_meta *commits;
	size_t commits_nr, commits_alloc;
	/* Ordered by suite, machine, benchmark, variant, device, metric. */
	struct history_series *series;
	size_t series_nr, series_alloc;
	/* The causes of the change points, oldest first, once
	 * attribution_find() grouped them (history_build() leaves none). */
	struct history_incident *incidents;
	size_t incidents_nr, incidents_alloc;
	/* Parallel to commits: "Name <email>" of the commits a change point
	 * or an incident names, NULL for the others. */
	char **authors;
	/* The stored results that gave points, as store_list() named them
	 * (not loaded): what is kept beside one, its logs, is found from
	 * here (store_read_beside()). */
	struct store_entry *sources; /* harness/store/store.h */
	size_t sources_nr, sources_alloc;
};

/* What `history --alert` finds (harness/gate/alert.h) */

/* A new regression: history->series[series].changes[change]. */
struct alert {
	size_t series, change;
};

struct alerts {
	struct alert *items; /* newest commit first */
	size_t nr, alloc;
	bool first_run; /* DIR had no state file */
};

#endif
