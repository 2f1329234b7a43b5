/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `check` proves its outputs before it measures. A missing
 * directory of --json or --report is created; one that cannot be made or
 * written is exit 2 before the first run (the benchmark never starts);
 * and when one output fails after measuring, the others are still
 * written.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN(out, ...)                                 \
	test_benchgate((out), test_dir, NULL,         \
		       (const char *const[]){ __VA_ARGS__, NULL })

TestSuite(check_outputs, .init = test_dir_setup, .fini = test_dir_teardown);

/* A suite whose benchmark leaves ran.txt behind when it runs. */
static void write_suite(void)
{
	free(test_write_file(
		test_dir, "suite.json",
		"{\"benchgate\": 1, \"suite\": \"outputs\","
		" \"defaults\": {\"runs\": 2, \"warmup\": 0},"
		" \"benchmarks\": [{\"name\": \"touch\","
		"  \"command\": [\"/bin/sh\", \"-c\", \"echo x >> ran.txt\"],"
		"  \"metrics\": [{\"name\": \"wall\", \"from\": \"wall\"}]}]}\n"));
}

static bool exists(const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	return stat(path, &st) == 0;
}

Test(check_outputs, a_missing_json_directory_is_created)
{
	struct test_output out;

	write_suite();
	RUN(&out, "check", "suite.json", "--store", "store", "--json",
	    "deep/er/cmp.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(exists("deep/er/cmp.json"));
	test_output_release(&out);
}

Test(check_outputs, an_unwritable_json_is_exit_2_before_measuring)
{
	struct test_output out;

	write_suite();
	free(test_write_file(test_dir, "blocker", "a file, not a directory\n"));
	RUN(&out, "check", "suite.json", "--store", "store", "--json",
	    "blocker/cmp.json");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "--json 'blocker/cmp.json'"), "%s",
		  out.err.buf);
	cr_assert_not(exists("ran.txt"), "the benchmark ran first");
	cr_assert_not(exists("store"), "a result was stored");
	test_output_release(&out);

	RUN(&out, "check", "suite.json", "--store", "store", "--report",
	    "blocker/reports");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "--report 'blocker/reports'"), "%s",
		  out.err.buf);
	cr_assert_not(exists("ran.txt"), "the benchmark ran first");
	test_output_release(&out);
}

Test(check_outputs, a_json_path_that_is_a_directory_is_exit_2)
{
	struct test_output out;
	char taken[4096];

	write_suite();
	snprintf(taken, sizeof(taken), "%s/taken", test_dir);
	cr_assert_eq(mkdir(taken, 0777), 0);
	RUN(&out, "check", "suite.json", "--store", "store", "--json",
	    "taken");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "is a directory"), "%s", out.err.buf);
	cr_assert_not(exists("ran.txt"));
	test_output_release(&out);
}
