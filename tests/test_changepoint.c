/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/changepoint.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(changepoint);

#define RUNS 10

/* Test data from its own generator (splitmix64, Steele et al. 2014), not
 * the library's, so that a bug there cannot hide in both. */
static uint64_t test_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double test_normal(uint64_t *state)
{
	double u1 =
		((double)(test_next(state) >> 11) + 0.5) / 9007199254740992.0;
	double u2 =
		((double)(test_next(state) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * A benchmark history as the issue describes them: point i's RUNS runs are
 * level(i) * exp(u_i + e_ij), u_i the commit-to-commit noise (sd 2 %),
 * e_ij the runs' own (sd 1 %), the level multiplied by 1 + step from
 * step_at on (and by 1 + step2 from step2_at on, when step2_at < n).
 */
struct history {
	size_t n;
	double *runs;
	struct changepoint_input *points;
};

static void history_make(struct history *h, size_t n, uint64_t seed,
			 size_t step_at, double step, size_t step2_at,
			 double step2)
{
	h->n = n;
	h->runs = calloc(n * RUNS, sizeof(*h->runs));
	h->points = calloc(n, sizeof(*h->points));
	cr_assert(h->runs && h->points);
	for (size_t i = 0; i < n; i++) {
		double level = (i >= step_at ? 1 + step : 1) *
			       (i >= step2_at ? 1 + step2 : 1);
		double u = 0.02 * test_normal(&seed), *run = h->runs + i * RUNS;
		double sorted[RUNS];

		for (size_t j = 0; j < RUNS; j++)
			run[j] = 100 * level *
				 exp(u + 0.01 * test_normal(&seed));
		memcpy(sorted, run, sizeof(sorted));
		for (size_t a = 1; a < RUNS; a++)
			for (size_t b = a; b > 0 && sorted[b - 1] > sorted[b];
			     b--) {
				double t = sorted[b];

				sorted[b] = sorted[b - 1];
				sorted[b - 1] = t;
			}
		h->points[i].median =
			(sorted[RUNS / 2 - 1] + sorted[RUNS / 2]) / 2;
		h->points[i].samples = run;
		h->points[i].n = RUNS;
	}
}

static void history_free(struct history *h)
{
	free(h->runs);
	free(h->points);
}

/* The change points of h's first `first` points (one, the step planted at
 * 60), then of one more night at a time through changepoint_append(), as a
 * nightly job keeps them. */
static void detect_then_append(struct changepoint_list *list,
			       const struct history *h, size_t first)
{
	changepoint_detect(list, h->points, first, NULL);
	cr_assert_eq(list->nr, 1);
	cr_assert_eq(list->items[0].index, 60);
	for (size_t nr = first + 1; nr <= h->n; nr++)
		changepoint_append(list, h->points, nr, NULL);
}

static void assert_same_change_point(const struct changepoint *a,
				     const struct changepoint *b)
{
	cr_assert_eq(a->index, b->index);
	cr_assert_eq(a->before, b->before);
	cr_assert_eq(a->after, b->after);
	cr_assert_eq(a->change, b->change);
	cr_assert_eq(a->change_lo, b->change_lo);
	cr_assert_eq(a->change_hi, b->change_hi);
	cr_assert_eq(a->p, b->p);
}

Test(changepoint, options_init_gives_the_documented_defaults)
{
	struct changepoint_options opts;

	changepoint_options_init(&opts);
	cr_assert_eq(opts.significance, 0.001);
	cr_assert_eq(opts.min_change, 0.02);
	cr_assert_eq(opts.min_segment, 4);
}

Test(changepoint, planted_step_is_found_at_its_index_with_its_direction)
{
	struct history h;
	struct changepoint_list list = { 0 };

	history_make(&h, 60, 1, 30, 0.10, SIZE_MAX, 0);
	changepoint_detect(&list, h.points, h.n, NULL);
	cr_assert_eq(list.nr, 1, "%zu change points", list.nr);
	cr_assert_eq(list.items[0].index, 30);
	cr_assert_gt(list.items[0].change, 0);
	cr_assert_gt(list.items[0].after, list.items[0].before);
	cr_assert(list.items[0].change_lo <= 0.10 &&
			  0.10 <= list.items[0].change_hi,
		  "[%g, %g] misses the planted 10 %%", list.items[0].change_lo,
		  list.items[0].change_hi);
	cr_assert_lt(list.items[0].p, 0.001);
	changepoint_list_release(&list);
	history_free(&h);

	/* and a step down is a negative change */
	history_make(&h, 60, 2, 25, -0.08, SIZE_MAX, 0);
	changepoint_detect(&list, h.points, h.n, NULL);
	cr_assert_eq(list.nr, 1);
	cr_assert_eq(list.items[0].index, 25);
	cr_assert_lt(list.items[0].change, 0);
	cr_assert(list.items[0].change_lo <= -0.08 &&
		  -0.08 <= list.items[0].change_hi);
	changepoint_list_release(&list);
	history_free(&h);
}

/* Thirty flat histories of 1,000 nights: with 993 candidate splits each,
 * a test not corrected for them would find some. */
Test(changepoint, flat_noise_has_no_change_point)
{
	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct history h;
		struct changepoint_list list = { 0 };

		history_make(&h, 1000, seed, SIZE_MAX, 0, SIZE_MAX, 0);
		changepoint_detect(&list, h.points, h.n, NULL);
		cr_assert_eq(list.nr, 0,
			     "seed %d: %zu change points, the first at %zu",
			     (int)seed, list.nr,
			     list.nr ? list.items[0].index : 0);
		changepoint_list_release(&list);
		history_free(&h);
	}
}

/* A night 40 % slower as a whole (every run of it) is not a level, however
 * far it lies; nor are two of the last four nights, where they would be
 * half of the shortest segment. */
Test(changepoint, one_bad_night_is_not_a_change)
{
	size_t nights[] = { 100, 196, 198 };

	for (size_t k = 0; k < 2; k++) {
		struct history h;
		struct changepoint_list list = { 0 };
		size_t bad = nights[k], also = k ? nights[2] : bad;

		history_make(&h, 200, 7, SIZE_MAX, 0, SIZE_MAX, 0);
		h.points[bad].median *= 1.4;
		for (size_t j = 0; j < RUNS; j++)
			h.runs[bad * RUNS + j] *= 1.4;
		if (also != bad) {
			h.points[also].median *= 1.4;
			for (size_t j = 0; j < RUNS; j++)
				h.runs[also * RUNS + j] *= 1.4;
		}
		changepoint_detect(&list, h.points, h.n, NULL);
		cr_assert_eq(list.nr, 0,
			     "bad night %zu: %zu change points, the first "
			     "at %zu",
			     bad, list.nr, list.nr ? list.items[0].index : 0);
		changepoint_list_release(&list);
		history_free(&h);
	}
}

Test(changepoint, one_value_per_point_is_enough)
{
	struct history h;
	struct changepoint_list list = { 0 };

	history_make(&h, 60, 1, 30, 0.10, SIZE_MAX, 0);
	for (size_t i = 0; i < h.n; i++) {
		h.points[i].samples = NULL;
		h.points[i].n = 0;
	}
	changepoint_detect(&list, h.points, h.n, NULL);
	cr_assert_eq(list.nr, 1, "%zu change points", list.nr);
	cr_assert_eq(list.items[0].index, 30);
	cr_assert_gt(list.items[0].change, 0);
	changepoint_list_release(&list);
	history_free(&h);
}

/* Values of both signs are tested as they are, the change relative to
 * |before|: -10 to -8 is a change of +20 %. */
Test(changepoint, values_not_all_positive_are_tested_as_they_are)
{
	struct changepoint_input points[40] = { { 0 } };
	struct changepoint_list list = { 0 };
	uint64_t seed = 3;

	for (size_t i = 0; i < 40; i++) {
		points[i] = (struct changepoint_input){
			.median = (i < 20 ? -10 : -8) + 0.1 * test_normal(&seed),
		};
	}
	changepoint_detect(&list, points, 40, NULL);
	cr_assert_eq(list.nr, 1);
	cr_assert_eq(list.items[0].index, 20);
	cr_assert(fabs(list.items[0].change - 0.2) < 0.05, "%g",
		  list.items[0].change);
	changepoint_list_release(&list);
}

/* Unmeasured commits are NaN: the level's first measured point is the
 * change point, never a gap. */
Test(changepoint, nan_gaps_are_skipped_and_never_a_change_point)
{
	struct history h;
	struct changepoint_list list = { 0 };
	size_t gaps[] = { 3, 29, 30, 31, 45 };

	history_make(&h, 60, 1, 30, 0.10, SIZE_MAX, 0);
	for (size_t g = 0; g < sizeof(gaps) / sizeof(*gaps); g++) {
		h.points[gaps[g]].median = NAN;
		h.points[gaps[g]].samples = NULL;
	}
	changepoint_detect(&list, h.points, h.n, NULL);
	cr_assert_eq(list.nr, 1, "%zu change points", list.nr);
	cr_assert_eq(list.items[0].index, 32);
	cr_assert_gt(list.items[0].change, 0);
	cr_assert(isfinite(list.items[0].before) &&
		  isfinite(list.items[0].after));
	changepoint_list_release(&list);
	history_free(&h);
}

Test(changepoint, same_series_gives_the_same_change_points)
{
	struct history h;
	struct changepoint_list first = { 0 }, second = { 0 };

	history_make(&h, 400, 11, 150, 0.05, 300, -0.07);
	changepoint_detect(&first, h.points, h.n, NULL);
	changepoint_detect(&second, h.points, h.n, NULL);
	cr_assert_eq(first.nr, 2);
	cr_assert_eq(second.nr, first.nr);
	for (size_t i = 0; i < first.nr; i++)
		assert_same_change_point(&first.items[i], &second.items[i]);
	changepoint_list_release(&first);
	changepoint_list_release(&second);
	history_free(&h);
}

/* As the header promises, at every appended night: the change points of
 * the list stay where they were, and those added are changepoint_detect()'s
 * on the points from the last change point on. */
Test(changepoint, append_keeps_the_list_and_searches_after_the_last_change)
{
	struct history h;
	struct changepoint_list list = { 0 }, tail = { 0 };
	size_t added = 0;

	history_make(&h, 200, 5, 60, 0.08, 140, -0.08);
	changepoint_detect(&list, h.points, 100, NULL);
	cr_assert_eq(list.nr, 1);
	cr_assert_eq(list.items[0].index, 60);
	for (size_t nr = 101; nr <= h.n; nr++) {
		size_t before = list.nr, b = list.items[list.nr - 1].index;
		size_t kept[8];

		cr_assert_leq(before, 8);
		for (size_t i = 0; i < before; i++)
			kept[i] = list.items[i].index;
		changepoint_append(&list, h.points, nr, NULL);
		cr_assert_geq(list.nr, before);
		for (size_t i = 0; i < before; i++)
			cr_assert_eq(list.items[i].index, kept[i]);
		/* the end alone was searched, with the whole series'
		 * noise: here that is what a search of the whole finds */
		changepoint_detect(&tail, h.points, nr, NULL);
		cr_assert_eq(list.nr, tail.nr, "night %zu", nr);
		for (size_t i = before; i < tail.nr; i++) {
			cr_assert_geq(list.items[i].index, b);
			assert_same_change_point(&list.items[i],
						 &tail.items[i]);
		}
		added += list.nr - before;
	}
	/* the second step was found, near where it was planted */
	cr_assert_eq(added, 1);
	cr_assert_eq(list.nr, 2);
	cr_assert(list.items[1].index >= 137 && list.items[1].index <= 143,
		  "at %zu", list.items[1].index);
	cr_assert_lt(list.items[1].change, 0);
	changepoint_list_release(&list);
	changepoint_list_release(&tail);
	history_free(&h);
}

/* The last change point's numbers follow its segment as it grows: they
 * are those changepoint_detect() gives the same split on the whole. */
Test(changepoint, append_refreshes_the_last_change_points_numbers)
{
	struct history h;
	struct changepoint_list list = { 0 }, whole = { 0 };

	history_make(&h, 150, 5, 60, 0.08, SIZE_MAX, 0);
	detect_then_append(&list, &h, 80);
	changepoint_detect(&whole, h.points, h.n, NULL);
	cr_assert_eq(list.nr, 1);
	cr_assert_eq(whole.nr, 1);
	assert_same_change_point(&list.items[0], &whole.items[0]);
	changepoint_list_release(&list);
	changepoint_list_release(&whole);
	history_free(&h);
}

/* A change point once reported is kept where it is, even when the points
 * after it later make it look smaller than min_change. */
Test(changepoint, append_never_drops_a_reported_change_point)
{
	struct history h;
	struct changepoint_list list = { 0 };

	history_make(&h, 120, 5, 60, 0.08, 90, -0.075);
	detect_then_append(&list, &h, 90);
	cr_assert_geq(list.nr, 1);
	cr_assert_eq(list.items[0].index, 60);
	changepoint_list_release(&list);
	history_free(&h);
}

Test(changepoint, append_to_an_empty_list_is_detect)
{
	struct history h;
	struct changepoint_list list = { 0 }, whole = { 0 };

	history_make(&h, 80, 9, 50, 0.10, SIZE_MAX, 0);
	changepoint_detect(&list, h.points, 40, NULL);
	cr_assert_eq(list.nr, 0);
	changepoint_append(&list, h.points, h.n, NULL);
	changepoint_detect(&whole, h.points, h.n, NULL);
	cr_assert_eq(list.nr, 1);
	cr_assert_eq(whole.nr, 1);
	assert_same_change_point(&list.items[0], &whole.items[0]);
	changepoint_list_release(&list);
	changepoint_list_release(&whole);
	history_free(&h);
}

Test(changepoint, min_change_hides_small_significant_steps)
{
	struct history h;
	struct changepoint_list list = { 0 };
	struct changepoint_options opts;

	/* 0.6 % over 1000 points a side is significant, but below 1 % */
	history_make(&h, 2000, 14, 1000, 0.006, SIZE_MAX, 0);
	changepoint_detect(&list, h.points, h.n, NULL);
	cr_assert_eq(list.nr, 0);
	changepoint_options_init(&opts);
	opts.min_change = 0.003;
	changepoint_detect(&list, h.points, h.n, &opts);
	cr_assert_eq(list.nr, 1);
	cr_assert(list.items[0].index >= 990 && list.items[0].index <= 1010,
		  "at %zu", list.items[0].index);
	changepoint_list_release(&list);
	history_free(&h);
}

Test(changepoint, short_or_empty_series_have_none)
{
	struct changepoint_list list = { 0 };
	struct changepoint_input one = { .median = 1 };

	cr_assert_eq(changepoint_detect(&list, NULL, 0, NULL), 0);
	cr_assert_eq(list.nr, 0);
	cr_assert_eq(changepoint_detect(&list, &one, 1, NULL), 0);
	cr_assert_eq(list.nr, 0);
	changepoint_list_release(&list);
}

/* Nights that drift together (the machine's state carries over: commit
 * noise AR(1) with lag-1 correlation 0.6, the same 2 % spread) are worth
 * fewer independent values than their count: ten flat histories of 1,000
 * such nights have no change point. */
Test(changepoint, drifting_nights_are_not_steps)
{
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct changepoint_input points[1000] = { { 0 } };
		struct changepoint_list list = { 0 };
		double drift = 0;

		for (size_t i = 0; i < 1000; i++) {
			drift = 0.6 * drift + 0.8 * 0.02 * test_normal(&seed);
			points[i] = (struct changepoint_input){
				.median = 100 * exp(drift),
			};
		}
		changepoint_detect(&list, points, 1000, NULL);
		cr_assert_eq(list.nr, 0,
			     "seed %d: %zu change points, the first at %zu",
			     (int)seed, list.nr,
			     list.nr ? list.items[0].index : 0);
		changepoint_list_release(&list);
	}
}

/* A caller that keeps summaries instead of samples (the history index)
 * passes each point's changepoint_median_variance(): the change points,
 * p-values and intervals are those the samples give. */
Test(changepoint, a_known_variance_stands_for_the_samples)
{
	struct history h;
	struct changepoint_input *summaries;
	struct changepoint_list with_samples = { 0 }, with_variance = { 0 };

	history_make(&h, 120, 11, 60, 0.05, SIZE_MAX, 0);
	summaries = calloc(h.n, sizeof(*summaries));
	cr_assert(summaries);
	for (size_t i = 0; i < h.n; i++)
		summaries[i] = (struct changepoint_input){
			.median = h.points[i].median,
			.n = RUNS,
			.variance_known = true,
			.variance = changepoint_median_variance(
				h.points[i].samples, RUNS),
		};
	changepoint_detect(&with_samples, h.points, h.n, NULL);
	changepoint_detect(&with_variance, summaries, h.n, NULL);
	cr_assert_eq(with_samples.nr, 1);
	cr_assert_eq(with_variance.nr, with_samples.nr);
	assert_same_change_point(&with_variance.items[0],
				 &with_samples.items[0]);
	changepoint_list_release(&with_samples);
	changepoint_list_release(&with_variance);
	free(summaries);
	history_free(&h);
}

/* A timer with a coarse resolution repeats its value for nights on end: a
 * window of ties is not a quiet series (each value is held for 12 nights,
 * drawn afresh around 100 with sd 2). */
Test(changepoint, held_values_are_not_a_quiet_series)
{
	struct changepoint_input points[600] = { { 0 } };
	struct changepoint_list list = { 0 };
	uint64_t seed = 5;
	double held = 100;

	for (size_t i = 0; i < 600; i++) {
		if (i % 12 == 0)
			held = round(100 + 2 * test_normal(&seed));
		points[i].median = held;
		points[i].samples = NULL;
		points[i].n = 0;
	}
	changepoint_detect(&list, points, 600, NULL);
	cr_assert_eq(list.nr, 0, "%zu change points, the first at %zu", list.nr,
		     list.nr ? list.items[0].index : 0);
	changepoint_list_release(&list);
}

/* Values rounded to the resolution of their source tie and wobble by one
 * unit: a window of them can look far quieter than the series is. TCPD's
 * children_per_woman (Gapminder, CC BY 4.0; tests/fixtures/tcpd/), two
 * decimals: its annotators saw no change in the first 100 years (their
 * first is at index 145); the rounding must not cut them into steps. */
Test(changepoint, rounded_values_are_not_a_quiet_series)
{
	struct changepoint_input points[301] = { { 0 } };
	struct changepoint_list list = { 0 };
	FILE *f = fopen(TEST_FIXTURE_DIR "/tcpd/children_per_woman.csv", "r");

	cr_assert(f);
	for (size_t i = 0; i < 301; i++) {
		cr_assert_eq(fscanf(f, "%lf", &points[i].median), 1);
		points[i].samples = NULL;
		points[i].n = 0;
	}
	fclose(f);
	changepoint_detect(&list, points, 301, NULL);
	/* Its first 100 values do fall, slowly: 5.67 at index 70, 5.40 at
	 * 110, a creep of -5 %, which a benchmark's history would want
	 * named (creep_of_one_percent_a_commit_is_found). Once, not as a
	 * staircase of rounding steps. */
	for (size_t i = 0, before = 0; i < list.nr; i++) {
		if (list.items[i].index >= 100)
			continue;
		before++;
		cr_assert_leq(before, 1, "a second change point at %zu",
			      list.items[i].index);
		cr_assert_lt(list.items[i].change, 0, "a rise at %zu",
			     list.items[i].index);
	}
	changepoint_list_release(&list);
}

/* A step with no noise at all between commits (every commit's runs are the
 * same five values): the residuals at the true split are rounding errors,
 * which must not pass for dependence. The step is at 14, behind two
 * unmeasured commits (as the history tests of `benchgate history` plant
 * it). */
Test(changepoint, noiseless_step_is_found_where_it_is)
{
	struct changepoint_input points[26] = { { 0 } };
	double runs[26][5];
	struct changepoint_list list = { 0 };

	for (size_t i = 0; i < 26; i++) {
		double level = i < 14 ? 10 : 12;

		for (size_t k = 0; k < 5; k++)
			runs[i][k] = level + (double)k * 0.01;
		points[i].median = i == 12 || i == 13 ? NAN : level + 0.02;
		points[i].samples = runs[i];
		points[i].n = 5;
	}
	changepoint_detect(&list, points, 26, NULL);
	cr_assert_eq(list.nr, 1, "%zu change points", list.nr);
	cr_assert_eq(list.items[0].index, 14, "at %zu", list.items[0].index);
	cr_assert(fabs(list.items[0].change - 2.0 / 10.02) < 1e-12);
	changepoint_list_release(&list);
}

/*
 * Clean series as issue 27 measured them: every point 8 runs of
 * level(i) * exp(0.01 Z), no commit-to-commit noise beyond that.
 */
#define CLEAN_RUNS 8

struct clean {
	size_t n;
	double runs[200 * CLEAN_RUNS];
	struct changepoint_input points[200];
};

static void clean_make(struct clean *c, const double *levels, size_t n,
		       uint64_t seed)
{
	cr_assert_leq(n, 200);
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		double *run = c->runs + i * CLEAN_RUNS, sorted[CLEAN_RUNS];

		for (size_t j = 0; j < CLEAN_RUNS; j++)
			run[j] = 10 * levels[i] * exp(0.01 * test_normal(&seed));
		memcpy(sorted, run, sizeof(sorted));
		for (size_t a = 1; a < CLEAN_RUNS; a++)
			for (size_t b = a; b > 0 && sorted[b - 1] > sorted[b];
			     b--) {
				double t = sorted[b];

				sorted[b] = sorted[b - 1];
				sorted[b - 1] = t;
			}
		c->points[i] = (struct changepoint_input){
			.median = (sorted[CLEAN_RUNS / 2 - 1] +
				   sorted[CLEAN_RUNS / 2]) /
				  2,
			.samples = run,
			.n = CLEAN_RUNS,
		};
	}
}

/* The change points of c at default options are exactly `at` (nr of
 * them), each going the way `up` says. */
static void assert_found(const struct clean *c, const size_t *at,
			 const bool *up, size_t nr, const char *what)
{
	struct changepoint_list list = { 0 };

	changepoint_detect(&list, c->points, c->n, NULL);
	cr_assert_eq(list.nr, nr, "%s: %zu change points, not %zu (first %zu)",
		     what, list.nr, nr, list.nr ? list.items[0].index : 0);
	for (size_t i = 0; i < nr; i++) {
		cr_assert_eq(list.items[i].index, at[i], "%s: #%zu at %zu, not %zu",
			     what, i, list.items[i].index, at[i]);
		cr_assert_eq(list.items[i].change > 0, up[i], "%s: #%zu", what,
			     i);
	}
	changepoint_list_release(&list);
}

Test(changepoint, every_step_of_a_staircase_is_found)
{
	for (size_t last = 4; last <= 16; last++) {
		struct clean c;
		double levels[38];
		size_t at[] = { 10, 22 };
		bool up[] = { true, true };
		char what[64];

		for (size_t i = 0; i < 22 + last; i++)
			levels[i] = i < 10 ? 1.0 : i < 22 ? 1.3 : 1.6;
		clean_make(&c, levels, 22 + last, 100 + last);
		snprintf(what, sizeof(what), "1.0x10 1.3x12 1.6x%zu", last);
		assert_found(&c, at, up, 2, what);
	}
}

Test(changepoint, doubling_twice_is_two_steps)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct clean c;
		double levels[36];
		size_t at[] = { 12, 24 };
		bool up[] = { true, true };

		for (size_t i = 0; i < 36; i++)
			levels[i] = i < 12 ? 1.0 : i < 24 ? 2.0 : 4.0;
		clean_make(&c, levels, 36, seed);
		assert_found(&c, at, up, 2, "1.0 2.0 4.0");
	}
}

Test(changepoint, a_regression_that_was_fixed_is_two_change_points)
{
	for (size_t lasted = 4; lasted <= 11; lasted++) {
		struct clean c;
		double levels[60];
		size_t at[] = { 20, 20 + lasted };
		bool up[] = { true, false };
		char what[64];

		for (size_t i = 0; i < 60; i++)
			levels[i] = i >= 20 && i < 20 + lasted ? 1.3 : 1.0;
		clean_make(&c, levels, 60, 7 * lasted);
		snprintf(what, sizeof(what), "+30 %% for %zu commits", lasted);
		assert_found(&c, at, up, 2, what);
	}
}

Test(changepoint, creep_of_one_percent_a_commit_is_found)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct clean c;
		double levels[80], level = 1;
		struct changepoint_list list = { 0 };

		for (size_t i = 0; i < 80; i++) {
			if (i >= 30 && i < 45)
				level *= 1.01;
			levels[i] = level;
		}
		clean_make(&c, levels, 80, seed);
		changepoint_detect(&list, c.points, c.n, NULL);
		cr_assert_geq(list.nr, 1, "seed %d", (int)seed);
		for (size_t i = 0; i < list.nr; i++) {
			cr_assert_geq(list.items[i].index, 30 - 5, "seed %d: at %zu",
				      (int)seed, list.items[i].index);
			cr_assert_leq(list.items[i].index, 45 + 5, "seed %d: at %zu",
				      (int)seed, list.items[i].index);
			cr_assert_gt(list.items[i].change, 0, "seed %d: at %zu",
				     (int)seed, list.items[i].index);
		}
		changepoint_list_release(&list);
	}
}

/* Three nights on a busy machine, 40 % slower, their runs noisier: the
 * load recorded with each result says not to trust them. */
Test(changepoint, busy_nights_are_not_a_change)
{
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct clean c;
		double levels[80];
		struct changepoint_list list = { 0 };

		for (size_t i = 0; i < 80; i++)
			levels[i] = i >= 40 && i < 43 ? 1.4 : 1.0;
		clean_make(&c, levels, 80, seed);
		for (size_t i = 40; i < 43; i++)
			c.points[i].busy = 1.5;
		changepoint_detect(&list, c.points, c.n, NULL);
		cr_assert_eq(list.nr, 0, "seed %d: %zu change points, at %zu",
			     (int)seed, list.nr,
			     list.nr ? list.items[0].index : 0);
		changepoint_list_release(&list);
	}
}
