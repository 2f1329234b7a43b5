/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_ESCAPE_H
#define BENCHGATE_ESCAPE_H

#include "harness/util/strbuf.h"
#include "harness/util/utf8.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Text for each report format. Every string that reaches a report comes from
 * users (suite, benchmark, variant, device and metric names, units, notes
 * with log tails, commit subjects), through result files and importers that
 * do not restrict what they carry, so a reporter passes each one through the
 * escaper of the format and context it writes, and never relies on the
 * suite loader's name rules.
 *
 * Common to every escaper below:
 * - it appends to out and never fails; s == NULL reads as "";
 * - input is decoded by utf8_decode(), so invalid UTF-8 comes out as
 *   U+FFFD (or percent-encoded, for the URL-like contexts) and every output
 *   is valid UTF-8;
 * - control characters are replaced as each escaper says; they are
 *   utf8_is_control()'s, the same as a terminal's (harness/util/terminal.h):
 *   C0, DEL, C1, the line and paragraph separators, and the bidirectional
 *   overrides and isolates (U+202A-U+202E, U+2066-U+2069), which could
 *   make one name display as another.
 */

/* UTF-8 decoding and repair are harness/utf8.h's, shared with the JSON
 * writers of the harness. */

/* Markup */

/*
 * XML 1.0 character data: & < > " ' become entities (so "]]>" never
 * appears raw), carriage returns become &#13; so they survive line-end
 * normalisation, and the characters XML 1.0 forbids (C0 controls other
 * than tab, newline and carriage return, U+FFFE, U+FFFF) as well as the
 * other control characters (DEL, C1) become U+FFFD. Safe in element
 * content and in attribute values in either kind of quotes.
 */
void escape_xml_text(struct strbuf *out, const char *s);

/* The same for attribute values, where tab and newline are also written as
 * &#9; and &#10;: a parser would otherwise normalise them to spaces, and a
 * multi-line message would come out on one line. */
void escape_xml_attr(struct strbuf *out, const char *s);

/* HTML text and attribute values in double or single quotes: the rules of
 * escape_xml_text(), a separate name so each call site says what it
 * writes. Not for inside <script>, <style> or unquoted attributes. */
void escape_html(struct strbuf *out, const char *s);

/*
 * The body of an HTML comment, <!-- ... -->, such as the marker by which
 * the PR-comment upserter finds its comment: ASCII letters, digits and
 * . _ ~ : / + @ = , stay; a '-' stays unless it follows another '-'; every
 * other byte is percent-encoded (%2D, %3E, ...). The result cannot end the
 * comment early, and the same name always gives the same marker.
 */
void escape_html_comment(struct strbuf *out, const char *s);

/*
 * A URL for a link, inert in a Markdown link destination and (after
 * escape_html()) in an HTML attribute: letters, digits and - . _ ~ : / ? #
 * [ ] @ ! $ * + , ; = stay, a '%' stays when two hex digits follow it, and
 * every other byte (space, quotes, parentheses, < > & \ ` |, controls,
 * non-ASCII) is percent-encoded. It does not check the scheme: callers
 * link only http(s) URLs.
 */
void escape_url(struct strbuf *out, const char *s);

/* Markdown */

/*
 * GitHub-flavoured Markdown inline text, safe inside a table cell and in a
 * paragraph or heading: the output renders as the literal text and nothing
 * else (no HTML, links, emphasis, code, math, or a broken table).
 * - < > & become entities, so no inline HTML or autolink <...> forms;
 * - | becomes \| (GFM reads it even inside code spans as a cell border);
 * - \ ` * _ [ ] ~ ! $ become backslash escapes ($ opens math on GitHub);
 * - a leading # + - = gets a backslash, so it starts no heading or list
 *   when the text starts a line;
 * - newline (and CRLF, and a lone CR) becomes <br>, tab a space, other
 *   control characters U+FFFD.
 * Bare URLs and @mentions in names are left to GitHub's own rendering.
 */
void escape_markdown(struct strbuf *out, const char *s);

/* Data files and scripts */

/*
 * One RFC 4180 field: quoted ("" for a quote) when it holds a comma, quote,
 * CR, LF or a leading or trailing space; otherwise as is. A field that
 * starts with = + - @ tab or CR gets a leading ' (inside the quotes when
 * quoted), so a spreadsheet shows it as text instead of evaluating it as a
 * formula (CSV injection, as OWASP describes it). The cost is that a name
 * such as "-O2" reads "'-O2"; numbers that the reporter writes itself do not
 * go through this function and keep their sign. Other control characters
 * become U+FFFD.
 */
void escape_csv(struct strbuf *out, const char *s);

/* A field after the first of a CSV row: a comma, then escape_csv(text)
 * or the number as "%.12g" (nothing when it is not finite). */
void escape_csv_field(struct strbuf *out, const char *text);
void escape_csv_number(struct strbuf *out, double value);

/*
 * A complete single-quoted gnuplot string, quotes included, for titles,
 * labels and keys: ' is doubled (the only escape a single-quoted string
 * knows; gnuplot expands neither backquotes nor @macros inside one), and
 * newline, tab and other controls become spaces, because a newline would
 * end the command and start another. The text is meant literally: use it
 * with `noenhanced` (set termoption noenhanced, or per label), else
 * gnuplot's enhanced mode reads ^ _ @ & { } ~ as markup.
 */
void escape_gnuplot(struct strbuf *out, const char *s);

/* The longest slug escape_filename() writes, in bytes. */
#define ESCAPE_FILENAME_MAX 80

/*
 * A file-name-safe slug: A-Z a-z 0-9 . _ - stay, every other character
 * (one per UTF-8 character, not per byte) becomes '_', and a leading '.' or
 * '-' becomes '_' (no hidden files, nothing read as an option). When
 * anything had to change (the empty string included) or the slug would be
 * longer than ESCAPE_FILENAME_MAX, a '-' and 8 hex digits of a hash of the
 * original are appended (the slug cut to fit), so names that differ only
 * in unsafe characters, or after the cut, still get different files. Names
 * that are already safe and short come out unchanged.
 */
void escape_filename(struct strbuf *out, const char *s);

#endif
