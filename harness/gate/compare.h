/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_COMPARE_H
#define BENCHGATE_COMPARE_H

#include "harness/model/result.h"
#include "harness/gate/stats.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The gate: compares a candidate result with a baseline, metric by metric,
 * and decides. The rule (DESIGN.md, "Comparison"):
 *
 * - the change is the Hodges-Lehmann estimate of candidate / baseline - 1
 *   (more efficient than the ratio of medians for near-normal timings and
 *   as robust to outliers); its interval is the significance test's own
 *   (below) at the level the FDR adjustment leaves (compare_results()),
 *   and the decision reads it: significant is the interval excluding no
 *   change, so the two never disagree;
 * - the test sees one value per run (samples pooled from several per run
 *   are reduced to the run's median): the run is the unit of replication;
 * - it is significant when the p-value, adjusted by Benjamini-Hochberg
 *   across every metric of the comparison, is below 1 - confidence; the
 *   same as the test's interval at confidence 1 - k (1 - confidence) / m
 *   excluding no change, for the m tested metrics of which k are
 *   significant (at least 1): Benjamini and Yekutieli's (2005) false
 *   coverage-rate intervals, the interval a comparison shows. The
 *   test is chosen from the data's shape, never from the shift (Hogg's
 *   adaptive tests): Welch's t on the logarithms (timings are
 *   multiplicative), the efficient test on near-normal runs, or Yuen's
 *   20 % trimmed t on them when the tails are heavier than a Laplace's
 *   (Hogg's tailweight), as outliers then inflate Welch's variance. When
 *   the runs are clearly autocorrelated (drift) they count as
 *   n (1 - r) / (1 + r) values and the test runs at those sizes;
 * - runs of a baseline measured next to the candidate's (paired_runs,
 *   check --baseline-tree and bisect) are compared pair by pair: the
 *   log ratio of each candidate run to the baseline run of its round,
 *   judged by Wilcoxon's signed-rank test, the change being their
 *   Hodges-Lehmann estimate and the interval its exact order-statistic
 *   one; what the machine did to both runs of a round (drift, a busy
 *   neighbour) cancels, and a burst that hits one run of a pair moves
 *   one rank only. Too few pairs for the test to reach the level (under
 *   8 at 0.99) fall back to the one-sample t of the log ratios;
 * - the practical threshold is max(the configured minimum effect,
 *   noise_k x the metric's historical noise), see compare_noise_k();
 * - regression / improvement: significant and |change| > threshold in the
 *   worse / better direction; inconclusive: |change| > threshold but not
 *   significant; unchanged otherwise;
 * - exact metrics (accuracy, size) compare medians against the absolute
 *   tolerance, without statistics;
 * - a metric with "gate": false (result.h) gets its verdict like any other,
 *   which reports show as "not gated", but neither counts[] nor the
 *   overall verdict counts it (compare_item_gated()).
 */

enum verdict {
	VERDICT_REGRESSION,
	VERDICT_IMPROVEMENT,
	VERDICT_UNCHANGED,
	VERDICT_INCONCLUSIVE,
	VERDICT_NEW,
	VERDICT_MISSING,
	VERDICT_FAILED,
	VERDICT_SKIPPED,
};
#define VERDICT_COUNT (VERDICT_SKIPPED + 1)

const char *verdict_name(enum verdict verdict);
int verdict_parse(const char *name); /* -1 when unknown */

/* One case and metric. */
struct metric_comparison {
	char *suite, *benchmark, *variant, *device, *metric;
	char *unit; /* may be NULL */
	enum better better;
	bool exact;
	double tolerance; /* exact metrics */
	/* The metric has "gate": false (result.h): its verdict is for
	 * information only. False, so that an item made by hand is
	 * gated. */
	bool ungated;
	/* Set by the caller: run i of the baseline ran next to run i of the
	 * candidate (check --baseline-tree), so their ratio cancels what
	 * the machine did meanwhile when the runs rise and fall together. */
	bool paired_runs;
	bool has_baseline, has_candidate;
	struct stats_summary baseline, candidate;
	double change;			/* relative, candidate vs baseline */
	/* The change's interval at interval_confidence: the test's, at the
	 * level the FDR adjustment leaves; excluding 0 is being significant.
	 * [-inf, inf] when too few runs bound it (compare_is_bounded()); a
	 * point for an exact metric. */
	double change_low, change_high;
	double interval_confidence;
	/* The test behind p_value, to set the interval at another level:
	 * its estimate on its own scale (the log ratio, or on values that
	 * are not all positive the raw difference, scaled by `level`), its
	 * standard error and degrees of freedom (0: no test ran). */
	struct metric_test {
		double difference, se, df, level;
		bool log_scale;
		/* Paired runs judged by Wilcoxon's signed-rank test
		 * (stats_signed_rank()) rather than a t-test: the per-pair
		 * log ratios, owned, from which the interval is set at any
		 * level; NULL otherwise. */
		double *pairs;
		size_t pairs_nr;
	} test;
	/* How the change and its interval were estimated, in words (a
	 * static string; NULL: not tested). The change, its interval and
	 * the p-value all come from that one method. */
	const char *method;
	double p_value;			/* raw two-sided, of the test chosen */
	double p_adjusted;		/* after Benjamini-Hochberg */
	size_t n_tested_baseline;	/* values the test saw: per-run */
	size_t n_tested_candidate;	/* medians for pooled samples */
	double n_eff_baseline, n_eff_candidate;
	double threshold; /* practical threshold used */
	double noise;	  /* historical robust CV, 0: unknown */
	enum verdict verdict;
	char *note; /* why, for failed/skipped/missing, and one_value's */
	/* A failed case's log, as its result gives it (relative to the
	 * result file); NULL for none. */
	char *log;
	/* The metric's role (result.h: speed, size, accuracy), NULL for
	 * none: an accuracy's difference reads in percentage points. */
	char *role;
	/* A side holds a single independent value (an imported summary,
	 * result.h's metric_samples.independent == 1): no test can be made,
	 * the threshold alone decides, and the note says "judged from one
	 * value". Not in the comparison document; the note is. */
	bool one_value;
};

/* Inside one result: each variant against the reference variant
 * (result->reference, "original" by default), in the columns the metrics'
 * roles say (speed, size, accuracy; a result without roles: the metric
 * "latency" or the first timing one, and those whose names hold "size"
 * and "accuracy"). */
struct variant_comparison {
	char *benchmark, *device, *variant;
	char *against; /* the reference variant */
	double speedup; /* time(reference) / time(variant) */
	double speedup_low, speedup_high;
	char *speed_metric;    /* the metric the speed-up is of */
	double size_ratio;     /* NAN when no size metric */
	double accuracy_delta; /* NAN when no accuracy metric */
	/* The same three in the baseline, the same variant against the same
	 * reference on the same metrics: where the variant was before the
	 * change ("15.3x -> 3.95x"). NAN where the baseline lacks them. */
	double baseline_speedup, baseline_size_ratio, baseline_accuracy_delta;
};

struct comparison_side {
	char commit[41];
	char machine[65];
	char *source; /* auto, ref, file, baselines, none */
	char *path;   /* the result file, may be NULL */
};

struct comparison {
	enum verdict_overall {
		OVERALL_PASS,
		OVERALL_REGRESSION,
		OVERALL_FAILED
	} overall;
	char *suite;
	double confidence;
	struct comparison_side baseline, candidate;
	struct metric_comparison *items;
	size_t nr, alloc;
	struct variant_comparison *variants;
	size_t variants_nr, variants_alloc;
	size_t counts[VERDICT_COUNT];
	/* A case with a baseline, or the comparison's level, was judged at
	 * a COMPARE_*_DEFAULT because no override was given and neither
	 * result records the setting (both written before benchgate
	 * recorded them): the command says so. Not in the document. */
	bool settings_defaulted;
};

const char *overall_name(enum verdict_overall overall);

/* Whether the gate counts mc (counts[], the overall verdict, a report's
 * failures): every item but those of a metric with gate: false, whose
 * verdict is information; a failed or skipped case counts whatever its
 * metrics. */
bool compare_item_gated(const struct metric_comparison *mc);

/* The historical noise (robust CV of the metric's medians over recent
 * baseline-branch results) of a case and metric; 0 when unknown. */
typedef double (*compare_noise_fn)(const char *benchmark, const char *variant,
				   const char *device, const char *metric,
				   void *payload);

/* The gate's settings where neither the command line nor a suite sets
 * them. */
#define COMPARE_THRESHOLD_DEFAULT  0.03
#define COMPARE_CONFIDENCE_DEFAULT 0.99

struct compare_options {
	/* The command line's overrides of the settings the results record
	 * (--threshold, --confidence); < 0: none. Read them through
	 * compare_threshold() and compare_confidence(). */
	double threshold;
	double confidence;
	double noise_k;		   /* <= 0: compare_noise_k() */
	compare_noise_fn noise;	   /* optional */
	void *noise_payload;
	uint64_t seed; /* bootstrap seed; 0: a fixed one */
	/* The baseline was measured in this session (check
	 * --baseline-tree): a baseline case that failed is a failure of
	 * this run, not a stored result missing. */
	bool baseline_measured;
};

/*
 * The default k of the practical threshold k x noise: the two-sided
 * `confidence` quantile of the normal distribution times sqrt(2), 3.64 at
 * 0.99. The noise is the spread of one result's median over the history;
 * a comparison sees the difference of two such medians, which spreads
 * sqrt(2) times as much, so a change within k x noise is what two results
 * of an unchanged commit differ by at that confidence. This is what keeps
 * run-to-run drift of the machine (invisible inside one result's runs)
 * from failing the gate once the metric has a history.
 */
double compare_noise_k(double confidence);

/* Adaptive sampling accepts a significant change only from this many
 * tested values per side (see compare_is_decided()). */
#define COMPARE_MIN_DECISIVE_RUNS 10

void compare_options_init(struct compare_options *opts);

/*
 * The gate's settings, the one place where the command line's overrides
 * meet the settings the suite resolved for a case, which the result
 * records (result_case.threshold, .confidence): the override when set,
 * else the recorded setting of `recorded` (may be NULL), else
 * COMPARE_*_DEFAULT. compare_results() reads the candidate's case, or
 * the baseline's when the candidate's records none, and the level of the
 * whole comparison (its FDR family spans every benchmark) from the
 * results' "confidence" the same way. docs/gate-settings.md.
 */
double compare_threshold(const struct compare_options *opts,
			 const struct result_case *recorded);
double compare_confidence(const struct compare_options *opts,
			  const struct result_case *recorded);

/*
 * Compares candidate against baseline (NULL: no baseline yet, every metric
 * is `new`) and adds the variant comparisons of the candidate. The caller
 * owns *out (comparison_free()). Fills the sides' commit and machine; the
 * caller sets their `source`.
 */
int compare_results(struct comparison **out, const struct result *baseline,
		    const struct result *candidate,
		    const struct compare_options *opts);

/*
 * The statistics of one metric on its own (no FDR adjustment, which needs
 * every metric): fills the summaries, change, interval, p-value, effective
 * sizes. runs_* are the measured runs that produced the samples (0: one
 * sample per run). Used by compare_results(), adaptive sampling and the
 * detection benchmark.
 */
void compare_metric_stats(struct metric_comparison *mc, const double *base,
			  size_t nbase, size_t runs_base, const double *cand,
			  size_t ncand, size_t runs_cand, double confidence,
			  uint64_t seed);

/* Decides mc->verdict from its statistics, mc->threshold and its
 * interval: significant when the interval excludes no change. */
void compare_decide(struct metric_comparison *mc);

/* Whether mc has an interval that bounds its change: a test ran and its
 * interval is finite. Reports say "too few runs to bound" otherwise. */
bool compare_is_bounded(const struct metric_comparison *mc);

/* Whether more samples could still change mc's verdict: false once the
 * change interval lies wholly beyond the threshold (and the test is
 * significant) or wholly within it. Drives adaptive sampling. */
bool compare_is_decided(const struct metric_comparison *mc);

/* Whether every non-exact metric of cand is decided against base (see
 * compare_is_decided()) at this threshold and confidence: adaptive sampling
 * in `check` stops such a case early. False when base has no such case.
 * paired: base is the twin measured next to cand in every round (check
 * --baseline-tree), compared pair by pair over the rounds both have. */
bool compare_case_decided(const struct result_case *base,
			  const struct result_case *cand, double threshold,
			  double confidence, bool paired);

/*
 * The runs of a case measured beside its baseline twin (an interleaved
 * session), as the paired test sees them: log(cand_i / base_i) of each
 * round both completed, run i's value the median of its samples, into
 * *out (free it). Returns the number of pairs: 0 (and *out NULL) when
 * either side lacks the metric or did not end ok, its values are not all
 * positive, or its samples do not split into runs. bisect classifies a
 * commit from these.
 */
size_t compare_run_log_ratios(const struct result_case *base,
			      const struct result_case *cand,
			      const char *metric, double **out);

/* The method string (metric_comparison.method) of that text, NULL when
 * it names none: a comparison document read back points to the same. */
const char *compare_method_named(const char *text);

/* Frees what compare_metric_stats() allocated inside mc (its test's
 * pairs); mc itself is the caller's. */
void compare_metric_release(struct metric_comparison *mc);

void comparison_free(struct comparison *comparison);

/* The "benchgate_comparison": 1 document of DESIGN.md, and back: len bytes
 * of text, no NUL needed after them. BG_EINPUT with "path:line:col:
 * key.path: what was expected" (jsonread.h) when it is not one. */
void comparison_to_json(const struct comparison *comparison,
			struct strbuf *out);
int comparison_parse(struct comparison **out, const char *text, size_t len,
		     const char *path);

/*
 * What `report` reads from path: a comparison document into *out, or a
 * result file into *result, compared with nothing into *out (every metric
 * `new`, with the variant comparison; the candidate's path is path, the
 * base of its artifact links). The caller frees both, also after an error
 * (NULL when not made). BG_EINPUT when the file parses as neither.
 */
int comparison_read(struct comparison **out, struct result **result,
		    const char *path);

#endif
