/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_UTF8_H
#define BENCHGATE_UTF8_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * UTF-8, for every writer that must emit valid text whatever bytes a user
 * put in a name: the reporters' escapers and the JSON writers (a JSON
 * document with invalid UTF-8 is rejected by strict parsers).
 */

#define UTF8_REPLACEMENT 0xFFFD

/*
 * Decodes the character at s (which must not point at the terminating NUL)
 * into *cp and returns how many bytes it took, 1 to 4. Anything that is not
 * well-formed UTF-8 (a stray continuation byte, a truncated sequence, an
 * overlong form, a surrogate, a value above U+10FFFF) gives
 * UTF8_REPLACEMENT for its first byte and returns 1, so decoding always
 * advances and resynchronises on the next byte.
 */
size_t utf8_decode(const char *s, uint32_t *cp);

/*
 * Whether cp is a character that a terminal, a log viewer or a renderer
 * acts on rather than shows: C0 controls, DEL and C1 controls; the line
 * and paragraph separators U+2028 and U+2029; and the bidirectional
 * embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, with
 * which one text could display as another ("Trojan Source",
 * CVE-2021-42574). The one set that every escaper and checker refuses:
 * terminal.h, name.h and the reporters' escape.h.
 */
bool utf8_is_control(uint32_t cp);

/* Whether the character at s (not the terminating NUL) is well-formed
 * UTF-8 and not utf8_is_control(); *len is set to its length in bytes
 * either way (1 for a byte that is no UTF-8), as utf8_decode() reads it. */
bool utf8_printable(const char *s, size_t *len);

/* Appends cp (at most U+10FFFF, not a surrogate: asserted) as UTF-8. */
void utf8_encode(struct strbuf *out, uint32_t cp);

/* The length of the longest prefix of s that has at most max bytes and
 * does not end inside a character, for truncating long notes. */
size_t utf8_prefix_len(const char *s, size_t max);

/* Appends s with invalid UTF-8 replaced by U+FFFD, otherwise unchanged. */
void escape_utf8(struct strbuf *out, const char *s);

/* A copy of s (NULL: NULL) with invalid UTF-8 replaced; caller frees. */
char *utf8_sanitized(const char *s);

#endif
