#include "harness/util/jsonpos.h"

#include <stdio.h>
#include <string.h>

struct cursor {
	const char *text;
	size_t len, pos;
};

static void skip_space(struct cursor *c)
{
	while (c->pos < c->len && strchr(" \t\r\n", c->text[c->pos]))
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

/* Whether the string token text[start..end) is "key" (no escapes in key). */
static int string_equals(const char *text, size_t start, size_t end,
			 const char *key)
{
	size_t n = end - start - 2;

	return strlen(key) == n && !memcmp(text + start + 1, key, n);
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

long json_locate(const char *text, size_t len, const struct json_step *path,
		 size_t depth, int at_key)
{
	struct cursor c = { text, len, 0 };
	size_t key_pos = 0;

	for (size_t i = 0; i < depth; i++)
		if (enter(&c, &path[i], &key_pos) < 0)
			return -1;
	if (depth && at_key && path[depth - 1].key)
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

void json_path_format(char *out, size_t n, const struct json_step *path,
		      size_t depth)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < depth && used < n; i++) {
		int w = path[i].key ? snprintf(out + used, n - used, "%s%s",
					       i ? "." : "", path[i].key)
				    : snprintf(out + used, n - used, "[%d]",
					       path[i].index);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}
