/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/decimal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __SIZEOF_INT128__

typedef unsigned __int128 u128;

static const uint64_t pow10s[] = {
	1ULL,
	10ULL,
	100ULL,
	1000ULL,
	10000ULL,
	100000ULL,
	1000000ULL,
	10000000ULL,
	100000000ULL,
	1000000000ULL,
	10000000000ULL,
	100000000000ULL,
	1000000000000ULL,
	10000000000000ULL,
	100000000000000ULL,
	1000000000000000ULL,
	10000000000000000ULL,
	100000000000000000ULL,
	1000000000000000000ULL,
	10000000000000000000ULL,
};

/* 5^k for k up to 27, the largest below 2^63 */
static const uint64_t pow5s[] = {
	1ULL,
	5ULL,
	25ULL,
	125ULL,
	625ULL,
	3125ULL,
	15625ULL,
	78125ULL,
	390625ULL,
	1953125ULL,
	9765625ULL,
	48828125ULL,
	244140625ULL,
	1220703125ULL,
	6103515625ULL,
	30517578125ULL,
	152587890625ULL,
	762939453125ULL,
	3814697265625ULL,
	19073486328125ULL,
	95367431640625ULL,
	476837158203125ULL,
	2384185791015625ULL,
	11920928955078125ULL,
	59604644775390625ULL,
	298023223876953125ULL,
	1490116119384765625ULL,
	7450580596923828125ULL,
};

/* |d| x 10^k rounded to a whole number, and how far that lies from the
 * exact product: diff / unit of d's ulps. */
struct scaled {
	uint64_t q;
	u128 diff, unit;
	/* d's neighbours are not both one ulp away (a power of two, the
	 * largest mantissas), or diff is not known: distance unknown */
	bool edge;
};

/* d = M x 2^E exactly (M of 53 bits), so d x 10^k is M x 5^k x 2^(E + k)
 * for k >= 0 and M x 2^E / 10^-k below: integers of at most 128 bits for
 * the exponents allowed here, and the rounding (to nearest, ties to even,
 * as glibc's printf rounds) is exact. False outside them, or when the
 * result does not fit in 63 bits. */
static bool scale(double d, int k, struct scaled *out)
{
	uint64_t bits, mantissa;
	int biased, exponent;
	u128 ip, rem;
	bool up;

	memcpy(&bits, &d, sizeof(bits));
	biased = (int)((bits >> 52) & 0x7ff);
	if (biased == 0 || biased == 0x7ff)
		return false; /* zero, subnormal, infinite, NaN */
	mantissa = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	exponent = biased - 1075;
	out->edge = mantissa < (1ULL << 52) + 4 || mantissa > (1ULL << 53) - 4;
	if (k >= 0) {
		u128 product;
		int shift;

		if (k >= (int)(sizeof(pow5s) / sizeof(pow5s[0])))
			return false;
		product = (u128)mantissa * pow5s[k]; /* below 2^116 */
		shift = exponent + k;
		if (shift >= 0) {
			if (shift >= 63 || (product >> (63 - shift)) != 0)
				return false;
			out->q = (uint64_t)(product << shift);
			out->diff = 0;
			out->unit = 1;
			return true;
		}
		shift = -shift;
		if (shift > 116) {
			/* below 1/16: rounds to 0, distance not worked out */
			out->q = 0;
			out->diff = 0;
			out->unit = 1;
			out->edge = true;
			return true;
		}
		ip = product >> shift;
		rem = product & (((u128)1 << shift) - 1);
		up = rem > ((u128)1 << (shift - 1)) ||
		     (rem == ((u128)1 << (shift - 1)) && (ip & 1));
		out->diff = up ? ((u128)1 << shift) - rem : rem;
		out->unit = pow5s[k];
	} else {
		u128 num, den;

		if (-k >= (int)(sizeof(pow10s) / sizeof(pow10s[0])))
			return false;
		if (exponent >= 0) {
			if (exponent > 74)
				return false;
			num = (u128)mantissa << exponent;
			den = pow10s[-k];
			out->unit = (u128)1 << exponent;
		} else {
			if (exponent < -63)
				return false;
			num = mantissa;
			den = (u128)pow10s[-k] << -exponent;
			out->unit = 1;
		}
		ip = num / den;
		rem = num % den;
		up = 2 * rem > den || (2 * rem == den && (ip & 1));
		out->diff = up ? den - rem : rem;
	}
	if (ip >> 63)
		return false;
	out->q = (uint64_t)ip + up;
	return true;
}

static char *put_digits(char *p, uint64_t q, int width)
{
	for (int i = width - 1; i >= 0; i--, q /= 10)
		p[i] = (char)('0' + q % 10);
	return p + width;
}

int decimal_format_g(char *text, double d, int precision,
		     enum decimal_distance *distance)
{
	char digits[20], *p = text;
	struct scaled s;
	int exponent, used;

	if (precision == 0)
		precision = 1;
	if (precision < 1 || precision > 17 || !isfinite(d))
		return -1;
	if (signbit(d))
		*p++ = '-';
	if (d == 0) {
		*p++ = '0';
		*p = 0;
		if (distance)
			*distance = DECIMAL_EXACT;
		return (int)(p - text);
	}
	d = fabs(d);
	/* the decimal exponent is this or one more (d is in [2^b, 2^b+1));
	 * a rounding that carries to 10^precision moves it up one too */
	exponent = (int)floor(ilogb(d) * 0.30102999566398120);
	for (int tries = 0;; tries++) {
		if (tries == 3 || !scale(d, precision - 1 - exponent, &s))
			return -1;
		if (s.q < pow10s[precision])
			break;
		exponent++;
	}
	if (s.q < pow10s[precision - 1])
		return -1;
	put_digits(digits, s.q, precision);
	for (used = precision; used > 1 && digits[used - 1] == '0'; used--)
		;
	if (exponent < -4 || exponent >= precision) {
		int x = exponent < 0 ? -exponent : exponent;

		*p++ = digits[0];
		if (used > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, (size_t)used - 1);
			p += used - 1;
		}
		*p++ = 'e';
		*p++ = exponent < 0 ? '-' : '+';
		p = put_digits(p, (uint64_t)x, x >= 100 ? 3 : 2);
	} else if (exponent >= 0) {
		memcpy(p, digits, (size_t)exponent + 1);
		p += exponent + 1;
		if (used > exponent + 1) {
			*p++ = '.';
			memcpy(p, digits + exponent + 1,
			       (size_t)(used - exponent - 1));
			p += used - exponent - 1;
		}
	} else {
		*p++ = '0';
		*p++ = '.';
		for (int i = -1; i > exponent; i--)
			*p++ = '0';
		memcpy(p, digits, (size_t)used);
		p += used;
	}
	*p = 0;
	if (distance) {
		if (s.diff == 0 || 2 * s.diff < s.unit)
			/* under half an ulp reads back as d, but below a
			 * power of two the ulp is half as large */
			*distance = s.diff && s.edge ? DECIMAL_UNKNOWN
						     : DECIMAL_EXACT;
		else if (s.edge)
			*distance = DECIMAL_UNKNOWN;
		else if (2 * s.diff < 3 * s.unit)
			*distance = DECIMAL_WITHIN_ULP;
		else if (2 * s.diff > 3 * s.unit)
			*distance = DECIMAL_FAR;
		else
			*distance = DECIMAL_UNKNOWN;
	}
	return (int)(p - text);
}

int decimal_format_f(char *text, double d, int decimals, bool plus)
{
	char *p = text;
	struct scaled s = { 0 };
	uint64_t whole;
	int width = 1;

	if (decimals < 0 || decimals > 17 || !isfinite(d))
		return -1;
	if (signbit(d))
		*p++ = '-';
	else if (plus)
		*p++ = '+';
	if (d != 0 && !scale(fabs(d), decimals, &s))
		return -1;
	whole = s.q / pow10s[decimals];
	while (width < 19 && whole >= pow10s[width])
		width++;
	p = put_digits(p, whole, width);
	if (decimals) {
		*p++ = '.';
		p = put_digits(p, s.q % pow10s[decimals], decimals);
	}
	*p = 0;
	return (int)(p - text);
}

#else /* no 128-bit integers: snprintf() prints everything */

int decimal_format_g(char *text, double d, int precision,
		     enum decimal_distance *distance)
{
	(void)text, (void)d, (void)precision, (void)distance;
	return -1;
}

int decimal_format_f(char *text, double d, int decimals, bool plus)
{
	(void)text, (void)d, (void)decimals, (void)plus;
	return -1;
}

#endif
