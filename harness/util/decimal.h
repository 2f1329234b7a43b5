/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_DECIMAL_H
#define BENCHGATE_DECIMAL_H

#include <stdbool.h>

/*
 * printf's "%.*g" and "%.*f" of a double, the same bytes as glibc writes
 * (rounded to nearest, ties to even, from the exact binary value), by
 * integer arithmetic instead of printf's multi-precision one: compare's
 * and history's documents print hundreds of thousands of numbers. Each
 * returns the text's length, or -1 for what it does not cover (NaN, the
 * infinities, subnormals, magnitudes far from those benchmarks report, a
 * compiler without 128-bit integers): the caller prints those with
 * snprintf(). `text` holds at least DECIMAL_TEXT_SIZE bytes and ends with
 * a NUL.
 */
#define DECIMAL_TEXT_SIZE 40

/* How far the number "%.*g" wrote lies from the double it was written
 * from, in units in the last place of that double (its ulp). */
enum decimal_distance {
	/* under half an ulp: strtod() reads back d */
	DECIMAL_EXACT,
	/* strtod() reads back d or a neighbour */
	DECIMAL_WITHIN_ULP,
	/* strtod() reads back a double two ulps away or more */
	DECIMAL_FAR,
	/* on a boundary this cannot tell: read it back */
	DECIMAL_UNKNOWN,
};

/* "%.{precision}g" of d (precision 1 to 17); *distance (unless NULL) as
 * above. */
int decimal_format_g(char *text, double d, int precision,
		     enum decimal_distance *distance);

/* "%.{decimals}f" of d (decimals 0 to 17), "%+.{decimals}f" with `plus`. */
int decimal_format_f(char *text, double d, int decimals, bool plus);

#endif
