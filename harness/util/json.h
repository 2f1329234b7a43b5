/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_JSON_H
#define BENCHGATE_JSON_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Writing user-controlled strings into cJSON documents: names, notes and
 * log tails may hold any bytes, but a JSON document must be UTF-8, so
 * every string (values and member names alike) goes through utf8.h first.
 * NULL strings become JSON null.
 */

/* A string item (null for NULL) with invalid UTF-8 replaced. */
cJSON *json_string(const char *s);

/* object[key] = json_string(s). */
void json_add_string(cJSON *object, const char *key, const char *s);

/* object[key] = item, with the key made valid UTF-8. */
void json_add_item(cJSON *object, const char *key, cJSON *item);

/* Appends item pretty-printed, the bytes cJSON_Print() gives, and a
 * newline to out; an item cJSON_Print() refuses (invalid, a raw one
 * without text) aborts, as out of memory does everywhere. */
void json_print(struct strbuf *out, const cJSON *item);

/* Appends s as json_print() prints json_string(s): quoted, escaped,
 * invalid UTF-8 replaced; NULL as null. */
void json_write_string(struct strbuf *out, const char *s);

/*
 * Writing a document without a tree: the text json_print() gives of the
 * tree the same calls would have built, value by value, into out, which
 * the caller may empty (write out) between any two calls. For documents
 * too large to hold as a tree (history's million points). `base` is the
 * depth the writer starts at: the number of objects and arrays around it
 * in the document its text goes into (0 for a whole document).
 */
#define JSON_WRITER_DEPTH 32
struct json_writer {
	struct strbuf *out;
	size_t base, nested;
	bool array[JSON_WRITER_DEPTH], first[JSON_WRITER_DEPTH];
};

void json_writer_init(struct json_writer *w, struct strbuf *out,
		      size_t base);
/* Opens an object or an array (a value: in an array, or after a key). */
void json_write_object(struct json_writer *w);
void json_write_array(struct json_writer *w);
/* Closes the innermost open object or array. */
void json_write_end(struct json_writer *w);
/* The next member's key, in an object. */
void json_write_key(struct json_writer *w, const char *key);
void json_write_value_string(struct json_writer *w, const char *s);
void json_write_value_number(struct json_writer *w, double d);
void json_write_value_null(struct json_writer *w);
void json_write_value_bool(struct json_writer *w, bool b);
/* [low, high]: an interval (NaN and infinities print as null, an unknown
 * bound). */
void json_write_value_pair(struct json_writer *w, double low, double high);

#endif
