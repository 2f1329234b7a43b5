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

/* Reference values: FIPS 180-2, appendix B (SHA-256 of "abc" and of the
 * 56-byte two-block message), and the digest of the empty string. */
Test(hash, sha256_matches_the_reference_vectors)
{
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[65];

	cr_assert_eq(hash_sha256_hex("abc", 3, hex), 0);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223"
			      "b00361a396177a9cb410ff61f20015ad");
	cr_assert_eq(hash_sha256_hex(two_blocks, sizeof(two_blocks) - 1, hex),
		     0);
	cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039"
			      "a33ce45964ff2167f6ecedd419db06c1");
	cr_assert_eq(hash_sha256_hex("", 0, hex), 0);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb924"
			      "27ae41e4649b934ca495991b7852b855");
}
