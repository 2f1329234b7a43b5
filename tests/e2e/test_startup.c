/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: what benchgate loads at start-up (docs/performance.md,
 * "Where start-up goes"). libcurl is loaded with dlopen() by the commands
 * that talk to a server, never by the others: a benchmark that copies
 * its parent's memory map shows that a `run` has none of it mapped. A
 * command that needs libcurl where it cannot be loaded says so and what
 * to install.
 */
#include "harness/model/result.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(startup, .init = test_dir_setup, .fini = test_dir_teardown);

Test(startup, a_run_does_not_map_libcurl)
{
	struct result *result;
	char *maps;
	char maps_path[4096];

	/* the benchmark's parent is the benchgate that runs it */
	free(test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"maps\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
		"  \"benchmarks\": [ { \"name\": \"maps\",\n"
		"    \"shell\": \"cat /proc/$PPID/maps > parent-maps\",\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
	result = test_run_result(test_dir, "suite.json", NULL, 0);
	result_free(result);
	snprintf(maps_path, sizeof(maps_path), "%s/parent-maps", test_dir);
	maps = test_read_file(maps_path);
	cr_assert(maps, "the benchmark wrote no %s", maps_path);
	/* it is benchgate's map: the libraries every command needs */
	cr_assert(strstr(maps, "libgit2"), "%s", maps);
	cr_assert(strstr(maps, "libcjson"), "%s", maps);
	cr_assert_null(strstr(maps, "libcurl"), "%s", maps);
	free(maps);
}

/* A directory whose libcurl.so.4 is not a library, first on the loader's
 * path: dlopen() of libcurl fails as it does where none is installed. */
static char *broken_libcurl_env(void)
{
	size_t len = strlen(test_dir) + 32;
	char *env = malloc(len);

	cr_assert(env);
	free(test_write_file(test_dir, "lib/libcurl.so.4", "not a library\n"));
	snprintf(env, len, "LD_LIBRARY_PATH=%s/lib", test_dir);
	return env;
}

Test(startup, a_forge_command_without_libcurl_says_what_to_install)
{
	struct test_output out;
	char *env = broken_libcurl_env();
	const char *const envp[] = { env, "GITHUB_TOKEN=secret-token", NULL };

	free(test_write_file(test_dir, "report.md", "# report\n"));
	test_benchgate(&out, test_dir, envp,
		       (const char *const[]){
			       "comment", "--provider", "github", "--body",
			       "report.md", "--repo", "o/r", "--pr", "7",
			       "--api-url=http://127.0.0.1:9", NULL });
	cr_assert_neq(out.exit_code, 0, "%s", out.out.buf);
	cr_assert(strstr(out.err.buf, "cannot load libcurl"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "apt-get install libcurl4"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "libcurl.so.4"), "%s", out.err.buf);
	test_output_release(&out);

	/* the commands that need no server work as before */
	test_benchgate(&out, test_dir, envp,
		       (const char *const[]){ "--version", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, ", libcurl not found, "), "%s",
		  out.out.buf);
	test_output_release(&out);
	free(env);
}
