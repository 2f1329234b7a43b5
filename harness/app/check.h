/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CHECK_H
#define BENCHGATE_CHECK_H

#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "harness/run/session.h"

#include <stdbool.h>

/*
 * `benchgate check`, the CI gate, as a library: a session (session.h)
 * whose candidate is compared with its baseline, the gate driving every
 * step so that nothing below it calls up:
 *
 *     check_run()       prepare the session; find the baseline (store,
 *                       file or committed baseline, baseline.h) before
 *                       anything runs, so the new result cannot be its
 *                       own; or, with a baseline tree, describe the
 *                       tree's commit; then measure (below)
 *     (the caller)      the result is complete and not stored: the
 *                       command layer draws its flame graphs
 *     check_conclude()  store the result (or keep it aside when the
 *                       store refuses it), compare it with the baseline
 *
 * Adaptive sampling ("runs": "auto", and check's default for a benchmark
 * whose suite sets no "runs": session_options.auto_unless_set): a case
 * samples from its min_runs to its max_runs within the time budget
 * (check_options.budget_s, counted from the first run), and stops once
 * its comparison with the baseline is decided either way
 * (compare_case_decided()), or once its medians are precise: every
 * non-exact metric's median known to within the benchmark's `precision`
 * (half-width of the bootstrap interval at the benchmark's confidence,
 * relative to the median). `run` has no baseline: precision alone.
 *
 * The gate's settings (the command line's --threshold and --confidence
 * over the suite's, compare_threshold()) are resolved once per case, and
 * the comparison reads the same ones.
 */

struct check_options {
	/* What to run; its baseline_tree is --baseline-tree: the baseline
	 * is measured in the session from that work tree, interleaved with
	 * the candidate, instead of looked up. */
	struct session_options session;
	/* --baseline: "auto", a revision or a result file; with a baseline
	 * tree only "auto" (the tree names its commit). */
	const char *baseline;
	const char *branch; /* --branch: the target of auto; NULL: default */
	/* What the baseline's note calls the baseline tree (check
	 * --against names how it was made); NULL: "tree DIR". */
	const char *baseline_what;
	double threshold;   /* --threshold; < 0: the suite's */
	double confidence;  /* --confidence; < 0: the suite's */
	/* Seconds of measuring after which adaptive cases stop at the runs
	 * they have (their min_runs at least): --budget, else
	 * $BENCHGATE_BUDGET, else CHECK_BUDGET_DEFAULT; 0: none. */
	int budget_s;
};

/* The time budget of check's adaptive sampling: 15 minutes. */
#define CHECK_BUDGET_DEFAULT 900

/* The budget where --budget does not set one: $BENCHGATE_BUDGET, a whole
 * number of seconds (0: none), else CHECK_BUDGET_DEFAULT. BG_EINPUT
 * naming the variable when it holds anything else. */
int check_budget_from_env(int *budget_s);

struct check {
	struct session *session;
	/* What the candidate is compared against. With a baseline tree:
	 * source "tree", path the tree, no history (measuring both sides
	 * together takes out the between-session noise a history would
	 * estimate), and the result measured in the session, labelled with
	 * the tree's commit, once check_conclude() took it. */
	struct baseline baseline;
	struct comparison *comparison; /* set by check_conclude() */
	struct check_state *state;     /* check.c's own */
};

/*
 * Prepares the session of opts into *out (free with check_free(), also
 * after an error), finds the baseline and measures every case
 * (check_measure()); the result is then complete, not stored. opts and
 * what it points to are borrowed until check_free(). BG_EINPUT for bad
 * suites and options (a baseline that is no result file nor revision; a
 * baseline tree session_prepare() refuses, or combined with --order
 * sequential or a --baseline other than auto), BG_ERROR when the harness
 * cannot run or git fails.
 */
int check_run(struct check **out, const struct check_options *opts);

/*
 * Stores the result and compares it with the baseline into
 * check->comparison, whose sides name where each came from (the
 * baseline's source and path, the candidate's file). A result the store
 * refuses is kept aside (session_keep(): a file in the current directory
 * or $TMPDIR) and compared all the same, as the verdict does not depend
 * on where the result is kept: the candidate's path is then the kept
 * file ("" when nothing took it), and check->session->unstored says what
 * happened. Errors of compare_results() only.
 */
int check_conclude(struct check *check);

void check_free(struct check *check);

/*
 * Measures a prepared session (session_prepare()): claims its place, makes
 * every run, stopping each adaptive case once it has enough samples (see
 * above; check NULL: once its medians are precise, as `run` does), and
 * finishes it (session_finish()). The result is not stored. Errors of
 * session_start(), session_step() and session_finish().
 */
int check_measure(struct session *session, const struct check *check);

#endif
