/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/bisect.h"
#include "harness/util/error.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <string.h>

/*
 * The search alone (bisect_search()), on made-up ranges: which commit is
 * first bad is known, some cannot be tested, and the number of tests is
 * counted. `benchgate bisect` end to end is tests/e2e/test_bisect_cli.c.
 */

TestSuite(bisect);

struct fake {
	size_t first_bad;
	const bool *untestable; /* NULL: none */
	size_t tests;
	bool tested[128];
	int fail_at; /* a test returning this error at its tests-th call */
};

static int fake_test(size_t index, enum bisect_mark *mark, void *payload)
{
	struct fake *f = payload;

	cr_assert(index > 0, "the good end is not tested");
	cr_assert_not(f->tested[index], "commit %zu tested twice", index);
	f->tested[index] = true;
	if (f->fail_at && ++f->tests == (size_t)f->fail_at)
		return bg_error("the harness broke");
	if (!f->fail_at)
		f->tests++;
	if (f->untestable && f->untestable[index])
		*mark = BISECT_SKIPPED;
	else
		*mark = index >= f->first_bad ? BISECT_BAD : BISECT_GOOD;
	return 0;
}

static size_t ceil_log2(size_t n)
{
	size_t bits = 0;

	while (((size_t)1 << bits) < n)
		bits++;
	return bits;
}

Test(bisect, finds_every_first_bad_commit_in_log2_tests)
{
	for (size_t nr = 2; nr <= 100; nr++) {
		for (size_t bad = 1; bad < nr; bad++) {
			struct fake f = { .first_bad = bad };
			size_t first = 0, last = 0;

			cr_assert_eq(bisect_search(nr, fake_test, &f, &first,
						   &last),
				     0);
			cr_assert_eq(first, bad, "nr %zu, bad %zu", nr, bad);
			cr_assert_eq(last, bad);
			/* the nr - 1 candidates of a binary search */
			cr_assert_leq(f.tests, ceil_log2(nr - 1),
				      "nr %zu, bad %zu: %zu tests", nr, bad,
				      f.tests);
			cr_assert_not(f.tested[nr - 1], "the bad end either");
		}
	}
}

Test(bisect, a_skipped_middle_is_replaced_by_its_neighbour)
{
	bool untestable[64] = { false };
	struct fake f = { .first_bad = 37, .untestable = untestable };
	size_t first, last;

	untestable[39] = true; /* the middle of (31, 47) */
	cr_assert_eq(bisect_search(64, fake_test, &f, &first, &last), 0);
	cr_assert_eq(first, 37);
	cr_assert_eq(last, 37);
	cr_assert(f.tested[39] && f.tested[38],
		  "39 skipped, 38 next: the lower on a tie");
	cr_assert_eq(f.tests, 7, "the six of 64 commits and the skip");
}

Test(bisect, skips_next_to_the_first_bad_leave_a_range)
{
	bool untestable[64] = { false };
	struct fake f = { .first_bad = 20, .untestable = untestable };
	size_t first, last;

	untestable[19] = untestable[20] = true;
	cr_assert_eq(bisect_search(64, fake_test, &f, &first, &last), 0);
	cr_assert_eq(first, 19, "18 good; 19 and 20 could not be told");
	cr_assert_eq(last, 21, "21 bad");
}

Test(bisect, nothing_testable_leaves_the_whole_range)
{
	bool untestable[8];
	struct fake f = { .first_bad = 3, .untestable = untestable };
	size_t first, last;

	memset(untestable, 1, sizeof(untestable));
	cr_assert_eq(bisect_search(8, fake_test, &f, &first, &last), 0);
	cr_assert_eq(first, 1);
	cr_assert_eq(last, 7);
	cr_assert_eq(f.tests, 6, "each commit between once");
}

Test(bisect, an_error_ends_the_search)
{
	struct fake f = { .first_bad = 5, .fail_at = 2 };
	size_t first, last;

	cr_assert_eq(bisect_search(64, fake_test, &f, &first, &last),
		     BG_ERROR);
	cr_assert_str_eq(bg_error_last(), "the harness broke");
}

Test(bisect, mark_names)
{
	cr_assert_str_eq(bisect_mark_name(BISECT_GOOD), "good");
	cr_assert_str_eq(bisect_mark_name(BISECT_BAD), "bad");
	cr_assert_str_eq(bisect_mark_name(BISECT_SKIPPED), "skipped");
	cr_assert_str_eq(bisect_mark_name(BISECT_UNTESTED), "untested");
}
