/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CHANGEPOINT_H
#define BENCHGATE_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Change points in a benchmark's history: the commits where a metric's level
 * moved and stayed moved.
 *
 * The method: binary segmentation with a t-test at several scales. In a
 * segment of the series every split k that leaves min_segment points on each
 * side is a candidate, tested between the windows [k - h, k) and [k, k + h)
 * for the half-widths h = 16, 64, 256 ... points (4, 16, 64 ... min_segment)
 * and once between the whole segment's two sides: a short window keeps the
 * other changes of a long segment out of the test, the whole segment gives a
 * lone change all its points. The most significant of these tests (ranked by
 * a normal-equivalent z, sqrt((df - 1/2) log(1 + t^2 / df))) has its
 * p-value multiplied by the number of tests made (candidates times scales,
 * Bonferroni) and is kept when that is below `significance`; the change's position is then the split with the
 * largest |t| in that window, and each side is searched the same way. A last
 * pass takes out, weakest first, the splits that no longer hold between
 * their final neighbours (p at or above the significance, or a change below
 * min_change), so every reported change point is its own test. Values are
 * the logarithms of the medians (a change is relative, as timings are) in a
 * segment whose medians are all positive, the medians themselves otherwise.
 *
 * The crux is the variance. A benchmark history moves from commit to commit
 * by more than one commit's runs spread (the machine, the day, the build),
 * so a test on the pooled samples of two sides would call nearly every point
 * a change. Each point is one observation of variance tau^2 + w_i: w_i the
 * variance of its median from its own samples ((pi / 2) MAD^2 / n, the
 * point's noise, which benchgate knows and the peers do not), tau^2 the
 * commit-to-commit variance, estimated as the pooled variance of the points
 * around their side's mean beyond the mean w_i, never below 0. So a point's
 * own w_i is a floor under its variance, a noisy night counts for less, and
 * a series of one value per point (samples NULL: imported summaries, old
 * results) is tested on the spread of its values alone, as Student's t.
 * Two guards keep a smooth or quiet stretch from passing for a step:
 * - dependence: nights that drift together (a machine's state, a trend, a
 *   season) carry less information than their count; the lag-1
 *   autocorrelation r of the residuals (bias-corrected, positive part, at
 *   most 0.95) inflates tau^2 by (1 + r) / (1 - r) and takes the degrees of
 *   freedom down to n (1 - r) / (1 + r) - 2, as compare.c's effective
 *   sample size does for the runs of one result;
 * - no window is taken as quieter than the segment's point-to-point jitter
 *   (MAD of successive differences / sqrt 2; a few tied or calm values are
 *   not the series' noise).
 * A point more than 3 standard deviations from the median of its five
 * neighbours is pulled in to 3 before the test: one bad night is not a
 * level.
 *
 * Deterministic: no randomness; the same series gives the same change
 * points. Incremental: changepoint_append() re-examines only the points
 * from the last change point on. About O(n log^2 n) for n points: 10,000
 * points with 100 change points take some 140 million instructions
 * (callgrind), 40 to 60 ms on this project's shared 2-core machine.
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

/* A change point: points[index] is the first point of the new level. */
struct changepoint {
	size_t index;
	double before;	  /* the level (median) of the segment before */
	double after;	  /* the level of the segment from index on */
	double change;	  /* after / before - 1; (after - before) / |before|
			    * in a segment with a median <= 0 */
	double change_lo; /* the change's interval at 1 - significance: */
	double change_hi; /* log(after / before) +- t * se, as a change */
	double p;	  /* the split's p-value, Bonferroni-corrected for
			    * the candidate splits between the neighbouring
			    * change points */
};

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
 * - the change points added are exactly changepoint_detect()'s on
 *   points[b..nr), their indices offset by b (the whole series when *list
 *   is empty: then the result is changepoint_detect()'s).
 * So it is not always changepoint_detect()'s answer on the whole series:
 * binary segmentation on the whole could place an earlier split otherwise
 * once the new points are in. docs/evaluation.md says how
 * often the two differ on generated histories.
 */
int changepoint_append(struct changepoint_list *list,
		       const struct changepoint_input *points, size_t nr,
		       const struct changepoint_options *opts);

void changepoint_list_release(struct changepoint_list *list);

#endif
