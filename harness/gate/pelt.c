/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/pelt.h"

#include "harness/util/alloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * Two lanes of doubles (GCC's and clang's vector extension: SSE2 on
 * x86-64, NEON on arm64, plain pairs elsewhere). Each lane does the scalar
 * operations in the scalar order, and IEEE addition, subtraction,
 * multiplication and division round the same in a lane as alone, so the
 * sums below are the ones a scalar loop would compute, bit for bit.
 */
typedef double lanes __attribute__((vector_size(2 * sizeof(double))));
typedef int64_t lane_mask __attribute__((vector_size(2 * sizeof(int64_t))));

static lanes lanes_load(const double *p)
{
	lanes v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void lanes_store(double *p, lanes v)
{
	memcpy(p, &v, sizeof(v));
}

#ifdef __SSE2__
/* a < b ? a : b and a > b ? a : b, lane by lane: what MINPD and MAXPD do,
 * NaNs and signed zeros included, in one instruction each */
static lanes lanes_min(lanes a, lanes b)
{
	return (lanes)_mm_min_pd((__m128d)a, (__m128d)b);
}

static lanes lanes_max(lanes a, lanes b)
{
	return (lanes)_mm_max_pd((__m128d)a, (__m128d)b);
}
#else
/* mask ? a : b, lane by lane (mask lanes all ones or all zeros) */
static lanes lanes_select(lane_mask mask, lanes a, lanes b)
{
	return (lanes)(((lane_mask)a & mask) | ((lane_mask)b & ~mask));
}

static lanes lanes_min(lanes a, lanes b)
{
	return lanes_select(a < b, a, b);
}

static lanes lanes_max(lanes a, lanes b)
{
	return lanes_select(a > b, a, b);
}
#endif

/*
 * The live starts of segments, with what the cost of a segment from each
 * needs, side by side so that a step reads them in order: start[c] the
 * position, and f, the best total up to it, and the prefix sums of u,
 * u (x - x0) and u (x - x0)^2 there.
 */
struct live {
	size_t nr;
	size_t *start;
	double *f, *su, *sx, *sxx;
	double *total; /* scratch: f + cost of the segment to the step */
};

/* The totals of live starts c and c + 1 at the step (live_step()). */
static lanes pair_total(const struct live *live, size_t c, lanes st,
			lanes xt, lanes qt)
{
	lanes ds = st - lanes_load(live->su + c);
	lanes dx = xt - lanes_load(live->sx + c);

	return lanes_load(live->f + c) +
	       ((qt - lanes_load(live->sxx + c)) - dx * dx / ds);
}

/* Folds totals into the least (NaN never taken), the greatest (nor
 * there) and a sum, which a NaN total makes NaN (and so may totals of
 * both infinities: then live_prune() looks, and finds none to drop). */
static void pair_fold(lanes total, lanes *least, lanes *most, lanes *sum)
{
	*least = lanes_min(total, *least);
	*most = lanes_max(total, *most);
	*sum += total;
}

/*
 * One step of the search at position t, whose prefix sums are st, xt, qt:
 * total[c] = f[c] + cost(start[c], t) for every live start, the cost as
 * sxx - sx^2 / su of the segment's sums (the weighted squared deviations
 * from its mean). Returns the first c with the least total + penalty
 * (NaN totals never win), nr when none is finite; *prune is set when some
 * total may be NaN or above the least + penalty (then live_prune()).
 *
 * The totals are those of the scalar loop, bit for bit; the least total
 * + penalty is the least of the totals plus the penalty (addition of one
 * number is monotonic), found by value first and then by position, the
 * first one equal to it: the scalar loop's strict `<` keeps the first.
 */
static size_t live_step(struct live *live, double st, double xt, double qt,
			double penalty, bool *prune)
{
	const size_t nr = live->nr;
	const lanes vst = { st, st }, vxt = { xt, xt }, vqt = { qt, qt };
	lanes least0 = { INFINITY, INFINITY }, least1 = least0;
	lanes most0 = { -INFINITY, -INFINITY }, most1 = most0;
	lanes sum0 = { 0, 0 }, sum1 = sum0;
	size_t c = 0, at;
	double least, most, sum;

	for (; c + 4 <= nr; c += 4) {
		lanes total0 = pair_total(live, c, vst, vxt, vqt);
		lanes total1 = pair_total(live, c + 2, vst, vxt, vqt);

		lanes_store(live->total + c, total0);
		lanes_store(live->total + c + 2, total1);
		pair_fold(total0, &least0, &most0, &sum0);
		pair_fold(total1, &least1, &most1, &sum1);
	}
	least0 = lanes_min(least1, least0);
	most0 = lanes_max(most1, most0);
	sum0 += sum1;
	least = least0[0] < least0[1] ? least0[0] : least0[1];
	most = most0[0] > most0[1] ? most0[0] : most0[1];
	sum = sum0[0] + sum0[1];
	for (; c < nr; c++) {
		double dx = xt - live->sx[c];
		double total = live->f[c] + ((qt - live->sxx[c]) -
					     dx * dx / (st - live->su[c]));

		live->total[c] = total;
		if (total < least)
			least = total;
		if (total > most)
			most = total;
		sum += total;
	}
	*prune = isnan(sum);
	if (!(least + penalty < INFINITY))
		at = nr;
	else
		for (at = 0; !(live->total[at] + penalty == least + penalty);
		     at++)
			;
	if (at == nr ? nr > 0 : most > live->total[at] + penalty)
		*prune = true;
	return at;
}

/* Drops the starts whose total exceeds `bound` (or is NaN): PELT's rule,
 * a start that cannot beat the best now never will. */
static void live_prune(struct live *live, double bound)
{
	size_t kept = 0;

	for (size_t c = 0; c < live->nr; c++) {
		if (!(live->total[c] <= bound))
			continue;
		if (kept != c) {
			live->start[kept] = live->start[c];
			live->f[kept] = live->f[c];
			live->su[kept] = live->su[c];
			live->sx[kept] = live->sx[c];
			live->sxx[kept] = live->sxx[c];
		}
		kept++;
	}
	live->nr = kept;
}

size_t pelt_search(const double *x, const double *u, size_t n,
		   size_t min_segment, double penalty, size_t **splits)
{
	size_t m = min_segment ? min_segment : 1, *last, nsplits = 0;
	double *su, *sx, *sxx, *f;
	struct live live = { 0 };

	*splits = NULL;
	if (n < 2 * m)
		return 0;
	su = xmalloc((n + 1) * sizeof(*su));
	sx = xmalloc((n + 1) * sizeof(*sx));
	sxx = xmalloc((n + 1) * sizeof(*sxx));
	f = xmalloc((n + 1) * sizeof(*f));
	last = xmalloc((n + 1) * sizeof(*last));
	live.start = xmalloc((n + 1) * sizeof(*live.start));
	live.f = xmalloc((n + 1) * sizeof(*live.f));
	live.su = xmalloc((n + 1) * sizeof(*live.su));
	live.sx = xmalloc((n + 1) * sizeof(*live.sx));
	live.sxx = xmalloc((n + 1) * sizeof(*live.sxx));
	live.total = xmalloc((n + 1) * sizeof(*live.total));
	/* centred on the first value, the sums keep their precision */
	su[0] = sx[0] = sxx[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - x[0];

		su[i + 1] = su[i] + u[i];
		sx[i + 1] = sx[i] + u[i] * d;
		sxx[i + 1] = sxx[i] + u[i] * d * d;
	}
	f[0] = -penalty;
	live.start[0] = 0;
	live.f[0] = f[0];
	live.su[0] = live.sx[0] = live.sxx[0] = 0;
	live.nr = 1;
	for (size_t t = m; t <= n; t++) {
		bool prune = false;
		size_t at = live_step(&live, su[t], sx[t], sxx[t], penalty,
				      &prune);

		if (at < live.nr) {
			f[t] = live.total[at] + penalty;
			last[t] = live.start[at];
		} else {
			f[t] = INFINITY;
			last[t] = 0;
		}
		if (prune)
			live_prune(&live, f[t]);
		if (t + 1 >= 2 * m) {
			size_t s = t + 1 - m;

			live.start[live.nr] = s;
			live.f[live.nr] = f[s];
			live.su[live.nr] = su[s];
			live.sx[live.nr] = sx[s];
			live.sxx[live.nr] = sxx[s];
			live.nr++;
		}
	}
	for (size_t t = last[n]; t > 0; t = last[t])
		nsplits++;
	if (nsplits) {
		size_t j = nsplits;

		*splits = xmalloc(nsplits * sizeof(**splits));
		for (size_t t = last[n]; t > 0; t = last[t])
			(*splits)[--j] = t;
	}
	free(su);
	free(sx);
	free(sxx);
	free(f);
	free(last);
	free(live.start);
	free(live.f);
	free(live.su);
	free(live.sx);
	free(live.sxx);
	free(live.total);
	return nsplits;
}
