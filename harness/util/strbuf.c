/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/strbuf.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_empty;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *buf;

	strbuf_grow(sb, 0);
	buf = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return buf;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want <= sb->alloc)
		return;
	if (want < sb->alloc * 2)
		want = sb->alloc * 2;
	if (want < 64)
		want = 64;
	if (!sb->alloc) {
		sb->buf = xmalloc(want);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, want);
	}
	sb->alloc = want;
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		if (len)
			strbuf_grow(sb, len);
		else
			return;
	}
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	/* nothing to add may come as (NULL, 0), which memcpy may not take */
	if (!len)
		return;
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	strbuf_setlen(sb, sb->len + len);
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len] = (char)c;
	strbuf_setlen(sb, sb->len + 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	strbuf_grow(sb, 64);
	va_copy(copy, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	strbuf_setlen(sb, sb->len + (size_t)n);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_shell_quoted(struct strbuf *sb, const char *s)
{
	if (*s &&
	    !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789%+,-./:=@_")]) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->len--;
	strbuf_setlen(sb, sb->len);
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	size_t old_len = sb->len;
	char chunk[65536];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return bg_error("cannot open '%s': %s", path, strerror(errno));
	while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			strbuf_setlen(sb, old_len);
			return bg_error("cannot read '%s': %s", path,
					strerror(errno));
		}
		strbuf_add(sb, chunk, (size_t)got);
	}
	close(fd);
	return BG_OK;
}
