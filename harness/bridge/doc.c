/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/bridge/doc.h"

#include "harness/util/alloc.h"

#include <stdlib.h>
#include <string.h>

struct bridge_series *bridge_series_get(struct bridge_doc *doc,
					const char *benchmark,
					const char *metric, const char *unit,
					enum better better, bool gate)
{
	struct bridge_series *series;

	for (size_t i = 0; i < doc->nr; i++)
		if (!strcmp(doc->series[i].benchmark, benchmark) &&
		    !strcmp(doc->series[i].metric, metric))
			return &doc->series[i];
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
	strbuf_release(&doc->notes);
	memset(doc, 0, sizeof(*doc));
	strbuf_init(&doc->notes, 0);
}
