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
