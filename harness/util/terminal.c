/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/terminal.h"

#include "harness/util/error.h"
#include "harness/util/utf8.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Appends the character of len bytes at p: as it is when printable, else
 * each byte as \xNN. */
static void add_char(struct strbuf *out, const char *p, size_t len,
		     bool printable)
{
	if (printable) {
		strbuf_add(out, p, len);
		return;
	}
	for (size_t i = 0; i < len; i++)
		strbuf_addf(out, "\\x%02x", (unsigned char)p[i]);
}

void terminal_escape(struct strbuf *out, const char *s)
{
	size_t len;

	for (const char *p = s ? s : ""; *p; p += len) {
		bool printable = utf8_printable(p, &len);

		add_char(out, p, len, printable);
	}
}

/* The length of the SGR sequence (ESC [ digits and ';' m) at p, else 0. */
static size_t sgr_len(const char *p)
{
	size_t len;

	if (p[0] != '\x1b' || p[1] != '[')
		return 0;
	len = 2 + strspn(p + 2, "0123456789;");
	return p[len] == 'm' ? len + 1 : 0;
}

/*
 * The length of the white space at p that the runner trims before looking
 * for "::", else 0: what .NET's Char.IsWhiteSpace() admits (the controls
 * among them are escaped by now, all but the tab), and the zero-width
 * characters that .NET Framework 3.5 still trimmed, to be safe.
 */
static size_t space_len(const char *p)
{
	uint32_t cp;
	size_t len = utf8_decode(p, &cp);

	switch (cp) {
	case ' ':
	case '\t':
	case 0xa0:
	case 0x1680:
	case 0x180e:
	case 0x200b:
	case 0x202f:
	case 0x205f:
	case 0x3000:
	case 0xfeff:
		return len;
	default:
		return cp >= 0x2000 && cp <= 0x200a ? len : 0;
	}
}

/* Puts a backslash before the "::" that would start the line beginning at
 * out->buf + start, once the runner trimmed its white space. */
static void guard_line_start(struct strbuf *out, size_t start, unsigned flags)
{
	size_t at = start, len;

	while (at < out->len) {
		if ((len = space_len(out->buf + at)) ||
		    ((flags & TERMINAL_COLOR) &&
		     (len = sgr_len(out->buf + at))))
			at += len;
		else
			break;
	}
	if (strncmp(out->buf + at, "::", 2))
		return;
	strbuf_addch(out, '\\');
	memmove(out->buf + at + 1, out->buf + at, out->len - 1 - at);
	out->buf[at] = '\\';
}

/* The length of "##", ASCII letters and "[" at p ("##[", "##vso["), the
 * legacy workflow commands that runners find anywhere in a line, less the
 * "["; else 0. */
static size_t legacy_command_len(const char *p)
{
	size_t len = 2;

	if (p[0] != '#' || p[1] != '#')
		return 0;
	while ((p[len] >= 'a' && p[len] <= 'z') ||
	       (p[len] >= 'A' && p[len] <= 'Z'))
		len++;
	return p[len] == '[' ? len : 0;
}

void terminal_guard(struct strbuf *out, const char *text, unsigned flags)
{
	const char *p = text;
	size_t len;

	while (*p) {
		size_t start = out->len;

		while (*p && *p != '\n') {
			if (*p == '\t' || (p[0] == '\r' && p[1] == '\n')) {
				/* layout: nothing follows a CR before a LF */
				len = 1;
				strbuf_addch(out, *p);
			} else if ((flags & TERMINAL_COLOR) &&
				   (len = sgr_len(p))) {
				strbuf_add(out, p, len);
			} else if ((len = legacy_command_len(p))) {
				strbuf_add(out, p, len);
				strbuf_addch(out, '\\');
			} else {
				bool printable = utf8_printable(p, &len);

				add_char(out, p, len, printable);
			}
			p += len;
		}
		guard_line_start(out, start, flags);
		if (*p == '\n')
			strbuf_addch(out, *p++);
	}
}

void terminal_write(FILE *to, const char *text, unsigned flags)
{
	struct strbuf out = STRBUF_INIT;

	terminal_guard(&out, text, flags);
	fwrite(out.buf, 1, out.len, to);
	strbuf_release(&out);
}

void terminal_print_line(FILE *to, const char *fmt, ...)
{
	struct strbuf raw = STRBUF_INIT, line = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	terminal_escape(&line, raw.buf);
	strbuf_addch(&line, '\n');
	terminal_write(to, line.buf, 0);
	strbuf_release(&raw);
	strbuf_release(&line);
}

/* "benchgate: <level>: <line>" for each line of text ("" is one empty
 * line). Every line starts with the prefix, so none starts a workflow
 * command. */
static void print_lines(const char *level, const char *text)
{
	struct strbuf out = STRBUF_INIT, line = STRBUF_INIT;

	do {
		size_t len = strcspn(text, "\n");

		strbuf_reset(&line);
		strbuf_add(&line, text, len);
		strbuf_addf(&out, "benchgate: %s: ", level);
		terminal_escape(&out, line.buf);
		strbuf_addch(&out, '\n');
		text += len + (text[len] == '\n');
	} while (*text);
	terminal_write(stderr, out.buf, 0);
	strbuf_release(&line);
	strbuf_release(&out);
}

void terminal_print_error(const char *text)
{
	print_lines("error", text);
}

/* declared in error.h, for every module that warns */
static bool warnings_off;

void terminal_quiet_warnings(bool quiet)
{
	warnings_off = quiet;
}

void bg_warn(const char *fmt, ...)
{
	struct strbuf text = STRBUF_INIT;
	va_list ap;

	if (warnings_off)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	print_lines("warning", text.buf);
	strbuf_release(&text);
}
