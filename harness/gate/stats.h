/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STATS_H
#define BENCHGATE_STATS_H

#include "harness/model/stats_summary.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Statistics for the comparison engine: summaries, bootstrap intervals,
 * trimmed t-tests, the Hodges-Lehmann ratio, false discovery control and
 * tail weight. No I/O and no global state: every function is reentrant.
 *
 * Conventions that hold for every function below:
 * - A sample is `const double *v, size_t n`. It is never modified; functions
 *   that need order sort a private copy.
 * - Values must be finite. NaN and infinities are the caller's responsibility
 *   (drop them before calling): they give meaningless numbers, but never
 *   undefined behaviour or out-of-bounds access.
 * - With two samples, the first (`a`, `base`) is the baseline and the second
 *   (`b`, `cand`) the candidate; effects are candidate relative to baseline.
 * - An empty sample is not an error for functions that return a double: they
 *   return NAN. Functions that return an int return BG_EINPUT for it, with a
 *   message recorded by bg_input_error(); BG_OK otherwise.
 * - Randomness comes only from the caller's seed (xoshiro256** seeded by
 *   splitmix64), so the same inputs and seed give the same numbers on every
 *   platform.
 */

/* Scales the MAD to estimate the standard deviation of normal data. */
#define STATS_MAD_SCALE 1.4826

/* Resamples stats_summarize() uses for the interval of the median. */
#define STATS_BOOTSTRAP_RESAMPLES 2000

/* Pseudo-random numbers: xoshiro256** seeded by splitmix64 (Blackman &
 * Vigna, 2018), the one generator of the project, so a seed means the same
 * stream to the bootstrap and to the simulations that test it. */

struct stats_rng {
	uint64_t s[4];
};

void stats_rng_seed(struct stats_rng *rng, uint64_t seed);

/* Uniform in (0, 1]: never 0, so its logarithm is finite. */
double stats_rng_uniform(struct stats_rng *rng);

/* The standard normal distribution */

/* The z with P(Z <= z) = p (Wichura's AS241, about 1e-16 relative error):
 * 1.959964 for 0.975. -INFINITY for 0, INFINITY for 1, NAN outside [0, 1]. */
double stats_normal_quantile(double p);

/* Location and spread of one sample */

double stats_min(const double *v, size_t n);
double stats_max(const double *v, size_t n);
double stats_mean(const double *v, size_t n);

/* The sample standard deviation (divisor n - 1). 0 for n == 1: a single
 * value shows no spread, and JSON has no NaN to report it with. */
double stats_stddev(const double *v, size_t n);

/* The middle value; the mean of the two middle values when n is even. */
double stats_median(const double *v, size_t n);

/* The p-th percentile, p in [0, 100] (asserted), interpolating linearly
 * between order statistics: type 7 of Hyndman & Fan (1996), the default of
 * R's quantile() and numpy's percentile(). */
double stats_percentile(const double *v, size_t n, double p);

/* STATS_MAD_SCALE * MAD, the MAD being the median absolute deviation from
 * the median: a robust estimate of the standard deviation. */
double stats_mad_scaled(const double *v, size_t n);

/* Robust coefficient of variation, STATS_MAD_SCALE * MAD / |median|: the
 * run-to-run noise of a metric as a fraction of its level. 0 when the MAD is
 * 0 (including all-equal samples); INFINITY when only the median is 0. */
double stats_robust_cv(const double *v, size_t n);

/* Bootstrap confidence intervals (percentile method) */

struct stats_interval {
	double low;
	double high;
};

/*
 * The `confidence` (in (0, 1), e.g. 0.99) interval of the median of v:
 * draws `resamples` resamples of v with replacement, takes the median of
 * each, and returns the type-7 percentiles (1 - confidence) / 2 and
 * (1 + confidence) / 2 of those medians. Deterministic for a seed.
 *
 * The data is sorted once; a resample is then counts per sorted value, so a
 * resample costs O(n) and no sort. n == 1 gives [v[0], v[0]].
 *
 * BG_EINPUT when n == 0, resamples == 0, or confidence is not in (0, 1).
 */
int stats_bootstrap_median_ci(const double *v, size_t n, double confidence,
			      size_t resamples, uint64_t seed,
			      struct stats_interval *out);

/*
 * The distribution-free `confidence` interval of the median of v from its
 * order statistics: [v_(j), v_(n+1-j)] (1-based, sorted) for the largest j
 * with 2 P(Binomial(n, 1/2) < j) <= 1 - confidence, which holds the median
 * of any continuous distribution with probability >= confidence. When even
 * [min, max] falls short (n < 8 at 0.99) it is [min, max]; n == 1 gives
 * [v[0], v[0]]. No resampling: O(n log n), for the many points of a
 * history (history.h), where a bootstrap per point would cost thousands of
 * medians each. BG_EINPUT as stats_bootstrap_median_ci().
 */
int stats_median_order_ci(const double *v, size_t n, double confidence,
			  struct stats_interval *out);

/*
 * The interval of median(cand) / median(base), resampling both samples
 * independently (baseline first, then candidate, in each resample). Subtract
 * 1 from the bounds for the interval of the relative change.
 *
 * BG_EINPUT as stats_bootstrap_median_ci(), and when base contains 0 or
 * values of both signs: a resampled median could then be 0.
 */
int stats_bootstrap_ratio_ci(const double *base, size_t nbase,
			     const double *cand, size_t ncand,
			     double confidence, size_t resamples, uint64_t seed,
			     struct stats_interval *out);

/* t-tests: Welch's, and Yuen's on trimmed means */

/* P(|T| >= |t|) for Student's t with df > 0 degrees of freedom (df may be
 * fractional), through the regularized incomplete beta function:
 * I_{df / (df + t^2)}(df / 2, 1 / 2). NAN for df <= 0. */
double stats_t_two_sided(double t, double df);

/* The t > 0 with stats_t_two_sided(t, df) == alpha, alpha in (0, 1): the
 * two-sided critical value (3.169 at alpha 0.01 and df 10), by bisection
 * to the last bit. NAN for df <= 0 or alpha outside (0, 1). */
double stats_t_critical(double alpha, double df);

struct stats_welch {
	double difference; /* b's (trimmed) mean less a's */
	double mean_a, mean_b; /* each side's (trimmed) mean; one sample: 0, v's */
	double se;	   /* standard error of the difference */
	double t;	/* difference / se: positive when b's mean is larger */
	double df;	/* Welch-Satterthwaite, at the variances' own df */
	double p_value; /* two-sided */
};

/*
 * How much less a sample of dependent values (runs that drift) says about
 * its mean than its count suggests, in the two ways that matter to a t-test:
 * - inflation (>= 1): the variance of the sample's mean over s^2 / n, its
 *   value for independent values; n / inflation is the sample's effective
 *   size, the independent values it is worth;
 * - df_share (in (0, 1]): the share of the n - 1 degrees of freedom its
 *   variance estimate keeps, as a dependent sample's s^2 varies more from
 *   sample to sample than an independent one's.
 * Independent values: { 1, 1 }. The two degrade separately: shrinking the
 * sample to n / inflation values and taking the degrees of freedom from
 * that (what the gate did before) left a drifting side of 10 runs with
 * one degree of freedom, where t's critical value passes 60 at 0.99.
 */
struct stats_dependence {
	double inflation;
	double df_share;
};

/* The largest lag-1 autocorrelation stats_ar1_dependence() takes: above
 * it the dependence of a few runs cannot be told from a trend, and the
 * variance's inflation would grow without bound. */
#define STATS_AR1_MAX 0.9

/*
 * The dependence of n values of a stationary AR(1) series with lag-1
 * autocorrelation r (taken at most STATS_AR1_MAX; r <= 0: independent):
 * - inflation = (n - 1) f / (n - f), f = 1 + 2 sum_{k<n} (1 - k/n) r^k,
 *   exact for the AR(1): Var(mean) = sigma^2 f / n, while E[s^2] =
 *   sigma^2 (n - f) / (n - 1) (the sample variance, taken around a mean
 *   that itself drifts, misses part of the spread). At r 0.5 and n 10 it
 *   is 3.2 where the large-sample (1 + r) / (1 - r) says 3;
 * - df_share = (1 - r^2) / (1 + r^2), Bartlett's (1946) equivalent
 *   degrees of freedom of an AR(1)'s variance: Var(s^2) ~ 2 sigma^4 / n
 *   (1 + r^2) / (1 - r^2).
 */
void stats_ar1_dependence(size_t n, double r, struct stats_dependence *out);

/*
 * Yuen's (1974) test: Welch's test of the trimmed means, trimming
 * floor(trim n) values (0 <= trim < 0.5) off each end of each sample, with
 * the squared standard error (n - 1) s_w^2 / (h (h - 1)) from the
 * winsorized variance s_w^2 over the h values kept. At trim 0 it is
 * Welch's two-sample t-test. As scipy's
 * ttest_ind(a, b, equal_var=False, trim=trim) for independent samples
 * (da and db NULL). A few outliers move a 20 % trimmed mean no more than
 * they move a median, while it keeps most of the mean's efficiency.
 *
 * da and db (NULL: independent) say how dependent each sample's values
 * are: each squared standard error is multiplied by its inflation, and
 * the Welch-Satterthwaite degrees of freedom combine each side's h - 1
 * times its df_share. Identical samples give p = 1.
 *
 * BG_EINPUT when fewer than 2 values of a sample are kept, trim is out of
 * range or a dependence is out of its ranges.
 */
int stats_yuen_eff(const double *a, size_t na, const double *b, size_t nb,
		   const struct stats_dependence *da,
		   const struct stats_dependence *db, double trim,
		   struct stats_welch *out);

/*
 * The one-sample form of stats_yuen_eff(), for paired values: whether the
 * (trimmed) mean of v, the differences of the pairs, is 0, their
 * dependence dep (NULL: independent). `difference` is that trimmed mean,
 * `se` its standard error as stats_yuen_eff() takes it for one side, df
 * (h - 1) times dep's df_share. As scipy's ttest_1samp(v, 0) at trim 0,
 * and ttest_ind(v, zeros, equal_var=False, trim=trim) otherwise: a side
 * of zeros adds nothing to the variance.
 * BG_EINPUT when fewer than 2 values are kept, trim is out of range, or
 * dep is out of its ranges.
 */
int stats_yuen_one_sample(const double *v, size_t n,
			  const struct stats_dependence *dep, double trim,
			  struct stats_welch *out);

/* Ranks */

/* The ranks of v (1 to n, ties sharing the mean of their ranks) into
 * ranks[n]: what the gate's lag-1 autocorrelation is computed on, so that
 * one run far off the rest weighs as one rank, not as its square. */
void stats_ranks(const double *v, size_t n, double *ranks);

/* Effect size */

/* The Hodges-Lehmann estimate of the relative change from a to b: the
 * median of all na * nb ratios b_j / a_i (subtract 1 for the change).
 * Found by bisection over the doubles with a merge count per step, so it
 * takes O((na + nb) log) time and O(na + nb) memory, not the na * nb
 * ratios. NAN when a sample is empty or a value is not > 0. */
double stats_hodges_lehmann_ratio(const double *a, size_t na, const double *b,
				  size_t nb);

/* Paired data: Wilcoxon's signed-rank test */

/* The most pairs stats_signed_rank() takes: its Walsh averages number
 * n (n + 1) / 2. */
#define STATS_SIGNED_RANK_MAX 1000

struct stats_signed_rank {
	double estimate;  /* Hodges-Lehmann: median of the Walsh averages */
	double low, high; /* -inf and inf when n cannot reach the level */
	double p_value;	  /* two-sided */
};

/*
 * Wilcoxon's signed-rank test of whether the differences d (one a pair)
 * centre on 0, with its Hodges-Lehmann estimate (the median of the
 * n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j) and the exact
 * distribution-free interval of it, [W_(k), W_(M+1-k)] of the M sorted
 * Walsh averages for the largest k with P(T <= k - 1) <= (1 - confidence)
 * / 2 (Hollander and Wolfe, 3.3). The null distribution of T is exact up
 * to 50 pairs and normal with a continuity correction above. The statistic
 * is counted on the Walsh averages (those above 0 against those below,
 * a zero counting against rejection), so that the interval leaves out 0
 * exactly when p <= 1 - confidence, and the estimate always lies inside
 * it. When even k = 1 falls short (2^(1-n) > 1 - confidence: fewer than 8
 * pairs at 0.99) the interval is unbounded. BG_EINPUT when n is 0 or above
 * STATS_SIGNED_RANK_MAX, a value is not finite, or confidence is not in
 * (0, 1).
 */
int stats_signed_rank(const double *d, size_t n, double confidence,
		      struct stats_signed_rank *out);

/* Whether n pairs can make the signed-rank test reject at this
 * confidence: 2^(1-n) <= 1 - confidence. */
bool stats_signed_rank_can_reject(size_t n, double confidence);

/* Multiple comparisons */

/*
 * Benjamini-Hochberg (1995) adjusted p-values, as R's p.adjust("BH"):
 * adjusted_(i) = min over j >= i of min(1, n / j * p_(j)) in ascending order
 * of p, written to adjusted[] in the input's order. Rejecting every
 * hypothesis with adjusted <= q keeps the false discovery rate at q.
 * `adjusted` may be `p` itself. Nothing happens when n == 0.
 */
void stats_bh_adjust(const double *p, size_t n, double *adjusted);

/* Tail weight */

/*
 * Hogg's (1974) tailweight Q2 = (U_0.05 - L_0.05) / (U_0.5 - L_0.5), where
 * U_b (L_b) is the mean of the largest (smallest) n b values, fractions of
 * a value counted: how far the extremes reach, in units of the spread of
 * the bulk. About 1.9 for the uniform, 2.59 for the normal, 3.30 for the
 * Laplace and 5.9 for the Cauchy distribution; unchanged by a shift or a
 * scaling of the sample. NAN when n < 4 or the halves do not differ.
 */
double stats_tailweight(const double *v, size_t n);

/* Summary */

/*
 * Fills out (harness/model/stats_summary.h) with every number of a summary
 * for v, the interval of the median from its order statistics
 * (stats_median_order_ci()): exact, and no thousands of resampled medians
 * per metric (seed is no longer used).
 * BG_EINPUT when n == 0 (out is then n = 0 and NAN everywhere) or confidence
 * is not in (0, 1).
 */
int stats_summarize(const double *v, size_t n, double confidence, uint64_t seed,
		    struct stats_summary *out);

#endif
