/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end, issue 21: the baselines committed under baselines/ (see
 * baselines/README.md) are results of the example suites, each named for
 * its suite and machine, and `check` with an empty store compares with
 * the one of its machine.
 */
#include "harness/model/result.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TestSuite(committed_baselines, .init = test_dir_setup,
	  .fini = test_dir_teardown);

/* Checks baselines/SUITE/MACHINE.json; returns whether it is one. */
static void check_baseline(const char *suite, const char *file)
{
	struct strbuf path = STRBUF_INIT, machine = STRBUF_INIT;
	struct result *result = NULL;
	struct stat st;
	size_t ok = 0;

	strbuf_addf(&path, "%s/baselines/%s/%s", BENCHGATE_SOURCE_DIR, suite,
		    file);
	strbuf_add(&machine, file, strlen(file) - strlen(".json"));
	cr_assert_eq(result_load(&result, path.buf), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(result->suite, suite, "%s", path.buf);
	cr_assert_str_eq(result->machine.id, machine.buf, "%s", path.buf);
	for (size_t i = 0; i < result->cases_nr; i++)
		ok += result->cases[i].status == CASE_OK;
	cr_assert_eq(ok, result->cases_nr, "%s: a failed case", path.buf);
	cr_assert_gt(ok, 0, "%s measured nothing", path.buf);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/suites/%s/suite.json", BENCHGATE_SOURCE_DIR,
		    suite);
	cr_assert_eq(stat(path.buf, &st), 0, "no example suite %s", suite);
	result_free(result);
	strbuf_release(&path);
	strbuf_release(&machine);
}

Test(committed_baselines, each_is_a_result_of_its_suite_and_machine)
{
	struct strbuf dir = STRBUF_INIT;
	DIR *suites, *files;
	struct dirent *s, *f;
	size_t nr = 0;

	strbuf_addf(&dir, "%s/baselines", BENCHGATE_SOURCE_DIR);
	cr_assert_not_null(suites = opendir(dir.buf), "%s", dir.buf);
	while ((s = readdir(suites))) {
		size_t len = dir.len;

		if (s->d_name[0] == '.' || !strcmp(s->d_name, "README.md"))
			continue;
		strbuf_addf(&dir, "/%s", s->d_name);
		cr_assert_not_null(files = opendir(dir.buf), "%s", dir.buf);
		while ((f = readdir(files))) {
			size_t n = strlen(f->d_name);

			if (f->d_name[0] == '.')
				continue;
			cr_assert(n > 5 && !strcmp(f->d_name + n - 5, ".json"),
				  "%s/%s is not a result", dir.buf, f->d_name);
			check_baseline(s->d_name, f->d_name);
			nr++;
		}
		closedir(files);
		strbuf_setlen(&dir, len);
	}
	closedir(suites);
	cr_assert_geq(nr, 1, "no committed baseline");
	strbuf_release(&dir);
}

/* No stored result: `check` falls back to the committed baseline of its
 * machine (the id pinned as baselines/README.md says). Its verdict on a
 * machine busy with other tests is not the point: which baseline it
 * compared with is. */
Test(committed_baselines, check_with_an_empty_store_uses_the_committed_one)
{
	const char *env[] = { "BENCHGATE_MACHINE_ID=linux-x86_64-2cpu", NULL };
	struct strbuf store = STRBUF_INIT;
	struct test_output out;

	strbuf_addf(&store, "%s/store", test_dir);
	test_benchgate(&out, BENCHGATE_SOURCE_DIR, env,
		       (const char *const[]){
			       "check", "suites/mlp-variants/suite.json",
			       "--runs", "2", "--warmup", "0", "--filter",
			       "*/original/cpu", "--build-dir",
			       BENCHGATE_BUILD_DIR, "--store", store.buf,
			       NULL });
	cr_assert(out.exit_code == 0 || out.exit_code == 1, "%s%s",
		  out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf,
			 "committed baseline " BENCHGATE_SOURCE_DIR
			 "/baselines/mlp-variants/linux-x86_64-2cpu.json") ||
			  strstr(out.out.buf, "committed baseline ./baselines"),
		  "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	strbuf_release(&store);
}
