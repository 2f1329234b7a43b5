/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the man pages (man/) and the command reference pages
 * (docs/reference/commands/) are what `benchgate generate-docs` writes from
 * the commands' option tables today, so an option added or changed without
 * regenerating them fails here; and the man pages render.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(generated_docs, .init = test_dir_setup, .fini = test_dir_teardown);

static const char *const folders[] = { "man", "docs/reference/commands" };

/* The names in dir/folder, one per line after a space each. */
static void list_names(struct strbuf *out, const char *dir,
		       const char *folder)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	DIR *d;

	strbuf_addf(&path, "%s/%s", dir, folder);
	d = opendir(path.buf);
	cr_assert_not_null(d, "no %s", path.buf);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			strbuf_addf(out, " %s", e->d_name);
	closedir(d);
	strbuf_release(&path);
}

Test(generated_docs, the_committed_pages_are_what_the_tables_give)
{
	struct test_output out;

	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "generate-docs", ".", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	for (size_t f = 0; f < sizeof(folders) / sizeof(*folders); f++) {
		struct strbuf made = STRBUF_INIT, committed = STRBUF_INIT;
		char *name, *save = NULL;

		list_names(&made, test_dir, folders[f]);
		list_names(&committed, BENCHGATE_SOURCE_DIR, folders[f]);
		for (name = strtok_r(made.buf, " ", &save); name;
		     name = strtok_r(NULL, " ", &save)) {
			char path[4096], *want, *have;

			snprintf(path, sizeof(path), "%s/%s/%s", test_dir,
				 folders[f], name);
			want = test_read_file(path);
			snprintf(path, sizeof(path), "%s/%s/%s",
				 BENCHGATE_SOURCE_DIR, folders[f], name);
			have = test_read_file(path);
			cr_expect(have && !strcmp(want, have),
				  "%s/%s is out of date: run `benchgate "
				  "generate-docs .` in the source tree",
				  folders[f], name);
			free(want);
			free(have);
		}
		strbuf_release(&made);
		strbuf_release(&committed);
	}
	/* the commands' index, one source with the pages it links */
	{
		char path[4096], *want, *have;

		snprintf(path, sizeof(path), "%s/docs/reference/cli.md",
			 test_dir);
		want = test_read_file(path);
		have = test_read_file(BENCHGATE_SOURCE_DIR
				      "/docs/reference/cli.md");
		cr_assert_not_null(want, "generate-docs wrote no cli.md");
		cr_expect(have && !strcmp(want, have),
			  "docs/reference/cli.md is out of date: run "
			  "`benchgate generate-docs .` in the source tree");
		cr_expect(strstr(want, "(commands/check.md)"), "%s", want);
		free(want);
		free(have);
	}
}

Test(generated_docs, no_page_of_a_command_that_is_gone)
{
	struct strbuf made = STRBUF_INIT, committed = STRBUF_INIT;
	struct test_output out;
	char *name, *save = NULL;

	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "generate-docs", ".", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	list_names(&made, test_dir, "man");
	strbuf_addch(&made, ' ');
	list_names(&committed, BENCHGATE_SOURCE_DIR, "man");
	for (name = strtok_r(committed.buf, " ", &save); name;
	     name = strtok_r(NULL, " ", &save)) {
		char word[512];

		snprintf(word, sizeof(word), " %s ", name);
		cr_expect(strstr(made.buf, word), "man/%s is not generated",
			  name);
	}
	strbuf_release(&made);
	strbuf_release(&committed);
}

/* The text with each run of blanks made one space: man justifies. */
static void squeeze(char *text)
{
	char *to = text;

	for (const char *p = text; *p; p++)
		if (!(*p == ' ' && to > text && to[-1] == ' '))
			*to++ = *p;
	*to = '\0';
}

Test(generated_docs, the_man_page_of_check_renders)
{
	const char *env[] = { "MANPAGER=cat", "MANWIDTH=80", NULL };
	struct test_output out;

	if (access("/usr/bin/man", X_OK) != 0)
		cr_skip_test("man is not installed");
	test_run(&out, BENCHGATE_SOURCE_DIR, env,
		 (const char *const[]){ "/usr/bin/man", "-l",
					"man/benchgate-check.1", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	squeeze(out.out.buf);
	cr_expect(strstr(out.out.buf, "benchgate-check - run + find the "
				      "baseline"),
		  "%s", out.out.buf);
	cr_expect(strstr(out.out.buf, "--baseline-tree DIR"), "%s",
		  out.out.buf);
	cr_expect_eq(out.err.len, 0, "%s", out.err.buf);
	test_output_release(&out);
}
