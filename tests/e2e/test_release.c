/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a release ships, as a user meets it: `benchgate --version`.
 */
#include "harness/cli/version.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

TestSuite(release, .init = test_dir_setup, .fini = test_dir_teardown);

Test(release, version_names_the_build_its_libraries_and_licence)
{
	struct test_output out;
	char expect[512];
	int major, minor, revision;

	RUN(&out, NULL, NULL, "--version");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	/* the version git describes (cmake/version.cmake), never empty */
	snprintf(expect, sizeof(expect), "benchgate %s\ncommit %s\n",
		 benchgate_version_full, benchgate_commit);
	cr_assert(!strncmp(out.out.buf, expect, strlen(expect)), "%s",
		  out.out.buf);
	cr_assert(strlen(benchgate_version_full) >= 5);
	cr_assert(!strncmp(benchgate_version_full, BENCHGATE_VERSION,
			   strlen(BENCHGATE_VERSION)),
		  "%s against %s", benchgate_version_full, BENCHGATE_VERSION);
	/* this tree is a git checkout: the commit is a full hash */
	cr_assert_eq(strspn(benchgate_commit, "0123456789abcdef"), 40, "%s",
		     benchgate_commit);
	/* the libraries' versions as loaded, as their own APIs say */
	git_libgit2_version(&major, &minor, &revision);
	snprintf(expect, sizeof(expect), "libgit2 %d.%d.%d, cJSON %s, libcurl %s",
		 major, minor, revision, cJSON_Version(),
		 curl_version_info(CURLVERSION_NOW)->version);
	cr_assert(strstr(out.out.buf, expect), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "\nlicense Apache-2.0 <"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf,
			 "\nhome https://github.com/benchgate/benchgate\n"),
		  "%s", out.out.buf);
	test_output_release(&out);

	/* the same text after a command, as every command takes --version */
	RUN(&out, NULL, NULL, "run", "--version");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "\nlicense Apache-2.0 <"), "%s",
		  out.out.buf);
	test_output_release(&out);
}
