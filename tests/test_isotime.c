/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/isotime.h"

#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

TestSuite(isotime);

/*
 * Reference values: the timestamps are the examples of RFC 3339 section 5.8,
 * and each expected epoch second is what GNU date prints for the same
 * instant written in UTC, e.g. `date -u -d 1996-12-20T00:39:57Z +%s`.
 * 1234567890 is the widely celebrated 2009-02-13T23:31:30Z.
 */
static double parsed(const char *text)
{
	double seconds = 42;

	cr_assert(iso8601_parse(text, &seconds), "'%s' not parsed", text);
	return seconds;
}

Test(isotime, utc_with_whole_seconds)
{
	cr_assert_eq(parsed("2009-02-13T23:31:30Z"), 1234567890);
	cr_assert_eq(parsed("2026-11-22T07:34:22Z"), 1795332862);
}

Test(isotime, fraction_of_a_second_is_kept)
{
	cr_assert_float_eq(parsed("1985-04-12T23:20:50.52Z"), 482196050.52,
			   1e-6);
}

Test(isotime, offsets_west_and_east_of_utc)
{
	cr_assert_eq(parsed("1996-12-19T16:39:57-08:00"), 851042397);
	cr_assert_eq(parsed("1996-12-19T16:39:57-0800"), 851042397);
	cr_assert_float_eq(parsed("1937-01-01T12:00:27.87+00:20"),
			   -1041337173 + 0.87, 1e-6);
}

Test(isotime, leap_second_carries_into_the_next_minute)
{
	/* POSIX time has no leap seconds: 23:59:60 is 00:00:00 next day */
	cr_assert_eq(parsed("1990-12-31T23:59:60Z"), 662688000);
	cr_assert_eq(parsed("1990-12-31T15:59:60-08:00"), 662688000);
}

Test(isotime, rejects_what_is_not_one_time)
{
	static const char *const bad[] = {
		"",
		"2026-11-22",
		"2026-11-22T07:34:22",	/* no zone: local time unknown */
		"2026-11-22 07:34:22Z", /* RFC 3339 allows, results don't */
		"2026-11-22T07:34:22Zjunk",
		"2026-11-22T07:34:22.Z",
		"2026-11-22T07:34:22+01",
		"2026-13-22T07:34:22Z",
		"2026-11-22T24:00:00Z",
		"2026-11-22T07:60:00Z",
		"26-11-22T07:34:22Z",
		"+2026-11-22T07:34:22Z",
	};
	double seconds = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_assert_not(iso8601_parse(bad[i], &seconds), "'%s'", bad[i]);
	cr_assert_not(iso8601_parse(NULL, &seconds));
	cr_assert_eq(seconds, 42, "untouched on failure");
}

Test(isotime, now_parses_back_to_the_clock)
{
	struct strbuf text = STRBUF_INIT;
	double before = (double)time(NULL), after;

	iso8601_now(&text);
	after = (double)time(NULL);
	cr_assert_eq(text.len, strlen("2026-11-22T07:34:22Z"), "'%s'",
		     text.buf);
	cr_assert_geq(parsed(text.buf), before);
	cr_assert_leq(parsed(text.buf), after);
	strbuf_release(&text);
}
