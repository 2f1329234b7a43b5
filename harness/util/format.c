/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/format.h"

#include "harness/util/decimal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

/* "%.{precision}g" of value into text (DECIMAL_TEXT_SIZE bytes), without
 * printf where decimal.h can */
static size_t print_g(char *text, double value, int precision)
{
	int len = decimal_format_g(text, value, precision, NULL);

	if (len < 0)
		len = snprintf(text, DECIMAL_TEXT_SIZE, "%.*g", precision,
			       value);
	return (size_t)len;
}

static void add_g(struct strbuf *out, double value, int precision)
{
	char text[DECIMAL_TEXT_SIZE];
	size_t len = print_g(text, value, precision);

	strbuf_add(out, text, len);
}

/* "%.{decimals}f" of value, "%+.{decimals}f" with `plus` */
static void add_f(struct strbuf *out, double value, int decimals, bool plus)
{
	char text[DECIMAL_TEXT_SIZE];
	int len = decimal_format_f(text, value, decimals, plus);

	if (len >= 0)
		strbuf_add(out, text, (size_t)len);
	else if (plus)
		strbuf_addf(out, "%+.*f", decimals, value);
	else
		strbuf_addf(out, "%.*f", decimals, value);
}

/* Three significant digits without exponents for the magnitudes that
 * benchmarks report. */
static void add_number(struct strbuf *out, double value)
{
	char rounded[DECIMAL_TEXT_SIZE];
	size_t len;
	double magnitude;

	/* the digits are chosen for the value as it will read, three
	 * significant digits: 9.997 is "10.0", not "10.00" */
	len = print_g(rounded, value, 3);
	magnitude = fabs(strtod(rounded, NULL));

	if (magnitude >= 100 || magnitude == 0)
		add_f(out, value, 0, false);
	else if (magnitude >= 10)
		add_f(out, value, 1, false);
	else if (magnitude >= 1)
		add_f(out, value, 2, false);
	else
		strbuf_add(out, rounded, len);
}

void format_quantity(struct strbuf *out, double value, const char *unit)
{
	static const char *const binary[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const decimal[] = { "", "k", "M", "G", "T" };
	bool bytes = unit && !strcmp(unit, "B");
	int step = 0;

	if (isnan(value)) {
		strbuf_addstr(out, "-");
		return;
	}
	/* Time units are already scaled by the benchmark; bytes get binary
	 * prefixes, counts and rates decimal ones. */
	if (bytes)
		while (fabs(value) >= 1024 && step < 4)
			value /= 1024, step++;
	else if (!unit || !strchr("nuµms", unit[0]) || strlen(unit) > 2)
		/* 4-digit counts stay whole ("8906"); once scaled, a
		 * number keeps under 1000 as it is printed ("1.17 M", not
		 * "1165 k"; "1.00 M", not "1000 k") */
		while (fabs(value) >= (step ? 999.5 : 9999.5) && step < 4)
			value /= 1000, step++;
	add_number(out, value);
	if (bytes)
		strbuf_addf(out, " %s", binary[step]);
	else if (step)
		strbuf_addf(out, " %s", decimal[step]);
	if (!bytes && unit && *unit)
		strbuf_addf(out, " %s", unit);
}

void format_change(struct strbuf *out, double change)
{
	if (isnan(change))
		strbuf_addstr(out, "-");
	else {
		add_f(out, change * 100, 1, true);
		strbuf_addch(out, '%');
	}
}

void format_p_value(struct strbuf *out, double p)
{
	if (isnan(p))
		strbuf_addstr(out, "-");
	else if (p >= 1e-4 || p == 0)
		add_g(out, p, 4);
	else
		strbuf_addf(out, "%.1e", p);
}

void format_ratio(struct strbuf *out, double ratio)
{
	if (isfinite(ratio)) {
		add_number(out, ratio);
		strbuf_addstr(out, "\u00d7");
	} else
		strbuf_addstr(out, "-");
}

void format_points(struct strbuf *out, double delta)
{
	if (isnan(delta))
		strbuf_addstr(out, "-");
	else {
		add_f(out, delta * 100, 2, true);
		strbuf_addstr(out, " pts");
	}
}

void format_move(struct strbuf *out, void (*format)(struct strbuf *, double),
		 double before, double after)
{
	if (!isnan(before)) {
		format(out, before);
		strbuf_addstr(out, " \u2192 ");
	}
	format(out, after);
}
