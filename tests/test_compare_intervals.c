/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interval a comparison shows agrees with its verdict: on many random
 * comparisons (several metrics each, so that the false discovery rate
 * adjustment moves the level; few or many runs, light or heavy noise,
 * outliers, drift, pooled samples, paired runs), read back from the
 * comparison document, every regression and improvement has an interval
 * excluding no change, every inconclusive one includes it, and being
 * significant (the adjusted p-value) is the interval excluding no change.
 */
#include "harness/gate/compare.h"
#include "harness/gate/stats.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

TestSuite(compare_intervals);

#define COMPARISONS 400

static double normal(struct stats_rng *rng)
{
	double u = stats_rng_uniform(rng), v = stats_rng_uniform(rng);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static size_t pick(struct stats_rng *rng, size_t n)
{
	size_t i = (size_t)(stats_rng_uniform(rng) * (double)n);

	return i < n ? i : n - 1;
}

/* Runs of one side: log-normal noise around level, sometimes with a slow
 * drift or an outlier, sometimes several samples a run. */
static void fill(struct stats_rng *rng, struct metric_samples *m, double level,
		 double cv, size_t runs, size_t per_run, bool drift)
{
	for (size_t r = 0; r < runs; r++)
		for (size_t s = 0; s < per_run; s++) {
			double shift = cv * normal(rng);

			if (drift)
				shift += cv * 3 * (double)r / (double)runs;
			if (stats_rng_uniform(rng) < 0.05)
				shift += cv * 8; /* an outlier */
			metric_samples_push(m, level * exp(shift));
		}
	m->runs = per_run > 1 ? runs : 0;
}

struct tally {
	size_t verdicts[VERDICT_COUNT];
	size_t unbounded, adjusted, small_significant;
};

static struct comparison *random_comparison(struct stats_rng *rng,
					    bool *paired)
{
	static const size_t run_counts[] = { 1, 2, 3, 5, 8, 12, 20 };
	static const double cvs[] = { 0.002, 0.01, 0.03, 0.1, 0.3 };
	static const double changes[] = { 0,	 0,    0.005, -0.01,
					  0.03,	 -0.05, 0.2,  -0.3 };
	struct result *base = result_new(), *cand = result_new();
	size_t cases = 1 + pick(rng, 6);
	struct compare_options opts;
	struct comparison *c = NULL;

	base->suite = strdup("s");
	cand->suite = strdup("s");
	*paired = stats_rng_uniform(rng) < 0.3;
	for (size_t i = 0; i < cases; i++) {
		char name[32];
		struct result_case *bc, *cc;
		size_t metrics = 1 + pick(rng, 2);

		snprintf(name, sizeof(name), "b%zu", i);
		bc = result_add_case(base, name, "original", "cpu");
		cc = result_add_case(cand, name, "original", "cpu");
		for (size_t j = 0; j < metrics; j++) {
			const char *metric = j ? "throughput" : "latency";
			struct metric_samples *bm = result_case_metric(bc, metric);
			struct metric_samples *cm = result_case_metric(cc, metric);
			size_t nb = run_counts[pick(rng, 7)];
			size_t nc = *paired ? nb : run_counts[pick(rng, 7)];
			size_t per_run = stats_rng_uniform(rng) < 0.2 ? 5 : 1;
			double cv = cvs[pick(rng, 5)];
			double change = changes[pick(rng, 8)];
			bool drift = stats_rng_uniform(rng) < 0.2;

			bm->better = cm->better = j ? BETTER_HIGHER : BETTER_LOWER;
			fill(rng, bm, 10, cv, nb, per_run, drift);
			fill(rng, cm, 10 * (1 + change), cv, nc, per_run, drift);
		}
	}
	compare_options_init(&opts);
	opts.threshold = 0.02;
	opts.baseline_measured = *paired;
	opts.seed = (uint64_t)pick(rng, 1000) + 1;
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	result_free(base);
	result_free(cand);
	return c;
}

static bool excludes_zero(const struct metric_comparison *mc)
{
	return mc->change_low > 0 || mc->change_high < 0;
}

/* The comparison, as its document says it. */
static struct comparison *through_document(const struct comparison *c)
{
	struct strbuf text = STRBUF_INIT;
	struct comparison *read = NULL;

	comparison_to_json(c, &text);
	cr_assert_eq(comparison_parse(&read, text.buf, text.len, "gen.json"),
		     BG_OK, "%s", bg_error_last());
	strbuf_release(&text);
	return read;
}

static bool within_threshold(const struct metric_comparison *mc)
{
	return mc->change_low >= -mc->threshold &&
	       mc->change_high <= mc->threshold;
}

static void check_item(const struct metric_comparison *mc, double confidence,
		       struct tally *tally)
{
	bool bounded = isfinite(mc->change_low) && isfinite(mc->change_high);
	bool significant = mc->p_adjusted < 1 - confidence;

	tally->verdicts[mc->verdict]++;
	if (mc->verdict != VERDICT_REGRESSION &&
	    mc->verdict != VERDICT_IMPROVEMENT &&
	    mc->verdict != VERDICT_UNCHANGED &&
	    mc->verdict != VERDICT_INCONCLUSIVE)
		return;
	tally->unbounded += !bounded;
	tally->adjusted += mc->interval_confidence > confidence;
	switch (mc->verdict) {
	case VERDICT_REGRESSION:
	case VERDICT_IMPROVEMENT:
		cr_assert(bounded && excludes_zero(mc),
			  "%s/%s %s: %+g [%g, %g] p %g", mc->benchmark,
			  mc->metric, verdict_name(mc->verdict), mc->change,
			  mc->change_low, mc->change_high, mc->p_adjusted);
		break;
	case VERDICT_INCONCLUSIVE:
		/* a large estimate that is not significant, or a small one
		 * whose interval reaches beyond the threshold */
		cr_assert(!excludes_zero(mc) ||
				  !within_threshold(mc),
			  "%s/%s inconclusive: %+g [%g, %g] p %g",
			  mc->benchmark, mc->metric, mc->change,
			  mc->change_low, mc->change_high, mc->p_adjusted);
		break;
	default:
		/* unchanged: the interval bounds the change inside the
		 * threshold, significant or not */
		cr_assert(bounded && within_threshold(mc),
			  "%s/%s unchanged: %+g [%g, %g] threshold %g",
			  mc->benchmark, mc->metric, mc->change,
			  mc->change_low, mc->change_high, mc->threshold);
		tally->small_significant += excludes_zero(mc);
	}
	/* the estimate lies inside its own interval */
	cr_assert(!bounded || (mc->change_low <= mc->change + 1e-12 &&
			       mc->change <= mc->change_high + 1e-12),
		  "%s/%s: %+g outside [%g, %g]", mc->benchmark, mc->metric,
		  mc->change, mc->change_low, mc->change_high);
	/* at the edge the two can only differ by rounding */
	if (fabs(mc->p_adjusted - (1 - confidence)) > 1e-9)
		cr_assert_eq(significant, excludes_zero(mc),
			     "%s/%s: p adjusted %g, [%g, %g] at %g",
			     mc->benchmark, mc->metric, mc->p_adjusted,
			     mc->change_low, mc->change_high,
			     mc->interval_confidence);
}

Test(compare_intervals, every_verdict_agrees_with_its_interval)
{
	struct stats_rng rng;
	struct tally tally = { 0 };

	stats_rng_seed(&rng, 13);
	for (int i = 0; i < COMPARISONS; i++) {
		bool paired;
		struct comparison *made = random_comparison(&rng, &paired);
		struct comparison *read = through_document(made);

		for (size_t j = 0; j < read->nr; j++)
			check_item(&read->items[j], read->confidence, &tally);
		comparison_free(made);
		comparison_free(read);
	}
	/* the generator reached every case the rule speaks of */
	cr_assert_gt(tally.verdicts[VERDICT_REGRESSION], 20);
	cr_assert_gt(tally.verdicts[VERDICT_IMPROVEMENT], 20);
	cr_assert_gt(tally.verdicts[VERDICT_UNCHANGED], 20);
	cr_assert_gt(tally.verdicts[VERDICT_INCONCLUSIVE], 20);
	cr_assert_gt(tally.unbounded, 5, "too few runs to bound: %zu",
		     tally.unbounded);
	cr_assert_gt(tally.adjusted, 100, "intervals at an adjusted level: %zu",
		     tally.adjusted);
	cr_assert_gt(tally.small_significant, 0);
}

/* One run a side bounds nothing: the interval is infinite, and the
 * document says so with null ends rather than [-100 %, +inf %]. */
Test(compare_intervals, one_run_a_side_is_too_few_to_bound)
{
	struct metric_comparison mc = { .better = BETTER_LOWER,
					.threshold = 0.02 };
	double base[] = { 10 }, cand[] = { 15 };

	compare_metric_stats(&mc, base, 1, 0, cand, 1, 0, 0.99, 1);
	compare_decide(&mc);
	cr_assert_not(compare_is_bounded(&mc));
	cr_assert(isinf(mc.change_low) && isinf(mc.change_high));
	cr_assert_eq(mc.verdict, VERDICT_INCONCLUSIVE);
}
