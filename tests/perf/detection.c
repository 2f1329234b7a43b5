/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_detection: how well the comparison engine tells regressions from
 * noise, and how it fares against the decision rules of the peers on the
 * same data (tests/perf/README.md).
 *
 * A simulator draws a baseline and a candidate side from a noise model at a
 * coefficient of variation, the candidate slower by a true shift (0 for the
 * A/A pairs that measure false alarms), and every rule decides "regression"
 * or not on the same pair. Everything is deterministic for a seed.
 */
#include "harness/util/alloc.h"
#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/gate/stats.h"
#include "harness/util/strbuf.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The engine as `check` runs it by default (suite.c, settings_init()). */
#define CONFIDENCE 0.99
#define THRESHOLD  0.03
#define MIN_RUNS   5
#define MAX_RUNS   30

/* The peers' defaults, as their code and documentation give them. */
#define RATIO_DEFAULT	2.0  /* github-action-benchmark: 200 % */
#define PERCENT_DEFAULT 0.05 /* a Bencher percentage threshold */
#define WELCH_ALPHA	(1 - CONFIDENCE)

/* Noise model parameters, fixed before looking at any result. */
#define BIMODAL_SLOW 0.3   /* share of runs in the slow clock state */
#define BIMODAL_GAP  2.0   /* distance of the modes, in CVs */
#define OUTLIER_RATE 0.075 /* share of runs hit by an outlier */
#define OUTLIER_MIN  0.3   /* outliers add 30 to 100 % of the mean */
#define OUTLIER_MAX  1.0
#define DRIFT_PHI    0.85 /* lag-1 autocorrelation of drifting runs */

enum model {
	MODEL_NORMAL,
	MODEL_LOGNORMAL,
	MODEL_BIMODAL,
	MODEL_HEAVY,
	MODEL_DRIFT,
	MODEL_COUNT
};

static const char *const model_names[MODEL_COUNT] = {
	"normal", "log-normal", "bimodal", "heavy-tailed", "drift",
};

static const double cvs[] = { 0.01, 0.02, 0.05, 0.10 };
#define CV_COUNT (sizeof(cvs) / sizeof(*cvs))

/* shifts[0] must stay 0: the A/A pairs. */
static const double shifts[] = { 0, 0.02, 0.05, 0.10, 0.20 };
#define SHIFT_COUNT (sizeof(shifts) / sizeof(*shifts))

/* RULE_SESSION is benchgate with the baseline measured in the candidate's
 * session (check --baseline-tree): see draw_session().
 * RULE_HISTORY is benchgate once the metric has a history: the threshold
 * grows to compare_noise_k() times the spread of BASELINE_HISTORY earlier
 * results' medians when that is more than THRESHOLD (compare.h). */
enum rule {
	RULE_BENCHGATE,
	RULE_RATIO,
	RULE_PERCENT,
	RULE_WELCH,
	RULE_HISTORY,
	RULE_SESSION,
	RULE_COUNT
};

/* Box-Muller, one value per call: simple and exact enough here. */
static double rng_normal(struct stats_rng *rng)
{
	double radius = sqrt(-2 * log(stats_rng_uniform(rng)));

	return radius * cos(2 * M_PI * stats_rng_uniform(rng));
}

/* Student's t with 3 degrees of freedom, variance 3. */
static double rng_student3(struct stats_rng *rng)
{
	double chi2 = 0;

	for (int i = 0; i < 3; i++) {
		double z = rng_normal(rng);

		chi2 += z * z;
	}
	return rng_normal(rng) / sqrt(chi2 / 3);
}

/* Noise models: n runs of one side, mean 1 (before the shift), CV cv */

static double draw_bimodal(struct stats_rng *rng, double cv)
{
	/* Modes gap * cv apart around the mean 1; the spread within a mode
	 * makes up the rest of the variance so the total CV is cv. */
	double gap = BIMODAL_GAP * cv;
	double between = BIMODAL_SLOW * (1 - BIMODAL_SLOW) * gap * gap;
	double within = sqrt(cv * cv - between);
	double mode = stats_rng_uniform(rng) <= BIMODAL_SLOW
			      ? 1 + (1 - BIMODAL_SLOW) * gap
			      : 1 - BIMODAL_SLOW * gap;

	return mode + within * rng_normal(rng);
}

static double draw_heavy(struct stats_rng *rng, double cv)
{
	double core;

	/* A run is never much faster than the work it does: a t(3) tail
	 * below half the mean is drawn again. */
	do {
		core = 1 + cv * rng_student3(rng) / sqrt(3);
	} while (core <= 0.5);
	if (stats_rng_uniform(rng) <= OUTLIER_RATE)
		core += OUTLIER_MIN +
			(OUTLIER_MAX - OUTLIER_MIN) * stats_rng_uniform(rng);
	return core;
}

static void draw_side(struct stats_rng *rng, enum model model, double cv,
		      double scale, double *out, size_t n)
{
	double sigma = sqrt(log(1 + cv * cv));
	double drift = cv * rng_normal(rng); /* the machine's state at start */

	for (size_t i = 0; i < n; i++) {
		double x;

		switch (model) {
		case MODEL_NORMAL:
			x = 1 + cv * rng_normal(rng);
			break;
		case MODEL_LOGNORMAL:
			x = exp(sigma * rng_normal(rng) - sigma * sigma / 2);
			break;
		case MODEL_BIMODAL:
			x = draw_bimodal(rng, cv);
			break;
		case MODEL_HEAVY:
			x = draw_heavy(rng, cv);
			break;
		default: /* MODEL_DRIFT: stationary AR(1) of sd cv */
			if (i)
				drift = DRIFT_PHI * drift +
					cv * sqrt(1 - DRIFT_PHI * DRIFT_PHI) *
						rng_normal(rng);
			x = 1 + drift;
			break;
		}
		out[i] = scale * x;
	}
}

/*
 * A baseline build measured in the candidate's session: one run of the
 * model's series of 2n runs after another, dealt out as the runner
 * alternates rounds (baseline, candidate; candidate, baseline; ...), the
 * candidate's slower by `scale`. For the models of independent runs this
 * is two independent sides again; for drift, both sides share the
 * session's machine state, which is the point.
 */
static void draw_session(struct stats_rng *rng, enum model model, double cv,
			 double scale, double *base, double *cand, size_t n)
{
	double series[2 * MAX_RUNS];

	draw_side(rng, model, cv, 1, series, 2 * n);
	for (size_t round = 0; round < n; round++) {
		bool base_first = round % 2 == 0;

		base[round] = series[2 * round + !base_first];
		cand[round] = scale * series[2 * round + base_first];
	}
}

/* The peers' rules */

/* P(T > t) for Student's t with df degrees of freedom. */
static double student_upper_tail(double t, double df)
{
	double tail = 0.5 * stats_t_two_sided(t, df);

	return t >= 0 ? tail : 1 - tail;
}

/*
 * Welch's t-test, one-sided towards a slower candidate: the probability of a
 * mean difference this large or larger were the means equal. Doubling it
 * gives the two-sided p-value when the candidate is slower.
 */
static double welch_p_slower(const double *base, size_t nbase,
			     const double *cand, size_t ncand)
{
	double vb = stats_stddev(base, nbase), vc = stats_stddev(cand, ncand);
	double se2, df, t;

	vb = vb * vb / (double)nbase;
	vc = vc * vc / (double)ncand;
	se2 = vb + vc;
	if (!(se2 > 0))
		return 0.5;
	t = (stats_mean(cand, ncand) - stats_mean(base, nbase)) / sqrt(se2);
	df = se2 * se2 /
	     (vb * vb / (double)(nbase - 1) + vc * vc / (double)(ncand - 1));
	return student_upper_tail(t, df);
}

/* The engine */

/* `paired`: run i of each side ran next to the other (draw_session()). */
static bool engine_decide_runs(struct metric_comparison *mc, const double *base,
			       size_t nbase, const double *cand, size_t ncand,
			       bool paired)
{
	memset(mc, 0, sizeof(*mc));
	mc->better = BETTER_LOWER;
	mc->paired_runs = paired;
	compare_metric_stats(mc, base, nbase, nbase, cand, ncand, ncand,
			     CONFIDENCE, 1);
	mc->threshold = THRESHOLD;
	compare_decide(mc);
	return mc->verdict == VERDICT_REGRESSION;
}

static bool engine_decide(struct metric_comparison *mc, const double *base,
			  size_t nbase, const double *cand, size_t ncand)
{
	return engine_decide_runs(mc, base, nbase, cand, ncand, false);
}

/* The verdict again at another threshold, on the same statistics. */
static bool engine_redecide(struct metric_comparison *mc, double threshold)
{
	mc->threshold = threshold;
	compare_decide(mc);
	return mc->verdict == VERDICT_REGRESSION;
}

/* The threshold the engine would use with BASELINE_HISTORY earlier results
 * of n runs each (baseline_noise() and compare_results()); *noise: the
 * history's noise, which compare_results() gives the comparison too. */
static double history_threshold(struct stats_rng *rng, enum model model,
				double cv, size_t n, double *noise)
{
	double medians[BASELINE_HISTORY], runs[MAX_RUNS];
	double threshold;

	for (size_t i = 0; i < BASELINE_HISTORY; i++) {
		draw_side(rng, model, cv, 1, runs, n);
		medians[i] = stats_median(runs, n);
	}
	*noise = stats_robust_cv(medians, BASELINE_HISTORY);
	threshold = compare_noise_k(CONFIDENCE) * *noise;
	return threshold > THRESHOLD ? threshold : THRESHOLD;
}

/*
 * Sampling one run at a time, baseline and candidate in turn from MIN_RUNS
 * each, asking the engine after every run whether more could change its
 * verdict; base and cand hold MAX_RUNS runs of which a prefix is used.
 */
static bool engine_adaptive(const double *base, const double *cand,
			    unsigned *runs)
{
	struct metric_comparison mc;
	size_t nbase = MIN_RUNS, ncand = MIN_RUNS;
	bool regression;

	for (;;) {
		regression = engine_decide(&mc, base, nbase, cand, ncand);
		if (compare_is_decided(&mc) ||
		    (nbase == MAX_RUNS && ncand == MAX_RUNS))
			break;
		if (nbase <= ncand)
			nbase++;
		else
			ncand++;
	}
	*runs = (unsigned)(nbase + ncand);
	return regression;
}

/* The simulation */

struct pair {
	bool alarm[RULE_COUNT];	  /* each rule at its default */
	double mean_ratio;	  /* of the ratio and percentage rules */
	double welch_p;		  /* welch_p_slower() */
	double history_threshold; /* of RULE_HISTORY */
	bool dependent;		  /* runs counted as fewer */
	/* Adaptive sampling, for the first opts.adaptive_pairs pairs. */
	bool adaptive_alarm, fixed_alarm;
	unsigned adaptive_runs;
};

/* Detection at benchgate's false-alarm rate (calibrate()). */
enum calibrated {
	CAL_BENCHGATE,
	CAL_MEAN_RATIO,
	CAL_WELCH,
	CAL_COUNT
};

struct cell {
	enum model model;
	size_t cv, shift;
	struct pair *pairs;
	size_t nr, adaptive_nr;
	double calibrated[CAL_COUNT];	 /* % of pairs */
	double ratio_bound, welch_bound; /* A/A cells: the peers' bounds */
};

struct options {
	size_t pairs, adaptive_pairs, runs, jobs;
	uint64_t seed;
	const char *out;
};

static void simulate_pair(struct pair *pair, struct stats_rng *rng,
			  struct stats_rng *session_rng,
			  const struct cell *cell, const struct options *opts,
			  bool adaptive)
{
	double base[MAX_RUNS], cand[MAX_RUNS];
	double cv = cvs[cell->cv];
	size_t n = opts->runs;
	struct metric_comparison mc;

	draw_session(session_rng, cell->model, cv, 1 + shifts[cell->shift],
		     base, cand, n);
	pair->alarm[RULE_SESSION] =
		engine_decide_runs(&mc, base, n, cand, n, true);
	compare_metric_release(&mc); /* the signed-rank test's pairs */

	draw_side(rng, cell->model, cv, 1, base, MAX_RUNS);
	draw_side(rng, cell->model, cv, 1 + shifts[cell->shift], cand,
		  MAX_RUNS);

	pair->mean_ratio = stats_mean(cand, n) / stats_mean(base, n);
	pair->welch_p = welch_p_slower(base, n, cand, n);
	pair->alarm[RULE_BENCHGATE] = engine_decide(&mc, base, n, cand, n);
	pair->dependent = mc.n_eff_baseline < (double)n;
	pair->alarm[RULE_RATIO] = pair->mean_ratio >= RATIO_DEFAULT;
	pair->alarm[RULE_PERCENT] = pair->mean_ratio > 1 + PERCENT_DEFAULT;
	pair->alarm[RULE_WELCH] = 2 * pair->welch_p < WELCH_ALPHA;
	pair->history_threshold =
		history_threshold(rng, cell->model, cv, n, &mc.noise);
	pair->alarm[RULE_HISTORY] =
		engine_redecide(&mc, pair->history_threshold);
	if (!adaptive)
		return;
	pair->fixed_alarm = engine_decide(&mc, base, MAX_RUNS, cand, MAX_RUNS);
	pair->adaptive_alarm =
		engine_adaptive(base, cand, &pair->adaptive_runs);
}

static void simulate_cell(struct cell *cell, const struct options *opts)
{
	uint64_t cell_seed = opts->seed ^ (((uint64_t)cell->model << 16) |
					   (cell->cv << 8) | cell->shift);
	struct stats_rng rng, session_rng;

	/* One stream per cell, so a cell's pairs do not depend on how many
	 * pairs the other cells draw; and one of its own for the
	 * same-session pairs, so adding them changed no other figure. */
	stats_rng_seed(&rng, cell_seed);
	stats_rng_seed(&session_rng, cell_seed ^ 0x5e5510a5e5510a5ULL);
	cell->nr = opts->pairs;
	cell->adaptive_nr = opts->adaptive_pairs < opts->pairs
				    ? opts->adaptive_pairs
				    : opts->pairs;
	cell->pairs = xcalloc(cell->nr, sizeof(*cell->pairs));
	for (size_t i = 0; i < cell->nr; i++)
		simulate_pair(&cell->pairs[i], &rng, &session_rng, cell, opts,
			      i < cell->adaptive_nr);
}

/* Cells are independent and each has its own random stream, so threads
 * taking them in any order give the same numbers. */
struct pool {
	pthread_mutex_t lock;
	struct cell *cells;
	size_t nr, next;
	const struct options *opts;
};

static void *pool_work(void *payload)
{
	struct pool *pool = payload;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&pool->lock);
		i = pool->next++;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->nr)
			return NULL;
		simulate_cell(&pool->cells[i], pool->opts);
	}
}

static void simulate_all(struct cell *cells, size_t nr,
			 const struct options *opts)
{
	struct pool pool = { .cells = cells, .nr = nr, .opts = opts };
	pthread_t *threads = xcalloc(opts->jobs, sizeof(*threads));
	size_t started = 0;

	pthread_mutex_init(&pool.lock, NULL);
	while (started + 1 < opts->jobs &&
	       !pthread_create(&threads[started], NULL, pool_work, &pool))
		started++;
	pool_work(&pool);
	while (started)
		pthread_join(threads[--started], NULL);
	pthread_mutex_destroy(&pool.lock);
	free(threads);
}

static struct cell *cell_at(struct cell *cells, enum model model, size_t cv,
			    size_t shift)
{
	return &cells[((size_t)model * CV_COUNT + cv) * SHIFT_COUNT + shift];
}

/* Rates */

static size_t alarm_count(const struct cell *cell, enum rule rule)
{
	size_t alarms = 0;

	for (size_t i = 0; i < cell->nr; i++)
		alarms += cell->pairs[i].alarm[rule];
	return alarms;
}

/* In % of the cell's pairs. */
static double alarm_rate(const struct cell *cell, enum rule rule)
{
	return 100.0 * (double)alarm_count(cell, rule) / (double)cell->nr;
}

/*
 * A peer rule is "statistic beyond a bound". Its calibrated bound lets
 * through exactly as many A/A pairs as benchgate raised alarms on (ties
 * aside): the peer gets benchgate's false-alarm rate, measured in-sample,
 * which flatters the peer if anything.
 */
enum statistic {
	STAT_MEAN_RATIO,
	STAT_WELCH
};

static double statistic_of(const struct pair *pair, enum statistic stat)
{
	/* Larger is more alarming for both. */
	return stat == STAT_MEAN_RATIO ? pair->mean_ratio : -pair->welch_p;
}

static int compare_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/* The bound that lets through `alarms` of the A/A pairs of null_cells. */
static double calibrated_bound(struct cell *const *null_cells, size_t cells,
			       enum statistic stat, size_t alarms)
{
	size_t nr = 0, at = 0;
	double *values, bound;

	for (size_t c = 0; c < cells; c++)
		nr += null_cells[c]->nr;
	values = xcalloc(nr, sizeof(*values));
	for (size_t c = 0; c < cells; c++)
		for (size_t i = 0; i < null_cells[c]->nr; i++)
			values[at++] =
				statistic_of(&null_cells[c]->pairs[i], stat);
	qsort(values, nr, sizeof(*values), compare_desc);
	bound = values[alarms < nr ? alarms : nr - 1];
	free(values);
	return bound;
}

static double rate_beyond(const struct cell *cell, enum statistic stat,
			  double bound)
{
	size_t alarms = 0;

	for (size_t i = 0; i < cell->nr; i++)
		alarms += statistic_of(&cell->pairs[i], stat) > bound;
	return 100.0 * (double)alarms / (double)cell->nr;
}

/* Report */

static void add_rates(struct strbuf *out, const double *rates, size_t nr)
{
	strbuf_addstr(out, " |");
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(out, "%s%.1f", i ? " / " : " ", rates[i]);
}

/* "| model | CV ...lead... | A/A | 2 % slower | ... |" and the rule below
 * it, for a table of lead_cols columns then one per shift from first. */
static void add_head(struct strbuf *out, const char *lead, size_t lead_cols,
		     size_t first)
{
	strbuf_addstr(out, lead);
	for (size_t s = first; s < SHIFT_COUNT; s++)
		if (s)
			strbuf_addf(out, " | %g %% slower", shifts[s] * 100);
		else
			strbuf_addstr(out, " | A/A (false alarms)");
	strbuf_addstr(out, " |\n|");
	for (size_t i = 0; i < lead_cols + SHIFT_COUNT - first; i++)
		strbuf_addstr(out, "---|");
	strbuf_addch(out, '\n');
}

static void add_row_rates(struct strbuf *out, struct cell *cells, int model,
			  size_t cv, const enum rule *rules, size_t nr)
{
	for (size_t s = 0; s < SHIFT_COUNT; s++) {
		double rates[RULE_COUNT];

		for (size_t r = 0; r < nr; r++)
			rates[r] = alarm_rate(cell_at(cells, model, cv, s),
					      rules[r]);
		add_rates(out, rates, nr);
	}
	strbuf_addstr(out, " |\n");
}

/* A row per model and CV, a column per shift, each cell the rules' rates. */
static void add_rules_table(struct strbuf *out, struct cell *cells,
			    const enum rule *rules, size_t nr)
{
	add_head(out, "| model | CV", 2, 0);
	for (int m = 0; m < MODEL_COUNT; m++)
		for (size_t c = 0; c < CV_COUNT; c++) {
			strbuf_addf(out, "| %s | %g %%", model_names[m],
				    cvs[c] * 100);
			add_row_rates(out, cells, m, c, rules, nr);
		}
}

static void report_defaults(struct strbuf *out, struct cell *cells)
{
	static const enum rule rules[] = { RULE_BENCHGATE, RULE_RATIO,
					   RULE_PERCENT, RULE_WELCH };

	strbuf_addstr(out, "\n### Each rule at its default\n\n"
			   "Regression verdicts in % of pairs; each cell reads "
			   "**benchgate / ratio 2.0 / 5 % / Welch**.\n\n");
	add_rules_table(out, cells, rules, sizeof(rules) / sizeof(*rules));
}

static double median_history_threshold(const struct cell *cell)
{
	double *values = xcalloc(cell->nr, sizeof(*values)), median;

	for (size_t i = 0; i < cell->nr; i++)
		values[i] = cell->pairs[i].history_threshold;
	median = stats_median(values, cell->nr);
	free(values);
	return median;
}

static void report_history(struct strbuf *out, struct cell *cells)
{
	static const enum rule rules[] = { RULE_BENCHGATE, RULE_HISTORY };

	strbuf_addf(out,
		    "\n### benchgate once the metric has a history\n\n"
		    "`check` raises the threshold to %.2f x the robust CV of "
		    "the medians of up to %d earlier results when that is "
		    "more than %g %%; here %d earlier results of the same "
		    "model, drawn per pair. Cells read **no history / "
		    "history**.\n\n",
		    compare_noise_k(CONFIDENCE), BASELINE_HISTORY,
		    THRESHOLD * 100, BASELINE_HISTORY);
	add_head(out, "| model | CV | median threshold", 3, 0);
	for (int m = 0; m < MODEL_COUNT; m++)
		for (size_t c = 0; c < CV_COUNT; c++) {
			strbuf_addf(out, "| %s | %g %% | %.1f %%",
				    model_names[m], cvs[c] * 100,
				    100 * median_history_threshold(
						  cell_at(cells, m, c, 0)));
			add_row_rates(out, cells, m, c, rules,
				      sizeof(rules) / sizeof(*rules));
		}
}

static void report_session(struct strbuf *out, struct cell *cells)
{
	static const enum rule rules[] = { RULE_BENCHGATE, RULE_SESSION };

	strbuf_addstr(
		out,
		"\n### benchgate with the baseline measured in the "
		"same session\n\n`check --baseline-tree DIR` runs "
		"the baseline tree next to the candidate, the order "
		"alternating every round, and compares the runs pair "
		"by pair when they rise and fall together; no "
		"history, threshold as configured. For the models of independent runs the "
		"pairs are drawn alike (other draws, the same "
		"distribution); for drift both sides share the "
		"session's machine state. Cells read **stored baseline, "
		"no history / same session**.\n\n");
	add_rules_table(out, cells, rules, sizeof(rules) / sizeof(*rules));
}

/* Sets every peer's bound on each A/A cell and reads all rules' detection
 * at those bounds. */
static void calibrate(struct cell *cells)
{
	for (int m = 0; m < MODEL_COUNT; m++)
		for (size_t c = 0; c < CV_COUNT; c++) {
			struct cell *null_cell = cell_at(cells, m, c, 0);
			size_t alarms = alarm_count(null_cell, RULE_BENCHGATE);

			null_cell->ratio_bound = calibrated_bound(
				&null_cell, 1, STAT_MEAN_RATIO, alarms);
			null_cell->welch_bound = calibrated_bound(
				&null_cell, 1, STAT_WELCH, alarms);
			for (size_t s = 0; s < SHIFT_COUNT; s++) {
				struct cell *cell = cell_at(cells, m, c, s);

				cell->calibrated[CAL_BENCHGATE] =
					alarm_rate(cell, RULE_BENCHGATE);
				cell->calibrated[CAL_MEAN_RATIO] =
					rate_beyond(cell, STAT_MEAN_RATIO,
						    null_cell->ratio_bound);
				cell->calibrated[CAL_WELCH] =
					rate_beyond(cell, STAT_WELCH,
						    null_cell->welch_bound);
			}
		}
}

static void report_calibrated(struct strbuf *out, struct cell *cells)
{
	strbuf_addstr(out,
		      "\n### At benchgate's false-alarm rate\n\n"
		      "Each peer's bound tuned on the A/A pairs of the same "
		      "model and CV so that it raises as many false alarms as "
		      "benchgate did there. The ratio 2.0 and 5 % rules "
		      "become the same rule (a bound on the ratio of means), "
		      "shown as *mean ratio*. Cells read **benchgate / "
		      "mean ratio / Welch**.\n\n");
	add_head(out,
		 "| model | CV | false alarms | mean ratio bound | "
		 "Welch alpha",
		 5, 1);
	for (int m = 0; m < MODEL_COUNT; m++)
		for (size_t c = 0; c < CV_COUNT; c++) {
			const struct cell *null_cell = cell_at(cells, m, c, 0);

			strbuf_addf(out,
				    "| %s | %g %% | %.2f %% | +%.2f %% | "
				    "%.2g",
				    model_names[m], cvs[c] * 100,
				    null_cell->calibrated[CAL_BENCHGATE],
				    (null_cell->ratio_bound - 1) * 100,
				    -2 * null_cell->welch_bound);
			for (size_t s = 1; s < SHIFT_COUNT; s++)
				add_rates(out,
					  cell_at(cells, m, c, s)->calibrated,
					  CAL_COUNT);
			strbuf_addstr(out, " |\n");
		}
}

static double percent(size_t part, size_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : NAN;
}

/*
 * One bound per model, as a user configures a peer: tuned so that over all
 * A/A pairs of the model, whatever their CV, the peer raises as many false
 * alarms as benchgate did. Detection is then pooled over the model's CVs
 * and the shifts beyond benchgate's threshold (5 % and up).
 */
#define FIRST_JUDGED_SHIFT 2

struct model_calibration {
	double false_alarms; /* benchgate's, % of A/A pairs */
	double ratio_bound, welch_bound;
	double detection[CAL_COUNT]; /* % of shifted pairs, all CVs */
	double by_cv[CV_COUNT][CAL_COUNT];
	/* Shifted pairs only benchgate detected, only the peer did. */
	size_t gate_only[CAL_COUNT], peer_only[CAL_COUNT];
};

static void rates_beyond(const struct cell *cell, struct model_calibration *cal,
			 size_t *hits)
{
	for (size_t i = 0; i < cell->nr; i++) {
		const struct pair *pair = &cell->pairs[i];
		bool alarm[CAL_COUNT] = {
			[CAL_BENCHGATE] = pair->alarm[RULE_BENCHGATE],
			[CAL_MEAN_RATIO] = statistic_of(pair, STAT_MEAN_RATIO) >
					   cal->ratio_bound,
			[CAL_WELCH] = statistic_of(pair, STAT_WELCH) >
				      cal->welch_bound,
		};

		for (size_t k = 0; k < CAL_COUNT; k++) {
			hits[k] += alarm[k];
			cal->gate_only[k] += alarm[CAL_BENCHGATE] && !alarm[k];
			cal->peer_only[k] += alarm[k] && !alarm[CAL_BENCHGATE];
		}
	}
}

static void calibrate_model(struct model_calibration *cal, struct cell *cells,
			    enum model model)
{
	struct cell *null_cells[CV_COUNT];
	size_t alarms = 0, pairs = 0, hits[CAL_COUNT] = { 0 }, shifted = 0;

	memset(cal, 0, sizeof(*cal));
	for (size_t c = 0; c < CV_COUNT; c++) {
		null_cells[c] = cell_at(cells, model, c, 0);
		alarms += alarm_count(null_cells[c], RULE_BENCHGATE);
		pairs += null_cells[c]->nr;
	}
	cal->false_alarms = 100.0 * (double)alarms / (double)pairs;
	cal->ratio_bound =
		calibrated_bound(null_cells, CV_COUNT, STAT_MEAN_RATIO, alarms);
	cal->welch_bound =
		calibrated_bound(null_cells, CV_COUNT, STAT_WELCH, alarms);
	for (size_t c = 0; c < CV_COUNT; c++) {
		size_t cv_hits[CAL_COUNT] = { 0 }, cv_shifted = 0;

		for (size_t s = FIRST_JUDGED_SHIFT; s < SHIFT_COUNT; s++) {
			const struct cell *cell = cell_at(cells, model, c, s);

			rates_beyond(cell, cal, cv_hits);
			cv_shifted += cell->nr;
		}
		for (size_t k = 0; k < CAL_COUNT; k++) {
			cal->by_cv[c][k] = percent(cv_hits[k], cv_shifted);
			hits[k] += cv_hits[k];
		}
		shifted += cv_shifted;
	}
	for (size_t k = 0; k < CAL_COUNT; k++)
		cal->detection[k] = percent(hits[k], shifted);
}

/* How often the engine counted the runs of A/A pairs as dependent. */
static void report_dependence(struct strbuf *out, struct cell *cells)
{
	strbuf_addstr(out, "\n### Runs counted as dependent\n\n"
			   "A/A pairs whose runs the engine counted as fewer "
			   "independent values (pooled lag-1 autocorrelation "
			   "clearly positive), % of pairs, all CVs.\n\n"
			   "| model | counted as dependent |\n|---|---|\n");
	for (int m = 0; m < MODEL_COUNT; m++) {
		size_t dependent = 0, pairs = 0;

		for (size_t c = 0; c < CV_COUNT; c++) {
			const struct cell *cell = cell_at(cells, m, c, 0);

			for (size_t i = 0; i < cell->nr; i++)
				dependent += cell->pairs[i].dependent;
			pairs += cell->nr;
		}
		strbuf_addf(out, "| %s | %.1f %% |\n", model_names[m],
			    percent(dependent, pairs));
	}
}

static void report_per_model(struct strbuf *out, struct cell *cells)
{
	strbuf_addstr(out,
		      "\n### At benchgate's false-alarm rate, one bound "
		      "per model\n\n"
		      "As a user sets a peer's threshold: once, not knowing "
		      "the CV. Each peer's bound tuned so that over all A/A "
		      "pairs of the model it raises as many false alarms as "
		      "benchgate did there; detection of the 5, 10 and 20 % "
		      "shifts. Cells read **benchgate / mean ratio / "
		      "Welch**.\n\n"
		      "| model | false alarms | mean ratio bound | Welch alpha "
		      "| CV 1 % | CV 2 % | CV 5 % | CV 10 % | all CVs |\n"
		      "|---|---|---|---|---|---|---|---|---|\n");
	for (int m = 0; m < MODEL_COUNT; m++) {
		struct model_calibration cal;

		calibrate_model(&cal, cells, m);
		strbuf_addf(out, "| %s | %.2f %% | +%.2f %% | %.2g",
			    model_names[m], cal.false_alarms,
			    (cal.ratio_bound - 1) * 100, -2 * cal.welch_bound);
		for (size_t c = 0; c < CV_COUNT; c++)
			add_rates(out, cal.by_cv[c], CAL_COUNT);
		add_rates(out, cal.detection, CAL_COUNT);
		strbuf_addstr(out, " |\n");
	}
}

/* Adaptive sampling against the fixed plan of MAX_RUNS per side, and the
 * default fixed plan of opts.runs ("short") against the same. */
struct adaptive_summary {
	size_t pairs, agree, agree_short, early;
	size_t aa_pairs, aa_adaptive, aa_fixed, aa_short;     /* false alarms */
	size_t hit_pairs, hit_adaptive, hit_fixed, hit_short; /* >= 5 % */
	double median_runs;
};

static void summarize_adaptive(struct adaptive_summary *sum, struct cell *cells,
			       int model)
{
	double *runs = NULL;
	size_t runs_nr = 0, runs_alloc = 0;

	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < MODEL_COUNT * CV_COUNT * SHIFT_COUNT; i++) {
		const struct cell *cell = &cells[i];

		if (model >= 0 && cell->model != (enum model)model)
			continue;
		for (size_t p = 0; p < cell->adaptive_nr; p++) {
			const struct pair *pair = &cell->pairs[p];
			bool adaptive = pair->adaptive_alarm;
			bool fixed = pair->fixed_alarm;
			bool fixed_short = pair->alarm[RULE_BENCHGATE];

			ALLOC_GROW(runs, runs_nr + 1, runs_alloc);
			runs[runs_nr++] = pair->adaptive_runs;
			sum->pairs++;
			sum->agree += adaptive == fixed;
			sum->agree_short += fixed_short == fixed;
			sum->early += pair->adaptive_runs < 2 * MAX_RUNS;
			if (!cell->shift) {
				sum->aa_pairs++;
				sum->aa_adaptive += adaptive;
				sum->aa_fixed += fixed;
				sum->aa_short += fixed_short;
			} else if (shifts[cell->shift] >= 0.05) {
				sum->hit_pairs++;
				sum->hit_adaptive += adaptive;
				sum->hit_fixed += fixed;
				sum->hit_short += fixed_short;
			}
		}
	}
	sum->median_runs = stats_median(runs, runs_nr);
	free(runs);
}

static void report_adaptive(struct strbuf *out, struct cell *cells,
			    const struct options *opts)
{
	strbuf_addf(out,
		    "\n### Adaptive sampling\n\n"
		    "Runs added one at a time (baseline, candidate, ...) from "
		    "%d per side until `compare_is_decided()` or %d per side, "
		    "against the fixed plan of %d runs per side on the same "
		    "runs (and the default fixed plan of %zu, a prefix of "
		    "them). Runs count both sides: the fixed plan takes %d. "
		    "Detection: pairs with a true shift of 5 %% or more.\n\n"
		    "| model | pairs | median runs | of the fixed plan | "
		    "stopped early | adaptive = fixed %d | fixed %zu = fixed "
		    "%d | false alarms adaptive / fixed %d / fixed %zu | "
		    "detection adaptive / fixed %d / fixed %zu |\n"
		    "|---|---|---|---|---|---|---|---|---|\n",
		    MIN_RUNS, MAX_RUNS, MAX_RUNS, opts->runs, 2 * MAX_RUNS,
		    MAX_RUNS, opts->runs, MAX_RUNS, MAX_RUNS, opts->runs,
		    MAX_RUNS, opts->runs);
	for (int m = 0; m <= MODEL_COUNT; m++) {
		struct adaptive_summary sum;
		int model = m < MODEL_COUNT ? m : -1;

		summarize_adaptive(&sum, cells, model);
		strbuf_addf(out,
			    "| %s | %zu | %g | %.0f %% | %.1f %% | "
			    "%.1f %% | %.1f %% | %.2f / %.2f / %.2f %% | "
			    "%.1f / %.1f / %.1f %% |\n",
			    model < 0 ? "**corpus**" : model_names[m],
			    sum.pairs, sum.median_runs,
			    100 * sum.median_runs / (2 * MAX_RUNS),
			    percent(sum.early, sum.pairs),
			    percent(sum.agree, sum.pairs),
			    percent(sum.agree_short, sum.pairs),
			    percent(sum.aa_adaptive, sum.aa_pairs),
			    percent(sum.aa_fixed, sum.aa_pairs),
			    percent(sum.aa_short, sum.aa_pairs),
			    percent(sum.hit_adaptive, sum.hit_pairs),
			    percent(sum.hit_fixed, sum.hit_pairs),
			    percent(sum.hit_short, sum.hit_pairs));
	}
}

/* The targets of the issue, judged on the numbers above */

/* The models where robustness should pay: skewed and with outliers. */
static const enum model judged_models[] = { MODEL_LOGNORMAL, MODEL_BIMODAL,
					    MODEL_HEAVY };
#define JUDGED_MODELS (sizeof(judged_models) / sizeof(*judged_models))

static const char *peer_name(enum calibrated peer)
{
	return peer == CAL_MEAN_RATIO ? "the mean ratio rules" : "Welch";
}

/*
 * Detection at benchgate's false-alarm rate with one bound per model,
 * benchgate against a peer, pooled over the CVs and the shifts beyond
 * benchgate's threshold. Higher means significantly so: McNemar's test on
 * the pairs only one of the two detected, one-sided at 5 %, since both
 * decide on the same pairs and a few tenths of a point are noise.
 */
static void judge_peer(struct strbuf *out, struct cell *cells,
		       enum calibrated peer)
{
	struct strbuf rates = STRBUF_INIT;
	bool lower = false;

	for (size_t k = 0; k < JUDGED_MODELS; k++) {
		struct model_calibration cal;
		double gate, other, z;

		calibrate_model(&cal, cells, judged_models[k]);
		gate = (double)cal.gate_only[peer];
		other = (double)cal.peer_only[peer];
		z = gate + other > 0 ? (gate - other) / sqrt(gate + other) : 0;
		lower |= !(z > 1.645);
		strbuf_addf(&rates,
			    "%s%s %.1f against %.1f %% (McNemar z "
			    "%.1f)",
			    k ? ", " : "", model_names[judged_models[k]],
			    cal.detection[CAL_BENCHGATE], cal.detection[peer],
			    z);
	}
	strbuf_addf(out,
		    "- At equal false alarms (one bound per model), more "
		    "detections than %s on the log-normal, bimodal and "
		    "heavy-tailed models, shifts 5-20 %%: %s: %s.\n",
		    peer_name(peer), lower ? "**missed**" : "**met**",
		    rates.buf);
	strbuf_release(&rates);
}

/* The same cell by cell, each peer's bound tuned on the cell's own A/A
 * pairs: the peer is told the CV, which no configured threshold knows. */
static void judge_peer_per_cell(struct strbuf *out, struct cell *cells,
				enum calibrated peer)
{
	size_t higher = 0, lower = 0, total = 0;
	double gap = 0;
	const char *gap_model = "";
	size_t gap_cv = 0, gap_shift = 0;

	for (size_t k = 0; k < JUDGED_MODELS; k++)
		for (size_t c = 0; c < CV_COUNT; c++)
			for (size_t s = FIRST_JUDGED_SHIFT; s < SHIFT_COUNT;
			     s++) {
				const double *r =
					cell_at(cells, judged_models[k], c, s)
						->calibrated;

				total++;
				higher += r[CAL_BENCHGATE] > r[peer];
				lower += r[CAL_BENCHGATE] < r[peer];
				if (r[peer] - r[CAL_BENCHGATE] > gap) {
					gap = r[peer] - r[CAL_BENCHGATE];
					gap_model =
						model_names[judged_models[k]];
					gap_cv = c;
					gap_shift = s;
				}
			}
	strbuf_addf(out,
		    "- The same per cell, %s told the CV: higher in "
		    "%zu, equal in %zu, lower in %zu of %zu cells",
		    peer_name(peer), higher, total - higher - lower, lower,
		    total);
	if (lower)
		strbuf_addf(out,
			    "; largest shortfall %.1f points (%s, CV "
			    "%g %%, %g %% slower)",
			    gap, gap_model, cvs[gap_cv] * 100,
			    shifts[gap_shift] * 100);
	strbuf_addstr(out, ".\n");
}

/* False alarms of a rule over every model and CV against the 1 % target. */
static void judge_false_alarms(struct strbuf *out, struct cell *cells,
			       enum rule rule, const char *condition)
{
	double worst = 0;
	size_t worst_model = 0, worst_cv = 0, over = 0;

	for (int m = 0; m < MODEL_COUNT; m++)
		for (size_t c = 0; c < CV_COUNT; c++) {
			double rate = alarm_rate(cell_at(cells, m, c, 0), rule);

			over += rate > 1;
			if (rate > worst) {
				worst = rate;
				worst_model = (size_t)m;
				worst_cv = c;
			}
		}
	strbuf_addf(out,
		    "- False alarms <= 1 %% under every model and CV, "
		    "%s: %s: over 1 %% in %zu of %zu cells, worst %.2f %% (%s, "
		    "CV %g %%).\n",
		    condition, over ? "**missed**" : "**met**", over,
		    (size_t)MODEL_COUNT * CV_COUNT, worst,
		    model_names[worst_model], cvs[worst_cv] * 100);
}

/* Of a cell's adaptive pairs, the share that alarmed, in %. */
static double adaptive_rate(const struct cell *cell, bool adaptive)
{
	size_t alarms = 0;

	for (size_t p = 0; p < cell->adaptive_nr; p++)
		alarms += adaptive ? cell->pairs[p].adaptive_alarm
				   : cell->pairs[p].alarm[RULE_BENCHGATE];
	return percent(alarms, cell->adaptive_nr);
}

/*
 * `check` at its defaults samples adaptively where the suite sets no
 * "runs" (docs/gate.md): each cell's false alarms and its detection of
 * 5 % slower with that plan, beside the fixed plan of opts->runs, on the
 * same pairs.
 */
static void report_check_default(struct strbuf *out, struct cell *cells,
				 const struct options *opts)
{
	strbuf_addf(out,
		    "\n### `check` at its defaults (adaptive, %d to %d runs "
		    "a side)\n\n"
		    "The first %zu pairs of each cell. Cells read **adaptive "
		    "/ fixed %zu**, in %% of pairs.\n\n"
		    "| model | CV | A/A (false alarms) | 5 %% slower |\n"
		    "|---|---|---|---|\n",
		    MIN_RUNS, MAX_RUNS, opts->adaptive_pairs, opts->runs);
	for (int m = 0; m < MODEL_COUNT; m++)
		for (size_t c = 0; c < CV_COUNT; c++) {
			const struct cell *aa = cell_at(cells, m, c, 0);
			const struct cell *hit = cell_at(cells, m, c, 2);

			strbuf_addf(out,
				    "| %s | %g %% | %.1f / %.1f | %.1f / %.1f "
				    "|\n",
				    model_names[m], 100 * cvs[c],
				    adaptive_rate(aa, true),
				    adaptive_rate(aa, false),
				    adaptive_rate(hit, true),
				    adaptive_rate(hit, false));
		}
}

static void report_targets(struct strbuf *out, struct cell *cells,
			   const struct options *opts)
{
	struct adaptive_summary corpus;

	strbuf_addstr(out, "\n### Targets\n\n");
	judge_false_alarms(out, cells, RULE_BENCHGATE,
			   "against a stored baseline without history");
	judge_false_alarms(out, cells, RULE_HISTORY,
			   "with the history `check` uses");
	judge_false_alarms(out, cells, RULE_SESSION,
			   "with the baseline measured in the same session");

	for (int m = MODEL_NORMAL; m <= MODEL_LOGNORMAL; m++) {
		double rate =
			alarm_rate(cell_at(cells, m, 1, 2), RULE_BENCHGATE);

		strbuf_addf(out,
			    "- 5 %% slower detected >= 95 %% at CV 2 %%, "
			    "%s: %s: %.1f %%.\n",
			    model_names[m],
			    rate >= 95 ? "**met**" : "**missed**", rate);
	}
	judge_peer(out, cells, CAL_MEAN_RATIO);
	judge_peer(out, cells, CAL_WELCH);
	judge_peer_per_cell(out, cells, CAL_MEAN_RATIO);
	judge_peer_per_cell(out, cells, CAL_WELCH);
	summarize_adaptive(&corpus, cells, -1);
	if (opts->adaptive_pairs)
		strbuf_addf(out,
			    "- Adaptive sampling, median runs <= 60 %% "
			    "of the fixed plan: %s: %.0f %%, the same "
			    "decision as the fixed plan in %.1f %% of "
			    "pairs.\n",
			    corpus.median_runs <= 0.6 * 2 * MAX_RUNS
				    ? "**met**"
				    : "**missed**",
			    100 * corpus.median_runs / (2 * MAX_RUNS),
			    percent(corpus.agree, corpus.pairs));
}

static void report(struct strbuf *out, struct cell *cells,
		   const struct options *opts, double seconds)
{
	strbuf_addf(out,
		    "## Detection quality\n\n"
		    "`bench_detection --pairs %zu --adaptive-pairs %zu "
		    "--runs %zu --seed %llu` (%.0f s). %zu pairs per model, "
		    "CV and shift; %zu runs per side; confidence %g, "
		    "threshold %g %%; one metric per comparison. A rate of "
		    "1 %% over %zu pairs is known to about +-%.1f %% "
		    "(95 %%).\n",
		    opts->pairs, opts->adaptive_pairs, opts->runs,
		    (unsigned long long)opts->seed, seconds, opts->pairs,
		    opts->runs, CONFIDENCE, THRESHOLD * 100, opts->pairs,
		    196 * sqrt(0.01 * 0.99 / (double)opts->pairs));
	report_defaults(out, cells);
	report_calibrated(out, cells);
	report_per_model(out, cells);
	report_history(out, cells);
	report_session(out, cells);
	report_dependence(out, cells);
	if (opts->adaptive_pairs) {
		report_adaptive(out, cells, opts);
		report_check_default(out, cells, opts);
	}
	report_targets(out, cells, opts);
}

/* Command line */

static const char usage[] =
	"usage: bench_detection [--pairs N] [--adaptive-pairs N] [--runs N]\n"
	"                       [--seed N] [--jobs N] [--quick] [--out FILE]\n";

static int parse_size(const char *arg, size_t min, size_t max, size_t *out)
{
	char *end;
	unsigned long long value;

	if (!arg)
		return -1;
	value = strtoull(arg, &end, 10);
	if (*end || end == arg || value < min || value > max)
		return -1;
	*out = (size_t)value;
	return 0;
}

static int parse_options(struct options *opts, int argc, char **argv)
{
	size_t seed = 0;

	opts->pairs = 2000;
	opts->adaptive_pairs = 100;
	opts->runs = 10;
	opts->jobs = (size_t)sysconf(_SC_NPROCESSORS_ONLN);
	opts->seed = 20240601;
	opts->out = NULL;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = argv[i + 1];
		int error = 0;

		if (!strcmp(arg, "--quick")) {
			opts->pairs = 200;
			opts->adaptive_pairs = 20;
			continue;
		} else if (!strcmp(arg, "--pairs")) {
			error = parse_size(value, 10, 1000000, &opts->pairs);
		} else if (!strcmp(arg, "--adaptive-pairs")) {
			error = parse_size(value, 0, 1000000,
					   &opts->adaptive_pairs);
		} else if (!strcmp(arg, "--runs")) {
			error = parse_size(value, 3, MAX_RUNS, &opts->runs);
		} else if (!strcmp(arg, "--jobs")) {
			error = parse_size(value, 1, 256, &opts->jobs);
		} else if (!strcmp(arg, "--seed")) {
			error = parse_size(value, 0, SIZE_MAX, &seed);
			opts->seed = seed;
		} else if (!strcmp(arg, "--out")) {
			opts->out = value;
			error = value ? 0 : -1;
		} else {
			error = -1;
			value = NULL;
		}
		if (error) {
			fprintf(stderr,
				"bench_detection: bad option '%s%s%s'"
				"\n%s",
				arg, value ? " " : "", value ? value : "",
				usage);
			return -1;
		}
		i++;
	}
	if (opts->adaptive_pairs > opts->pairs)
		opts->adaptive_pairs = opts->pairs;
	if (opts->jobs < 1)
		opts->jobs = 1;
	return 0;
}

int main(int argc, char **argv)
{
	size_t cells_nr = MODEL_COUNT * CV_COUNT * SHIFT_COUNT;
	struct cell *cells = xcalloc(cells_nr, sizeof(*cells));
	struct strbuf out = STRBUF_INIT;
	struct options opts;
	struct timespec start, end;
	int status = 0;

	if (parse_options(&opts, argc, argv) < 0)
		return 2;
	for (size_t i = 0; i < cells_nr; i++) {
		cells[i].model = (enum model)(i / (CV_COUNT * SHIFT_COUNT));
		cells[i].cv = i / SHIFT_COUNT % CV_COUNT;
		cells[i].shift = i % SHIFT_COUNT;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	simulate_all(cells, cells_nr, &opts);
	clock_gettime(CLOCK_MONOTONIC, &end);
	calibrate(cells);
	report(&out, cells, &opts,
	       (double)(end.tv_sec - start.tv_sec) +
		       (double)(end.tv_nsec - start.tv_nsec) / 1e9);
	fwrite(out.buf, 1, out.len, stdout);
	if (opts.out && write_file_atomic(opts.out, out.buf, out.len) < 0) {
		fprintf(stderr, "bench_detection: %s\n", bg_error_last());
		status = 1;
	}
	for (size_t i = 0; i < cells_nr; i++)
		free(cells[i].pairs);
	free(cells);
	strbuf_release(&out);
	return status;
}
