/*
 * Scrubbing the token out of messages (harness/forge/redact.h).
 */
#include "harness/forge/redact.h"

#include <criterion/criterion.h>

#define TOKEN "ghp_s3cr3t-T0KEN-value"

TestSuite(redact);

Test(redact, redact_replaces_every_occurrence_of_the_secret)
{
	struct strbuf out = STRBUF_INIT;

	redact(&out, "a " TOKEN " b " TOKEN TOKEN ".", TOKEN);
	cr_assert_str_eq(out.buf, "a *** b ******.");
	strbuf_reset(&out);
	redact(&out, "no secret here", TOKEN);
	cr_assert_str_eq(out.buf, "no secret here");
	strbuf_reset(&out);
	redact(&out, "abc", NULL);
	redact(&out, "abc", "");
	cr_assert_str_eq(out.buf, "abcabc");
	strbuf_release(&out);
}

/* A server that echoes a cut token ("Bad credentials: ghp_s3cr3t-T...")
 * still leaks most of it; any run of 8 or more characters of the token is
 * hidden wherever it appears in the message. */
Test(redact, redact_hides_fragments_of_eight_or_more_characters)
{
	struct strbuf out = STRBUF_INIT;

	/* The first 12 characters, as a truncating server echoes them. */
	redact(&out, "Bad credentials: ghp_s3cr3t-T...", TOKEN);
	cr_assert_str_eq(out.buf, "Bad credentials: ***...");
	strbuf_reset(&out);
	/* A run from the middle and one at the very end of the text. */
	redact(&out, "[3cr3t-T0K] tail:EN-value", TOKEN);
	cr_assert_str_eq(out.buf, "[***] tail:***");
	strbuf_reset(&out);
	/* Seven characters are not a meaningful part of the token. */
	redact(&out, "ghp_s3c and T0KEN-v", TOKEN);
	cr_assert_str_eq(out.buf, "ghp_s3c and T0KEN-v");
	strbuf_reset(&out);
	/* A cut echo then the whole token are two runs, as two tokens are. */
	redact(&out, "ghp_s3cr3t-T0" TOKEN, TOKEN);
	cr_assert_str_eq(out.buf, "******");
	strbuf_release(&out);
}

Test(redact, fragments_that_overlap_in_the_text_are_hidden_as_one)
{
	struct strbuf out = STRBUF_INIT;

	/* "1234abcdefgh" and "abcdefgh5678" are each in the secret, and
	 * share "abcdefgh" in the text; hiding only the first would leave
	 * "5678" in view. */
	redact(&out, "<1234abcdefgh5678>", "1234abcdefgh|abcdefgh5678");
	cr_assert_str_eq(out.buf, "<***>");
	strbuf_release(&out);
}

Test(redact, a_token_shorter_than_a_fragment_is_hidden_only_whole)
{
	struct strbuf out = STRBUF_INIT;

	redact(&out, "abc abcdef abcdefg", "abcdefg");
	cr_assert_str_eq(out.buf, "abc abcdef ***");
	strbuf_release(&out);
}
