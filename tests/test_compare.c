/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/compare.h"
#include "harness/util/error.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

TestSuite(compare);

/* Deterministic "noise": a fixed pattern of relative deviations with a
 * robust CV of about 1 %, so each test knows exactly what it feeds in. */
static const double jitter[10] = { -0.012, 0.004, 0.009,  -0.003, 0.001,
				   -0.007, 0.013, -0.001, 0.006,  -0.010 };

static void fill(struct metric_samples *m, double level, double spread)
{
	for (int i = 0; i < 10; i++)
		metric_samples_push(m, level * (1 + spread * jitter[i]));
	m->runs = 10;
}

static struct result_case *add(struct result *r, const char *variant,
			       const char *metric, double level, double spread,
			       enum better better)
{
	struct result_case *c = result_find_case(r, "bench", variant, "cpu");
	struct metric_samples *m;

	if (!c)
		c = result_add_case(r, "bench", variant, "cpu");
	m = result_case_metric(c, metric);
	m->unit = strdup("ms");
	m->better = better;
	fill(m, level, spread);
	return c;
}

static struct result *new_result(const char *commit)
{
	struct result *r = result_new();

	r->suite = strdup("s");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	return r;
}

static const struct metric_comparison *
item(const struct comparison *c, const char *variant, const char *metric)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->items[i].variant, variant) &&
		    !strcmp(c->items[i].metric, metric))
			return &c->items[i];
	cr_assert_fail("no item %s/%s", variant, metric);
	return NULL;
}

static struct comparison *run_compare(struct result *base, struct result *cand)
{
	struct compare_options opts;
	struct comparison *c = NULL;

	compare_options_init(&opts);
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	return c;
}

Test(compare, ten_percent_slower_with_low_noise_is_a_regression)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct comparison *c;

	add(base, "original", "latency", 10.0, 1, BETTER_LOWER);
	/* Shuffled pattern on the candidate so the samples are not a copy. */
	add(cand, "original", "latency", 11.0, -1, BETTER_LOWER);
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "original", "latency")->verdict,
		     VERDICT_REGRESSION);
	cr_assert_float_eq(item(c, "original", "latency")->change, 0.10, 0.01);
	cr_assert_lt(item(c, "original", "latency")->change_low, 0.10);
	cr_assert_gt(item(c, "original", "latency")->change_high, 0.10);
	cr_assert_eq(c->overall, OVERALL_REGRESSION);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, higher_is_better_turns_the_same_shift_into_an_improvement)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct comparison *c;

	add(base, "original", "throughput", 100, 1, BETTER_HIGHER);
	add(cand, "original", "throughput", 110, -1, BETTER_HIGHER);
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "original", "throughput")->verdict,
		     VERDICT_IMPROVEMENT);
	cr_assert_eq(c->overall, OVERALL_PASS);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, significant_change_below_the_threshold_is_unchanged)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct comparison *c;

	/* 1.5 % slower with 0.1 % noise: certainly real, too small to care. */
	add(base, "original", "latency", 10.0, 0.1, BETTER_LOWER);
	add(cand, "original", "latency", 10.15, -0.1, BETTER_LOWER);
	c = run_compare(base, cand);
	cr_assert_lt(item(c, "original", "latency")->p_value, 0.001);
	cr_assert_eq(item(c, "original", "latency")->verdict,
		     VERDICT_UNCHANGED);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, large_change_drowned_in_noise_is_inconclusive)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct comparison *c;

	/* 5 % slower with noise of ~15 %: the estimate passes 3 % but ten
	 * runs cannot tell. */
	add(base, "original", "latency", 10.0, 15, BETTER_LOWER);
	add(cand, "original", "latency", 10.5, -15, BETTER_LOWER);
	c = run_compare(base, cand);
	cr_assert_gt(fabs(item(c, "original", "latency")->change), 0.03);
	cr_assert_eq(item(c, "original", "latency")->verdict,
		     VERDICT_INCONCLUSIVE);
	cr_assert_eq(c->overall, OVERALL_PASS, "inconclusive never fails");
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, exact_metric_uses_its_absolute_tolerance)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct metric_samples *m;
	struct comparison *c;

	m = result_case_metric(
		result_add_case(base, "bench", "original", "cpu"), "accuracy");
	m->exact = true, m->tolerance = 0.002, m->better = BETTER_HIGHER;
	metric_samples_push(m, 0.940);
	m = result_case_metric(
		result_add_case(cand, "bench", "original", "cpu"), "accuracy");
	m->exact = true, m->tolerance = 0.002, m->better = BETTER_HIGHER;
	metric_samples_push(m, 0.9385);
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "original", "accuracy")->verdict,
		     VERDICT_UNCHANGED);
	comparison_free(c);

	cand->cases[0].metrics[0].samples[0] = 0.930;
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "original", "accuracy")->verdict,
		     VERDICT_REGRESSION, "a 1-point accuracy drop fails");
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, new_missing_and_failed_cases_get_their_verdicts)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct result_case *broken;
	struct comparison *c;

	add(base, "original", "latency", 10, 1, BETTER_LOWER);
	add(base, "pruned", "latency", 10, 1, BETTER_LOWER);
	add(base, "distilled", "latency", 10, 1, BETTER_LOWER);
	add(cand, "original", "latency", 10, -1, BETTER_LOWER);
	add(cand, "quantized", "latency", 5, 1, BETTER_LOWER);
	broken = result_add_case(cand, "bench", "distilled", "cpu");
	result_case_fail(broken, CASE_FAILED, "killed by signal 11");
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "quantized", "latency")->verdict, VERDICT_NEW);
	cr_assert_eq(item(c, "pruned", "latency")->verdict, VERDICT_MISSING);
	cr_assert_eq(item(c, "distilled", "latency")->verdict, VERDICT_FAILED);
	cr_assert_str_eq(item(c, "distilled", "latency")->note,
			 "killed by signal 11");
	cr_assert_eq(c->overall, OVERALL_FAILED);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, a_failed_baseline_case_fails_only_when_measured_now)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct compare_options opts;
	struct comparison *c = NULL;

	result_case_fail(result_add_case(base, "bench", "original", "cpu"),
			 CASE_TIMEOUT, "timed out after 60 s");
	add(cand, "original", "latency", 10, 1, BETTER_LOWER);
	/* A stored baseline that failed long ago: nothing to compare with. */
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "original", "latency")->verdict, VERDICT_NEW);
	cr_assert_eq(c->overall, OVERALL_PASS);
	comparison_free(c);
	/* Measured in this session: this run is broken. */
	compare_options_init(&opts);
	opts.baseline_measured = true;
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	cr_assert_eq(item(c, "original", "latency")->verdict, VERDICT_FAILED);
	cr_assert(strstr(item(c, "original", "latency")->note,
			 "timed out after 60 s"));
	cr_assert_eq(c->overall, OVERALL_FAILED);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, no_baseline_makes_every_metric_new_and_passes)
{
	struct result *cand = new_result("b");
	struct comparison *c;

	add(cand, "original", "latency", 10, 1, BETTER_LOWER);
	c = run_compare(NULL, cand);
	cr_assert_eq(item(c, "original", "latency")->verdict, VERDICT_NEW);
	cr_assert_eq(c->overall, OVERALL_PASS);
	cr_assert_str_eq(c->baseline.commit, "none");
	comparison_free(c);
	result_free(cand);
}

static double noisy(const char *benchmark, const char *variant,
		    const char *device, const char *metric, void *payload)
{
	(void)benchmark, (void)variant, (void)device, (void)metric;
	(void)payload;
	return 0.04;
}

Test(compare, historical_noise_raises_the_threshold)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct compare_options opts;
	struct comparison *c = NULL;

	add(base, "original", "latency", 10.0, 1, BETTER_LOWER);
	add(cand, "original", "latency", 10.8, -1, BETTER_LOWER);
	compare_options_init(&opts);
	opts.noise = noisy;
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	/* 8 % slower, but this metric's medians wander by 4 % between
	 * commits: two results differ by up to z(0.995) sqrt(2) 4 % = 14.6 %
	 * with nothing changed (z from any normal table: 2.5758293). */
	cr_assert_float_eq(item(c, "original", "latency")->threshold,
			   2.5758293035489 * sqrt(2) * 0.04, 1e-9);
	cr_assert_eq(item(c, "original", "latency")->verdict,
		     VERDICT_UNCHANGED);
	comparison_free(c);
	/* A k of the user's own replaces the default. */
	opts.noise_k = 3;
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	cr_assert_float_eq(item(c, "original", "latency")->threshold, 0.12,
			   1e-9);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

Test(compare, autocorrelated_runs_count_as_fewer_samples)
{
	struct metric_comparison mc = { 0 };
	double drift[30], flat[30];

	/* A slow drift on both sides: neighbours alike, lag-1
	 * autocorrelation high. The candidate is 2 % higher throughout. */
	for (int i = 0; i < 30; i++) {
		drift[i] = 10 + 0.05 * i + 0.02 * jitter[i % 10] * 10;
		flat[i] = drift[i] * 1.02;
	}
	compare_metric_stats(&mc, drift, 30, 30, flat, 30, 30, 0.99, 1);
	cr_assert_lt(mc.n_eff_baseline, 10, "n_eff %g", mc.n_eff_baseline);
	cr_assert_lt(mc.n_eff_candidate, 10, "n_eff %g", mc.n_eff_candidate);
	/* A plain rank test would call 30 vs 30 shifted values certain. */
	cr_assert_gt(mc.p_value, 0.01, "p %g", mc.p_value);
}

/*
 * The shape of the project's own CI failure (google benchmark, 10
 * repetitions a side, SPIN_SLOWDOWN=3 under ASan with ctest -j2): each
 * side's cpu_time drifts over its repetitions as the neighbouring test
 * comes and goes, and a burst doubles two adjacent baseline repetitions.
 * The gate counted both sides as 2 effective values, tested at about one
 * degree of freedom each and called a 4x slowdown "inconclusive"
 * (+315.5 % [-90.2 %, +17517.3 %]). The drift is real and must cost
 * certainty, smoothly: a change four times the runs' whole spread is a
 * regression.
 */
Test(compare, a_fourfold_slowdown_of_drifting_runs_with_a_burst_is_a_regression)
{
	struct metric_comparison mc = { .better = BETTER_LOWER,
					.threshold = 0.03 };
	/* cpu_time, ns */
	const double base[10] = { 33900, 32400, 30100, 28700, 26900,
				  25800, 64900, 61200, 26400, 27900 };
	const double cand[10] = { 143100, 137900, 131100, 124600, 120100,
				  116300, 114800, 117900, 122200, 128500 };

	compare_metric_stats(&mc, base, 10, 10, cand, 10, 10, 0.99, 1);
	compare_decide(&mc);
	cr_assert_eq(mc.verdict, VERDICT_REGRESSION,
		     "%s: %+.1f %% [%+.1f %%, %+.1f %%], n_eff %.1f / %.1f, "
		     "df %.1f",
		     verdict_name(mc.verdict), 100 * mc.change,
		     100 * mc.change_low, 100 * mc.change_high,
		     mc.n_eff_baseline, mc.n_eff_candidate, mc.test.df);
	/* the drift still counts: fewer effective values than runs */
	cr_assert_lt(mc.n_eff_candidate, 10, "n_eff %g", mc.n_eff_candidate);
	/* one interval, the estimate inside it, bounded on both sides */
	cr_assert(mc.change_low <= mc.change && mc.change <= mc.change_high,
		  "%g outside [%g, %g]", mc.change, mc.change_low,
		  mc.change_high);
	cr_assert_gt(mc.change_low, 0.5, "low %g", mc.change_low);
	cr_assert_lt(mc.change_high, 10, "high %g", mc.change_high);
}

/* A burst over two adjacent runs of otherwise independent runs is not
 * drift: the rank autocorrelation gives it the weight of two ranks, where
 * the values' lag-1 sum, dominated by the burst's own product, read
 * about 0.5 and cut the runs to a third. */
Test(compare, a_burst_over_two_adjacent_runs_is_not_drift)
{
	struct metric_comparison mc = { 0 };
	double base[10], cand[10];

	for (int i = 0; i < 10; i++) {
		base[i] = 10 * (1 + jitter[(i * 3) % 10]);
		cand[i] = 10.5 * (1 + jitter[(i * 7 + 1) % 10]);
	}
	base[4] *= 2.5;
	base[5] *= 2.4;
	compare_metric_stats(&mc, base, 10, 10, cand, 10, 10, 0.99, 1);
	cr_assert_eq(mc.n_eff_baseline, 10, "n_eff %g", mc.n_eff_baseline);
	cr_assert_eq(mc.n_eff_candidate, 10, "n_eff %g", mc.n_eff_candidate);
}

/* The interval is the test's own: the change is significant at the
 * confidence exactly when its interval leaves out 0, also for drifting
 * runs at two or three effective values, where an interval from ranks
 * would be unbounded next to a significant p-value. */
static void assert_interval_agrees_with_test(const double *base,
					     const double *cand, size_t n)
{
	struct metric_comparison mc = { 0 };

	compare_metric_stats(&mc, base, n, n, cand, n, n, 0.99, 1);
	cr_assert(isfinite(mc.change_low) && isfinite(mc.change_high));
	cr_assert_leq(mc.change_low, mc.change_high);
	cr_assert_eq(mc.p_value<0.01, mc.change_low> 0 || mc.change_high < 0,
		     "p %g, interval [%g, %g]", mc.p_value, mc.change_low,
		     mc.change_high);
	cr_assert(mc.change_low <= mc.change && mc.change <= mc.change_high,
		  "change %g outside [%g, %g]", mc.change, mc.change_low,
		  mc.change_high);
}

Test(compare, the_interval_agrees_with_the_test)
{
	double drift[10], slower[10], near[10], base[10], cand[10];

	for (int i = 0; i < 10; i++) {
		drift[i] = 10 + 0.05 * i + 0.2 * jitter[i];
		slower[i] = drift[i] * 1.2;
		near[i] = drift[i] * 1.01;
		base[i] = 10 * (1 + jitter[(i * 3) % 10]);
		cand[i] = 10.4 * (1 + jitter[(i * 7 + 1) % 10]);
	}
	assert_interval_agrees_with_test(drift, slower, 10);
	assert_interval_agrees_with_test(drift, near, 10);
	assert_interval_agrees_with_test(base, cand, 10);
	assert_interval_agrees_with_test(base, base, 10);
}

Test(compare, runs_measured_side_by_side_are_compared_pair_by_pair)
{
	struct metric_comparison apart = { 0 },
				 paired = { .paired_runs = true };
	double drift[10], slower[10];

	/* Both builds ride the same slow drift of the machine, the
	 * candidate 5 % slower in every round: apart, the drift hides the
	 * change; pair by pair it cancels. */
	for (int i = 0; i < 10; i++) {
		drift[i] = 10 * (1 + 0.03 * sin(i / 3.0) + 0.002 * jitter[i]);
		slower[i] = 1.05 * 10 *
			    (1 + 0.03 * sin(i / 3.0) +
			     0.002 * jitter[(i * 7 + 1) % 10]);
	}
	compare_metric_stats(&apart, drift, 10, 10, slower, 10, 10, 0.99, 1);
	compare_metric_stats(&paired, drift, 10, 10, slower, 10, 10, 0.99, 1);
	cr_assert_gt(apart.p_value, 0.01, "p %g", apart.p_value);
	/* 10 pairs all one way: the signed-rank test's smallest p */
	cr_assert_float_eq(paired.p_value, 2.0 / 1024, 1e-12);
	cr_assert_float_eq(paired.change, 0.05, 0.002);
	cr_assert(paired.change_low > 0.04 && paired.change_high < 0.06,
		  "[%g, %g]", paired.change_low, paired.change_high);
	cr_assert(paired.change_low <= paired.change &&
		  paired.change <= paired.change_high);
	cr_assert_not_null(paired.method);
	cr_assert(strstr(paired.method, "signed-rank"), "%s", paired.method);
	compare_metric_release(&paired);
}

Test(compare, a_burst_beside_one_run_of_a_pair_moves_one_rank)
{
	struct metric_comparison paired = { .paired_runs = true };
	double base[16], cand[16];

	/* The machine's load swings by +-30 % from round to round and
	 * a busy neighbour doubles one baseline run and two candidate
	 * runs; the pairs show +20 %. The load cancels in each pair, and
	 * a burst moves its pair's rank, not the estimate. */
	for (int i = 0; i < 16; i++) {
		double load = 1 + 0.3 * sin(i * 1.7);

		base[i] = 10 * load * (1 + 0.01 * jitter[i % 10]);
		cand[i] = 12 * load * (1 + 0.01 * jitter[(i * 7 + 1) % 10]);
	}
	base[3] *= 2;
	cand[5] *= 2;
	cand[9] *= 2;
	compare_metric_stats(&paired, base, 16, 16, cand, 16, 16, 0.99, 1);
	paired.threshold = 0.05;
	compare_decide(&paired);
	cr_assert_eq(paired.verdict, VERDICT_REGRESSION, "%s [%g, %g]",
		     verdict_name(paired.verdict), paired.change_low,
		     paired.change_high);
	cr_assert_float_eq(paired.change, 0.2, 0.01);
	compare_metric_release(&paired);
}

Test(compare, few_pairs_fall_back_to_the_t_test_of_the_ratios)
{
	struct metric_comparison paired = { .paired_runs = true };
	double base[5] = { 10, 11, 12, 11, 10 };
	double cand[5] = { 12, 13.2, 14.4, 13.2, 12 };

	/* 5 pairs cannot reach p 0.01 by ranks (2 / 32) */
	compare_metric_stats(&paired, base, 5, 5, cand, 5, 5, 0.99, 1);
	cr_assert_null(paired.test.pairs);
	cr_assert_float_eq(paired.change, 0.2, 1e-9);
	cr_assert(strstr(paired.method, "one-sample t"), "%s", paired.method);
}

Test(compare, independent_runs_keep_their_full_size)
{
	struct metric_comparison mc = { 0 };
	double base[30], cand[30];

	for (int i = 0; i < 30; i++) {
		base[i] = 10 * (1 + jitter[(i * 3) % 10]);
		cand[i] = 10.5 * (1 + jitter[(i * 7 + 1) % 10]);
	}
	compare_metric_stats(&mc, base, 30, 30, cand, 30, 30, 0.99, 1);
	cr_assert_eq(mc.n_eff_baseline, 30);
	cr_assert_eq(mc.n_eff_candidate, 30);
}

Test(compare, clean_runs_are_tested_on_their_means)
{
	struct metric_comparison mc = { 0 };
	double base[4] = { 10.0, 10.1, 9.9, 10.05 };
	double cand[4] = { 11.0, 11.1, 10.9, 11.05 };

	/* Four runs a side, 10 % apart, no outlier: the smallest two-sided
	 * p a rank test can reach at 4 + 4 is 2 / 70 = 0.029, so only the
	 * test on the means (Welch on the logarithms) can call this. */
	compare_metric_stats(&mc, base, 4, 4, cand, 4, 4, 0.99, 1);
	cr_assert_lt(mc.p_value, 0.001, "p %g", mc.p_value);
}

/* The two-sided p of the t-test on the logarithms at full sizes, trimming
 * `trim` off each end (0: Welch's test). */
static double log_t_p(const double *base, const double *cand, size_t n,
		      double trim)
{
	double lb[16], lc[16];
	struct stats_welch t;

	cr_assert_leq(n, 16);
	for (size_t i = 0; i < n; i++) {
		lb[i] = log(base[i]);
		lc[i] = log(cand[i]);
	}
	cr_assert_eq(stats_yuen_eff(lb, n, lc, n, NULL, NULL, trim,
				    &t),
		     BG_OK);
	return t.p_value;
}

Test(compare, outliers_switch_to_trimmed_means)
{
	struct metric_comparison mc = { 0 };
	double base[10], cand[10];

	/* A clear 10 % shift, and two baseline runs hit by something else
	 * on the machine (1.5x and 1.8x): the variance they drag into the
	 * means hides the shift, and being above every candidate run they
	 * keep a rank test at p = 0.023. Trimmed means do not see them. */
	for (int i = 0; i < 10; i++) {
		base[i] = 10 * (1 + jitter[(i * 3) % 10]);
		cand[i] = 11 * (1 + jitter[(i * 7 + 1) % 10]);
	}
	base[4] = 15;
	base[7] = 18;
	compare_metric_stats(&mc, base, 10, 10, cand, 10, 10, 0.99, 1);
	cr_assert_gt(log_t_p(base, cand, 10, 0), 0.01);
	cr_assert_eq(mc.p_value, log_t_p(base, cand, 10, 0.2));
	cr_assert_lt(mc.p_value, 0.01, "p %g", mc.p_value);
}

Test(compare, a_second_clock_state_keeps_the_means)
{
	struct metric_comparison mc = { 0 };
	double base[10], cand[10];

	/* Three runs of each side in a clock state 6 % slower: two modes
	 * with light tails, which the modified z-score would call outliers
	 * but Hogg's tailweight does not, so the efficient test decides. */
	for (int i = 0; i < 10; i++) {
		double state = i % 3 == 1 ? 1.06 : 1;

		base[i] = 10 * state * (1 + 0.3 * jitter[(i * 3) % 10]);
		cand[i] = 10.5 * state * (1 + 0.3 * jitter[(i * 7 + 1) % 10]);
	}
	compare_metric_stats(&mc, base, 10, 10, cand, 10, 10, 0.99, 1);
	cr_assert_eq(mc.p_value, log_t_p(base, cand, 10, 0));
	cr_assert_lt(mc.p_value, 0.01, "p %g", mc.p_value);
}

Test(compare, pooled_samples_are_worth_no_more_than_their_runs)
{
	struct metric_comparison mc = { 0 };
	double base[64], cand[64];

	for (int i = 0; i < 64; i++) {
		base[i] = 10 * (1 + jitter[i % 10]);
		cand[i] = 10.2 * (1 + jitter[(i + 3) % 10]);
	}
	compare_metric_stats(&mc, base, 64, 4, cand, 64, 4, 0.99, 1);
	cr_assert_leq(mc.n_eff_baseline, 4);
	cr_assert_leq(mc.n_eff_candidate, 4);
}

Test(compare, variants_are_compared_with_original_inside_one_result)
{
	struct result *cand = new_result("b");
	struct result_case *c;
	struct comparison *cmp;
	struct metric_samples *m;
	const char *variants[] = { "original", "quantized" };
	double sizes[] = { 400000, 100000 }, acc[] = { 0.95, 0.945 };

	for (int v = 0; v < 2; v++) {
		c = add(cand, variants[v], "latency", v ? 4.0 : 10.0, 1,
			BETTER_LOWER);
		m = result_case_metric(c, "model_size");
		m->exact = true;
		metric_samples_push(m, sizes[v]);
		m = result_case_metric(c, "accuracy");
		m->exact = true;
		m->better = BETTER_HIGHER;
		metric_samples_push(m, acc[v]);
	}
	cmp = run_compare(NULL, cand);
	cr_assert_eq(cmp->variants_nr, 1);
	cr_assert_str_eq(cmp->variants[0].variant, "quantized");
	cr_assert_float_eq(cmp->variants[0].speedup, 2.5, 0.01);
	cr_assert_leq(cmp->variants[0].speedup_low, 2.5);
	cr_assert_geq(cmp->variants[0].speedup_high, 2.5);
	cr_assert_float_eq(cmp->variants[0].size_ratio, 0.25, 1e-9);
	cr_assert_float_eq(cmp->variants[0].accuracy_delta, -0.005, 1e-9);
	comparison_free(cmp);
	result_free(cand);
}

Test(compare, json_round_trips)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	struct comparison *c, *back = NULL;

	add(base, "original", "latency", 10.0, 1, BETTER_LOWER);
	add(cand, "original", "latency", 11.0, -1, BETTER_LOWER);
	add(cand, "quantized", "latency", 4.0, 1, BETTER_LOWER);
	c = run_compare(base, cand);
	comparison_to_json(c, &first);
	cr_assert(strstr(first.buf, "\"benchgate_comparison\":\t1"));
	cr_assert_eq(comparison_parse(&back, first.buf, first.len, "c.json"),
		     BG_OK, "%s", bg_error_last());
	comparison_to_json(back, &second);
	cr_assert_str_eq(first.buf, second.buf);
	comparison_free(back);
	comparison_free(c);
	strbuf_release(&first);
	strbuf_release(&second);
	result_free(base);
	result_free(cand);
}

Test(compare, decided_when_the_interval_clears_the_threshold)
{
	/* a history bounds the noise between sessions (without one,
	 * test_compare_drift.c) */
	struct metric_comparison mc = { .threshold = 0.03,
					.has_baseline = true,
					.has_candidate = true,
					.n_tested_baseline = 10,
					.n_tested_candidate = 10,
					.noise = 0.005 };

	mc.change_low = -0.01, mc.change_high = 0.02;
	cr_assert(compare_is_decided(&mc), "wholly inside: unchanged for good");
	mc.change_low = 0.01, mc.change_high = 0.08;
	cr_assert_not(compare_is_decided(&mc), "straddles the threshold");
	mc.change_low = 0.05, mc.change_high = 0.08;
	mc.verdict = VERDICT_REGRESSION;
	cr_assert(compare_is_decided(&mc));
	mc.n_tested_candidate = 5;
	cr_assert_not(compare_is_decided(&mc),
		      "five runs cannot rule out drift: keep sampling");
}

Test(compare, gate_settings_are_the_command_lines_over_the_recorded_ones)
{
	struct result *r = new_result("a");
	struct result_case *a = result_add_case(r, "a", "original", "cpu");
	struct result_case *b = result_add_case(r, "b", "original", "cpu");
	struct compare_options opts;

	compare_options_init(&opts);
	cr_assert_eq(compare_threshold(&opts, a), COMPARE_THRESHOLD_DEFAULT,
		     "nothing recorded yet");
	cr_assert_eq(compare_confidence(&opts, a), COMPARE_CONFIDENCE_DEFAULT);
	cr_assert_eq(compare_threshold(&opts, NULL),
		     COMPARE_THRESHOLD_DEFAULT);

	a->threshold = 0.05, a->confidence = 0.95;
	b->threshold = 0, b->confidence = 0.9;
	cr_assert_eq(compare_threshold(&opts, a), 0.05);
	cr_assert_eq(compare_threshold(&opts, b), 0, "0 %% is a setting");
	cr_assert_eq(compare_confidence(&opts, b), 0.9);

	opts.threshold = 0.2;
	opts.confidence = 0.8;
	cr_assert_eq(compare_threshold(&opts, a), 0.2);
	cr_assert_eq(compare_confidence(&opts, b), 0.8);
	result_free(r);
}

/* Issue 21: a benchmark's "threshold": "50%" travels in the result, so a
 * comparison without the suite judges as check does; the candidate's
 * settings first, the baseline's for a candidate that records none, the
 * defaults (said so) for two that record none. */
Test(compare, the_recorded_threshold_decides_without_the_suite)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct result_case *bc, *cc;
	struct comparison *c;

	bc = add(base, "original", "latency", 1.0, 1, BETTER_LOWER);
	cc = add(cand, "original", "latency", 1.2, -1, BETTER_LOWER);

	c = run_compare(base, cand);
	cr_assert_eq(c->overall, OVERALL_REGRESSION, "+20 %% at 3 %%");
	cr_assert(c->settings_defaulted, "and it says it used the defaults");
	comparison_free(c);

	cc->threshold = 0.5, cc->confidence = 0.99;
	cand->confidence = 0.99;
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "original", "latency")->threshold, 0.5);
	cr_assert_eq(item(c, "original", "latency")->verdict,
		     VERDICT_UNCHANGED);
	cr_assert_eq(c->overall, OVERALL_PASS);
	cr_assert_not(c->settings_defaulted);
	comparison_free(c);

	cc->threshold = NAN, cc->confidence = NAN;
	bc->threshold = 0.5, bc->confidence = 0.99;
	base->confidence = 0.99;
	cand->confidence = NAN;
	c = run_compare(base, cand);
	cr_assert_eq(c->overall, OVERALL_PASS, "the baseline's settings");
	cr_assert_not(c->settings_defaulted);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

/* The settings survive the result document, and a result written before
 * they were recorded still loads, recording none. */
Test(compare, recorded_settings_round_trip_and_old_results_load)
{
	static const char old[] =
		"{\"benchgate_result\": 1, \"suite\": \"s\", \"git\": "
		"{\"commit\": \"unknown\"}, \"machine\": {\"id\": \"m1\"}, "
		"\"cases\": "
		"[{\"benchmark\": \"b\", \"variant\": \"v\", \"device\": "
		"\"cpu\", \"status\": \"ok\", \"metrics\": {}}]}";
	struct result *r = new_result("a"), *back = NULL;
	struct result_case *rc = result_add_case(r, "b", "v", "cpu");
	struct strbuf text = STRBUF_INIT;

	rc->threshold = 0.5, rc->confidence = 0.95;
	r->confidence = 0.999;
	result_to_json(r, &text);
	cr_assert_eq(result_parse(&back, text.buf, text.len, "r.json"), BG_OK,
		     "%s", bg_error_last());
	cr_assert_eq(back->cases[0].threshold, 0.5);
	cr_assert_eq(back->cases[0].confidence, 0.95);
	cr_assert_eq(back->confidence, 0.999);
	result_free(back);
	cr_assert_eq(result_parse(&back, old, strlen(old), "old.json"), BG_OK,
		     "%s", bg_error_last());
	cr_assert(isnan(back->cases[0].threshold));
	cr_assert(isnan(back->cases[0].confidence));
	cr_assert(isnan(back->confidence));
	result_free(back);
	strbuf_release(&text);
	result_free(r);
}

/* Issue 13: a metric with gate: false (GPU utilisation, a Python
 * benchmark's wall time) keeps its verdict, for the reports, but neither
 * the counts nor the overall verdict, nor a comparison read back, count
 * it. */
Test(compare, an_ungated_regression_is_shown_and_never_fails)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct strbuf text = STRBUF_INIT;
	struct comparison *c, *back = NULL;

	add(base, "original", "latency", 10.0, 1, BETTER_LOWER);
	add(cand, "original", "latency", 10.0, -1, BETTER_LOWER);
	add(base, "original", "wall", 10.0, 1, BETTER_LOWER);
	result_case_metric(add(cand, "original", "wall", 12.0, -1,
			       BETTER_LOWER),
			   "wall")
		->gate = false;
	c = run_compare(base, cand);
	cr_assert_eq(item(c, "original", "wall")->verdict, VERDICT_REGRESSION);
	cr_assert(item(c, "original", "wall")->ungated);
	cr_assert(!item(c, "original", "latency")->ungated);
	cr_assert_eq(c->counts[VERDICT_REGRESSION], 0);
	cr_assert_eq(c->counts[VERDICT_UNCHANGED], 1);
	cr_assert_eq(c->overall, OVERALL_PASS);
	comparison_to_json(c, &text);
	cr_assert_eq(comparison_parse(&back, text.buf, text.len, "c.json"),
		     BG_OK, "%s", bg_error_last());
	cr_assert(item(back, "original", "wall")->ungated);
	cr_assert(!item(back, "original", "latency")->ungated);
	cr_assert_eq(back->counts[VERDICT_REGRESSION], 0);
	comparison_free(back);
	comparison_free(c);
	strbuf_release(&text);
	result_free(base);
	result_free(cand);
}

/* A failed case fails the gate whatever its metrics' gate says. */
Test(compare, a_failed_case_of_ungated_metrics_still_fails)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct result_case *rc;
	struct comparison *c;

	add(base, "original", "wall", 10.0, 1, BETTER_LOWER)->metrics[0].gate =
		false;
	rc = add(cand, "original", "wall", 10.0, 1, BETTER_LOWER);
	rc->metrics[0].gate = false;
	result_case_fail(rc, CASE_FAILED, "exit 1");
	c = run_compare(base, cand);
	cr_assert_eq(c->counts[VERDICT_FAILED], 1);
	cr_assert_eq(c->overall, OVERALL_FAILED);
	comparison_free(c);
	result_free(base);
	result_free(cand);
}

/* The variant table compares with the result's reference variant, in the
 * columns its metrics' roles say: a suite that names them otherwise than
 * original, latency, model_size and accuracy still gets every column. */
Test(compare, variants_use_the_named_reference_and_the_roles)
{
	struct result *cand = new_result("b");
	struct result_case *c;
	struct comparison *cmp;
	struct metric_samples *m;
	const char *variants[] = { "fp32", "int8", "original" };
	double sizes[] = { 400000, 100000, 1 }, acc[] = { 0.95, 0.945, 0 };

	cand->reference = strdup("fp32");
	for (int v = 0; v < 3; v++) {
		/* a timing metric first that is not the speed column */
		add(cand, variants[v], "startup", 1.0, 1, BETTER_LOWER);
		c = add(cand, variants[v], "batch_time", v == 1 ? 4.0 : 10.0,
			1, BETTER_LOWER);
		result_case_metric(c, "batch_time")->role = strdup("speed");
		m = result_case_metric(c, "bytes_on_disk");
		m->role = strdup("size");
		metric_samples_push(m, sizes[v]);
		m = result_case_metric(c, "top1");
		m->role = strdup("accuracy");
		m->better = BETTER_HIGHER;
		metric_samples_push(m, acc[v]);
		/* a name the old rule took for the size column */
		metric_samples_push(result_case_metric(c, "size_hint"), 7);
	}
	cmp = run_compare(NULL, cand);
	cr_assert_eq(cmp->variants_nr, 2);
	cr_assert_str_eq(cmp->variants[0].against, "fp32");
	cr_assert_str_eq(cmp->variants[0].variant, "int8");
	cr_assert_str_eq(cmp->variants[0].speed_metric, "batch_time");
	cr_assert_float_eq(cmp->variants[0].speedup, 2.5, 0.01);
	cr_assert_float_eq(cmp->variants[0].size_ratio, 0.25, 1e-9);
	cr_assert_float_eq(cmp->variants[0].accuracy_delta, -0.005, 1e-9);
	cr_assert_str_eq(cmp->variants[1].variant, "original",
			 "a variant named original is one like any other");
	comparison_free(cmp);
	result_free(cand);
}

/* One value a side (result.h's independent == 1, an imported summary):
 * no test can be made, so the threshold alone decides, and says so. */
static struct comparison *compare_one_values(double base_value,
					     double cand_value)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct metric_samples *m;
	struct comparison *c;

	m = result_case_metric(result_add_case(base, "b", "original", "cpu"),
			       "time");
	metric_samples_push(m, base_value);
	m->runs = m->independent = 1;
	m = result_case_metric(result_add_case(cand, "b", "original", "cpu"),
			       "time");
	metric_samples_push(m, cand_value);
	m->runs = m->independent = 1;
	c = run_compare(base, cand);
	result_free(base);
	result_free(cand);
	return c;
}

Test(compare, one_value_a_side_is_judged_by_the_threshold_and_says_so)
{
	struct comparison *c = compare_one_values(10.0, 12.0);

	cr_assert(c->items[0].one_value);
	cr_assert_eq(c->items[0].verdict, VERDICT_REGRESSION);
	cr_assert(strstr(c->items[0].note, "judged from one value"), "%s",
		  c->items[0].note);
	cr_assert_eq(c->overall, OVERALL_REGRESSION);
	comparison_free(c);
	c = compare_one_values(10.0, 10.1);
	cr_assert_eq(c->items[0].verdict, VERDICT_UNCHANGED);
	comparison_free(c);
}

/* hyperfine's ten runs inside one benchgate run: ten independent values,
 * not one run's pooled samples (the issue: +20 % came out inconclusive). */
static enum verdict verdict_of_ten_in_one_run(size_t independent)
{
	struct result *base = new_result("a"), *cand = new_result("b");
	struct metric_samples *mb, *mc;
	struct comparison *c;
	enum verdict verdict;

	mb = result_case_metric(add(base, "original", "time", 10, 1,
				    BETTER_LOWER),
				"time");
	mc = result_case_metric(add(cand, "original", "time", 12, -1,
				    BETTER_LOWER),
				"time");
	mb->runs = mc->runs = 1;
	mb->independent = mc->independent = independent;
	c = run_compare(base, cand);
	verdict = item(c, "original", "time")->verdict;
	cr_assert_not(item(c, "original", "time")->one_value);
	comparison_free(c);
	result_free(base);
	result_free(cand);
	return verdict;
}

Test(compare, a_peers_independent_runs_count_each)
{
	cr_assert_eq(verdict_of_ten_in_one_run(10), VERDICT_REGRESSION);
	/* the same samples as one benchgate run's pool are one value */
	cr_assert_eq(verdict_of_ten_in_one_run(0), VERDICT_INCONCLUSIVE);
}

/* The values shown beside a change (centre_baseline, centre_candidate)
 * and the change itself come from one estimator: candidate / baseline - 1
 * is the change, for each method, and the change lies in its interval. */
static void assert_centres_agree(const double *base, const double *cand,
				 size_t n, bool paired, const char *method)
{
	struct metric_comparison mc = { .better = BETTER_LOWER,
					.threshold = 0.03,
					.paired_runs = paired };

	compare_metric_stats(&mc, base, n, n, cand, n, n, 0.99, 1);
	cr_assert_not_null(mc.method);
	cr_assert(strstr(mc.method, method), "%s, not %s", mc.method, method);
	cr_assert_float_eq(mc.centre_candidate / mc.centre_baseline - 1,
			   mc.change, 1e-9, "%g / %g - 1 against %g (%s)",
			   mc.centre_candidate, mc.centre_baseline, mc.change,
			   mc.method);
	cr_assert(mc.change_low <= mc.change && mc.change <= mc.change_high,
		  "%g outside [%g, %g] (%s)", mc.change, mc.change_low,
		  mc.change_high, mc.method);
	compare_metric_release(&mc);
}

Test(compare, the_values_shown_beside_a_change_agree_with_it)
{
	/* near-normal runs: geometric means */
	const double base[12] = { 100, 101, 99, 100.5, 99.5, 100.2,
				  99.8, 100.4, 99.6, 100.1, 99.9, 100.3 };
	const double cand[12] = { 110, 111, 109, 110.5, 109.5, 110.2,
				  109.8, 110.4, 109.6, 110.1, 109.9, 110.3 };
	/* a bimodal candidate (pytest-benchmark's rounds on a busy machine,
	 * tests/fixtures/pytest-benchmark): its median barely moves while
	 * its trimmed mean does; the sides shown must follow the estimator,
	 * not the medians (which read +2.7 % beside +24.5 %) */
	const double quiet[12] = { 124, 124, 124, 125, 125, 125,
				   125, 125, 126, 124, 125, 1540 };
	const double mixed[12] = { 124, 124, 125, 125, 125, 125,
				   158, 209, 218, 226, 234, 12333 };
	/* values not all positive: means, relative to the baseline's */
	const double diff_base[12] = { -2, 1, 0, 3, -1, 2, 1, 0, 2, 1, -1, 0 };
	const double diff_cand[12] = { 8, 11, 10, 13, 9, 12, 11, 10, 12, 11,
				       9, 10 };

	assert_centres_agree(base, cand, 12, false, "geometric means");
	assert_centres_agree(quiet, mixed, 12, false, "trimmed");
	assert_centres_agree(diff_base, diff_cand, 12, false, "difference");
	assert_centres_agree(base, cand, 12, true, "paired");
}
