/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/bridge/bridge.h"
#include "harness/bridge/formats.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/name.h"

#include <stdlib.h>
#include <string.h>

const char *const bridge_format_names[] = {
	[BRIDGE_GBENCH] = "gbench",
	[BRIDGE_HYPERFINE] = "hyperfine",
	[BRIDGE_PYTEST_BENCHMARK] = "pytest-benchmark",
	[BRIDGE_GAB_SMALLER] = "customSmallerIsBetter",
	[BRIDGE_GAB_BIGGER] = "customBiggerIsBetter",
	NULL,
};

/* The metric bridge_find() takes when none is named. */
static const char *const main_metric[] = {
	[BRIDGE_GBENCH] = "real_time",
	[BRIDGE_HYPERFINE] = "time",
	[BRIDGE_PYTEST_BENCHMARK] = "time",
	[BRIDGE_GAB_SMALLER] = "value",
	[BRIDGE_GAB_BIGGER] = "value",
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

/* The case of the peer's benchmark in result, added when absent. */
static struct result_case *case_for(struct result *result,
				    const char *benchmark)
{
	struct strbuf name = STRBUF_INIT;
	struct result_case *rcase;

	bridge_name(&name, benchmark);
	rcase = result_find_case(result, name.buf, "original", "cpu");
	if (!rcase)
		rcase = result_add_case(result, name.buf, "original", "cpu");
	strbuf_release(&name);
	return rcase;
}

/* The peer's benchmark names of doc, each once. */
static const char **distinct_benchmarks(const struct bridge_doc *doc,
					size_t *nr)
{
	const char **names =
		xcalloc(doc->nr + doc->failures_nr + 1, sizeof(*names));

	*nr = 0;
	for (size_t i = 0; i < doc->nr + doc->failures_nr; i++) {
		const char *name = i < doc->nr
					   ? doc->series[i].benchmark
					   : doc->failures[i - doc->nr].benchmark;
		size_t j = 0;

		while (j < *nr && strcmp(names[j], name))
			j++;
		if (j == *nr)
			names[(*nr)++] = name;
	}
	return names;
}

/* BG_EINPUT when two of names map to one case name, or one of them is
 * a case of result already. */
static int check_unique(const char **names, size_t nr,
			const struct result *result, const char *path)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int error = BG_OK;

	for (size_t i = 0; i < nr && !error; i++) {
		strbuf_reset(&a);
		bridge_name(&a, names[i]);
		if (result_find_case(result, a.buf, "original", "cpu")) {
			error = bg_input_error("%s: benchmark '%s' (as '%s') "
					       "is imported already from "
					       "another file",
					       path, names[i], a.buf);
		}
		for (size_t j = i + 1; j < nr && !error; j++) {
			strbuf_reset(&b);
			bridge_name(&b, names[j]);
			if (!strcmp(a.buf, b.buf))
				error = bg_input_error(
					"%s: benchmarks '%s' and '%s' both "
					"become '%s' in benchgate's names",
					path, names[i], names[j], a.buf);
		}
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return error;
}

/* BG_EINPUT when two metrics of one benchmark map to one name (counters
 * "a b" and "a/b"). */
static int check_metrics_unique(const struct bridge_doc *doc, const char *path)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int error = BG_OK;

	for (size_t i = 0; i < doc->nr && !error; i++) {
		strbuf_reset(&a);
		bridge_name(&a, doc->series[i].metric);
		for (size_t j = i + 1; j < doc->nr && !error; j++) {
			if (strcmp(doc->series[i].benchmark,
				   doc->series[j].benchmark))
				continue;
			strbuf_reset(&b);
			bridge_name(&b, doc->series[j].metric);
			if (!strcmp(a.buf, b.buf))
				error = bg_input_error(
					"%s: metrics '%s' and '%s' of benchmark "
					"'%s' both become '%s' in benchgate's "
					"names",
					path, doc->series[i].metric,
					doc->series[j].metric,
					doc->series[i].benchmark, a.buf);
		}
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return error;
}

int bridge_add_to_result(const struct bridge_doc *doc, struct result *result,
			 const char *path)
{
	struct strbuf name = STRBUF_INIT;
	size_t nr;
	const char **names = distinct_benchmarks(doc, &nr);
	int error = check_unique(names, nr, result, path);

	free(names);
	if (error < 0 || (error = check_metrics_unique(doc, path)) < 0)
		return error;
	for (size_t i = 0; i < doc->nr; i++) {
		const struct bridge_series *s = &doc->series[i];
		struct result_case *rcase = case_for(result, s->benchmark);
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
		result_case_fail(case_for(result, doc->failures[i].benchmark),
				 CASE_FAILED, doc->failures[i].reason);
	strbuf_release(&name);
	return BG_OK;
}
