/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_NAME_H
#define BENCHGATE_NAME_H

#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * The rules for what users name, in one place for every reader: the suite
 * loader holds a suite to them, and the result and comparison readers hold
 * documents from elsewhere (`compare`, `merge`, `report`, the git store)
 * to the same ones, so nothing reaches the reports, the store or a
 * terminal that a suite could not have produced.
 *
 * Names become parts of case ids, file names, report anchors and lines of
 * benchgate's output, so they keep to a safe alphabet rather than being
 * escaped everywhere downstream. Units (and the suite names the store
 * keeps, which it makes safe file names of itself) are shown as they are,
 * so they are held to printable text: a newline there could start a line
 * of a CI log with a workflow command (`::add-mask::`, `::set-env`) that
 * the runner executes, an ESC a terminal sequence, a bidirectional
 * override make one name display as another.
 */

/* What name_valid() admits, for messages. */
#define NAME_ALPHABET "letters, digits, '-', '_', '.' and '+'"

/* Whether name is a suite, benchmark, variant, device or metric name: one
 * or more ASCII letters, digits, '-', '_', '.' and '+'. */
bool name_valid(const char *name);

/* What name_printable() admits, for messages. */
#define NAME_PRINTABLE                                                       \
	"printable text (no control characters or bidirectional overrides, " \
	"not starting with '::')"

/*
 * Whether text is printable: what terminal_escape() (terminal.h) leaves as
 * it is, so well-formed UTF-8 without a control character (C0, DEL, C1), a
 * line or paragraph separator or a bidirectional override or isolate; and
 * not starting with "::". "" is printable.
 */
bool name_printable(const char *text);

/* terminal_escape() under another name, for the callers that quote names.
 * TODO(one escaper): call terminal_escape() there and drop this. */
void name_quote(struct strbuf *out, const char *text);

#endif
