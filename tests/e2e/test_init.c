/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate init` in an empty directory that is not a git
 * repository writes a suite that validates and runs at once, and says
 * what to type next (harness/app/init.h).
 */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(init, .init = test_dir_setup, .fini = test_dir_teardown);

static void run_in(struct test_output *out, const char *dir,
		   const char *const *args)
{
	test_benchgate(out, dir, NULL, args);
}

/* A fresh directory below test_dir, named so the suite takes its name. */
static char *empty_dir(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *file;

	strbuf_addf(&path, "%s/%s", test_dir, name);
	file = test_write_file(path.buf, ".keep", "");
	remove(file);
	free(file);
	return strbuf_detach(&path, NULL);
}

static bool exists(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	bool found;

	strbuf_addf(&path, "%s/%s", dir, name);
	found = stat(path.buf, &st) == 0;
	strbuf_release(&path);
	return found;
}

Test(init, python_suite_runs_at_once_outside_a_repository)
{
	char *dir = empty_dir("my-project");
	struct test_output out;
	char *suite;

	run_in(&out, dir, (const char *[]){ "init", "--python", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "wrote benchgate.json, bench.py, "
				      "benchgate.py\n"),
		  "%s", out.out.buf);
	/* the next two commands, as they are typed */
	cr_assert(strstr(out.out.buf, "\n  benchgate run\n"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "\n  benchgate check\n"), "%s",
		  out.out.buf);
	test_output_release(&out);
	cr_assert(exists(dir, "bench.py") && exists(dir, "benchgate.py"));
	{
		struct strbuf path = STRBUF_INIT;

		strbuf_addf(&path, "%s/benchgate.json", dir);
		suite = test_read_file(path.buf);
		strbuf_release(&path);
	}
	cr_assert_not_null(suite);
	/* commented, with a schema for editors, named after the directory */
	cr_assert(!strncmp(suite, "// ", 3), "%s", suite);
	cr_assert(strstr(suite, "\"$schema\": "), "%s", suite);
	cr_assert(strstr(suite, "\"suite\": \"my-project\""), "%s", suite);
	free(suite);

	run_in(&out, dir, (const char *[]){ "validate", "benchgate.json", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	/* `benchgate run` as printed: no suite named, so benchgate.json */
	run_in(&out, dir,
	       (const char *[]){ "run", "--runs", "3", "--warmup", "0", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	/* the latencies bench.py recorded through the helper: 20 a run */
	cr_assert(strstr(out.out.buf, "example/default/cpu"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, " ms "), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "    60\n"), "%s", out.out.buf);
	cr_assert(exists(dir, ".benchgate/results/unknown"), "%s",
		  out.out.buf);
	test_output_release(&out);
	free(dir);
}

Test(init, command_suite_times_the_command_line)
{
	char *dir = empty_dir("cmd");
	struct test_output out;

	run_in(&out, dir,
	       (const char *[]){ "init", "--command",
				 "echo \"a b\" > out.txt", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "wrote benchgate.json\n"), "%s",
		  out.out.buf);
	test_output_release(&out);
	cr_assert(!exists(dir, "bench.py"));
	run_in(&out, dir,
	       (const char *[]){ "run", "benchgate.json", "--runs", "2",
				 "--warmup", "0", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "command/default/cpu"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "wall_time"), "%s", out.out.buf);
	test_output_release(&out);
	/* the quoted command line ran as written */
	{
		struct strbuf path = STRBUF_INIT;
		char *text;

		strbuf_addf(&path, "%s/out.txt", dir);
		text = test_read_file(path.buf);
		cr_assert_str_eq(text, "a b\n");
		free(text);
		strbuf_release(&path);
	}
	free(dir);
}

Test(init, existing_files_are_kept_and_named)
{
	char *dir = empty_dir("twice");
	char *suite = test_write_file(dir, "benchgate.json", "mine\n");
	struct test_output out;
	char *text;

	run_in(&out, dir, (const char *[]){ "init", NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "'benchgate.json' exists; --force "
				      "replaces it"),
		  "%s", out.err.buf);
	test_output_release(&out);
	text = test_read_file(suite);
	cr_assert_str_eq(text, "mine\n");
	free(text);
	cr_assert(!exists(dir, "bench.py"), "nothing is half-written");

	run_in(&out, dir, (const char *[]){ "init", "--force", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	text = test_read_file(suite);
	cr_assert(strstr(text, "\"benchgate\": 1"));
	free(text);
	free(suite);
	free(dir);
}

Test(init, a_command_without_a_suite_names_the_default_it_looked_for)
{
	struct test_output out;

	run_in(&out, test_dir, (const char *[]){ "run", NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "'benchgate.json'"), "%s", out.err.buf);
	test_output_release(&out);
}

Test(init, bad_options_are_refused_by_name)
{
	struct test_output out;

	run_in(&out, test_dir, (const char *[]){ "init", "--pyton", NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "unknown option '--pyton'"), "%s",
		  out.err.buf);
	test_output_release(&out);
	run_in(&out, test_dir, (const char *[]){ "init", "--command", NULL });
	cr_assert_eq(out.exit_code, 2);
	test_output_release(&out);
	run_in(&out, test_dir,
	       (const char *[]){ "init", "--python", "--command", "true",
				 NULL });
	cr_assert_eq(out.exit_code, 2);
	test_output_release(&out);
	cr_assert(!exists(test_dir, "benchgate.json"));
}
