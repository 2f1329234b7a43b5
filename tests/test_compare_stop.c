/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The adaptive stop (compare_case_decided(), which `check` asks after
 * each run) agrees with the verdict compare_results() then gives the same
 * samples: a case stops measuring exactly when its comparison is decided.
 * A stop that judged by another threshold than the verdict's would stop on
 * a change the verdict then calls inconclusive, or measure on past one it
 * calls decided.
 */
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

TestSuite(compare_stop);

#define RUNS 20

/* A fixed sequence of standard normal draws (Box-Muller on a 64-bit
 * LCG): the same samples at every run of the test. */
static double normal(uint64_t *state)
{
	double u1, u2;

	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	u1 = ((double)(*state >> 11) + 1) / 9007199254740993.0;
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	u2 = (double)(*state >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* A result of one case, RUNS independent runs of level with a 2 % CV. */
static struct result *session(const char *commit, double level, uint64_t seed)
{
	double values[RUNS];

	for (int i = 0; i < RUNS; i++)
		values[i] = level * (1 + 0.02 * normal(&seed));
	return test_latency_result(commit, values, RUNS);
}

/* The noise between sessions that the history shows: the payload. */
static double history_noise(const char *benchmark, const char *variant,
			    const char *device, const char *metric,
			    void *payload)
{
	(void)benchmark, (void)variant, (void)device, (void)metric;
	return *(const double *)payload;
}

Test(compare_stop, the_stop_agrees_with_the_verdict_whatever_the_history)
{
	static const double noises[] = { 0, 0.01, 0.02, 0.03 };
	static const double scales[] = { 1.00, 1.02, 1.04, 1.06, 1.08,
					 1.10, 1.12, 1.15, 1.20 };
	size_t decided = 0, undecided = 0;

	for (size_t n = 0; n < sizeof(noises) / sizeof(*noises); n++) {
		for (size_t s = 0; s < sizeof(scales) / sizeof(*scales); s++) {
			struct result *base = session("a", 10, 11 + s);
			struct result *cand =
				session("b", 10 * scales[s], 101 + s);
			struct compare_options opts;
			struct comparison *c = NULL;
			double noise = noises[n];
			bool stops;

			compare_options_init(&opts);
			opts.noise = history_noise;
			opts.noise_payload = &noise;
			cr_assert_eq(compare_results(&c, base, cand, &opts),
				     BG_OK, "%s", bg_error_last());
			cr_assert_eq(c->nr, 1);
			stops = compare_case_decided(
				&base->cases[0], &cand->cases[0],
				compare_threshold(&opts, &cand->cases[0]),
				compare_confidence(&opts, &cand->cases[0]),
				false, &opts);
			cr_assert_eq(stops, compare_is_decided(&c->items[0]),
				     "noise %.2f, %+.0f %%: the stop says %s, "
				     "the verdict is %s at threshold %.3f "
				     "(%+.1f %% [%+.1f %%, %+.1f %%])",
				     noise, 100 * (scales[s] - 1),
				     stops ? "decided" : "measure on",
				     verdict_name(c->items[0].verdict),
				     c->items[0].threshold,
				     100 * c->items[0].change,
				     100 * c->items[0].change_low,
				     100 * c->items[0].change_high);
			if (stops)
				decided++;
			else
				undecided++;
			comparison_free(c);
			result_free(base);
			result_free(cand);
		}
	}
	/* the sweep holds both kinds, or it would prove little */
	cr_assert_gt(decided, 5);
	cr_assert_gt(undecided, 2);
}
