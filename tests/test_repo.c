/* SPDX-License-Identifier: Apache-2.0 */
/*
 * harness/git/repo: the one way into a repository. One discovery rule
 * (GIT_CEILING_DIRECTORIES honoured, by every command that reads git),
 * the default branch, the first-parent walk.
 */
#include "harness/git/repo.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(repo, .init = test_dir_setup, .fini = test_dir_teardown);

/* dir/repo with main: c0 <- c1 <- merge(c1, side) where side branches
 * off c0; and an empty dir/repo/sub. */
static git_repository *fixture(git_oid *c0, git_oid *c1, git_oid *side,
			       git_oid *merge)
{
	struct strbuf path = STRBUF_INIT;
	git_repository *repo;
	git_oid parents[2];

	strbuf_addf(&path, "%s/repo", test_dir);
	repo = test_git_init(path.buf);
	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, c0);
	test_git_commit(repo, "refs/heads/main", "c1", 1, c0, c1);
	test_git_commit(repo, "refs/heads/side", "side", 1, c0, side);
	parents[0] = *c1;
	parents[1] = *side;
	test_git_commit(repo, "refs/heads/main", "merge", 2, parents, merge);
	strbuf_addstr(&path, "/sub");
	cr_assert_eq(mkdir(path.buf, 0777), 0);
	strbuf_release(&path);
	return repo;
}

Test(repo, discovery_climbs_up_to_the_ceiling_and_no_further)
{
	struct strbuf sub = STRBUF_INIT, ceiling = STRBUF_INIT;
	git_repository *fixture_repo, *repo = NULL;
	git_oid c0, c1, side, merge;

	fixture_repo = fixture(&c0, &c1, &side, &merge);
	strbuf_addf(&sub, "%s/repo/sub", test_dir);
	unsetenv("GIT_CEILING_DIRECTORIES");
	cr_assert_eq(repo_open(&repo, sub.buf), 0, "from a subdirectory");
	git_repository_free(repo);

	/* the repository's own directory as the ceiling: the search from
	 * sub stops before it */
	strbuf_addf(&ceiling, "%s/repo", test_dir);
	setenv("GIT_CEILING_DIRECTORIES", ceiling.buf, 1);
	cr_assert_eq(repo_open(&repo, sub.buf), GIT_ENOTFOUND);
	cr_assert_null(repo);
	cr_assert_eq(repo_open(&repo, ceiling.buf), 0,
		     "the start directory itself is always looked at");
	git_repository_free(repo);
	cr_assert_eq(repo_open_at(&repo, sub.buf), GIT_ENOTFOUND,
		     "no search at all");
	unsetenv("GIT_CEILING_DIRECTORIES");
	git_repository_free(fixture_repo);
	strbuf_release(&sub);
	strbuf_release(&ceiling);
}

Test(repo, the_default_branch_and_its_first_parents)
{
	git_oid c0, c1, side, merge, oid;
	git_repository *repo = fixture(&c0, &c1, &side, &merge);
	const git_oid *expected[3] = { &merge, &c1, &c0 };
	git_object *tip = NULL;
	struct strbuf name = STRBUF_INIT;
	git_revwalk *walk = NULL;
	size_t n = 0;


	cr_assert_eq(repo_default_branch(repo, NULL, &tip, &name), BG_OK);
	cr_assert_str_eq(name.buf, "main");
	cr_assert(git_oid_equal(git_object_id(tip), &merge));
	git_object_free(tip);
	strbuf_reset(&name);
	cr_assert_eq(repo_default_branch(repo, "side", &tip, &name), BG_OK);
	cr_assert_str_eq(name.buf, "side");
	git_object_free(tip);
	cr_assert_eq(repo_default_branch(repo, "nope", &tip, &name), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "no branch 'nope'"), "%s",
		  bg_error_last());

	cr_assert_eq(repo_walk_first_parents(&walk, repo, &merge), 0);
	while (git_revwalk_next(&oid, walk) == 0) {
		cr_assert_lt(n, 3, "the side branch's commit was walked");
		cr_assert(git_oid_equal(&oid, expected[n]), "commit %zu", n);
		n++;
	}
	cr_assert_eq(n, 3);
	git_revwalk_free(walk);
	git_repository_free(repo);
	strbuf_release(&name);
}
