/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_FORMAT_H
#define BENCHGATE_FORMAT_H

#include "harness/util/strbuf.h"

/*
 * Numbers for people: three significant digits, with the unit, bytes in
 * KiB/MiB/GiB, large counts with k/M/G. Used by the terminal summaries and
 * the reporters so a number reads the same everywhere.
 */

/* "1.71 ms", "18.7 k samples/s", "402 KiB", "0.941"; "-" for NaN. */
void format_quantity(struct strbuf *out, double value, const char *unit);

/* A relative change as a signed percentage: "+6.5%", "-0.3%"; "-" for NaN. */
void format_change(struct strbuf *out, double change);

/* A p-value: "0.0004", "3.1e-07", "1"; "-" for NaN. */
void format_p_value(struct strbuf *out, double p);

/* A ratio, such as a speed-up or a size against the reference: "2.7×",
 * "0.259×"; "-" for NaN or an infinity. */
void format_ratio(struct strbuf *out, double ratio);

/* A difference of two fractions (accuracies) in percentage points:
 * "-1.05 pts", "+0.05 pts"; "-" for NaN. */
void format_points(struct strbuf *out, double delta);

/* How one quantity moved, each number as `format` writes it: "15.3× →
 * 3.95×"; `after` alone when `before` is NaN. */
void format_move(struct strbuf *out, void (*format)(struct strbuf *, double),
		 double before, double after);

#endif
