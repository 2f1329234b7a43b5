/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The terminal escaper (harness/util/terminal.h). Reference values: the
 * UTF-8 encodings are from the Unicode Standard, chapter 3, table 3-7
 * (U+202E is E2 80 AE, U+0085 is C2 85); the control and bidi sets from
 * Unicode's general categories Cc and the Bidi_Control property as
 * CVE-2021-42574 lists them; the workflow-command rules from the GitHub
 * Actions runner, src/Runner.Common/ActionCommand.cs (TryParseV2 trims
 * leading white space with String.TrimStart() and then requires "::";
 * TryParse finds "##[" anywhere in the line).
 */
#include "harness/util/terminal.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(terminal);

static void expect_escape(const char *in, const char *expected)
{
	struct strbuf out = STRBUF_INIT;

	terminal_escape(&out, in);
	cr_assert_str_eq(out.buf, expected, "escape of '%s'", in);
	strbuf_release(&out);
}

static void expect_guard(const char *in, unsigned flags, const char *expected)
{
	struct strbuf out = STRBUF_INIT;

	terminal_guard(&out, in, flags);
	cr_assert_str_eq(out.buf, expected, "guard of '%s'", in);
	strbuf_release(&out);
}

Test(terminal, escape_shows_esc_and_csi_sequences)
{
	expect_escape("a\x1b[2Jb", "a\\x1b[2Jb");
	expect_escape("\x1b]0;title\x07", "\\x1b]0;title\\x07");
	/* the 8-bit CSI, C1 U+009B, and NEL U+0085 */
	expect_escape("x\xc2\x9b"
		      "31m",
		      "x\\xc2\\x9b31m");
	expect_escape("\xc2\x85", "\\xc2\\x85");
	expect_escape("del\x7f", "del\\x7f");
}

Test(terminal, escape_shows_bidi_overrides_and_isolates)
{
	/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE,
	 * U+2069 POP DIRECTIONAL ISOLATE, U+2028 LINE SEPARATOR */
	expect_escape("a\xe2\x80\xae"
		      "b",
		      "a\\xe2\\x80\\xaeb");
	expect_escape("\xe2\x81\xa6x\xe2\x81\xa9",
		      "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
	expect_escape("\xe2\x80\xa8", "\\xe2\\x80\\xa8");
	/* text that only looks foreign stays: é, 日本, U+FFFD itself */
	expect_escape("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xef\xbf\xbd",
		      "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xef\xbf\xbd");
}

Test(terminal, escape_shows_bytes_that_are_no_utf8)
{
	expect_escape("a\xff"
		      "b",
		      "a\\xffb");
	/* truncated, overlong, a surrogate */
	expect_escape("\xe2\x80", "\\xe2\\x80");
	expect_escape("\xc0\xaf", "\\xc0\\xaf");
	expect_escape("\xed\xa0\x80", "\\xed\\xa0\\x80");
	expect_escape(NULL, "");
}

Test(terminal, escape_keeps_a_string_on_its_line)
{
	expect_escape("a\nb\r\tc", "a\\x0ab\\x0d\\x09c");
	expect_escape("x\n::add-mask::secret", "x\\x0a::add-mask::secret");
}

Test(terminal, guard_breaks_a_workflow_command_at_a_line_start)
{
	expect_guard("ok\n::add-mask::x\n", 0, "ok\n\\::add-mask::x\n");
	expect_guard("::set-env name=A::1", 0, "\\::set-env name=A::1");
	/* the runner trims leading white space, Unicode spaces included */
	expect_guard("  \t::error::x\n", 0, "  \t\\::error::x\n");
	expect_guard("\xc2\xa0\xe3\x80\x80::error::x", 0,
		     "\xc2\xa0\xe3\x80\x80\\::error::x");
	/* elsewhere in a line "::" is just text */
	expect_guard("a::b ::c\n", 0, "a::b ::c\n");
	expect_guard(": :x\n", 0, ": :x\n");
}

Test(terminal, guard_breaks_the_legacy_forms_anywhere)
{
	expect_guard("see ##[error]boom\n", 0, "see ##\\[error]boom\n");
	expect_guard("##vso[task.setvariable variable=x]1", 0,
		     "##vso\\[task.setvariable variable=x]1");
	expect_guard("##teamcity[message]", 0, "##teamcity\\[message]");
	/* a Markdown heading and a lone # stay */
	expect_guard("## [link](u) #[x] #", 0, "## [link](u) #[x] #");
}

Test(terminal, guard_escapes_controls_but_keeps_layout)
{
	expect_guard("a\tb\nc\x1b[31md\re\xe2\x80\xae\xff\n", 0,
		     "a\tb\nc\\x1b[31md\\x0de\\xe2\\x80\\xae\\xff\n");
	/* a carriage return is no line end here, so no command after it;
	 * one that ends a line, as in CSV, stays */
	expect_guard("x\r::add-mask::y\n", 0, "x\\x0d::add-mask::y\n");
	expect_guard("a,b\r\n::c\r\n\r", 0, "a,b\r\n\\::c\r\n\\x0d");
}

Test(terminal, guard_keeps_colours_only_when_asked)
{
	expect_guard("\x1b[1;31mREGRESSION\x1b[0m\n", TERMINAL_COLOR,
		     "\x1b[1;31mREGRESSION\x1b[0m\n");
	expect_guard("\x1b[1;31mREGRESSION\x1b[0m\n", 0,
		     "\\x1b[1;31mREGRESSION\\x1b[0m\n");
	/* only SGR: erasing the screen or setting a title is not a colour */
	expect_guard("\x1b[2J\x1b]0;t\x07", TERMINAL_COLOR,
		     "\\x1b[2J\\x1b]0;t\\x07");
	/* a colour does not hide a command from the check */
	expect_guard("\x1b[1m::add-mask::x", TERMINAL_COLOR,
		     "\x1b[1m\\::add-mask::x");
}

Test(terminal, print_line_keeps_an_argument_on_one_line)
{
	char *text = NULL;
	size_t len = 0;
	FILE *to = open_memstream(&text, &len);

	terminal_print_line(to, "stored %s", "a\n::add-mask::b\x1b[2J");
	terminal_print_line(to, "%s", "::error::x");
	fclose(to);
	cr_assert_str_eq(text, "stored a\\x0a::add-mask::b\\x1b[2J\n"
			       "\\::error::x\n");
	free(text);
}
