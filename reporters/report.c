/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/report.h"

#include "reporters/escape.h"
#include "reporters/gnuplot.h"

#include "harness/gate/compare.h"
#include "harness/gate/stats.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/format.h"

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The model */

/* An interval says something when both ends are finite and apart: one
 * that no test could bound is infinite (a single run, a zero baseline),
 * and an exact metric's is a point. */
static bool shows_interval(const struct metric_comparison *mc)
{
	return !mc->exact && isfinite(mc->change_low) &&
	       isfinite(mc->change_high) && mc->change_low != mc->change_high;
}

/* "<value> [<low>, <high>]", each number as `add` writes it. */
static char *interval_text(void (*add)(struct strbuf *, double), double value,
			   double low, double high)
{
	struct strbuf text = STRBUF_INIT;

	add(&text, value);
	strbuf_addstr(&text, " [");
	add(&text, low);
	strbuf_addstr(&text, ", ");
	add(&text, high);
	strbuf_addch(&text, ']');
	return strbuf_detach(&text, NULL);
}

/* "+6.5% [+4.8%, +8.1%]": the one place a change becomes text. An
 * interval too few runs could bound says so in words, not as
 * [-100.0%, +inf%]. */
static char *relative_text(const struct metric_comparison *mc, bool interval)
{
	struct strbuf text = STRBUF_INIT;

	if (interval)
		return interval_text(format_change, mc->change, mc->change_low,
				     mc->change_high);
	format_change(&text, mc->change);
	if (!mc->exact && mc->has_baseline && mc->has_candidate &&
	    !compare_is_bounded(mc))
		strbuf_addstr(&text, " (too few runs to bound)");
	return strbuf_detach(&text, NULL);
}

static double relative_threshold(const struct metric_comparison *mc)
{
	double level = fabs(mc->baseline.median);

	if (!mc->exact)
		return mc->threshold;
	return level > 0 ? mc->tolerance / level : NAN;
}

/* Names compare as strings, NULL as "". */
static int compare_names(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* A case's names and what holds them (a result's case, a comparison's
 * item), to sort by. */
struct case_key {
	const char *names[3]; /* benchmark, variant, device */
	const void *place;    /* the holder: its order in its array */
};

/* Orders cases by benchmark, variant and device. */
static int compare_case_names(const char *const a[3], const char *const b[3])
{
	int order = 0;

	for (size_t i = 0; !order && i < 3; i++)
		order = compare_names(a[i], b[i]);
	return order;
}

/* By names, then each name's holders in their order. */
static int compare_case_keys(const void *a, const void *b)
{
	const struct case_key *x = a, *y = b;
	int order = compare_case_names(x->names, y->names);
	const char *xp = x->place, *yp = y->place;

	return order ? order : xp < yp ? -1 : xp > yp;
}

/* The cases of a result sorted by name, each name's first case first, so
 * that finding an item's case is a binary search that finds what
 * result_find_case() finds: one scan per item was quadratic in the
 * cases. */
struct case_index {
	struct case_key *keys;
	size_t nr;
};

static void case_index_build(struct case_index *index,
			     const struct result *result)
{
	index->nr = result ? result->cases_nr : 0;
	index->keys = xmalloc((index->nr + 1) * sizeof(*index->keys));
	for (size_t i = 0; i < index->nr; i++) {
		const struct result_case *c = &result->cases[i];

		index->keys[i] = (struct case_key){
			{ c->benchmark, c->variant, c->device }, c
		};
	}
	qsort(index->keys, index->nr, sizeof(*index->keys), compare_case_keys);
}

static const struct result_case *
case_index_find(const struct case_index *index,
		const struct metric_comparison *mc)
{
	const char *want[3] = { mc->benchmark, mc->variant, mc->device };
	size_t low = 0, high = index->nr;

	/* the first case not below want */
	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (compare_case_names(index->keys[mid].names, want) < 0)
			low = mid + 1;
		else
			high = mid;
	}
	if (low == index->nr ||
	    compare_case_names(index->keys[low].names, want))
		return NULL;
	return index->keys[low].place;
}

/* The indexes of the model's results, for the time of its building. */
struct model_indexes {
	struct case_index baseline, candidate;
	struct case_index *history; /* model->history_nr of them */
};

/* The samples of mc's case and metric in an indexed result, when it
 * measured them. */
static const struct metric_samples *
raw_metric(const struct case_index *index, const struct metric_comparison *mc)
{
	const struct result_case *rcase = case_index_find(index, mc);
	const struct metric_samples *metric;

	if (!rcase || rcase->status != CASE_OK ||
	    !(metric = result_case_find_metric(rcase, mc->metric)) ||
	    !metric->nr)
		return NULL;
	return metric;
}

static void derive_history(struct report_item *item,
			   const struct report_model *model,
			   const struct model_indexes *indexes,
			   const struct metric_comparison *mc)
{
	size_t alloc = 0;
	double *medians;

	for (size_t i = model->history_nr; i-- > 0;) {
		const struct result *result = model->history[i];
		const struct metric_samples *metric;
		struct stats_summary summary;
		struct report_point *point;

		if (result == model->candidate ||
		    !(metric = raw_metric(&indexes->history[i], mc)) ||
		    stats_summarize(metric->samples, metric->nr,
				    model->confidence, (uint64_t)i + 1,
				    &summary) < 0)
			continue;
		ALLOC_GROW(item->history, item->history_nr + 1, alloc);
		point = &item->history[item->history_nr++];
		point->commit = result->git.commit;
		point->median = summary.median;
		point->ci_low = summary.ci_low;
		point->ci_high = summary.ci_high;
	}
	/* Below 3 commits there is no spread to speak of. */
	if (item->history_nr < 3)
		return;
	medians = xmalloc(item->history_nr * sizeof(*medians));
	for (size_t i = 0; i < item->history_nr; i++)
		medians[i] = item->history[i].median;
	item->has_band = true;
	item->band_center = stats_median(medians, item->history_nr);
	item->band_spread = stats_mad_scaled(medians, item->history_nr);
	free(medians);
}

void report_series_levels(const struct history_series *series,
			  struct report_level *levels)
{
	double *medians = xmalloc((series->points_nr + 1) * sizeof(*medians));

	for (size_t i = 0; i <= series->changes_nr; i++) {
		struct report_level *level = &levels[i];
		size_t nr;

		level->first = i ? series->changes[i - 1].at.index : 0;
		level->end = i < series->changes_nr
				     ? series->changes[i].at.index
				     : series->points_nr;
		nr = level->end - level->first;
		for (size_t j = 0; j < nr; j++)
			medians[j] = series->points[level->first + j].median;
		level->center = nr ? stats_median(medians, nr) : NAN;
		/* As derive_history(): below 3 points no spread to speak of. */
		level->spread = nr >= 3 ? stats_mad_scaled(medians, nr) : 0;
	}
	free(medians);
}

static void derive_samples(struct report_samples *out,
			   const struct metric_samples *metric)
{
	double *v = xmalloc((metric->nr + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < metric->nr; i++)
		if (isfinite(metric->samples[i]))
			v[n++] = metric->samples[i];
	out->values = v;
	out->nr = n;
	if (!n)
		return;
	out->box.q1 = stats_percentile(v, n, 25);
	out->box.min = stats_min(v, n);
	out->box.max = stats_max(v, n);
	out->box.q3 = stats_percentile(v, n, 75);
	out->box.median = stats_median(v, n);
}

/* Whether mc's values are accuracies as fractions (no unit), whose
 * differences read in percentage points; a result without roles keeps
 * the name the variant table goes by (compare.c). */
static bool is_accuracy(const struct metric_comparison *mc)
{
	return (mc->role ? !strcmp(mc->role, "accuracy")
			 : strstr(mc->metric, "accuracy") != NULL) &&
	       (!mc->unit || !*mc->unit);
}

/* A difference of mc's values, as every report shows it: "-0.34 pts"
 * for an accuracy, "+61.7 KiB" with the unit otherwise; signed when
 * `sign`, else the size of a tolerance. */
static void add_difference(struct strbuf *out,
			   const struct metric_comparison *mc, double value,
			   bool sign)
{
	struct strbuf text = STRBUF_INIT;

	if (is_accuracy(mc)) {
		format_points(&text, value);
	} else {
		if (value > 0)
			strbuf_addch(&text, '+');
		format_quantity(&text, value, mc->unit);
	}
	strbuf_addstr(out, !sign && text.buf[0] == '+' ? text.buf + 1
						       : text.buf);
	strbuf_release(&text);
}

/* "±3.0%", "±0.20 pts": the threshold both ways, in the change's terms. */
static char *limit_text(const struct metric_comparison *mc)
{
	struct strbuf text = STRBUF_INIT, number = STRBUF_INIT;

	if (mc->exact)
		add_difference(&number, mc, mc->tolerance, false);
	else if (isfinite(mc->threshold))
		format_change(&number, fabs(mc->threshold));
	if (number.len)
		strbuf_addf(&text, "\u00b1%s",
			    number.buf + (number.buf[0] == '+'));
	else
		strbuf_addch(&text, '-');
	strbuf_release(&number);
	return strbuf_detach(&text, NULL);
}

static void derive_item(struct report_item *item,
			const struct report_model *model,
			const struct model_indexes *indexes,
			const struct metric_comparison *mc)
{
	const struct metric_samples *base = raw_metric(&indexes->baseline, mc);
	const struct metric_samples *cand = raw_metric(&indexes->candidate, mc);
	struct strbuf text = STRBUF_INIT;

	item->compared = mc->has_baseline && mc->has_candidate;
	item->has_interval = shows_interval(mc);
	item->relative = relative_text(mc, item->has_interval);
	if (!item->compared) {
		item->difference = xstrdup("-");
		item->change = xstrdup("-");
	} else {
		add_difference(&text, mc,
			       mc->candidate.median - mc->baseline.median,
			       true);
		item->difference = strbuf_detach(&text, NULL);
		if (mc->exact) {
			strbuf_addf(&text, "%s (tolerance ",
				    item->difference);
			add_difference(&text, mc, mc->tolerance, false);
			strbuf_addch(&text, ')');
		} else {
			strbuf_addstr(&text, item->relative);
		}
		item->change = strbuf_detach(&text, NULL);
	}
	item->threshold = relative_threshold(mc);
	item->limit = limit_text(mc);
	derive_history(item, model, indexes, mc);
	if (base && cand) {
		derive_samples(&item->baseline_samples, base);
		derive_samples(&item->candidate_samples, cand);
	}
}

/* "15.3× → 3.95×": how a variant's number moved from the baseline. */
static char *move_text(void (*format)(struct strbuf *, double), double before,
		       double after)
{
	struct strbuf text = STRBUF_INIT;

	format_move(&text, format, before, after);
	return strbuf_detach(&text, NULL);
}

static void derive_variant(struct report_variant *out,
			   const struct variant_comparison *vc)
{
	out->speedup = interval_text(format_ratio, vc->speedup,
				     vc->speedup_low, vc->speedup_high);
	out->speedup_move =
		move_text(format_ratio, vc->baseline_speedup, vc->speedup);
	out->size = move_text(format_ratio, vc->baseline_size_ratio,
			      vc->size_ratio);
	out->accuracy = move_text(format_points, vc->baseline_accuracy_delta,
				  vc->accuracy_delta);
}

static void derive_case(struct report_case *out, const struct result_case *c)
{
	out->metrics = xcalloc(c->metrics_nr + 1, sizeof(*out->metrics));
	for (size_t j = 0; j < c->metrics_nr; j++) {
		const struct metric_samples *m = &c->metrics[j];

		out->metrics[j].median = m->nr ? stats_median(m->samples, m->nr)
					       : NAN;
		out->metrics[j].spread =
			m->nr ? stats_robust_cv(m->samples, m->nr) : NAN;
	}
}

/* Chart selection */

/* One case of the comparison, as the chart bound ranks it. */
struct case_rank {
	size_t first; /* the index of its first item */
	bool regression;
	double change; /* the largest |change| of its items; -1: none */
};

/* Regressions first, then the largest change, then the comparison's
 * order: the cases a reader looks at first. */
static int compare_ranks(const void *a, const void *b)
{
	const struct case_rank *x = a, *y = b;

	if (x->regression != y->regression)
		return x->regression ? -1 : 1;
	if (x->change != y->change)
		return x->change > y->change ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Sets cases_nr, charted_cases_nr and each item's `charted`. */
static void choose_charted(struct report_model *model)
{
	const struct comparison *c = model->comparison;
	size_t bound = model->chart_cases ? model->chart_cases
					  : REPORT_CHART_CASES_DEFAULT;
	struct case_key *by_case = xmalloc((c->nr + 1) * sizeof(*by_case));
	/* the index of the first item of each item's case */
	size_t *first_of = xmalloc((c->nr + 1) * sizeof(*first_of));
	struct case_rank *ranks = xcalloc(c->nr + 1, sizeof(*ranks));
	bool *charted = xcalloc(c->nr + 1, sizeof(*charted));
	size_t nr = 0;

	for (size_t i = 0; i < c->nr; i++) {
		const struct metric_comparison *mc = &c->items[i];

		by_case[i] = (struct case_key){
			{ mc->benchmark, mc->variant, mc->device }, mc
		};
	}
	qsort(by_case, c->nr, sizeof(*by_case), compare_case_keys);
	for (size_t i = 0; i < c->nr; i++) {
		const struct metric_comparison *mc = by_case[i].place;
		size_t at = (size_t)(mc - c->items);
		double change = fabs(mc->change);

		if (!i ||
		    compare_case_names(by_case[i - 1].names, by_case[i].names))
			ranks[nr++] = (struct case_rank){ at, false, -1 };
		first_of[at] = ranks[nr - 1].first;
		ranks[nr - 1].regression |= mc->verdict == VERDICT_REGRESSION;
		if (model->items[at].compared && isfinite(change) &&
		    change > ranks[nr - 1].change)
			ranks[nr - 1].change = change;
	}
	qsort(ranks, nr, sizeof(*ranks), compare_ranks);
	for (size_t i = 0; i < nr && i < bound; i++)
		charted[ranks[i].first] = true;
	for (size_t i = 0; i < c->nr; i++)
		model->items[i].charted = charted[first_of[i]];
	model->cases_nr = nr;
	model->charted_cases_nr = nr < bound ? nr : bound;
	free(charted);
	free(ranks);
	free(first_of);
	free(by_case);
}

/* Skipped cases by reason */

struct text_key {
	const char *text;
	size_t at;
};

static int compare_text_keys(const void *a, const void *b)
{
	const struct text_key *x = a, *y = b;
	int order = strcmp(x->text, y->text);

	return order ? order : x->at < y->at ? -1 : x->at > y->at;
}

/* A run of equal texts among the sorted keys, with its first place. */
struct text_run {
	size_t first, start, end;
};

static int compare_text_runs(const void *a, const void *b)
{
	const struct text_run *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

size_t report_group_texts(const char *const *texts, size_t nr,
			  size_t *group_of)
{
	struct text_key *keys = xmalloc((nr + 1) * sizeof(*keys));
	struct text_run *runs;
	size_t keys_nr = 0, runs_nr = 0;

	for (size_t i = 0; i < nr; i++) {
		group_of[i] = SIZE_MAX;
		if (texts[i])
			keys[keys_nr++] = (struct text_key){ texts[i], i };
	}
	qsort(keys, keys_nr, sizeof(*keys), compare_text_keys);
	runs = xmalloc((keys_nr + 1) * sizeof(*runs));
	for (size_t k = 0; k < keys_nr; k++) {
		if (!k || strcmp(keys[k].text, keys[k - 1].text))
			runs[runs_nr++] = (struct text_run){ keys[k].at, k, k };
		runs[runs_nr - 1].end = k + 1;
	}
	qsort(runs, runs_nr, sizeof(*runs), compare_text_runs);
	for (size_t g = 0; g < runs_nr; g++)
		for (size_t k = runs[g].start; k < runs[g].end; k++)
			group_of[keys[k].at] = g;
	free(runs);
	free(keys);
	return runs_nr;
}

static void derive_skips(struct report_model *model)
{
	const struct comparison *c = model->comparison;
	const char **reasons = xcalloc(c->nr + 1, sizeof(*reasons));
	size_t *group_of = xcalloc(c->nr + 1, sizeof(*group_of));

	for (size_t i = 0; i < c->nr; i++)
		if (c->items[i].verdict == VERDICT_SKIPPED)
			reasons[i] = c->items[i].note ? c->items[i].note : "";
	model->skips_nr = report_group_texts(reasons, c->nr, group_of);
	model->skips = xcalloc(model->skips_nr + 1, sizeof(*model->skips));
	for (size_t i = 0; i < c->nr; i++) {
		struct report_skip *skip;

		if (group_of[i] == SIZE_MAX)
			continue;
		skip = &model->skips[group_of[i]];
		if (!skip->reason)
			*skip = (struct report_skip){ reasons[i], i, 0 };
		skip->cases_nr += report_case_starts(c, i);
		model->items[i].skip = group_of[i] + 1;
	}
	free(reasons);
	free(group_of);
}

void report_model_build(struct report_model *model)
{
	const struct comparison *c = model->comparison;
	const struct result *candidate = model->candidate;
	struct model_indexes indexes = { 0 };

	assert(!model->built);
	model->built = true;
	model->confidence = c && c->confidence > 0 && c->confidence < 1
				    ? c->confidence
				    : 0.99;
	if (c) {
		case_index_build(&indexes.baseline, model->baseline);
		case_index_build(&indexes.candidate, model->candidate);
		indexes.history = xcalloc(model->history_nr + 1,
					  sizeof(*indexes.history));
		for (size_t i = 0; i < model->history_nr; i++)
			case_index_build(&indexes.history[i],
					 model->history[i]);
		model->items = xcalloc(c->nr + 1, sizeof(*model->items));
		for (size_t i = 0; i < c->nr; i++)
			derive_item(&model->items[i], model, &indexes,
				    &c->items[i]);
		choose_charted(model);
		derive_skips(model);
		model->variants =
			xcalloc(c->variants_nr + 1, sizeof(*model->variants));
		for (size_t i = 0; i < c->variants_nr; i++)
			derive_variant(&model->variants[i], &c->variants[i]);
	}
	if (candidate) {
		model->cases =
			xcalloc(candidate->cases_nr + 1, sizeof(*model->cases));
		for (size_t i = 0; i < candidate->cases_nr; i++)
			derive_case(&model->cases[i], &candidate->cases[i]);
	}
	free(indexes.baseline.keys);
	free(indexes.candidate.keys);
	for (size_t i = 0; indexes.history && i < model->history_nr; i++)
		free(indexes.history[i].keys);
	free(indexes.history);
}

void report_model_release(struct report_model *model)
{
	const struct comparison *c = model->comparison;

	for (size_t i = 0; c && model->items && i < c->nr; i++) {
		struct report_item *item = &model->items[i];

		free(item->relative);
		free(item->difference);
		free(item->change);
		free(item->limit);
		free(item->history);
		free(item->baseline_samples.values);
		free(item->candidate_samples.values);
	}
	for (size_t i = 0; c && model->variants && i < c->variants_nr; i++) {
		free(model->variants[i].speedup);
		free(model->variants[i].speedup_move);
		free(model->variants[i].size);
		free(model->variants[i].accuracy);
	}
	for (size_t i = 0;
	     model->candidate && model->cases && i < model->candidate->cases_nr;
	     i++)
		free(model->cases[i].metrics);
	free(model->items);
	free(model->variants);
	free(model->cases);
	free(model->skips);
	model->skips = NULL;
	model->skips_nr = 0;
	model->items = NULL;
	model->variants = NULL;
	model->cases = NULL;
	model->cases_nr = model->charted_cases_nr = 0;
	model->built = false;
}

typedef void (*render_fn)(const struct report_model *model, struct strbuf *out);

static void render_json(const struct report_model *model, struct strbuf *out)
{
	comparison_to_json(model->comparison, out);
}

/* In the order they are written: the machine-readable documents first, so
 * a failure further on still leaves them. Charts, which run gnuplot, come
 * last and are not in this table. */
static const struct format {
	const char *name;
	enum report_format flag;
	const char *file;
	render_fn render;
} formats[] = {
	{ "json", REPORT_JSON, "comparison.json", render_json },
	{ "csv", REPORT_CSV, "comparison.csv", report_csv },
	{ "junit", REPORT_JUNIT, "junit.xml", report_junit },
	{ "markdown", REPORT_MARKDOWN, "report.md", report_markdown },
	{ "html", REPORT_HTML, "report.html", report_html },
	{ "openmetrics", REPORT_OPENMETRICS, "metrics.txt",
	  report_openmetrics },
	{ "charts", REPORT_CHARTS, NULL, NULL },
	{ "all", REPORT_ALL, NULL, NULL },
};
#define FORMATS_NR (sizeof(formats) / sizeof(formats[0]))

int report_parse_formats(const char *list, unsigned *mask)
{
	const char *p = list ? list : "";

	*mask = 0;
	for (;;) {
		size_t len = strcspn(p, ","), i;

		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		for (i = 0; i < FORMATS_NR; i++)
			if (strlen(formats[i].name) == len &&
			    !strncmp(formats[i].name, p, len))
				break;
		if (i == FORMATS_NR)
			return bg_input_error(
				"unknown report format '%.*s' (expected junit, "
				"markdown, html, json, csv, openmetrics, "
				"charts or all)",
				(int)len, p);
		*mask |= formats[i].flag;
		p += strcspn(p, ",");
		if (!*p)
			return BG_OK;
		p++;
	}
}

static int write_report(const struct report_model *model, const char *dir,
			const struct format *format, struct strbuf *written)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	int error;

	strbuf_addf(&path, "%s/%s", dir, format->file);
	format->render(model, &text);
	if ((error = write_file_atomic(path.buf, text.buf, text.len)) < 0)
		goto done;
	if (written)
		strbuf_addf(written, "%s\n", path.buf);
done:
	strbuf_release(&path);
	strbuf_release(&text);
	return error;
}

/* The directory `to` relative to the directory `from`, both resolved. */
static void add_relative_dir(struct strbuf *out, const char *from,
			     const char *to)
{
	size_t start = out->len;

	for (;;) {
		size_t from_len, to_len;

		from += strspn(from, "/");
		to += strspn(to, "/");
		from_len = strcspn(from, "/");
		to_len = strcspn(to, "/");
		if (!from_len || from_len != to_len || memcmp(from, to, to_len))
			break;
		from += from_len;
		to += to_len;
	}
	while (*(from += strspn(from, "/"))) {
		strbuf_addstr(out, "../");
		from += strcspn(from, "/");
	}
	strbuf_addstr(out, to);
	while (out->len > start && out->buf[out->len - 1] == '/')
		strbuf_setlen(out, out->len - 1);
	if (out->len == start)
		strbuf_addch(out, '.');
}

/* Where the candidate's artifacts are seen from the report directory, so
 * its links work wherever the two are opened from, as long as they keep
 * their places. */
static void derive_artifact_base(struct strbuf *out, const char *result_path,
				 const char *report_dir)
{
	const char *slash = strrchr(result_path, '/');
	char *result_dir =
		slash ? xstrndup(result_path, (size_t)(slash - result_path + 1))
		      : xstrdup(".");
	char from[PATH_MAX], to[PATH_MAX];

	if (realpath(report_dir, from) && realpath(result_dir, to))
		add_relative_dir(out, from, to);
	free(result_dir);
}

/* Charts: charts.c writes the scripts, gnuplot draws them */

static int write_beside(const char *dir, const struct chart *chart,
			const char *ext, const struct strbuf *text)
{
	struct strbuf path = STRBUF_INIT;
	int error;

	strbuf_addf(&path, "%s/%s.%s", dir, chart->stem.buf, ext);
	error = write_file_atomic(path.buf, text->buf, text->len);
	strbuf_release(&path);
	return error;
}

static int run_gnuplot(const char *program, const char *dir,
		       const struct chart *chart)
{
	struct strbuf script = STRBUF_INIT;
	const char *scripts[1];
	int error;

	strbuf_addf(&script, "%s.gp", chart->stem.buf);
	scripts[0] = script.buf;
	error = gnuplot_run_scripts(program, dir, scripts, 1);
	strbuf_release(&script);
	return error;
}

/* Keeps the SVG gnuplot drew for the HTML report, which inlines it. */
static void read_svg(const char *dir, struct chart *chart)
{
	struct strbuf path = STRBUF_INIT, svg = STRBUF_INIT;

	strbuf_addf(&path, "%s/%s.svg", dir, chart->stem.buf);
	if (strbuf_read_file(&svg, path.buf) == BG_OK)
		chart->svg = strbuf_detach(&svg, NULL);
	strbuf_release(&svg);
	strbuf_release(&path);
}

/* Writes each chart's data and script, runs gnuplot on them, keeps the
 * SVG and lists the two images; charts/ is made for the first. */
static int draw_charts(const char *program, const char *dir,
		       struct charts *charts, struct strbuf *written)
{
	int error = BG_OK;

	if (charts->nr && mkdir_p(dir) < 0)
		return bg_error("cannot create directory '%s'", dir);
	for (size_t i = 0; !error && i < charts->nr; i++) {
		struct chart *chart = &charts->items[i];

		if ((error = write_beside(dir, chart, "dat", &chart->dat)) <
			    0 ||
		    (error = write_beside(dir, chart, "gp", &chart->gp)) < 0 ||
		    (error = run_gnuplot(program, dir, chart)) < 0)
			break;
		read_svg(dir, chart);
		if (written)
			strbuf_addf(written, "%s/%s.svg\n%s/%s.png\n", dir,
				    chart->stem.buf, dir, chart->stem.buf);
	}
	return error;
}

/* The charts of a built model, drawn into charts (each chart's svg set);
 * BG_ENOTFOUND, with nothing written, when gnuplot cannot be run. */
static int write_charts(const struct report_model *model, const char *dir,
			struct charts *charts, struct strbuf *written)
{
	struct strbuf charts_dir = STRBUF_INIT, note = STRBUF_INIT;
	char *program = gnuplot_program();
	int error;

	strbuf_addf(&charts_dir, "%s/charts", dir);
	/* Checked before anything is written, so that without gnuplot the
	 * report directory holds no half-made charts/. */
	if (!gnuplot_runs(program)) {
		error = bg_notfound("gnuplot not found (tried '%s'): charts "
				    "skipped",
				    program);
		goto done;
	}
	charts_render(charts, model);
	if (report_add_charts_note(&note, model))
		bg_warn("%s", note.buf);
	error = draw_charts(program, charts_dir.buf, charts, written);
done:
	strbuf_release(&charts_dir);
	strbuf_release(&note);
	free(program);
	return error;
}

int report_write_all(const struct report_model *model, const char *dir,
		     unsigned mask, struct strbuf *written)
{
	struct report_model local = *model;
	struct charts charts = CHARTS_INIT;
	struct strbuf base = STRBUF_INIT;
	int error, charts_error = BG_OK;

	if (!local.built)
		report_model_build(&local);
	if ((error = mkdir_p(dir)) < 0)
		goto done;
	if (!local.artifact_base && local.candidate &&
	    local.comparison->candidate.path) {
		derive_artifact_base(&base, local.comparison->candidate.path,
				     dir);
		local.artifact_base = base.len ? base.buf : NULL;
	}
	/* The HTML report inlines the charts: it is written after them, and
	 * without them when they cannot be drawn. */
	for (size_t i = 0; i < FORMATS_NR; i++) {
		if (!formats[i].render || !(mask & formats[i].flag) ||
		    formats[i].flag == REPORT_HTML)
			continue;
		error = write_report(&local, dir, &formats[i], written);
		if (error < 0)
			goto done;
	}
	if (mask & REPORT_CHARTS) {
		charts_error = write_charts(&local, dir, &charts, written);
		if (charts_error == BG_ENOTFOUND) {
			bg_warn("gnuplot not found: charts skipped "
				"(install gnuplot-nox)");
			charts_error = BG_OK;
		}
		local.charts = &charts;
	}
	for (size_t i = 0; i < FORMATS_NR; i++)
		if (formats[i].flag == REPORT_HTML && (mask & REPORT_HTML) &&
		    (error = write_report(&local, dir, &formats[i], written)) <
			    0)
			goto done;
	error = charts_error;
done:
	if (!model->built)
		report_model_release(&local);
	charts_release(&charts);
	strbuf_release(&base);
	return error;
}

static const struct {
	const char *kind;
	const char *label;
} artifact_labels[] = {
	{ "flamegraph", "flame graph" },    { "folded", "folded stacks" },
	{ "profile", "profile directory" }, { "perf", "perf.data" },
	{ "poplar", "Poplar reports" },	    { "callgrind", "callgrind output" },
	{ "python-folded", "Python stacks" },
	{ "torch-ops", "torch operators" },
	{ "cuda-memory", "CUDA memory snapshot" },
};

const char *report_artifact_label(const char *kind)
{
	for (size_t i = 0;
	     i < sizeof(artifact_labels) / sizeof(*artifact_labels); i++)
		if (!strcmp(artifact_labels[i].kind, kind))
			return artifact_labels[i].label;
	return kind;
}

bool report_artifact_url(struct strbuf *out, const struct report_model *model,
			 const char *path)
{
	if (!path || !*path)
		return false;
	/* "//host/x" would leave the machine: one slash is a local path */
	while (path[0] == '/' && path[1] == '/')
		path++;
	if (path[0] != '/') {
		if (!model->artifact_base)
			return false;
		escape_url(out, model->artifact_base);
		strbuf_addch(out, '/');
	}
	escape_url(out, path);
	return true;
}

bool report_has_profiles(const struct report_model *model)
{
	const struct result *candidate = model->candidate;

	for (size_t i = 0; candidate && i < candidate->cases_nr; i++)
		if (candidate->cases[i].artifacts_nr ||
		    candidate->cases[i].profile_note)
			return true;
	return false;
}

bool report_is_full_commit(const char *commit)
{
	size_t i = 0;

	while (commit && commit[i] && strchr("0123456789abcdef", commit[i]))
		i++;
	return i == 40 && !commit[i];
}

bool report_commit_url(struct strbuf *out, const char *commit,
		       const char *repo_url)
{
	struct strbuf url = STRBUF_INIT;

	if (!report_is_full_commit(commit) || !repo_url ||
	    (strncasecmp(repo_url, "https://", 8) &&
	     strncasecmp(repo_url, "http://", 7)))
		return false;
	strbuf_addstr(&url, repo_url);
	strbuf_rtrim(&url);
	while (url.len && url.buf[url.len - 1] == '/')
		strbuf_setlen(&url, url.len - 1);
	escape_url(out, url.buf);
	strbuf_addf(out, "/commit/%s", commit);
	strbuf_release(&url);
	return true;
}

void report_add_cut(struct strbuf *out, const char *text, size_t max,
		    void (*escape)(struct strbuf *, const char *))
{
	struct strbuf cut = STRBUF_INIT;
	const char *whole = text ? text : "";
	size_t keep = utf8_prefix_len(whole, max);

	strbuf_add(&cut, whole, keep);
	if (whole[keep])
		strbuf_addstr(&cut, "\u2026");
	escape(out, cut.buf);
	strbuf_release(&cut);
}

bool report_add_methods_note(struct strbuf *out,
			     const struct comparison *comparison)
{
	/* the gate's methods are few: a linear scan per item is enough */
	const char *seen[16];
	size_t counts[16], seen_nr = 0;

	for (size_t i = 0; i < comparison->nr; i++) {
		const char *method = comparison->items[i].method;
		size_t j = 0;

		if (!method)
			continue;
		while (j < seen_nr && strcmp(seen[j], method))
			j++;
		if (j == seen_nr) {
			if (seen_nr == sizeof(seen) / sizeof(*seen))
				continue;
			seen[seen_nr] = method;
			counts[seen_nr++] = 0;
		}
		counts[j]++;
	}
	if (!seen_nr)
		return false;
	strbuf_addstr(out, "changes and the values beside them: ");
	for (size_t j = 0; j < seen_nr; j++) {
		strbuf_addf(out, "%s%s (", j ? "; " : "", seen[j]);
		report_add_count(out, counts[j], "metric", "metrics");
		strbuf_addch(out, ')');
	}
	return true;
}

bool report_add_charts_note(struct strbuf *out,
			    const struct report_model *model)
{
	size_t left_out = model->cases_nr - model->charted_cases_nr;

	assert(model->built);
	if (!left_out)
		return false;
	strbuf_addf(out,
		    "%zu of %zu cases have no chart: charts are drawn for ",
		    left_out, model->cases_nr);
	report_add_count(out, model->charted_cases_nr, "case", "cases");
	strbuf_addstr(out, ", those with a regression first, then those with "
			   "the largest changes (--charts N sets the bound, "
			   "--charts all lifts it)");
	return true;
}

void report_add_count(struct strbuf *out, size_t n, const char *singular,
		      const char *plural)
{
	strbuf_addf(out, "%zu %s", n, n == 1 ? singular : plural);
}

void report_add_counts(struct strbuf *out, const struct comparison *c)
{
	static const enum verdict others[] = {
		VERDICT_INCONCLUSIVE,
		VERDICT_NEW,
		VERDICT_MISSING,
		VERDICT_SKIPPED,
	};
	const size_t *n = c->counts;
	size_t ungated = 0;

	if (n[VERDICT_REGRESSION])
		report_add_count(out, n[VERDICT_REGRESSION], "regression",
				 "regressions");
	else
		strbuf_addstr(out, "no regression");
	strbuf_addstr(out, ", ");
	report_add_count(out, n[VERDICT_IMPROVEMENT], "improvement",
			 "improvements");
	strbuf_addf(out, ", %zu unchanged, %zu failed", n[VERDICT_UNCHANGED],
		    n[VERDICT_FAILED]);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (n[others[i]])
			strbuf_addf(out, ", %zu %s", n[others[i]],
				    verdict_name(others[i]));
	for (size_t i = 0; i < c->nr; i++)
		ungated += !compare_item_gated(&c->items[i]);
	if (ungated)
		strbuf_addf(out, ", %zu not gated", ungated);
}

const char *report_verdict_text(const struct metric_comparison *mc)
{
	static const char *const ungated[VERDICT_COUNT] = {
		[VERDICT_REGRESSION] = "regression, not gated",
		[VERDICT_IMPROVEMENT] = "improvement, not gated",
		[VERDICT_UNCHANGED] = "unchanged, not gated",
		[VERDICT_INCONCLUSIVE] = "inconclusive, not gated",
		[VERDICT_NEW] = "new, not gated",
		[VERDICT_MISSING] = "missing, not gated",
	};

	return compare_item_gated(mc) ? verdict_name(mc->verdict)
				      : ungated[mc->verdict];
}

bool report_case_starts(const struct comparison *c, size_t i)
{
	return !i || c->items[i - 1].verdict != c->items[i].verdict ||
	       !metric_comparison_same_case(&c->items[i - 1], &c->items[i]);
}

const char *report_note_tail(const char *note, size_t *why_len,
			     size_t max_lines)
{
	static const char marker[] = "last lines of stderr:\n";
	const char *text = note ? note : "", *tail, *p;
	size_t lines = 0;

	*why_len = strcspn(text, "\n");
	tail = text[*why_len] ? text + *why_len + 1 : text + *why_len;
	if (!strncmp(tail, marker, strlen(marker)))
		tail += strlen(marker);
	/* back from the end, past max_lines line breaks */
	for (p = tail + strlen(tail); p > tail; p--)
		if (p[-1] == '\n' && p[0] && ++lines == max_lines)
			break;
	return p;
}

bool report_log_path(struct strbuf *out, const struct comparison *c,
		     const struct metric_comparison *mc)
{
	const char *path = c->candidate.path, *slash;

	if (!mc->log || !*mc->log)
		return false;
	slash = path && mc->log[0] != '/' ? strrchr(path, '/') : NULL;
	if (slash)
		strbuf_add(out, path, (size_t)(slash - path + 1));
	strbuf_addstr(out, mc->log);
	return true;
}

void report_add_skipped_cases(struct strbuf *out,
			      const struct report_model *model, size_t skip,
			      size_t max,
			      void (*escape)(struct strbuf *, const char *))
{
	const struct comparison *c = model->comparison;
	const struct report_skip *s = &model->skips[skip];
	size_t named = 0;

	/* from its first item on, until enough are named */
	for (size_t i = s->first; i < c->nr && named < max; i++) {
		const struct metric_comparison *mc = &c->items[i];

		if (model->items[i].skip != skip + 1 ||
		    !report_case_starts(c, i))
			continue;
		strbuf_addstr(out, named++ ? ", " : "");
		escape(out, mc->benchmark);
		strbuf_addstr(out, " / ");
		escape(out, mc->variant);
		strbuf_addstr(out, " / ");
		escape(out, mc->device);
	}
	if (s->cases_nr > named)
		strbuf_addf(out, " and %zu more", s->cases_nr - named);
}
