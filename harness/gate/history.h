/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_HISTORY_H
#define BENCHGATE_HISTORY_H

#include "harness/gate/changepoint.h"
#include "harness/model/history_series.h"

#include <stdbool.h>
#include <stddef.h>

struct git_repository;
struct store;

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
