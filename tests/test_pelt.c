/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pelt_search() against the search as changepoint.c did it before it was
 * made fast (kept here, straightforward: every live start's cost computed
 * twice a step, one at a time): the same splits, on generated histories
 * of the shapes change-point detection meets, ties and non-finite sums
 * included.
 */
#include "harness/gate/pelt.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TestSuite(pelt);

#define PENALTY 16.0

/* The reference: the search of changepoint.c's propose() up to d6f707e,
 * verbatim but for its inputs. */
static size_t reference_search(const double *x, const double *u, size_t n,
			       size_t m, double penalty, size_t **splits)
{
	size_t *last, *cand, ncand = 0, nsplits = 0;
	double *su, *sx, *sxx, *f;

	*splits = NULL;
	if (n < 2 * m)
		return 0;
	su = malloc((n + 1) * sizeof(*su));
	sx = malloc((n + 1) * sizeof(*sx));
	sxx = malloc((n + 1) * sizeof(*sxx));
	f = malloc((n + 1) * sizeof(*f));
	last = malloc((n + 1) * sizeof(*last));
	cand = malloc((n + 1) * sizeof(*cand));
	cr_assert(su && sx && sxx && f && last && cand);
	su[0] = sx[0] = sxx[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - x[0];

		su[i + 1] = su[i] + u[i];
		sx[i + 1] = sx[i] + u[i] * d;
		sxx[i + 1] = sxx[i] + u[i] * d * d;
	}
#define COST(a, b)                                                     \
	(sxx[b] - sxx[a] - (sx[b] - sx[a]) * (sx[b] - sx[a]) / (su[b] - su[a]))
	f[0] = -penalty;
	cand[ncand++] = 0;
	for (size_t t = m; t <= n; t++) {
		size_t kept = 0;

		f[t] = INFINITY;
		last[t] = 0;
		for (size_t c = 0; c < ncand; c++) {
			double total = f[cand[c]] + COST(cand[c], t) + penalty;

			if (total < f[t]) {
				f[t] = total;
				last[t] = cand[c];
			}
		}
		for (size_t c = 0; c < ncand; c++)
			if (f[cand[c]] + COST(cand[c], t) <= f[t])
				cand[kept++] = cand[c];
		ncand = kept;
		if (t + 1 >= 2 * m)
			cand[ncand++] = t + 1 - m;
	}
#undef COST
	for (size_t t = last[n]; t > 0; t = last[t])
		nsplits++;
	if (nsplits) {
		size_t j = nsplits;

		*splits = malloc(nsplits * sizeof(**splits));
		cr_assert(*splits);
		for (size_t t = last[n]; t > 0; t = last[t])
			(*splits)[--j] = t;
	}
	free(su);
	free(sx);
	free(sxx);
	free(f);
	free(last);
	free(cand);
	return nsplits;
}

/* splitmix64 (Steele et al. 2014), the tests' own generator */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *state)
{
	return ((double)(next(state) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *state)
{
	return sqrt(-2 * log(uniform(state))) * cos(2 * M_PI * uniform(state));
}

/* Asserts that both searches split x, u alike; returns how many splits. */
static size_t assert_same(const double *x, const double *u, size_t n,
			  size_t m, const char *what)
{
	size_t *fast, *slow;
	size_t nfast = pelt_search(x, u, n, m, PENALTY, &fast);
	size_t nslow = reference_search(x, u, n, m, PENALTY, &slow);

	cr_assert_eq(nfast, nslow, "%s, n %zu, m %zu: %zu splits, not %zu",
		     what, n, m, nfast, nslow);
	for (size_t j = 0; j < nfast; j++)
		cr_assert_eq(fast[j], slow[j],
			     "%s, n %zu, m %zu: split %zu at %zu, not %zu",
			     what, n, m, j, fast[j], slow[j]);
	free(fast);
	free(slow);
	return nfast;
}

/*
 * A history's logarithms as changepoint.c weighs them: levels stepping
 * every `every` points by `step` sigmas (0: flat), noise of sd 1 and, one
 * night in `busy_every`, a busy one (weight / 961, noise * 5); weights
 * 1 / (1 + w_i) with w_i the point's own variance.
 */
static void make_history(double *x, double *u, size_t n, uint64_t seed,
			 size_t every, double step, size_t busy_every)
{
	double level = 0;

	for (size_t i = 0; i < n; i++) {
		bool busy = busy_every && next(&seed) % busy_every == 0;
		double within = 0.2 + uniform(&seed);

		if (every && i && i % every == 0)
			level += next(&seed) % 3 == 0 ? -step : step;
		x[i] = level + normal(&seed) * (busy ? 5 : 1);
		u[i] = 1 / ((1 + within) * (busy ? 961 : 1));
	}
}

Test(pelt, generated_histories_split_as_the_reference_does)
{
	static const size_t lengths[] = { 40, 41, 42, 43, 200, 777, 3001 };
	static const size_t everies[] = { 0, 12, 50, 400 };
	static const size_t segments[] = { 1, 2, 4, 7 };
	size_t found = 0;

	for (size_t l = 0; l < sizeof(lengths) / sizeof(*lengths); l++)
		for (size_t e = 0; e < sizeof(everies) / sizeof(*everies); e++)
			for (size_t s = 0; s < sizeof(segments) /
						       sizeof(*segments);
			     s++) {
				size_t n = lengths[l];
				double *x = malloc(n * sizeof(*x));
				double *u = malloc(n * sizeof(*u));
				uint64_t seed = 1000 * l + 10 * e + s;

				cr_assert(x && u);
				make_history(x, u, n, seed, everies[e],
					     e % 2 ? 6 : 3, s % 2 ? 9 : 0);
				found += assert_same(x, u, n, segments[s],
						     "history");
				free(x);
				free(u);
			}
	/* the data must exercise splits, or the comparison says little */
	cr_assert_gt(found, 100);
}

Test(pelt, a_long_quiet_history_splits_as_the_reference_does)
{
	size_t n = 10000;
	double *x = malloc(n * sizeof(*x)), *u = malloc(n * sizeof(*u));

	cr_assert(x && u);
	make_history(x, u, n, 42, 2500, 8, 37);
	cr_assert_geq(assert_same(x, u, n, 4, "long history"), 3);
	free(x);
	free(u);
}

/* Equal totals at many starts: the first of them wins, as in the
 * reference's strict `<`. */
Test(pelt, ties_go_to_the_earliest_start)
{
	size_t n = 300;
	double *x = malloc(n * sizeof(*x)), *u = malloc(n * sizeof(*u));
	uint64_t seed = 7;

	cr_assert(x && u);
	for (size_t i = 0; i < n; i++) {
		x[i] = 5;
		u[i] = 1;
	}
	for (size_t m = 1; m <= 5; m++)
		assert_same(x, u, n, m, "constant");
	/* a few levels of whole numbers: exact sums, tied costs */
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)(next(&seed) % 3) + (i >= 150 ? 8 : 0);
		u[i] = i % 5 ? 1 : 0.5;
	}
	for (size_t m = 1; m <= 5; m++)
		cr_assert_geq(assert_same(x, u, n, m, "integers"), 1);
	/* values 0 and sqrt(penalty) at random: exactly tied totals at the
	 * least, where the earliest start must win */
	for (size_t trial = 0; trial < 300; trial++) {
		size_t len = 8 + trial % 40;

		for (size_t i = 0; i < len; i++) {
			x[i] = (double)(next(&seed) % 2) * sqrt(PENALTY);
			u[i] = 1;
		}
		assert_same(x, u, len, 1 + trial % 3, "zeros and fours");
	}
	free(x);
	free(u);
}

/* Sums that overflow (NaN and infinite totals) and a zero weight's 0 / 0:
 * whatever the reference makes of them, the search makes the same. */
Test(pelt, non_finite_totals_are_handled_as_the_reference_does)
{
	size_t n = 120;
	double *x = malloc(n * sizeof(*x)), *u = malloc(n * sizeof(*u));
	uint64_t seed = 11;

	cr_assert(x && u);
	for (int shape = 0; shape < 4; shape++) {
		for (size_t i = 0; i < n; i++) {
			x[i] = normal(&seed) + (i >= 60 ? 10 : 0);
			u[i] = 1;
			if (shape == 0 && i % 17 == 3)
				x[i] = 1e200;
			if (shape == 1 && i >= 90)
				u[i] = 1e300;
			if (shape == 2 && i % 13 == 0)
				u[i] = 0;
			if (shape == 3 && i == 70)
				x[i] = -1e300;
		}
		for (size_t m = 1; m <= 4; m++)
			assert_same(x, u, n, m, "non-finite");
	}
	free(x);
	free(u);
}

Test(pelt, too_short_a_series_has_no_split)
{
	double x[8] = { 0, 0, 0, 0, 9, 9, 9 }, u[8] = { 1, 1, 1, 1, 1, 1, 1 };
	size_t *splits = (size_t *)x;

	cr_assert_eq(pelt_search(x, u, 7, 4, PENALTY, &splits), 0);
	cr_assert_null(splits);
	cr_assert_eq(pelt_search(x, u, 0, 4, PENALTY, &splits), 0);
	x[7] = 9;
	u[7] = 1;
	cr_assert_eq(pelt_search(x, u, 8, 4, PENALTY, &splits), 1);
	cr_assert_eq(splits[0], 4);
	free(splits);
}
