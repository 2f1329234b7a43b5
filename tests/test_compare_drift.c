/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Drift without a history (compare.c): runs that drift within each of two
 * sessions, compared as a stored baseline with no history to bound the
 * noise between the sessions, are not named a regression from their own
 * spread, unless the change exceeds what each side taken as one value
 * could explain; with a history, or measured in one session, as before.
 */
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

TestSuite(compare_drift);

/* Two sessions of twelve runs of the same build, drawn from the
 * detection corpus's drift model (bench_detection: a stationary AR(1),
 * lag-1 autocorrelation 0.85, CV 5 %), recorded to the microsecond: the
 * machine wandered low in the first session and high in the second, so
 * their own spread reads +11.1 % [+1.3 %, +21.9 %], significant at 0.99. */
static const double session_a[12] = { 10.227, 9.928, 9.881, 9.84,
				      9.827,  9.857, 9.497, 9.545,
				      9.342,  9.916, 10.179, 10.215 };
static const double session_b[12] = { 10.892, 10.568, 10.846, 10.689,
				      10.655, 11.187, 11.31,  11.038,
				      11.257, 11.252, 10.945, 10.722 };

static struct result *session(const char *commit, const double *values,
			      double scale)
{
	double scaled[12];

	for (int i = 0; i < 12; i++)
		scaled[i] = values[i] * scale;
	return test_latency_result(commit, scaled, 12);
}

/* A history whose results' medians wander by half a percent: the
 * threshold stays 3 %, but the noise between sessions is bounded. */
static double steady_history(const char *benchmark, const char *variant,
			     const char *device, const char *metric,
			     void *payload)
{
	(void)benchmark, (void)variant, (void)device, (void)metric;
	(void)payload;
	return 0.005;
}

/* Compares session_a with session_b times scale under opts; the one item
 * into *mc (its note borrowed from the comparison, freed with it). */
static struct comparison *compare_sessions(double scale,
					   const struct compare_options *opts)
{
	struct result *base = session("a", session_a, 1);
	struct result *cand = session("b", session_b, scale);
	struct comparison *c = NULL;

	cr_assert_eq(compare_results(&c, base, cand, opts), BG_OK);
	cr_assert_eq(c->nr, 1);
	result_free(base);
	result_free(cand);
	return c;
}

Test(compare_drift, drifting_sessions_without_a_history_are_inconclusive)
{
	struct compare_options opts;
	struct comparison *c;
	const struct metric_comparison *mc;

	compare_options_init(&opts);
	c = compare_sessions(1, &opts);
	mc = &c->items[0];
	/* the runs' own test finds the change significant and large ... */
	cr_assert(mc->change_low > 0 && mc->change > mc->threshold,
		  "%+.1f %% [%+.1f %%, %+.1f %%]", 100 * mc->change,
		  100 * mc->change_low, 100 * mc->change_high);
	/* ... but without a history it cannot tell it from where the
	 * machine stood in each session */
	cr_assert_eq(mc->verdict, VERDICT_INCONCLUSIVE, "%s",
		     verdict_name(mc->verdict));
	cr_assert(mc->session_unbounded);
	cr_assert_eq(c->overall, OVERALL_PASS);
	cr_assert_not_null(mc->note);
	cr_assert(strstr(mc->note, "no history"), "%s", mc->note);
	cr_assert(strstr(mc->note, "--baseline-tree"), "%s", mc->note);
	comparison_free(c);
}

/* The sessions at scale under opts are a regression, with no note. */
static void assert_named(double scale, const struct compare_options *opts)
{
	struct comparison *c = compare_sessions(scale, opts);
	const struct metric_comparison *mc = &c->items[0];

	cr_assert_eq(mc->verdict, VERDICT_REGRESSION, "%s: %+.1f %%",
		     verdict_name(mc->verdict), 100 * mc->change);
	cr_assert_eq(c->overall, OVERALL_REGRESSION);
	cr_assert_not(mc->session_unbounded);
	cr_assert_null(mc->note);
	comparison_free(c);
}

Test(compare_drift, with_a_history_the_same_sessions_are_a_regression)
{
	struct compare_options opts;

	/* the threshold stays 3 %: only the history's presence differs */
	compare_options_init(&opts);
	opts.noise = steady_history;
	assert_named(1, &opts);
}

Test(compare_drift, measured_in_one_session_the_pairs_decide)
{
	struct compare_options opts;
	struct comparison *c;

	compare_options_init(&opts);
	opts.baseline_measured = true;
	assert_named(1, &opts);
	c = compare_sessions(1, &opts);
	cr_assert(strstr(c->items[0].method, "paired"), "%s",
		  c->items[0].method);
	comparison_free(c);
}

Test(compare_drift, a_change_beyond_each_side_as_one_value_is_still_named)
{
	struct compare_options opts;
	struct comparison *c;

	/* the same drifting runs, the candidate three times slower: no
	 * wandering of the machine the runs show explains that */
	compare_options_init(&opts);
	c = compare_sessions(3, &opts);
	cr_assert_gt(c->items[0].session_spread, 0,
		     "the runs were seen to drift");
	comparison_free(c);
	assert_named(3, &opts);
}

Test(compare_drift, independent_runs_are_judged_by_their_spread)
{
	struct metric_comparison mc = { .better = BETTER_LOWER,
					.threshold = 0.03 };
	double base[12], cand[12];

	/* no drift to see: the same +12 %, from runs whose order is
	 * shuffled, is a regression without a history */
	for (int i = 0; i < 12; i++) {
		base[i] = session_a[(i * 5) % 12];
		cand[i] = session_a[(i * 7 + 3) % 12] * 1.12;
	}
	compare_metric_stats(&mc, base, 12, 12, cand, 12, 12, 0.99, 1);
	compare_decide(&mc);
	cr_assert_eq(mc.session_spread, 0);
	cr_assert_eq(mc.verdict, VERDICT_REGRESSION, "%s",
		     verdict_name(mc.verdict));
}

Test(compare_drift, adaptive_sampling_waits_longer_without_a_history)
{
	struct metric_comparison mc = { .threshold = 0.03,
					.has_baseline = true,
					.has_candidate = true,
					.verdict = VERDICT_REGRESSION,
					.change_low = 0.05,
					.change_high = 0.08,
					.n_tested_baseline = 12,
					.n_tested_candidate = 12 };

	/* ten runs a side cannot tell drift from independence reliably:
	 * with nothing else to bound the sessions, wait for twenty */
	cr_assert_not(compare_is_decided(&mc));
	mc.n_tested_baseline = mc.n_tested_candidate =
		COMPARE_MIN_DECISIVE_RUNS_ALONE;
	cr_assert(compare_is_decided(&mc));
	mc.n_tested_baseline = mc.n_tested_candidate = 12;
	mc.noise = 0.005;
	cr_assert(compare_is_decided(&mc), "a history bounds the sessions");
	mc.noise = 0;
	mc.paired_runs = true;
	cr_assert(compare_is_decided(&mc), "so does one session");
}
