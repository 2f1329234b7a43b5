/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/jsonread.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/name.h"
#include "harness/util/strbuf.h"
#include "harness/util/terminal.h"
#include "harness/util/utf8.h"

#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Positions: cJSON keeps none, so the key path is walked again through the
 * characters of the text, which the parser has already found valid. */

struct cursor {
	const char *text;
	size_t len, pos;
};

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void skip_space(struct cursor *c)
{
	while (c->pos < c->len && is_space(c->text[c->pos]))
		c->pos++;
}

static int peek(struct cursor *c)
{
	skip_space(c);
	return c->pos < c->len ? (unsigned char)c->text[c->pos] : -1;
}

/* Skips a string starting at its opening quote; on return pos is just past
 * the closing quote. */
static int skip_string(struct cursor *c)
{
	for (c->pos++; c->pos < c->len; c->pos++) {
		if (c->text[c->pos] == '\\')
			c->pos++;
		else if (c->text[c->pos] == '"')
			return c->pos++, 0;
	}
	return -1;
}

/* The four hex digits at s; 0 when one is not a hex digit, which is how
 * cJSON reads them (and so how it names the key). */
static unsigned hex4(const char *s)
{
	unsigned value = 0;

	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)s[i];

		if (!isxdigit(c))
			return 0;
		value = value << 4 |
			(unsigned)(isdigit(c) ? c - '0'
					      : (c | 0x20) - 'a' + 10);
	}
	return value;
}

/* Whether the string token text[start..end) is "key", its escapes read as
 * cJSON reads them (the parser has found them valid). */
static bool string_equals(const char *text, size_t start, size_t end,
			  const char *key)
{
	struct strbuf decoded = STRBUF_INIT;
	bool equal;

	for (size_t i = start + 1; i + 1 < end; i++) {
		const char *escape = strchr("b\bf\fn\nr\rt\t", text[i + 1]);
		unsigned cp;

		if (text[i] != '\\') {
			strbuf_addch(&decoded, text[i]);
		} else if (text[++i] != 'u') {
			strbuf_addch(&decoded, escape ? escape[1] : text[i]);
		} else {
			cp = hex4(text + i + 1);
			i += 4;
			/* a high surrogate and its low one: cJSON accepts no
			 * other pairing */
			if (cp >= 0xd800 && cp <= 0xdbff && i + 6 < end &&
			    hex4(text + i + 3) >= 0xdc00 &&
			    hex4(text + i + 3) <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10 |
						(hex4(text + i + 3) - 0xdc00));
				i += 6;
			}
			utf8_encode(&decoded, cp >= 0xd800 && cp <= 0xdfff
						      ? UTF8_REPLACEMENT
						      : cp);
		}
	}
	/* a \u0000 ends the string for cJSON as for strcmp */
	equal = !strcmp(decoded.buf, key);
	strbuf_release(&decoded);
	return equal;
}

static int skip_value(struct cursor *c)
{
	int ch = peek(c);
	int depth = 0;

	if (ch == '"')
		return skip_string(c);
	if (ch != '{' && ch != '[') {
		while (c->pos < c->len &&
		       !strchr(",}] \t\r\n", c->text[c->pos]))
			c->pos++;
		return 0;
	}
	for (; c->pos < c->len; c->pos++) {
		ch = c->text[c->pos];
		if (ch == '"') {
			if (skip_string(c) < 0)
				return -1;
			c->pos--;
		} else if (ch == '{' || ch == '[') {
			depth++;
		} else if ((ch == '}' || ch == ']') && --depth == 0) {
			c->pos++;
			return 0;
		}
	}
	return -1;
}

/* Moves the cursor to the member `step` of the object or array at the
 * cursor; records where its key starts in *key_pos. */
static int enter(struct cursor *c, const struct json_step *step,
		 size_t *key_pos)
{
	int ch = peek(c), seen = 0;

	if (step->key ? ch != '{' : ch != '[')
		return -1;
	c->pos++;
	for (int index = 0;; index++) {
		ch = peek(c);
		if (ch == '}' || ch == ']' || ch < 0)
			return -1;
		if (step->key) {
			size_t start = c->pos, end;

			if (ch != '"' || skip_string(c) < 0)
				return -1;
			end = c->pos;
			if (peek(c) != ':')
				return -1;
			c->pos++;
			if (string_equals(c->text, start, end, step->key) &&
			    seen++ == step->occurrence) {
				*key_pos = start;
				return 0;
			}
		} else if (index == step->index) {
			*key_pos = c->pos;
			return 0;
		}
		if (skip_value(c) < 0)
			return -1;
		if (peek(c) == ',')
			c->pos++;
	}
}

/* Byte offset of the value at the first `depth` steps of the key path (of
 * its key when at_key and the last step is a key); -1 when not found. */
static long locate(const struct json_reader *rd, size_t depth, bool at_key)
{
	struct cursor c = { rd->text, rd->len, 0 };
	size_t key_pos = 0;

	for (size_t i = 0; i < depth; i++)
		if (enter(&c, &rd->steps[i], &key_pos) < 0)
			return -1;
	if (depth && at_key && rd->steps[depth - 1].key)
		return (long)key_pos;
	skip_space(&c);
	return (long)c.pos;
}

void json_line_col(const char *text, size_t offset, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* "benchmarks[0].metrics[2].from" for the first `depth` steps. */
static void path_format(struct strbuf *out, const struct json_reader *rd,
			size_t depth)
{
	for (size_t i = 0; i < depth; i++) {
		if (rd->steps[i].key)
			strbuf_addf(out, "%s%s", i ? "." : "",
				    rd->steps[i].key);
		else
			strbuf_addf(out, "[%d]", rd->steps[i].index);
	}
}

/* Records an input error. Its text quotes what the document holds (keys,
 * values, the file's name): terminal_escape() keeps their control
 * characters out of the message itself, whoever prints it. */
static int input_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int input_error(const char *fmt, ...)
{
	struct strbuf message = STRBUF_INIT, quoted = STRBUF_INIT;
	va_list ap;
	int error;

	va_start(ap, fmt);
	strbuf_vaddf(&message, fmt, ap);
	va_end(ap);
	terminal_escape(&quoted, message.buf);
	error = bg_input_error("%s", quoted.buf);
	strbuf_release(&message);
	strbuf_release(&quoted);
	return error;
}

/* Parsing */

/* cJSON stops inside the last token, at an opening bracket or before
 * trailing whitespace when the text ends early: nothing that closes or
 * separates a value is left after where it stopped, so the text can only
 * have gone on. */
static bool cut_short(const char *text, size_t len, size_t offset)
{
	for (size_t i = offset; i < len; i++)
		if (strchr("}],:", text[i]) || !text[i])
			return false;
	return true;
}

/* The first ',' before limit that only white space separates from a
 * closing bracket, with that bracket in *closing; -1 when there is none.
 * Strings are skipped, so a comma inside one never counts. */
static long trailing_comma(const char *text, size_t limit, size_t len,
			   char *closing)
{
	for (size_t i = 0; i < limit && i < len; i++) {
		if (text[i] == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
		} else if (text[i] == ',') {
			size_t next = i + 1;

			while (next < len && is_space(text[next]))
				next++;
			if (next < len &&
			    (text[next] == '}' || text[next] == ']')) {
				*closing = text[next];
				return (long)i;
			}
		}
	}
	return -1;
}

static int syntax_error(struct json_reader *rd, const char *end)
{
	const char *text = rd->text;
	size_t len = rd->len;
	size_t offset = end && end >= text && end <= text + len
				? (size_t)(end - text)
				: len;
	size_t before = offset;
	long comma;
	char closing = 0;
	int line, col;

	/* cJSON stops at or after the bracket that follows a trailing comma
	 * (at the end of the text, for an object): the comma is the mistake,
	 * and is named where it stands. */
	comma = trailing_comma(text, offset + 1, len, &closing);
	if (comma >= 0) {
		json_line_col(text, (size_t)comma, &line, &col);
		return input_error("%s:%d:%d: not valid JSON: a trailing ',' "
				   "before '%c': JSON allows no comma after "
				   "the last %s; remove it",
				   rd->path, line, col, closing,
				   closing == '}' ? "member" : "element");
	}
	if (cut_short(text, len, offset))
		offset = len;
	json_line_col(text, offset, &line, &col);
	if (offset >= len) {
		for (before = 0; before < len && is_space(text[before]);
		     before++)
			;
		if (before == len)
			return input_error("%s:%d:%d: not valid JSON: the "
					   "file is empty",
					   rd->path, line, col);
		return input_error("%s:%d:%d: not valid JSON: unexpected "
				   "end of file (an object or array is "
				   "not closed)",
				   rd->path, line, col);
	}
	return input_error("%s:%d:%d: not valid JSON: unexpected '%c'; "
			   "expected a value, ',' or a closing bracket",
			   rd->path, line, col, text[offset]);
}

/* Comments, where the reader takes them: a copy of the text with each
 * comment turned into spaces (its line breaks kept), so every offset, and
 * so every line and column, is the same in the copy as in the file.
 * Returns NULL when the text has no comment, and an input error for a
 * block comment that is not closed. */
static int strip_comments(struct json_reader *rd, char **out)
{
	const char *text = rd->text;
	size_t len = rd->len;
	char *copy = NULL;

	*out = NULL;
	for (size_t i = 0; i < len; i++) {
		size_t start = i;
		int line, col;

		if (text[i] == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			continue;
		}
		if (text[i] != '/' || i + 1 >= len ||
		    (text[i + 1] != '/' && text[i + 1] != '*'))
			continue;
		if (!copy) {
			copy = xmalloc(len + 1);
			memcpy(copy, text, len);
			copy[len] = '\0';
		}
		if (text[i + 1] == '/') {
			while (i < len && text[i] != '\n')
				copy[i++] = ' ';
			continue;
		}
		copy[i] = copy[i + 1] = ' ';
		for (i += 2; i + 1 < len && !(text[i] == '*' && text[i + 1] == '/');
		     i++)
			if (text[i] != '\n')
				copy[i] = ' ';
		if (i + 1 >= len) {
			free(copy);
			json_line_col(text, start, &line, &col);
			return input_error("%s:%d:%d: not valid JSON: the "
					   "comment '/*' is not closed by "
					   "'*/'",
					   rd->path, line, col);
		}
		copy[i] = copy[i + 1] = ' ';
		i++;
	}
	*out = copy;
	return BG_OK;
}

int json_reader_parse_opts(struct json_reader *rd, const char *path,
			   const char *text, size_t len, unsigned flags)
{
	const char *end = NULL;

	memset(rd, 0, sizeof(*rd));
	rd->path = path;
	rd->text = text;
	rd->len = len;
	if (flags & JSON_COMMENTS) {
		if ((rd->error = strip_comments(rd, &rd->uncommented)) < 0)
			return rd->error;
		if (rd->uncommented)
			rd->text = rd->uncommented;
	}
	rd->root = cJSON_ParseWithLengthOpts(rd->text, len, &end, 0);
	if (!rd->root)
		rd->error = syntax_error(rd, end);
	return rd->error;
}

int json_reader_parse(struct json_reader *rd, const char *path,
		      const char *text, size_t len)
{
	return json_reader_parse_opts(rd, path, text, len, 0);
}

void json_reader_release(struct json_reader *rd)
{
	cJSON_Delete(rd->root);
	rd->root = NULL;
	free(rd->uncommented);
	rd->uncommented = NULL;
}

/* The key path */

void json_reader_push_key(struct json_reader *rd, const char *key)
{
	assert(rd->depth < JSON_READER_DEPTH);
	rd->steps[rd->depth++] = (struct json_step){ key, 0, 0 };
}

void json_reader_push_index(struct json_reader *rd, int index)
{
	assert(rd->depth < JSON_READER_DEPTH);
	rd->steps[rd->depth++] = (struct json_step){ NULL, index, 0 };
}

void json_reader_pop(struct json_reader *rd)
{
	assert(rd->depth > 0);
	rd->depth--;
}

void json_reader_pop_to(struct json_reader *rd, size_t depth)
{
	assert(depth <= rd->depth);
	rd->depth = depth;
}

/* Errors */

static int fail_path(struct json_reader *rd, bool at_key, const char *fmt,
		     va_list ap) __attribute__((format(printf, 3, 0)));

static int fail_path(struct json_reader *rd, bool at_key, const char *fmt,
		     va_list ap)
{
	struct strbuf where = STRBUF_INIT, message = STRBUF_INIT;
	long offset;
	int line = 0, col = 0;

	if (rd->error)
		return rd->error;
	strbuf_vaddf(&message, fmt, ap);
	path_format(&where, rd, rd->depth);
	offset = locate(rd, rd->depth, at_key);
	if (offset >= 0)
		json_line_col(rd->text, (size_t)offset, &line, &col);
	if (line && where.len)
		rd->error = input_error("%s:%d:%d: %s: %s", rd->path, line, col,
					where.buf, message.buf);
	else if (line)
		rd->error = input_error("%s:%d:%d: %s", rd->path, line, col,
					message.buf);
	else
		rd->error = input_error("%s: %s: %s", rd->path, where.buf,
					message.buf);
	strbuf_release(&where);
	strbuf_release(&message);
	return rd->error;
}

int json_reader_fail(struct json_reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_path(rd, false, fmt, ap);
	va_end(ap);
	return rd->error;
}

int json_reader_fail_at_key(struct json_reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_path(rd, true, fmt, ap);
	va_end(ap);
	return rd->error;
}

/* An absent key has no position of its own: the object that lacks it is
 * named instead. */
static void fail_missing(struct json_reader *rd, const char *key)
{
	struct strbuf where = STRBUF_INIT;
	long offset;
	int line = 0, col = 0;

	if (rd->error)
		return;
	path_format(&where, rd, rd->depth);
	offset = locate(rd, rd->depth, false);
	if (offset >= 0)
		json_line_col(rd->text, (size_t)offset, &line, &col);
	rd->error = input_error("%s:%d:%d: %s%smissing required key '%s'",
				rd->path, line, col, where.buf,
				where.len ? ": " : "", key);
	strbuf_release(&where);
}

const char *json_type_name(const cJSON *item)
{
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item))
		return "an array";
	return "an object";
}

int json_read_check_keys(struct json_reader *rd, const cJSON *object,
			 const char *const *allowed)
{
	const cJSON *member;

	cJSON_ArrayForEach(member, object)
	{
		const char *const *a = allowed ? allowed
					       : (const char *[]){ NULL };
		struct strbuf list = STRBUF_INIT;
		const cJSON *earlier;
		int seen = 0;

		for (earlier = object->child; earlier != member;
		     earlier = earlier->next)
			seen += !strcmp(earlier->string, member->string);
		json_reader_push_key(rd, member->string);
		rd->steps[rd->depth - 1].occurrence = seen;
		if (seen)
			json_reader_fail_at_key(rd, "duplicate key '%s'",
						member->string);
		while (*a && strcmp(*a, member->string))
			a++;
		if (allowed && !*a) {
			for (a = allowed; *a; a++)
				strbuf_addf(&list, "%s%s",
					    a == allowed ? "" : ", ", *a);
			json_reader_fail_at_key(rd,
						"unknown key '%s'; expected "
						"one of: %s",
						member->string, list.buf);
		}
		strbuf_release(&list);
		json_reader_pop(rd);
		if (rd->error)
			return rd->error;
	}
	return BG_OK;
}

/* Getters */

const cJSON *json_read_item(struct json_reader *rd, const cJSON *object,
			    const char *key, unsigned flags)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	if (item && (flags & JSON_NULLABLE) && cJSON_IsNull(item))
		item = NULL;
	if (!item && (flags & JSON_REQUIRED))
		fail_missing(rd, key);
	return item;
}

/* Reads object[key] when `is_type` holds of it; else reports "expected
 * <what>, found <its type>" at the value. */
static const cJSON *read_typed(struct json_reader *rd, const cJSON *object,
			       const char *key, unsigned flags,
			       cJSON_bool (*is_type)(const cJSON *),
			       const char *what)
{
	const cJSON *item = json_read_item(rd, object, key, flags);

	if (!item || is_type(item))
		return item;
	json_reader_push_key(rd, key);
	json_reader_fail(rd, "expected %s, found %s", what,
			 json_type_name(item));
	json_reader_pop(rd);
	return NULL;
}

int json_reader_check(struct json_reader *rd, const char *text, unsigned flags)
{
	if ((flags & JSON_NAME) && !name_valid(text))
		return json_reader_fail(rd,
					"expected a name of " NAME_ALPHABET
					", found '%s'",
					text);
	if ((flags & JSON_PRINTABLE) && !name_printable(text))
		return json_reader_fail(
			rd, "expected " NAME_PRINTABLE ", found '%s'", text);
	return BG_OK;
}

int json_read_string(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, char **out)
{
	const cJSON *item =
		read_typed(rd, object, key, flags, cJSON_IsString, "a string");
	int error;

	if (!item)
		return 0;
	json_reader_push_key(rd, key);
	if ((flags & JSON_NONEMPTY) && !item->valuestring[0])
		error = json_reader_fail(rd, "expected a non-empty string");
	else
		error = json_reader_check(rd, item->valuestring, flags);
	json_reader_pop(rd);
	if (error < 0)
		return 0;
	free(*out);
	*out = xstrdup(item->valuestring);
	return 1;
}

int json_read_fixed(struct json_reader *rd, const cJSON *object,
		    const char *key, unsigned flags, char *out, size_t size,
		    const char *what)
{
	char *value = NULL;
	int found = json_read_string(rd, object, key, flags, &value);

	if (found && strlen(value) >= size) {
		json_reader_push_key(rd, key);
		json_reader_fail(rd, "expected %s", what);
		json_reader_pop(rd);
		found = 0;
	} else if (found) {
		memcpy(out, value, strlen(value) + 1);
	}
	free(value);
	return found;
}

int json_read_number(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, double *out)
{
	const cJSON *item =
		read_typed(rd, object, key, flags, cJSON_IsNumber, "a number");

	if (!item)
		return 0;
	*out = item->valuedouble;
	return 1;
}

int json_read_int(struct json_reader *rd, const cJSON *object, const char *key,
		  unsigned flags, int min, int max, int *out)
{
	const cJSON *item = json_read_item(rd, object, key, flags);
	double value;

	if (!item)
		return 0;
	value = cJSON_IsNumber(item) ? item->valuedouble : NAN;
	if (!(value == floor(value) && value >= min && value <= max)) {
		json_reader_push_key(rd, key);
		json_reader_fail(rd, "expected a whole number from %d to %d",
				 min, max);
		json_reader_pop(rd);
		return 0;
	}
	*out = (int)value;
	return 1;
}

int json_read_uint64(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, uint64_t max,
		     uint64_t *out)
{
	const cJSON *item = json_read_item(rd, object, key, flags);
	double value;

	assert(max <= UINT64_C(1) << 53);
	if (!item)
		return 0;
	value = cJSON_IsNumber(item) ? item->valuedouble : NAN;
	if (!(value == floor(value) && value >= 0 && value <= (double)max)) {
		json_reader_push_key(rd, key);
		json_reader_fail(
			rd, "expected a whole number from 0 to %" PRIu64, max);
		json_reader_pop(rd);
		return 0;
	}
	*out = (uint64_t)value;
	return 1;
}

int json_read_enum(struct json_reader *rd, const cJSON *object, const char *key,
		   unsigned flags, const char *const *names, int *out)
{
	const cJSON *item =
		read_typed(rd, object, key, flags, cJSON_IsString, "a string");
	struct strbuf list = STRBUF_INIT;

	if (!item)
		return 0;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(names[i], item->valuestring)) {
			*out = i;
			return 1;
		}
	}
	for (int i = 0; names[i]; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", names[i]);
	json_reader_push_key(rd, key);
	json_reader_fail(rd, "unknown value '%s'; expected one of: %s",
			 item->valuestring, list.buf);
	json_reader_pop(rd);
	strbuf_release(&list);
	return 0;
}

int json_read_bool(struct json_reader *rd, const cJSON *object, const char *key,
		   unsigned flags, bool *out)
{
	const cJSON *item = read_typed(rd, object, key, flags, cJSON_IsBool,
				       "true or false");

	if (!item)
		return 0;
	*out = cJSON_IsTrue(item);
	return 1;
}

const cJSON *json_read_object(struct json_reader *rd, const cJSON *object,
			      const char *key, unsigned flags)
{
	return read_typed(rd, object, key, flags, cJSON_IsObject, "an object");
}

const cJSON *json_read_array(struct json_reader *rd, const cJSON *object,
			     const char *key, unsigned flags)
{
	return read_typed(rd, object, key, flags, cJSON_IsArray, "an array");
}

int json_read_strings(struct json_reader *rd, const cJSON *object,
		      const char *key, unsigned flags, char ***out, size_t *nr)
{
	const cJSON *array = json_read_array(rd, object, key, flags);
	const cJSON *item;
	char **strings;
	size_t n = 0;

	if (!array)
		return 0;
	strings = xcalloc((size_t)cJSON_GetArraySize(array) + 1,
			  sizeof(*strings));
	cJSON_ArrayForEach(item, array)
	{
		if (!cJSON_IsString(item)) {
			json_reader_push_key(rd, key);
			json_reader_push_index(rd, (int)n);
			json_reader_fail(rd, "expected a string, found %s",
					 json_type_name(item));
			json_reader_pop(rd);
			json_reader_pop(rd);
			while (n)
				free(strings[--n]);
			free(strings);
			return 0;
		}
		strings[n++] = xstrdup(item->valuestring);
	}
	*out = strings;
	*nr = n;
	return 1;
}
