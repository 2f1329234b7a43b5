/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/json.h"

#include "harness/util/decimal.h"
#include "harness/util/utf8.h"

#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether s is plain ASCII, which needs no sanitising: nearly every name
 * is, and then the copy utf8_sanitized() makes is not needed. */
static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

cJSON *json_string(const char *s)
{
	char *valid;
	cJSON *item;

	if (!s)
		return cJSON_CreateNull();
	if (is_ascii(s))
		return cJSON_CreateString(s);
	valid = utf8_sanitized(s);
	item = cJSON_CreateString(valid);
	free(valid);
	return item;
}

void json_add_string(cJSON *object, const char *key, const char *s)
{
	json_add_item(object, key, json_string(s));
}

void json_add_item(cJSON *object, const char *key, cJSON *item)
{
	char *valid;

	if (is_ascii(key)) {
		cJSON_AddItemToObject(object, key, item);
		return;
	}
	valid = utf8_sanitized(key);
	cJSON_AddItemToObject(object, valid, item);
	free(valid);
}

/*
 * The printer. cJSON_Print() formats each number twice through printf and
 * reads it back through sscanf, and builds its text in a buffer of its own
 * that is then copied; printing compare's and history's large documents
 * spent most of their time there. These functions write the same bytes as
 * cJSON 1.7's formatted printer (print_value() and its helpers in
 * cJSON.c): the tests compare the two on every kind of item.
 */

/* "%d" of n */
static void add_int(struct strbuf *out, int n)
{
	char text[12], *p = text + sizeof(text);
	unsigned int u = n < 0 ? 0u - (unsigned int)n : (unsigned int)n;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (n < 0)
		*--p = '-';
	strbuf_add(out, p, (size_t)(text + sizeof(text) - p));
}

/* cJSON's compare_double(): equal within the larger one's epsilon. */
static bool close_doubles(double a, double b)
{
	double larger = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= larger * DBL_EPSILON;
}

/* cJSON 1.7.16 and later print a value equal to its valueint as "%d":
 * the same digits as "%1.15g" but for negative zero, "0" there and "-0"
 * before. */
#define CJSON_PRINTS_INT                                                      \
	(CJSON_VERSION_MAJOR * 10000 + CJSON_VERSION_MINOR * 100 +           \
		 CJSON_VERSION_PATCH >=                                       \
	 10716)

/* print_number(): 15 significant digits when those read back
 * (close_doubles()) to the value, else 17; NaN and the infinities as
 * null. valueint is the item's, cJSON's saturated conversion of the
 * value. decimal.h writes printf's digits without printf, and knows
 * for nearly every number whether they read back without strtod(). */
static void add_number(struct strbuf *out, double d, int valueint)
{
	char text[DECIMAL_TEXT_SIZE];
	enum decimal_distance distance = DECIMAL_UNKNOWN;
	int len;

	if (isnan(d) || isinf(d)) {
		strbuf_add(out, "null", 4);
		return;
	}
	if (CJSON_PRINTS_INT && d == (double)valueint) {
		add_int(out, valueint);
		return;
	}
	len = decimal_format_g(text, d, 15, &distance);
	if (len < 0)
		len = snprintf(text, sizeof(text), "%1.15g", d);
	if (distance == DECIMAL_FAR ||
	    (distance == DECIMAL_UNKNOWN &&
	     !close_doubles(strtod(text, NULL), d))) {
		len = decimal_format_g(text, d, 17, NULL);
		if (len < 0)
			len = snprintf(text, sizeof(text), "%1.17g", d);
	}
	strbuf_add(out, text, (size_t)len);
}

/* cJSON_CreateNumber()'s valueint of d. */
static int saturated_int(double d)
{
	if (isnan(d))
		return 0; /* printed as null, whatever valueint is */
	if (d >= INT_MAX)
		return INT_MAX;
	if (d <= (double)INT_MIN)
		return INT_MIN;
	return (int)d;
}

/* print_string_ptr(): quotes, the two-letter escapes, \u00XX for the other
 * control bytes, every other byte as it is; NULL as "". */
static void add_quoted(struct strbuf *out, const char *s)
{
	const char *run = s;

	strbuf_addch(out, '"');
	for (const char *p = s ? s : ""; *p; p++) {
		unsigned char c = (unsigned char)*p;
		char escape[8];

		if (c >= 32 && c != '"' && c != '\\')
			continue;
		strbuf_add(out, run, (size_t)(p - run));
		run = p + 1;
		switch (c) {
		case '"':
		case '\\':
			escape[0] = '\\';
			escape[1] = (char)c;
			escape[2] = 0;
			break;
		case '\b':
			strcpy(escape, "\\b");
			break;
		case '\f':
			strcpy(escape, "\\f");
			break;
		case '\n':
			strcpy(escape, "\\n");
			break;
		case '\r':
			strcpy(escape, "\\r");
			break;
		case '\t':
			strcpy(escape, "\\t");
			break;
		default:
			snprintf(escape, sizeof(escape), "\\u%04x", c);
			break;
		}
		strbuf_addstr(out, escape);
	}
	if (s)
		strbuf_addstr(out, run);
	strbuf_addch(out, '"');
}

static void add_tabs(struct strbuf *out, size_t n)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

	for (; n > sizeof(tabs) - 1; n -= sizeof(tabs) - 1)
		strbuf_add(out, tabs, sizeof(tabs) - 1);
	strbuf_add(out, tabs, n);
}

static bool print_item(struct strbuf *out, const cJSON *item, size_t depth)
{
	const cJSON *child;

	switch (item->type & 0xFF) {
	case cJSON_NULL:
		strbuf_add(out, "null", 4);
		return true;
	case cJSON_False:
		strbuf_add(out, "false", 5);
		return true;
	case cJSON_True:
		strbuf_add(out, "true", 4);
		return true;
	case cJSON_Number:
		add_number(out, item->valuedouble, item->valueint);
		return true;
	case cJSON_Raw:
		if (!item->valuestring)
			return false;
		strbuf_addstr(out, item->valuestring);
		return true;
	case cJSON_String:
		add_quoted(out, item->valuestring);
		return true;
	case cJSON_Array:
		strbuf_addch(out, '[');
		for (child = item->child; child; child = child->next) {
			if (!print_item(out, child, depth + 1))
				return false;
			if (child->next)
				strbuf_add(out, ", ", 2);
		}
		strbuf_addch(out, ']');
		return true;
	case cJSON_Object:
		strbuf_add(out, "{\n", 2);
		for (child = item->child; child; child = child->next) {
			add_tabs(out, depth + 1);
			add_quoted(out, child->string);
			strbuf_add(out, ":\t", 2);
			if (!print_item(out, child, depth + 1))
				return false;
			if (child->next)
				strbuf_addch(out, ',');
			strbuf_addch(out, '\n');
		}
		add_tabs(out, depth);
		strbuf_addch(out, '}');
		return true;
	default:
		return false;
	}
}

void json_print(struct strbuf *out, const cJSON *item)
{
	size_t len = out->len;

	if (!item || !print_item(out, item, 0)) {
		/* what cJSON_Print() refuses: an invalid item, a raw one
		 * without text */
		strbuf_setlen(out, len);
		fputs("benchgate: fatal: cannot serialise JSON\n", stderr);
		abort();
	}
	strbuf_addch(out, '\n');
}

/* d as json_print() prints a number item of it (NaN and the infinities as
 * null). */
static void write_number(struct strbuf *out, double d)
{
	add_number(out, d, saturated_int(d));
}

/* The length of s when it is printed as it is between its quotes (ASCII
 * from the space on, no quote or backslash: nearly every name, commit
 * and date), else SIZE_MAX. */
static size_t plain_length(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (;; p++)
		if (*p < 32 || *p >= 0x80 || *p == '"' || *p == '\\')
			return *p ? SIZE_MAX : (size_t)(p - (const unsigned char *)s);
}

void json_write_string(struct strbuf *out, const char *s)
{
	char *valid;
	size_t plain = s ? plain_length(s) : SIZE_MAX;

	if (plain != SIZE_MAX) {
		/* one pass and one copy: history's million points */
		strbuf_grow(out, plain + 2);
		out->buf[out->len] = '"';
		memcpy(out->buf + out->len + 1, s, plain);
		out->buf[out->len + 1 + plain] = '"';
		strbuf_setlen(out, out->len + plain + 2);
	} else if (!s) {
		strbuf_add(out, "null", 4);
	} else if (is_ascii(s)) {
		add_quoted(out, s);
	} else {
		valid = utf8_sanitized(s);
		add_quoted(out, valid);
		free(valid);
	}
}

void json_writer_init(struct json_writer *w, struct strbuf *out,
		      size_t depth)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->base = depth;
}

/* Before a value: the separator from the one before it in an array. */
static void before_value(struct json_writer *w)
{
	if (w->nested && w->array[w->nested - 1]) {
		if (!w->first[w->nested - 1])
			strbuf_add(w->out, ", ", 2);
		w->first[w->nested - 1] = false;
	}
}

static void push(struct json_writer *w, bool array)
{
	assert(w->nested < JSON_WRITER_DEPTH);
	w->array[w->nested] = array;
	w->first[w->nested] = true;
	w->nested++;
}

void json_write_object(struct json_writer *w)
{
	before_value(w);
	strbuf_add(w->out, "{\n", 2);
	push(w, false);
}

void json_write_array(struct json_writer *w)
{
	before_value(w);
	strbuf_addch(w->out, '[');
	push(w, true);
}

void json_write_end(struct json_writer *w)
{
	assert(w->nested > 0);
	w->nested--;
	if (w->array[w->nested]) {
		strbuf_addch(w->out, ']');
		return;
	}
	if (!w->first[w->nested])
		strbuf_addch(w->out, '\n');
	add_tabs(w->out, w->base + w->nested);
	strbuf_addch(w->out, '}');
}

void json_write_key(struct json_writer *w, const char *key)
{
	size_t depth = w->base + w->nested, plain = plain_length(key);
	bool first;

	assert(w->nested > 0 && !w->array[w->nested - 1]);
	first = w->first[w->nested - 1];
	w->first[w->nested - 1] = false;
	if (plain != SIZE_MAX && depth <= 16) {
		/* ",\n", the tabs, the quoted key and ":\t" in one piece:
		 * history's million points have six keys each */
		char *at;

		strbuf_grow(w->out, 2 + depth + plain + 4);
		at = w->out->buf + w->out->len;
		if (!first) {
			*at++ = ',';
			*at++ = '\n';
		}
		memset(at, '\t', depth);
		at += depth;
		*at++ = '"';
		memcpy(at, key, plain);
		at += plain;
		memcpy(at, "\":\t", 3);
		strbuf_setlen(w->out, (size_t)(at + 3 - w->out->buf));
		return;
	}
	if (!first)
		strbuf_add(w->out, ",\n", 2);
	add_tabs(w->out, depth);
	json_write_string(w->out, key);
	strbuf_add(w->out, ":\t", 2);
}

void json_write_value_string(struct json_writer *w, const char *s)
{
	before_value(w);
	json_write_string(w->out, s);
}

void json_write_value_number(struct json_writer *w, double d)
{
	before_value(w);
	write_number(w->out, d);
}

void json_write_value_null(struct json_writer *w)
{
	before_value(w);
	strbuf_add(w->out, "null", 4);
}

void json_write_value_bool(struct json_writer *w, bool b)
{
	before_value(w);
	if (b)
		strbuf_add(w->out, "true", 4);
	else
		strbuf_add(w->out, "false", 5);
}

void json_write_value_pair(struct json_writer *w, double low, double high)
{
	json_write_array(w);
	json_write_value_number(w, low);
	json_write_value_number(w, high);
	json_write_end(w);
}
