/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scrubbing the token out of messages (harness/forge/redact.h).
 */
#include "harness/forge/redact.h"

#include <criterion/criterion.h>

#define TOKEN "ghp_s3cr3t-T0KEN-value"

TestSuite(redact);

static void assert_redacted(const char *text, const char *secret,
			    const char *expected)
{
	struct strbuf out = STRBUF_INIT;

	redact(&out, text, secret);
	cr_assert_str_eq(out.buf, expected, "redacting '%s'", text);
	strbuf_release(&out);
}

Test(redact, redact_replaces_every_occurrence_of_the_secret)
{
	assert_redacted("a " TOKEN " b " TOKEN TOKEN ".", TOKEN,
			"a *** b ******.");
	assert_redacted("no secret here", TOKEN, "no secret here");
	assert_redacted("abc", NULL, "abc");
	assert_redacted("abc", "", "abc");
}

/* A server that echoes a cut token ("Bad credentials: ghp_s3cr3t-T...")
 * still leaks most of it; any run of 8 or more characters of the token is
 * hidden wherever it appears in the message. */
Test(redact, redact_hides_fragments_of_eight_or_more_characters)
{
	/* The first 12 characters, as a truncating server echoes them. */
	assert_redacted("Bad credentials: ghp_s3cr3t-T...", TOKEN,
			"Bad credentials: ***...");
	/* A run from the middle and one at the very end of the text. */
	assert_redacted("[3cr3t-T0K] tail:EN-value", TOKEN, "[***] tail:***");
	/* Seven characters are not a meaningful part of the token. */
	assert_redacted("ghp_s3c and T0KEN-v", TOKEN, "ghp_s3c and T0KEN-v");
	/* A cut echo then the whole token are two runs, as two tokens are. */
	assert_redacted("ghp_s3cr3t-T0" TOKEN, TOKEN, "******");
}

Test(redact, fragments_that_overlap_in_the_text_are_hidden_as_one)
{
	/* "1234abcdefgh" and "abcdefgh5678" are each in the secret, and
	 * share "abcdefgh" in the text; hiding only the first would leave
	 * "5678" in view. */
	assert_redacted("<1234abcdefgh5678>", "1234abcdefgh|abcdefgh5678",
			"<***>");
}

Test(redact, a_token_shorter_than_a_fragment_is_hidden_only_whole)
{
	assert_redacted("abc abcdef abcdefg", "abcdefg", "abc abcdef ***");
}
