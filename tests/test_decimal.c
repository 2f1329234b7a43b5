/* SPDX-License-Identifier: Apache-2.0 */
/*
 * decimal.h against glibc's printf, which it stands in for: every
 * precision of "%.*g" and every decimals count of "%.*f" on numbers of
 * every shape (exact ties, carries to the next power of ten, neighbours
 * of powers of two, random statistics, random bit patterns), and the
 * distance it reports against strtod()'s reading of the text.
 */
#include "harness/util/decimal.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

TestSuite(decimal);

static uint64_t state = 88172645463325252ULL;

static uint64_t prng(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* how many numbers decimal.h printed itself, rather than declining */
static size_t covered;

static void check_g(double d, int precision)
{
	char mine[DECIMAL_TEXT_SIZE], theirs[64];
	enum decimal_distance distance;
	double back, larger;
	int len = decimal_format_g(mine, d, precision, &distance);

	if (len < 0)
		return;
	covered++;
	snprintf(theirs, sizeof(theirs), "%.*g", precision, d);
	cr_assert_str_eq(mine, theirs, "%%.%dg of %a", precision, d);
	cr_assert_eq((size_t)len, strlen(theirs));
	back = strtod(theirs, NULL);
	larger = fmax(fabs(back), fabs(d));
	switch (distance) {
	case DECIMAL_EXACT:
		cr_assert_eq(back, d, "%s of %a is not exact", theirs, d);
		break;
	case DECIMAL_WITHIN_ULP:
		cr_assert(fabs(back - d) <= larger * DBL_EPSILON,
			  "%s of %a is not within an ulp", theirs, d);
		break;
	case DECIMAL_FAR:
		cr_assert(fabs(back - d) > larger * DBL_EPSILON,
			  "%s of %a is not far", theirs, d);
		break;
	case DECIMAL_UNKNOWN:
		break;
	}
}

static void check_f(double d, int decimals, bool plus)
{
	char mine[DECIMAL_TEXT_SIZE], theirs[400];
	int len = decimal_format_f(mine, d, decimals, plus);

	if (len < 0)
		return;
	covered++;
	if (plus)
		snprintf(theirs, sizeof(theirs), "%+.*f", decimals, d);
	else
		snprintf(theirs, sizeof(theirs), "%.*f", decimals, d);
	cr_assert_str_eq(mine, theirs, "%%.%df of %a", decimals, d);
	cr_assert_eq((size_t)len, strlen(theirs));
}

static void check(double d)
{
	for (int side = 0; side < 2; side++, d = -d) {
		for (int precision = 1; precision <= 17; precision++)
			check_g(d, precision);
		for (int decimals = 0; decimals <= 17; decimals++) {
			check_f(d, decimals, false);
			check_f(d, decimals, true);
		}
	}
}

Test(decimal, special_numbers_print_as_printf_prints_them)
{
	static const double numbers[] = {
		0.0, 0.5, 1.5, 2.5, 0.125, 0.375, 0.05, 0.15, 0.25, 0.35,
		9.9999999999999995, 9.5, 99.5, 999.5, 99999.5, 9.995, 0.9995,
		1e15, 1e16, 1e17, 1e18, 1e19, 1e22, 1e-5, 1e-4, 9.99995e-5,
		0.1 + 0.2, 1.0 / 3, 2.0 / 3, 123456789012345678.0,
		4503599627370496.0, 9007199254740991.0, 9007199254740992.0,
		2147483647.0, 2147483648.0, 1e-13, 1e-14, 1.7976931348623157e308,
		DBL_MIN, 4.9e-324, 1.0, 2.0, 1024.0, 0.0009765625,
	};

	for (size_t i = 0; i < sizeof(numbers) / sizeof(*numbers); i++) {
		check(numbers[i]);
		check(nextafter(numbers[i], 0));
		check(nextafter(numbers[i], INFINITY));
	}
	/* powers of two and ten and their neighbours, where the ulp
	 * changes and the decimal exponent turns */
	for (int e = -60; e <= 70; e++) {
		check(ldexp(1, e));
		check(nextafter(ldexp(1, e), 0));
		check(nextafter(ldexp(1, e), INFINITY));
		check(ldexp(1, e) * 3);
	}
	for (int e = -20; e <= 25; e++) {
		double p = pow(10, e);

		check(p);
		check(nextafter(p, 0));
		check(nextafter(p, INFINITY));
	}
	cr_assert_gt(covered, 1000);
	/* declined, for snprintf(): what decimal.h does not cover */
	{
		char text[DECIMAL_TEXT_SIZE];

		cr_assert_eq(decimal_format_g(text, NAN, 15, NULL), -1);
		cr_assert_eq(decimal_format_g(text, INFINITY, 15, NULL), -1);
		cr_assert_eq(decimal_format_f(text, -INFINITY, 2, false), -1);
		cr_assert_eq(decimal_format_g(text, 1.0, 18, NULL), -1);
	}
}

Test(decimal, random_numbers_print_as_printf_prints_them)
{
	covered = 0;
	for (int i = 0; i < 6000; i++) {
		uint64_t r = prng();
		double d;

		switch (i % 5) {
		case 0: /* any double */
			memcpy(&d, &r, sizeof(d));
			break;
		case 1: /* a statistic: 53 random bits, any magnitude */
			d = ldexp((double)(r >> 11), -53) *
			    pow(10, (double)(prng() % 40) - 20);
			break;
		case 2: /* a short decimal */
			d = (double)(r % 100000) / pow(10, (double)(prng() % 8));
			break;
		case 3: /* halves: ties when exact */
			d = ((double)(r % 2000000) + 0.5) /
			    pow(10, (double)(prng() % 6));
			break;
		default: /* whole numbers and dyadic fractions */
			d = (double)(int64_t)(r >> (prng() % 64)) *
			    ldexp(1, (int)(prng() % 120) - 60);
			break;
		}
		if (isfinite(d))
			check(d);
	}
	/* most of them printed without printf */
	cr_assert_gt(covered, 6000 * 2 * 35 / 2, "covered %zu", covered);
}
