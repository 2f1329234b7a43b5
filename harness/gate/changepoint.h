/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CHANGEPOINT_H
#define BENCHGATE_CHANGEPOINT_H

#include "harness/model/changepoint.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Change points in a benchmark's history: the commits where a metric's level
 * moved and stayed moved.
 *
 * The method (docs/evaluation-changepoints.md has its figures):
 * 1. Values: the logarithms of the medians (a change is relative, as
 *    timings are) in a series whose medians are all positive, the medians
 *    themselves otherwise. A point more than 3 standard deviations from
 *    the median of its five nearest quiet neighbours is pulled in to 3:
 *    one bad night is not a level.
 * 2. Noise, from the whole series: each point's value varies as
 *    tau^2 + w_i, w_i the variance of its median from its own samples
 *    ((pi / 2) MAD^2 / n: the point's noise, which benchgate knows and
 *    the peers do not), tau^2 the commit-to-commit variance: the jitter
 *    (MAD of successive differences, squared, / 2, which steps barely
 *    move) less the typical w_i. Nights that drift together carry less:
 *    the ratio of the jitter at lag 2 to that at lag 1 estimates the
 *    lag-1 autocorrelation phi, which inflates tau^2 by
 *    (1 + phi) / (1 - phi). A point measured while other processes kept
 *    `busy` cores busy has its variance multiplied by (1 + 30 busy)^2: a
 *    loaded night barely counts.
 * 3. Search: the segmentation minimising the weighted squared deviations
 *    of the points from their segment's level plus a penalty of 16 (a
 *    4-sigma gain) per change, segments of min_segment points or more
 *    (PELT, exact): every step of a staircase, a regression fixed a few
 *    commits later, a creep cut into pieces.
 * 4. Confirmation: each change, between its neighbours, by a z-test of
 *    the two segments' weighted means under that noise, its p-value
 *    multiplied by the places a change could take there (Bonferroni);
 *    the weakest that fails (p at or above `significance`, or a change
 *    below min_change) is taken out and its neighbours tested again,
 *    until every reported change point is its own test. A series cut
 *    into short pieces over more than a quarter of its length wanders (a
 *    trend, a random walk, rounded values): there each change must also
 *    pass the local test of earlier versions, a t-test whose variance is
 *    the window's pooled spread inflated for its residuals' lag-1
 *    autocorrelation, at window half-widths 4, 16, 64 ... min_segment.
 *
 * Deterministic: no randomness; the same series gives the same change
 * points. Incremental: changepoint_append() re-examines only the points
 * from the last change point on. The search is about linear in n when
 * changes are spread along the series (PELT's pruning), quadratic at
 * worst.
 */

/* One point of a series, oldest first. samples may be NULL (then median is
 * the point's one value); samples are borrowed for the call. Fields added
 * later default to 0: set a point with a designated initializer. */
struct changepoint_input {
	double median;
	const double *samples;
	size_t n;
	/* Without samples, what they would give, when variance_known: the
	 * variance of the median, changepoint_median_variance() of them (a
	 * caller that keeps summaries, not samples: history_index.h). */
	bool variance_known;
	double variance;
	/* Cores that other processes kept busy when the point was measured
	 * (machine_load's cpu_busy; 0: quiet or not recorded). A busy night
	 * counts for less: its variance is multiplied by
	 * (1 + 30 busy)^2, 961 times for one busy core. */
	double busy;
};

/* The variance of the median of samples[0..n) that the test takes for a
 * point's own noise: (pi / 2) MAD^2 / n of the finite samples, robust to a
 * stray run; NAN for fewer than 2 finite samples. */
double changepoint_median_variance(const double *samples, size_t n);

struct changepoint_options {
	double significance; /* the bound on the Bonferroni-corrected p-value,
			       * in (0, 1); other values: the default 0.001 */
	double min_change;   /* minimum relative change |after/before - 1|;
			       * below it a split is not reported; 0: the
			       * default 0.01 */
	size_t min_segment;  /* fewest measured points on either side of a
			       * change; 0: the default 4 */
};

/* The default significance, minimum change and segment length, as used
 * when an option is 0 (docs/evaluation.md says why they were chosen). */
void changepoint_options_init(struct changepoint_options *opts);

/* Detected change points, in index order. */
struct changepoint_list {
	struct changepoint *items;
	size_t nr, alloc;
};

/*
 * Finds the change points of points[0..nr) into *out (reset first; release
 * with changepoint_list_release()). NaN medians are skipped as gaps (they
 * are never a change point's index). Returns 0; never fails on data.
 */
int changepoint_detect(struct changepoint_list *out,
		       const struct changepoint_input *points, size_t nr,
		       const struct changepoint_options *opts);

/*
 * Updates *list, the change points of points[0..nr - k) as changepoint_detect()
 * or this function gave them, for the series with k >= 1 points appended
 * (points[0..nr)). Only the points from the last change point b on are
 * examined again, in O((nr - b) log^2 (nr - b)), so a nightly point does
 * not recompute the series. Precisely:
 * - every change point of *list stays, at its index: a change point once
 *   reported does not vanish or move when a later night is noisy;
 * - the last one's numbers (after, change, interval, p) are recomputed
 *   against its segment as it now ends;
 * - the change points added are those changepoint_detect() finds on
 *   points[b..nr) with the noise (tau^2, phi) of the whole series, their
 *   indices offset by b (the whole series when *list is empty: then the
 *   result is changepoint_detect()'s).
 * So it is not always changepoint_detect()'s answer on the whole series:
 * a search of the whole could place an earlier split otherwise
 * once the new points are in. docs/evaluation-changepoints.md says how
 * often the two differ on generated histories.
 */
int changepoint_append(struct changepoint_list *list,
		       const struct changepoint_input *points, size_t nr,
		       const struct changepoint_options *opts);

void changepoint_list_release(struct changepoint_list *list);

#endif
