/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shape rules of the tree that no compiler checks (issue 21,
 * docs/development.md): a command file of harness/cli/ declares its
 * options and calls the app layer, so it stays under COMMAND_FILE_MAX
 * lines and no function of cli/ passes FUNCTION_MAX; and a repository is
 * opened or made only through harness/git/ (repo.h), under its one
 * discovery rule. Each rule is checked on the tree, and on a planted one
 * to show that it reports.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMMAND_FILE_MAX 100
#define FUNCTION_MAX	 80

/* The files matching root/pattern, each passed to check with found. */
static void each_file(const char *root, const char *pattern,
		      void (*check)(const char *root, const char *path,
				    const char *text, struct strbuf *found),
		      struct strbuf *found)
{
	struct strbuf full = STRBUF_INIT;
	glob_t files = { 0 };

	strbuf_addf(&full, "%s/%s", root, pattern);
	if (glob(full.buf, 0, NULL, &files) == 0) {
		for (size_t i = 0; i < files.gl_pathc; i++) {
			char *text = test_read_file(files.gl_pathv[i]);

			cr_assert_not_null(text, "%s", files.gl_pathv[i]);
			check(root, files.gl_pathv[i], text, found);
			free(text);
		}
	}
	globfree(&files);
	strbuf_release(&full);
}

static const char *relative(const char *root, const char *path)
{
	size_t len = strlen(root);

	return strncmp(path, root, len) ? path : path + len + 1;
}

static void command_size(const char *root, const char *path, const char *text,
			 struct strbuf *found)
{
	size_t lines = 0;

	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	if (lines > COMMAND_FILE_MAX)
		strbuf_addf(found, "%s: %zu lines, more than %d\n",
			    relative(root, path), lines, COMMAND_FILE_MAX);
}

/* Functions as the house style writes them: the body opens with '{' in
 * the first column and closes with '}' there. */
static void function_sizes(const char *root, const char *path,
			   const char *text, struct strbuf *found)
{
	size_t line = 1, opened = 0;

	for (const char *p = text; *p; p++) {
		bool start = p == text || p[-1] == '\n';

		if (start && *p == '{')
			opened = line;
		else if (start && *p == '}' && opened) {
			if (line - opened - 1 > FUNCTION_MAX)
				strbuf_addf(found,
					    "%s:%zu: a function of %zu lines, "
					    "more than %d\n",
					    relative(root, path), opened,
					    line - opened - 1, FUNCTION_MAX);
			opened = 0;
		}
		line += *p == '\n';
	}
}

static void repository_opening(const char *root, const char *path,
			       const char *text, struct strbuf *found)
{
	static const char *const calls[] = { "git_repository_open",
					     "git_repository_init" };
	const char *name = relative(root, path);

	if (!strncmp(name, "harness/git/", 12))
		return;
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		if (strstr(text, calls[i]))
			strbuf_addf(found,
				    "%s: calls %s; open repositories through "
				    "harness/git/repo.h\n",
				    name, calls[i]);
}

static void check_tree(const char *root, struct strbuf *found)
{
	static const char *const sources[] = { "harness/*/*.c",
					       "reporters/*.c" };

	each_file(root, "harness/cli/cmd_*.c", command_size, found);
	each_file(root, "harness/cli/*.c", function_sizes, found);
	for (size_t i = 0; i < sizeof(sources) / sizeof(*sources); i++)
		each_file(root, sources[i], repository_opening, found);
}

Test(tree_rules, the_tree_keeps_its_shape_rules)
{
	struct strbuf found = STRBUF_INIT;

	check_tree(BENCHGATE_SOURCE_DIR, &found);
	cr_assert_str_empty(found.buf, "%s", found.buf);
	strbuf_release(&found);
}

Test(tree_rules, a_long_command_a_long_function_and_a_stray_open_are_reported)
{
	char *root = test_tmpdir();
	struct strbuf found = STRBUF_INIT, text = STRBUF_INIT;

	strbuf_addstr(&text, "static int run(void)\n{\n");
	for (int i = 0; i < FUNCTION_MAX + 1; i++)
		strbuf_addstr(&text, "\tstep();\n");
	strbuf_addstr(&text, "}\n");
	free(test_write_file(root, "harness/cli/cmd_long.c", text.buf));
	free(test_write_file(root, "harness/store/store_x.c",
			     "\tgit_repository_open_bare(&r, path);\n"));
	free(test_write_file(root, "harness/git/repo.c",
			     "\tgit_repository_open_ext(&r, p, 0, NULL);\n"));
	check_tree(root, &found);
	cr_expect(strstr(found.buf, "harness/cli/cmd_long.c: 85 lines, more "
				    "than 100") == NULL &&
			  strstr(found.buf, "harness/cli/cmd_long.c:2: a "
					    "function of 81 lines, more than "
					    "80"),
		  "%s", found.buf);
	cr_expect(strstr(found.buf, "harness/store/store_x.c: calls "
				    "git_repository_open"),
		  "%s", found.buf);
	cr_expect(!strstr(found.buf, "harness/git/repo.c"), "%s", found.buf);
	strbuf_reset(&text);
	for (int i = 0; i < COMMAND_FILE_MAX + 1; i++)
		strbuf_addstr(&text, "/* a line */\n");
	free(test_write_file(root, "harness/cli/cmd_long.c", text.buf));
	strbuf_reset(&found);
	check_tree(root, &found);
	cr_expect(strstr(found.buf, "harness/cli/cmd_long.c: 101 lines, more "
				    "than 100"),
		  "%s", found.buf);
	strbuf_release(&found);
	strbuf_release(&text);
	test_rmtree(root);
	free(root);
}
