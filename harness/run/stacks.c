/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/stacks.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/hash.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void stacks_release(struct stacks *stacks)
{
	for (size_t i = 0; i < stacks->nr; i++)
		free(stacks->items[i].frames);
	free(stacks->items);
	free(stacks->index);
	memset(stacks, 0, sizeof(*stacks));
}

static size_t *index_slot(const struct stacks *stacks, const char *frames)
{
	size_t mask = stacks->index_size - 1;
	size_t at = (size_t)hash_fnv1a64(frames, strlen(frames)) & mask;

	while (stacks->index[at] &&
	       strcmp(stacks->items[stacks->index[at] - 1].frames, frames))
		at = (at + 1) & mask;
	return &stacks->index[at];
}

/* Keeps the table at most half full, so probes stay short. */
static void index_grow(struct stacks *stacks)
{
	size_t *old = stacks->index, old_size = stacks->index_size;

	if (stacks->index && (stacks->nr + 1) * 2 <= stacks->index_size)
		return;
	stacks->index_size = old_size ? old_size * 2 : 64;
	stacks->index = xcalloc(stacks->index_size, sizeof(*stacks->index));
	for (size_t i = 0; old && i < old_size; i++)
		if (old[i])
			*index_slot(stacks, stacks->items[old[i] - 1].frames) =
				old[i];
	free(old);
}

/* Adds count samples to the stack "root;...;leaf" (copied). A stack seen
 * before gets the counts summed. A zero count is ignored. */
static void add_stack(struct stacks *stacks, const char *frames, uint64_t count)
{
	size_t *slot;

	if (!count)
		return;
	index_grow(stacks);
	slot = index_slot(stacks, frames);
	if (!*slot) {
		ALLOC_GROW(stacks->items, stacks->nr + 1, stacks->alloc);
		stacks->items[stacks->nr].frames = xstrdup(frames);
		stacks->items[stacks->nr].count = 0;
		*slot = ++stacks->nr;
	}
	stacks->items[*slot - 1].count += count;
	stacks->total += count;
}

/* Folding perf script */

struct sample {
	struct strbuf command;
	char **frames; /* leaf first, as perf prints them */
	size_t nr, alloc;
	bool open;
};

/* ';' separates frames and a newline ends the stack: neither may stay. */
static void add_frame_text(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		strbuf_addch(out, s[i] == ';'			 ? ':'
				  : s[i] == '\n' || s[i] == '\r' ? ' '
								 : s[i]);
}

static void sample_flush(struct stacks *stacks, struct sample *sample)
{
	struct strbuf stack = STRBUF_INIT;

	if (sample->open) {
		strbuf_addstr(&stack, sample->command.buf);
		for (size_t i = sample->nr; i > 0; i--) {
			strbuf_addch(&stack, ';');
			strbuf_addstr(&stack, sample->frames[i - 1]);
		}
		add_stack(stacks, stack.buf, 1);
	}
	for (size_t i = 0; i < sample->nr; i++)
		free(sample->frames[i]);
	sample->nr = 0;
	sample->open = false;
	strbuf_reset(&sample->command);
	strbuf_release(&stack);
}

static bool is_pid_token(const char *s, size_t len)
{
	size_t digits = strspn(s, "0123456789");

	if (!digits)
		return false;
	if (digits < len && s[digits] == '/')
		digits += 1 + strspn(s + digits + 1, "0123456789");
	return digits == len;
}

/*
 * A sample's header: "<command> <pid>[/<tid>] ...". The command may hold
 * spaces, so it is everything before the first token made of digits that
 * follows a space, as stackcollapse-perf.pl reads it.
 */
static bool parse_header(const char *line, struct strbuf *command)
{
	const char *p = line;

	while ((p = strpbrk(p, " \t"))) {
		const char *token = p + strspn(p, " \t");
		size_t len = strcspn(token, " \t");

		if (token[len] && is_pid_token(token, len)) {
			strbuf_reset(command);
			add_frame_text(command, line, (size_t)(p - line));
			return command->len > 0;
		}
		p = token;
	}
	return false;
}

/* The length of symbol without its "+0x36" offset, if it ends with one. */
static size_t strip_offset(const char *symbol, size_t len)
{
	size_t hex = 0;

	while (hex < len && isxdigit((unsigned char)symbol[len - 1 - hex]))
		hex++;
	if (hex && hex < len && len - hex >= 3 &&
	    !strncmp(symbol + len - hex - 3, "+0x", 3))
		return len - hex - 3;
	return len;
}

/* "  4011a6 matmul+0x36 (/build/mlp_bench)" -> "matmul". */
static char *parse_frame(const char *line)
{
	struct strbuf name = STRBUF_INIT;
	const char *p = line + strspn(line, " \t");
	const char *symbol, *end, *object = NULL, *slash;
	size_t object_len = 0, len;

	p += strcspn(p, " \t"); /* the address */
	symbol = p + strspn(p, " \t");
	end = symbol + strlen(symbol);
	while (end > symbol && isspace((unsigned char)end[-1]))
		end--;
	if (end > symbol && end[-1] == ')') {
		const char *open = end - 1;

		while (open > symbol &&
		       !(open[0] == '(' && isspace((unsigned char)open[-1])))
			open--;
		if (open > symbol || (open == symbol && *open == '(')) {
			object = open + 1;
			object_len = (size_t)(end - 1 - object);
			end = open;
			while (end > symbol && isspace((unsigned char)end[-1]))
				end--;
		}
	}
	len = strip_offset(symbol, (size_t)(end - symbol));
	if (len && !(len == 9 && !strncmp(symbol, "[unknown]", 9))) {
		add_frame_text(&name, symbol, len);
		/* time in the kernel reads differently: say where it is */
		if (object && !strncmp(object, "[kernel.", 8))
			strbuf_addstr(&name, STACKS_KERNEL_SUFFIX);
	} else if (object && object_len &&
		   !(object_len == 9 && !strncmp(object, "[unknown]", 9))) {
		/* nameless code is still worth telling apart by object */
		slash = object + object_len;
		while (slash > object && slash[-1] != '/')
			slash--;
		if (*slash == '[')
			add_frame_text(&name, slash,
				       (size_t)(object + object_len - slash));
		else {
			strbuf_addch(&name, '[');
			add_frame_text(&name, slash,
				       (size_t)(object + object_len - slash));
			strbuf_addch(&name, ']');
		}
	} else {
		strbuf_addstr(&name, "[unknown]");
	}
	return strbuf_detach(&name, NULL);
}

int stacks_fold_perf_script(struct stacks *stacks, FILE *in)
{
	struct sample sample = { STRBUF_INIT, NULL, 0, 0, false };
	char *line = NULL;
	size_t line_alloc = 0;
	ssize_t got;
	int error = BG_OK;

	errno = 0;
	while ((got = getline(&line, &line_alloc, in)) >= 0) {
		while (got > 0 &&
		       (line[got - 1] == '\n' || line[got - 1] == '\r'))
			line[--got] = '\0';
		if (!got || line[strspn(line, " \t")] == '\0') {
			sample_flush(stacks, &sample);
		} else if (line[0] == ' ' || line[0] == '\t') {
			if (!sample.open)
				continue;
			ALLOC_GROW(sample.frames, sample.nr + 1, sample.alloc);
			sample.frames[sample.nr++] = parse_frame(line);
		} else {
			sample_flush(stacks, &sample);
			sample.open = parse_header(line, &sample.command);
		}
	}
	if (ferror(in))
		error = bg_error("cannot read the output of perf script: %s",
				 strerror(errno));
	sample_flush(stacks, &sample);
	free(sample.frames);
	strbuf_release(&sample.command);
	free(line);
	return error;
}

int stacks_parse_folded(struct stacks *stacks, const char *text, size_t len)
{
	struct strbuf frames = STRBUF_INIT;
	const char *line = text, *end = text + len;
	int line_nr = 0, error = BG_OK;

	while (line < end) {
		const char *newline = memchr(line, '\n', (size_t)(end - line));
		const char *stop = newline ? newline : end;
		const char *space;
		char *count_end;
		unsigned long long count;

		line_nr++;
		while (stop > line && (stop[-1] == '\r' || stop[-1] == ' '))
			stop--;
		if (stop > line) {
			space = stop;
			while (space > line && space[-1] != ' ')
				space--;
			errno = 0;
			count = strtoull(space, &count_end, 10);
			if (space == line || count_end != stop || errno ||
			    !isdigit((unsigned char)*space)) {
				error = bg_input_error("folded stacks line %d: "
						       "expected 'frame;frame "
						       "count'",
						       line_nr);
				break;
			}
			strbuf_reset(&frames);
			strbuf_add(&frames, line, (size_t)(space - 1 - line));
			add_stack(stacks, frames.buf, count);
		}
		line = newline ? newline + 1 : end;
	}
	strbuf_release(&frames);
	return error;
}

/* Per-level order: a frame sorts before every longer name it begins
 * (';' and the end sort lowest), and a stack before its callees'. */
static int frame_byte(unsigned char c)
{
	return c == '\0' ? 0 : c == ';' ? 1 : c + 2;
}

static int compare_stacks(const void *a, const void *b)
{
	const unsigned char *x =
		(const unsigned char *)(*(const struct stack *const *)a)->frames;
	const unsigned char *y =
		(const unsigned char *)(*(const struct stack *const *)b)->frames;

	while (*x && *x == *y)
		x++, y++;
	return frame_byte(*x) - frame_byte(*y);
}

const struct stack **stacks_sorted(const struct stacks *stacks)
{
	const struct stack **sorted = xcalloc(stacks->nr + 1, sizeof(*sorted));

	for (size_t i = 0; i < stacks->nr; i++)
		sorted[i] = &stacks->items[i];
	qsort(sorted, stacks->nr, sizeof(*sorted), compare_stacks);
	return sorted;
}

void stacks_write_folded(const struct stacks *stacks, struct strbuf *out)
{
	const struct stack **sorted = stacks_sorted(stacks);

	for (size_t i = 0; i < stacks->nr; i++)
		strbuf_addf(out, "%s %llu\n", sorted[i]->frames,
			    (unsigned long long)sorted[i]->count);
	free(sorted);
}
