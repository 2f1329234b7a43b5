/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_changepoint: how well harness/gate/changepoint.c finds change points,
 * at its default settings, on
 * 1. the univariate series of the Turing Change Point Dataset that may be
 *    redistributed (tests/fixtures/tcpd/, README there), scored as the TCPD
 *    benchmark scores them (van den Burg & Williams 2020: F1 with a margin
 *    of 5 points over the human annotators, the start counted as a change
 *    point, and the segmentation cover), next to the published "default"
 *    scores of binary segmentation, PELT and "zero" (no change point);
 * 2. generated benchmark histories with planted steps, creep, bad nights
 *    and heavy tails, with and without each point's own samples.
 * Deterministic for a seed; prints Markdown (tests/perf/README.md).
 */
#include "harness/gate/changepoint.h"
#include "harness/gate/stats.h"
#include "harness/util/alloc.h"
#include "harness/util/strbuf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 5

/* Sets of change point locations, sorted ascending, no duplicates. */
struct locations {
	size_t *at;
	size_t nr, alloc;
};

static int compare_sizes(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return (a > b) - (a < b);
}

static void locations_add(struct locations *set, size_t at)
{
	for (size_t i = 0; i < set->nr; i++)
		if (set->at[i] == at)
			return;
	ALLOC_GROW(set->at, set->nr + 1, set->alloc);
	set->at[set->nr++] = at;
	qsort(set->at, set->nr, sizeof(*set->at), compare_sizes);
}

static void locations_release(struct locations *set)
{
	free(set->at);
	memset(set, 0, sizeof(*set));
}

static size_t distance(size_t a, size_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * The number of true change points in T matched by a prediction in X
 * within the margin, each prediction used once: T in ascending order,
 * each taking the closest unused prediction (the smaller on a tie), as
 * TCPDBench's true_positives() does (analysis/scripts/metrics.py).
 */
static size_t true_positives(const struct locations *truth,
			     const struct locations *pred, size_t margin)
{
	bool *used = xcalloc(pred->nr ? pred->nr : 1, sizeof(*used));
	size_t tp = 0;

	for (size_t t = 0; t < truth->nr; t++) {
		size_t best = pred->nr;

		for (size_t x = 0; x < pred->nr; x++) {
			if (used[x] ||
			    distance(truth->at[t], pred->at[x]) > margin)
				continue;
			if (best == pred->nr ||
			    distance(truth->at[t], pred->at[x]) <
				    distance(truth->at[t], pred->at[best]))
				best = x;
		}
		if (best < pred->nr) {
			used[best] = true;
			tp++;
		}
	}
	free(used);
	return tp;
}

/* TCPD's F1: precision against the union of the annotators' change points,
 * recall averaged over the annotators, 0 added to every set. */
static double f1_score(const struct locations *annotators, size_t k,
		       const struct locations *predicted)
{
	struct locations pred = { 0 }, all = { 0 };
	double precision, recall = 0;

	locations_add(&pred, 0);
	for (size_t i = 0; i < predicted->nr; i++)
		locations_add(&pred, predicted->at[i]);
	locations_add(&all, 0);
	for (size_t a = 0; a < k; a++) {
		struct locations one = { 0 };

		locations_add(&one, 0);
		for (size_t i = 0; i < annotators[a].nr; i++) {
			locations_add(&one, annotators[a].at[i]);
			locations_add(&all, annotators[a].at[i]);
		}
		recall += (double)true_positives(&one, &pred, MARGIN) /
			  (double)one.nr;
		locations_release(&one);
	}
	recall /= (double)k;
	precision =
		(double)true_positives(&all, &pred, MARGIN) / (double)pred.nr;
	locations_release(&pred);
	locations_release(&all);
	return precision * recall / (0.5 * recall + 0.5 * precision);
}

/* The segments [start, end) of 0..n split at the locations (0 and
 * locations past the end ignored). */
static size_t segments_of(const struct locations *cps, size_t n, size_t *start,
			  size_t *end)
{
	size_t nr = 0, from = 0;

	for (size_t i = 0; i < cps->nr; i++) {
		if (cps->at[i] == 0 || cps->at[i] >= n)
			continue;
		start[nr] = from;
		end[nr++] = cps->at[i];
		from = cps->at[i];
	}
	start[nr] = from;
	end[nr++] = n;
	return nr;
}

/* The covering of the annotator's segmentation by the prediction's
 * (Arbelaez et al. 2010, eq. 8, as TCPDBench's cover_single()). */
static double cover_single(const struct locations *truth,
			   const struct locations *pred, size_t n)
{
	size_t nt = truth->nr + 1, np = pred->nr + 1;
	size_t *ts = xmalloc(nt * sizeof(*ts)), *te = xmalloc(nt * sizeof(*te));
	size_t *ps = xmalloc(np * sizeof(*ps)), *pe = xmalloc(np * sizeof(*pe));
	double cover = 0;

	nt = segments_of(truth, n, ts, te);
	np = segments_of(pred, n, ps, pe);
	for (size_t r = 0; r < nt; r++) {
		double best = 0;

		for (size_t q = 0; q < np; q++) {
			size_t lo = ts[r] > ps[q] ? ts[r] : ps[q];
			size_t hi = te[r] < pe[q] ? te[r] : pe[q];
			double inter = hi > lo ? (double)(hi - lo) : 0;
			double uni =
				(double)(te[r] - ts[r] + pe[q] - ps[q]) - inter;

			if (inter / uni > best)
				best = inter / uni;
		}
		cover += (double)(te[r] - ts[r]) * best;
	}
	free(ts);
	free(te);
	free(ps);
	free(pe);
	return cover / (double)n;
}

static double cover_score(const struct locations *annotators, size_t k,
			  const struct locations *pred, size_t n)
{
	double sum = 0;

	for (size_t a = 0; a < k; a++)
		sum += cover_single(&annotators[a], pred, n);
	return sum / (double)k;
}

/* Builds a location set from a literal list ending in SIZE_MAX. */
static struct locations set_of(size_t first, ...)
{
	struct locations set = { 0 };
	va_list ap;

	va_start(ap, first);
	for (size_t v = first; v != SIZE_MAX; v = va_arg(ap, size_t))
		locations_add(&set, v);
	va_end(ap);
	return set;
}

#define END SIZE_MAX

/* The metrics against the examples of TCPDBench's metrics.py docstrings:
 * a scorer that disagrees with them makes every figure below wrong. */
static int check_metrics(void)
{
	struct locations a[4], p;
	double f, c;
	int bad = 0;

	a[0] = set_of(10, 20, END);
	a[1] = set_of(11, 20, END);
	a[2] = set_of(10, END);
	a[3] = set_of(0, 5, END);
	p = set_of(10, 20, END);
	f = f1_score(a, 4, &p);
	bad |= fabs(f - 1.0) > 1e-12;
	for (int i = 0; i < 4; i++)
		locations_release(&a[i]);
	locations_release(&p);

	a[0] = set_of(END);
	a[1] = set_of(10, END);
	a[2] = set_of(50, END);
	p = set_of(10, END);
	bad |= fabs(f1_score(a, 3, &p) - 0.9090909090909091) > 1e-12;
	locations_release(&p);
	p = set_of(END);
	bad |= fabs(f1_score(a, 3, &p) - 0.8) > 1e-12;
	locations_release(&a[2]);
	a[2] = set_of(40, END);
	bad |= fabs(cover_score(a, 3, &p, 45) - 0.8189300411522634) > 1e-12;
	locations_release(&p);
	p = set_of(10, END);
	bad |= fabs(cover_score(a, 3, &p, 45) - 0.7954144620811286) > 1e-12;
	for (int i = 0; i < 3; i++)
		locations_release(&a[i]);
	locations_release(&p);

	a[0] = set_of(10, 20, END);
	a[1] = set_of(10, END);
	a[2] = set_of(0, 5, END);
	p = set_of(10, 20, END);
	c = cover_score(a, 3, &p, 45);
	bad |= fabs(c - 0.7962962962962963) > 1e-12;
	for (int i = 0; i < 3; i++)
		locations_release(&a[i]);
	locations_release(&p);
	if (bad)
		fprintf(stderr, "bench_changepoint: the F1 or cover scorer "
				"disagrees with TCPDBench's examples\n");
	return bad ? -1 : 0;
}

static void predict(struct locations *out,
		    const struct changepoint_input *points, size_t n)
{
	struct changepoint_list list = { 0 };

	changepoint_detect(&list, points, n, NULL);
	for (size_t i = 0; i < list.nr; i++)
		locations_add(out, list.items[i].index);
	changepoint_list_release(&list);
}

/* 1. TCPD */

struct published {
	char name[64];
	double f1[3], cover[3]; /* binseg, pelt, zero; NAN: failed */
};

static const char *const published_methods[3] = { "binseg", "pelt", "zero" };

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t got;

	if (!f)
		return NULL;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, got);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

static double parse_score(const char *field)
{
	char *end;
	double v;

	if (!*field || *field == ',' || *field == '\n')
		return NAN;
	v = strtod(field, &end);
	return end == field ? NAN : v;
}

/* published_default.csv: name, then F1 and cover of each method. */
static size_t read_published(struct published **out, const char *dir)
{
	char path[4096], *text, *line, *save = NULL;
	size_t nr = 0, alloc = 0;

	snprintf(path, sizeof(path), "%s/published_default.csv", dir);
	if (!(text = read_all(path))) {
		fprintf(stderr, "bench_changepoint: %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	*out = NULL;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct published p;
		char *field = line;
		size_t len = strcspn(line, ",");

		if (line[0] == '#' || !strncmp(line, "name,", 5))
			continue;
		if (len >= sizeof(p.name))
			len = sizeof(p.name) - 1;
		memcpy(p.name, line, len);
		p.name[len] = '\0';
		for (int i = 0; i < 6; i++) {
			field = strchr(field, ',');
			if (!field)
				break;
			field++;
			if (i < 3)
				p.f1[i] = parse_score(field);
			else
				p.cover[i - 3] = parse_score(field);
		}
		ALLOC_GROW(*out, nr + 1, alloc);
		(*out)[nr++] = p;
	}
	free(text);
	return nr;
}

/* <name>.csv: one value a line, "nan" for a missing one. */
static struct changepoint_input *read_series(const char *dir, const char *name,
					     size_t *n)
{
	char path[4096], *text, *p, *end;
	struct changepoint_input *points = NULL;
	size_t alloc = 0;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
	if (!(text = read_all(path))) {
		fprintf(stderr, "bench_changepoint: %s: %s\n", path,
			strerror(errno));
		exit(2);
	}
	*n = 0;
	for (p = text; *p; p = end) {
		double v = strtod(p, &end);

		if (end == p) {
			fprintf(stderr,
				"bench_changepoint: %s:%zu: expected a "
				"number\n",
				path, *n + 1);
			exit(2);
		}
		ALLOC_GROW(points, *n + 1, alloc);
		points[*n] = (struct changepoint_input){ .median = v };
		(*n)++;
		while (*end == '\n' || *end == '\r')
			end++;
	}
	free(text);
	return points;
}

static size_t read_annotations(struct locations **out, const cJSON *all,
			       const char *name)
{
	const cJSON *set = cJSON_GetObjectItemCaseSensitive(all, name), *one;
	size_t k = 0;

	*out = xcalloc((size_t)cJSON_GetArraySize(set) + 1, sizeof(**out));
	cJSON_ArrayForEach(one, set)
	{
		const cJSON *at;

		cJSON_ArrayForEach(at, one)
			locations_add(&(*out)[k], (size_t)at->valuedouble);
		k++;
	}
	return k;
}

static void report_tcpd(struct strbuf *out, const char *dir)
{
	struct published *pub;
	size_t npub = read_published(&pub, dir), counted = 0;
	double sum_f1[4] = { 0 }, sum_cover[4] = { 0 };
	char path[4096], *text;
	cJSON *annotations;

	snprintf(path, sizeof(path), "%s/annotations.json", dir);
	if (!(text = read_all(path)) || !(annotations = cJSON_Parse(text))) {
		fprintf(stderr, "bench_changepoint: %s: cannot read\n", path);
		exit(2);
	}
	strbuf_addf(out,
		    "## TCPD, default settings\n\n"
		    "F1 (margin %d) and cover per data set; the published "
		    "scores are TCPDBench's default experiment.\n\n"
		    "| data set | n | benchgate F1 | binseg | PELT | zero | "
		    "benchgate cover | binseg | PELT | zero |\n"
		    "|---|---|---|---|---|---|---|---|---|---|\n",
		    MARGIN);
	for (size_t d = 0; d < npub; d++) {
		struct locations *annotators, pred = { 0 };
		size_t k =
			read_annotations(&annotators, annotations, pub[d].name);
		size_t n;
		struct changepoint_input *points =
			read_series(dir, pub[d].name, &n);
		double f1, cover;
		bool complete = true;

		predict(&pred, points, n);
		f1 = f1_score(annotators, k, &pred);
		cover = cover_score(annotators, k, &pred, n);
		strbuf_addf(out, "| %s | %zu | %.3f |", pub[d].name, n, f1);
		for (int m = 0; m < 3; m++) {
			strbuf_addf(out,
				    isnan(pub[d].f1[m]) ? " failed |"
							: " %.3f |",
				    pub[d].f1[m]);
			complete &= !isnan(pub[d].f1[m]);
		}
		strbuf_addf(out, " %.3f |", cover);
		for (int m = 0; m < 3; m++)
			strbuf_addf(out,
				    isnan(pub[d].cover[m]) ? " failed |"
							   : " %.3f |",
				    pub[d].cover[m]);
		strbuf_addstr(out, "\n");
		if (complete) {
			sum_f1[0] += f1;
			sum_cover[0] += cover;
			for (int m = 0; m < 3; m++) {
				sum_f1[m + 1] += pub[d].f1[m];
				sum_cover[m + 1] += pub[d].cover[m];
			}
			counted++;
		}
		for (size_t a = 0; a < k; a++)
			locations_release(&annotators[a]);
		free(annotators);
		locations_release(&pred);
		free(points);
	}
	strbuf_addf(out,
		    "| **mean of the %zu where every method ran** | | "
		    "**%.3f** | %.3f | %.3f | %.3f | **%.3f** | %.3f | %.3f "
		    "| %.3f |\n\n",
		    counted, sum_f1[0] / counted, sum_f1[1] / counted,
		    sum_f1[2] / counted, sum_f1[3] / counted,
		    sum_cover[0] / counted, sum_cover[1] / counted,
		    sum_cover[2] / counted, sum_cover[3] / counted);
	for (int m = 0; m < 3; m++)
		strbuf_addf(
			out,
			"Target: F1 above %s's default: %s (%.4f against %.4f).\n",
			published_methods[m],
			sum_f1[0] > sum_f1[m + 1] ? "met" : "NOT met",
			sum_f1[0] / counted, sum_f1[m + 1] / counted);
	strbuf_addstr(out, "\n");
	cJSON_Delete(annotations);
	free(text);
	free(pub);
}

/* 2. Generated histories */

#define SAMPLES	   10
#define STEP	   0.05
#define GAP_MIN	   30 /* points between planted steps */
#define GAP_MAX	   150
#define BAD_NIGHTS 0.01 /* share of points hit as a whole */
#define BAD_MIN	   0.10 /* by 10 to 50 % */
#define BAD_MAX	   0.50
#define CREEP_LEN  50 /* a creep of STEP over this many points */

enum noise {
	NOISE_NORMAL,
	NOISE_HEAVY,
	NOISE_DRIFT,
	NOISE_COUNT
};
static const char *const noise_names[NOISE_COUNT] = {
	"normal",
	"heavy-tailed + bad nights",
	"drifting (AR(1) nights)",
};

/* Lag-1 autocorrelation of the commit noise under NOISE_DRIFT: the machine
 * state carries over from one night to the next. */
#define DRIFT_PHI 0.5

enum shape {
	SHAPE_STEPS,
	SHAPE_FLAT,
	SHAPE_CREEP,
	SHAPE_COUNT
};

struct options {
	size_t series; /* per cell */
	size_t length;
	double cv;
	uint64_t seed;
	const char *tcpd;
	const char *out;
};

/* Standard normal, by inverting the library's quantile function (u is in
 * (0, 1]; 1 is moved just below it, where the quantile is finite). */
static double rng_normal(struct stats_rng *rng)
{
	double u = stats_rng_uniform(rng);

	return stats_normal_quantile(u < 1 ? u : 1 - 0x1p-53);
}

/* Laplace (double exponential) with variance 1: tails far heavier than the
 * normal's (kurtosis 6), as a shared runner's nights have. */
static double rng_laplace(struct stats_rng *rng)
{
	double magnitude = -log(stats_rng_uniform(rng)) / M_SQRT2;

	return stats_rng_uniform(rng) < 0.5 ? -magnitude : magnitude;
}

/*
 * One history: level[i] the true level, each point SAMPLES runs
 * level * exp(u_i + e_ij), u_i the commit-to-commit noise (sd cv) and
 * e_ij the runs' own (sd cv / 2): a commit's runs agree better than two
 * commits do. Planted change locations go to *truth with their signs.
 */
struct history {
	size_t n;
	double *samples; /* n * SAMPLES */
	struct changepoint_input *points;
	struct locations truth;
	int *sign; /* per truth location */
};

static void history_generate(struct history *h, struct stats_rng *rng,
			     enum noise noise, enum shape shape,
			     const struct options *opts)
{
	size_t n = opts->length, next;
	double level = 1, drift = 0;
	size_t sign_alloc = 0;

	memset(h, 0, sizeof(*h));
	h->n = n;
	h->samples = xmalloc(n * SAMPLES * sizeof(*h->samples));
	h->points = xmalloc(n * sizeof(*h->points));
	next = GAP_MIN + (size_t)(stats_rng_uniform(rng) * (GAP_MAX - GAP_MIN));
	for (size_t i = 0; i < n; i++) {
		double u, *run = h->samples + i * SAMPLES;

		if (shape == SHAPE_STEPS && i == next && i + GAP_MIN <= n) {
			int sign = stats_rng_uniform(rng) < 0.5 ? -1 : 1;

			level *= 1 + sign * STEP;
			locations_add(&h->truth, i);
			ALLOC_GROW(h->sign, h->truth.nr, sign_alloc);
			h->sign[h->truth.nr - 1] = sign;
			next = i + GAP_MIN +
			       (size_t)(stats_rng_uniform(rng) *
					(GAP_MAX - GAP_MIN));
		}
		if (shape == SHAPE_CREEP && i >= n / 2 && i < n / 2 + CREEP_LEN)
			level *= pow(1 + STEP, 1.0 / CREEP_LEN);
		u = opts->cv *
		    (noise == NOISE_HEAVY ? rng_laplace(rng) : rng_normal(rng));
		if (noise == NOISE_DRIFT) {
			drift = DRIFT_PHI * drift +
				sqrt(1 - DRIFT_PHI * DRIFT_PHI) * u;
			u = drift;
		}
		if (noise == NOISE_HEAVY && stats_rng_uniform(rng) < BAD_NIGHTS)
			u += log(1 + BAD_MIN +
				 (BAD_MAX - BAD_MIN) * stats_rng_uniform(rng));
		for (size_t j = 0; j < SAMPLES; j++)
			run[j] =
				level * exp(u + opts->cv / 2 * rng_normal(rng));
		h->points[i] = (struct changepoint_input){
			.median = stats_median(run, SAMPLES),
			.samples = run,
			.n = SAMPLES,
		};
	}
}

static void history_release(struct history *h)
{
	free(h->samples);
	free(h->points);
	free(h->sign);
	locations_release(&h->truth);
}

struct tally {
	size_t series, points, planted, found, false_cps, creep_found;
	double f1, append_f1;
	size_t append_equal, append_checked;
};

/* Planted steps found: a detected change within MARGIN, in the planted
 * direction, each detection used once (closest first). */
static void score_steps(struct tally *t, const struct history *h,
			const struct changepoint_list *list)
{
	bool *used = xcalloc(list->nr + 1, sizeof(*used));
	size_t matched = 0;

	for (size_t s = 0; s < h->truth.nr; s++) {
		size_t best = list->nr;

		for (size_t x = 0; x < list->nr; x++) {
			const struct changepoint *cp = &list->items[x];

			if (used[x] ||
			    distance(cp->index, h->truth.at[s]) > MARGIN ||
			    (cp->change > 0) != (h->sign[s] > 0))
				continue;
			if (best == list->nr ||
			    distance(cp->index, h->truth.at[s]) <
				    distance(list->items[best].index,
					     h->truth.at[s]))
				best = x;
		}
		if (best < list->nr) {
			used[best] = true;
			matched++;
		}
	}
	t->planted += h->truth.nr;
	t->found += matched;
	t->false_cps += list->nr - matched;
	free(used);
}

static bool same_indices(const struct changepoint_list *a,
			 const struct changepoint_list *b)
{
	if (a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++)
		if (a->items[i].index != b->items[i].index)
			return false;
	return true;
}

/* The list changepoint_append() builds night by night from the first 20
 * points on. */
static void build_by_append(struct changepoint_list *list,
			    const struct changepoint_input *points, size_t n)
{
	size_t start = n < 20 ? n : 20;

	changepoint_detect(list, points, start, NULL);
	for (size_t i = start + 1; i <= n; i++)
		changepoint_append(list, points, i, NULL);
}

static void run_cell(struct tally *t, enum noise noise, enum shape shape,
		     bool with_samples, size_t check_append,
		     const struct options *opts)
{
	struct stats_rng rng;

	memset(t, 0, sizeof(*t));
	stats_rng_seed(&rng, opts->seed + 1000 * noise + 100 * shape);
	for (size_t s = 0; s < opts->series; s++) {
		struct history h;
		struct changepoint_list list = { 0 };
		struct locations pred = { 0 };

		history_generate(&h, &rng, noise, shape, opts);
		if (!with_samples)
			for (size_t i = 0; i < h.n; i++)
				h.points[i].samples = NULL;
		changepoint_detect(&list, h.points, h.n, NULL);
		t->series++;
		t->points += h.n;
		for (size_t i = 0; i < list.nr; i++)
			locations_add(&pred, list.items[i].index);
		t->f1 += f1_score(&h.truth, 1, &pred);
		if (shape == SHAPE_CREEP) {
			size_t first = h.n / 2, last = h.n / 2 + CREEP_LEN;
			bool found = false;

			for (size_t i = 0; i < list.nr; i++) {
				const struct changepoint *cp = &list.items[i];
				bool inside = cp->index + MARGIN >= first &&
					      cp->index <= last + MARGIN;

				if (inside && cp->change > 0)
					found = true;
				else
					t->false_cps++;
			}
			t->creep_found += found;
		} else {
			score_steps(t, &h, &list);
		}
		if (s < check_append) {
			struct changepoint_list built = { 0 };

			struct locations appended = { 0 };

			build_by_append(&built, h.points, h.n);
			t->append_equal += same_indices(&built, &list);
			for (size_t i = 0; i < built.nr; i++)
				locations_add(&appended, built.items[i].index);
			t->append_f1 += f1_score(&h.truth, 1, &appended);
			locations_release(&appended);
			t->append_checked++;
			changepoint_list_release(&built);
		}
		locations_release(&pred);
		changepoint_list_release(&list);
		history_release(&h);
	}
}

static void report_generated(struct strbuf *out, const struct options *opts)
{
	bool met = true;

	strbuf_addf(
		out,
		"## Generated histories, default settings\n\n"
		"%zu series of %zu points per row, each point %d runs; "
		"commit-to-commit CV %.1f %%, runs within a commit "
		"CV %.1f %%; planted steps of %.0f %% every %d to %d "
		"points, up or down; creep: %.0f %% over %d points in "
		"the middle; heavy-tailed: commit noise Laplace, and %.0f %% "
		"of nights %.0f-%.0f %% slower as a whole; drifting: "
		"commit noise AR(1) with lag-1 correlation %.1f, the "
		"same variance. Found: a "
		"change point within %d points in the planted "
		"direction (for a creep: in the planted direction, from "
		"%d points before it starts to %d after it ends). False: "
		"every other change point. F1 as for TCPD, the planted "
		"steps the one annotator. append = detect: of the first 10 "
		"series, how many got the same change points from "
		"changepoint_append() night by night (from the 20th point) "
		"as from changepoint_detect(), and the F1 of the former.\n\n"
		"| noise | samples | shape | planted found | false per "
		"1,000 points | F1 | append = detect |\n"
		"|---|---|---|---|---|---|---|\n",
		opts->series, opts->length, SAMPLES, 100 * opts->cv,
		50 * opts->cv, 100 * STEP, GAP_MIN, GAP_MAX, 100 * STEP,
		CREEP_LEN, 100 * BAD_NIGHTS, 100 * BAD_MIN, 100 * BAD_MAX,
		DRIFT_PHI, MARGIN, MARGIN, MARGIN);
	for (int noise = 0; noise < NOISE_COUNT; noise++) {
		for (int with = 1; with >= 0; with--) {
			for (int shape = 0; shape < SHAPE_COUNT; shape++) {
				struct tally t;
				double per_k;

				run_cell(&t, noise, shape, with,
					 shape == SHAPE_STEPS ? 10 : 0, opts);
				per_k = 1000.0 * (double)t.false_cps /
					(double)t.points;
				strbuf_addf(out, "| %s | %s | %s | ",
					    noise_names[noise],
					    with ? "yes" : "medians only",
					    shape == SHAPE_STEPS  ? "steps"
					    : shape == SHAPE_FLAT ? "flat"
								  : "creep");
				if (shape == SHAPE_STEPS)
					strbuf_addf(out, "%.1f %% of %zu",
						    100.0 * (double)t.found /
							    (double)t.planted,
						    t.planted);
				else if (shape == SHAPE_CREEP)
					strbuf_addf(
						out, "%.1f %% of %zu",
						100.0 * (double)t.creep_found /
							(double)t.series,
						t.series);
				else
					strbuf_addstr(out, "-");
				/* a creep has no one position to score */
				if (shape == SHAPE_CREEP)
					strbuf_addf(out, " | %.2f | - | ",
						    per_k);
				else
					strbuf_addf(out, " | %.2f | %.3f | ",
						    per_k,
						    t.f1 / (double)t.series);
				if (t.append_checked)
					strbuf_addf(
						out, "%zu of %zu (F1 %.3f) |\n",
						t.append_equal,
						t.append_checked,
						t.append_f1 /
							(double)t.append_checked);
				else
					strbuf_addstr(out, "- |\n");
				if (shape == SHAPE_STEPS &&
				    noise == NOISE_NORMAL)
					met &= t.found >= 0.9 * t.planted;
				if (noise == NOISE_NORMAL)
					met &= per_k < 1;
			}
		}
	}
	strbuf_addf(out,
		    "\nTarget: >= 90 %% of planted %.0f %% steps at CV "
		    "%.0f %% found within %d points, < 1 false change point "
		    "per 1,000 points (normal noise): %s.\n\n",
		    100 * STEP, 100 * opts->cv, MARGIN,
		    met ? "met" : "NOT met");
}

/* 3. The corpus of issue 27: the histories the nightly must get right */

#define IC_RUNS	      8
#define IC_RUN_CV     0.01 /* the runs of one night */
#define IC_COMMIT_CV  0.01 /* from commit to commit */

enum scenario {
	SC_STAIRCASE,
	SC_SHORT,
	SC_CREEP,
	SC_OUTLIERS,
	SC_LOAD,
	SC_COMBINED,
	SC_COUNT
};
static const char *const scenario_names[SC_COUNT] = {
	"staircase: 3 steps of +10-40 %, 10-15 commits apart",
	"short-lived: +30 % for 4, 8 and 12 commits, then fixed",
	"creep: +1 % a commit for 15 commits",
	"outlier nights: 3 % of nights +20-100 %",
	"load bursts: 1-3 busy nights +10-50 %, recorded load",
	"all of them in one history (300 points)",
};

enum method {
	M_BENCHGATE,
	M_MEDIANS,
	M_BINSEG,
	M_PELT,
	M_COUNT
};
static const char *const method_names[M_COUNT] = {
	"benchgate (samples, load)",
	"benchgate (medians only)",
	"binseg (R changepoint defaults)",
	"PELT (R changepoint defaults)",
};

/* A planted truth: a step at `at` going `sign`, or a creep over
 * [at, end) (end > at). */
struct planted {
	size_t at, end;
	int sign;
};

struct ic_history {
	size_t n;
	double *samples;
	struct changepoint_input *points;
	struct planted truth[16];
	size_t truth_nr;
};

static void ic_plant(struct ic_history *h, size_t at, size_t end, int sign)
{
	h->truth[h->truth_nr++] = (struct planted){ at, end, sign };
}

static void ic_generate(struct ic_history *h, struct stats_rng *rng,
			enum scenario sc)
{
	size_t n = sc == SC_COMBINED ? 300 : 200;
	double *factor = xcalloc(n, sizeof(*factor));
	double *busy = xcalloc(n, sizeof(*busy));
	double *burst = xcalloc(n, sizeof(*burst));
	double level = 1;

	memset(h, 0, sizeof(*h));
	h->n = n;
	h->samples = xmalloc(n * IC_RUNS * sizeof(*h->samples));
	h->points = xmalloc(n * sizeof(*h->points));
	for (size_t i = 0; i < n; i++)
		factor[i] = 1;
	if (sc == SC_STAIRCASE || sc == SC_COMBINED) {
		size_t at = 30 + (size_t)(30 * stats_rng_uniform(rng));

		for (int k = 0; k < 3; k++) {
			double step = 0.10 + 0.30 * stats_rng_uniform(rng);

			for (size_t i = at; i < n; i++)
				factor[i] *= 1 + step;
			ic_plant(h, at, at, 1);
			at += 10 + (size_t)(6 * stats_rng_uniform(rng));
		}
	}
	if (sc == SC_SHORT || sc == SC_COMBINED) {
		size_t first = sc == SC_COMBINED ? 130 : 30;
		size_t lasted[3] = { 4, 8, 12 };

		for (int k = 0; k < 3; k++) {
			size_t at = first + 50 * (size_t)k;

			for (size_t i = at; i < at + lasted[k]; i++)
				factor[i] *= 1.3;
			ic_plant(h, at, at, 1);
			ic_plant(h, at + lasted[k], at + lasted[k], -1);
		}
	}
	if (sc == SC_CREEP) {
		for (size_t i = 80; i < n; i++)
			factor[i] *= pow(1.01, (double)(i < 95 ? i - 79 : 15));
		ic_plant(h, 80, 95, 1);
	}
	if (sc == SC_OUTLIERS || sc == SC_COMBINED)
		for (size_t i = 0; i < n; i++)
			if (stats_rng_uniform(rng) < 0.03)
				burst[i] = 0.2 + 0.8 * stats_rng_uniform(rng);
	if (sc == SC_LOAD || sc == SC_COMBINED)
		for (int k = 0; k < 4; k++) {
			size_t at = 10 + (size_t)((double)(n - 20) *
						  stats_rng_uniform(rng));
			size_t len = 1 + (size_t)(3 * stats_rng_uniform(rng));
			double cores = 1 + 2 * stats_rng_uniform(rng);
			double slower = 0.1 + 0.4 * stats_rng_uniform(rng);

			for (size_t i = at; i < at + len && i < n; i++) {
				busy[i] = cores;
				burst[i] = slower;
			}
		}
	for (size_t i = 0; i < n; i++) {
		double *run = h->samples + i * IC_RUNS;
		double u = IC_COMMIT_CV * rng_normal(rng);
		double spread = IC_RUN_CV * (busy[i] > 0 ? 3 : 1);

		level = factor[i] * (1 + burst[i]);
		for (size_t j = 0; j < IC_RUNS; j++)
			run[j] = level * exp(u + spread * rng_normal(rng));
		h->points[i] = (struct changepoint_input){
			.median = stats_median(run, IC_RUNS),
			.samples = run,
			.n = IC_RUNS,
			.busy = busy[i],
		};
	}
	free(factor);
	free(busy);
	free(burst);
}

static void ic_release(struct ic_history *h)
{
	free(h->samples);
	free(h->points);
}

/*
 * The published defaults of the peers, as TCPDBench's default experiment
 * ran them (R changepoint: cpt.meanvar, normal likelihood, MBIC penalty,
 * minimum segment 2; binary segmentation with at most Q = 5 changes):
 * the cost of a segment is n (log 2 pi + log var + 1) with var its
 * maximum-likelihood variance, the penalty 3 ln n per change (the MBIC's
 * per-change term; its segment-length term is left out here). On the
 * medians, one value a commit, which is what they are given.
 */
struct mv_sums {
	double *s1, *s2;
	double floor;
};

static void mv_init(struct mv_sums *m, const struct changepoint_input *p,
		    size_t n)
{
	double mean = 0;

	m->s1 = xmalloc((n + 1) * sizeof(*m->s1));
	m->s2 = xmalloc((n + 1) * sizeof(*m->s2));
	m->s1[0] = m->s2[0] = 0;
	for (size_t i = 0; i < n; i++)
		mean += p[i].median / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = p[i].median - mean;

		m->s1[i + 1] = m->s1[i] + d;
		m->s2[i + 1] = m->s2[i] + d * d;
	}
	m->floor = 1e-12 * (m->s2[n] / (double)n + 1e-300);
}

static double mv_cost(const struct mv_sums *m, size_t a, size_t b)
{
	double len = (double)(b - a), s1 = m->s1[b] - m->s1[a];
	double var = (m->s2[b] - m->s2[a] - s1 * s1 / len) / len;

	if (var < m->floor)
		var = m->floor;
	return len * (log(2 * M_PI) + log(var) + 1);
}

#define MV_MIN 2

static void peer_pelt(struct locations *out, const struct changepoint_input *p,
		      size_t n)
{
	struct mv_sums m;
	double pen = 3 * log((double)n), *f = xmalloc((n + 1) * sizeof(*f));
	size_t *last = xmalloc((n + 1) * sizeof(*last));
	size_t *cand = xmalloc((n + 1) * sizeof(*cand)), nc = 0;

	mv_init(&m, p, n);
	f[0] = -pen;
	cand[nc++] = 0;
	for (size_t t = MV_MIN; t <= n; t++) {
		size_t kept = 0;

		f[t] = INFINITY;
		last[t] = 0;
		for (size_t c = 0; c < nc; c++) {
			double v = f[cand[c]] + mv_cost(&m, cand[c], t) + pen;

			if (v < f[t]) {
				f[t] = v;
				last[t] = cand[c];
			}
		}
		for (size_t c = 0; c < nc; c++)
			if (f[cand[c]] + mv_cost(&m, cand[c], t) <= f[t])
				cand[kept++] = cand[c];
		nc = kept;
		if (t + 1 >= 2 * MV_MIN)
			cand[nc++] = t + 1 - MV_MIN;
	}
	for (size_t t = last[n]; t > 0; t = last[t])
		locations_add(out, t);
	free(f);
	free(last);
	free(cand);
	free(m.s1);
	free(m.s2);
}

static void peer_binseg(struct locations *out,
			const struct changepoint_input *p, size_t n)
{
	struct mv_sums m;
	double pen = 3 * log((double)n), total[6], best_total;
	size_t cps[5], ncps = 0, best_k = 0;

	mv_init(&m, p, n);
	total[0] = mv_cost(&m, 0, n);
	for (size_t q = 0; q < 5; q++) {
		struct locations cur = { 0 };
		double gain = 0;
		size_t at = 0;

		for (size_t i = 0; i < ncps; i++)
			locations_add(&cur, cps[i]);
		for (size_t j = 0; j <= cur.nr; j++) {
			size_t a = j ? cur.at[j - 1] : 0,
			       b = j < cur.nr ? cur.at[j] : n;
			double whole = mv_cost(&m, a, b);

			for (size_t k = a + MV_MIN; k + MV_MIN <= b; k++) {
				double g = whole - mv_cost(&m, a, k) -
					   mv_cost(&m, k, b);

				if (g > gain) {
					gain = g;
					at = k;
				}
			}
		}
		locations_release(&cur);
		if (!at)
			break;
		cps[ncps++] = at;
		total[ncps] = total[ncps - 1] - gain;
	}
	best_total = total[0];
	for (size_t k = 1; k <= ncps; k++)
		if (total[k] + (double)k * pen < best_total) {
			best_total = total[k] + (double)k * pen;
			best_k = k;
		}
	for (size_t k = 0; k < best_k; k++)
		locations_add(out, cps[k]);
}

struct ic_tally {
	size_t points, planted, found, false_cps, series;
	double f1;
};

static void ic_predict(struct locations *out, enum method m,
		       struct ic_history *h)
{
	switch (m) {
	case M_BENCHGATE:
		predict(out, h->points, h->n);
		break;
	case M_MEDIANS: {
		struct changepoint_input *bare =
			xmalloc(h->n * sizeof(*bare));

		for (size_t i = 0; i < h->n; i++)
			bare[i] = (struct changepoint_input){
				.median = h->points[i].median
			};
		predict(out, bare, h->n);
		free(bare);
		break;
	}
	case M_BINSEG:
		peer_binseg(out, h->points, h->n);
		break;
	default:
		peer_pelt(out, h->points, h->n);
		break;
	}
}

/* Found: a prediction within MARGIN of a planted step (of a creep: from
 * MARGIN before it starts to MARGIN after it ends; every prediction there
 * is the creep's), each prediction used once. Direction is not checked:
 * the peers report none. */
static void ic_score(struct ic_tally *t, const struct ic_history *h,
		     const struct locations *pred)
{
	bool *used = xcalloc(pred->nr + 1, sizeof(*used));
	struct locations truth = { 0 };
	size_t matched = 0;

	for (size_t k = 0; k < h->truth_nr; k++) {
		const struct planted *pl = &h->truth[k];
		size_t best = pred->nr;

		locations_add(&truth, pl->at);
		for (size_t x = 0; x < pred->nr; x++) {
			bool near = pl->end > pl->at
					    ? pred->at[x] + MARGIN >= pl->at &&
						      pred->at[x] <=
							      pl->end + MARGIN
					    : distance(pred->at[x], pl->at) <=
						      MARGIN;

			if (!near)
				continue;
			if (pl->end > pl->at && used[x] == false &&
			    best < pred->nr) {
				used[x] = true; /* another piece of it */
				continue;
			}
			if (used[x])
				continue;
			if (best == pred->nr ||
			    distance(pred->at[x], pl->at) <
				    distance(pred->at[best], pl->at))
				best = x;
		}
		if (best < pred->nr) {
			used[best] = true;
			matched++;
		}
	}
	t->planted += h->truth_nr;
	t->found += matched;
	for (size_t x = 0; x < pred->nr; x++)
		t->false_cps += !used[x];
	t->points += h->n;
	t->series++;
	t->f1 += f1_score(&truth, 1, pred);
	locations_release(&truth);
	free(used);
}

static void report_issue_corpus(struct strbuf *out, const struct options *opts)
{
	bool met = true;

	strbuf_addf(
		out,
		"## Issue 27's corpus: staircases, short-lived regressions, "
		"creep, outlier nights, load bursts\n\n"
		"%zu histories per scenario, 200 points each (300 for the "
		"last), seed %llu + 7; every point %d runs, runs within a "
		"night CV %.0f %%, commit to commit CV %.0f %%; a busy night "
		"records 1-3 busy cores (`busy`) and its runs spread three "
		"times as much. Found: a change point within %d commits of a "
		"planted step (of a creep: from %d before it starts to %d "
		"after it ends; every change point there is the creep's). "
		"False: every other change point, per 1,000 points. F1 as "
		"for TCPD (the start counted). The peers get the medians.\n\n"
		"| scenario | method | found | missed | false per 1,000 "
		"points | F1 |\n|---|---|---|---|---|---|\n",
		opts->series, (unsigned long long)opts->seed, IC_RUNS,
		100 * IC_RUN_CV, 100 * IC_COMMIT_CV, MARGIN, MARGIN, MARGIN);
	for (int sc = 0; sc < SC_COUNT; sc++)
		for (int m = 0; m < M_COUNT; m++) {
			struct ic_tally t = { 0 };
			struct stats_rng rng;
			double per_k;

			stats_rng_seed(&rng, opts->seed + 7 + 100 * (uint64_t)sc);
			for (size_t i = 0; i < opts->series; i++) {
				struct ic_history h;
				struct locations pred = { 0 };

				ic_generate(&h, &rng, sc);
				ic_predict(&pred, m, &h);
				ic_score(&t, &h, &pred);
				locations_release(&pred);
				ic_release(&h);
			}
			per_k = 1000.0 * (double)t.false_cps / (double)t.points;
			strbuf_addf(out, "| %s | %s | ",
				    m ? "" : scenario_names[sc],
				    method_names[m]);
			if (t.planted)
				strbuf_addf(out, "%zu of %zu | %zu |", t.found,
					    t.planted, t.planted - t.found);
			else
				strbuf_addstr(out, "- | - |");
			strbuf_addf(out, " %.2f | %.3f |\n", per_k,
				    t.f1 / (double)t.series);
			if (m == M_BENCHGATE)
				met &= t.found == t.planted && per_k < 1;
		}
	strbuf_addf(out,
		    "\nTarget (benchgate with samples and load): every "
		    "planted step found within %d commits, < 1 false change "
		    "point per 1,000 points in every scenario: %s.\n\n",
		    MARGIN, met ? "met" : "NOT met");
}

static const char usage[] =
	"usage: bench_changepoint [--tcpd DIR] [--series N] [--length N] "
	"[--cv X] [--seed N] [--out FILE]\n";

static int parse_options(struct options *opts, int argc, char **argv)
{
	opts->series = 100;
	opts->length = 1000;
	opts->cv = 0.02;
	opts->seed = 20261125;
	opts->tcpd = TCPD_DIR;
	opts->out = NULL;
	/* options come in pairs: --name value */
	for (int i = 1; i < argc; i += 2) {
		const char *arg = argv[i],
			   *value = i + 1 < argc ? argv[i + 1] : NULL;

		if (!value)
			return -1;
		if (!strcmp(arg, "--tcpd"))
			opts->tcpd = value;
		else if (!strcmp(arg, "--series"))
			opts->series = strtoul(value, NULL, 10);
		else if (!strcmp(arg, "--length"))
			opts->length = strtoul(value, NULL, 10);
		else if (!strcmp(arg, "--cv"))
			opts->cv = strtod(value, NULL);
		else if (!strcmp(arg, "--seed"))
			opts->seed = strtoull(value, NULL, 10);
		else if (!strcmp(arg, "--out"))
			opts->out = value;
		else
			return -1;
	}
	if (!opts->series || opts->length < 2 * GAP_MAX || !(opts->cv > 0))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct options opts;
	struct strbuf out = STRBUF_INIT;
	struct changepoint_options defaults;

	if (parse_options(&opts, argc, argv) < 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (check_metrics() < 0)
		return 1;
	changepoint_options_init(&defaults);
	strbuf_addf(&out,
		    "# Change-point detection (bench_changepoint)\n\n"
		    "Defaults: significance %g, minimum change %g, minimum "
		    "segment %zu points. Seed %llu.\n\n",
		    defaults.significance, defaults.min_change,
		    defaults.min_segment, (unsigned long long)opts.seed);
	report_tcpd(&out, opts.tcpd);
	report_issue_corpus(&out, &opts);
	report_generated(&out, &opts);
	fputs(out.buf, stdout);
	if (opts.out) {
		FILE *f = fopen(opts.out, "w");

		if (!f || fputs(out.buf, f) < 0 || fclose(f)) {
			fprintf(stderr, "bench_changepoint: %s: %s\n", opts.out,
				strerror(errno));
			return 2;
		}
	}
	strbuf_release(&out);
	return 0;
}
