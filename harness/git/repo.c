/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/git/repo.h"

#include "harness/util/error.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_once_t libgit2_once = PTHREAD_ONCE_INIT;

static void libgit2_init_once(void)
{
	/* A failure here resurfaces as an error of the first real call. */
	git_libgit2_init();
}

void repo_libgit2_init(void)
{
	pthread_once(&libgit2_once, libgit2_init_once);
}

int repo_open(git_repository **out, const char *start_dir)
{
	*out = NULL;
	repo_libgit2_init();
	/* The ceilings are the one variable worth honouring: they stop the
	 * search from escaping a sandbox (tests, nested checkouts). */
	return git_repository_open_ext(out, start_dir ? start_dir : ".", 0,
				       getenv("GIT_CEILING_DIRECTORIES"));
}

int repo_open_at(git_repository **out, const char *path)
{
	*out = NULL;
	repo_libgit2_init();
	return git_repository_open_ext(out, path,
				       GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
}

int repo_default_branch(git_repository *repo, const char *branch,
			git_object **out, struct strbuf *name)
{
	const char *defaults[] = { "refs/remotes/origin/HEAD",
				   "main",
				   "master",
				   "origin/main",
				   "origin/master",
				   NULL };
	const char *named[] = { NULL, NULL, NULL };
	struct strbuf remote = STRBUF_INIT;
	const char *const *candidates = defaults;
	int error = BG_ENOTFOUND;

	if (branch) {
		strbuf_addf(&remote, "origin/%s", branch);
		named[0] = remote.buf;
		named[1] = branch;
		candidates = named;
	}
	for (; *candidates; candidates++) {
		if (git_revparse_single(out, repo, *candidates) == 0) {
			strbuf_addstr(name, *candidates);
			error = BG_OK;
			break;
		}
	}
	strbuf_release(&remote);
	if (error && branch)
		return bg_input_error("--branch: no branch '%s' (nor "
				      "'origin/%s') in the repository",
				      branch, branch);
	return error;
}

int repo_walk_first_parents(git_revwalk **out, git_repository *repo,
			    const git_oid *from)
{
	int error;

	*out = NULL;
	if ((error = git_revwalk_new(out, repo)) < 0 ||
	    (error = git_revwalk_push(*out, from)) < 0) {
		git_revwalk_free(*out);
		*out = NULL;
		return error;
	}
	git_revwalk_simplify_first_parent(*out);
	return 0;
}
