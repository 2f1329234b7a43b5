/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate bisect` on a generated repository of 64 commits
 * on main whose benchmark sleeps as long as the file `delay` of the tree
 * says, made slow by one planted commit; one commit between cannot be
 * built. The repository is made with the git program. The benchmark
 * sleeps rather than computes, so the test costs little CPU and the
 * machine's load hardly moves what it measures.
 */
#include "harness/util/strbuf.h"

#include "pgserver.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMMITS 64
#define PLANTED 37 /* the first slow commit: c37 */
#define BROKEN	39 /* its tree cannot be built: the search meets it */

static struct test_git_area area;
static char hex[COMMITS][41];

/*
 * repo/: c0 .. c63 on main, each changing `counter`; c37 "slow" (by
 * Planter) makes `delay` 0.25 s from 0.05 s (a step far beyond what a
 * busy machine adds to starting a process); c39 adds a file `broken`
 * that c40 removes, and the build command fails while it is there.
 */
static void setup(void)
{
	struct strbuf script = STRBUF_INIT;

	strbuf_addf(
		&script,
		"cat > suite.json <<'EOF'\n"
		"{ \"benchgate\": 1, \"suite\": \"naps\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 8, "
		"\"threshold\": \"50%%\" },\n"
		"  \"benchmarks\": [ { \"name\": \"nap\",\n"
		"    \"shell\": \"sleep $(cat ${suite_dir}/delay)\",\n"
		"    \"metrics\": [ { \"name\": \"wall_time\", "
		"\"from\": \"wall\" } ] } ] }\n"
		"EOF\n"
		"echo build/ > .gitignore\n"
		"echo 0.05 > delay\n"
		"i=0\n"
		"while [ $i -lt %d ]; do\n"
		"  echo $i > counter\n"
		"  if [ $i = %d ]; then touch broken; fi\n"
		"  if [ $i = %d ]; then rm broken; fi\n"
		"  if [ $i = %d ]; then\n"
		"    echo 0.25 > delay\n"
		"    git add -A && GIT_AUTHOR_NAME=Planter "
		"GIT_AUTHOR_EMAIL=planter@example.invalid git commit -qm slow\n"
		"  else\n"
		"    git add -A && git commit -qm c$i\n"
		"  fi\n"
		"  i=$((i + 1))\n"
		"done\n"
		"git log --first-parent --reverse --format=%%H > ../ids\n",
		COMMITS, BROKEN, BROKEN + 1, PLANTED);
	test_git_area_init(&area, script.buf);
	strbuf_release(&script);
	test_read_commit_ids(area.dir, "ids", hex, COMMITS);
}

static void teardown(void)
{
	test_git_area_release(&area);
}

TestSuite(bisect, .init = setup, .fini = teardown, .timeout = 180);

/* The commit folders of a directory store: in its shards, the
 * directories named by two hex digits. */
static int commit_folders(const char *store)
{
	DIR *d = opendir(store);
	struct dirent *e;
	char shard[PATH_MAX];
	int nr = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (strlen(e->d_name) != 2 || e->d_name[0] == '.')
			continue;
		snprintf(shard, sizeof(shard), "%s/%s", store, e->d_name);
		nr += test_count_entries(shard, 40);
	}
	closedir(d);
	return nr;
}

static void bisect(struct test_output *out, const char *good, const char *bad,
		   const char *build)
{
	test_benchgate(out, area.repo, area.env,
		       (const char *const[]){ "bisect", "suite.json", "--good",
					      good, "--bad", bad, "--build",
					      build, NULL });
}

Test(bisect, names_the_planted_commit_and_skips_the_one_that_fails_to_build)
{
	struct test_output out;
	char expected[256], path[4600];

	bisect(&out, hex[0], hex[COMMITS - 1], "test ! -e broken");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	snprintf(expected, sizeof(expected),
		 "first bad commit: %s \"slow\" by Planter "
		 "<planter@example.invalid>, ",
		 hex[PLANTED]);
	cr_assert(strstr(out.out.buf, expected), "%s\n%s", expected,
		  out.out.buf);
	snprintf(expected, sizeof(expected),
		 "  %.12s skipped the build exited with status 1", hex[BROKEN]);
	cr_assert(strstr(out.out.buf, expected), "%s\n%s", expected,
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "nap/default/cpu wall_time: "),
		  "%s", out.out.buf);
	/* the two ends and log2(64) = 6 between, the skipped one aside:
	 * each measured commit's result is in the store under its id */
	cr_assert(strstr(out.out.buf, "(the ends included), 8 measured, "
				      "1 skipped"),
		  "%s", out.out.buf);
	snprintf(path, sizeof(path), "%s/.benchgate/results", area.repo);
	cr_assert_eq(commit_folders(path), 8,
		     "one result per measured commit");
	snprintf(path, sizeof(path), "%s/.benchgate/results/%.2s/%s",
		 area.repo, hex[PLANTED], hex[PLANTED]);
	cr_assert_eq(test_count_entries(path, 0), 1,
		     "the planted commit's result");
	cr_assert(strstr(out.err.buf, "bisect: 64 commits from good"),
		  "progress on stderr: %s", out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the checkouts are gone");
	test_output_release(&out);
}

/* The same bisection with its results in PostgreSQL, the store named by
 * BENCHGATE_STORE alone: one result per measured commit in the database,
 * nothing in the repository's default store. */
Test(bisect, names_the_planted_commit_with_a_postgresql_store)
{
	struct pgserver pg;
	struct strbuf store_env = STRBUF_INIT, path = STRBUF_INIT;
	struct test_output out;
	char expected[256];

	pgserver_start(&pg);
	strbuf_addf(&store_env, "BENCHGATE_STORE=%s", pg.url);
	test_benchgate(&out, area.repo, NULL,
		       (const char *const[]){ "store", "init", pg.url, NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	{
		const char *env[] = { area.tmpdir_env, area.lock_env,
				      store_env.buf, NULL };

		test_benchgate(&out, area.repo, env,
			       (const char *const[]){
				       "bisect", "suite.json", "--good", hex[0],
				       "--bad", hex[COMMITS - 1], "--build",
				       "test ! -e broken", NULL });
	}
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	snprintf(expected, sizeof(expected), "first bad commit: %s \"slow\"",
		 hex[PLANTED]);
	cr_assert(strstr(out.out.buf, expected), "%s\n%s", expected,
		  out.out.buf);
	test_output_release(&out);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(DISTINCT commit) FROM"
					 " benchgate_results"),
		     8);
	strbuf_addf(&path, "%s/.benchgate/results", area.repo);
	cr_assert_leq(test_count_entries(path.buf, 40), 0,
		      "nothing in the default store");
	pgserver_free(&pg);
	strbuf_release(&store_env);
	strbuf_release(&path);
}

Test(bisect, bad_input_exits_2_naming_it)
{
	struct test_output out;

	bisect(&out, hex[5], hex[2], "true");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "is not on the first-parent history"),
		  "%s", out.err.buf);
	test_output_release(&out);

	bisect(&out, "no-such-rev", hex[2], "true");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--good: 'no-such-rev' names no commit"),
		  "%s", out.err.buf);
	test_output_release(&out);

	/* nothing regressed between two fast commits (the suite's 50 %
	 * threshold is far above what the machine's load does to a nap) */
	bisect(&out, hex[0], hex[3], "true");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "nothing to bisect"), "%s", out.err.buf);
	test_output_release(&out);

	/* the bad end cannot be built */
	bisect(&out, hex[0], hex[BROKEN], "test ! -e broken");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "cannot be measured: the build exited "
				      "with status 1"),
		  "%s", out.err.buf);
	test_output_release(&out);

	/* a build that hangs is killed at --build-timeout, not waited for */
	{
		test_benchgate(&out, area.repo, area.env,
			       (const char *const[]){
				       "bisect", "suite.json", "--good", hex[0],
				       "--bad", hex[3], "--build", "sleep 600",
				       "--build-timeout", "1", NULL });
	}
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "cannot be measured: the build timed "
				      "out"),
		  "%s", out.err.buf);
	test_output_release(&out);

	/* a build directory whose place in each checkout is unknown */
	test_benchgate(
		&out, area.repo, (const char *const[]){ area.tmpdir_env, NULL },
		(const char *const[]){ "bisect", "suite.json", "--good", hex[0],
				       "--bad", hex[9], "--build", "true",
				       "--build-dir", area.scratch, NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "the build directory '"),
		  "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "scratch' is not in a git work tree, "
				      "so its place in the commits is "
				      "unknown"),
		  "%s", out.err.buf);
	test_output_release(&out);

	test_benchgate(&out, area.repo, NULL,
		       (const char *const[]){ "bisect", "suite.json", "--good",
					      hex[0], NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--good, --bad and --build are "
				      "required"),
		  "%s", out.err.buf);
	test_output_release(&out);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the checkouts are gone");
}

Test(bisect, an_interrupted_bisect_leaves_no_checkout)
{
	struct test_output out;

	/* the build's shell is benchgate's child: it interrupts benchgate */
	bisect(&out, hex[0], hex[COMMITS - 1], "kill -INT $PPID; sleep 5");
	cr_assert_eq(out.exit_code, -1, "ended by the signal: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the checkouts are gone");
	test_output_release(&out);
}

Test(bisect, listed_by_help)
{
	struct test_output out;

	test_benchgate(&out, NULL, NULL, (const char *const[]){ "--help", NULL });
	cr_assert(strstr(out.out.buf, "  bisect "), "%s", out.out.buf);
	test_output_release(&out);
	test_benchgate(&out, NULL, NULL,
		       (const char *const[]){ "bisect", "--help", NULL });
	cr_assert_eq(out.exit_code, 0);
	cr_assert(strstr(out.out.buf, "--good REV"), "%s", out.out.buf);
	test_output_release(&out);
}
