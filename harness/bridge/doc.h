/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BRIDGE_DOC_H
#define BENCHGATE_BRIDGE_DOC_H

#include "harness/model/result.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * A peer's document as the bridges read it (bridge.h): the series of
 * (benchmark, metric) it holds and the benchmarks it reports as broken.
 * The readers of harness/bridge/ build it; bridge.h's verbs read it.
 */

enum bridge_format {
	BRIDGE_GBENCH,
	BRIDGE_HYPERFINE,
	BRIDGE_PYTEST_BENCHMARK,
	BRIDGE_GAB_SMALLER,
	BRIDGE_GAB_BIGGER,
	BRIDGE_OPTIMUM,
};

/* One series: a metric of a benchmark, as the peer named them. */
struct bridge_series {
	char *benchmark; /* the peer's name, printable (name.h) */
	char *metric;	 /* "real_time", "time", a counter's name, ... */
	char *unit;	 /* printable, or NULL */
	enum better better;
	bool gate; /* false: recorded and reported, never gated */
	double *values;
	size_t nr, alloc;
	size_t independent; /* independent values: nr, or 1 for a summary */
};

/* A benchmark the peer reports as broken, with why. */
struct bridge_failure {
	char *benchmark;
	char *reason;
};

struct bridge_doc {
	enum bridge_format format;
	struct bridge_series *series; /* in the document's order */
	size_t nr, alloc;
	struct bridge_failure *failures;
	size_t failures_nr, failures_alloc;
	struct strbuf notes; /* lines worth telling the user; may be empty */
	/* bridge_series_get()'s index: open addressing, slots hold a
	 * series' position + 1, 0 is empty; at most half full */
	size_t *slots;
	size_t slots_nr;
};

/* Frees what doc holds and leaves it empty, to be read into again. */
void bridge_doc_release(struct bridge_doc *doc);

/* The series (benchmark, metric) of doc, added with these properties and
 * no values when absent (strings copied). Borrowed from doc. */
struct bridge_series *bridge_series_get(struct bridge_doc *doc,
					const char *benchmark,
					const char *metric, const char *unit,
					enum better better, bool gate);

/* Appends a value measured on its own (independent grows with it). */
void bridge_series_push(struct bridge_series *series, double value);

/* Records that the peer reports benchmark as broken (strings copied). */
void bridge_fail(struct bridge_doc *doc, const char *benchmark,
		 const char *reason);

#endif
