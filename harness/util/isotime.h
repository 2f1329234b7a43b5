#ifndef BENCHGATE_ISOTIME_H
#define BENCHGATE_ISOTIME_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <time.h>

/*
 * ISO 8601 times, as results store them: benchgate writes UTC with whole
 * seconds ("2026-11-22T07:34:22Z") and reads the same, plus what git and
 * other tools write into a result by hand (a fraction of a second, a
 * "+01:00" or "+0100" offset).
 */

/* Appends the current UTC time ("2026-11-22T07:34:22Z") to out. */
void iso8601_now(struct strbuf *out);

#endif
