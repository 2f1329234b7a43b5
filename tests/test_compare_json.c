/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The comparison reader (compare_json.c) on documents from elsewhere
 * (`benchgate report FILE`): every value is checked or the document is
 * rejected with its position; nothing undefined happens on the way.
 */
#include "harness/gate/compare.h"
#include "harness/util/error.h"

#include <criterion/criterion.h>
#include <string.h>

/* Every expected line:column below is counted by hand in the text beside
 * it: lines and columns from 1, columns in bytes. */

TestSuite(compare_json);

/* A comparison of one item whose line 4 is the test's. */
#define ITEM(line4)                                                            \
	"{\"benchgate_comparison\": 1, \"comparisons\": [\n"                   \
	"{\"verdict\": \"new\", \"suite\": \"s\",\n"                           \
	" \"variant\": \"v\", \"device\": \"cpu\", \"metric\": \"t\",\n" line4 \
	"\n}]}\n"

static struct comparison *parsed;

static int parse(const char *text)
{
	comparison_free(parsed);
	parsed = NULL;
	return comparison_parse(&parsed, text, strlen(text), "c.json");
}

static void assert_rejected(const char *text, const char *message)
{
	cr_assert_eq(parse(text), BG_EINPUT, "accepted:\n%s", text);
	cr_assert_null(parsed);
	cr_assert_str_eq(bg_error_last(), message);
}

static void teardown_comparison(void)
{
	comparison_free(parsed);
	parsed = NULL;
}

Test(compare_json, a_valid_item_is_read, .fini = teardown_comparison)
{
	cr_assert_eq(parse(ITEM("\"benchmark\": \"b\", \"unit\": \"ms\", "
				"\"better\": \"higher\", \"candidate\": "
				"{\"n\": 3, \"median\": 1.5}")),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(parsed->items[0].better, BETTER_HIGHER);
	cr_assert(parsed->items[0].has_candidate);
	cr_assert_eq(parsed->items[0].candidate.n, 3);
}

/* `n` was cast straight from a double (NaN when null or absent) to a
 * size_t: undefined behaviour that clang's -fsanitize=float-cast-overflow
 * reports. */
Test(compare_json, a_sample_count_that_is_no_count_is_rejected,
     .fini = teardown_comparison)
{
	/* line 4 `"benchmark": "b", "candidate": {"n": -1}`: column 38 */
	assert_rejected(
		ITEM("\"benchmark\": \"b\", \"candidate\": {\"n\": -1}"),
		"c.json:4:38: comparisons[0].candidate.n: expected a "
		"whole number from 0 to 2147483647");
	/* null is how cJSON writes NaN */
	assert_rejected(ITEM("\"benchmark\": \"b\", \"candidate\": {\"n\": "
			     "null}"),
			"c.json:4:38: comparisons[0].candidate.n: expected a "
			"whole number from 0 to 2147483647");
	assert_rejected(ITEM("\"benchmark\": \"b\", \"baseline\": {\"n\": "
			     "1e300}"),
			"c.json:4:37: comparisons[0].baseline.n: expected a "
			"whole number from 0 to 2147483647");
	/* absent: named at its summary, column 32 */
	assert_rejected(
		ITEM("\"benchmark\": \"b\", \"candidate\": {\"median\": "
		     "1}"),
		"c.json:4:32: comparisons[0].candidate: missing "
		"required key 'n'");
}

/* "better" other than lower or higher read silently as lower. */
Test(compare_json, an_unknown_direction_is_rejected,
     .fini = teardown_comparison)
{
	/* line 4 `"benchmark": "b", "better": "sideways"`: column 29 */
	assert_rejected(ITEM("\"benchmark\": \"b\", \"better\": \"sideways\""),
			"c.json:4:29: comparisons[0].better: unknown value "
			"'sideways'; expected one of: lower, higher");
}

/*
 * Names follow the suite loader's rules and units are printable text, so
 * that no name in a report or on the terminal starts a line with a
 * workflow command or carries an ESC sequence; the message quotes them
 * with \xNN.
 */
Test(compare_json, names_and_units_are_checked, .fini = teardown_comparison)
{
	/* line 4 `"benchmark": "a\n::add-mask::x"`: column 14 */
	assert_rejected(ITEM("\"benchmark\": \"a\\n::add-mask::x\""),
			"c.json:4:14: comparisons[0].benchmark: expected a "
			"name of letters, digits, '-', '_', '.' and '+', found "
			"'a\\x0a::add-mask::x'");
	/* line 4 `"benchmark": "b", "unit": "\u001b[2J"`: column 27 */
	assert_rejected(ITEM("\"benchmark\": \"b\", \"unit\": \"\\u001b[2J\""),
			"c.json:4:27: comparisons[0].unit: expected printable "
			"text (no control characters or bidirectional "
			"overrides, not starting with '::'), found "
			"'\\x1b[2J'");
	/* line 1, a variant comparison's benchmark: column 56 */
	assert_rejected("{\"benchgate_comparison\": 1, \"variants\": "
			"[{\"benchmark\": \"x\\ny\"}]}",
			"c.json:1:56: variants[0].benchmark: expected a name "
			"of letters, digits, '-', '_', '.' and '+', found "
			"'x\\x0ay'");
}

/* Found by fuzz_comparison: a side's commit or machine longer than its
 * field was cut without a word (and one with a byte that is no UTF-8 grew
 * past it once written back); both are refused now. */
Test(compare_json, a_side_is_printable_and_fits, .fini = teardown_comparison)
{
	/* line 2 `"candidate": {"commit": "...41 characters"}`: column 25 */
	assert_rejected("{\"benchgate_comparison\": 1,\n"
			"\"candidate\": {\"commit\": \"0123456789abcdef0123"
			"456789abcdef012345678\"}}",
			"c.json:2:25: candidate.commit: expected a commit id "
			"of at most 40 characters");
	/* `"baseline": {"machine": "m\xa1"}`: column 25 */
	assert_rejected(
		"{\"benchgate_comparison\": 1,\n"
		"\"baseline\": {\"machine\": \"m\xa1\"}}",
		"c.json:2:25: baseline.machine: expected printable text "
		"(no control characters or bidirectional overrides, not "
		"starting with '::'), found 'm\\xa1'");
}
