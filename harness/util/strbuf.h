/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STRBUF_H
#define BENCHGATE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Growable text and bytes, after git's strbuf.
 *
 * `buf` is never NULL and always NUL-terminated, so it can be passed to any
 * C string function; `len` excludes the terminator. Start from STRBUF_INIT
 * (no allocation) and end with strbuf_release().
 */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_empty[];
#define STRBUF_INIT                \
	{                          \
		0, 0, strbuf_empty \
	}

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);

/* Hands the buffer to the caller (free() it) and resets sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);

/* Ensures room for `extra` more bytes plus the terminator. */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Appends s quoted for a POSIX shell when it needs quoting ('it'\''s'), so a
 * printed command can be pasted back into a terminal. */
void strbuf_add_shell_quoted(struct strbuf *sb, const char *s);

/* Removes trailing whitespace. */
void strbuf_rtrim(struct strbuf *sb);

/* Appends the whole file at path. BG_ERROR (message names the path) on
 * failure, leaving sb as it was. */
int strbuf_read_file(struct strbuf *sb, const char *path);

#endif
