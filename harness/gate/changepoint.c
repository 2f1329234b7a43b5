#include "harness/gate/changepoint.h"

#include "harness/gate/stats.h"
#include "harness/util/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The defaults (the README's "Change points" figures say how they fared). */
#define DEFAULT_SIGNIFICANCE 0.001
#define DEFAULT_MIN_CHANGE   0.01
#define DEFAULT_MIN_SEGMENT  4

/* A point further than this many standard deviations from the median of
 * its neighbours (CLIP_HALF_WIDTH on each side) is pulled in to that
 * distance: one bad night moves a side's mean no more than 3 sigma / n. */
#define CLIP_SIGMAS	3.0
#define CLIP_HALF_WIDTH 2

/* The Gaussian efficiency of the MAD (Rousseeuw & Croux 1993): a noise
 * estimate from n differences is worth about 0.37 n values of a variance. */
#define MAD_EFFICIENCY 0.37

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
	double *within;
};

static int compare_doubles(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* (pi / 2) MAD^2 / n of the finite samples: the variance of their median,
 * robust to a stray run. NAN for fewer than 2 finite samples. */
static double median_variance(const struct changepoint_input *point,
			      double *scratch)
{
	size_t n = 0;
	double mad;

	if (!point->samples)
		return NAN;
	for (size_t i = 0; i < point->n; i++)
		if (isfinite(point->samples[i]))
			scratch[n++] = point->samples[i];
	if (n < 2)
		return NAN;
	mad = stats_mad_scaled(scratch, n);
	return MEDIAN_VARIANCE_FACTOR * mad * mad / (double)n;
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
	s->within = xmalloc((nr ? nr : 1) * sizeof(*s->within));
	s->nr = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!isfinite(points[i].median))
			continue;
		s->index[s->nr] = i;
		s->raw[s->nr] = points[i].median;
		s->within[s->nr] = median_variance(&points[i], scratch);
		s->nr++;
	}
	free(scratch);
}

static void series_release(struct series *s)
{
	free(s->index);
	free(s->raw);
	free(s->within);
}

/*
 * What a segment [a, b) of the series looks like to the test: its values
 * (logarithms when every median in it is positive, so that a change is
 * relative, as timings are), each point's variance, and the degrees of
 * freedom of that variance. Everything is computed from the segment
 * alone, which is what lets changepoint_append() examine only the end.
 */
struct segment {
	size_t a, b;
	bool logs;
	double *value;	  /* clipped values, b - a of them */
	double *variance; /* the variance of each value */
	double df;
};

static double point_value(const struct series *s, size_t i, bool logs)
{
	return logs ? log(s->raw[i]) : s->raw[i];
}

/* The variance of the point's value from its own samples: by the delta
 * method, var(log m) = var(m) / m^2. */
static double point_within(const struct series *s, size_t i, bool logs)
{
	return logs ? s->within[i] / (s->raw[i] * s->raw[i]) : s->within[i];
}

static double median_of_window(const double *v, size_t n, double *scratch)
{
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), compare_doubles);
	return n % 2 ? scratch[n / 2]
		     : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/*
 * The noise of the segment. Benchmark histories move from commit to
 * commit by more than a commit's own runs spread (the machine, the day,
 * the build): a test on the pooled runs would call every point a change.
 * So each point's value varies as tau^2 + w_i, w_i the variance of its
 * median from its own samples and tau^2 the commit-to-commit variance.
 * The sum is estimated from successive differences (MAD of the
 * differences / sqrt 2), which a level shift barely moves; tau^2 is what
 * that leaves above the mean w_i, never less than 0. A point's own w_i is
 * thus a floor under its variance, and a noisier point counts for less.
 * Points without samples take the segment's mean w_i (0 when none has
 * samples: then the differences are all there is).
 */
static void segment_noise(struct segment *seg, const struct series *s)
{
	size_t n = seg->b - seg->a, known = 0;
	double *diffs = xmalloc(n * sizeof(*diffs));
	double total = 0, mean_within = 0, tau2;

	for (size_t i = seg->a; i < seg->b; i++) {
		double w = point_within(s, i, seg->logs);

		if (isfinite(w)) {
			mean_within += w;
			known++;
		}
	}
	mean_within = known ? mean_within / (double)known : 0;
	for (size_t i = 0; i + 1 < n; i++)
		diffs[i] = point_value(s, seg->a + i + 1, seg->logs) -
			   point_value(s, seg->a + i, seg->logs);
	if (n >= 3) {
		double mad = stats_mad_scaled(diffs, n - 1);

		total = mad * mad / 2;
		/* Tied values (counts, rounded timings) can leave a MAD
		 * of 0 with a real spread: then the standard deviation. */
		if (!(total > 0)) {
			double sd = stats_stddev(diffs, n - 1);

			total = sd * sd / 2;
		}
	}
	tau2 = total > mean_within ? total - mean_within : 0;
	for (size_t i = seg->a; i < seg->b; i++) {
		double w = point_within(s, i, seg->logs);

		seg->variance[i - seg->a] =
			tau2 + (isfinite(w) ? w : mean_within);
	}
	seg->df = MAD_EFFICIENCY * (double)(n - 1);
	if (seg->df < 1)
		seg->df = 1;
	free(diffs);
}

/* Pulls each value to within CLIP_SIGMAS of the median of its window of
 * 2 CLIP_HALF_WIDTH + 1 points. The window's median keeps a step's edge
 * where it is (two or three points on each side of it), so only isolated
 * outliers move. */
static void segment_clip(struct segment *seg, const struct series *s)
{
	size_t n = seg->b - seg->a;
	double raw[2 * CLIP_HALF_WIDTH + 1], scratch[2 * CLIP_HALF_WIDTH + 1];

	size_t width = 2 * CLIP_HALF_WIDTH + 1 < n ? 2 * CLIP_HALF_WIDTH + 1
						   : n;

	for (size_t i = 0; i < n; i++) {
		size_t lo = i >= CLIP_HALF_WIDTH ? i - CLIP_HALF_WIDTH : 0;
		size_t hi;
		double centre, sigma = sqrt(seg->variance[i]);

		/* the window keeps its width at the ends, shifted inward:
		 * truncated, two bad nights among the last four would be
		 * half of it */
		if (lo + width > n)
			lo = n - width;
		hi = lo + width;

		for (size_t j = lo; j < hi; j++)
			raw[j - lo] = point_value(s, seg->a + j, seg->logs);
		centre = median_of_window(raw, hi - lo, scratch);
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
	seg->a = a;
	seg->b = b;
	seg->logs = true;
	for (size_t i = a; i < b; i++)
		if (!(s->raw[i] > 0))
			seg->logs = false;
	seg->value = xmalloc((b - a) * sizeof(*seg->value));
	seg->variance = xmalloc((b - a) * sizeof(*seg->variance));
	segment_noise(seg, s);
	segment_clip(seg, s);
}

static void segment_release(struct segment *seg)
{
	free(seg->value);
	free(seg->variance);
}

/* The Welch-type statistic at every split k of the segment (the first
 * point of the right side, relative to a), as sums over prefixes. */
struct split {
	size_t k; /* relative to the segment's start */
	double difference, se, t;
};

static double split_t(double difference, double se)
{
	if (se > 0)
		return difference / se;
	return difference > 0 ? INFINITY : difference < 0 ? -INFINITY : 0;
}

/*
 * The split of the segment with the largest |t| among those that leave
 * min_segment points on each side. *candidates is how many were tried:
 * the number of tests that the Bonferroni correction pays for. false
 * when the segment is too short for any split.
 */
static bool segment_best_split(const struct segment *seg, size_t min_segment,
			       struct split *best, size_t *candidates)
{
	size_t n = seg->b - seg->a;
	double *sum = xmalloc((n + 1) * sizeof(*sum));
	double *var = xmalloc((n + 1) * sizeof(*var));
	bool found = false;

	*candidates = 0;
	sum[0] = var[0] = 0;
	for (size_t i = 0; i < n; i++) {
		sum[i + 1] = sum[i] + seg->value[i];
		var[i + 1] = var[i] + seg->variance[i];
	}
	for (size_t k = min_segment; k + min_segment <= n; k++) {
		double nl = (double)k, nr = (double)(n - k);
		double difference = (sum[n] - sum[k]) / nr - sum[k] / nl;
		double se = sqrt(var[k] / (nl * nl) +
				 (var[n] - var[k]) / (nr * nr));
		double t = split_t(difference, se);

		(*candidates)++;
		if (!found || fabs(t) > fabs(best->t)) {
			best->k = k;
			best->difference = difference;
			best->se = se;
			best->t = t;
			found = true;
		}
	}
	free(sum);
	free(var);
	return found;
}

static double corrected_p(const struct split *split, double df,
			  size_t candidates)
{
	double p = isfinite(split->t) ? stats_t_two_sided(split->t, df) : 0;

	p *= (double)candidates;
	return p < 1 ? p : 1;
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
		struct split split;
		bool keep = false;

		if (b - a < 2 * opts->min_segment)
			continue;
		segment_init(&seg, s, a, b);
		if (segment_best_split(&seg, opts->min_segment, &split,
				       &candidates))
			keep = corrected_p(&split, seg.df, candidates) <
			       opts->significance;
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
	double nl = (double)(at - prev), nr = (double)(next - at);
	double left = 0, right = 0, vl = 0, vr = 0, d, margin;
	struct split split;
	size_t candidates = next - prev + 1 > 2 * opts->min_segment
				    ? next - prev + 1 - 2 * opts->min_segment
				    : 1;

	segment_init(&seg, s, prev, next);
	for (size_t i = prev; i < next; i++) {
		size_t r = i - prev;

		if (i < at) {
			left += seg.value[r];
			vl += seg.variance[r];
		} else {
			right += seg.value[r];
			vr += seg.variance[r];
		}
	}
	split.k = at - prev;
	split.difference = right / nr - left / nl;
	split.se = sqrt(vl / (nl * nl) + vr / (nr * nr));
	split.t = split_t(split.difference, split.se);

	cp->before = stats_median(s->raw + prev, at - prev);
	cp->after = stats_median(s->raw + at, next - at);
	cp->index = s->index[at];
	cp->p = corrected_p(&split, seg.df, candidates);
	margin = stats_t_critical(opts->significance, seg.df) * split.se;
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
	for (;;) {
		size_t weakest = nsplits;

		for (size_t j = 0; j < nsplits; j++) {
			describe(&found[j], s, j ? splits[j - 1] : from,
				 splits[j],
				 j + 1 < nsplits ? splits[j + 1] : to, opts);
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
		nsplits--;
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
