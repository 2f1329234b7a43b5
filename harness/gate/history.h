/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_HISTORY_H
#define BENCHGATE_HISTORY_H

#include "harness/gate/changepoint.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The history of a branch (`benchgate history`): for every case, machine
 * and metric stored along the branch, the series of its medians over the
 * branch's first parents, and where the series changed level
 * (changepoint.h).
 *
 * First parents only: a merge commit of a pull request stands for the whole
 * pull request, as the default branch's nightly runs measured it; the
 * commits inside the pull request were never on the branch. A commit
 * without a stored result of a series is a gap in it, not a point.
 *
 * Several results of one commit, suite and machine (a nightly run, a
 * filtered rerun, bisect's measurements of one variant): each case and
 * metric takes its point from the newest result that measured it, so a
 * rerun of some cases never hides the others; a corrupt result is
 * reported and passed over.
 *
 * Results are read through the store's history index (history_index.h):
 * each file is read and summarised once, and later calls read the
 * summaries.
 */

struct history_request {
	const char *branch;    /* NULL: the default branch as
				* repo_default_branch() finds it
				* (origin/HEAD, main, master), else HEAD;
				* a name: origin/NAME first, then NAME */
	const char *since;     /* NULL: the whole history; a date
				* ("2026-11-22", or ISO 8601 with a time):
				* the walk stops at the first commit made
				* before it; a revision: the walk ends with
				* it, it included */
	const char *start_dir; /* where to find the repository; NULL: "." */
	/* The repository, opened by the caller (repo_open()) and borrowed;
	 * NULL: opened from start_dir. */
	struct git_repository *repo;
	/* Filters, each NULL for all, else compared exactly. */
	const char *suite;
	const char *benchmark;
	const char *variant;
	const char *device;
	const char *metric;
	const char *machine;
	/* NULL: changepoint_options_init()'s defaults. */
	const struct changepoint_options *changepoints;
};

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
	struct store_entry *sources;
	size_t sources_nr, sources_alloc;
};

/*
 * Walks the first parents of req->branch's tip (newest to oldest, down to
 * req->since), reads each commit's results from store, and fills *out
 * (released first by nothing: pass a zeroed struct; release it with
 * history_release(), also after an error) with the series that pass the
 * filters and their change points.
 * BG_EINPUT, naming the option, for a --branch that names no branch, a
 * --since that is neither a date nor a revision on the walked history,
 * a machine id no store could hold, outside a repository and before the
 * first commit; BG_ERROR when libgit2 or the store cannot be read.
 */
int history_build(struct history *out, struct store *store,
		  const struct history_request *req);

void history_release(struct history *history);

#endif
