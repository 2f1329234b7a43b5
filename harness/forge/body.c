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

/* The longest run of c in text. */
static size_t longest_run(const char *text, char c)
{
	size_t longest = 0, run = 0;

	for (const char *p = text; *p; p++) {
		run = *p == c ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

void body_fence(struct strbuf *out, const char *text)
{
	size_t fence = longest_run(text, '`') + 1;
	const char *p = text;
	uint32_t cp;

	if (fence < 3)
		fence = 3;
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(out, '`');
	strbuf_addstr(out, "text\n");
	for (size_t len; *p; p += len) {
		len = utf8_decode(p, &cp);
		if (cp == '\r' && p[1] == '\n')
			continue;
		if (cp != '\n' && cp != '\t' && utf8_is_control(cp))
			cp = UTF8_REPLACEMENT;
		utf8_encode(out, cp);
	}
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
	for (size_t i = 0; i < fence; i++)
		strbuf_addch(out, '`');
	strbuf_addch(out, '\n');
}

/* The tags benchgate's own Markdown uses (the Markdown reporter); any
 * other '<' that could open a tag is written as an entity. */
static bool allowed_tag(const char *p)
{
	static const char *const tags[] = { "br>", "br/>", "br />",
					    "details>", "/details>",
					    "summary>", "/summary>",
					    "sub>", "/sub>", "sup>", "/sup>",
					    "!-- ", NULL };

	for (size_t i = 0; tags[i]; i++)
		if (!strncmp(p + 1, tags[i], strlen(tags[i])))
			return true;
	return false;
}

/* The length of the fence that opens a fenced code block at line (up to
 * 3 spaces, then 3 or more backticks or tildes), 0 when none. */
static size_t fence_at(const char *line, char *kind)
{
	size_t indent = strspn(line, " "), n;

	if (indent > 3 || (line[indent] != '`' && line[indent] != '~'))
		return 0;
	*kind = line[indent];
	n = strspn(line + indent, *kind == '`' ? "`" : "~");
	return n >= 3 ? n : 0;
}

void body_neutralise(struct strbuf *out, const char *body)
{
	const char *line = body;
	size_t open = 0; /* the fence of the code block we are in */
	char kind = 0;

	while (*line) {
		size_t len = strcspn(line, "\n");
		char this_kind = 0;
		size_t fence = fence_at(line, &this_kind);

		if (open) {
			/* a code block renders nothing: copied as it is */
			if (fence >= open && this_kind == kind)
				open = 0;
			strbuf_add(out, line, len);
		} else if (fence) {
			open = fence;
			kind = this_kind;
			strbuf_add(out, line, len);
		} else {
			for (size_t i = 0; i < len; i++) {
				const char *p = line + i;

				if (*p == '@' && (isalnum((unsigned char)p[1]) ||
						  p[1] == '_' || p[1] == '-')) {
					/* reads the same, notifies nobody */
					strbuf_addstr(out, "@\u2060");
				} else if (*p == '!' && p[1] == '[') {
					/* no image: nothing fetched */
					strbuf_addstr(out, "!\\");
				} else if (*p == '<' && !allowed_tag(p)) {
					strbuf_addstr(out, "&lt;");
				} else {
					strbuf_addch(out, *p);
				}
			}
		}
		line += len;
		if (*line == '\n')
			strbuf_addch(out, *line++);
	}
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
	strbuf_addf(out, "%s\n", marker);
	body_neutralise(out, body);
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
