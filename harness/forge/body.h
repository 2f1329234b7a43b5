/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BODY_H
#define BENCHGATE_BODY_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The text of the one living comment: its marker and its length.
 *
 * A comment is found again by its marker, an HTML comment on the body's
 * first line that renders as nothing: "<!-- benchgate:SUITE -->" as the
 * Markdown reporter writes it, or "<!-- benchgate -->" for a body without
 * one. A comment is ours when its body starts with the marker (not merely
 * contains it: a reply that quotes our comment contains it too).
 *
 * Lengths are counted in UTF-16 code units, which is never fewer than
 * characters however the server counts.
 */

/*
 * Appends the marker: for a name, "<!-- benchgate:" + the name encoded as
 * the Markdown reporter encodes a suite name there (escape_html_comment():
 * ASCII letters, digits and . _ ~ : / + @ = , stay, a '-' stays unless it
 * follows another '-', every other byte becomes %XX), so --marker SUITE
 * finds the comment that SUITE's report.md started; else the first line of
 * body when it is a benchgate marker; else "<!-- benchgate -->".
 */
void body_marker(struct strbuf *out, const char *name, const char *body);

/* Whether a comment's body is ours: it starts with marker, after any
 * leading white space. */
bool body_is_ours(const char *body, const char *marker);

/*
 * Appends the body to send: marker, newline, then body without its own
 * first-line benchgate marker (so a body keeps exactly one marker, the
 * chosen one). When the result is longer than limit characters (see
 * GITHUB_BODY_MAX), it is cut at a line end and ends with a note saying
 * so; the result is then at most limit characters. Returns true when it
 * had to cut. body must be valid UTF-8 (escape_utf8()).
 */
bool body_prepare(struct strbuf *out, const char *body, const char *marker,
		  size_t limit);

/*
 * The one Markdown neutraliser for every text benchgate sends to a forge
 * (a comment, an issue): what it holds renders as text and reaches no one.
 */

/* Appends text as a fenced code block, for output (an alert, a log): the
 * fence is longer than any run of backticks in text (three at least), so
 * nothing in it ends it, and nothing in a code block renders (no mention,
 * image, link or HTML); control characters but newline and tab become
 * U+FFFD. text must be valid UTF-8. */
void body_fence(struct strbuf *out, const char *text);

/* Appends body (Markdown) with, outside its fenced code blocks, every
 * @mention given a word joiner (U+2060) after the '@' (it reads the same
 * and notifies nobody), every image "![" made "!\[" (a beacon is not
 * fetched) and every '<' that could open a tag other than the few
 * benchgate's reports use (br, details, summary, sub, sup, an HTML
 * comment) written "&lt;". body_prepare() applies it to every body. */
void body_neutralise(struct strbuf *out, const char *body);

/* Length of s in UTF-16 code units: what body_prepare() counts. */
size_t body_length(const char *s);

#endif
