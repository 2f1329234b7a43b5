/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/changepoint.h"

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
	s->nr = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!isfinite(points[i].median))
			continue;
		s->index[s->nr] = i;
		s->raw[s->nr] = points[i].median;
		s->logs[s->nr] = points[i].median > 0 ? log(points[i].median)
						      : NAN;
		s->within[s->nr] = median_variance(&points[i], scratch);
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
 * The point-to-point noise of the segment for telling outliers: the MAD of
 * successive differences / sqrt 2, which a level shift barely moves (the
 * standard deviation when ties leave a MAD of 0), never below a point's
 * own variance.
 */
static double segment_jitter(const struct segment *seg, const struct series *s)
{
	size_t n = seg->b - seg->a;
	double *diffs, mad, total;

	if (n < 3)
		return 0;
	diffs = xmalloc(n * sizeof(*diffs));
	for (size_t i = 0; i + 1 < n; i++)
		diffs[i] = point_value(s, seg->a + i + 1, seg->logs) -
			   point_value(s, seg->a + i, seg->logs);
	mad = stats_mad_scaled(diffs, n - 1);
	total = mad * mad / 2;
	if (!(total > 0)) {
		double sd = stats_stddev(diffs, n - 1);

		total = sd * sd / 2;
	}
	free(diffs);
	return total;
}

/* Pulls each value to within CLIP_SIGMAS of the median of its window of
 * 2 CLIP_HALF_WIDTH + 1 points. The window's median keeps a step's edge
 * where it is (two or three points on each side of it), so only isolated
 * outliers move. */
static void segment_clip(struct segment *seg, const struct series *s)
{
	size_t n = seg->b - seg->a;
	size_t width = 2 * CLIP_HALF_WIDTH + 1 < n ? 2 * CLIP_HALF_WIDTH + 1
						   : n;
	double raw[2 * CLIP_HALF_WIDTH + 1], scratch[2 * CLIP_HALF_WIDTH + 1];
	double jitter = seg->jitter;

	for (size_t i = 0; i < n; i++) {
		size_t lo = i >= CLIP_HALF_WIDTH ? i - CLIP_HALF_WIDTH : 0;
		double w = point_within(s, seg->a + i, seg->logs);
		double centre,
			sigma = sqrt(isfinite(w) && w > jitter ? w : jitter);

		/* the window keeps its width at the ends, shifted inward:
		 * truncated, two bad nights among the last four would be
		 * half of it */
		if (lo + width > n)
			lo = n - width;
		for (size_t j = lo; j < lo + width; j++)
			raw[j - lo] = point_value(s, seg->a + j, seg->logs);
		centre = median_of_window(raw, width, scratch);
		seg->value[i] = point_value(s, seg->a + i, seg->logs);
		if (!(sigma > 0))
			continue;
		if (seg->value[i] > centre + CLIP_SIGMAS * sigma)
			seg->value[i] = centre + CLIP_SIGMAS * sigma;
		else if (seg->value[i] < centre - CLIP_SIGMAS * sigma)
			seg->value[i] = centre - CLIP_SIGMAS * sigma;
	}
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

/*
 * The split of the segment with the most significant test among those that
 * leave min_segment points on each side, over every scale (ranked by
 * split_z()). *candidates is how many tests were tried: what the
 * Bonferroni correction pays for. false when the segment is too short for
 * any split.
 */
static bool segment_best_split(const struct segment *seg, size_t min_segment,
			       struct split *best, size_t *candidates)
{
	size_t n = seg->b - seg->a;
	double best_z = -1;

	*candidates = 0;
	for (size_t k = min_segment; k + min_segment <= n; k++) {
		struct split split = { 0 };
		size_t scales;
		double z;

		z = split_best_scale(seg, min_segment, k, best_z, &split,
				     &scales);
		*candidates += scales;
		if (z > best_z) {
			*best = split;
			best_z = z;
		}
	}
	return best_z >= 0;
}

static double corrected_p(const struct split *split, size_t candidates)
{
	double p = split_p(split);

	p *= (double)candidates;
	return p < 1 ? p : 1;
}

/*
 * Where in the window of the significant split the change lies: the split
 * with the largest |t| with the window held fixed (the scales move the
 * windows with the split, which blurs the location by a point or two).
 */
static void split_refine(const struct segment *seg, size_t min_segment,
			 struct split *split)
{
	size_t from = split->from, to = split->to;
	struct split best = *split;

	for (size_t k = from + min_segment; k + min_segment <= to; k++) {
		struct split candidate;

		split_at(seg, from, k, to, -1, &candidate);
		if (fabs(candidate.t) > fabs(best.t))
			best = candidate;
	}
	split->k = best.k;
}

/*
 * Binary segmentation: the best split of each segment, kept when its
 * Bonferroni-corrected p-value is below the significance, then each side
 * searched again. A work stack, not recursion: a long series of short
 * segments would otherwise go deep.
 */
static void binary_segmentation(const struct series *s, size_t from, size_t to,
				const struct changepoint_options *opts,
				size_t **splits, size_t *nsplits)
{
	size_t *stack = NULL, depth = 0, stack_alloc = 0, alloc = 0;

	*splits = NULL;
	*nsplits = 0;
	ALLOC_GROW(stack, depth + 2, stack_alloc);
	stack[depth++] = from;
	stack[depth++] = to;
	while (depth) {
		size_t b = stack[--depth], a = stack[--depth], candidates;
		struct segment seg;
		struct split split = { 0 };
		bool keep = false;

		if (b - a < 2 * opts->min_segment)
			continue;
		segment_init(&seg, s, a, b);
		if (segment_best_split(&seg, opts->min_segment, &split,
				       &candidates))
			keep = corrected_p(&split, candidates) <
			       opts->significance;
		if (keep)
			split_refine(&seg, opts->min_segment, &split);
		segment_release(&seg);
		if (!keep)
			continue;
		ALLOC_GROW(*splits, *nsplits + 1, alloc);
		(*splits)[(*nsplits)++] = a + split.k;
		ALLOC_GROW(stack, depth + 4, stack_alloc);
		stack[depth++] = a;
		stack[depth++] = a + split.k;
		stack[depth++] = a + split.k;
		stack[depth++] = b;
	}
	free(stack);
}

static int compare_sizes(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return (a > b) - (a < b);
}

/*
 * The numbers of the change point at series position `at` between the
 * segments [prev, at) and [at, next): the levels are the segments'
 * medians; the p-value is the split's test within [prev, next), corrected
 * for the candidate splits there, as the search tested it; the interval
 * is log(after / before) (after - before, relative to |before|, for
 * values not all positive) plus or minus the t quantile at the
 * significance times the test's standard error.
 */
static void describe(struct changepoint *cp, const struct series *s,
		     size_t prev, size_t at, size_t next,
		     const struct changepoint_options *opts)
{
	struct segment seg;
	struct split split = { 0 }, whole;
	double d, margin;
	size_t scales, candidates = 0;

	segment_init(&seg, s, prev, next);
	split_best_scale(&seg, opts->min_segment, at - prev, -1, &split,
			 &scales);
	split_at(&seg, 0, at - prev, next - prev, -1, &whole);
	if (next - prev + 1 > 2 * opts->min_segment)
		candidates = (next - prev + 1 - 2 * opts->min_segment) * scales;
	if (!candidates)
		candidates = 1;
	cp->before = stats_median(s->raw + prev, at - prev);
	cp->after = stats_median(s->raw + at, next - at);
	cp->index = s->index[at];
	cp->p = corrected_p(&split, candidates);
	margin = stats_t_critical(opts->significance, whole.df) * whole.se;
	if (seg.logs) {
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
	segment_release(&seg);
}

/* found[j], the change point at splits[j] between its neighbours. */
static void describe_at(struct changepoint *found, const struct series *s,
			const size_t *splits, size_t nsplits, size_t j,
			size_t from, size_t to,
			const struct changepoint_options *opts)
{
	describe(&found[j], s, j ? splits[j - 1] : from, splits[j],
		 j + 1 < nsplits ? splits[j + 1] : to, opts);
}

static bool keeps(const struct changepoint *cp,
		  const struct changepoint_options *opts)
{
	return cp->p < opts->significance &&
	       !(fabs(cp->change) < opts->min_change);
}

/*
 * The change points of series positions [from, to) into out (appended),
 * after a last pass that takes out, one at a time and the weakest first,
 * the splits that no longer hold between their final neighbours: too
 * small a change, or no longer significant once the segments around them
 * were split further. What is reported is then each change point's own
 * test against the levels on either side of it.
 */
static void detect_range(struct changepoint_list *out, const struct series *s,
			 size_t from, size_t to,
			 const struct changepoint_options *opts)
{
	size_t *splits, nsplits;
	struct changepoint *found;

	binary_segmentation(s, from, to, opts, &splits, &nsplits);
	if (nsplits)
		qsort(splits, nsplits, sizeof(*splits), compare_sizes);
	found = xmalloc((nsplits ? nsplits : 1) * sizeof(*found));
	for (size_t j = 0; j < nsplits; j++)
		describe_at(found, s, splits, nsplits, j, from, to, opts);
	for (;;) {
		size_t weakest = nsplits;

		for (size_t j = 0; j < nsplits; j++) {
			if (keeps(&found[j], opts))
				continue;
			if (weakest == nsplits ||
			    found[j].p > found[weakest].p ||
			    (found[j].p == found[weakest].p &&
			     fabs(found[j].change) <
				     fabs(found[weakest].change)))
				weakest = j;
		}
		if (weakest == nsplits)
			break;
		memmove(splits + weakest, splits + weakest + 1,
			(nsplits - weakest - 1) * sizeof(*splits));
		memmove(found + weakest, found + weakest + 1,
			(nsplits - weakest - 1) * sizeof(*found));
		nsplits--;
		/* only the two that had it for a neighbour change */
		if (weakest > 0)
			describe_at(found, s, splits, nsplits, weakest - 1,
				    from, to, opts);
		if (weakest < nsplits)
			describe_at(found, s, splits, nsplits, weakest, from,
				    to, opts);
	}
	for (size_t j = 0; j < nsplits; j++)
		list_push(out, &found[j]);
	free(found);
	free(splits);
}

int changepoint_detect(struct changepoint_list *out,
		       const struct changepoint_input *points, size_t nr,
		       const struct changepoint_options *opts)
{
	struct changepoint_options o;
	struct series s;

	resolve_options(&o, opts);
	out->nr = 0;
	series_build(&s, points, nr);
	detect_range(out, &s, 0, s.nr, &o);
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
	size_t last, prev;

	if (!list->nr)
		return changepoint_detect(list, points, nr, opts);
	resolve_options(&o, opts);
	series_build(&s, points, nr);
	last = series_position(&s, list->items[list->nr - 1].index);
	prev = list->nr > 1
		       ? series_position(&s, list->items[list->nr - 2].index)
		       : 0;
	detect_range(&tail, &s, last, s.nr, &o);
	describe(&list->items[list->nr - 1], &s, prev, last,
		 tail.nr ? series_position(&s, tail.items[0].index) : s.nr, &o);
	for (size_t j = 0; j < tail.nr; j++)
		list_push(list, &tail.items[j]);
	changepoint_list_release(&tail);
	series_release(&s);
	return 0;
}
