/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/isotime.h"

#include <ctype.h>
#include <string.h>
#include <time.h>

void iso8601_now(struct strbuf *out)
{
	struct timespec now;
	struct tm tm;
	char text[32];

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addstr(out, text);
}

/* Reads exactly `digits` decimal digits at *p into *value, within
 * [min, max], and moves *p past them. */
static bool read_field(const char **p, int digits, int min, int max, int *value)
{
	int n = 0;

	for (int i = 0; i < digits; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		n = n * 10 + ((*p)[i] - '0');
	}
	if (n < min || n > max)
		return false;
	*p += digits;
	*value = n;
	return true;
}

/* Consumes the character c at *p. */
static bool read_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/* The zone after the seconds: 'Z' or an offset east of UTC, in seconds. */
static bool read_zone(const char **p, long *offset)
{
	int hours, minutes;
	char sign = **p;

	*offset = 0;
	if (read_char(p, 'Z'))
		return true;
	if (sign != '+' && sign != '-')
		return false;
	(*p)++;
	if (!read_field(p, 2, 0, 23, &hours))
		return false;
	read_char(p, ':');
	if (!read_field(p, 2, 0, 59, &minutes))
		return false;
	*offset = (hours * 60L + minutes) * 60;
	if (sign == '-')
		*offset = -*offset;
	return true;
}

bool iso8601_parse(const char *text, double *seconds)
{
	struct tm tm = { 0 };
	const char *p = text;
	double fraction = 0, scale = 1;
	long offset;

	if (!p)
		return false;
	/* 60 seconds: a leap second, which timegm() carries into the
	 * next minute */
	if (!read_field(&p, 4, 0, 9999, &tm.tm_year) || !read_char(&p, '-') ||
	    !read_field(&p, 2, 1, 12, &tm.tm_mon) || !read_char(&p, '-') ||
	    !read_field(&p, 2, 1, 31, &tm.tm_mday) || !read_char(&p, 'T') ||
	    !read_field(&p, 2, 0, 23, &tm.tm_hour) || !read_char(&p, ':') ||
	    !read_field(&p, 2, 0, 59, &tm.tm_min) || !read_char(&p, ':') ||
	    !read_field(&p, 2, 0, 60, &tm.tm_sec))
		return false;
	if (read_char(&p, '.')) {
		if (!isdigit((unsigned char)*p))
			return false;
		/* digit by digit: strtod() would follow the locale's point */
		for (; isdigit((unsigned char)*p); p++)
			fraction += (*p - '0') * (scale /= 10);
	}
	if (!read_zone(&p, &offset) || *p)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*seconds = (double)(timegm(&tm) - offset) + fraction;
	return true;
}
