/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/stats.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/median_interval.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Helpers on private copies */

/* A total order with NaN last: glibc's qsort() has written out of bounds
 * when given a comparator that is not transitive (Qualys, 2024), and a NaN
 * is only the caller's mistake, not a reason for undefined behaviour. */
static int compare_doubles(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return (isnan(a) != 0) - (isnan(b) != 0);
	return (a > b) - (a < b);
}

static double *copy_sample(const double *v, size_t n)
{
	double *copy = xcalloc(n, sizeof(*copy));

	if (n)
		memcpy(copy, v, n * sizeof(*copy));
	return copy;
}

/* The order of compare_doubles() as unsigned integers: negative zero as
 * zero (the two compare equal), every NaN last and equal. */
static uint64_t sort_key(double x)
{
	uint64_t bits;

	if (isnan(x))
		return UINT64_MAX;
	if (x == 0)
		x = 0;
	memcpy(&bits, &x, sizeof(bits));
	return bits >> 63 ? ~bits : bits | (1ULL << 63);
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

/*
 * Sorts v in the order of compare_doubles(), stably, as glibc's qsort()
 * (a merge sort) did: equal values keep their order. Small samples by
 * insertion, large ones by a least-significant-digit radix sort of the
 * keys, which is stable too: a compare of one metric with a million
 * samples sorted them several times and spent most of its time in
 * qsort()'s comparisons. A pass whose digit is the same for every value
 * (the sign and the high exponent bits, mostly) is skipped.
 */
static void sort_doubles(double *v, size_t n)
{
	size_t (*counts)[RADIX_SIZE];
	double *from = v, *to;
	size_t i;

	if (n < 64) {
		for (i = 1; i < n; i++) {
			double x = v[i];
			size_t j = i;

			for (; j > 0 && compare_doubles(&v[j - 1], &x) > 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	for (i = 1; i < n && compare_doubles(&v[i - 1], &v[i]) <= 0; i++)
		;
	if (i == n)
		return;
	counts = xcalloc(RADIX_PASSES, sizeof(*counts));
	to = xmalloc(n * sizeof(*to));
	for (i = 0; i < n; i++) {
		uint64_t key = sort_key(v[i]);

		for (int p = 0; p < RADIX_PASSES; p++)
			counts[p][(key >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
	}
	for (int p = 0; p < RADIX_PASSES; p++) {
		size_t at = 0, digit0 = (sort_key(from[0]) >> (p * RADIX_BITS)) &
					 (RADIX_SIZE - 1);
		double *swap;

		if (counts[p][digit0] == n)
			continue;
		for (size_t d = 0; d < RADIX_SIZE; d++) {
			size_t c = counts[p][d];

			counts[p][d] = at;
			at += c;
		}
		for (i = 0; i < n; i++) {
			size_t d = (sort_key(from[i]) >> (p * RADIX_BITS)) &
				   (RADIX_SIZE - 1);

			to[counts[p][d]++] = from[i];
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != v) {
		memcpy(v, from, n * sizeof(*v));
		to = from;
	}
	free(to);
	free(counts);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *copy = copy_sample(v, n);

	sort_doubles(copy, n);
	return copy;
}

static void swap_doubles(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

static double median_of_three(double a, double b, double c)
{
	if (a > b)
		swap_doubles(&a, &b);
	if (b > c)
		b = c;
	return a > b ? a : b;
}

/* A position in [lo, hi) from a fixed xorshift sequence: the pivots of
 * select_kth() must not follow the data's layout, since benchmark samples
 * often come sorted or V-shaped (deviations of sorted data), which makes
 * first/middle/last pivots quadratic. Deterministic, so runs repeat. */
static size_t scattered_index(uint64_t *state, size_t lo, size_t hi)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return lo + (size_t)(*state % (hi - lo));
}

/*
 * Moves the k-th smallest value to v[k], smaller ones before it and larger
 * ones after. The three-way partition keeps samples with many equal values
 * (bootstrap resamples, quantised timers) linear, and every index stays in
 * bounds whatever the comparisons say, NaN included. The result does not
 * depend on the pivots, only the time does.
 */
static void select_kth(double *v, size_t n, size_t k)
{
	uint64_t state = 0x9e3779b97f4a7c15u;
	size_t lo = 0, hi = n;

	assert(k < n);
	while (hi - lo > 1) {
		double pivot = median_of_three(
			v[scattered_index(&state, lo, hi)],
			v[scattered_index(&state, lo, hi)],
			v[scattered_index(&state, lo, hi)]);
		size_t lt = lo, i = lo, gt = hi;

		while (i < gt) {
			if (v[i] < pivot)
				swap_doubles(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap_doubles(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

static double max_of(const double *v, size_t n)
{
	double max = v[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] > max)
			max = v[i];
	return max;
}

static double midpoint(double a, double b)
{
	return a == b ? a : (a + b) / 2;
}

/* The median of v, reordering v. */
static double median_in_place(double *v, size_t n)
{
	size_t half = n / 2;
	double upper;

	select_kth(v, n, half);
	upper = v[half];
	if (n % 2)
		return upper;
	return midpoint(max_of(v, half), upper);
}

/* Type 7 of Hyndman & Fan, reordering v. */
static double percentile_in_place(double *v, size_t n, double fraction)
{
	double h = (double)(n - 1) * fraction;
	size_t j = (size_t)h;
	double g = h - (double)j, low, high;
	size_t i;

	if (j >= n - 1)
		j = n - 1;
	select_kth(v, n, j);
	low = v[j];
	if (g == 0 || j == n - 1)
		return low;
	high = v[j + 1];
	for (i = j + 2; i < n; i++)
		if (v[i] < high)
			high = v[i];
	return low + g * (high - low);
}

static double percentile_sorted(const double *sorted, size_t n, double fraction)
{
	double h = (double)(n - 1) * fraction;
	size_t j = (size_t)h;
	double g = h - (double)j;

	if (j >= n - 1)
		return sorted[n - 1];
	if (g == 0)
		return sorted[j];
	return sorted[j] + g * (sorted[j + 1] - sorted[j]);
}

static double median_sorted(const double *sorted, size_t n)
{
	if (n % 2)
		return sorted[n / 2];
	return midpoint(sorted[n / 2 - 1], sorted[n / 2]);
}

/* The MAD of v around center, reusing scratch (n values). */
static double mad_around(const double *v, size_t n, double center,
			 double *scratch)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = fabs(v[i] - center);
	return median_in_place(scratch, n);
}

/* The standard normal distribution */

static double polynomial(const double *coef, size_t n, double x)
{
	double sum = coef[n - 1];

	while (n-- > 1)
		sum = sum * x + coef[n - 1];
	return sum;
}

/* Wichura, M. J. (1988), Algorithm AS 241, Applied Statistics 37(3):477-484;
 * coefficients in increasing powers. */
static const double as241_a[] = {
	3.387132872796366608e+0,  1.3314166789178437745e+2,
	1.9715909503065514427e+3, 1.3731693765509461125e+4,
	4.5921953931549871457e+4, 6.7265770927008700853e+4,
	3.3430575583588128105e+4, 2.5090809287301226727e+3,
};
static const double as241_b[] = {
	1.0,
	4.2313330701600911252e+1,
	6.8718700749205790830e+2,
	5.3941960214247511077e+3,
	2.1213794301586595867e+4,
	3.9307895800092710610e+4,
	2.8729085735721942674e+4,
	5.2264952788528545610e+3,
};
static const double as241_c[] = {
	1.42343711074968357734e+0, 4.63033784615654529590e+0,
	5.76949722146069140550e+0, 3.64784832476320460504e+0,
	1.27045825245236838258e+0, 2.41780725177450611770e-1,
	2.27238449892691845833e-2, 7.74545014278341407640e-4,
};
static const double as241_d[] = {
	1.0,
	2.05319162663775882187e+0,
	1.67638483018380384940e+0,
	6.89767334985100004550e-1,
	1.48103976427480074590e-1,
	1.51986665636164571966e-2,
	5.47593808499534494600e-4,
	1.05075007164441684324e-9,
};
static const double as241_e[] = {
	6.65790464350110377720e+0, 5.46378491116411436990e+0,
	1.78482653991729133580e+0, 2.96560571828504891230e-1,
	2.65321895265761230930e-2, 1.24266094738807843860e-3,
	2.71155556874348757815e-5, 2.01033439929228813265e-7,
};
static const double as241_f[] = {
	1.0,
	5.99832206555887937690e-1,
	1.36929880922735805310e-1,
	1.48753612908506148525e-2,
	7.86869131145613259100e-4,
	1.84631831751005468180e-5,
	1.42151175831644588870e-7,
	2.04426310338993978564e-15,
};

#define AS241_TERMS (sizeof(as241_a) / sizeof(as241_a[0]))

double stats_normal_quantile(double p)
{
	double q, r, x;

	if (!(p >= 0 && p <= 1))
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;

	q = p - 0.5;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * polynomial(as241_a, AS241_TERMS, r) /
		       polynomial(as241_b, AS241_TERMS, r);
	}
	r = sqrt(-log(q < 0 ? p : 1 - p));
	if (r <= 5.0) {
		r -= 1.6;
		x = polynomial(as241_c, AS241_TERMS, r) /
		    polynomial(as241_d, AS241_TERMS, r);
	} else {
		r -= 5.0;
		x = polynomial(as241_e, AS241_TERMS, r) /
		    polynomial(as241_f, AS241_TERMS, r);
	}
	return q < 0 ? -x : x;
}

/* Location and spread of one sample */

double stats_min(const double *v, size_t n)
{
	double min;
	size_t i;

	if (!n)
		return NAN;
	min = v[0];
	for (i = 1; i < n; i++)
		if (v[i] < min)
			min = v[i];
	return min;
}

double stats_max(const double *v, size_t n)
{
	return n ? max_of(v, n) : NAN;
}

double stats_mean(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

double stats_stddev(const double *v, size_t n)
{
	double mean, sum = 0;
	size_t i;

	if (!n)
		return NAN;
	if (n == 1)
		return 0;
	/* Two passes: the one-pass formula cancels catastrophically when the
	 * spread is tiny against the level, which is every latency. */
	mean = stats_mean(v, n);
	for (i = 0; i < n; i++)
		sum += (v[i] - mean) * (v[i] - mean);
	return sqrt(sum / (double)(n - 1));
}

double stats_median(const double *v, size_t n)
{
	double *copy, median;

	if (!n)
		return NAN;
	copy = copy_sample(v, n);
	median = median_in_place(copy, n);
	free(copy);
	return median;
}

double stats_percentile(const double *v, size_t n, double p)
{
	double *copy, result;

	assert(p >= 0 && p <= 100);
	if (!n)
		return NAN;
	copy = copy_sample(v, n);
	result = percentile_in_place(copy, n, p / 100);
	free(copy);
	return result;
}

/* The raw MAD: stats_mad_scaled() and stats_robust_cv() scale it. */
static double median_abs_deviation(const double *v, size_t n)
{
	double *scratch, mad;

	if (!n)
		return NAN;
	scratch = copy_sample(v, n);
	mad = mad_around(v, n, median_in_place(scratch, n), scratch);
	free(scratch);
	return mad;
}

double stats_mad_scaled(const double *v, size_t n)
{
	return STATS_MAD_SCALE * median_abs_deviation(v, n);
}

static double robust_cv(double median, double mad)
{
	if (mad == 0)
		return 0;
	return STATS_MAD_SCALE * mad / fabs(median);
}

double stats_robust_cv(const double *v, size_t n)
{
	if (!n)
		return NAN;
	return robust_cv(stats_median(v, n), median_abs_deviation(v, n));
}

/* Pseudo-random numbers */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void stats_rng_seed(struct stats_rng *rng, uint64_t seed)
{
	int i;

	/* splitmix64 never yields four zero words, which would stall
	 * xoshiro forever. */
	for (i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct stats_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double stats_rng_uniform(struct stats_rng *rng)
{
	return (double)((rng_next(rng) >> 11) + 1) * 0x1p-53;
}

/* Uniform in [0, bound) without modulo bias (Lemire, 2019, on 32 bits). */
static size_t rng_below(struct stats_rng *rng, size_t bound)
{
	uint32_t bound32 = (uint32_t)bound;
	uint64_t m;
	uint32_t low;

	assert(bound > 0 && bound <= UINT32_MAX);
	m = (rng_next(rng) >> 32) * bound32;
	low = (uint32_t)m;
	if (low < bound32) {
		uint32_t threshold = (uint32_t)-bound32 % bound32;

		while (low < threshold) {
			m = (rng_next(rng) >> 32) * bound32;
			low = (uint32_t)m;
		}
	}
	return (size_t)(m >> 32);
}

/* Bootstrap confidence intervals */

/*
 * One sample prepared for resampling: sorted once, so that a resample is
 * just how often each sorted value was drawn and its median a scan of
 * those counts, O(n) with no sort or selection per resample.
 */
struct resampler {
	double *sorted;
	size_t *counts;
	size_t n;
};

static void resampler_init(struct resampler *r, const double *v, size_t n)
{
	r->sorted = sorted_copy(v, n);
	r->counts = xcalloc(n, sizeof(*r->counts));
	r->n = n;
}

static void resampler_release(struct resampler *r)
{
	free(r->sorted);
	free(r->counts);
}

static double resampled_median(struct resampler *r, struct stats_rng *rng)
{
	size_t lower = (r->n - 1) / 2, upper = r->n / 2;
	size_t i, seen = 0;
	double low = r->sorted[0];

	memset(r->counts, 0, r->n * sizeof(*r->counts));
	for (i = 0; i < r->n; i++)
		r->counts[rng_below(rng, r->n)]++;
	for (i = 0; i < r->n; i++) {
		if (seen <= lower && seen + r->counts[i] > lower)
			low = r->sorted[i];
		seen += r->counts[i];
		if (seen > upper)
			return midpoint(low, r->sorted[i]);
	}
	return r->sorted[r->n - 1]; /* not reached: the counts sum to n */
}

static int check_bootstrap_args(const char *what, size_t n, double confidence,
				size_t resamples)
{
	if (!n)
		return bg_input_error("%s: empty sample", what);
	if (!(confidence > 0 && confidence < 1))
		return bg_input_error("%s: confidence %g is not between "
				      "0 and 1",
				      what, confidence);
	if (!resamples)
		return bg_input_error("%s: zero resamples", what);
	if (n > UINT32_MAX)
		return bg_input_error("%s: sample of %zu values is too large",
				      what, n);
	return BG_OK;
}

/* The percentile interval from the resampled statistics (reordered). */
static void percentile_interval(double *stats, size_t nstats, double confidence,
				struct stats_interval *out)
{
	double alpha = 1 - confidence;

	out->low = percentile_in_place(stats, nstats, alpha / 2);
	out->high = percentile_in_place(stats, nstats, 1 - alpha / 2);
}

int stats_bootstrap_median_ci(const double *v, size_t n, double confidence,
			      size_t resamples, uint64_t seed,
			      struct stats_interval *out)
{
	struct resampler sample;
	struct stats_rng rng;
	double *medians;
	size_t i;
	int error;

	if ((error = check_bootstrap_args("bootstrap of the median", n,
					  confidence, resamples)) < 0)
		return error;

	resampler_init(&sample, v, n);
	medians = xcalloc(resamples, sizeof(*medians));
	stats_rng_seed(&rng, seed);
	for (i = 0; i < resamples; i++)
		medians[i] = resampled_median(&sample, &rng);
	percentile_interval(medians, resamples, confidence, out);
	free(medians);
	resampler_release(&sample);
	return BG_OK;
}

int stats_bootstrap_ratio_ci(const double *base, size_t nbase,
			     const double *cand, size_t ncand,
			     double confidence, size_t resamples, uint64_t seed,
			     struct stats_interval *out)
{
	struct resampler baseline, candidate;
	struct stats_rng rng;
	double *ratios;
	size_t i;
	int error;

	if ((error = check_bootstrap_args("bootstrap of the ratio", nbase,
					  confidence, resamples)) < 0 ||
	    (error = check_bootstrap_args("bootstrap of the ratio", ncand,
					  confidence, resamples)) < 0)
		return error;

	resampler_init(&baseline, base, nbase);
	/* A median of values of one strict sign is never 0, so no resample
	 * can divide by zero. */
	if (!(baseline.sorted[0] > 0 || baseline.sorted[nbase - 1] < 0)) {
		resampler_release(&baseline);
		return bg_input_error("bootstrap of the ratio: baseline has "
				      "zero or values of both signs");
	}
	resampler_init(&candidate, cand, ncand);
	ratios = xcalloc(resamples, sizeof(*ratios));
	stats_rng_seed(&rng, seed);
	for (i = 0; i < resamples; i++) {
		double denominator = resampled_median(&baseline, &rng);

		ratios[i] = resampled_median(&candidate, &rng) / denominator;
	}
	percentile_interval(ratios, resamples, confidence, out);
	free(ratios);
	resampler_release(&candidate);
	resampler_release(&baseline);
	return BG_OK;
}

/* The Hodges-Lehmann estimate of the ratio */

/*
 * How many ratios b_j / a_i are <= t, for positive a and b sorted
 * ascending. A ratio falls as a_i grows and rises with b_j (rounding is
 * monotone, so this holds for the computed doubles too), so the first a_i
 * that gets under t only moves right as j grows: one merge-like pass.
 */
static size_t count_ratios_at_most(const double *a, size_t na, const double *b,
				   size_t nb, double t)
{
	size_t i = 0, j, count = 0;

	for (j = 0; j < nb; j++) {
		while (i < na && b[j] / a[i] > t)
			i++;
		count += na - i;
	}
	return count;
}

/* Doubles mapped to unsigned integers in the same order, so that bisection
 * over the keys finds an exact double in at most 64 steps. */
static uint64_t double_key(double x)
{
	uint64_t bits;

	memcpy(&bits, &x, sizeof(bits));
	return bits >> 63 ? ~bits : bits | (1ULL << 63);
}

static double key_double(uint64_t key)
{
	uint64_t bits = key >> 63 ? key & ~(1ULL << 63) : ~key;
	double x;

	memcpy(&x, &bits, sizeof(x));
	return x;
}

/* The k-th smallest (from 0) of all b_j / a_i, a and b positive and
 * sorted. */
static double kth_ratio(const double *a, size_t na, const double *b, size_t nb,
			size_t k)
{
	uint64_t lo = double_key(b[0] / a[na - 1]);
	uint64_t hi = double_key(b[nb - 1] / a[0]);

	/* The smallest value with more than k ratios at or below it is a
	 * value some ratio takes. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (count_ratios_at_most(a, na, b, nb, key_double(mid)) > k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return key_double(lo);
}

static bool all_positive(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(v[i] > 0))
			return false;
	return true;
}

double stats_hodges_lehmann_ratio(const double *a, size_t na, const double *b,
				  size_t nb)
{
	double *sa, *sb, median;
	size_t ratios;

	if (!na || !nb || na > SIZE_MAX / nb || !all_positive(a, na) ||
	    !all_positive(b, nb))
		return NAN;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	ratios = na * nb;
	median = kth_ratio(sa, na, sb, nb, ratios / 2);
	if (ratios % 2 == 0)
		median = midpoint(kth_ratio(sa, na, sb, nb, ratios / 2 - 1),
				  median);
	free(sa);
	free(sb);
	return median;
}

/* Benjamini-Hochberg */

struct ranked_p {
	double p;
	size_t index;
};

static int compare_ranked_p(const void *pa, const void *pb)
{
	const struct ranked_p *a = pa, *b = pb;
	int order = compare_doubles(&a->p, &b->p);

	/* Ties in input order: qsort is not stable, and the output should
	 * not depend on the C library. */
	if (order)
		return order;
	return (a->index > b->index) - (a->index < b->index);
}

void stats_bh_adjust(const double *p, size_t n, double *adjusted)
{
	struct ranked_p *ranked;
	double running_min = 1;
	size_t i;

	if (!n)
		return;
	ranked = xcalloc(n, sizeof(*ranked));
	for (i = 0; i < n; i++) {
		ranked[i].p = p[i];
		ranked[i].index = i;
	}
	qsort(ranked, n, sizeof(*ranked), compare_ranked_p);
	/* Step up from the largest p-value: the running minimum makes the
	 * adjusted values monotone in p. */
	for (i = n; i-- > 0;) {
		double scaled = ranked[i].p * (double)n / (double)(i + 1);

		if (scaled < running_min)
			running_min = scaled;
		adjusted[ranked[i].index] = running_min;
	}
	free(ranked);
}

/* Summary */

int stats_summarize(const double *v, size_t n, double confidence, uint64_t seed,
		    struct stats_summary *out)
{
	struct stats_interval ci;
	double *sorted;
	int error;

	out->n = n;
	out->median = out->mean = out->stddev = out->min = out->max = NAN;
	out->mad = out->robust_cv = NAN;
	out->p50 = out->p90 = out->p99 = NAN;
	out->ci_low = out->ci_high = NAN;
	if (!n)
		return bg_input_error("summary: empty sample");
	(void)seed;
	if ((error = stats_median_order_ci(v, n, confidence, &ci)) < 0)
		return error;

	sorted = sorted_copy(v, n);
	out->median = median_sorted(sorted, n);
	out->mean = stats_mean(v, n);
	out->stddev = stats_stddev(v, n);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->p50 = percentile_sorted(sorted, n, 0.50);
	out->p90 = percentile_sorted(sorted, n, 0.90);
	out->p99 = percentile_sorted(sorted, n, 0.99);
	out->mad = mad_around(v, n, out->median, sorted);
	out->robust_cv = robust_cv(out->median, out->mad);
	out->ci_low = ci.low;
	out->ci_high = ci.high;
	free(sorted);
	return BG_OK;
}

/* Student's t and Welch */

/* The continued fraction of the incomplete beta function, by the modified
 * Lentz method (Press et al., Numerical Recipes, 6.4). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300, epsilon = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, step, delta;

		step = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + step * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + step / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		step = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + step * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + step / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < epsilon)
			break;
	}
	return h;
}

static double log_gamma(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

/* The regularized incomplete beta function I_x(a, b). */
static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	/* lgamma_r: lgamma writes the global signgam, a race for callers
	 * that run comparisons in threads. */
	front = exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) +
		    a * log(x) + b * log1p(-x));
	/* The fraction converges fast only below the mean of the beta. */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double stats_t_two_sided(double t, double df)
{
	if (!(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

/* The density of Student's t with df degrees of freedom at t. */
static double t_density(double t, double df)
{
	return exp(log_gamma((df + 1) / 2) - log_gamma(df / 2) -
		   0.5 * log(df * M_PI) - (df + 1) / 2 * log1p(t * t / df));
}

double stats_t_critical(double alpha, double df)
{
	double low = 0, high = 1, t;

	if (!(df > 0) || !(alpha > 0 && alpha < 1))
		return NAN;
	while (stats_t_two_sided(high, df) > alpha)
		high *= 2;
	/* p falls as t grows, with slope -2 density: Newton's steps kept
	 * inside [low, high], a halving where one would leave it, until
	 * the doubles meet; a few steps where bisection takes fifty */
	t = low + (high - low) / 2;
	for (int i = 0; i < 200 && high - low > 1e-15 * high; i++) {
		double p = stats_t_two_sided(t, df), next;

		if (p > alpha)
			low = t;
		else
			high = t;
		next = t + (p - alpha) / (2 * t_density(t, df));
		if (!(next > low && next < high) ||
		    fabs(next - t) <= 1e-15 * t) {
			if (fabs(next - t) <= 1e-15 * t && next > low &&
			    next < high)
				return next;
			next = low + (high - low) / 2;
		}
		t = next;
	}
	return low + (high - low) / 2;
}

/* Hogg's U_beta (upper) or L_beta: the mean of the largest (smallest)
 * n beta values of a sorted sample, the last one weighted by its fraction,
 * so that fewer than one value means the extreme itself. */
static double end_mean(const double *sorted, size_t n, double beta, bool upper)
{
	double count = beta * (double)n, sum = 0, taken = 0;

	for (size_t k = 0; k < n && taken < count; k++) {
		double w = count - taken < 1 ? count - taken : 1;

		sum += w * sorted[upper ? n - 1 - k : k];
		taken += w;
	}
	return sum / taken;
}

/* One side of Yuen's test: its trimmed mean, the squared standard error of
 * that mean (inflated by the side's dependence) and the degrees of freedom
 * of that variance. */
struct trimmed_side {
	double mean, weight, df;
};

static const struct stats_dependence independent = { .inflation = 1,
						     .df_share = 1 };

static void trimmed_side(const double *v, size_t n,
			 const struct stats_dependence *dep, double trim,
			 struct trimmed_side *side)
{
	double *sorted = sorted_copy(v, n), sum = 0, wmean = 0, wsquares = 0;
	size_t g = (size_t)floor(trim * (double)n), h = n - 2 * g;

	for (size_t i = g; i < n - g; i++)
		sum += sorted[i];
	side->mean = sum / (double)h;
	/* Winsorizing: the g values at each end replaced by the nearest
	 * value kept. */
	for (size_t i = 0; i < n; i++)
		wmean += sorted[i < g ? g : i >= n - g ? n - g - 1 : i];
	wmean /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = sorted[i < g	       ? g
				  : i >= n - g ? n - g - 1
					       : i] -
			   wmean;

		wsquares += d * d;
	}
	side->weight = wsquares / ((double)h * (double)(h - 1)) *
		       dep->inflation;
	side->df = (double)(h - 1) * dep->df_share;
	free(sorted);
}

static bool dependence_valid(const struct stats_dependence *dep)
{
	return dep->inflation >= 1 && isfinite(dep->inflation) &&
	       dep->df_share > 0 && dep->df_share <= 1;
}

/* Whether trimming floor(trim n) values off each end of n is allowed and
 * keeps at least two. */
static bool keeps_two(size_t n, double trim)
{
	return trim >= 0 && trim < 0.5 &&
	       n - 2 * (size_t)floor(trim * (double)n) >= 2;
}

int stats_yuen_eff(const double *a, size_t na, const double *b, size_t nb,
		   const struct stats_dependence *da,
		   const struct stats_dependence *db, double trim,
		   struct stats_welch *out)
{
	struct trimmed_side sa, sb;
	double se2;

	da = da ? da : &independent;
	db = db ? db : &independent;
	if (!keeps_two(na, trim) || !keeps_two(nb, trim) ||
	    !dependence_valid(da) || !dependence_valid(db))
		return bg_input_error("t-test: need two values per sample "
				      "after trimming, an inflation of at "
				      "least 1 and a share of the degrees of "
				      "freedom in (0, 1]");
	trimmed_side(a, na, da, trim, &sa);
	trimmed_side(b, nb, db, trim, &sb);
	se2 = sa.weight + sb.weight;
	out->difference = sb.mean - sa.mean;
	out->mean_a = sa.mean;
	out->mean_b = sb.mean;
	out->se = sqrt(se2);
	out->t = 0;
	out->df = sa.df + sb.df;
	out->p_value = 1;
	if (!(se2 > 0))
		return BG_OK;
	out->t = out->difference / out->se;
	/* Welch-Satterthwaite, each variance at its own degrees of freedom */
	out->df = se2 * se2 /
		  (sa.weight * sa.weight / sa.df + sb.weight * sb.weight / sb.df);
	if (!(out->df > 0) || isinf(out->df))
		out->df = sa.df + sb.df;
	out->p_value = stats_t_two_sided(out->t, out->df);
	return BG_OK;
}

int stats_yuen_one_sample(const double *v, size_t n,
			  const struct stats_dependence *dep, double trim,
			  struct stats_welch *out)
{
	struct trimmed_side side;

	dep = dep ? dep : &independent;
	if (!keeps_two(n, trim) || !dependence_valid(dep))
		return bg_input_error("t-test: need two values after trimming, "
				      "an inflation of at least 1 and a share "
				      "of the degrees of freedom in (0, 1]");
	trimmed_side(v, n, dep, trim, &side);
	out->difference = side.mean;
	out->mean_a = 0;
	out->mean_b = side.mean;
	out->se = sqrt(side.weight);
	out->df = side.df;
	out->t = 0;
	out->p_value = 1;
	if (!(side.weight > 0))
		return BG_OK;
	out->t = side.mean / out->se;
	out->p_value = stats_t_two_sided(out->t, out->df);
	return BG_OK;
}

void stats_ranks(const double *v, size_t n, double *ranks)
{
	double *sorted = sorted_copy(v, n);

	/* below: values less than v[i]; equal: those equal to it, which
	 * share the mean of their ranks */
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = n, below, upto;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (compare_doubles(&sorted[mid], &v[i]) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		below = lo;
		hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (compare_doubles(&sorted[mid], &v[i]) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		upto = lo;
		ranks[i] = ((double)below + 1 + (double)upto) / 2;
	}
	free(sorted);
}

void stats_ar1_dependence(size_t n, double r, struct stats_dependence *out)
{
	double f = 1, power = 1;

	out->inflation = out->df_share = 1;
	if (n < 2 || !(r > 0))
		return;
	r = r < STATS_AR1_MAX ? r : STATS_AR1_MAX;
	for (size_t k = 1; k < n; k++) {
		power *= r;
		f += 2 * (1 - (double)k / (double)n) * power;
	}
	out->inflation = (double)(n - 1) * f / ((double)n - f);
	out->df_share = (1 - r * r) / (1 + r * r);
}

double stats_tailweight(const double *v, size_t n)
{
	double *sorted, tails, halves;

	if (n < 4)
		return NAN;
	sorted = sorted_copy(v, n);
	tails = end_mean(sorted, n, 0.05, true) -
		end_mean(sorted, n, 0.05, false);
	halves = end_mean(sorted, n, 0.5, true) -
		 end_mean(sorted, n, 0.5, false);
	free(sorted);
	return halves > 0 ? tails / halves : NAN;
}

int stats_median_order_ci(const double *v, size_t n, double confidence,
			  struct stats_interval *out)
{
	double *sorted;
	int error;

	if ((error = check_bootstrap_args("interval of the median", n,
					  confidence, 1)) < 0)
		return error;
	sorted = sorted_copy(v, n);
	median_interval(sorted, n, confidence, &out->low, &out->high);
	free(sorted);
	return BG_OK;
}

/* Paired data: Wilcoxon's signed-rank test */

#define SIGNED_RANK_EXACT 50

bool stats_signed_rank_can_reject(size_t n, double confidence)
{
	return n >= 1 && n < 64 ? ldexp(1.0, 1 - (int)n) <= 1 - confidence
				: n >= 64;
}

/*
 * P(T <= t), t = 0..M, of the signed-rank statistic of n pairs under the
 * null (each of the 2^n sign patterns alike): the subsets of {1..n} by
 * their sum, counted as probabilities so that nothing overflows.
 */
static double *signed_rank_cdf(size_t n, size_t walsh)
{
	double *p = xcalloc(walsh + 1, sizeof(*p));
	size_t top = 0;

	p[0] = 1;
	for (size_t r = 1; r <= n; r++) {
		top += r;
		for (size_t t = top; t >= r; t--)
			p[t] = (p[t] + p[t - r]) / 2;
		for (size_t t = r; t-- > 0;)
			p[t] /= 2;
	}
	for (size_t t = 1; t <= walsh; t++)
		p[t] += p[t - 1];
	return p;
}

/* P(T <= t) of n pairs: exact table, or normal with continuity
 * correction. */
static double signed_rank_lower(const double *cdf, size_t n, size_t walsh,
				double t)
{
	double sd;

	if (t < 0)
		return 0;
	if (cdf)
		return cdf[t >= (double)walsh ? walsh : (size_t)t];
	sd = sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24);
	return 0.5 * erfc(-(floor(t) + 0.5 - (double)walsh / 2) / sd / M_SQRT2);
}

int stats_signed_rank(const double *d, size_t n, double confidence,
		      struct stats_signed_rank *out)
{
	size_t walsh = n * (n + 1) / 2, m = 0, k = 0, above = 0, below = 0;
	double *averages, *cdf = NULL, alpha = 1 - confidence;

	out->estimate = out->p_value = NAN;
	out->low = -INFINITY;
	out->high = INFINITY;
	if (!n || n > STATS_SIGNED_RANK_MAX)
		return bg_input_error("signed-rank test: %zu pairs (1 to %d)",
				      n, STATS_SIGNED_RANK_MAX);
	if (!(confidence > 0 && confidence < 1))
		return bg_input_error("signed-rank test: confidence %g is not "
				      "between 0 and 1",
				      confidence);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return bg_input_error("signed-rank test: difference "
					      "%zu is not finite",
					      i + 1);
	averages = xmalloc(walsh * sizeof(*averages));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++) {
			double w = (d[i] + d[j]) / 2;

			averages[m++] = w;
			above += w > 0;
			below += w < 0;
		}
	sort_doubles(averages, walsh);
	out->estimate = median_sorted(averages, walsh);
	if (n <= SIGNED_RANK_EXACT)
		cdf = signed_rank_cdf(n, walsh);
	while (k < walsh / 2 &&
	       signed_rank_lower(cdf, n, walsh, (double)k) <= alpha / 2)
		k++;
	if (k) {
		out->low = averages[k - 1];
		out->high = averages[walsh - k];
	}
	/* a Walsh average of 0 counts against rejecting, on either side */
	out->p_value = fmin(1, 2 * signed_rank_lower(
					   cdf, n, walsh,
					   (double)(walsh - (above > below
								     ? above
								     : below))));
	free(cdf);
	free(averages);
	return BG_OK;
}
