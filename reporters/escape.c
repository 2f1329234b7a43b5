/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/escape.h"
#include "harness/util/hash.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static bool is_ascii_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static bool is_hex_digit(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* Whether c (not NUL) is one of the ASCII characters in set. */
static bool is_one_of(uint32_t c, const char *set)
{
	return c && c < 0x80 && strchr(set, (int)c);
}

/* Markup */

static void escape_markup(struct strbuf *out, const char *s, bool attribute)
{
	size_t len;
	uint32_t cp;

	for (const char *p = s ? s : ""; *p; p += len) {
		len = utf8_decode(p, &cp);
		switch (cp) {
		case '&':
			strbuf_addstr(out, "&amp;");
			break;
		case '<':
			strbuf_addstr(out, "&lt;");
			break;
		case '>':
			strbuf_addstr(out, "&gt;");
			break;
		case '"':
			strbuf_addstr(out, "&quot;");
			break;
		case '\'':
			strbuf_addstr(out, "&#39;");
			break;
		case '\r':
			strbuf_addstr(out, "&#13;");
			break;
		case '\t':
		case '\n':
			if (attribute)
				strbuf_addf(out, "&#%u;", (unsigned)cp);
			else
				strbuf_addch(out, (int)cp);
			break;
		default:
			if (utf8_is_control(cp) || cp == 0xfffe || cp == 0xffff)
				cp = UTF8_REPLACEMENT;
			utf8_encode(out, cp);
		}
	}
}

void escape_xml_text(struct strbuf *out, const char *s)
{
	escape_markup(out, s, false);
}

void escape_xml_attr(struct strbuf *out, const char *s)
{
	escape_markup(out, s, true);
}

void escape_html(struct strbuf *out, const char *s)
{
	escape_markup(out, s, false);
}

/* Percent-encodes every byte of s that keep() refuses; keep() sees the
 * byte and the previous one. Works on bytes, so invalid UTF-8 is encoded
 * like anything else. */
static void percent_encode(struct strbuf *out, const char *s,
			   bool (*keep)(const char *at, int previous))
{
	int previous = 0;

	for (const char *p = s ? s : ""; *p; p++) {
		if (keep(p, previous))
			strbuf_addch(out, *p);
		else
			strbuf_addf(out, "%%%02X", (unsigned char)*p);
		previous = (unsigned char)*p;
	}
}

static bool comment_keeps(const char *at, int previous)
{
	int c = (unsigned char)*at;

	return is_ascii_alnum(c) || is_one_of((uint32_t)c, "._~:/+@=,") ||
	       (c == '-' && previous != '-');
}

void escape_html_comment(struct strbuf *out, const char *s)
{
	percent_encode(out, s, comment_keeps);
}

static bool url_keeps(const char *at, int previous)
{
	int c = (unsigned char)*at;

	(void)previous;
	if (c == '%')
		return is_hex_digit((unsigned char)at[1]) &&
		       is_hex_digit((unsigned char)at[2]);
	return is_ascii_alnum(c) ||
	       is_one_of((uint32_t)c, "-._~:/?#[]@!$*+,;=");
}

void escape_url(struct strbuf *out, const char *s)
{
	percent_encode(out, s, url_keeps);
}

/* Markdown */

void escape_markdown(struct strbuf *out, const char *s)
{
	const char *p = s ? s : "";
	size_t len;
	uint32_t cp;

	if (is_one_of((unsigned char)*p, "#+-="))
		strbuf_addch(out, '\\');
	for (; *p; p += len) {
		len = utf8_decode(p, &cp);
		switch (cp) {
		case '&':
			strbuf_addstr(out, "&amp;");
			break;
		case '<':
			strbuf_addstr(out, "&lt;");
			break;
		case '>':
			strbuf_addstr(out, "&gt;");
			break;
		case '\r':
			if (p[1] == '\n')
				len++;
			/* fallthrough */
		case '\n':
			/* A table row is one line: a newline would end it. */
			strbuf_addstr(out, "<br>");
			break;
		case '\t':
			strbuf_addch(out, ' ');
			break;
		default:
			if (is_one_of(cp, "\\`*_[]~!$|"))
				strbuf_addch(out, '\\');
			else if (utf8_is_control(cp))
				cp = UTF8_REPLACEMENT;
			utf8_encode(out, cp);
		}
	}
}

/* Data files and scripts */

void escape_csv(struct strbuf *out, const char *s)
{
	struct strbuf field = STRBUF_INIT;
	const char *p = s ? s : "";
	bool quote;
	size_t len;
	uint32_t cp;

	if (is_one_of((unsigned char)*p, "=+-@\t\r"))
		strbuf_addch(&field, '\'');
	for (; *p; p += len) {
		len = utf8_decode(p, &cp);
		if (utf8_is_control(cp) && !is_one_of(cp, "\t\n\r"))
			cp = UTF8_REPLACEMENT;
		utf8_encode(&field, cp);
	}
	quote = field.len &&
		(strpbrk(field.buf, ",\"\r\n") || field.buf[0] == ' ' ||
		 field.buf[field.len - 1] == ' ');
	if (!quote) {
		strbuf_add(out, field.buf, field.len);
	} else {
		strbuf_addch(out, '"');
		for (size_t i = 0; i < field.len; i++) {
			if (field.buf[i] == '"')
				strbuf_addch(out, '"');
			strbuf_addch(out, field.buf[i]);
		}
		strbuf_addch(out, '"');
	}
	strbuf_release(&field);
}

void escape_csv_field(struct strbuf *out, const char *text)
{
	strbuf_addch(out, ',');
	escape_csv(out, text);
}

void escape_csv_number(struct strbuf *out, double value)
{
	strbuf_addch(out, ',');
	if (isfinite(value))
		strbuf_addf(out, "%.12g", value);
}

void escape_gnuplot(struct strbuf *out, const char *s)
{
	size_t len;
	uint32_t cp;

	strbuf_addch(out, '\'');
	for (const char *p = s ? s : ""; *p; p += len) {
		len = utf8_decode(p, &cp);
		if (cp == '\'')
			strbuf_addstr(out, "''");
		else if (utf8_is_control(cp))
			strbuf_addch(out, ' ');
		else
			utf8_encode(out, cp);
	}
	strbuf_addch(out, '\'');
}

void escape_filename(struct strbuf *out, const char *s)
{
	struct strbuf slug = STRBUF_INIT;
	const char *p = s ? s : "";
	bool changed = !*p;
	size_t len;
	uint32_t cp;

	for (; *p; p += len) {
		len = utf8_decode(p, &cp);
		if ((is_ascii_alnum((int)cp) || is_one_of(cp, "._-")) &&
		    (slug.len || !is_one_of(cp, ".-"))) {
			strbuf_addch(&slug, (int)cp);
		} else {
			strbuf_addch(&slug, '_');
			changed = true;
		}
	}
	if (!slug.len)
		strbuf_addch(&slug, '_');
	if (changed || slug.len > ESCAPE_FILENAME_MAX) {
		/* room for "-" and 8 hex digits */
		if (slug.len > ESCAPE_FILENAME_MAX - 9)
			strbuf_setlen(&slug, ESCAPE_FILENAME_MAX - 9);
		strbuf_addf(&slug, "-%08x", (unsigned)hash_fnv1a32(s ? s : ""));
	}
	strbuf_add(out, slug.buf, slug.len);
	strbuf_release(&slug);
}
