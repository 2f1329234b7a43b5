/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/utf8.h"

#include <assert.h>
#include <stdlib.h>

size_t utf8_decode(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t value, least;
	size_t len;

	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2, value = u[0] & 0x1f, least = 0x80;
	else if ((u[0] & 0xf0) == 0xe0)
		len = 3, value = u[0] & 0x0f, least = 0x800;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4, value = u[0] & 0x07, least = 0x10000;
	else
		goto invalid;
	/* The terminating NUL is not a continuation byte, so a truncated
	 * sequence stops here without reading past the string. */
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			goto invalid;
		value = value << 6 | (u[i] & 0x3f);
	}
	if (value < least || value > 0x10ffff ||
	    (value >= 0xd800 && value <= 0xdfff))
		goto invalid;
	*cp = value;
	return len;
invalid:
	*cp = UTF8_REPLACEMENT;
	return 1;
}

bool utf8_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

bool utf8_printable(const char *s, size_t *len)
{
	uint32_t cp;

	*len = utf8_decode(s, &cp);
	/* a real U+FFFD takes three bytes; one byte read as it is no UTF-8 */
	return !utf8_is_control(cp) && !(cp == UTF8_REPLACEMENT && *len == 1);
}

void utf8_encode(struct strbuf *out, uint32_t cp)
{
	char bytes[4];
	size_t len;

	assert(cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff));
	if (cp < 0x80) {
		bytes[0] = (char)cp;
		len = 1;
	} else if (cp < 0x800) {
		bytes[0] = (char)(0xc0 | cp >> 6);
		bytes[1] = (char)(0x80 | (cp & 0x3f));
		len = 2;
	} else if (cp < 0x10000) {
		bytes[0] = (char)(0xe0 | cp >> 12);
		bytes[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		bytes[2] = (char)(0x80 | (cp & 0x3f));
		len = 3;
	} else {
		bytes[0] = (char)(0xf0 | cp >> 18);
		bytes[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		bytes[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		bytes[3] = (char)(0x80 | (cp & 0x3f));
		len = 4;
	}
	strbuf_add(out, bytes, len);
}

size_t utf8_prefix_len(const char *s, size_t max)
{
	size_t at = 0, len;
	uint32_t cp;

	while (s[at] && at + (len = utf8_decode(s + at, &cp)) <= max)
		at += len;
	return at;
}

void escape_utf8(struct strbuf *out, const char *s)
{
	size_t len;
	uint32_t cp;

	for (const char *p = s ? s : ""; *p; p += len) {
		len = utf8_decode(p, &cp);
		utf8_encode(out, cp);
	}
}

char *utf8_sanitized(const char *s)
{
	struct strbuf out = STRBUF_INIT;

	if (!s)
		return NULL;
	escape_utf8(&out, s);
	return strbuf_detach(&out, NULL);
}
