/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: machine output on stdout. `--json -` writes the document to
 * stdout, and nothing else goes there (the summaries go to stderr); no
 * file named "-" appears; warnings go to stderr as "benchgate: warning:".
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(streams, .init = test_dir_setup, .fini = test_dir_teardown);

/* A github-action-benchmark document of one benchmark at value. */
static void peer_document(const char *name, const char *value)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "[{\"name\": \"spin\", \"unit\": \"ms\", \"value\": %s}]\n",
		 value);
	free(test_write_file(test_dir, name, text));
}

#define RUN(out, ...)                                                       \
	test_benchgate(out, test_dir, NULL,                                 \
		       (const char *const[]){ __VA_ARGS__, "--no-color", NULL })

/* stdout is one JSON document with key at its top, and nothing else. */
static void assert_only_json(const struct test_output *out, const char *key)
{
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithOpts(out->out.buf, &end, 0);

	cr_assert_not_null(doc, "stdout is not JSON:\n%s", out->out.buf);
	cr_expect(cJSON_GetObjectItemCaseSensitive(doc, key), "no \"%s\" in %s",
		  key, out->out.buf);
	while (end && (*end == '\n' || *end == ' '))
		end++;
	cr_expect(end && !*end, "more than the document on stdout: %s", end);
	cJSON_Delete(doc);
}

static void assert_no_dash_file(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/-", test_dir);
	cr_expect_neq(access(path, F_OK), 0, "a file named '-' was written");
}

Test(streams, import_json_dash_is_the_result_alone_on_stdout)
{
	struct test_output out;

	peer_document("a.json", "1.0");
	RUN(&out, "import", "--format", "customSmallerIsBetter", "--store",
	    "store", "a.json", "--json", "-");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	assert_only_json(&out, "cases");
	cr_expect(strstr(out.err.buf, "stored "), "%s", out.err.buf);
	assert_no_dash_file();
	test_output_release(&out);
}

Test(streams, compare_json_dash_is_the_comparison_alone_on_stdout)
{
	struct test_output out;

	peer_document("a.json", "1.0");
	peer_document("b.json", "2.0");
	RUN(&out, "import", "--format", "customSmallerIsBetter", "--store",
	    "store", "a.json", "--json", "base.json");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, "import", "--format", "customSmallerIsBetter", "--store",
	    "store", "b.json", "--json", "cand.json");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, "compare", "base.json", "cand.json", "--json", "-");
	assert_only_json(&out, "benchgate_comparison");
	/* the table is still said, on stderr */
	cr_expect(strstr(out.err.buf, "spin"), "%s", out.err.buf);
	assert_no_dash_file();
	test_output_release(&out);
}

Test(streams, warnings_go_to_stderr_in_one_format)
{
	struct test_output out;

	peer_document("a.json", "1.0");
	RUN(&out, "import", "--format", "customSmallerIsBetter", "--store",
	    "store", "a.json", "--json", "base.json");
	test_output_release(&out);
	/* imported results record no gate settings: compare warns */
	RUN(&out, "compare", "base.json", "base.json");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_expect_null(strstr(out.out.buf, "warning"), "%s", out.out.buf);
	cr_expect(strstr(out.err.buf, "benchgate: warning: neither result "
				      "records"),
		  "%s", out.err.buf);
	for (const char *w = strstr(out.err.buf, "warning"); w;
	     w = strstr(w + 1, "warning"))
		cr_expect(w - out.err.buf >= 11 &&
				  !strncmp(w - 11, "benchgate: ", 11),
			  "%s", out.err.buf);
	test_output_release(&out);
}

/* A path that is stdout's file (/dev/stdout, /proc/self/fd/1) is stdout,
 * as "-" is: the document alone there, the prose on stderr. */
Test(streams, a_path_to_stdout_is_stdout)
{
	struct test_output out;

	peer_document("a.json", "1.0");
	RUN(&out, "import", "--format", "customSmallerIsBetter", "--store",
	    "store", "a.json", "--json", "/proc/self/fd/1");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	assert_only_json(&out, "cases");
	cr_expect(strstr(out.err.buf, "stored "), "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, "import", "--format", "customSmallerIsBetter", "--store",
	    "store", "a.json", "--json", "base.json");
	test_output_release(&out);
	RUN(&out, "compare", "base.json", "base.json", "--json",
	    "/proc/self/fd/1");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	assert_only_json(&out, "benchgate_comparison");
	test_output_release(&out);
	test_shell(test_dir, "git init -q -b main . && git -c user.name=t"
			     " -c user.email=t@e commit -q --allow-empty -m c");
	RUN(&out, "history", "--store", "store", "--json", "/proc/self/fd/1");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	assert_only_json(&out, "benchgate_history");
	cr_expect(strstr(out.err.buf, "history of main"), "%s", out.err.buf);
	test_output_release(&out);
}

/* --quiet: every command says nothing but errors and the verdict line. */
Test(streams, quiet_leaves_errors_and_the_verdict_line, .timeout = 240)
{
	static const char *const commands[][8] = {
		{ "init", "--python" },
		{ "validate" },
		{ "devices" },
		{ "run", "--runs", "2", "--store", "store" },
		{ "run", "--runs", "2", "--store", "store", "--json",
		  "r.json" },
		{ "check", "--runs", "2", "--store", "store" },
		{ "compare", "r.json", "r.json" },
		{ "report", "r.json", "--out", "rep" },
		{ "import", "--format", "customSmallerIsBetter", "--store",
		  "store", "a.json" },
		{ "merge", "r.json", "--store", "merged" },
		{ "history", "--store", "store" },
		{ "publish", "--store", "store", "--out", "site" },
		{ "baseline", "save", "r.json", "--to", "b.json" },
	};
	struct test_output out;

	peer_document("a.json", "1.0");
	test_shell(test_dir, "git init -q -b main .");
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++) {
		const char *argv[12] = { 0 };
		size_t n = 0;

		for (; commands[i][n]; n++)
			argv[n] = commands[i][n];
		argv[n++] = "--quiet";
		argv[n++] = "--no-color";
		test_benchgate(&out, test_dir, NULL, argv);
		cr_assert_eq(out.exit_code, 0, "%s: %s%s", argv[0],
			     out.out.buf, out.err.buf);
		cr_expect_eq(out.err.len, 0, "%s --quiet, stderr: %s", argv[0],
			     out.err.buf);
		if (!strcmp(argv[0], "check") || !strcmp(argv[0], "compare"))
			cr_expect(!strncmp(out.out.buf, "PASS: ", 6) &&
					  strchr(out.out.buf, '\n') ==
						  out.out.buf + out.out.len - 1,
				  "%s --quiet, stdout: %s", argv[0],
				  out.out.buf);
		else
			cr_expect_eq(out.out.len, 0, "%s --quiet, stdout: %s",
				     argv[0], out.out.buf);
		test_output_release(&out);
		if (i == 0)
			test_shell(test_dir,
				   "git add -A && git -c user.name=t -c "
				   "user.email=t@e commit -qm c");
	}
	/* an error still says why */
	RUN(&out, "validate", "nosuch.json", "--quiet");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "benchgate: error: "), "%s",
		  out.err.buf);
	test_output_release(&out);
}
