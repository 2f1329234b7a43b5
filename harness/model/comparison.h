/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_COMPARISON_H
#define BENCHGATE_COMPARISON_H

#include "harness/model/result.h"
#include "harness/model/stats_summary.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * A comparison of a candidate result with a baseline, metric by metric, as
 * data: what the gate decided (harness/gate/compare.h makes it, by the rule
 * written there) and what every report reads (reporters/report.h). The
 * "benchgate_comparison": 1 document of DESIGN.md is its JSON form
 * (comparison_to_json(), comparison_parse() in compare.h).
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
	double change; /* relative, candidate vs baseline */
	/* Each side's value as the change's own estimator sees it, what the
	 * reports show beside the change, so that the two always agree:
	 * the geometric means (Welch), the 20 % trimmed geometric means
	 * (Yuen), the (trimmed) means of values not all positive; for paired
	 * runs the baseline's median and that times 1 + change; the medians
	 * where no test ran (exact metrics, a side of one value). */
	double centre_baseline, centre_candidate;
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
	double p_value;		   /* raw two-sided, of the test chosen */
	double p_adjusted;	   /* after Benjamini-Hochberg */
	size_t n_tested_baseline;  /* values the test saw: per-run */
	size_t n_tested_candidate; /* medians for pooled samples */
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
	/* The runs of a side of an independent comparison clearly drift
	 * (compare.c, "Drift without a history"): the standard deviation of
	 * the difference of the two sides, each taken as one value of its
	 * runs' whole spread, on the test's scale; 0 when the runs were not
	 * seen to drift, or were paired. Set by compare_metric_stats(). */
	double session_spread;
	/* compare_decide() found the change significant and large, but the
	 * runs drift, no history bounds the noise between sessions (noise
	 * 0) and the baseline was not measured in the candidate's session
	 * (paired_runs false), and the change is within what session_spread
	 * could explain: inconclusive, and compare_results() says why in the
	 * note. In the comparison document as "session_unbounded": true. */
	bool session_unbounded;
};

/* Inside one result: each variant against the reference variant
 * (result->reference, "original" by default), in the columns the metrics'
 * roles say (speed, size, accuracy; a result without roles: the metric
 * "latency" or the first timing one, and those whose names hold "size"
 * and "accuracy"). */
struct variant_comparison {
	char *benchmark, *device, *variant;
	char *against;	/* the reference variant */
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

/* Whether two items are of one case: the same benchmark, variant and
 * device (a NULL name reads as ""). A case's items lie one after another
 * in a comparison. */
bool metric_comparison_same_case(const struct metric_comparison *a,
				 const struct metric_comparison *b);

/* Frees what compare_metric_stats() allocated inside mc (its test's
 * pairs); mc itself is the caller's. */
void compare_metric_release(struct metric_comparison *mc);

/* Frees the comparison and everything it holds; NULL-safe. */
void comparison_free(struct comparison *comparison);

#endif
