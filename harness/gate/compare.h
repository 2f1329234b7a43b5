/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_COMPARE_H
#define BENCHGATE_COMPARE_H

#include "harness/gate/stats.h"
#include "harness/model/comparison.h"
#include "harness/model/result.h"
#include "harness/util/json.h"
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
 *   the runs are clearly autocorrelated (drift: the lag-1 autocorrelation
 *   of their ranks, so that a burst over two runs is not drift), each
 *   side's variance is inflated as an AR(1)'s mean's is (to at most n / 2,
 *   at least 2 effective values) and the degrees of freedom shrink by the
 *   variance's equivalent degrees of freedom, separately and smoothly
 *   (compare.c, "How the runs' dependence is judged"); drift between
 *   sessions is the practical threshold's to absorb (below), and where
 *   no history gives one and the baseline was measured in another
 *   session, a significant change of clearly drifting runs is named only
 *   beyond what each side taken as one value could explain, inconclusive
 *   otherwise (compare.c, "Drift without a history");
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
 *   worse / better direction (and, for drifting runs without a history,
 *   beyond the one-value bound above); unchanged: the interval within
 *   the threshold; inconclusive otherwise;
 * - exact metrics (accuracy, size) compare medians against the absolute
 *   tolerance, without statistics;
 * - a metric with "gate": false (result.h) gets its verdict like any other,
 *   which reports show as "not gated", but neither counts[] nor the
 *   overall verdict counts it (compare_item_gated()).
 */

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
 * tested values per side (see compare_is_decided()), and from twice _ALONE
 * of both sides together when neither a history nor a shared session
 * (paired_runs) bounds the noise between the sessions (compare.c, "Drift
 * without a history"). */
#define COMPARE_MIN_DECISIVE_RUNS	10
#define COMPARE_MIN_DECISIVE_RUNS_ALONE 20

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
 * --baseline-tree), compared pair by pair over the rounds both have.
 * history (may be NULL: none): its noise function says whether a history
 * bounds the noise between the sessions (compare.c, "Drift without a
 * history"), and raises the threshold to noise_k x that noise where it is
 * larger, as compare_results() does: the case is decided exactly when
 * its comparison would be. */
bool compare_case_decided(const struct result_case *base,
			  const struct result_case *cand, double threshold,
			  double confidence, bool paired,
			  const struct compare_options *history);

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

/* The "benchgate_comparison": 1 document of DESIGN.md, and back: len bytes
 * of text, no NUL needed after them. BG_EINPUT with "path:line:col:
 * key.path: what was expected" (jsonread.h) when it is not one. */
void comparison_to_json(const struct comparison *comparison,
			struct strbuf *out);

/*
 * The same text piece by piece, for a file_producer (fileio.h): so that
 * `compare --json` writes the document as it is made rather than holding
 * all of it (70 MB for 20,000 cases). comparison_json_piece() appends the
 * next piece to out, a few hundred comparisons at most, and returns
 * whether more follow; ctx is the struct comparison_json_pieces that
 * comparison_json_pieces_init() set up.
 */
struct comparison_json_pieces {
	const struct comparison *comparison;
	struct json_writer writer;
	int stage;
	size_t next;
};

void comparison_json_pieces_init(struct comparison_json_pieces *pieces,
				 const struct comparison *comparison);
bool comparison_json_piece(void *ctx, struct strbuf *out);
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
