/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/stats.h"

#include "harness/util/error.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

TestSuite(stats);

#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

/* A small generator of test data, independent of the library's own PRNG so
 * that a bug there cannot hide in both (splitmix64, Steele et al. 2014). */
static uint64_t test_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double test_uniform(uint64_t *state)
{
	return ((double)(test_next(state) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal by Box-Muller. */
static double test_normal(uint64_t *state)
{
	double u1 = test_uniform(state), u2 = test_uniform(state);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static int compare_doubles(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double sorted_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), compare_doubles);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The standard normal distribution */

/* P(Z <= z) from erfc(), which keeps the tails' precision: an independent
 * computation to check the library's quantile against. */
static double normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

Test(stats, normal_quantile_matches_the_published_critical_values)
{
	/* Two-sided 95 % and 99 % critical values, as tabulated (e.g.
	 * Abramowitz & Stegun 26.2, Wikipedia "97.5th percentile point"). */
	cr_assert(ieee_ulp_eq(dbl, stats_normal_quantile(0.975),
			      1.959963984540054, 8));
	cr_assert(ieee_ulp_eq(dbl, stats_normal_quantile(0.995),
			      2.5758293035489004, 8));
	cr_assert(ieee_ulp_eq(dbl, stats_normal_quantile(0.025),
			      -1.959963984540054, 8));
	cr_assert(eq(dbl, stats_normal_quantile(0.5), 0.0));
}

Test(stats, normal_quantile_inverts_the_cdf_in_every_branch)
{
	/* Round trip against the erfc()-based CDF above; 1e-20 and 1e-300
	 * reach AS241's far-tail branch. */
	const double ps[] = { 1e-300, 1e-20,	1e-10,	  1e-4, 0.01,
			      0.07,   0.2,	0.5,	  0.8,	0.93,
			      0.99,   1 - 1e-4, 1 - 1e-10 };
	size_t i;

	/* The reference itself: Phi(1.96) = 0.9750021048517795 (Abramowitz
	 * & Stegun 26.2). */
	cr_assert(ieee_ulp_eq(dbl, normal_cdf(1.96), 0.9750021048517795, 8));
	for (i = 0; i < ARRAY_SIZE(ps); i++) {
		double p = ps[i], back = normal_cdf(stats_normal_quantile(p));

		cr_assert(fabs(back - p) <= 1e-12 * fmin(p, 1 - p) + 1e-300,
			  "p %g came back as %.17g", p, back);
	}
}

Test(stats, normal_quantile_handles_the_ends_of_its_domain)
{
	cr_assert(isinf(stats_normal_quantile(0)) &&
		  stats_normal_quantile(0) < 0);
	cr_assert(isinf(stats_normal_quantile(1)) &&
		  stats_normal_quantile(1) > 0);
	cr_assert(isnan(stats_normal_quantile(-0.1)));
	cr_assert(isnan(stats_normal_quantile(1.1)));
	cr_assert(isnan(stats_normal_quantile(NAN)));
}

/* Location and spread */

Test(stats, median_of_even_count_averages_the_middle_pair)
{
	double v[] = { 4.0, 1.0, 3.0, 2.0 };

	cr_assert(ieee_ulp_eq(dbl, stats_median(v, 4), 2.5, 4));
}

Test(stats, median_of_odd_count_is_the_middle_value)
{
	double v[] = { 9.0, -1.0, 5.0, 7.0, 3.0 };

	cr_assert(eq(dbl, stats_median(v, 5), 5.0));
}

Test(stats, median_does_not_modify_the_callers_array)
{
	double v[] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
	double copy[ARRAY_SIZE(v)];
	size_t i;

	memcpy(copy, v, sizeof(v));
	stats_median(v, ARRAY_SIZE(v));
	stats_percentile(v, ARRAY_SIZE(v), 90);
	stats_mad_scaled(v, ARRAY_SIZE(v));
	for (i = 0; i < ARRAY_SIZE(v); i++)
		cr_assert(eq(dbl, v[i], copy[i]));
}

Test(stats, median_matches_a_full_sort_on_data_with_many_ties)
{
	/* Reference: qsort and the middle, for quantised data (many equal
	 * values stress the partition) of every size up to 60. */
	uint64_t state = 42;
	double v[60], copy[60];
	size_t n, i;

	for (n = 1; n <= ARRAY_SIZE(v); n++) {
		for (i = 0; i < n; i++)
			v[i] = floor(test_uniform(&state) * 5);
		memcpy(copy, v, sizeof(v));
		cr_assert(eq(dbl, stats_median(v, n), sorted_median(copy, n)),
			  "n = %zu", n);
	}
}

Test(stats, sample_statistics_of_the_wikipedia_example)
{
	/* Wikipedia, "Standard deviation": 2 4 4 4 5 5 7 9 has mean 5,
	 * population sd 2, so sample sd sqrt(32 / 7). */
	double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

	cr_assert(eq(dbl, stats_mean(v, 8), 5.0));
	cr_assert(ieee_ulp_eq(dbl, stats_stddev(v, 8), sqrt(32.0 / 7), 4));
	cr_assert(eq(dbl, stats_min(v, 8), 2.0));
	cr_assert(eq(dbl, stats_max(v, 8), 9.0));
}

Test(stats, stddev_keeps_precision_for_tiny_spread_at_a_large_level)
{
	/* 1e9 + {1, 2, 3}: sample sd exactly 1 (by hand); the one-pass
	 * formula loses every digit here. */
	double v[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };

	cr_assert(ieee_ulp_eq(dbl, stats_stddev(v, 3), 1.0, 4));
}

Test(stats, mad_of_the_wikipedia_example_is_one)
{
	/* Wikipedia, "Median absolute deviation": 1 1 2 2 4 6 9 has median 2
	 * and MAD 1. */
	double v[] = { 1, 1, 2, 2, 4, 6, 9 };
	struct stats_summary s;

	cr_assert(eq(int, stats_summarize(v, 7, 0.95, 1, &s), BG_OK));
	cr_assert(eq(dbl, s.mad, 1.0));
	cr_assert(ieee_ulp_eq(dbl, stats_mad_scaled(v, 7), 1.4826, 4));
	cr_assert(ieee_ulp_eq(dbl, stats_robust_cv(v, 7), 1.4826 / 2, 4));
}

Test(stats, percentile_interpolates_as_numpy_and_r_type_7)
{
	/* numpy.percentile docs: [[10, 7, 4], [3, 2, 1]] at 50 -> 3.5. */
	double a[] = { 10, 7, 4, 3, 2, 1 };
	/* R: quantile(1:10, c(0.9, 0.99, 0.25)) -> 9.1, 9.91, 3.25 (type 7:
	 * h = (n - 1) p, x[h] + frac(h) (x[h+1] - x[h]), by hand). */
	double b[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };

	cr_assert(ieee_ulp_eq(dbl, stats_percentile(a, 6, 50), 3.5, 4));
	cr_assert(ieee_ulp_eq(dbl, stats_percentile(b, 10, 90), 9.1, 4));
	cr_assert(ieee_ulp_eq(dbl, stats_percentile(b, 10, 99), 9.91, 4));
	cr_assert(ieee_ulp_eq(dbl, stats_percentile(b, 10, 25), 3.25, 4));
	cr_assert(eq(dbl, stats_percentile(b, 10, 0), 1.0));
	cr_assert(eq(dbl, stats_percentile(b, 10, 100), 10.0));
}

Test(stats, empty_samples_give_nan)
{
	double v[] = { 1 };

	cr_assert(isnan(stats_median(v, 0)));
	cr_assert(isnan(stats_mean(v, 0)));
	cr_assert(isnan(stats_stddev(v, 0)));
	cr_assert(isnan(stats_min(v, 0)));
	cr_assert(isnan(stats_max(v, 0)));
	cr_assert(isnan(stats_percentile(v, 0, 50)));
	cr_assert(isnan(stats_mad_scaled(v, 0)));
	cr_assert(isnan(stats_robust_cv(v, 0)));
	cr_assert(isnan(stats_hodges_lehmann_ratio(v, 0, v, 1)));
}

Test(stats, single_sample_has_no_spread)
{
	double v[] = { 3.5 };

	cr_assert(eq(dbl, stats_median(v, 1), 3.5));
	cr_assert(eq(dbl, stats_stddev(v, 1), 0.0));
	cr_assert(eq(dbl, stats_mad_scaled(v, 1), 0.0));
	cr_assert(eq(dbl, stats_percentile(v, 1, 99), 3.5));
}

Test(stats, robust_cv_of_equal_samples_is_zero)
{
	double v[] = { 2, 2, 2, 2 }, zero_median[] = { -1, 0, 0, 0, 5 },
	       spread_at_zero[] = { -2, -1, 0, 1, 2 };

	cr_assert(eq(dbl, stats_robust_cv(v, 4), 0.0));
	cr_assert(eq(dbl, stats_robust_cv(zero_median, 5), 0.0));
	cr_assert(isinf(stats_robust_cv(spread_at_zero, 5)));
}

/* Bootstrap */

Test(stats, bootstrap_is_deterministic_for_a_seed)
{
	double v[] = { 1.71, 1.69, 1.75, 1.70, 1.68, 1.73,
		       1.72, 1.80, 1.69, 1.70, 1.74, 1.71 };
	struct stats_interval first, second;

	cr_assert(eq(int,
		     stats_bootstrap_median_ci(v, ARRAY_SIZE(v), 0.95, 2000, 7,
					       &first),
		     BG_OK));
	cr_assert(eq(int,
		     stats_bootstrap_median_ci(v, ARRAY_SIZE(v), 0.95, 2000, 7,
					       &second),
		     BG_OK));
	cr_assert(eq(dbl, first.low, second.low));
	cr_assert(eq(dbl, first.high, second.high));
	cr_assert(first.low <= stats_median(v, ARRAY_SIZE(v)) &&
		  stats_median(v, ARRAY_SIZE(v)) <= first.high);
	cr_assert(first.low >= 1.68 && first.high <= 1.80);
}

Test(stats, bootstrap_depends_on_the_seed)
{
	/* A PRNG that ignored the seed would give one interval for every
	 * seed. The bounds are order statistics (or midpoints of two) of the
	 * sample, so neighbouring seeds often agree: ask for two distinct
	 * intervals among eight seeds (true when written). */
	uint64_t state = 3, seed;
	double v[40];
	struct stats_interval first, other;
	size_t i, distinct = 0;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		v[i] = test_normal(&state);
	cr_assert(eq(int,
		     stats_bootstrap_median_ci(v, ARRAY_SIZE(v), 0.95, 2000, 0,
					       &first),
		     BG_OK));
	for (seed = 1; seed < 8; seed++) {
		cr_assert(eq(int,
			     stats_bootstrap_median_ci(v, ARRAY_SIZE(v), 0.95,
						       2000, seed, &other),
			     BG_OK));
		distinct += first.low != other.low || first.high != other.high;
	}
	cr_assert(distinct > 0);
}

Test(stats, bootstrap_interval_contains_the_true_median_of_a_large_sample)
{
	/* 2001 standard normal values: the true median is 0 and the standard
	 * error of the median about 1.2533 / sqrt(2001) = 0.028. */
	uint64_t state = 2024;
	double v[2001];
	struct stats_interval ci;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		v[i] = test_normal(&state);
	cr_assert(eq(int,
		     stats_bootstrap_median_ci(v, ARRAY_SIZE(v), 0.99, 2000, 1,
					       &ci),
		     BG_OK));
	cr_assert(ci.low < 0 && 0 < ci.high, "[%g, %g]", ci.low, ci.high);
	cr_assert(ci.high - ci.low < 0.25, "[%g, %g]", ci.low, ci.high);
}

Test(stats, bootstrap_interval_covers_about_as_often_as_it_claims)
{
	/* 400 samples of 25 normal values, 90 % intervals: coverage should
	 * be near 0.90 (the percentile bootstrap of a median is a little
	 * off at small n, hence the wide band). Fixed seeds: not flaky. */
	uint64_t state = 99;
	double v[25];
	size_t trial, i, covered = 0, trials = 400;

	for (trial = 0; trial < trials; trial++) {
		struct stats_interval ci;

		for (i = 0; i < ARRAY_SIZE(v); i++)
			v[i] = 10 + test_normal(&state);
		cr_assert(eq(int,
			     stats_bootstrap_median_ci(v, ARRAY_SIZE(v), 0.90,
						       1000, trial, &ci),
			     BG_OK));
		covered += ci.low <= 10 && 10 <= ci.high;
	}
	cr_assert(covered >= 0.82 * trials && covered <= 0.97 * trials,
		  "covered %zu of %zu", covered, trials);
}

Test(stats, bootstrap_of_one_or_equal_values_is_a_point)
{
	double one[] = { 4.2 }, equal[] = { 3, 3, 3, 3, 3 };
	struct stats_interval ci;

	cr_assert(eq(int, stats_bootstrap_median_ci(one, 1, 0.99, 100, 0, &ci),
		     BG_OK));
	cr_assert(ci.low == 4.2 && ci.high == 4.2);
	cr_assert(eq(int,
		     stats_bootstrap_median_ci(equal, 5, 0.99, 100, 0, &ci),
		     BG_OK));
	cr_assert(ci.low == 3 && ci.high == 3);
}

Test(stats, bootstrap_rejects_bad_arguments)
{
	double v[] = { 1, 2, 3 }, with_zero[] = { -1, 0, 1 };
	struct stats_interval ci;

	cr_assert(eq(int, stats_bootstrap_median_ci(v, 0, 0.9, 100, 0, &ci),
		     BG_EINPUT));
	cr_assert(eq(int, stats_bootstrap_median_ci(v, 3, 1.0, 100, 0, &ci),
		     BG_EINPUT));
	cr_assert(eq(int, stats_bootstrap_median_ci(v, 3, NAN, 100, 0, &ci),
		     BG_EINPUT));
	cr_assert(eq(int, stats_bootstrap_median_ci(v, 3, 0.9, 0, 0, &ci),
		     BG_EINPUT));
	cr_assert(eq(int,
		     stats_bootstrap_ratio_ci(with_zero, 3, v, 3, 0.9, 100, 0,
					      &ci),
		     BG_EINPUT));
	cr_assert(eq(int,
		     stats_bootstrap_ratio_ci(v, 3, v, 0, 0.9, 100, 0, &ci),
		     BG_EINPUT));
}

Test(stats, bootstrap_ratio_of_constant_samples_is_their_ratio)
{
	double base[] = { 10, 10, 10, 10 }, cand[] = { 11, 11, 11 };
	struct stats_interval ci;

	cr_assert(eq(int,
		     stats_bootstrap_ratio_ci(base, 4, cand, 3, 0.99, 500, 3,
					      &ci),
		     BG_OK));
	cr_assert(ieee_ulp_eq(dbl, ci.low, 1.1, 2));
	cr_assert(ieee_ulp_eq(dbl, ci.high, 1.1, 2));
}

Test(stats, bootstrap_ratio_contains_the_true_ratio_of_large_samples)
{
	/* Baseline ~ 100 + N(0, 1), candidate ~ 105 + N(0, 1): the true
	 * ratio of medians is 1.05. */
	uint64_t state = 5;
	double base[1001], cand[801];
	struct stats_interval ci, again;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(base); i++)
		base[i] = 100 + test_normal(&state);
	for (i = 0; i < ARRAY_SIZE(cand); i++)
		cand[i] = 105 + test_normal(&state);
	cr_assert(eq(int,
		     stats_bootstrap_ratio_ci(base, ARRAY_SIZE(base), cand,
					      ARRAY_SIZE(cand), 0.99, 2000, 11,
					      &ci),
		     BG_OK));
	cr_assert(ci.low < 1.05 && 1.05 < ci.high, "[%g, %g]", ci.low, ci.high);
	cr_assert(ci.high - ci.low < 0.005, "[%g, %g]", ci.low, ci.high);
	cr_assert(eq(int,
		     stats_bootstrap_ratio_ci(base, ARRAY_SIZE(base), cand,
					      ARRAY_SIZE(cand), 0.99, 2000, 11,
					      &again),
		     BG_OK));
	cr_assert(eq(dbl, ci.low, again.low));
	cr_assert(eq(dbl, ci.high, again.high));
}

/* Hodges-Lehmann */

Test(stats, hodges_lehmann_of_a_hand_computed_example)
{
	/* a = {1, 2, 3}, b = {2, 4, 7, 8}: the 12 ratios b / a have middle
	 * pair 7/3 and 8/3, median 2.5 (by hand). */
	double a[] = { 3, 1, 2 }, b[] = { 8, 2, 7, 4 };

	cr_assert(ieee_ulp_eq(dbl, stats_hodges_lehmann_ratio(a, 3, b, 4), 2.5,
			      4));
}

Test(stats, hodges_lehmann_matches_brute_force_on_random_samples)
{
	/* Reference: all pairwise ratios, fully sorted. */
	uint64_t state = 13;
	double a[40], b[40], ratios[1600];
	size_t trial, i, j;

	for (trial = 0; trial < 20; trial++) {
		size_t na = 1 + trial * 2 % 40, nb = 1 + trial * 7 % 40, np = 0;

		for (i = 0; i < na; i++)
			a[i] = 50 + floor(test_normal(&state) * 40) / 4;
		for (i = 0; i < nb; i++)
			b[i] = 52 + floor(test_normal(&state) * 40) / 4;
		for (i = 0; i < na; i++)
			for (j = 0; j < nb; j++, np++)
				ratios[np] = b[j] / a[i];
		cr_assert(eq(dbl, stats_hodges_lehmann_ratio(a, na, b, nb),
			     sorted_median(ratios, np)),
			  "trial %zu", trial);
	}
}

/* Samples large enough for the radix sort (64 values and more), with ties,
 * unsorted and sorted. */
Test(stats, hodges_lehmann_of_large_samples_matches_brute_force)
{
	uint64_t state = 21;
	size_t na = 150, nb = 170, np = 0;
	double *a = malloc(na * sizeof(*a)), *b = malloc(nb * sizeof(*b));
	double *ratios = malloc(na * nb * sizeof(*ratios));

	for (size_t i = 0; i < na; i++)
		a[i] = 50 + floor(test_normal(&state) * 40) / 4;
	for (size_t j = 0; j < nb; j++)
		b[j] = 52 + (double)j / 8; /* already sorted */
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			ratios[np++] = b[j] / a[i];
	cr_assert(eq(dbl, stats_hodges_lehmann_ratio(a, na, b, nb),
		     sorted_median(ratios, np)));
	free(ratios);
	free(b);
	free(a);
}

/* The summary sorts its sample; percentiles by selection do not: both
 * agree on large samples of every sign, zeros of both signs, ties and
 * infinities. */
Test(stats, summary_of_large_samples_agrees_with_selection)
{
	uint64_t state = 5;
	size_t sizes[] = { 63, 64, 65, 1000, 40000 };

	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
		size_t n = sizes[k];
		double *v = malloc(n * sizeof(*v));
		struct stats_summary s;

		for (size_t i = 0; i < n; i++) {
			double x = floor(test_normal(&state) * 1e3) / 8;

			v[i] = i % 97 == 0 ? -0.0 : i % 89 == 0 ? 0.0 : x;
		}
		v[n / 2] = INFINITY;
		v[n / 3] = -INFINITY;
		v[n / 5] = -1e300;
		cr_assert(eq(int, stats_summarize(v, n, 0.99, 1, &s), BG_OK));
		cr_assert(eq(dbl, s.median, stats_median(v, n)), "n %zu", n);
		cr_assert(eq(dbl, s.p90, stats_percentile(v, n, 90)), "n %zu",
			  n);
		cr_assert(eq(dbl, s.p99, stats_percentile(v, n, 99)), "n %zu",
			  n);
		cr_assert(eq(dbl, s.min, -INFINITY));
		cr_assert(eq(dbl, s.max, INFINITY));
		free(v);
	}
}

Test(stats, hodges_lehmann_ratio_needs_positive_values)
{
	double a[] = { 1, 0 }, b[] = { 1, 2 };

	cr_assert(isnan(stats_hodges_lehmann_ratio(a, 2, b, 2)));
}

/* Benjamini-Hochberg */

/* The 15 p-values of Benjamini & Hochberg (1995), section 4. */
static const double bh_1995[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201,
				  0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
				  0.4262, 0.5719, 0.6528, 0.7590, 1.000 };

Test(stats, bh_adjusts_the_original_papers_example)
{
	/* The paper rejects the four smallest at q = 0.05. The adjusted
	 * values are R's p.adjust(p, "BH"), computed from its definition
	 * (cummin of n / i * p from the top) in python. */
	static const double expected[] = { 0.0015,
					   0.003,
					   0.0095,
					   0.035625,
					   0.0603,
					   0.063857142857142862,
					   0.063857142857142862,
					   0.0645,
					   0.0765,
					   0.486,
					   0.58118181818181824,
					   0.714875,
					   0.75323076923076937,
					   0.81321428571428567,
					   1 };
	double adjusted[ARRAY_SIZE(bh_1995)];
	size_t i, rejected = 0;

	stats_bh_adjust(bh_1995, ARRAY_SIZE(bh_1995), adjusted);
	for (i = 0; i < ARRAY_SIZE(bh_1995); i++) {
		cr_assert(ieee_ulp_eq(dbl, adjusted[i], expected[i], 8),
			  "p[%zu]: %.17g", i, adjusted[i]);
		rejected += adjusted[i] <= 0.05;
	}
	cr_assert(eq(sz, rejected, 4));
}

Test(stats, bh_keeps_input_order_and_is_monotone)
{
	/* The paper's p-values shuffled: each adjusted value goes back to
	 * its own position, order of p is order of adjusted, all <= 1 and
	 * >= the raw p-value. */
	static const size_t shuffle[] = { 7,  14, 0, 9,	 3, 12, 5, 1,
					  11, 8,  2, 13, 6, 10, 4 };
	double p[15], adjusted[15], sorted_adjusted[15];
	size_t i, j;

	for (i = 0; i < 15; i++)
		p[i] = bh_1995[shuffle[i]];
	stats_bh_adjust(p, 15, adjusted);
	stats_bh_adjust(bh_1995, 15, sorted_adjusted);
	for (i = 0; i < 15; i++) {
		cr_assert(eq(dbl, adjusted[i], sorted_adjusted[shuffle[i]]));
		cr_assert(adjusted[i] >= p[i] && adjusted[i] <= 1);
		for (j = 0; j < 15; j++)
			if (p[i] < p[j])
				cr_assert(adjusted[i] <= adjusted[j]);
	}
}

Test(stats, bh_may_adjust_in_place_and_caps_at_one)
{
	double p[] = { 0.9, 0.02, 0.95, 0.5 };

	/* n / rank * p from the top: 0.95 * 4/4 = 0.95; 0.9 * 4/3 = 1.2 and
	 * 0.5 * 4/2 = 1.0 both step down to 0.95; 0.02 * 4 = 0.08 (by
	 * hand). */
	stats_bh_adjust(p, 4, p);
	cr_assert(ieee_ulp_eq(dbl, p[1], 0.08, 4));
	cr_assert(eq(dbl, p[3], 0.95));
	cr_assert(eq(dbl, p[0], 0.95));
	cr_assert(eq(dbl, p[2], 0.95));
}

/* Outliers */

/* Summary */

Test(stats, summary_of_the_wikipedia_example)
{
	/* 2 4 4 4 5 5 7 9 (Wikipedia, "Standard deviation"): median 4.5;
	 * absolute deviations from it 2.5 .5 .5 .5 .5 .5 2.5 4.5, MAD 0.5;
	 * p90 = 7 + 0.3 * 2 = 7.6, p99 = 7 + 0.93 * 2 = 8.86 (type 7, by
	 * hand). */
	double v[] = { 5, 2, 9, 4, 4, 7, 4, 5 };
	struct stats_summary s;

	cr_assert(eq(int, stats_summarize(v, 8, 0.95, 1, &s), BG_OK));
	cr_assert(eq(sz, s.n, 8));
	cr_assert(eq(dbl, s.median, 4.5));
	cr_assert(eq(dbl, s.p50, 4.5));
	cr_assert(eq(dbl, s.mean, 5.0));
	cr_assert(ieee_ulp_eq(dbl, s.stddev, sqrt(32.0 / 7), 4));
	cr_assert(eq(dbl, s.min, 2.0));
	cr_assert(eq(dbl, s.max, 9.0));
	cr_assert(eq(dbl, s.mad, 0.5));
	cr_assert(ieee_ulp_eq(dbl, s.robust_cv, 1.4826 * 0.5 / 4.5, 4));
	cr_assert(ieee_ulp_eq(dbl, s.p90, 7.6, 4));
	cr_assert(ieee_ulp_eq(dbl, s.p99, 8.86, 4));
	cr_assert(s.ci_low <= 4.5 && 4.5 <= s.ci_high);
	cr_assert(s.ci_low >= 2 && s.ci_high <= 9);
}

Test(stats, summary_agrees_with_the_single_functions)
{
	uint64_t state = 8;
	double v[37];
	struct stats_summary s;
	struct stats_interval ci;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		v[i] = 20 + test_normal(&state);
	cr_assert(eq(int, stats_summarize(v, 37, 0.99, 4, &s), BG_OK));
	cr_assert(eq(int,
		     stats_bootstrap_median_ci(
			     v, 37, 0.99, STATS_BOOTSTRAP_RESAMPLES, 4, &ci),
		     BG_OK));
	cr_assert(eq(dbl, s.median, stats_median(v, 37)));
	cr_assert(eq(dbl, STATS_MAD_SCALE * s.mad, stats_mad_scaled(v, 37)));
	cr_assert(eq(dbl, s.robust_cv, stats_robust_cv(v, 37)));
	cr_assert(eq(dbl, s.p90, stats_percentile(v, 37, 90)));
	cr_assert(eq(dbl, s.p99, stats_percentile(v, 37, 99)));
	cr_assert(eq(dbl, s.ci_low, ci.low));
	cr_assert(eq(dbl, s.ci_high, ci.high));
}

Test(stats, summary_of_nothing_is_an_input_error_with_nan)
{
	double v[] = { 1 };
	struct stats_summary s;

	cr_assert(eq(int, stats_summarize(v, 0, 0.99, 0, &s), BG_EINPUT));
	cr_assert(eq(sz, s.n, 0));
	cr_assert(isnan(s.median) && isnan(s.ci_low) && isnan(s.stddev));
	cr_assert(eq(int, stats_summarize(v, 1, 0.99, 0, &s), BG_OK));
	cr_assert(eq(dbl, s.ci_low, 1.0));
	cr_assert(eq(dbl, s.ci_high, 1.0));
	cr_assert(eq(dbl, s.stddev, 0.0));
	cr_assert(eq(dbl, s.robust_cv, 0.0));
}

/* Caller mistakes */

Test(stats, nan_and_infinite_inputs_stay_memory_safe)
{
	/* NaN and infinities are the caller's to remove (stats.h); the
	 * numbers are then meaningless, but run under the sanitizers this
	 * shows every function stays in bounds and defined. */
	double v[] = { 1, NAN, 3, INFINITY, -INFINITY, NAN, 2, 2, 5, NAN };
	double w[] = { NAN, 4, INFINITY, 1, 0.5 };
	size_t n = ARRAY_SIZE(v), m = ARRAY_SIZE(w);
	struct stats_interval ci;
	struct stats_summary s;
	double adjusted[ARRAY_SIZE(v)];

	stats_median(v, n);
	stats_percentile(v, n, 37);
	stats_mad_scaled(v, n);
	stats_robust_cv(v, n);
	stats_stddev(v, n);
	stats_bootstrap_median_ci(v, n, 0.9, 200, 1, &ci);
	stats_bootstrap_ratio_ci(w, m, v, n, 0.9, 200, 1, &ci);
	stats_hodges_lehmann_ratio(w, m, w, m);
	stats_bh_adjust(v, n, adjusted);
	stats_summarize(v, n, 0.99, 2, &s);
	cr_assert(eq(sz, s.n, n));
}

/* Critical values of Student's t from any textbook table (e.g. NIST/SEMATECH
 * e-Handbook of Statistical Methods, 1.3.6.7.2): two-sided 0.05 at 10 df is
 * 2.228, 0.01 at 10 df is 3.169, 0.05 at 1 df is 12.706, 0.05 at 30 df is
 * 2.042. */
Test(stats, student_t_two_sided_matches_the_table)
{
	cr_assert_float_eq(stats_t_two_sided(2.228, 10), 0.05, 2e-4);
	cr_assert_float_eq(stats_t_two_sided(3.169, 10), 0.01, 2e-5);
	cr_assert_float_eq(stats_t_two_sided(12.706, 1), 0.05, 2e-5);
	cr_assert_float_eq(stats_t_two_sided(-2.042, 30), 0.05, 2e-4);
	cr_assert_float_eq(stats_t_two_sided(0, 5), 1.0, 1e-12);
	cr_assert(isnan(stats_t_two_sided(1, 0)));
}

/* The inverse, against the root of 2 * scipy.stats.t.sf(t, df) = alpha
 * (scipy 1.10.1, brentq to 1e-15; its own t.ppf is off by 5e-9 at 10 df),
 * which matches the table values above to their printed digits. */
Test(stats, student_t_critical_inverts_the_two_sided_tail)
{
	cr_assert_float_eq(stats_t_critical(0.05, 10), 2.2281388519862744,
			   1e-9);
	cr_assert_float_eq(stats_t_critical(0.01, 10), 3.1692726726169504,
			   1e-9);
	cr_assert_float_eq(stats_t_critical(0.05, 1), 12.706204736174703, 1e-8);
	cr_assert_float_eq(stats_t_critical(0.01, 4.5), 4.272823993011293,
			   1e-9);
	cr_assert_float_eq(stats_t_critical(0.01, 200), 2.6006344361915583,
			   1e-9);
	cr_assert(isnan(stats_t_critical(0.01, 0)));
	cr_assert(isnan(stats_t_critical(0, 10)));
	cr_assert(isnan(stats_t_critical(1, 10)));
}

/* Welch's test of two small samples, worked by hand from the definitions:
 * a = 1..5 (mean 3, var 2.5), b = 3..7 (mean 5, var 2.5): t = 2 / sqrt(1) = 2,
 * df = 1 / (2 * 0.25 / 4) = 8, p = 0.0805 (t table, 8 df). */
Test(stats, welch_at_full_sizes_is_the_textbook_test)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 };
	const struct stats_dependence half = { 2, 0.5 };
	struct stats_welch w;

	cr_assert_eq(stats_yuen_eff(a, 5, b, 5, NULL, NULL, 0, &w), BG_OK);
	cr_assert_float_eq(w.difference, 2.0, 1e-12);
	cr_assert_float_eq(w.se, 1.0, 1e-12);
	cr_assert_float_eq(w.t, 2.0, 1e-12);
	cr_assert_float_eq(w.df, 8.0, 1e-9);
	cr_assert_float_eq(w.p_value, 0.0805, 2e-4);
	/* The same data from dependent runs is less certain: each variance
	 * doubled (se sqrt 2) and each at half its 4 df: t = sqrt 2 at
	 * df 2^2 / (1 / 2 + 1 / 2) = 4, where P(|T| < t) = x (3 - x^2) / 2,
	 * x = t / sqrt(t^2 + 4) = 1 / sqrt 3. */
	cr_assert_eq(stats_yuen_eff(a, 5, b, 5, &half, &half, 0, &w), BG_OK);
	cr_assert_float_eq(w.se, sqrt(2), 1e-12);
	cr_assert_float_eq(w.df, 4.0, 1e-9);
	cr_assert_float_eq(w.p_value, 1 - 4 / (3 * sqrt(3)), 1e-9);
	cr_assert_gt(w.p_value, 0.15);
}

/* Yuen's trimmed t against scipy 1.10.1,
 * scipy.stats.ttest_ind(b, a, equal_var=False, trim=...), which implements
 * Yuen (1974) as Wilcox, "Introduction to Robust Estimation", 5.3. */
Test(stats, yuen_matches_scipy)
{
	double a[] = {
		10.2, 9.8, 10.1, 10.4, 9.9, 10.0, 13.5, 10.3, 9.7, 10.05
	};
	double b[] = { 10.9, 11.2, 10.8, 11.0, 11.4,
		       10.7, 11.1, 15.0, 11.3, 10.95 };
	double c[] = { 3.1, 2.9, 3.4, 3.0, 2.8, 3.3, 9.0 };
	double d[] = { 3.5, 3.6, 3.2, 3.9, 3.7, 3.4, 3.8, 3.3, 12.0 };
	struct stats_welch y;

	cr_assert_eq(stats_yuen_eff(a, 10, b, 10, NULL, NULL, 0.2, &y), BG_OK);
	cr_assert_float_eq(y.t, 7.3124265590335495, 1e-9);
	cr_assert_float_eq(y.p_value, 2.579072888448428e-05, 1e-10);
	/* Unequal sizes, floor(0.25 n) trimmed: 1 of 7, 2 of 9. */
	cr_assert_eq(stats_yuen_eff(c, 7, d, 9, NULL, NULL, 0.25, &y), BG_OK);
	cr_assert_float_eq(y.t, 2.7560655717702796, 1e-9);
	cr_assert_float_eq(y.p_value, 0.024929845557148767, 1e-9);
	/* Untrimmed, the two outliers hide the shift from Welch's test
	 * (scipy: t 1.9469, p 0.0676). */
	cr_assert_eq(stats_yuen_eff(a, 10, b, 10, NULL, NULL, 0, &y), BG_OK);
	cr_assert_float_eq(y.t, 1.946865484225066, 1e-9);
	cr_assert_float_eq(y.p_value, 0.06761045853933575, 1e-9);
}

/* Against scipy 1.10.1: ttest_1samp(d, 0) and, trimmed,
 * ttest_ind(d, zeros(10), equal_var=False, trim=0.2). */
Test(stats, one_sample_yuen_matches_scipy)
{
	double d[] = { 0.051, 0.048, 0.062, 0.044, 0.055,
		       0.047, 0.21,  0.050, 0.046, 0.053 };
	const struct stats_dependence half = { 2, 0.5 }, shrunk = { 0.5, 1 };
	struct stats_welch y;

	cr_assert_eq(stats_yuen_one_sample(d, 10, NULL, 0, &y), BG_OK);
	cr_assert_float_eq(y.t, 4.158134805938996, 1e-9);
	cr_assert_float_eq(y.p_value, 0.002454508810436787, 1e-10);
	cr_assert_float_eq(y.df, 9, 1e-12);
	cr_assert_float_eq(y.difference, stats_mean(d, 10), 1e-15);
	cr_assert_eq(stats_yuen_one_sample(d, 10, NULL, 0.2, &y), BG_OK);
	cr_assert_float_eq(y.t, 26.508044043775918, 1e-8);
	cr_assert_float_eq(y.p_value, 1.428289042831001e-06, 1e-12);
	cr_assert_float_eq(y.df, 5, 1e-12);
	/* From dependent pairs, the same data is less certain. */
	cr_assert_eq(stats_yuen_one_sample(d, 10, &half, 0, &y), BG_OK);
	cr_assert_float_eq(y.df, 4.5, 1e-12);
	cr_assert_float_eq(y.t, 4.158134805938996 / sqrt(2), 1e-9);
	cr_assert_gt(y.p_value, 0.002454508810436787);
	cr_assert_eq(stats_yuen_one_sample(d, 10, &shrunk, 0, &y), BG_EINPUT);
	cr_assert_eq(stats_yuen_one_sample(d, 3, NULL, 0.4, &y), BG_EINPUT);
}

Test(stats, yuen_rejects_what_it_cannot_test)
{
	double a[] = { 1, 2, 3, 4 };
	struct stats_welch y;

	const struct stats_dependence shrunk = { 0.5, 1 }, no_df = { 2, 0 };

	cr_assert_eq(stats_yuen_eff(a, 4, a, 4, NULL, NULL, 0.5, &y),
		     BG_EINPUT);
	cr_assert_eq(stats_yuen_eff(a, 4, a, 4, NULL, NULL, -0.1, &y),
		     BG_EINPUT);
	cr_assert_eq(stats_yuen_eff(a, 4, a, 4, &shrunk, NULL, 0.2, &y),
		     BG_EINPUT);
	cr_assert_eq(stats_yuen_eff(a, 4, a, 4, NULL, &no_df, 0.2, &y),
		     BG_EINPUT);
	cr_assert_eq(stats_yuen_eff(a, 4, a, 4, NULL, NULL, 0.2, &y), BG_OK);
	cr_assert_float_eq(y.p_value, 1.0, 1e-12);
}

/* Hogg (1974) gives Q2 = 1.9 (uniform), 2.585 (normal), 3.30 (Laplace) for
 * the distributions; a sample of their quantiles at (i - 0.5) / n comes
 * within a few thousandths. */
Test(stats, tailweight_matches_hogg)
{
	enum {
		N = 20000
	};
	static double uniform[N], normal[N], laplace[N];

	for (int i = 0; i < N; i++) {
		double u = (i + 0.5) / N;

		uniform[i] = u;
		normal[i] = stats_normal_quantile(u);
		laplace[i] = u < 0.5 ? log(2 * u) : -log(2 * (1 - u));
	}
	cr_assert_float_eq(stats_tailweight(uniform, N), 1.9, 0.005);
	cr_assert_float_eq(stats_tailweight(normal, N), 2.585, 0.005);
	cr_assert_float_eq(stats_tailweight(laplace, N), 3.303, 0.005);
}

/* By hand: n = 10, U_0.05 = L_0.05 = the extremes (half a value), the
 * halves are the top and bottom five values. */
Test(stats, tailweight_of_a_small_sample)
{
	double v[] = { 7, 1, 2, 3, 4, 5, 6, 8, 9, 30 };

	/* (30 - 1) / ((6 + 7 + 8 + 9 + 30) / 5 - (1 + 2 + 3 + 4 + 5) / 5) */
	cr_assert_float_eq(stats_tailweight(v, 10), 29.0 / 9.0, 1e-12);
	cr_assert(isnan(stats_tailweight(v, 3)));
	cr_assert(isnan(stats_tailweight((double[]){ 2, 2, 2, 2 }, 4)));
}

/* Order statistics by hand: P(Binomial(20, 1/2) <= k) is 0.0207, 0.0577
 * and 0.1316 for k = 5, 6, 7, and each tail may hold half of 1 - level:
 * at 90 % (0.05 a tail) the interval is the 6th and 15th values, at 80 %
 * (0.1) the 7th and 14th;
 * n = 10 at 99 % reaches only the extremes (2 / 1024 <= 0.01 < 22 /
 * 1024); n = 5 cannot reach 99 % and gives [min, max]. */
Test(stats, median_order_interval)
{
	double v[20];
	struct stats_interval ci;

	for (int i = 0; i < 20; i++)
		v[i] = (double)((i * 7) % 20) + 1; /* 1..20, shuffled */
	cr_assert_eq(stats_median_order_ci(v, 20, 0.90, &ci), BG_OK);
	cr_assert_eq(ci.low, 6);
	cr_assert_eq(ci.high, 15);
	cr_assert_eq(stats_median_order_ci(v, 20, 0.80, &ci), BG_OK);
	cr_assert_eq(ci.low, 7);
	cr_assert_eq(ci.high, 14);
	cr_assert_eq(stats_median_order_ci(v, 10, 0.99, &ci), BG_OK);
	cr_assert_eq(ci.low, stats_min(v, 10));
	cr_assert_eq(ci.high, stats_max(v, 10));
	cr_assert_eq(stats_median_order_ci(v, 5, 0.99, &ci), BG_OK);
	cr_assert_eq(ci.low, stats_min(v, 5));
	cr_assert_eq(ci.high, stats_max(v, 5));
	cr_assert_eq(stats_median_order_ci(v, 1, 0.99, &ci), BG_OK);
	cr_assert(ci.low == v[0] && ci.high == v[0]);
	cr_assert_eq(stats_median_order_ci(v, 0, 0.99, &ci), BG_EINPUT);
	bg_error_clear();
}

Test(stats, signed_rank_matches_the_exact_distribution)
{
	/* The smaller rank sum is 3 (1 + 2); 5 of the 256 sign patterns
	 * reach 3 or less, so p = 2 * 5 / 256 as scipy.stats.wilcoxon(d)
	 * says (exact). */
	double d[8] = { -0.1, -0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8 };
	struct stats_signed_rank rank;

	cr_assert_eq(stats_signed_rank(d, 8, 0.95, &rank), BG_OK);
	cr_assert_float_eq(rank.p_value, 10.0 / 256, 1e-12);
	/* median of the 36 Walsh averages */
	cr_assert_float_eq(rank.estimate, 0.4, 1e-12);
	/* P(T <= 3) = 5 / 256 <= 0.025 < P(T <= 4) = 7 / 256: k = 4, the
	 * 4th smallest and largest Walsh averages */
	cr_assert_float_eq(rank.low, 0.05, 1e-12);
	cr_assert_float_eq(rank.high, 0.7, 1e-12);
	cr_assert(rank.low <= rank.estimate && rank.estimate <= rank.high);
}

Test(stats, signed_rank_interval_and_p_value_agree)
{
	double d[20];
	struct stats_signed_rank rank;

	for (int shift = -6; shift <= 6; shift++) {
		for (int i = 0; i < 20; i++)
			d[i] = shift * 0.05 + sin(i * 2.3);
		for (double c = 0.8; c < 0.999; c += 0.049) {
			cr_assert_eq(stats_signed_rank(d, 20, c, &rank), BG_OK);
			cr_assert_eq(rank.p_value <= 1 - c,
				     rank.low > 0 || rank.high < 0,
				     "shift %d c %g p %g [%g, %g]", shift, c,
				     rank.p_value, rank.low, rank.high);
			cr_assert(rank.low <= rank.estimate &&
				  rank.estimate <= rank.high);
		}
	}
}

Test(stats, signed_rank_needs_enough_pairs_to_bound)
{
	double d[7] = { 1, 2, 3, 4, 5, 6, 7 };
	struct stats_signed_rank rank;

	cr_assert_not(stats_signed_rank_can_reject(7, 0.99));
	cr_assert(stats_signed_rank_can_reject(8, 0.99));
	cr_assert_eq(stats_signed_rank(d, 7, 0.99, &rank), BG_OK);
	cr_assert(isinf(rank.low) && isinf(rank.high));
	cr_assert_eq(stats_signed_rank(d, 0, 0.99, &rank), BG_EINPUT);
}

Test(stats, signed_rank_normal_tail_for_many_pairs)
{
	double d[200];
	struct stats_signed_rank rank;

	for (int i = 0; i < 200; i++)
		d[i] = sin(i * 1.3) + 0.3;
	cr_assert_eq(stats_signed_rank(d, 200, 0.99, &rank), BG_OK);
	cr_assert_lt(rank.p_value, 0.01);
	cr_assert_gt(rank.low, 0);
	cr_assert(rank.low <= rank.estimate && rank.estimate <= rank.high);
}
