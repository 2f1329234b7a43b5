/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/forge/body.h"

#include "harness/util/utf8.h"

#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#define DEFAULT_MARKER "<!-- benchgate -->"
#define MARKER_PREFIX  "<!-- benchgate"

size_t body_length(const char *s)
{
	size_t units = 0;
	uint32_t cp;

	while (*s) {
		s += utf8_decode(s, &cp);
		units += cp > 0xffff ? 2 : 1;
	}
	return units;
}

/* Bytes of the longest prefix of s that is at most max characters. */
static size_t prefix_bytes(const char *s, size_t max)
{
	const char *p = s;
	size_t units = 0;
	uint32_t cp;

	while (*p) {
		size_t len = utf8_decode(p, &cp);
		size_t more = cp > 0xffff ? 2 : 1;

		if (units + more > max)
			break;
		units += more;
		p += len;
	}
	return (size_t)(p - s);
}

/* Length of the first line of s when it is a benchgate marker ("<!--
 * benchgate -->" or "<!-- benchgate:NAME -->"), else 0. */
static size_t marker_line_len(const char *s)
{
	size_t len = strcspn(s, "\r\n");
	size_t prefix = strlen(MARKER_PREFIX);
	const char *close;

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len < prefix + 4 || strncmp(s, MARKER_PREFIX, prefix) ||
	    (s[prefix] != ' ' && s[prefix] != ':'))
		return 0;
	close = strstr(s + 4, "-->");
	return close && close == s + len - 3 ? len : 0;
}

/* Appends name as body_marker() encodes it: no "--" can come out, so the
 * name can never close the HTML comment it sits in. */
static void add_marker_name(struct strbuf *out, const char *name)
{
	unsigned char previous = 0;

	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;
		bool stays = c == '-' ? previous != '-'
				      : (c < 0x80 && isalnum(c)) ||
						strchr("._~:/+@=,", c);

		if (stays)
			strbuf_addch(out, c);
		else
			strbuf_addf(out, "%%%02X", c);
		previous = c;
	}
}

void body_marker(struct strbuf *out, const char *name, const char *body)
{
	size_t len;

	if (name) {
		strbuf_addstr(out, MARKER_PREFIX ":");
		add_marker_name(out, name);
		strbuf_addstr(out, " -->");
	} else if (body && (len = marker_line_len(body))) {
		strbuf_add(out, body, len);
	} else {
		strbuf_addstr(out, DEFAULT_MARKER);
	}
}

bool body_is_ours(const char *body, const char *marker)
{
	while (isspace((unsigned char)*body))
		body++;
	return !strncmp(body, marker, strlen(marker));
}

bool body_prepare(struct strbuf *out, const char *body, const char *marker,
		  size_t limit)
{
	struct strbuf note = STRBUF_INIT;
	size_t start = out->len, marker_len = strlen(marker);
	size_t len, budget, cut;
	size_t newline;

	if ((len = marker_line_len(body))) {
		body += len;
		body += strspn(body, "\r");
		body += *body == '\n';
	}
	strbuf_addf(out, "%s\n%s", marker, body);
	if (body_length(out->buf + start) <= limit)
		return false;

	strbuf_addf(&note,
		    "\n\n_\u2026 cut here: a comment holds at most %zu "
		    "characters; the full report is in the CI job's "
		    "artifacts._\n",
		    limit);
	assert(limit > body_length(note.buf) + marker_len);
	budget = limit - body_length(note.buf);
	cut = prefix_bytes(out->buf + start, budget);
	/* End on a whole line, so no table row or tag is left half open. */
	for (newline = cut; newline > marker_len; newline--)
		if (out->buf[start + newline - 1] == '\n')
			break;
	if (newline > marker_len)
		cut = newline - 1;
	strbuf_setlen(out, start + cut);
	strbuf_addstr(out, note.buf);
	strbuf_release(&note);
	return true;
}
