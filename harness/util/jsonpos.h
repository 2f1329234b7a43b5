#ifndef BENCHGATE_JSONPOS_H
#define BENCHGATE_JSONPOS_H

#include <stddef.h>

/*
 * Positions in JSON text. cJSON keeps no source positions, so errors about
 * a value found in the parsed tree are mapped back to the text here, by
 * walking the same key path through the characters.
 */

/* One step of a key path: an object key (the occurrence-th member with that
 * name, 0 for the first, so duplicates can be told apart) or, when key is
 * NULL, an array index. */
struct json_step {
	const char *key;
	int index;
	int occurrence;
};

/* Byte offset in text of the value at path (of the key itself when the last
 * step is a key and at_key is set). Returns -1 when the path is not found or
 * the text is not valid JSON up to it. */
long json_locate(const char *text, size_t len, const struct json_step *path,
		 size_t depth, int at_key);

/* 1-based line and column of byte offset in text (columns count bytes). */
void json_line_col(const char *text, size_t offset, int *line, int *col);

/* Appends "benchmarks[0].metrics[2].from" for path to a buffer of size n. */
void json_path_format(char *out, size_t n, const struct json_step *path,
		      size_t depth);

#endif
