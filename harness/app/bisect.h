/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BISECT_H
#define BENCHGATE_BISECT_H

#include "harness/gate/compare.h"
#include "harness/run/session.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * `benchgate bisect`: the first commit between a good and a bad one at
 * which a regression appeared, found by measuring.
 *
 * The commits searched are the first parents from --bad back to --good
 * (as `history` walks them: a merged pull request is one commit). Each
 * commit tested is written into a scratch directory of its own
 * (checkout.h), built there by the build command (/bin/sh -c, the
 * checkout as its working directory), and measured as the suite file at
 * the same place in that checkout says, with the build directory at the
 * same place too: the suite, its commands and its build all come from
 * that commit. The ends' checkouts stay, built, until the search ends;
 * each other commit's is removed once it is classified (on SIGINT,
 * SIGTERM and SIGHUP too).
 *
 * The two ends are measured first, side by side (as `check
 * --baseline-tree` measures, runs alternating), each case the filter
 * selects, and compared by the gate pair by pair (compare.h): the metrics
 * that regressed from good to bad are what is bisected, and only their
 * cases are measured at the commits between.
 *
 * A commit between is measured beside both ends: in rounds, each the
 * commit measured beside good (an interleaved session, good the baseline
 * twin) and then bad measured beside the commit (another). Round i gives
 * each metric log(at_i / good_i) - log(bad_i / at_i), positive when the
 * commit's level is nearer bad's, and the metrics bisected add theirs up
 * (signed by their regression's direction), each term a ratio of runs
 * made next to each other, so the machine's drift and load bursts
 * cancel. Wilcoxon's signed-rank test of those sums decides: bad when
 * its interval at the gate's confidence lies above 0, good when below.
 * Sequential: the first batch is the fewest rounds with which the test
 * can reach that confidence (8 at 0.99), then BISECT_BATCH_ROUNDS more
 * at a time while it cannot decide, up to the largest max_runs of the
 * bisected benchmarks (the suite's adaptive cap, 30 by default). A
 * commit still undecided there is marked so, and searched around as a
 * skipped one is: so the first bad commit is named only when its parent
 * is the good end or was classified good at that confidence, and itself
 * the bad end or classified bad; otherwise the range that is left. Each
 * session's candidate result goes to the store (the commit's runs beside
 * good; bad's runs beside the commit), and both ends' of their session.
 *
 * A commit that cannot be built, whose suite is missing or invalid, or
 * whose cases fail is skipped, as `git bisect skip` does: the next
 * untested commit nearest the middle is tried instead. When the skipped
 * or undecided ones leave the answer open, the first bad commit is one
 * of a range. About log2(commits) commits are measured between the ends,
 * plus one per skip.
 */

enum bisect_mark {
	BISECT_UNTESTED,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIPPED,
	/* measured to the cap of rounds without reaching the gate's
	 * confidence either way: searched around as a skipped one is */
	BISECT_UNDECIDED,
};

const char *bisect_mark_name(enum bisect_mark mark);

/* The rounds added to a commit's measurements while it is undecided. */
#define BISECT_BATCH_ROUNDS 4

/*
 * The search alone: commits 0 .. nr - 1 (nr >= 2), 0 good and nr - 1 bad
 * (not tested). test(index, &mark, payload) tests a commit between and
 * says BISECT_GOOD, BISECT_BAD or BISECT_SKIPPED; a negative return ends
 * the search with that error. Sets [*first, *last] to the commits one of
 * which is the first bad one (first == last: that one), tested in
 * bisection order, a skipped one's nearest untested neighbour of the
 * middle next (the lower one on a tie). Returns 0 or test()'s error.
 */
typedef int (*bisect_test_fn)(size_t index, enum bisect_mark *mark,
			      void *payload);
int bisect_search(size_t nr, bisect_test_fn test, void *payload,
		  size_t *first, size_t *last);

struct bisect_options {
	/* What to measure, as `run` would here: suite_path and build_dir
	 * as they are in the current work tree (their places in each
	 * checkout follow), the filter, store, runs, warmup, progress. */
	struct session_options session;
	const char *good;	   /* revisions */
	const char *bad;
	const char *build_command; /* run by /bin/sh in each checkout */
	/* Seconds a build may take before its process group is killed and
	 * the commit skipped as one that cannot be built; 0: no limit.
	 * BUILD_TIMEOUT_DEFAULT_S (build.h) unless set (--build-timeout). */
	int build_timeout_s;
	double threshold;	   /* < 0: the suite's */
	double confidence;	   /* < 0: the suite's */
	bool quiet;		   /* no progress lines on stderr */
};

/* A commit of the range, good first. */
struct bisect_commit {
	struct git_meta git; /* commit, commit_time, subject, parents */
	char *author;	     /* "Name <email>" */
	enum bisect_mark mark;
	char *why; /* what the measurement said, or why it was skipped;
		    * NULL untested */
	char *result_path; /* where its result was stored; NULL untested */
	/* A commit between classified: the two-sided p-value of its
	 * rounds' signed-rank test (NAN for the ends and the untested). */
	double p_value;
};

/* A metric that regressed from good to bad: what is bisected. */
struct bisect_metric {
	char *benchmark, *variant, *device, *metric, *unit;
	double good, bad; /* medians at the ends */
	double change;	  /* bad against good */
};

struct bisect {
	struct bisect_commit *commits; /* good .. bad, first parents */
	size_t nr;
	struct bisect_metric *metrics;
	size_t metrics_nr;
	/* The first bad commit is commits[first] when first == last, else
	 * one of commits[first .. last] (the ones between were skipped). */
	size_t first, last;
	size_t measured; /* commits measured, the ends included */
	/* When one commit is named: what that rests on, in words (its p
	 * and its parent's, the confidence); else NULL. */
	char *verdict;
};

/*
 * Bisects opts into *out (free with bisect_free(), also after an error;
 * what was tested so far is there). opts is borrowed for the call.
 * BG_EINPUT for a revision that names no commit, a good commit that is
 * not on the first-parent history of the bad one, a suite or build
 * directory outside the work tree, an end that cannot be built or
 * measured, or ends between which no metric regressed; BG_ERROR when git,
 * the store or the harness fails.
 */
int bisect_run(struct bisect **out, const struct bisect_options *opts);

void bisect_free(struct bisect *bisect);

#endif
