/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: results kept in a repository of their own. `benchgate sync
 * --remote URL` (a path or a file:// URL of a bare repository) pushes the
 * results branch there and fetches it back into another clone, while the
 * code's remote never sees the branch, so a clone of the code never
 * fetches a result.
 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN(out, cwd, ...)                \
	test_benchgate((out), (cwd), NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

static char *dir;

static void setup(void)
{
	dir = test_tmpdir();
	git_libgit2_init();
	/* the code's remote with one commit, and an empty results
	 * repository */
	test_shell(dir, "git init -q --bare code.git\n"
			"git init -q --bare results.git\n"
			"git init -q -b main work\n"
			"cd work\n"
			"git -c user.name=t -c user.email=t@t commit -q "
			"--allow-empty -m one\n"
			"git remote add origin ../code.git\n"
			"git push -q origin main\n");
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
	git_libgit2_shutdown();
}

TestSuite(results_repo, .init = setup, .fini = teardown, .timeout = 120);

/* The results in the git:benchgate-results store of the clone at rel. */
static size_t results_in(const char *rel)
{
	struct strbuf path = STRBUF_INIT;
	struct store_entry *entries = NULL;
	struct store *store = NULL;
	size_t nr = 0;

	strbuf_addf(&path, "%s/%s", dir, rel);
	cr_assert_eq(chdir(path.buf), 0);
	cr_assert_eq(store_open(&store, "git:benchgate-results"), 0);
	cr_assert_eq(store_list(store, NULL, &entries, &nr), 0);
	store_entries_free(entries, nr);
	store_free(store);
	strbuf_release(&path);
	return nr;
}

Test(results_repo, a_url_remote_keeps_results_out_of_the_code_clones)
{
	struct strbuf url = STRBUF_INIT, work = STRBUF_INIT;
	struct test_output out;
	struct store *store = NULL;
	git_oid head;
	git_repository *repo = NULL;

	strbuf_addf(&work, "%s/work", dir);
	cr_assert_eq(git_repository_open(&repo, work.buf), 0);
	cr_assert_eq(git_reference_name_to_id(&head, repo, "HEAD"), 0);
	git_repository_free(repo);
	cr_assert_eq(chdir(work.buf), 0);
	cr_assert_eq(store_open(&store, "git:benchgate-results"), 0);
	test_store_series_at(store, &head, "0123456789abcdef", 10);
	store_free(store);

	strbuf_addf(&url, "%s/results.git", dir);
	RUN(&out, work.buf, "sync", "--remote", url.buf);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "pushed"), "%s", out.out.buf);
	test_output_release(&out);

	/* the results repository has the branch, the code's has not, and a
	 * clone of the code gets no result */
	test_shell(dir, "git --git-dir=results.git rev-parse -q --verify "
			"refs/heads/benchgate-results\n"
			"test -z \"$(git --git-dir=code.git for-each-ref "
			"refs/heads/benchgate-results)\"\n"
			"git clone -q code.git clone\n"
			"test -z \"$(git -C clone for-each-ref | grep "
			"benchgate-results)\"\n");
	cr_assert_eq(results_in("clone"), 0);

	/* another job's clone fetches the results from the URL */
	strbuf_reset(&url);
	strbuf_addf(&url, "file://%s/results.git", dir);
	strbuf_reset(&work);
	strbuf_addf(&work, "%s/clone", dir);
	RUN(&out, work.buf, "sync", "--remote", url.buf);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "fetched"), "%s", out.out.buf);
	test_output_release(&out);
	cr_assert_eq(results_in("clone"), 1);
	test_shell(dir, "test -z \"$(git --git-dir=code.git for-each-ref "
			"refs/heads/benchgate-results)\"\n");

	RUN(&out, work.buf, "sync", "--remote", "nosuchremote");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "no remote 'nosuchremote'"), "%s",
		  out.err.buf);
	test_output_release(&out);
	strbuf_release(&url);
	strbuf_release(&work);
}

/* Runs benchgate in dir/<cwd> with the local copies of results
 * repositories under dir/<cache>. */
static void run_cached(struct test_output *out, const char *cwd,
		       const char *cache, const char *const *args)
{
	struct strbuf where = STRBUF_INIT, env = STRBUF_INIT;
	const char *envp[] = { env.buf, NULL };

	strbuf_addf(&where, "%s/%s", dir, cwd);
	strbuf_addf(&env, "XDG_CACHE_HOME=%s/%s", dir, cache);
	envp[0] = env.buf;
	test_benchgate(out, where.buf, envp, args);
	strbuf_release(&where);
	strbuf_release(&env);
}

#define RUN_CACHED(out, cwd, cache, ...) \
	run_cached((out), (cwd), (cache), \
		   (const char *const[]){ __VA_ARGS__, NULL })

/* A suite of one quick case in the clone at rel, committed. */
static void add_suite(const char *rel)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/%s", dir, rel);
	free(test_write_file(path.buf, "suite.json",
			     "{ \"benchgate\": 1, \"suite\": \"demo\", "
			     "\"defaults\": { \"warmup\": 0, \"runs\": 2 }, "
			     "\"benchmarks\": [{ \"name\": \"nap\", "
			     "\"command\": [\"true\"], \"metrics\": [{ "
			     "\"name\": \"wall_time\", \"from\": \"wall\" "
			     "}] }] }\n"));
	strbuf_release(&path);
}

/*
 * --store git:URL#BRANCH: a run stores its result straight into a bare
 * results repository of its own (path or file:// URL), logs included,
 * in its shard; the code's repository and its clones never get a result
 * object or ref; a second runner with its own local copy adds its result
 * beside the first; and a copy out of it and back into another results
 * repository is byte for byte the same.
 */
Test(results_repo, a_git_url_store_round_trips_through_a_bare_repository)
{
	struct strbuf spec = STRBUF_INIT, file_spec = STRBUF_INIT;
	struct strbuf other = STRBUF_INIT;
	struct test_output out;

	strbuf_addf(&spec, "git:%s/results.git#bench", dir);
	strbuf_addf(&file_spec, "git:file://%s/results.git#bench", dir);
	add_suite("work");
	RUN_CACHED(&out, "work", "cache-a", "run", "suite.json", "--store",
		   spec.buf, "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	/* in the results repository, in its shard, with its log; nowhere in
	 * the code's repositories */
	test_shell(dir,
		   "c=$(git -C work rev-parse HEAD) s=$(echo $c | cut -c1-2)\n"
		   "git --git-dir=results.git ls-tree -r --name-only bench "
		   "> files\n"
		   "test $(grep -c \"^$s/$c/[0-9a-f]*/demo-.*Z.json$\" files) "
		   "= 1\n"
		   "grep -q \"^$s/$c/[0-9a-f]*/logs/demo-.*/nap__default__cpu"
		   ".log$\" files\n"
		   "blob=$(git --git-dir=results.git rev-parse "
		   "\"bench:$(grep json files)\")\n"
		   "! git -C work cat-file -e $blob 2>/dev/null\n"
		   "test -z \"$(git -C work for-each-ref | grep bench)\"\n"
		   "test -z \"$(git --git-dir=code.git for-each-ref | grep "
		   "bench)\"\n"
		   "git clone -q code.git clone\n"
		   "! git -C clone cat-file -e $blob 2>/dev/null\n");

	/* a second runner, another clone and local copy, by file:// URL */
	add_suite("clone");
	RUN_CACHED(&out, "clone", "cache-b", "run", "suite.json", "--store",
		   file_spec.buf, "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	test_shell(dir, "test $(git --git-dir=results.git ls-tree -r "
			"--name-only bench | grep -c 'json$') = 2\n");

	/* the first runner's copy sees both; a round trip through another
	 * bare repository gives the same files */
	test_shell(dir, "git init -q --bare other.git\n");
	strbuf_addf(&other, "git:%s/other.git#kept", dir);
	RUN_CACHED(&out, "work", "cache-a", "store", "copy", "--from",
		   spec.buf, "--to", "out1");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "2 results: 2 copied"), "%s",
		  out.out.buf);
	test_output_release(&out);
	RUN_CACHED(&out, "work", "cache-a", "store", "copy", "--from", "out1",
		   "--to", other.buf);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	RUN_CACHED(&out, "work", "cache-c", "store", "copy", "--from",
		   other.buf, "--to", "out2");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	test_shell(dir, "diff -r -x '.*' work/out1 work/out2\n"
			"test $(find work/out2 -name '*.json' | wc -l) = 2\n"
			"test $(git --git-dir=other.git ls-tree -r "
			"--name-only kept | wc -l) = 4\n"
			/* the copy's two results: one commit, pushed */
			"test $(git --git-dir=other.git rev-list --count "
			"kept) = 1\n");
	strbuf_release(&spec);
	strbuf_release(&file_spec);
	strbuf_release(&other);
}

/* A results repository that cannot be reached: the run keeps its result
 * in a file (exit 4), and the local copy does not keep it too, so that
 * storing the file later does not store it twice. */
Test(results_repo, an_unreachable_results_repository_keeps_the_result_aside)
{
	struct strbuf spec = STRBUF_INIT;
	struct test_output out;

	strbuf_addf(&spec, "git:%s/nowhere.git#bench", dir);
	add_suite("work");
	RUN_CACHED(&out, "work", "cache", "run", "suite.json", "--store",
		   spec.buf, "--quiet");
	cr_assert_eq(out.exit_code, 4, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "nowhere.git"), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "the result was not stored"), "%s",
		  out.err.buf);
	test_output_release(&out);
	test_shell(dir, "ls work/benchgate-unstored-demo-*.json\n"
			"for copy in cache/benchgate/git-*; do\n"
			"  test -z \"$(git --git-dir=$copy for-each-ref "
			"refs/heads)\"\n"
			"done\n");

	RUN_CACHED(&out, "work", "cache", "history", "--store",
		   "git:/nowhere#", "--branch", "main");
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "not a valid branch name"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN_CACHED(&out, "work", "cache", "history", "--store",
		   "git:/srv/results.git", "--branch", "main");
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "(git:URL#BRANCH)"), "%s", out.err.buf);
	test_output_release(&out);
	strbuf_release(&spec);
}
