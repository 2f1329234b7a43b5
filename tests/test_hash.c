/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/hash.h"

#include <criterion/criterion.h>

TestSuite(hash);

/* Reference values: the FNV-1a test vectors of the FNV authors (Fowler,
 * Noll, Vo; draft-eastlake-fnv, test_fnv.c), for "", "a" and "foobar".
 * They pin the hash, so flame-graph colours and file-name suffixes never
 * change between versions. */
Test(hash, fnv1a64_matches_the_reference_vectors)
{
	cr_assert_eq(hash_fnv1a64("", 0), 0xcbf29ce484222325ULL);
	cr_assert_eq(hash_fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);
	cr_assert_eq(hash_fnv1a64("foobar", 6), 0x85944171f73967e8ULL);
}

Test(hash, fnv1a32_matches_the_reference_vectors)
{
	cr_assert_eq(hash_fnv1a32(""), 0x811c9dc5u);
	cr_assert_eq(hash_fnv1a32("a"), 0xe40c292cu);
	cr_assert_eq(hash_fnv1a32("foobar"), 0xbf9cf968u);
}
