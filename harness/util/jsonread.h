/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_JSONREAD_H
#define BENCHGATE_JSONREAD_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reading a JSON input document (a suite, a result, a comparison) with
 * positions: every message names the file, the line and column of the
 * value at fault, its key path and what was expected, as in
 *
 *	suite.json:8:3: benchmarks[0].metrics[2].from: unknown source 'clock'
 *
 * cJSON parses the text and keeps no positions, so the reader keeps the key
 * path of the value being read (push a key or an index before reading
 * below it, pop it after) and maps that path back to the text when a
 * message is needed. Only the first error is kept: a reader may go on
 * reading after one, and every later getter and failure returns it again,
 * so a document reader can check once at the end.
 *
 *	struct json_reader rd;
 *	char *name = NULL;
 *
 *	if (json_reader_parse(&rd, path, text, len) < 0)
 *		return rd.error;
 *	json_read_string(&rd, rd.root, "suite", JSON_REQUIRED, &name);
 *	...
 *	json_reader_release(&rd);
 */

/* The deepest key path a reader follows; a document reader asserts its
 * documents stay within it. */
#define JSON_READER_DEPTH 16

/* One step of a key path: an object key (the occurrence-th member with that
 * name, 0 for the first, so duplicates can be told apart) or, when key is
 * NULL, an array index. */
struct json_step {
	const char *key;
	int index;
	int occurrence;
};

struct json_reader {
	const char *path; /* names the document in messages; borrowed */
	const char *text; /* the document; borrowed, need not end in NUL */
	size_t len;
	char *uncommented; /* owned: text with its comments blanked, if any */
	cJSON *root; /* the parsed document, owned; NULL if it did not parse */
	struct json_step steps[JSON_READER_DEPTH]; /* keys borrowed */
	size_t depth;
	int error; /* the first error's code (BG_EINPUT); BG_OK until then */
};

/* How a getter takes its key; combine with |. */
enum json_read_flags {
	/* An absent key is an error: "FILE:LINE:COL: PARENT: missing
	 * required key 'KEY'", at the object that lacks it. */
	JSON_REQUIRED = 1 << 0,
	/* null reads as an absent key (how cJSON writes an unknown number). */
	JSON_NULLABLE = 1 << 1,
	/* Strings: "" is an error ("expected a non-empty string"). */
	JSON_NONEMPTY = 1 << 2,
	/* Strings: a name (name_valid() of name.h): "expected a name of
	 * letters, digits, '-', '_', '.' and '+', found 'a\x0ab'". */
	JSON_NAME = 1 << 3,
	/* Strings: printable text (name_printable()), as units are:
	 * "expected printable text (...), found 'm\x1b[2J'". */
	JSON_PRINTABLE = 1 << 4,
};

/*
 * Parses text (len bytes, borrowed, read until json_reader_release) as the
 * document `path` names. On success rd->root is the document and the key
 * path is empty. On a syntax error returns BG_EINPUT and records
 * "FILE:LINE:COL: not valid JSON: unexpected ..." with what was expected,
 * or for a comma before a closing bracket "...: a trailing ',' before
 * '}' ..." at the comma; release rd either way.
 */
int json_reader_parse(struct json_reader *rd, const char *path,
		      const char *text, size_t len);

/* How json_reader_parse_opts() reads the text; combine with |. */
enum json_parse_flags {
	/* Comments as editors allow them in JSON files (JSONC): from // to the
	 * end of the line, and from slash-star to star-slash, read as white
	 * space, so positions in messages stay those of the file. A block
	 * comment left open is "FILE:LINE:COL: not valid JSON: the comment
	 * ... is not closed", at its start. For suites, which people write;
	 * the documents benchgate writes take none. */
	JSON_COMMENTS = 1 << 0,
};

/* json_reader_parse() with flags of enum json_parse_flags. */
int json_reader_parse_opts(struct json_reader *rd, const char *path,
			   const char *text, size_t len, unsigned flags);

/* Frees the parsed document. */
void json_reader_release(struct json_reader *rd);

/* Enter a member (key borrowed until popped) or an array element, and leave
 * it again. Deeper than JSON_READER_DEPTH is a programmer mistake. */
void json_reader_push_key(struct json_reader *rd, const char *key);
void json_reader_push_index(struct json_reader *rd, int index);
void json_reader_pop(struct json_reader *rd);

/* Leaves every step entered since rd->depth was depth. */
void json_reader_pop_to(struct json_reader *rd, size_t depth);

/*
 * Records "FILE:LINE:COL: KEY.PATH: message" for the value at the current
 * key path (at its key with _at_key: for a key that should not be there)
 * and returns BG_EINPUT; keeps and returns the first error when there was
 * one. A value whose position cannot be found is named by file and path
 * alone; one at the top of the document by its position alone.
 */
int json_reader_fail(struct json_reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int json_reader_fail_at_key(struct json_reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Checks text read otherwise than by json_read_string() (an object's key,
 * an array element) against the rule JSON_NAME or JSON_PRINTABLE in flags
 * names, and reports it at the current path as that getter would. Returns
 * BG_OK or the error. */
int json_reader_check(struct json_reader *rd, const char *text, unsigned flags);

/* "a string", "a number", "a boolean", "null", "an array", "an object":
 * for "expected ..., found %s" messages. */
const char *json_type_name(const cJSON *item);

/*
 * Checks that object (the value at the current path) has no key twice
 * (cJSON keeps both) and, unless allowed is NULL, only the keys of allowed
 * (NULL-terminated): "unknown key 'frm'; expected one of: name, from, ..."
 * at the key. Returns BG_OK or the error.
 */
int json_read_check_keys(struct json_reader *rd, const cJSON *object,
			 const char *const *allowed);

/*
 * The getters read object[key] (object is the value at the current path;
 * key is pushed for their messages and popped again). Each returns 1 when
 * the key was there and read, 0 when it is absent (an error only with
 * JSON_REQUIRED) or on an error; *out is left alone unless 1 is returned.
 * A wrong type is reported at the value: "expected a string, found a
 * number".
 */

/* The member itself, any type; NULL when absent. */
const cJSON *json_read_item(struct json_reader *rd, const cJSON *object,
			    const char *key, unsigned flags);

/* A copy of the string, freeing what *out held. */
int json_read_string(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, char **out);

/* The same into a fixed field: at most size - 1 bytes into out. A longer
 * string is "expected <what>" at the value, never cut short. */
int json_read_fixed(struct json_reader *rd, const cJSON *object,
		    const char *key, unsigned flags, char *out, size_t size,
		    const char *what);

int json_read_number(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, double *out);

/* A whole number from min to max: "expected a whole number from 0 to
 * 1000000" otherwise. */
int json_read_int(struct json_reader *rd, const cJSON *object, const char *key,
		  unsigned flags, int min, int max, int *out);

/* A whole number from 0 to max (at most 2^53, beyond which a double skips
 * integers), for byte counts. */
int json_read_uint64(struct json_reader *rd, const cJSON *object,
		     const char *key, unsigned flags, uint64_t max,
		     uint64_t *out);

/* One of the strings of names (NULL-terminated): *out is its index.
 * "unknown value 'up'; expected one of: lower, higher" otherwise. */
int json_read_enum(struct json_reader *rd, const cJSON *object, const char *key,
		   unsigned flags, const char *const *names, int *out);

/* true or false. */
int json_read_bool(struct json_reader *rd, const cJSON *object, const char *key,
		   unsigned flags, bool *out);

/* The object or array member, borrowed from rd->root; NULL when absent or
 * of another type. */
const cJSON *json_read_object(struct json_reader *rd, const cJSON *object,
			      const char *key, unsigned flags);
const cJSON *json_read_array(struct json_reader *rd, const cJSON *object,
			     const char *key, unsigned flags);

/* An array of strings, copied into a NULL-terminated array of *nr strings
 * (free each and the array); an element of another type is reported at
 * the element. */
int json_read_strings(struct json_reader *rd, const cJSON *object,
		      const char *key, unsigned flags, char ***out, size_t *nr);

/* 1-based line and column of byte offset in text (columns count bytes),
 * for messages about JSON read elsewhere. */
void json_line_col(const char *text, size_t offset, int *line, int *col);

#endif
