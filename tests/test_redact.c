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
