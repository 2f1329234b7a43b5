/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/git/repo.h"

#include "harness/git/gitref.h"
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

/* The first of the candidates that names an object, into *out and name;
 * BG_ENOTFOUND (no message) when none does. */
static int find_first(git_repository *repo, const char *const *candidates,
		      git_object **out, struct strbuf *name)
{
	for (; *candidates; candidates++) {
		if (git_revparse_single(out, repo, *candidates) == 0) {
			strbuf_addstr(name, *candidates);
			return BG_OK;
		}
	}
	return BG_ENOTFOUND;
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
	int error;

	if (branch) {
		strbuf_addf(&remote, "origin/%s", branch);
		named[0] = remote.buf;
		named[1] = branch;
		candidates = named;
	}
	error = find_first(repo, candidates, out, name);
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

int repo_merge_base(git_commit **out, struct strbuf *name,
		    git_repository *repo, const char *ref)
{
	struct strbuf remote = STRBUF_INIT;
	const char *candidates[] = { remote.buf, ref, NULL };
	git_object *object = NULL, *target = NULL, *head = NULL;
	git_oid base;
	int error = BG_OK;

	*out = NULL;
	strbuf_addf(&remote, "origin/%s", ref);
	candidates[0] = remote.buf;
	if (find_first(repo, candidates, &object, name) < 0 ||
	    git_object_peel(&target, object, GIT_OBJECT_COMMIT) < 0) {
		error = bg_input_error("--against: '%s' names no commit of "
				       "the repository (nor does 'origin/%s')",
				       ref, ref);
		goto done;
	}
	if (git_revparse_single(&head, repo, "HEAD") < 0) {
		error = bg_input_error("--against: HEAD names no commit: %s",
				       gitref_message());
		goto done;
	}
	if (git_merge_base(&base, repo, git_object_id(head),
			   git_object_id(target)) < 0) {
		error = bg_input_error("--against: HEAD and '%s' have no "
				       "common history here (a shallow "
				       "clone? fetch the history, as "
				       "fetch-depth: 0 does): %s",
				       name->buf, gitref_message());
		goto done;
	}
	if (git_commit_lookup(out, repo, &base) < 0)
		error = bg_error("cannot read the merge base %s: %s",
				 git_oid_tostr_s(&base), gitref_message());
done:
	git_object_free(object);
	git_object_free(target);
	git_object_free(head);
	strbuf_release(&remote);
	return error;
}
