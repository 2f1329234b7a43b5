/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BRIDGE_FORMATS_H
#define BENCHGATE_BRIDGE_FORMATS_H

#include "harness/bridge/doc.h"
#include "harness/util/jsonread.h"

/*
 * What the readers of each peer format share (inside harness/bridge/
 * only): each reads rd->root into doc, with the key path of rd pushed and
 * popped as it goes so that every message has its position, and returns
 * rd->error. bridge_parse() dispatches to them; formats.c holds the
 * reading helpers they share.
 */

int bridge_read_gbench(struct bridge_doc *doc, struct json_reader *rd);
int bridge_read_hyperfine(struct bridge_doc *doc, struct json_reader *rd);
int bridge_read_pytest(struct bridge_doc *doc, struct json_reader *rd);
int bridge_read_optimum(struct bridge_doc *doc, struct json_reader *rd);
int bridge_read_gab(struct bridge_doc *doc, struct json_reader *rd,
		    enum better better);

/* A reader of one element of a document's list of benchmarks. */
typedef void bridge_element_fn(struct bridge_doc *doc, struct json_reader *rd,
			       const cJSON *list, const cJSON *element);

/* Calls read() for each element of the array rd->root[key] (required),
 * with its index pushed, until the first error; returns rd->error. */
int bridge_read_each(struct bridge_doc *doc, struct json_reader *rd,
		     const char *key, bridge_element_fn *read);

/* Pushes each element of list, the array at object key `key` (a finite
 * number each), to series as a value of its own. */
void bridge_read_values(struct json_reader *rd, const cJSON *list,
			const char *key, struct bridge_series *series);

/* A finite number at the current path (an array element): 1 and *out, or
 * 0 after recording "expected a finite number". */
int bridge_read_finite(struct json_reader *rd, const cJSON *item, double *out);

/* object[key] as a finite number: json_read_number()'s 1 or 0, with
 * "expected a finite number" for one beyond a double's range. */
int bridge_read_number(struct json_reader *rd, const cJSON *object,
		       const char *key, unsigned flags, double *out);

/* object[key] as a printable, non-empty string, copied into *out. */
int bridge_read_name(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, char **out);

#endif
