/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a release ships, as a user meets it: `benchgate --version`, and the
 * tree `cmake --install` writes (docs/install.md), run from there with the
 * launcher found relative to the installed binary, and refused without it.
 */
#include "harness/cli/version.h"
#include "harness/forge/http.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	/* libcurl as benchgate loads it (dlopen), of the major version the
	 * headers are */
	cr_assert(http_library_version(), "%s", bg_error_last());
	cr_assert_eq(atoi(http_library_version()), LIBCURL_VERSION_MAJOR, "%s",
		     http_library_version());
	snprintf(expect, sizeof(expect),
		 "libgit2 %d.%d.%d, cJSON %s, libcurl %s", major, minor,
		 revision, cJSON_Version(), http_library_version());
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

static void assert_installed(const char *prefix, const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s/%s", prefix, path);
	cr_assert_eq(access(full, F_OK), 0, "not installed: %s", full);
}

Test(release, installed_tree_runs_and_needs_its_launcher)
{
	struct test_output out;
	char prefix[1024], bin[2048], launcher[4096], store[4096];
	char *suite;

	snprintf(prefix, sizeof(prefix), "%s/prefix", test_dir);
	test_run(&out, NULL, NULL,
		 (const char *const[]){ CMAKE_COMMAND_PATH, "--install",
					BENCHGATE_BUILD_DIR, "--prefix", prefix,
					NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	assert_installed(prefix, "bin/benchgate");
	assert_installed(prefix, "libexec/benchgate/benchgate-launch");
	assert_installed(prefix, "share/benchgate/gitlab/"
				 "benchgate.gitlab-ci.yml");
	assert_installed(prefix, "share/doc/benchgate/LICENSE");
	/* the Python helper, a module or a package */
	snprintf(bin, sizeof(bin), "%s/lib/python3/dist-packages/benchgate",
		 prefix);
	snprintf(launcher, sizeof(launcher), "%s.py", bin);
	cr_assert(access(bin, F_OK) == 0 || access(launcher, F_OK) == 0,
		  "not installed: %s", launcher);
	/* nothing of the build tree beside it */
	snprintf(bin, sizeof(bin), "%s/bin/benchgate-launch", prefix);
	cr_assert_neq(access(bin, F_OK), 0, "%s", bin);

	/* a suite measuring peak memory, which needs the launcher */
	suite = test_write_file(
		test_dir, "rss.json",
		"{\"benchgate\": 1, \"suite\": \"rss\","
		" \"defaults\": {\"runs\": 2, \"warmup\": 0},"
		" \"benchmarks\": [{\"name\": \"mb1\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/alloc_mb\", \"--mb\", \"1\"], \"metrics\": [{\"name\":"
		"   \"rss\", \"from\": \"rusage\", \"field\": \"maxrss\"}]}]}");
	snprintf(bin, sizeof(bin), "%s/bin/benchgate", prefix);
	snprintf(store, sizeof(store), "%s/store", test_dir);
	test_run(&out, test_dir, NULL,
		 (const char *const[]){ bin, "run", "rss.json", "--store",
					store, "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_null(strstr(out.err.buf, "launcher"), "%s", out.err.buf);
	test_output_release(&out);

	/* a copied binary without its launcher: exit 2 naming where it
	 * looked, not a figure that silently includes benchgate's memory */
	snprintf(launcher, sizeof(launcher),
		 "%s/bin/../libexec/benchgate/benchgate-launch", prefix);
	cr_assert_eq(unlink(launcher), 0, "%s", launcher);
	test_run(&out, test_dir, NULL,
		 (const char *const[]){ bin, "run", "rss.json", "--store",
					store, "--quiet", NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, launcher), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "is not installed"), "%s", out.err.buf);
	test_output_release(&out);
	free(suite);
}
