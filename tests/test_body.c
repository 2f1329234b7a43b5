/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The comment's text (harness/forge/body.h): the marker that finds it
 * again, one marker per body, and the cut at the forge's limit, counted in
 * UTF-16 code units as GitHub counts (docs.github.com: a comment body holds
 * at most 65,536 characters).
 */
#include "harness/forge/body.h"

#include "harness/forge/github.h"
#include "reporters/escape.h"

#include <criterion/criterion.h>
#include <string.h>

#define MARKER "<!-- benchgate:mlp -->"

TestSuite(body);

Test(body, marker_comes_from_the_name_then_the_body_then_the_default)
{
	struct strbuf m = STRBUF_INIT;

	body_marker(&m, "mlp", "<!-- benchgate:other -->\n");
	cr_assert_str_eq(m.buf, MARKER);
	strbuf_reset(&m);
	/* escape_html_comment: a '-' after a '-' is percent-encoded */
	body_marker(&m, "a--b", NULL);
	cr_assert_str_eq(m.buf, "<!-- benchgate:a-%2Db -->");
	strbuf_reset(&m);
	body_marker(&m, NULL, "<!-- benchgate:mlp -->  \r\n### x\n");
	cr_assert_str_eq(m.buf, MARKER);
	strbuf_reset(&m);
	body_marker(&m, NULL, "# title\n" MARKER "\n");
	cr_assert_str_eq(m.buf, "<!-- benchgate -->");
	strbuf_reset(&m);
	body_marker(&m, NULL, MARKER " trailing text\n");
	cr_assert_str_eq(m.buf, "<!-- benchgate -->");
	strbuf_reset(&m);
	body_marker(&m, NULL, "<!-- benchgateway -->\n");
	cr_assert_str_eq(m.buf, "<!-- benchgate -->");
	strbuf_release(&m);
}

Test(body, prepared_body_has_exactly_the_chosen_marker_first)
{
	struct strbuf out = STRBUF_INIT;

	cr_assert_not(body_prepare(&out,
				   "<!-- benchgate:old -->\n"
				   "hello\n",
				   MARKER, GITHUB_BODY_MAX));
	cr_assert_str_eq(out.buf, MARKER "\nhello\n");
	strbuf_reset(&out);
	body_prepare(&out, "hello\n", "<!-- benchgate -->", GITHUB_BODY_MAX);
	cr_assert_str_eq(out.buf, "<!-- benchgate -->\nhello\n");
	strbuf_release(&out);
}

Test(body, long_body_is_cut_at_a_line_end_under_the_limit_with_a_note)
{
	struct strbuf body = STRBUF_INIT, out = STRBUF_INIT;
	const char *note;
	size_t kept;

	for (int i = 0; i < 700; i++) /* 70,700 characters */
		strbuf_addf(&body, "%099d\n", i);
	cr_assert(body_prepare(&out, body.buf, MARKER, GITHUB_BODY_MAX));
	cr_assert_leq(body_length(out.buf), GITHUB_BODY_MAX);
	cr_assert_geq(body_length(out.buf), GITHUB_BODY_MAX - 300);
	note = strstr(out.buf, "\n\n_\u2026 cut here");
	cr_assert_not_null(note);
	cr_assert(strstr(note, "65536 characters"));
	/* What is kept is the marker line and whole 100-character lines. */
	kept = (size_t)(note - out.buf) - strlen(MARKER "\n");
	cr_assert_eq(kept % 100, 99, "kept %zu", kept);
	strbuf_release(&body);
	strbuf_release(&out);
}

Test(body, length_counts_characters_not_bytes_and_astral_ones_twice)
{
	struct strbuf body = STRBUF_INIT, out = STRBUF_INIT;

	cr_assert_eq(body_length("a\u00e9\u20ac\U0001F600"), 5);
	for (int i = 0; i < 40000; i++) /* 80,000 bytes */
		strbuf_addstr(&body, "\u00e9");
	cr_assert_not(body_prepare(&out, body.buf, MARKER, GITHUB_BODY_MAX));
	strbuf_reset(&body);
	strbuf_reset(&out);
	for (int i = 0; i < 40000; i++) /* 80,000 UTF-16 units */
		strbuf_addstr(&body, "\U0001F600");
	cr_assert(body_prepare(&out, body.buf, MARKER, GITHUB_BODY_MAX));
	cr_assert_leq(body_length(out.buf), GITHUB_BODY_MAX);
	strbuf_release(&body);
	strbuf_release(&out);
}

/* The Markdown reporter writes the marker report.md starts with; --marker
 * SUITE must name the same comment, byte for byte. */
Test(body, a_named_marker_is_the_markdown_reporters_marker)
{
	static const char *const names[] = {
		"mlp-variants",
		"a--b",
		"a---b",
		"a-->b",
		"x--!><",
		"g/p:1+2@3=4,5",
		"sp ace",
		"\xc3\xa9t\xc3\xa9",
		"-",
		"",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct strbuf ours = STRBUF_INIT, report = STRBUF_INIT;

		body_marker(&ours, names[i], NULL);
		strbuf_addstr(&report, "<!-- benchgate:");
		escape_html_comment(&report, names[i]);
		strbuf_addstr(&report, " -->");
		cr_assert_str_eq(ours.buf, report.buf, "name '%s'", names[i]);
		/* Only the closing " -->" may hold a "--". */
		strbuf_setlen(&ours, ours.len - strlen(" -->"));
		cr_assert_null(strstr(ours.buf + strlen("<!--"), "--"), "%s",
			       ours.buf);
		strbuf_release(&ours);
		strbuf_release(&report);
	}
}

/* Every body sent passes one neutraliser: a benchmark's stderr quoted in
 * the report ("@user @org/team"), an image (a beacon) or raw HTML in a
 * commit subject notify, fetch and render nothing; benchgate's own tags
 * and fenced code stay. */
Test(body, a_prepared_body_has_its_mentions_images_and_html_made_inert)
{
	struct strbuf out = STRBUF_INIT;

	body_prepare(&out,
		     "| b | failed | stderr: @user @org/team<br>x |\n"
		     "![beacon](https://evil.example/p.png) "
		     "<img src=x> <details><summary>s</summary>\n"
		     "```\n@kept ![kept](x) <kept>\n```\n"
		     "mail me@example.org\n",
		     MARKER, GITHUB_BODY_MAX);
	cr_assert(strstr(out.buf, "@\u2060user @\u2060org/team<br>x"), "%s",
		  out.buf);
	cr_assert(strstr(out.buf, "!\\[beacon]"), "%s", out.buf);
	cr_assert(strstr(out.buf, "&lt;img src=x> <details><summary>s"),
		  "%s", out.buf);
	cr_assert(strstr(out.buf, "```\n@kept ![kept](x) <kept>\n```\n"),
		  "%s", out.buf);
	cr_assert(strstr(out.buf, MARKER "\n"), "%s", out.buf);
	strbuf_release(&out);
}

/* Output is fenced with a fence no backtick run inside can close. */
Test(body, a_fence_is_longer_than_any_backtick_run_in_the_text)
{
	struct strbuf out = STRBUF_INIT;

	body_fence(&out, "subject ```\n@all ![x](y)\n````` end\x1b[31m");
	cr_assert_str_eq(out.buf, "``````text\nsubject ```\n@all ![x](y)\n"
				  "````` end\uFFFD[31m\n``````\n");
	strbuf_reset(&out);
	body_fence(&out, "plain\n");
	cr_assert_str_eq(out.buf, "```text\nplain\n```\n");
	strbuf_release(&out);
}
