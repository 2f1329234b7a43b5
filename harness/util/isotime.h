/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_ISOTIME_H
#define BENCHGATE_ISOTIME_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <time.h>

/*
 * ISO 8601 times as results carry them. benchgate writes UTC with whole
 * seconds ("2026-11-22T07:34:22Z"); git and hand-edited results may add a
 * fraction of a second or name an offset instead of 'Z', and all of those
 * must sort and name result files the same way.
 */

/* Appends the current UTC time ("2026-11-22T07:34:22Z") to out. */
void iso8601_now(struct strbuf *out);

/*
 * Parses "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM|+HHMM|-HHMM)",
 * nothing before or after, into seconds since the epoch in *seconds (the
 * fraction kept, the offset applied: floor() gives the whole second). False,
 * *seconds untouched, for NULL or anything else, a field out of range
 * included ("2026-13-01..."): callers have their own fallback (the store
 * names a file by the current time, JUnit leaves the timestamp out), so no
 * error is recorded.
 */
bool iso8601_parse(const char *text, double *seconds);

#endif
