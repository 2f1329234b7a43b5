/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/bridge/doc.h"

#include "harness/util/alloc.h"
#include "harness/util/hash.h"

#include <stdlib.h>
#include <string.h>

static uint64_t series_hash(const char *benchmark, const char *metric)
{
	uint64_t hash = hash_fnv1a64(benchmark, strlen(benchmark) + 1);

	return hash_fnv1a64_add(hash, metric, strlen(metric));
}

static void grow_index(struct bridge_doc *doc)
{
	size_t nr = doc->slots_nr ? 2 * doc->slots_nr : 64;

	while (nr < 2 * (doc->nr + 1))
		nr *= 2;
	free(doc->slots);
	doc->slots = xcalloc(nr, sizeof(*doc->slots));
	doc->slots_nr = nr;
	for (size_t i = 0; i < doc->nr; i++) {
		size_t slot = series_hash(doc->series[i].benchmark,
					  doc->series[i].metric) &
			      (nr - 1);

		while (doc->slots[slot])
			slot = (slot + 1) & (nr - 1);
		doc->slots[slot] = i + 1;
	}
}

struct bridge_series *bridge_series_get(struct bridge_doc *doc,
					const char *benchmark,
					const char *metric, const char *unit,
					enum better better, bool gate)
{
	struct bridge_series *series;
	size_t slot, mask;

	/* an index, not a scan: a document of n entries is read in O(n) */
	if (2 * (doc->nr + 1) > doc->slots_nr)
		grow_index(doc);
	mask = doc->slots_nr - 1;
	for (slot = series_hash(benchmark, metric) & mask; doc->slots[slot];
	     slot = (slot + 1) & mask) {
		series = &doc->series[doc->slots[slot] - 1];
		if (!strcmp(series->benchmark, benchmark) &&
		    !strcmp(series->metric, metric))
			return series;
	}
	doc->slots[slot] = doc->nr + 1;
	ALLOC_GROW(doc->series, doc->nr + 1, doc->alloc);
	series = &doc->series[doc->nr++];
	memset(series, 0, sizeof(*series));
	series->benchmark = xstrdup(benchmark);
	series->metric = xstrdup(metric);
	series->unit = xstrdup(unit);
	series->better = better;
	series->gate = gate;
	return series;
}

void bridge_series_push(struct bridge_series *series, double value)
{
	ALLOC_GROW(series->values, series->nr + 1, series->alloc);
	series->values[series->nr++] = value;
	series->independent++;
}

void bridge_fail(struct bridge_doc *doc, const char *benchmark,
		 const char *reason)
{
	ALLOC_GROW(doc->failures, doc->failures_nr + 1, doc->failures_alloc);
	doc->failures[doc->failures_nr++] = (struct bridge_failure){
		xstrdup(benchmark), xstrdup(reason)
	};
}

void bridge_doc_release(struct bridge_doc *doc)
{
	for (size_t i = 0; i < doc->nr; i++) {
		free(doc->series[i].benchmark);
		free(doc->series[i].metric);
		free(doc->series[i].unit);
		free(doc->series[i].values);
	}
	free(doc->series);
	for (size_t i = 0; i < doc->failures_nr; i++) {
		free(doc->failures[i].benchmark);
		free(doc->failures[i].reason);
	}
	free(doc->failures);
	free(doc->slots);
	strbuf_release(&doc->notes);
	memset(doc, 0, sizeof(*doc));
	strbuf_init(&doc->notes, 0);
}
