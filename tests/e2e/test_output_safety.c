/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: nothing benchgate prints acts on a terminal or a CI runner,
 * whatever the text it prints came from. The readers refuse hostile names
 * (test_untrusted.c); these tests feed what they let through, or what they
 * never see: a failure reason in a result file, a variant's vars, a file's
 * name. No line of stdout or stderr may start with "::" once its leading
 * white space is trimmed (as the GitHub Actions runner trims it,
 * src/Runner.Common/ActionCommand.cs, TryParseV2) unless it is one of
 * benchgate's own annotations; none may hold the legacy "##[" that the
 * runner finds anywhere in a line (TryParse); and no ESC, carriage return,
 * or bidirectional override or isolate (U+202A-U+202E, U+2066-U+2069,
 * CVE-2021-42574) gets through.
 */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, env, ...)                \
	test_benchgate((out), dir, (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

/* What a hostile string carries: a carriage return (a line end to the
 * runner) and a newline before workflow commands, the legacy form
 * mid-line, ESC sequences (erase the screen, set the window title), a
 * right-to-left override and an isolate. JSON escapes, for the files. */
#define HOSTILE_JSON                                                    \
	"boom\\r::add-mask::secret ##[error]x\\u001b[2J\\u001b]0;pwned" \
	"\\u0007 \\u202eevil\\u2066\\n  ::set-env name=PATH::/tmp"

/* The annotation benchgate writes itself (reporters/annotations.c). */
#define OWN_ANNOTATION "::error title=benchgate regression::"

static char *dir;

static void setup(void)
{
	dir = test_tmpdir();
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(output_safety, .init = setup, .fini = teardown, .timeout = 120);

/* Whether the UTF-8 at p is a bidirectional embedding, override or
 * isolate: E2 80 AA-AE, E2 81 A6-A9. */
static bool is_bidi(const unsigned char *p)
{
	return p[0] == 0xe2 &&
	       ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
		(p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9));
}

/* Nothing in text that a terminal or a runner would act on. */
static void assert_inert(const char *text)
{
	const char *line = text;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		cr_assert(*p != 0x1b && *p != '\r', "a control in:\n%s", text);
		cr_assert(!is_bidi(p), "a bidi override in:\n%s", text);
	}
	cr_assert_null(strstr(text, "##["), "%s", text);
	while (*line) {
		const char *start = line + strspn(line, " \t");
		size_t len = strcspn(line, "\n");

		cr_assert(strncmp(start, "::", 2) ||
				  !strncmp(line, OWN_ANNOTATION,
					   strlen(OWN_ANNOTATION)),
			  "a workflow command: '%.*s'", (int)len, line);
		line += len + (line[len] == '\n');
	}
}

static void assert_output_inert(const struct test_output *out)
{
	assert_inert(out->out.buf);
	assert_inert(out->err.buf);
}

/* A result with case "b" (ok, median `median`) and case "f", ok or failed
 * with the hostile reason. */
static void write_result(const char *name, double median, bool failed)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text,
		    "{\"benchgate_result\": 1, \"suite\": \"s\", \"git\": "
		    "{\"commit\": \"unknown\", \"branch\": \"" HOSTILE_JSON
		    "\", \"subject\": \"" HOSTILE_JSON "\"},\n"
		    " \"machine\": {\"id\": \"box\", \"cpu\": \"" HOSTILE_JSON
		    "\"}, \"cases\": [\n"
		    "{\"benchmark\": \"b\", \"variant\": \"v\", \"device\": "
		    "\"cpu\", \"status\": \"ok\", \"runs\": 8, \"metrics\": "
		    "{\"t\": {\"unit\": \"ms\", \"samples\": "
		    "[%g, %g, %g, %g, %g, %g, %g, %g]}}},\n",
		    median, median * 1.01, median * 0.99, median * 1.02,
		    median * 0.98, median * 1.005, median * 0.995, median);
	if (failed)
		strbuf_addstr(&text,
			      "{\"benchmark\": \"f\", \"variant\": \"v\", "
			      "\"device\": \"cpu\", \"status\": "
			      "\"failed\", \"reason\": \"" HOSTILE_JSON
			      "\", \"log\": \"" HOSTILE_JSON
			      "\", \"runs\": 0, \"metrics\": {}}]}\n");
	else
		strbuf_addstr(&text,
			      "{\"benchmark\": \"f\", \"variant\": \"v\", "
			      "\"device\": \"cpu\", \"status\": \"ok\", "
			      "\"runs\": 1, \"metrics\": {\"t\": "
			      "{\"unit\": \"ms\", \"samples\": [1]}}}]}\n");
	free(test_write_file(dir, name, text.buf));
	strbuf_release(&text);
}

Test(output_safety, compare_shows_a_hostile_failure_reason_inert)
{
	struct test_output out;

	write_result("base.json", 10.0, false);
	/* b is twice as slow: its regression row is printed too */
	write_result("cand.json", 20.0, true);
	RUN(&out, NULL, "compare", "base.json", "cand.json");
	/* the reader takes the reason as it is: the case failed, exit 3 */
	cr_assert_eq(out.exit_code, 3, "exit %d: %s%s", out.exit_code,
		     out.out.buf, out.err.buf);
	/* the reason's first line is shown, its controls as \xNN */
	cr_assert(strstr(out.out.buf, "failed: boom\\x0d::add-mask::secret "
				      "##\\[error]x\\x1b[2J\\x1b]0;pwned\\x07 "
				      "\\xe2\\x80\\xaeevil\\xe2\\x81\\xa6\n"),
		  "%s", out.out.buf);
	assert_output_inert(&out);
	test_output_release(&out);
}

Test(output_safety, validate_shows_hostile_vars_inert)
{
	struct test_output out;

	free(test_write_file(
		dir, "suite.json",
		"{\"benchgate\": 1, \"suite\": \"s\", \"variants\": {\"v\": "
		"{\"vars\": {\"m\": \"" HOSTILE_JSON "\"}}},\n"
		"\"benchmarks\": [{\"name\": \"b\", \"command\": [\"echo\", "
		"\"${m}\"], \"metrics\": [{\"name\": \"t\", \"from\": "
		"\"wall\"}]}]}\n"));
	RUN(&out, NULL, "validate", "suite.json");
	cr_assert_eq(out.exit_code, 0, "exit %d: %s%s", out.exit_code,
		     out.out.buf, out.err.buf);
	/* the command is shown whole, on its line */
	cr_assert(strstr(out.out.buf, "command: echo 'boom\\x0d::add-mask::"
				      "secret ##\\[error]x\\x1b[2J"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "\\xe2\\x81\\xa6\\x0a  ::set-env "
				      "name=PATH::/tmp'\n"),
		  "%s", out.out.buf);
	assert_output_inert(&out);
	test_output_release(&out);
}

Test(output_safety, an_error_shows_a_hostile_file_name_inert)
{
	const char *name = "x\n::add-mask::secret\r::error::y\x1b[2J"
			   "\xe2\x80\xae ##[error]z.json";
	const char *shown = "x\\x0a::add-mask::secret\\x0d::error::y\\x1b[2J"
			    "\\xe2\\x80\\xae ##\\[error]z.json";
	struct strbuf expected = STRBUF_INIT;
	struct test_output out;

	/* no such file: taken for a revision, which needs --suite. The
	 * message's newline is kept, and the line after it is one of
	 * benchgate's, prefixed. */
	RUN(&out, NULL, "compare", name, name);
	cr_assert_eq(out.exit_code, 2, "exit %d: %s%s", out.exit_code,
		     out.out.buf, out.err.buf);
	strbuf_addstr(&expected,
		      "benchgate: error: compare: BASE 'x\n"
		      "benchgate: error: ::add-mask::secret\\x0d::error::y"
		      "\\x1b[2J\\xe2\\x80\\xae ##\\[error]z.json' is not a "
		      "file");
	cr_assert(strstr(out.err.buf, expected.buf), "%s", out.err.buf);
	assert_output_inert(&out);
	test_output_release(&out);

	/* not JSON: the reader's message quotes the file's name */
	free(test_write_file(dir, name, "{,"));
	RUN(&out, NULL, "compare", name, name);
	cr_assert_eq(out.exit_code, 2, "exit %d: %s%s", out.exit_code,
		     out.out.buf, out.err.buf);
	strbuf_reset(&expected);
	strbuf_addf(&expected, "benchgate: error: %s:1:2: ", shown);
	cr_assert(strstr(out.err.buf, expected.buf), "%s", out.err.buf);
	assert_output_inert(&out);
	test_output_release(&out);
	strbuf_release(&expected);
}
