/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/compare.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/hash.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Sets mc's interval from its test at `confidence`: compare_results()
 * moves it to the adjusted level once every metric was tested. An interval
 * that includes no change and is infinite or spans more than a factor of
 * 10,000 (a test at one or two effective values) becomes [-inf, inf]:
 * too few runs to bound the change (compare_is_bounded()).
 */
static void set_interval(struct metric_comparison *mc, double confidence);

void compare_options_init(struct compare_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->threshold = -1;
	opts->confidence = -1;
	opts->noise_k = -1;
}

double compare_noise_k(double confidence)
{
	return stats_normal_quantile(0.5 + confidence / 2) * M_SQRT2;
}

/* How a change was estimated: the strings metric_comparison.method
 * points to (compare_method_named() finds them by text). */
#define METHOD_SIGNED_RANK                                                   \
	"paired: Hodges-Lehmann estimate of the run-pair ratios, Wilcoxon " \
	"signed-rank interval"
#define METHOD_PAIRED_T                                                      \
	"paired: mean of the run-pair log ratios, one-sample t interval"
#define METHOD_PAIRED_TRIMMED                                                \
	"paired: trimmed mean of the run-pair log ratios, Yuen's one-sample " \
	"t interval"
#define METHOD_WELCH                                                          \
	"independent: ratio of the geometric means, Welch's t interval on "  \
	"the logarithms"
#define METHOD_YUEN                                                           \
	"independent: ratio of the 20 % trimmed geometric means, Yuen's t "  \
	"interval on the logarithms"
#define METHOD_RAW                                                            \
	"independent: difference of the means, Welch's t interval"

static const char *const methods[] = {
	METHOD_SIGNED_RANK, METHOD_PAIRED_T, METHOD_PAIRED_TRIMMED,
	METHOD_WELCH,	    METHOD_YUEN,     METHOD_RAW,
};

const char *compare_method_named(const char *text)
{
	for (size_t i = 0; text && i < sizeof(methods) / sizeof(*methods);
	     i++)
		if (!strcmp(methods[i], text))
			return methods[i];
	return NULL;
}

/* Statistics of one metric */

static bool all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return false;
	return true;
}

/*
 * How the runs' dependence is judged, for each side of an independent
 * comparison and for the run-pair ratios of a paired one.
 *
 * The lag-1 autocorrelation is that of the runs' ranks, estimated once
 * from both sides (each ranked on its own, so that a shift between them is
 * not mistaken for dependence). Ranks, not the values: a burst over two
 * adjacent runs (a neighbour's job) is two large deviations in a row,
 * whose product dominates the values' lag-1 sum and read as strong drift,
 * while ranks bound each run's weight (the rank version of von Neumann's
 * ratio, Bartels 1982). A drift or trend moves the ranks as it moves the
 * values and still shows. Pooling halves the chance that noise alone makes
 * independent runs look dependent.
 *
 * Runs count as dependent only when the raw correlation is clearly above
 * its null mean, -1 / n for series of n values: by more than 1.645 of its
 * null standard error 1 / sqrt(pooled). The amount of dependence is then
 * the estimate corrected for its small-sample bias, E[r] = rho - (1 + 4
 * rho) / n, and it costs certainty in two separate, smooth ways
 * (stats_ar1_dependence()): the variance of each side's mean is inflated
 * as an AR(1)'s is, taken at the correlation's upper DEPENDENCE_MARGIN
 * standard errors (a few runs' correlation is biased low, and the
 * inflation is convex in it), and the degrees of freedom shrink by the
 * equivalent degrees of freedom of the variance at the estimate itself.
 * Before, the runs were cut to n (1 - r) / (1 + r) values, at least 2, and
 * both the variance and the degrees of freedom taken from that: a burst
 * over two runs of ten put both sides at 2 values and about one degree of
 * freedom each, where t's critical value at 0.99 passes 60, and a 4x
 * slowdown was "inconclusive".
 *
 * Drift *between* sessions (the stored baseline ran on a warmer machine)
 * is not what this is for: the practical threshold from the metric's
 * historical noise (compare_noise_k()) is what keeps it from failing the
 * gate, and without a history, "Drift without a history" below.
 */
#define DEPENDENCE_MARGIN 1.0

/*
 * Drift without a history. Runs that drift within a session say that the
 * machine's state wanders; where it stood during the other side's session
 * is then as uncertain as the wandering itself, and no inflation of one
 * session's variance can bound that (at ten runs of an AR(1) with lag-1
 * autocorrelation 0.85, the inflation the test allows is a third of the
 * real one). A stored baseline compared without a history (noise 0) and
 * not measured in the candidate's session (paired_runs false), whose
 * runs clearly drift, is therefore judged once more with each side taken
 * as a single value, spread as widely as its runs are (one_value_variance())
 * at the normal quantile of the interval's level: a change the test finds
 * significant and large is named only when it also exceeds that, and is
 * inconclusive otherwise, with a note saying to measure both sides in one
 * session or keep a history (compare_decide(), decide_all()). A side whose
 * runs have no spread at all (scaled MAD 0) gives no bound and keeps the
 * test's verdict. Adaptive sampling, likewise, stops on a significant
 * change only from 2 x COMPARE_MIN_DECISIVE_RUNS_ALONE runs of both sides
 * together there: at 20 runs a side the rank correlation shows a drift
 * like the corpus's in 99 % of pairs, at ten in 77 %
 * (compare_is_decided()).
 *
 * "Clearly drift" is a stricter bar than the one the variance inflation
 * uses: the raw correlation above its null mean by 2.326 of its null
 * standard error (one-sided 1 %), so that one pair of independent runs in
 * a hundred, not one in twenty, loses its verdict to the rule. Both the
 * bar and the minimum were chosen on bench_detection's published seed
 * (docs/evaluation-gate.md, "Drift without a history").
 */
#define DRIFT_EVIDENCE 2.326

struct dependence {
	double r;      /* bias-corrected; 0: not clearly dependent */
	size_t pooled; /* runs the correlation was estimated from */
	/* the raw correlation's distance above its null mean, in null
	 * standard errors */
	double z;
};

/* b may be empty (nb 0). */
static struct dependence runs_dependence(const double *a, size_t na,
					 const double *b, size_t nb)
{
	const double *sides[2] = { a, b };
	size_t sizes[2] = { na, nb }, series = 0;
	double lagged = 0, squares = 0, r, n;
	struct dependence dep = { 0, na + nb, 0 };

	if (na < 3 || (nb && nb < 3))
		return dep;
	for (int s = 0; s < 2 && sizes[s]; s++) {
		double *ranks = xmalloc(sizes[s] * sizeof(*ranks));
		double mean = ((double)sizes[s] + 1) / 2;

		stats_ranks(sides[s], sizes[s], ranks);
		for (size_t i = 0; i < sizes[s]; i++) {
			double d = ranks[i] - mean;

			squares += d * d;
			if (i + 1 < sizes[s])
				lagged += d * (ranks[i + 1] - mean);
		}
		series++;
		free(ranks);
	}
	if (!(squares > 0))
		return dep;
	r = lagged / squares;
	n = (double)(na + nb) / (double)series;
	dep.z = (r + 1 / n) * sqrt((double)dep.pooled);
	if (dep.z > 1.645)
		dep.r = r + (1 + 4 * r) / n;
	return dep;
}

/*
 * A side of n runs at that dependence, of which the test may trust no more
 * than `cap` values (per_run()): the variance inflated to at least
 * n / cap and the degrees of freedom to no more than cap - 1 (1 at
 * least), the inflation from dependence to at most n / 2. Its effective
 * size, n / inflation, is what the reports show.
 */
static void side_dependence(size_t n, struct dependence dep, double cap,
			    struct stats_dependence *out, double *n_eff)
{
	struct stats_dependence at_estimate;

	stats_ar1_dependence(n,
			     dep.r > 0 ? dep.r + DEPENDENCE_MARGIN /
							 sqrt((double)dep.pooled)
				       : 0,
			     out);
	stats_ar1_dependence(n, dep.r, &at_estimate);
	out->df_share = at_estimate.df_share;
	/* at least 2 effective values: what more inflation would stand for
	 * is the level wandering over the session as a whole, drift between
	 * sessions in all but name (see above) */
	if (n >= 2)
		out->inflation = fmin(out->inflation, (double)n / 2);
	if (cap < (double)n) {
		out->inflation = fmax(out->inflation, (double)n / cap);
		out->df_share = fmin(out->df_share,
				     fmax(cap - 1, 1) / ((double)n - 1));
	}
	*n_eff = (double)n / out->inflation;
}

/*
 * The values the test sees. The run is the unit of replication: samples
 * pooled from several per run (per-batch latencies) share the run's machine
 * state, so they are reduced to one median per run, in run order. When the
 * samples do not split evenly into runs, they stay pooled but are trusted
 * as no more than `runs` values (*cap).
 */
static const double *per_run(const double *v, size_t n, size_t runs,
			     double **owned, size_t *out_n, double *cap)
{
	size_t per;

	*owned = NULL;
	*out_n = n;
	*cap = (double)n;
	if (!runs || runs >= n)
		return v;
	if (n % runs) {
		*cap = (double)runs;
		return v;
	}
	per = n / runs;
	*owned = xmalloc(runs * sizeof(**owned));
	for (size_t r = 0; r < runs; r++)
		(*owned)[r] = stats_median(v + r * per, per);
	*out_n = runs;
	*cap = (double)runs;
	return *owned;
}

/* An absent side: n = 0 and unknown numbers (null in JSON). Not through
 * stats_summarize(), which would record an error message for it. */
static void summary_empty(struct stats_summary *s)
{
	s->n = 0;
	s->median = s->mean = s->stddev = s->min = s->max = s->mad = NAN;
	s->robust_cv = s->p50 = s->p90 = s->p99 = NAN;
	s->ci_low = s->ci_high = NAN;
}

/*
 * Tails heavier than this (stats_tailweight(), Hogg's Q2) send the
 * comparison to trimmed means. It lies between the normal's 2.59 and the
 * Laplace's 3.30: near-normal runs, log-normal ones and a second clock
 * state (light tails, however far apart the modes) keep the efficient
 * mean, while a few runs hit by a slow outlier stretch the tails far
 * beyond it. Of 2.8, 3.2 and 3.6, the one bench_detection liked best.
 */
#define HEAVY_TAILWEIGHT 3.2
#define TRIM		 0.2

/*
 * Hogg's tailweight of both sides' logarithms, each centred on its own
 * median: a shape statistic that a shift between the sides does not
 * change, so choosing the test by it keeps each test's false-alarm rate.
 */
static double pooled_tailweight(const double *logs, size_t nb, size_t nc)
{
	double *centred = xmalloc((nb + nc) * sizeof(*centred));
	double mb = stats_median(logs, nb), mc = stats_median(logs + nb, nc);
	double q;

	for (size_t i = 0; i < nb + nc; i++)
		centred[i] = logs[i] - (i < nb ? mb : mc);
	q = stats_tailweight(centred, nb + nc);
	free(centred);
	return q;
}

/*
 * The variance of a side taken as one value, for "Drift without a
 * history": the spread of one run about the level the machine wanders
 * around, robustly (the scaled MAD, so that slow outliers, which the test
 * trims, do not pass for wandering), corrected for the runs' dependence
 * dep: E[s^2] = sigma^2 (n - f) / (n - 1), f from its inflation
 * (n - 1) f / (n - f) (stats.h).
 */
static double one_value_variance(const double *v, size_t n,
				 const struct stats_dependence *dep)
{
	double sd = stats_mad_scaled(v, n), f;

	f = dep->inflation * (double)n / ((double)n - 1 + dep->inflation);
	return (double)n > f ? sd * sd * ((double)n - 1) / ((double)n - f)
			     : sd * sd;
}

/*
 * The test of the change, on the logarithms (timings are multiplicative;
 * the values themselves when some are not positive) at the effective
 * sizes: Welch's t, the efficient test on near-normal runs, or Yuen's
 * 20 % trimmed t when the tails are heavy, where outliers would inflate
 * Welch's variance and a rank test stops at two outliers above every
 * candidate run. A t-test, not ranks, also for dependent runs: at two or
 * three effective values a rank test cannot reach any useful significance
 * level however far apart the samples are, while the t-test's answer
 * degrades smoothly. Sets the p-value and the change's interval, which
 * comes from the same test so that the two always agree: the interval
 * excludes no change exactly when p < 1 - confidence. `level` scales a
 * difference of raw values to a relative change.
 */
static void test_change(struct metric_comparison *mc, const double *base,
			size_t nb, const double *cand, size_t nc,
			const struct stats_dependence *dep, double confidence,
			bool positive, double level,
			const struct stats_dependence *drifting)
{
	double *values = xmalloc((nb + nc) * sizeof(*values));
	struct stats_welch test;
	double trim;

	for (size_t i = 0; i < nb + nc; i++) {
		double v = i < nb ? base[i] : cand[i - nb];

		values[i] = positive ? log(v) : v;
	}
	trim = pooled_tailweight(values, nb, nc) > HEAVY_TAILWEIGHT ? TRIM : 0;
	mc->test.log_scale = positive;
	mc->test.level = level;
	if (!stats_yuen_eff(values, nb, values + nb, nc, &dep[0], &dep[1],
			    trim, &test)) {
		mc->p_value = test.p_value;
		mc->test.difference = test.difference;
		mc->test.se = test.se;
		mc->test.df = test.df;
		/* the change is the test's own estimate, the centre of its
		 * interval, so that the two never disagree, and the sides
		 * shown beside it are the test's own centres */
		if (positive) {
			mc->change = exp(test.difference) - 1;
			mc->centre_baseline = exp(test.mean_a);
			mc->centre_candidate = exp(test.mean_b);
		} else {
			/* relative to the baseline's own mean, as shown */
			if (fabs(test.mean_a) > 0)
				mc->test.level = fabs(test.mean_a);
			mc->change = mc->test.level > 0
					     ? test.difference / mc->test.level
					     : 0;
			mc->centre_baseline = test.mean_a;
			mc->centre_candidate = test.mean_b;
		}
		mc->method = !positive ? METHOD_RAW
			     : trim	   ? METHOD_YUEN
					   : METHOD_WELCH;
		if (drifting)
			mc->session_spread = sqrt(
				one_value_variance(values, nb, &drifting[0]) +
				one_value_variance(values + nb, nc,
						   &drifting[1]));
	}
	set_interval(mc, confidence);
	mc->p_adjusted = mc->p_value;
	free(values);
}

/*
 * The paired test: each candidate run against the baseline run of its
 * round, as a log ratio, so that what the machine did to both runs of a
 * round cancels. Wilcoxon's signed-rank test with the Hodges-Lehmann
 * estimate and its exact interval where the pairs can reach the level;
 * with fewer pairs the one-sample (trimmed) t of the log ratios at the
 * effective size their own lag-1 autocorrelation allows. Either way the
 * change, the interval and the p-value come from the one test.
 */
static void test_pairs(struct metric_comparison *mc, const double *base,
		       const double *cand, size_t n, double confidence)
{
	double *ratios = xmalloc(n * sizeof(*ratios)), n_eff, trim;
	struct stats_dependence dep;
	struct stats_signed_rank rank;
	struct stats_welch test;

	for (size_t i = 0; i < n; i++)
		ratios[i] = log(cand[i] / base[i]);
	mc->test.log_scale = true;
	mc->change = exp(stats_median(ratios, n)) - 1;
	if (n <= STATS_SIGNED_RANK_MAX &&
	    stats_signed_rank_can_reject(n, confidence) &&
	    !stats_signed_rank(ratios, n, confidence, &rank)) {
		mc->n_eff_baseline = mc->n_eff_candidate = (double)n;
		mc->change = exp(rank.estimate) - 1;
		mc->p_value = rank.p_value;
		mc->test.difference = rank.estimate;
		mc->test.pairs = ratios;
		mc->test.pairs_nr = n;
		mc->method = METHOD_SIGNED_RANK;
		set_interval(mc, confidence);
		mc->p_adjusted = mc->p_value;
		return;
	}
	side_dependence(n, runs_dependence(ratios, n, NULL, 0), (double)n, &dep,
			&n_eff);
	mc->n_eff_baseline = mc->n_eff_candidate = n_eff;
	/* Hogg's Q2 does not move with the location: no centring needed. */
	trim = stats_tailweight(ratios, n) > HEAVY_TAILWEIGHT ? TRIM : 0;
	if (!stats_yuen_one_sample(ratios, n, &dep, trim, &test)) {
		mc->change = exp(test.difference) - 1;
		mc->p_value = test.p_value;
		mc->test.difference = test.difference;
		mc->test.se = test.se;
		mc->test.df = test.df;
		mc->method = trim ? METHOD_PAIRED_TRIMMED : METHOD_PAIRED_T;
	}
	set_interval(mc, confidence);
	mc->p_adjusted = mc->p_value;
	free(ratios);
}

void compare_metric_stats(struct metric_comparison *mc, const double *base,
			  size_t nbase, size_t runs_base, const double *cand,
			  size_t ncand, size_t runs_cand, double confidence,
			  uint64_t seed)
{
	double *base_owned = NULL, *cand_owned = NULL, cap_base, cap_cand;
	double level;
	struct dependence dependence;
	struct stats_dependence dep[2], drift[2];
	double n_eff;
	bool positive, drifts;
	size_t nb, nc;

	mc->has_baseline = nbase > 0;
	mc->has_candidate = ncand > 0;
	if (nbase)
		stats_summarize(base, nbase, confidence, seed, &mc->baseline);
	else
		summary_empty(&mc->baseline);
	if (ncand)
		stats_summarize(cand, ncand, confidence, seed + 1,
				&mc->candidate);
	else
		summary_empty(&mc->candidate);
	mc->change = mc->change_low = mc->change_high = NAN;
	mc->centre_baseline = mc->baseline.median;
	mc->centre_candidate = mc->candidate.median;
	mc->p_value = mc->p_adjusted = 1;
	compare_metric_release(mc);
	memset(&mc->test, 0, sizeof(mc->test));
	mc->method = NULL;
	mc->session_spread = 0;
	mc->interval_confidence = confidence;
	if (!nbase || !ncand)
		return;
	base = per_run(base, nbase, runs_base, &base_owned, &nb, &cap_base);
	cand = per_run(cand, ncand, runs_cand, &cand_owned, &nc, &cap_cand);
	dependence = runs_dependence(base, nb, cand, nc);

	mc->n_tested_baseline = nb;
	mc->n_tested_candidate = nc;
	side_dependence(nb, dependence, cap_base, &dep[0],
			&mc->n_eff_baseline);
	side_dependence(nc, dependence, cap_cand, &dep[1],
			&mc->n_eff_candidate);
	level = fabs(mc->baseline.median);
	positive = all_positive(base, nb) && all_positive(cand, nc);
	if (mc->exact || !positive) {
		/* Exact metrics and values that are not all positive
		 * (differences of counters, say) compare medians. */
		mc->change = level > 0 ? (mc->candidate.median -
					  mc->baseline.median) /
						 level
				       : 0;
		mc->change_low = mc->change_high = mc->change;
		if (mc->exact)
			goto done;
	} else if (mc->paired_runs && nb == nc && nb >= 2 &&
		   cap_base == (double)nb && cap_cand == (double)nc) {
		test_pairs(mc, base, cand, nb, confidence);
		/* the pairs estimate the ratio itself: the candidate shown
		 * is the baseline's median moved by it */
		mc->centre_candidate = mc->centre_baseline * (1 + mc->change);
		goto done;
	} else {
		mc->change = stats_hodges_lehmann_ratio(base, nb, cand, nc) - 1;
	}
	drifts = dependence.z > DRIFT_EVIDENCE && dependence.r > 0;
	if (drifts) {
		/* the runs' dependence alone, without the cap on pooled
		 * samples, which says nothing about their spread */
		side_dependence(nb, dependence, (double)nb, &drift[0], &n_eff);
		side_dependence(nc, dependence, (double)nc, &drift[1], &n_eff);
	}
	test_change(mc, base, nb, cand, nc, dep, confidence, positive, level,
		    drifts ? drift : NULL);
done:
	free(base_owned);
	free(cand_owned);
}

static void set_interval(struct metric_comparison *mc, double confidence)
{
	const struct metric_test *test = &mc->test;
	double low = -INFINITY, high = INFINITY, margin;

	if (mc->exact)
		return;
	mc->interval_confidence = confidence;
	if (test->pairs) {
		struct stats_signed_rank rank;

		if (!stats_signed_rank(test->pairs, test->pairs_nr, confidence,
				       &rank)) {
			low = exp(rank.low) - 1;
			high = exp(rank.high) - 1;
		}
	} else if (test->df > 0) {
		margin = stats_t_critical(1 - confidence, test->df) * test->se;
		if (test->log_scale) {
			low = exp(test->difference - margin) - 1;
			high = exp(test->difference + margin) - 1;
		} else if (test->level > 0) {
			low = (test->difference - margin) / test->level;
			high = (test->difference + margin) / test->level;
		}
	}
	/* [-100.0%, +inf%] bounds nothing; one that excludes no change
	 * must stay, however wide, as it is what makes it significant */
	if (!(low > 0 || high < 0) &&
	    (!isfinite(low) || !isfinite(high) ||
	     (test->log_scale && (low <= -0.9999 || high >= 9999)))) {
		low = -INFINITY;
		high = INFINITY;
	}
	mc->change_low = low;
	mc->change_high = high;
}

bool compare_is_bounded(const struct metric_comparison *mc)
{
	return !mc->exact && mc->has_baseline && mc->has_candidate &&
	       isfinite(mc->change_low) && isfinite(mc->change_high);
}

static bool is_worse(const struct metric_comparison *mc, double change)
{
	return mc->better == BETTER_LOWER ? change > 0 : change < 0;
}

/* Whether nothing but the runs' own spread bounds the noise between the
 * two sessions of mc while its runs drift ("Drift without a history"). */
static bool session_unanchored(const struct metric_comparison *mc)
{
	return !mc->paired_runs && !(mc->noise > 0);
}

void compare_decide(struct metric_comparison *mc)
{
	bool significant, large;

	mc->session_unbounded = false;
	if (!mc->has_baseline || !mc->has_candidate) {
		mc->verdict = mc->has_candidate ? VERDICT_NEW : VERDICT_MISSING;
		return;
	}
	if (mc->exact) {
		double delta = mc->candidate.median - mc->baseline.median;

		if (fabs(delta) <= mc->tolerance)
			mc->verdict = VERDICT_UNCHANGED;
		else
			mc->verdict = is_worse(mc, delta) ? VERDICT_REGRESSION
							  : VERDICT_IMPROVEMENT;
		return;
	}
	if (mc->one_value) {
		/* one value has no spread to test: the threshold decides */
		mc->verdict = fabs(mc->change) <= mc->threshold
				      ? VERDICT_UNCHANGED
			      : is_worse(mc, mc->change) ? VERDICT_REGRESSION
							 : VERDICT_IMPROVEMENT;
		return;
	}
	/* the interval is at the adjusted level: excluding no change is the
	 * adjusted p-value below 1 - confidence */
	significant = mc->change_low > 0 || mc->change_high < 0;
	large = fabs(mc->change) > mc->threshold;
	/* unchanged only when the interval bounds the change inside the
	 * threshold: a small estimate that the runs cannot pin down says
	 * nothing either way */
	if (!large)
		mc->verdict = mc->change_low >= -mc->threshold &&
				      mc->change_high <= mc->threshold
			      ? VERDICT_UNCHANGED
			      : VERDICT_INCONCLUSIVE;
	else if (!significant)
		mc->verdict = VERDICT_INCONCLUSIVE;
	else if (mc->session_spread > 0 && session_unanchored(mc) &&
		 !(fabs(mc->test.difference) >
		   stats_normal_quantile(0.5 + mc->interval_confidence / 2) *
			   mc->session_spread)) {
		mc->verdict = VERDICT_INCONCLUSIVE;
		mc->session_unbounded = true;
	} else
		mc->verdict = is_worse(mc, mc->change) ? VERDICT_REGRESSION
						       : VERDICT_IMPROVEMENT;
}

bool compare_is_decided(const struct metric_comparison *mc)
{
	double t = mc->threshold;
	/* both sides together, so that a stored baseline of fewer runs
	 * can be made up for by the candidate's */
	size_t together = session_unanchored(mc)
				  ? 2 * COMPARE_MIN_DECISIVE_RUNS_ALONE
				  : 0;

	if (mc->exact || !mc->has_baseline || !mc->has_candidate)
		return true;
	if (mc->change_low >= -t && mc->change_high <= t)
		return true;
	/* Five runs a side can show a complete separation (p 0.008) that a
	 * slow drift produced, and too few to show the drift: stopping on a
	 * significant change waits for COMPARE_MIN_DECISIVE_RUNS, and
	 * without a history or a shared session for more ("Drift without a
	 * history"). */
	return (mc->verdict == VERDICT_REGRESSION ||
		mc->verdict == VERDICT_IMPROVEMENT) &&
	       (mc->change_low > t || mc->change_high < -t) &&
	       mc->n_tested_baseline >= COMPARE_MIN_DECISIVE_RUNS &&
	       mc->n_tested_candidate >= COMPARE_MIN_DECISIVE_RUNS &&
	       mc->n_tested_baseline + mc->n_tested_candidate >= together;
}

/* The independent values of a metric's samples, as the tests count them:
 * what a bridge declared (an imported summary is one), else one a run. */
static size_t independent_units(const struct metric_samples *metric)
{
	return metric->independent ? metric->independent : metric->runs;
}

/* The first n values of each run of m: the runs two sides both made
 * when one side is a run ahead of the other. */
static size_t common_prefix(const struct metric_samples *bm,
			    const struct metric_samples *cm, size_t *nb,
			    size_t *nc)
{
	size_t runs = bm->runs < cm->runs ? bm->runs : cm->runs;

	*nb = bm->runs && bm->nr % bm->runs == 0 ? bm->nr / bm->runs * runs
						 : bm->nr;
	*nc = cm->runs && cm->nr % cm->runs == 0 ? cm->nr / cm->runs * runs
						 : cm->nr;
	return runs;
}

/* The threshold a metric is judged by: the one given, raised to what its
 * history shows between sessions (noise_k x noise) when that is larger.
 * The adaptive stop and the verdict both take it from here, so that a
 * case stops measuring exactly when its comparison is decided. */
static double judged_threshold(const struct compare_options *opts,
			       double threshold, double confidence,
			       double noise)
{
	double noise_k = opts && opts->noise_k > 0
				 ? opts->noise_k
				 : compare_noise_k(confidence);

	return fmax(threshold, noise_k * noise);
}

bool compare_case_decided(const struct result_case *base,
			  const struct result_case *cand, double threshold,
			  double confidence, bool paired,
			  const struct compare_options *history)
{
	if (!base || base->status != CASE_OK)
		return false;
	for (size_t i = 0; i < cand->metrics_nr; i++) {
		const struct metric_samples *cm = &cand->metrics[i];
		const struct metric_samples *bm =
			result_case_find_metric(base, cm->name);
		struct metric_comparison mc = { .better = cm->better,
						.threshold = threshold,
						.paired_runs = paired };
		size_t nb = bm ? bm->nr : 0, nc = cm->nr, units_b, units_c;

		/* an ungated metric cannot change the verdict: no reason to
		 * measure on for it */
		if (cm->exact || !cm->gate || !bm)
			continue;
		units_b = independent_units(bm);
		units_c = independent_units(cm);
		if (paired && !bm->independent && !cm->independent)
			units_b = units_c = common_prefix(bm, cm, &nb, &nc);
		compare_metric_stats(&mc, bm->samples, nb, units_b,
				     cm->samples, nc, units_c, confidence, 1);
		mc.noise = history && history->noise
				   ? history->noise(cand->benchmark,
						    cand->variant, cand->device,
						    cm->name,
						    history->noise_payload)
				   : 0;
		mc.threshold =
			judged_threshold(history, threshold, confidence,
					 mc.noise);
		compare_decide(&mc);
		compare_metric_release(&mc);
		if (!compare_is_decided(&mc))
			return false;
	}
	return true;
}

size_t compare_run_log_ratios(const struct result_case *base,
			      const struct result_case *cand,
			      const char *metric, double **out)
{
	const struct metric_samples *bm =
		base ? result_case_find_metric(base, metric) : NULL;
	const struct metric_samples *cm =
		cand ? result_case_find_metric(cand, metric) : NULL;
	const double *b, *c;
	double *b_owned = NULL, *c_owned = NULL, cap_b, cap_c;
	size_t nb, nc, runs, n = 0;

	*out = NULL;
	if (!bm || !cm || bm->independent || cm->independent ||
	    base->status != CASE_OK || cand->status != CASE_OK)
		return 0;
	runs = common_prefix(bm, cm, &nb, &nc);
	b = per_run(bm->samples, nb, runs, &b_owned, &nb, &cap_b);
	c = per_run(cm->samples, nc, runs, &c_owned, &nc, &cap_c);
	/* one value a run on each side, or nothing to pair */
	if (nb == nc && cap_b == (double)nb && cap_c == (double)nc && nb &&
	    all_positive(b, nb) && all_positive(c, nc)) {
		*out = xmalloc(nb * sizeof(**out));
		for (n = 0; n < nb; n++)
			(*out)[n] = log(c[n] / b[n]);
	}
	free(b_owned);
	free(c_owned);
	return n;
}

/* Cases by identity */

/*
 * The cases of a result by benchmark, variant and device (the first of
 * equal ones, as result_find_case() finds it): compare looks up every
 * case of each side in the other, which a linear search per case makes
 * quadratic in the cases. Open addressing at most half full.
 */
struct case_index {
	const struct result *result;
	size_t *slots; /* case index + 1; 0: empty */
	size_t mask;
};

static uint64_t case_hash(const char *benchmark, const char *variant,
			  const char *device)
{
	uint64_t h = hash_fnv1a64(benchmark, strlen(benchmark));

	h = (h ^ hash_fnv1a64(variant, strlen(variant))) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ hash_fnv1a64(device, strlen(device))) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static bool same_case(const struct result_case *c, const char *benchmark,
		      const char *variant, const char *device)
{
	return !strcmp(c->benchmark, benchmark) &&
	       !strcmp(c->variant, variant) && !strcmp(c->device, device);
}

static void case_index_init(struct case_index *index,
			    const struct result *result)
{
	size_t size = 16;

	index->result = result;
	index->slots = NULL;
	index->mask = 0;
	if (!result)
		return;
	while (size < 2 * result->cases_nr)
		size *= 2;
	index->slots = xcalloc(size, sizeof(*index->slots));
	index->mask = size - 1;
	for (size_t i = 0; i < result->cases_nr; i++) {
		const struct result_case *c = &result->cases[i];
		size_t slot = case_hash(c->benchmark, c->variant, c->device) &
			      index->mask;

		for (; index->slots[slot]; slot = (slot + 1) & index->mask)
			if (same_case(&result->cases[index->slots[slot] - 1],
				      c->benchmark, c->variant, c->device))
				break;
		if (!index->slots[slot])
			index->slots[slot] = i + 1;
	}
}

static const struct result_case *case_index_find(const struct case_index *index,
						 const char *benchmark,
						 const char *variant,
						 const char *device)
{
	size_t slot;

	if (!index->slots)
		return NULL;
	slot = case_hash(benchmark, variant, device) & index->mask;
	for (; index->slots[slot]; slot = (slot + 1) & index->mask) {
		const struct result_case *c =
			&index->result->cases[index->slots[slot] - 1];

		if (same_case(c, benchmark, variant, device))
			return c;
	}
	return NULL;
}

static void case_index_release(struct case_index *index)
{
	free(index->slots);
	index->slots = NULL;
}

/* Whole results */

double compare_threshold(const struct compare_options *opts,
			 const struct result_case *recorded)
{
	if (opts->threshold >= 0)
		return opts->threshold;
	if (recorded && isfinite(recorded->threshold))
		return recorded->threshold;
	return COMPARE_THRESHOLD_DEFAULT;
}

static bool confidence_recorded(double confidence)
{
	return confidence > 0 && confidence < 1;
}

double compare_confidence(const struct compare_options *opts,
			  const struct result_case *recorded)
{
	if (opts->confidence >= 0)
		return opts->confidence;
	if (recorded && confidence_recorded(recorded->confidence))
		return recorded->confidence;
	return COMPARE_CONFIDENCE_DEFAULT;
}

/* The level of a whole comparison: the override, else the candidate's
 * recorded suite default, else the baseline's, else the default. */
static double family_confidence(const struct compare_options *opts,
				const struct result *baseline,
				const struct result *candidate,
				bool *defaulted)
{
	*defaulted = false;
	if (opts->confidence >= 0)
		return opts->confidence;
	if (confidence_recorded(candidate->confidence))
		return candidate->confidence;
	if (baseline && confidence_recorded(baseline->confidence))
		return baseline->confidence;
	*defaulted = baseline != NULL;
	return COMPARE_CONFIDENCE_DEFAULT;
}

static struct metric_comparison *add_item(struct comparison *comparison,
					  const struct result_case *rcase,
					  const char *metric)
{
	struct metric_comparison *mc;

	ALLOC_GROW(comparison->items, comparison->nr + 1, comparison->alloc);
	mc = &comparison->items[comparison->nr++];
	memset(mc, 0, sizeof(*mc));
	mc->suite = xstrdup(comparison->suite);
	mc->benchmark = xstrdup(rcase->benchmark);
	mc->variant = xstrdup(rcase->variant);
	mc->device = xstrdup(rcase->device);
	mc->metric = xstrdup(metric);
	mc->change = mc->change_low = mc->change_high = NAN;
	mc->centre_baseline = mc->centre_candidate = NAN;
	mc->p_value = mc->p_adjusted = 1;
	mc->verdict = VERDICT_NEW;
	summary_empty(&mc->baseline);
	summary_empty(&mc->candidate);
	return mc;
}

/* What a compacted side (`store compact`, maintain.h) kept of its
 * samples, for the metric's note: the medians and the gate's independent
 * runs are what they were, the sample-level detail is not. */
static char *compacted_note(const struct metric_samples *bm,
			    const struct metric_samples *cm)
{
	struct strbuf note = STRBUF_INIT;

	strbuf_addstr(&note, "compacted:");
	if (bm->compacted_from)
		strbuf_addf(&note, " the baseline keeps %zu of %zu samples",
			    bm->nr, bm->compacted_from);
	if (bm->compacted_from && cm->compacted_from)
		strbuf_addch(&note, ',');
	if (cm->compacted_from)
		strbuf_addf(&note, " the candidate keeps %zu of %zu samples",
			    cm->nr, cm->compacted_from);
	return strbuf_detach(&note, NULL);
}

static void describe_metric(struct metric_comparison *mc,
			    const struct metric_samples *metric)
{
	mc->unit = xstrdup(metric->unit);
	mc->better = metric->better;
	mc->exact = metric->exact;
	mc->tolerance = metric->tolerance;
	mc->ungated = !metric->gate;
	mc->role = xstrdup(metric->role);
}

/* Where to read why a case failed: its log, when the case itself (not
 * its baseline) failed. */
static char *failed_log(const struct result_case *c, enum verdict verdict)
{
	return verdict == VERDICT_FAILED && c->status != CASE_OK && c->log
		       ? xstrdup(c->log)
		       : NULL;
}

/* A case that did not produce numbers on one side gets one item per metric
 * the other side knows of (or a single "status" item), so reports show it. */

static void add_status_items(struct comparison *comparison,
			     const struct result_case *shown,
			     const struct result_case *other,
			     enum verdict verdict, const char *note)
{
	const struct result_case *names = other && other->metrics_nr ? other
								     : shown;

	for (size_t i = 0; i < names->metrics_nr; i++) {
		struct metric_comparison *mc =
			add_item(comparison, shown, names->metrics[i].name);

		describe_metric(mc, &names->metrics[i]);
		mc->verdict = verdict;
		mc->note = xstrdup(note);
		mc->log = failed_log(shown, verdict);
	}
	if (!names->metrics_nr) {
		struct metric_comparison *mc =
			add_item(comparison, shown, "status");

		mc->verdict = verdict;
		mc->note = xstrdup(note);
		mc->log = failed_log(shown, verdict);
	}
}

static void compare_case(struct comparison *comparison,
			 const struct result_case *base,
			 const struct result_case *cand,
			 const struct compare_options *opts, double confidence,
			 uint64_t seed)
{
	/* the candidate's settings; a candidate written before they were
	 * recorded is judged by its baseline's */
	const struct result_case *recorded =
		isfinite(cand->threshold) || !base ? cand : base;
	double threshold = compare_threshold(opts, recorded);

	if (cand->status == CASE_SKIPPED) {
		add_status_items(comparison, cand, base, VERDICT_SKIPPED,
				 cand->reason);
		return;
	}
	if (cand->status != CASE_OK) {
		add_status_items(comparison, cand, base, VERDICT_FAILED,
				 cand->reason);
		return;
	}
	if (base && opts->threshold < 0 && !isfinite(recorded->threshold))
		comparison->settings_defaulted = true;
	if (opts->baseline_measured && base &&
	    (base->status == CASE_FAILED || base->status == CASE_TIMEOUT)) {
		struct strbuf note = STRBUF_INIT;

		strbuf_addf(&note, "the baseline tree's case failed: %s",
			    base->reason ? base->reason : "no reason");
		add_status_items(comparison, cand, NULL, VERDICT_FAILED,
				 note.buf);
		strbuf_release(&note);
		return;
	}
	for (size_t i = 0; i < cand->metrics_nr; i++) {
		const struct metric_samples *cm = &cand->metrics[i];
		const struct metric_samples *bm =
			base && base->status == CASE_OK
				? result_case_find_metric(base, cm->name)
				: NULL;
		struct metric_comparison *mc =
			add_item(comparison, cand, cm->name);

		size_t nb = bm ? bm->nr : 0, nc = cm->nr;
		size_t units_b = bm ? independent_units(bm) : 0;
		size_t units_c = independent_units(cm);

		describe_metric(mc, cm);
		mc->paired_runs = opts->baseline_measured;
		/* a side a run ahead (the other's last run failed, or stopped
		 * in the middle of a round): the rounds both completed */
		if (mc->paired_runs && bm && !bm->independent &&
		    !cm->independent && bm->runs != cm->runs)
			units_b = units_c = common_prefix(bm, cm, &nb, &nc);
		compare_metric_stats(mc, bm ? bm->samples : NULL, nb, units_b,
				     cm->samples, nc, units_c, confidence,
				     seed + comparison->nr * 7919);
		mc->noise = opts->noise
				    ? opts->noise(cand->benchmark,
						  cand->variant, cand->device,
						  cm->name, opts->noise_payload)
				    : 0;
		mc->threshold =
			judged_threshold(opts, threshold, confidence, mc->noise);
		if (bm && (bm->independent == 1 || cm->independent == 1)) {
			mc->one_value = true;
			mc->note = xstrdup("judged from one value: a summary "
					   "has no spread to test, so the "
					   "threshold alone decides");
		}
		if (!mc->note && bm &&
		    (bm->compacted_from || cm->compacted_from))
			mc->note = compacted_note(bm, cm);
		if (!bm)
			mc->note =
				xstrdup(!base ? "no baseline for this case"
					: base->status != CASE_OK
						? "the baseline case failed"
						: "metric not in the baseline");
	}
	for (size_t i = 0;
	     base && base->status == CASE_OK && i < base->metrics_nr; i++) {
		struct metric_comparison *mc;

		if (result_case_find_metric(cand, base->metrics[i].name))
			continue;
		mc = add_item(comparison, cand, base->metrics[i].name);
		describe_metric(mc, &base->metrics[i]);
		compare_metric_stats(mc, base->metrics[i].samples,
				     base->metrics[i].nr,
				     independent_units(&base->metrics[i]),
				     NULL, 0, 0, confidence, seed);
		mc->verdict = VERDICT_MISSING;
		mc->note = xstrdup("metric not in the candidate");
	}
}

static void copy_side(struct comparison_side *side, const struct result *r)
{
	memcpy(side->commit, r->git.commit, sizeof(side->commit));
	memcpy(side->machine, r->machine.id, sizeof(side->machine));
}

/*
 * The intervals at the level Benjamini-Hochberg leaves: with k of the m
 * tested metrics significant (adjusted p below alpha = 1 - confidence),
 * exactly those have p below k alpha / m, so the intervals at that level
 * (at least alpha / m) exclude no change exactly for them (Benjamini and
 * Yekutieli's false coverage-rate intervals).
 */
static void adjust_intervals(struct comparison *comparison,
			     const size_t *index, size_t tested,
			     double confidence)
{
	double alpha = 1 - confidence;
	size_t significant = 0;

	for (size_t i = 0; i < tested; i++)
		significant += comparison->items[index[i]].p_adjusted < alpha;
	for (size_t i = 0; i < tested; i++)
		set_interval(&comparison->items[index[i]],
				     1 - (double)(significant ? significant : 1) *
						 alpha / (double)tested);
}

#define SESSION_NOTE                                                        \
	"the runs drift and no history bounds the noise between the two "  \
	"sessions: their own spread cannot tell this change from where the " \
	"machine stood in each; measure both in one session (check "        \
	"--baseline-tree) or keep a history of the baseline branch"

static void add_session_note(struct metric_comparison *mc)
{
	struct strbuf note = STRBUF_INIT;

	if (mc->note)
		strbuf_addf(&note, "%s; ", mc->note);
	strbuf_addstr(&note, SESSION_NOTE);
	free(mc->note);
	mc->note = strbuf_detach(&note, NULL);
}

static void decide_all(struct comparison *comparison, double confidence)
{
	double *p = xcalloc(comparison->nr + 1, sizeof(*p));
	size_t *index = xcalloc(comparison->nr + 1, sizeof(*index));
	size_t tested = 0;

	/* One family for the false discovery rate: every metric that got a
	 * test in this comparison. */
	for (size_t i = 0; i < comparison->nr; i++) {
		struct metric_comparison *mc = &comparison->items[i];

		if (mc->has_baseline && mc->has_candidate && !mc->exact) {
			p[tested] = mc->p_value;
			index[tested++] = i;
		}
	}
	stats_bh_adjust(p, tested, p);
	for (size_t i = 0; i < tested; i++)
		comparison->items[index[i]].p_adjusted = p[i];
	adjust_intervals(comparison, index, tested, confidence);
	for (size_t i = 0; i < comparison->nr; i++) {
		struct metric_comparison *mc = &comparison->items[i];

		if (mc->verdict != VERDICT_FAILED &&
		    mc->verdict != VERDICT_SKIPPED &&
		    mc->verdict != VERDICT_MISSING)
			compare_decide(mc);
		if (mc->session_unbounded)
			add_session_note(mc);
		if (compare_item_gated(mc))
			comparison->counts[mc->verdict]++;
	}
	comparison->overall =
		comparison->counts[VERDICT_FAILED]	 ? OVERALL_FAILED
		: comparison->counts[VERDICT_REGRESSION] ? OVERALL_REGRESSION
							 : OVERALL_PASS;
	free(p);
	free(index);
}

/* Variants inside the candidate, each against the reference variant
 * (result->reference, "original" by default) */

static bool is_time_unit(const char *unit)
{
	static const char *const units[] = { "ns", "us", "µs", "ms", "s", NULL };

	for (const char *const *u = units; unit && *u; u++)
		if (!strcmp(*u, unit))
			return true;
	return false;
}

/* The case's metric of that role (suite key "role"), with samples. */
static const struct metric_samples *
metric_of_role(const struct result_case *c, const char *role)
{
	for (size_t i = 0; i < c->metrics_nr; i++)
		if (c->metrics[i].role && !strcmp(c->metrics[i].role, role))
			return c->metrics[i].nr ? &c->metrics[i] : NULL;
	return NULL;
}

/* Whether the suite gave the case's metrics roles: then the roles alone
 * say which metric fills each column. A result from before roles existed
 * has none, and the names it was written for still fill them. */
static bool has_roles(const struct result_case *c)
{
	for (size_t i = 0; i < c->metrics_nr; i++)
		if (c->metrics[i].role)
			return true;
	return false;
}

/* The metric a speed-up is measured on: the one of role "speed"; without
 * roles "latency" when there is one, else the first timing metric where
 * lower is better. */
static const struct metric_samples *speed_metric(const struct result_case *c)
{
	const struct metric_samples *found;

	if (has_roles(c))
		return metric_of_role(c, "speed");
	found = result_case_find_metric(c, "latency");
	for (size_t i = 0; !found && i < c->metrics_nr; i++)
		if (!c->metrics[i].exact &&
		    c->metrics[i].better == BETTER_LOWER &&
		    is_time_unit(c->metrics[i].unit))
			found = &c->metrics[i];
	return found && found->nr ? found : NULL;
}

/* The metric of role "size" or "accuracy"; without roles the first whose
 * name holds that word. */
static const struct metric_samples *
column_metric(const struct result_case *c, const char *role)
{
	if (has_roles(c))
		return metric_of_role(c, role);
	for (size_t i = 0; i < c->metrics_nr; i++)
		if (strstr(c->metrics[i].name, role) && c->metrics[i].nr)
			return &c->metrics[i];
	return NULL;
}

static double median_of(const struct metric_samples *m)
{
	return m ? stats_median(m->samples, m->nr) : NAN;
}

/* The variant's size ratio and accuracy difference against the
 * reference case. */
static void variant_columns(const struct result_case *original,
			    const struct result_case *variant, double *size_ratio,
			    double *accuracy_delta)
{
	const struct metric_samples *os = column_metric(original, "size");
	const struct metric_samples *vs = column_metric(variant, "size");
	const struct metric_samples *oa = column_metric(original, "accuracy");
	const struct metric_samples *va = column_metric(variant, "accuracy");

	*size_ratio = os && vs ? median_of(vs) / median_of(os) : NAN;
	*accuracy_delta = oa && va ? median_of(va) - median_of(oa) : NAN;
}

/* Where the variant was: the baseline's numbers of vc's variant and
 * reference, on the candidate's speed metric. */
static void baseline_variant(struct variant_comparison *vc,
			     const struct case_index *baseline)
{
	const struct result_case *original = case_index_find(
		baseline, vc->benchmark, vc->against, vc->device);
	const struct result_case *variant = case_index_find(
		baseline, vc->benchmark, vc->variant, vc->device);
	const struct metric_samples *os, *vs;

	vc->baseline_speedup = vc->baseline_size_ratio =
		vc->baseline_accuracy_delta = NAN;
	if (!original || !variant || original->status != CASE_OK ||
	    variant->status != CASE_OK)
		return;
	os = result_case_find_metric(original, vc->speed_metric);
	vs = result_case_find_metric(variant, vc->speed_metric);
	if (os && os->nr && vs && vs->nr)
		vc->baseline_speedup = median_of(os) / median_of(vs);
	variant_columns(original, variant, &vc->baseline_size_ratio,
			&vc->baseline_accuracy_delta);
}

static void compare_variant(struct comparison *comparison,
			    const struct result_case *original,
			    const struct result_case *variant,
			    double confidence, uint64_t seed)
{
	const struct metric_samples *orig_speed = speed_metric(original);
	const struct metric_samples *var_speed;
	struct variant_comparison *vc;
	struct stats_interval interval, orig;

	if (!orig_speed ||
	    !(var_speed = result_case_find_metric(variant, orig_speed->name)) ||
	    !var_speed->nr)
		return;
	ALLOC_GROW(comparison->variants, comparison->variants_nr + 1,
		   comparison->variants_alloc);
	vc = &comparison->variants[comparison->variants_nr++];
	memset(vc, 0, sizeof(*vc));
	vc->benchmark = xstrdup(variant->benchmark);
	vc->device = xstrdup(variant->device);
	vc->variant = xstrdup(variant->variant);
	vc->against = xstrdup(original->variant);
	vc->speed_metric = xstrdup(orig_speed->name);
	vc->speedup = median_of(orig_speed) / median_of(var_speed);
	vc->speedup_low = vc->speedup_high = vc->speedup;
	/* median(original) / median(variant), from the order-statistic
	 * intervals of the two medians, each at 1 - (1 - confidence) / 2:
	 * both hold with probability >= confidence, and then so does the
	 * ratio of their ends (no resampling) */
	(void)seed;
	if (!stats_median_order_ci(orig_speed->samples, orig_speed->nr,
				   1 - (1 - confidence) / 2, &orig) &&
	    !stats_median_order_ci(var_speed->samples, var_speed->nr,
				   1 - (1 - confidence) / 2, &interval) &&
	    orig.low > 0 && interval.low > 0) {
		vc->speedup_low = orig.low / interval.high;
		vc->speedup_high = orig.high / interval.low;
	}
	variant_columns(original, variant, &vc->size_ratio,
			&vc->accuracy_delta);
}

/* Case indices ordered by benchmark and device, then by their place. */
static const struct result *grouped_result;

static int by_benchmark_and_device(const void *pa, const void *pb)
{
	const struct result_case *a = &grouped_result->cases[*(const size_t *)pa];
	const struct result_case *b = &grouped_result->cases[*(const size_t *)pb];
	int order = strcmp(a->benchmark, b->benchmark);

	if (!order)
		order = strcmp(a->device, b->device);
	if (!order)
		order = *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
	return order;
}

/*
 * Each reference case against the other cases of its benchmark and
 * device, in the candidate's order: the cases grouped by benchmark and
 * device once (a sort), so that each reference meets its own group only.
 */
static void compare_variants(struct comparison *comparison,
			     const struct case_index *baseline,
			     const struct result *candidate, double confidence,
			     uint64_t seed)
{
	const char *reference =
		candidate->reference ? candidate->reference : "original";
	size_t nr = candidate->cases_nr;
	size_t *order = xcalloc(nr + 1, sizeof(*order));
	size_t *group = xcalloc(nr + 1, sizeof(*group)); /* case -> start */

	for (size_t i = 0; i < nr; i++)
		order[i] = i;
	grouped_result = candidate;
	qsort(order, nr, sizeof(*order), by_benchmark_and_device);
	grouped_result = NULL;
	for (size_t k = 0, start = 0; k < nr; k++) {
		const struct result_case *c = &candidate->cases[order[k]];
		const struct result_case *first = &candidate->cases[order[start]];

		if (strcmp(c->benchmark, first->benchmark) ||
		    strcmp(c->device, first->device))
			start = k;
		group[order[k]] = start;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct result_case *original = &candidate->cases[i];

		if (strcmp(original->variant, reference) ||
		    original->status != CASE_OK)
			continue;
		for (size_t k = group[i]; k < nr; k++) {
			size_t j = order[k];
			const struct result_case *other = &candidate->cases[j];

			if (strcmp(other->benchmark, original->benchmark) ||
			    strcmp(other->device, original->device))
				break;
			if (j != i && other->status == CASE_OK)
				compare_variant(comparison, original, other,
						confidence, seed + j);
		}
	}
	for (size_t i = 0; i < comparison->variants_nr; i++)
		baseline_variant(&comparison->variants[i], baseline);
	free(order);
	free(group);
}

int compare_results(struct comparison **out, const struct result *baseline,
		    const struct result *candidate,
		    const struct compare_options *opts)
{
	struct comparison *comparison = xcalloc(1, sizeof(*comparison));
	struct case_index base_index, cand_index;
	uint64_t seed = opts->seed ? opts->seed : 0x62656e6368676174ULL;
	double confidence = family_confidence(
		opts, baseline, candidate, &comparison->settings_defaulted);

	comparison->suite = xstrdup(candidate->suite);
	comparison->confidence = confidence;
	copy_side(&comparison->candidate, candidate);
	if (baseline)
		copy_side(&comparison->baseline, baseline);
	else
		memcpy(comparison->baseline.commit, "none", sizeof("none"));
	case_index_init(&base_index, baseline);
	case_index_init(&cand_index, candidate);
	for (size_t i = 0; i < candidate->cases_nr; i++) {
		const struct result_case *cand = &candidate->cases[i];
		const struct result_case *base = case_index_find(
			&base_index, cand->benchmark, cand->variant,
			cand->device);

		compare_case(comparison, base, cand, opts, confidence, seed);
	}
	for (size_t i = 0; baseline && i < baseline->cases_nr; i++) {
		const struct result_case *base = &baseline->cases[i];

		if (!case_index_find(&cand_index, base->benchmark,
				     base->variant, base->device))
			add_status_items(comparison, base, NULL,
					 VERDICT_MISSING,
					 "case not in the candidate");
	}
	decide_all(comparison, confidence);
	compare_variants(comparison, &base_index, candidate, confidence, seed);
	case_index_release(&base_index);
	case_index_release(&cand_index);
	*out = comparison;
	return BG_OK;
}

int comparison_read(struct comparison **out, struct result **result,
		    const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct compare_options opts;
	int error;

	*out = NULL;
	*result = NULL;
	if ((error = strbuf_read_file(&text, path)) < 0)
		goto done;
	/* A comparison document names itself; anything else must be a
	 * result. */
	if (strstr(text.buf, "\"benchgate_comparison\"")) {
		error = comparison_parse(out, text.buf, text.len, path);
		goto done;
	}
	if ((error = result_parse(result, text.buf, text.len, path)) < 0)
		goto done;
	compare_options_init(&opts);
	if ((error = compare_results(out, NULL, *result, &opts)) == BG_OK)
		/* the base of the result's artifact links (report.h) */
		(*out)->candidate.path = xstrdup(path);
done:
	strbuf_release(&text);
	return error;
}
