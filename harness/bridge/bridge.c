/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/bridge/bridge.h"
#include "harness/bridge/formats.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/name.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const bridge_format_names[] = {
	[BRIDGE_GBENCH] = "gbench",
	[BRIDGE_HYPERFINE] = "hyperfine",
	[BRIDGE_PYTEST_BENCHMARK] = "pytest-benchmark",
	[BRIDGE_GAB_SMALLER] = "customSmallerIsBetter",
	[BRIDGE_GAB_BIGGER] = "customBiggerIsBetter",
	[BRIDGE_OPTIMUM] = "optimum",
	NULL,
};

/* The metric bridge_find() takes when none is named. */
static const char *const main_metric[] = {
	[BRIDGE_GBENCH] = "real_time",
	[BRIDGE_HYPERFINE] = "time",
	[BRIDGE_PYTEST_BENCHMARK] = "time",
	[BRIDGE_GAB_SMALLER] = "value",
	[BRIDGE_GAB_BIGGER] = "value",
	[BRIDGE_OPTIMUM] = "latency",
};

static void add_names(struct strbuf *out, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", names[i]);
}

int bridge_format_parse(const char *name, enum bridge_format *out)
{
	struct strbuf known = STRBUF_INIT;

	for (int i = 0; bridge_format_names[i]; i++) {
		if (!strcmp(bridge_format_names[i], name)) {
			*out = (enum bridge_format)i;
			return BG_OK;
		}
	}
	add_names(&known, bridge_format_names);
	bg_input_error("unknown format '%s'; expected one of: %s", name,
		       known.buf);
	strbuf_release(&known);
	return BG_EINPUT;
}

int bridge_parse(struct bridge_doc *doc, enum bridge_format format,
		 const char *text, size_t len, const char *path)
{
	struct json_reader rd;
	int error;

	memset(doc, 0, sizeof(*doc));
	strbuf_init(&doc->notes, 0);
	doc->format = format;
	if ((error = json_reader_parse(&rd, path, text, len)) < 0)
		goto done;
	switch (format) {
	case BRIDGE_GBENCH:
		error = bridge_read_gbench(doc, &rd);
		break;
	case BRIDGE_HYPERFINE:
		error = bridge_read_hyperfine(doc, &rd);
		break;
	case BRIDGE_PYTEST_BENCHMARK:
		error = bridge_read_pytest(doc, &rd);
		break;
	case BRIDGE_GAB_SMALLER:
	case BRIDGE_GAB_BIGGER:
		error = bridge_read_gab(doc, &rd,
					format == BRIDGE_GAB_BIGGER
						? BETTER_HIGHER
						: BETTER_LOWER);
		break;
	case BRIDGE_OPTIMUM:
		error = bridge_read_optimum(doc, &rd);
		break;
	}
	if (!error && !doc->nr && !doc->failures_nr)
		error = json_reader_fail(&rd, "expected at least one "
					      "benchmark, found none");
done:
	json_reader_release(&rd);
	return error;
}

/* Whether benchmark names the series' benchmark, as the peer wrote it or
 * as bridge_name() maps it. */
static bool names_benchmark(const char *peer, const char *benchmark)
{
	struct strbuf mapped = STRBUF_INIT;
	bool same = !strcmp(peer, benchmark);

	if (!same) {
		bridge_name(&mapped, peer);
		same = !strcmp(mapped.buf, benchmark);
	}
	strbuf_release(&mapped);
	return same;
}

/* "'a', 'b'": the distinct benchmarks (metric NULL) or the metrics of
 * benchmark in doc. */
static void list_choices(struct strbuf *out, const struct bridge_doc *doc,
			 const char *benchmark)
{
	for (size_t i = 0; i < doc->nr; i++) {
		const struct bridge_series *s = &doc->series[i];
		const char *shown = benchmark ? s->metric : s->benchmark;
		bool seen = false;

		if (benchmark && strcmp(s->benchmark, benchmark))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !benchmark && !strcmp(doc->series[j].benchmark,
						     s->benchmark);
		if (!seen)
			strbuf_addf(out, "%s'%s'", out->len ? ", " : "",
				    shown);
	}
	if (!out->len)
		strbuf_addstr(out, "none");
}

int bridge_find(const struct bridge_doc *doc, const char *benchmark,
		const char *metric, const struct bridge_series **out)
{
	const char *format = bridge_format_names[doc->format];
	struct strbuf choices = STRBUF_INIT;
	const char *found = NULL;
	int error = BG_OK;

	if (!metric)
		metric = main_metric[doc->format];
	for (size_t i = 0; i < doc->failures_nr; i++) {
		const struct bridge_failure *f = &doc->failures[i];

		if (!benchmark || names_benchmark(f->benchmark, benchmark)) {
			error = bg_error("%s benchmark '%s' failed: %s", format,
					 f->benchmark, f->reason);
			goto done;
		}
	}
	for (size_t i = 0; i < doc->nr && !found; i++)
		if (!benchmark ||
		    names_benchmark(doc->series[i].benchmark, benchmark))
			found = doc->series[i].benchmark;
	list_choices(&choices, doc, NULL);
	if (!found) {
		error = bg_error("no %s benchmark '%s'; the document has %s",
				 format, benchmark, choices.buf);
		goto done;
	}
	if (!benchmark && strchr(choices.buf, ',')) {
		error = bg_error("the %s document has several benchmarks (%s); "
				 "a \"key\" names the one to read",
				 format, choices.buf);
		goto done;
	}
	for (size_t i = 0; i < doc->nr; i++) {
		if (!strcmp(doc->series[i].benchmark, found) &&
		    !strcmp(doc->series[i].metric, metric)) {
			*out = &doc->series[i];
			goto done;
		}
	}
	strbuf_reset(&choices);
	list_choices(&choices, doc, found);
	error = bg_error("%s benchmark '%s' has no metric '%s'; it has %s",
			 format, found, metric, choices.buf);
done:
	strbuf_release(&choices);
	return error;
}

void bridge_name(struct strbuf *out, const char *peer)
{
	size_t start = out->len;
	bool gap = false;

	for (const char *p = peer; *p; p++) {
		char one[2] = { *p, 0 };

		if (!name_valid(one)) {
			gap = true;
			continue;
		}
		if (gap && out->len > start)
			strbuf_addch(out, '_');
		gap = false;
		strbuf_addch(out, *p);
	}
	if (out->len == start)
		strbuf_addch(out, '_');
}

/* A peer's name as benchgate names it, with where it first appears. */
struct mapped {
	char *name;	     /* bridge_name() of it */
	const char *peer;    /* the peer's own (the benchmark, or the
			      * metric) */
	const char *owner;   /* for a metric, its benchmark; else NULL */
	size_t first;	     /* its first position in the document */
	size_t case_index;   /* for a benchmark, its case; SIZE_MAX:
			      * not added yet */
};

static int compare_mapped(const void *a, const void *b)
{
	const struct mapped *x = a, *y = b;
	int c = strcmp(x->owner ? x->owner : "", y->owner ? y->owner : "");

	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->peer, y->peer);
	return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int compare_peer(const void *a, const void *b)
{
	const struct mapped *x = a, *y = b;

	return strcmp(x->peer, y->peer);
}

/* Sorts the nr names, drops the repeats of a peer name (keeping its
 * first position) and returns how many stay. */
static size_t sort_unique(struct mapped *names, size_t nr)
{
	size_t kept = 0;

	qsort(names, nr, sizeof(*names), compare_mapped);
	for (size_t i = 0; i < nr; i++) {
		if (kept && !strcmp(names[kept - 1].peer, names[i].peer) &&
		    !strcmp(names[kept - 1].name, names[i].name) &&
		    !strcmp(names[kept - 1].owner ? names[kept - 1].owner : "",
			    names[i].owner ? names[i].owner : "")) {
			free(names[i].name);
			continue;
		}
		names[kept++] = names[i];
	}
	return kept;
}

/* The first pair (in the document's order) of distinct peer names that
 * map to one name under the same owner; false when none. Sorted. */
static bool find_collision(const struct mapped *names, size_t nr,
			   const struct mapped **a, const struct mapped **b)
{
	*a = *b = NULL;
	for (size_t i = 0; i + 1 < nr; i++) {
		const struct mapped *x = &names[i], *y = &names[i + 1];

		if (strcmp(x->name, y->name) ||
		    strcmp(x->owner ? x->owner : "", y->owner ? y->owner : ""))
			continue;
		if (y->first < x->first) {
			const struct mapped *t = x;

			x = y;
			y = t;
		}
		if (!*a || x->first < (*a)->first) {
			*a = x;
			*b = y;
		}
	}
	return *a;
}

static void mapped_release(struct mapped *names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i].name);
	free(names);
}

/* BG_EINPUT when two benchmarks map to one case name, or one of them is
 * a case of result already; else the distinct benchmarks, sorted by
 * their peer names, in *out (free with mapped_release()). */
static int check_benchmarks(const struct bridge_doc *doc,
			    const struct result *result, const char *path,
			    struct mapped **out, size_t *out_nr)
{
	size_t total = doc->nr + doc->failures_nr, nr;
	struct mapped *names = xcalloc(total + 1, sizeof(*names));
	const struct mapped *a, *b;
	struct strbuf name = STRBUF_INIT;
	int error = BG_OK;

	for (size_t i = 0; i < total; i++) {
		const char *peer = i < doc->nr
					   ? doc->series[i].benchmark
					   : doc->failures[i - doc->nr].benchmark;

		strbuf_reset(&name);
		bridge_name(&name, peer);
		names[i] = (struct mapped){ .name = xstrdup(name.buf),
					    .peer = peer,
					    .first = i,
					    .case_index = SIZE_MAX };
	}
	nr = sort_unique(names, total);
	/* the first in the document's order that the result has already */
	a = NULL;
	for (size_t i = 0; i < nr; i++)
		if ((!a || names[i].first < a->first) &&
		    result_find_case(result, names[i].name, "original", "cpu"))
			a = &names[i];
	if (a)
		error = bg_input_error("%s: benchmark '%s' (as '%s') is "
				       "imported already from another file",
				       path, a->peer, a->name);
	if (!error && find_collision(names, nr, &a, &b))
		error = bg_input_error("%s: benchmarks '%s' and '%s' both "
				       "become '%s' in benchgate's names",
				       path, a->peer, b->peer, a->name);
	strbuf_release(&name);
	if (error) {
		mapped_release(names, nr);
		return error;
	}
	qsort(names, nr, sizeof(*names), compare_peer);
	*out = names;
	*out_nr = nr;
	return BG_OK;
}

/* BG_EINPUT when two metrics of one benchmark map to one name (counters
 * "a b" and "a/b"). */
static int check_metrics_unique(const struct bridge_doc *doc, const char *path)
{
	struct mapped *names = xcalloc(doc->nr + 1, sizeof(*names));
	struct strbuf name = STRBUF_INIT;
	const struct mapped *a, *b;
	size_t nr;
	int error = BG_OK;

	for (size_t i = 0; i < doc->nr; i++) {
		strbuf_reset(&name);
		bridge_name(&name, doc->series[i].metric);
		names[i] = (struct mapped){ .name = xstrdup(name.buf),
					    .peer = doc->series[i].metric,
					    .owner = doc->series[i].benchmark,
					    .first = i };
	}
	nr = sort_unique(names, doc->nr);
	if (find_collision(names, nr, &a, &b))
		error = bg_input_error("%s: metrics '%s' and '%s' of benchmark "
				       "'%s' both become '%s' in benchgate's "
				       "names",
				       path, a->peer, b->peer, a->owner,
				       a->name);
	mapped_release(names, nr);
	strbuf_release(&name);
	return error;
}

/* The case of the peer's benchmark in result, added when absent. */
static struct result_case *case_for(struct result *result,
				    struct mapped *benchmarks, size_t nr,
				    const char *benchmark)
{
	struct mapped key = { .peer = benchmark };
	struct mapped *m = bsearch(&key, benchmarks, nr, sizeof(*benchmarks),
				   compare_peer);

	assert(m);
	if (m->case_index == SIZE_MAX) {
		result_add_case(result, m->name, "original", "cpu");
		m->case_index = result->cases_nr - 1;
	}
	return &result->cases[m->case_index];
}

int bridge_add_to_result(const struct bridge_doc *doc, struct result *result,
			 const char *path)
{
	struct strbuf name = STRBUF_INIT;
	struct mapped *benchmarks = NULL;
	size_t nr = 0;
	int error;

	/* sorted, not pairwise: 10,000 entries took a minute */
	if ((error = check_benchmarks(doc, result, path, &benchmarks, &nr)) < 0)
		return error;
	if ((error = check_metrics_unique(doc, path)) < 0) {
		mapped_release(benchmarks, nr);
		return error;
	}
	for (size_t i = 0; i < doc->nr; i++) {
		const struct bridge_series *s = &doc->series[i];
		struct result_case *rcase =
			case_for(result, benchmarks, nr, s->benchmark);
		struct metric_samples *metric;

		strbuf_reset(&name);
		bridge_name(&name, s->metric);
		metric = result_case_metric(rcase, name.buf);

		metric->unit = xstrdup(s->unit);
		metric->better = s->better;
		metric->gate = s->gate;
		for (size_t j = 0; j < s->nr; j++)
			metric_samples_push(metric, s->values[j]);
		metric->runs = s->nr;
		metric->independent = s->independent;
		if (rcase->runs < s->nr)
			rcase->runs = s->nr;
	}
	for (size_t i = 0; i < doc->failures_nr; i++)
		result_case_fail(case_for(result, benchmarks, nr,
					  doc->failures[i].benchmark),
				 CASE_FAILED, doc->failures[i].reason);
	mapped_release(benchmarks, nr);
	strbuf_release(&name);
	return BG_OK;
}
