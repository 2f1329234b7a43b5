/* SPDX-License-Identifier: Apache-2.0 */
/* util/format: one way to write each quantity, in every report. */
#include "harness/util/format.h"

#include <criterion/criterion.h>
#include <math.h>

static void expect_quantity(double value, const char *unit,
			    const char *expected)
{
	struct strbuf out = STRBUF_INIT;

	format_quantity(&out, value, unit);
	cr_expect_str_eq(out.buf, expected, "%g %s", value, unit ? unit : "");
	strbuf_release(&out);
}

Test(format, counts_keep_four_digits_then_three_significant_ones)
{
	expect_quantity(8906, NULL, "8906");
	expect_quantity(12000, NULL, "12.0 k");
	expect_quantity(1165000, "samples/s", "1.17 M samples/s");
	expect_quantity(999999, "samples/s", "1.00 M samples/s");
	expect_quantity(9999.7, NULL, "10.0 k");
	expect_quantity(2.5e9, NULL, "2.50 G");
}

Test(format, bytes_take_binary_prefixes_and_times_stay_in_their_unit)
{
	expect_quantity(1536, "B", "1.50 KiB");
	expect_quantity(405504, "B", "396 KiB");
	expect_quantity(123456, "ms", "123456 ms");
	expect_quantity(NAN, "ms", "-");
}
