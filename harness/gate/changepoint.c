/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/changepoint.h"

#include "harness/gate/pelt.h"
#include "harness/gate/stats.h"
#include "harness/util/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The defaults (docs/evaluation.md, "Change points", says how they fared). */
#define DEFAULT_SIGNIFICANCE 0.001
#define DEFAULT_MIN_CHANGE   0.02
#define DEFAULT_MIN_SEGMENT  4

/* A point further than this many standard deviations from the median of
 * its neighbours (CLIP_HALF_WIDTH on each side) is pulled in to that
 * distance: one bad night moves a side's mean no more than 3 sigma / n. */
#define CLIP_SIGMAS	3.0
#define CLIP_HALF_WIDTH 2

/* Dependence beyond this is taken as this: the variance of a mean is then
 * inflated (1 + r) / (1 - r) = 39 times. */
#define MAX_AUTOCORRELATION 0.95

/* The search's penalty per change, in units of the weighted squared
 * deviations (a chi-square): a split of pure noise gains a chi-square of
 * one degree of freedom at each of its candidate places; PENALTY_SIGMAS^2
 * is what a lone change must gain. */
#define PENALTY_SIGMAS 4.0
/* The dependence of the nights is taken as no more than this, and as the
 * lag-2 jitter ratio less PHI_SLACK / sqrt(n). */
#define MAX_PHI	  0.9
#define PHI_SLACK 1.5
/* A busy night's variance is multiplied by (1 + LOAD_WEIGHT busy)^2. */
#define LOAD_WEIGHT 30.0
/* A series cut into segments shorter than WANDER_SEGMENTS min_segment
 * over more than WANDER_SHARE of its length is wandering
 * (detect_range()). */
#define WANDER_SEGMENTS 3
#define WANDER_SHARE	0.25

/* The variance of the median of n normal values is pi / 2 times that of
 * their mean (asymptotically). */
#define MEDIAN_VARIANCE_FACTOR (M_PI / 2)

void changepoint_options_init(struct changepoint_options *opts)
{
	opts->significance = DEFAULT_SIGNIFICANCE;
	opts->min_change = DEFAULT_MIN_CHANGE;
	opts->min_segment = DEFAULT_MIN_SEGMENT;
}

static void resolve_options(struct changepoint_options *out,
			    const struct changepoint_options *opts)
{
	changepoint_options_init(out);
	if (!opts)
		return;
	if (opts->significance > 0 && opts->significance < 1)
		out->significance = opts->significance;
	if (opts->min_change > 0)
		out->min_change = opts->min_change;
	if (opts->min_segment > 0)
		out->min_segment = opts->min_segment;
}

void changepoint_list_release(struct changepoint_list *list)
{
	free(list->items);
	list->items = NULL;
	list->nr = list->alloc = 0;
}

static double opts_penalty(const struct changepoint_options *opts)
{
	(void)opts;
	return PENALTY_SIGMAS * PENALTY_SIGMAS;
}

static void list_push(struct changepoint_list *list,
		      const struct changepoint *cp)
{
	ALLOC_GROW(list->items, list->nr + 1, list->alloc);
	list->items[list->nr++] = *cp;
}

/*
 * The measured points of a series (NaN medians left out), with what the
 * tests need of each: raw[i] the median, within[i] the variance of that
 * median from the point's own samples (NAN for a point without them), and
 * index[i] its position in the caller's series.
 */
struct series {
	size_t nr;
	size_t *index;
	double *raw;
	double *logs; /* log(raw), NAN where raw <= 0 */
	double *within;
	double *busy; /* the input's busy, 0 where not positive */
};

/* The finite samples' variance of the median, scratch holding n. */
static double finite_median_variance(const double *samples, size_t nr,
				     double *scratch)
{
	size_t n = 0;
	double mad;

	for (size_t i = 0; i < nr; i++)
		if (isfinite(samples[i]))
			scratch[n++] = samples[i];
	if (n < 2)
		return NAN;
	mad = stats_mad_scaled(scratch, n);
	return MEDIAN_VARIANCE_FACTOR * mad * mad / (double)n;
}

double changepoint_median_variance(const double *samples, size_t n)
{
	double *scratch = xmalloc((n ? n : 1) * sizeof(*scratch));
	double variance = finite_median_variance(samples, n, scratch);

	free(scratch);
	return variance;
}

static double median_variance(const struct changepoint_input *point,
			      double *scratch)
{
	if (!point->samples)
		return point->variance_known ? point->variance : NAN;
	return finite_median_variance(point->samples, point->n, scratch);
}

static void series_build(struct series *s,
			 const struct changepoint_input *points, size_t nr)
{
	size_t most = 0;
	double *scratch;

	for (size_t i = 0; i < nr; i++)
		if (points[i].samples && points[i].n > most)
			most = points[i].n;
	scratch = xmalloc((most ? most : 1) * sizeof(*scratch));
	s->index = xmalloc((nr ? nr : 1) * sizeof(*s->index));
	s->raw = xmalloc((nr ? nr : 1) * sizeof(*s->raw));
	s->logs = xmalloc((nr ? nr : 1) * sizeof(*s->logs));
	s->within = xmalloc((nr ? nr : 1) * sizeof(*s->within));
	s->busy = xmalloc((nr ? nr : 1) * sizeof(*s->busy));
	s->nr = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!isfinite(points[i].median))
			continue;
		s->index[s->nr] = i;
		s->raw[s->nr] = points[i].median;
		s->logs[s->nr] = points[i].median > 0 ? log(points[i].median)
						      : NAN;
		s->within[s->nr] = median_variance(&points[i], scratch);
		s->busy[s->nr] = points[i].busy > 0 && isfinite(points[i].busy)
					 ? points[i].busy
					 : 0;
		s->nr++;
	}
	free(scratch);
}

static void series_release(struct series *s)
{
	free(s->index);
	free(s->raw);
	free(s->logs);
	free(s->within);
	free(s->busy);
}

/*
 * What a segment [a, b) of the series looks like to the test: its values
 * (logarithms when every median in it is positive, so that a change is
 * relative, as timings are), outliers clipped, and each point's variance
 * from its own samples. Everything is computed from the segment alone,
 * which is what lets changepoint_append() examine only the end. Prefix
 * sums make the test at any split O(1).
 */
struct segment {
	size_t a, b;
	bool logs;
	double centre;	 /* subtracted from the values before summing */
	double *value;	 /* clipped values less centre, b - a of them */
	double *sum;	 /* prefix sums of value, b - a + 1 of them */
	double *squares; /* of value^2 */
	double *lagged; /* lagged[i]: sum of value[j] value[j + 1], j + 1 < i */
	double *within; /* of the points' own variances */
	double mean_within;
	double jitter; /* point-to-point variance, segment_jitter() */
};

static double point_value(const struct series *s, size_t i, bool logs)
{
	return logs ? s->logs[i] : s->raw[i];
}

/* The variance of the point's value from its own samples: by the delta
 * method, var(log m) = var(m) / m^2. */
static double point_within(const struct series *s, size_t i, bool logs)
{
	return logs ? s->within[i] / (s->raw[i] * s->raw[i]) : s->within[i];
}

/* Insertion sort: the window has at most 2 CLIP_HALF_WIDTH + 1 values. */
static double median_of_window(const double *v, size_t n, double *scratch)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		for (; j > 0 && scratch[j - 1] > v[i]; j--)
			scratch[j] = scratch[j - 1];
		scratch[j] = v[i];
	}
	return n % 2 ? scratch[n / 2]
		     : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/*
 * The point-to-point noise of [a, b) for telling outliers: the MAD of
 * differences `lag` points apart / sqrt 2, which a level shift barely moves
 * (the standard deviation when ties leave a MAD of 0). Pairs with a busy
 * point are left out while enough quiet ones remain.
 */
static double range_jitter(const struct series *s, size_t a, size_t b,
			   bool logs, size_t lag)
{
	size_t n = b - a, nd = 0;
	double *diffs, mad, total;

	if (n < lag + 2)
		return 0;
	diffs = xmalloc(n * sizeof(*diffs));
	for (int pass = 0; pass < 2 && nd < (n - lag) / 2; pass++) {
		nd = 0;
		for (size_t i = a; i + lag < b; i++)
			if (pass || (!s->busy[i] && !s->busy[i + lag]))
				diffs[nd++] = point_value(s, i + lag, logs) -
					      point_value(s, i, logs);
	}
	mad = stats_mad_scaled(diffs, nd);
	total = mad * mad / 2;
	if (!(total > 0)) {
		double sd = stats_stddev(diffs, nd);

		total = sd * sd / 2;
	}
	free(diffs);
	return total;
}

/* Pulls each value of [a, a + n) to within CLIP_SIGMAS of the median of
 * its window of 2 CLIP_HALF_WIDTH + 1 points, into value[0..n). The
 * window's median keeps a step's edge where it is (two or three points on
 * each side of it), so only isolated outliers move. The window takes the
 * nearest quiet points (not busy: series.busy) while there are enough of
 * them: a burst of busy nights is not the level its neighbours are
 * pulled to. */
static void clip_values(const struct series *s, size_t a, size_t n, bool logs,
			double jitter, double *value)
{
	size_t width = 2 * CLIP_HALF_WIDTH + 1 < n ? 2 * CLIP_HALF_WIDTH + 1
						   : n;
	size_t *quiet = xmalloc((n ? n : 1) * sizeof(*quiet)), nq = 0, q = 0;
	double raw[2 * CLIP_HALF_WIDTH + 1], scratch[2 * CLIP_HALF_WIDTH + 1];

	for (size_t i = 0; i < n; i++)
		if (!s->busy[a + i])
			quiet[nq++] = i;
	if (nq < width) {
		for (size_t i = 0; i < n; i++)
			quiet[i] = i;
		nq = n;
	}
	for (size_t i = 0; i < n; i++) {
		double w = point_within(s, a + i, logs);
		double centre,
			sigma = sqrt(isfinite(w) && w > jitter ? w : jitter);
		size_t lo;

		/* q: the first quiet point at or after i */
		while (q < nq && quiet[q] < i)
			q++;
		lo = q >= CLIP_HALF_WIDTH ? q - CLIP_HALF_WIDTH : 0;
		/* the window keeps its width at the ends, shifted inward:
		 * truncated, two bad nights among the last four would be
		 * half of it */
		if (lo + width > nq)
			lo = nq - width;
		for (size_t j = lo; j < lo + width; j++)
			raw[j - lo] = point_value(s, a + quiet[j], logs);
		centre = median_of_window(raw, width, scratch);
		value[i] = point_value(s, a + i, logs);
		if (!(sigma > 0))
			continue;
		if (value[i] > centre + CLIP_SIGMAS * sigma)
			value[i] = centre + CLIP_SIGMAS * sigma;
		else if (value[i] < centre - CLIP_SIGMAS * sigma)
			value[i] = centre - CLIP_SIGMAS * sigma;
	}
	free(quiet);
}

static double segment_jitter(const struct segment *seg, const struct series *s)
{
	return range_jitter(s, seg->a, seg->b, seg->logs, 1);
}

static void segment_clip(struct segment *seg, const struct series *s)
{
	clip_values(s, seg->a, seg->b - seg->a, seg->logs, seg->jitter,
		    seg->value);
}

static void segment_init(struct segment *seg, const struct series *s, size_t a,
			 size_t b)
{
	size_t n = b - a, known = 0;

	seg->a = a;
	seg->b = b;
	seg->logs = true;
	for (size_t i = a; i < b; i++)
		if (!(s->raw[i] > 0))
			seg->logs = false;
	seg->value = xmalloc(n * sizeof(*seg->value));
	seg->sum = xmalloc((n + 1) * sizeof(*seg->sum));
	seg->squares = xmalloc((n + 1) * sizeof(*seg->squares));
	seg->lagged = xmalloc((n + 1) * sizeof(*seg->lagged));
	seg->within = xmalloc((n + 1) * sizeof(*seg->within));
	seg->jitter = segment_jitter(seg, s);
	segment_clip(seg, s);
	/* Centred on the first value, the sums of squares keep their
	 * precision for values far from 0 (logarithms of 1e15). */
	seg->centre = seg->value[0];
	seg->mean_within = 0;
	for (size_t i = a; i < b; i++) {
		double w = point_within(s, i, seg->logs);

		if (isfinite(w)) {
			seg->mean_within += w;
			known++;
		}
	}
	seg->mean_within = known ? seg->mean_within / (double)known : 0;
	seg->sum[0] = seg->squares[0] = seg->lagged[0] = seg->within[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double v = seg->value[i] - seg->centre;
		double w = point_within(s, a + i, seg->logs);

		seg->value[i] = v;
		seg->sum[i + 1] = seg->sum[i] + v;
		seg->squares[i + 1] = seg->squares[i] + v * v;
		seg->lagged[i + 1] =
			seg->lagged[i] + (i ? seg->value[i - 1] * v : 0);
		seg->within[i + 1] =
			seg->within[i] + (isfinite(w) ? w : seg->mean_within);
	}
}

static void segment_release(struct segment *seg)
{
	free(seg->value);
	free(seg->sum);
	free(seg->squares);
	free(seg->lagged);
	free(seg->within);
}

/* The test at one split: k is the first point of the right side,
 * relative to the segment's start. */
struct split {
	size_t from, k, to; /* the windows [from, k) and [k, to) */
	double difference, se, t, df;
};

/*
 * The test of "the two sides have one level" at split k. Each point's
 * value varies as tau^2 + w_i: w_i the variance of its median from its own
 * samples, tau^2 the commit-to-commit variance, estimated as the pooled
 * variance of the points around their side's mean beyond the mean w_i
 * (never below 0). So w_i is a floor under a point's variance, a noisy
 * point counts for more variance, and a series of one value per point is
 * tested on the spread of its values alone, as Student's t. The pooled
 * spread also takes in what a level-shift model does not explain, slow
 * wander and trends, which keeps those from being cut into steps.
 */
/* The sum of (v_j - mean)(v_{j+1} - mean) over the pairs in [from, to). */
static double lagged_residuals(const struct segment *seg, size_t from,
			       size_t to, double mean)
{
	if (to - from < 2)
		return 0;
	return seg->lagged[to] - seg->lagged[from + 1] -
	       mean * (seg->sum[to - 1] - seg->sum[from] + seg->sum[to] -
		       seg->sum[from + 1]) +
	       (double)(to - from - 1) * mean * mean;
}

/*
 * The test at split k between the windows [from, k) and [k, to) of the
 * segment (relative indices).
 */
static bool split_at(const struct segment *seg, size_t from, size_t k,
		     size_t to, double beat, struct split *out)
{
	size_t n = to - from;
	double nl = (double)(k - from), nr = (double)(to - k);
	double left = (seg->sum[k] - seg->sum[from]) / nl;
	double right = (seg->sum[to] - seg->sum[k]) / nr;
	double ss = seg->squares[k] - seg->squares[from] - nl * left * left +
		    seg->squares[to] - seg->squares[k] - nr * right * right;
	double pooled = n > 2 && ss > 0 ? ss / (double)(n - 2) : 0;
	double tau2, r = 0, inflation, vl, vr;
	bool fitted = !(ss > 1e-12 * (seg->squares[to] - seg->squares[from]));

	/* A few points can sit closer together than the series ever does
	 * (ties, a calm week): no window is taken as quieter than the
	 * segment's point-to-point jitter. */
	if (pooled < seg->jitter)
		pooled = seg->jitter;
	tau2 = pooled > seg->mean_within ? pooled - seg->mean_within : 0;

	/* The discount for dependence only lowers |t|, and a normal-equivalent
	 * z is below |t|: a split that cannot beat `beat` even without it is
	 * not worth the rest (most splits of a long segment). */
	if (beat >= 0) {
		double var =
			(nl * tau2 + seg->within[k] - seg->within[from]) /
				(nl * nl) +
			(nr * tau2 + seg->within[to] - seg->within[k]) /
				(nr * nr);
		double d = right - left;

		/* |d| / se <= beat, without the square root */
		if (var > 0 && d * d <= beat * beat * var)
			return false;
	}

	/* Dependence: the lag-1 autocorrelation of the residuals, corrected
	 * for its small-sample bias as compare.c does; only a positive one
	 * counts, and it inflates the commit-to-commit part (AR(1)).
	 * The rounding errors left by a perfect fit say nothing of it. */
	if (!fitted && n > 4) {
		r = (lagged_residuals(seg, from, k, left) +
		     lagged_residuals(seg, k, to, right)) /
		    ss;
		r += (1 + 4 * r) / (double)n;
	}
	if (r < 0)
		r = 0;
	if (r > MAX_AUTOCORRELATION)
		r = MAX_AUTOCORRELATION;
	inflation = (1 + r) / (1 - r);
	vl = nl * tau2 * inflation + seg->within[k] - seg->within[from];
	vr = nr * tau2 * inflation + seg->within[to] - seg->within[k];

	out->from = from;
	out->k = k;
	out->to = to;
	out->difference = right - left;
	out->se = sqrt(vl / (nl * nl) + vr / (nr * nr));
	out->df = (double)n / inflation - 2;
	if (out->df < 1)
		out->df = 1;
	if (out->se > 0)
		out->t = out->difference / out->se;
	else
		out->t = out->difference > 0   ? INFINITY
			 : out->difference < 0 ? -INFINITY
					       : 0;
	return true;
}

/*
 * A normal deviate equivalent to the split's t at its degrees of freedom,
 * sqrt((df - 1/2) log(1 + t^2 / df)) (after Wallace 1959): increasing in
 * |t| and close enough across degrees of freedom to rank the candidates,
 * for a fraction of the cost of the exact p-value, which only the chosen
 * split needs.
 */
static double split_z(const struct split *split)
{
	double df = split->df > 1 ? split->df : 1;

	if (!isfinite(split->t))
		return INFINITY;
	return sqrt((df - 0.5) * log1p(split->t * split->t / df));
}

/* The p-value of a split, uncorrected. */
static double split_p(const struct split *split)
{
	return isfinite(split->t) ? stats_t_two_sided(split->t, split->df) : 0;
}

/*
 * The best test at split k over the window half-widths 4 min_segment,
 * 16 min_segment, 64 min_segment ... and the whole segment: local windows
 * keep the other changes of a long segment out of the test, the whole
 * segment gives the most power to a lone change. *scales is how many
 * were tried. Returns the best's split_z(), `beat` when none beat it (then
 * *best is untouched); beat < 0 tries them all.
 */
static double split_best_scale(const struct segment *seg, size_t min_segment,
			       size_t k, double beat, struct split *best,
			       size_t *scales)
{
	size_t n = seg->b - seg->a, last_from = 0, last_to = 0;
	double best_z = beat;

	*scales = 0;
	for (size_t half = 4 * min_segment;; half *= 4) {
		bool whole = half >= n;
		size_t from = whole || k < half ? 0 : k - half;
		size_t to = whole || k + half > n ? n : k + half;
		struct split split = { 0 };

		/* A scale whose window the segment's ends cut to the last
		 * one's is the same test: counted (the correction paid for
		 * it), not made again. */
		(*scales)++;
		if (*scales > 1 && from == last_from && to == last_to) {
			if (whole)
				break;
			continue;
		}
		last_from = from;
		last_to = to;
		if (split_at(seg, from, k, to, best_z, &split) &&
		    split_z(&split) > best_z) {
			*best = split;
			best_z = split_z(&split);
		}
		if (whole)
			break;
	}
	return best_z;
}

static double corrected_p(const struct split *split, size_t candidates)
{
	double p = split_p(split);

	p *= (double)candidates;
	return p < 1 ? p : 1;
}

/*
 * The change at series position `at` tested as the binary segmentation of
 * earlier versions tested it, within [prev, next) alone: each point's
 * variance tau^2 + w_i with tau^2 the window's pooled variance beyond the
 * points' own, inflated for the residuals' lag-1 autocorrelation, at the
 * best of the window scales, Bonferroni-corrected for the candidate
 * splits and scales. A smooth or wandering stretch fails it: its
 * residuals drift together.
 */
static double local_p(const struct series *s, size_t prev, size_t at,
		      size_t next, const struct changepoint_options *opts)
{
	struct segment seg;
	struct split split = { 0 };
	size_t scales, candidates = 0;
	double p;

	segment_init(&seg, s, prev, next);
	split_best_scale(&seg, opts->min_segment, at - prev, -1, &split,
			 &scales);
	if (next - prev + 1 > 2 * opts->min_segment)
		candidates = (next - prev + 1 - 2 * opts->min_segment) * scales;
	if (!candidates)
		candidates = 1;
	p = corrected_p(&split, candidates);
	segment_release(&seg);
	return p;
}

/*
 * The noise of a whole series, which the search of any stretch of it
 * takes (so that changepoint_append() searching the end finds what a
 * search of that end alone would): in logarithms when every median is
 * positive; `tau2` the commit-to-commit variance beyond the points' own,
 * `within` the typical point's own variance (for points without samples),
 * `phi` the lag-1 autocorrelation of the commit-to-commit noise. The
 * jitter J (variance of successive differences / 2, robust: MAD) is
 * tau2 (1 - phi) + within, and the ratio of the jitter at lag 2 to that at
 * lag 1 is 1 + phi for AR(1) nights; both barely move at a step.
 */
struct noise {
	bool logs;
	double jitter;
	double tau2;
	double within;
	double phi;
};

static void noise_estimate(struct noise *out, const struct series *s)
{
	double *known = xmalloc((s->nr ? s->nr : 1) * sizeof(*known));
	double lag2;
	size_t nk = 0;

	out->logs = true;
	for (size_t i = 0; i < s->nr; i++)
		if (!(s->raw[i] > 0))
			out->logs = false;
	for (size_t i = 0; i < s->nr; i++) {
		double w = point_within(s, i, out->logs);

		if (isfinite(w))
			known[nk++] = w;
	}
	out->within = nk ? stats_median(known, nk) : 0;
	free(known);
	out->jitter = range_jitter(s, 0, s->nr, out->logs, 1);
	lag2 = range_jitter(s, 0, s->nr, out->logs, 2);
	out->phi = 0;
	/* the ratio's own noise is some 1.2 / sqrt(n): a short series
	 * shows no dependence it cannot show beyond that */
	if (out->jitter > 0 && s->nr >= 20)
		out->phi = lag2 / out->jitter - 1 -
			   PHI_SLACK / sqrt((double)s->nr);
	if (!(out->phi > 0))
		out->phi = 0;
	if (out->phi > MAX_PHI)
		out->phi = MAX_PHI;
	out->tau2 = (out->jitter - out->within) / (1 - out->phi);
	if (!(out->tau2 > 0))
		out->tau2 = 0;
}

/* A busy night's variance is multiplied by this. */
static double load_factor(double busy)
{
	return (1 + LOAD_WEIGHT * busy) * (1 + LOAD_WEIGHT * busy);
}

/*
 * The values of series positions [from, from + n) as the search and the
 * tests take them, into x (clipped: clip_values()), and the weight of each,
 * u_i = 1 / v_i, v_i = (tau2 (1 + phi) / (1 - phi) + w_i) times the busy
 * night's factor: what a point is worth to a level's mean when nights
 * drift together, its own noise (its samples' or else the typical
 * point's), and the machine's load.
 */
static void range_weights(const struct series *s, size_t from, size_t n,
			  const struct noise *noise, double *x, double *u)
{
	double shared = noise->tau2 * (1 + noise->phi) / (1 - noise->phi);

	clip_values(s, from, n, noise->logs, noise->jitter, x);
	for (size_t i = 0; i < n; i++) {
		double w = point_within(s, from + i, noise->logs);
		double v = shared + (isfinite(w) ? w : noise->within);

		if (!(v > 0))
			v = noise->jitter;
		u[i] = 1 / (v * load_factor(s->busy[from + i]));
	}
}

/*
 * The candidate change points of series positions [from, to): the
 * segmentation that minimises the weighted squared deviations of the
 * points from their segment's level (range_weights()) plus a penalty per
 * change (PELT, Killick et al. 2012: exact, with its pruning), segments of
 * min_segment points or more. Positions (absolute) into *splits,
 * ascending.
 */
static void propose(const struct series *s, size_t from, size_t to,
		    const struct noise *noise,
		    const struct changepoint_options *opts, size_t **splits,
		    size_t *nsplits)
{
	size_t n = to - from;
	double *x, *u;

	*splits = NULL;
	*nsplits = 0;
	if (n < 2 * opts->min_segment || !(noise->jitter > 0))
		return;
	x = xmalloc(n * sizeof(*x));
	u = xmalloc(n * sizeof(*u));
	range_weights(s, from, n, noise, x, u);
	*nsplits = pelt_search(x, u, n, opts->min_segment, opts_penalty(opts),
			       splits);
	for (size_t j = 0; j < *nsplits; j++)
		(*splits)[j] += from;
	free(x);
	free(u);
}

/*
 * The numbers of the change point at series position `at` between the
 * segments [prev, at) and [at, next): the levels are the segments'
 * medians; the test compares the weighted means of the two segments'
 * values (range_weights()), z = difference / sqrt(1 / U_left +
 * 1 / U_right), its two-sided p-value multiplied by the places a change
 * could have taken in [prev, next) (Bonferroni); the interval is
 * log(after / before) (after - before, relative to |before|, for values
 * not all positive) plus or minus the normal quantile at the significance
 * times that standard error.
 */
static void describe(struct changepoint *cp, const struct series *s,
		     size_t prev, size_t at, size_t next,
		     const struct noise *noise, bool strict,
		     const struct changepoint_options *opts)
{
	size_t n = next - prev, places = 1;
	double *x = xmalloc(n * sizeof(*x)), *u = xmalloc(n * sizeof(*u));
	double ul = 0, xl = 0, ur = 0, xr = 0, d, se, margin, p;

	range_weights(s, prev, n, noise, x, u);
	for (size_t i = 0; i < n; i++) {
		if (prev + i < at) {
			ul += u[i];
			xl += u[i] * (x[i] - x[0]);
		} else {
			ur += u[i];
			xr += u[i] * (x[i] - x[0]);
		}
	}
	se = sqrt(1 / ul + 1 / ur);
	d = xr / ur - xl / ul;
	if (n + 1 > 2 * opts->min_segment)
		places = n + 1 - 2 * opts->min_segment;
	p = se > 0 ? erfc(fabs(d / se) / M_SQRT2) : d != 0 ? 0 : 1;
	p *= (double)places;
	if (strict) {
		double local = local_p(s, prev, at, next, opts);

		if (local > p)
			p = local;
	}
	cp->p = p < 1 ? p : 1;
	cp->before = stats_median(s->raw + prev, at - prev);
	cp->after = stats_median(s->raw + at, next - at);
	cp->index = s->index[at];
	margin = stats_normal_quantile(1 - opts->significance / 2) * se;
	if (noise->logs) {
		d = log(cp->after / cp->before);
		cp->change = cp->after / cp->before - 1;
		cp->change_lo = exp(d - margin) - 1;
		cp->change_hi = exp(d + margin) - 1;
	} else {
		double scale = fabs(cp->before);

		d = cp->after - cp->before;
		cp->change = d / scale;
		cp->change_lo = (d - margin) / scale;
		cp->change_hi = (d + margin) / scale;
	}
	free(x);
	free(u);
}

/* found[j], the change point at splits[j] between its neighbours. */
static void describe_at(struct changepoint *found, const struct series *s,
			const size_t *splits, size_t nsplits, size_t j,
			size_t from, size_t to, const struct noise *noise,
			bool strict, const struct changepoint_options *opts)
{
	describe(&found[j], s, j ? splits[j - 1] : from, splits[j],
		 j + 1 < nsplits ? splits[j + 1] : to, noise, strict, opts);
}

static bool keeps(const struct changepoint *cp,
		  const struct changepoint_options *opts)
{
	return cp->p < opts->significance &&
	       !(fabs(cp->change) < opts->min_change);
}

/*
 * Takes out of splits[0..*nsplits) (found[] their numbers), one at a time
 * and the weakest first, the splits that do not hold between their final
 * neighbours: too small a change, or not significant. What is left is
 * each change point's own test against the levels on either side of it.
 */
static void confirm(struct changepoint *found, size_t *splits,
		    size_t *nsplits, const struct series *s, size_t from,
		    size_t to, const struct noise *noise, bool strict,
		    const struct changepoint_options *opts)
{
	size_t nr = *nsplits;

	for (size_t j = 0; j < nr; j++)
		describe_at(found, s, splits, nr, j, from, to, noise, strict,
			    opts);
	for (;;) {
		size_t weakest = nr;

		for (size_t j = 0; j < nr; j++) {
			if (keeps(&found[j], opts))
				continue;
			if (weakest == nr || found[j].p > found[weakest].p ||
			    (found[j].p == found[weakest].p &&
			     fabs(found[j].change) <
				     fabs(found[weakest].change)))
				weakest = j;
		}
		if (weakest == nr)
			break;
		memmove(splits + weakest, splits + weakest + 1,
			(nr - weakest - 1) * sizeof(*splits));
		memmove(found + weakest, found + weakest + 1,
			(nr - weakest - 1) * sizeof(*found));
		nr--;
		/* only the two that had it for a neighbour change */
		if (weakest > 0)
			describe_at(found, s, splits, nr, weakest - 1, from, to,
				    noise, strict, opts);
		if (weakest < nr)
			describe_at(found, s, splits, nr, weakest, from, to,
				    noise, strict, opts);
	}
	*nsplits = nr;
}

/*
 * The share of [from, to) that lies in segments shorter than
 * WANDER_SEGMENTS min_segment between the splits.
 */
static double short_share(const size_t *splits, size_t nsplits, size_t from,
			  size_t to, const struct changepoint_options *opts)
{
	size_t in_short = 0, start = from;

	for (size_t j = 0; j <= nsplits; j++) {
		size_t end = j < nsplits ? splits[j] : to;

		if (end - start < WANDER_SEGMENTS * opts->min_segment)
			in_short += end - start;
		start = end;
	}
	return to > from ? (double)in_short / (double)(to - from) : 0;
}

/*
 * The change points of series positions [from, to) into out (appended):
 * propose()'s candidates, each confirmed by the test of its two segments
 * (describe()). A series that the search cuts into short pieces over more
 * than WANDER_SHARE of its length is not stepping but wandering (a trend,
 * a random walk, rounded values): there each change must also pass the
 * local test (local_p()), which discounts residuals that drift together;
 * a creep between quiet stretches is a short stretch of short pieces and
 * keeps the first test alone.
 */
static void detect_range(struct changepoint_list *out, const struct series *s,
			 size_t from, size_t to, const struct noise *noise,
			 const struct changepoint_options *opts)
{
	size_t *splits, *proposed, nsplits, nproposed;
	struct changepoint *found;

	propose(s, from, to, noise, opts, &proposed, &nproposed);
	splits = xmalloc((nproposed ? nproposed : 1) * sizeof(*splits));
	found = xmalloc((nproposed ? nproposed : 1) * sizeof(*found));
	if (nproposed)
		memcpy(splits, proposed, nproposed * sizeof(*splits));
	nsplits = nproposed;
	confirm(found, splits, &nsplits, s, from, to, noise, false, opts);
	if (short_share(splits, nsplits, from, to, opts) > WANDER_SHARE) {
		if (nproposed)
			memcpy(splits, proposed, nproposed * sizeof(*splits));
		nsplits = nproposed;
		confirm(found, splits, &nsplits, s, from, to, noise, true,
			opts);
	}
	for (size_t j = 0; j < nsplits; j++)
		list_push(out, &found[j]);
	free(found);
	free(splits);
	free(proposed);
}

int changepoint_detect(struct changepoint_list *out,
		       const struct changepoint_input *points, size_t nr,
		       const struct changepoint_options *opts)
{
	struct changepoint_options o;
	struct series s;

	struct noise noise;

	resolve_options(&o, opts);
	out->nr = 0;
	series_build(&s, points, nr);
	noise_estimate(&noise, &s);
	detect_range(out, &s, 0, s.nr, &noise, &o);
	series_release(&s);
	return 0;
}

/* The series position of the point at caller index `index`. */
static size_t series_position(const struct series *s, size_t index)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->index[mid] < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int changepoint_append(struct changepoint_list *list,
		       const struct changepoint_input *points, size_t nr,
		       const struct changepoint_options *opts)
{
	struct changepoint_options o;
	struct changepoint_list tail = { 0 };
	struct series s;
	struct noise noise;
	size_t last, prev;

	if (!list->nr)
		return changepoint_detect(list, points, nr, opts);
	resolve_options(&o, opts);
	series_build(&s, points, nr);
	last = series_position(&s, list->items[list->nr - 1].index);
	prev = list->nr > 1
		       ? series_position(&s, list->items[list->nr - 2].index)
		       : 0;
	noise_estimate(&noise, &s);
	detect_range(&tail, &s, last, s.nr, &noise, &o);
	describe(&list->items[list->nr - 1], &s, prev, last,
		 tail.nr ? series_position(&s, tail.items[0].index) : s.nr,
		 &noise, false, &o);
	for (size_t j = 0; j < tail.nr; j++)
		list_push(list, &tail.items[j]);
	changepoint_list_release(&tail);
	series_release(&s);
	return 0;
}
