/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_REPO_H
#define BENCHGATE_REPO_H

#include "harness/util/strbuf.h"

#include <git2.h>

/*
 * The one way into a repository: every module that reads git opens it
 * here, under one discovery rule, and walks and names its branches the
 * same way. A command opens the repository once where it can and passes
 * the handle down.
 */

/* Initialises libgit2 once per process (thread-safe, idempotent). Every
 * function of harness/git/ calls it; other modules call it before their
 * first libgit2 call. libgit2 stays initialised until the process exits. */
void repo_libgit2_init(void);

/*
 * Opens the repository containing start_dir (NULL: the current
 * directory) into *out (free with git_repository_free()), discovered as
 * git does: from start_dir upwards, stopping at a file system boundary
 * and at the directories of GIT_CEILING_DIRECTORIES. GIT_DIR is not
 * consulted: the start directory decides, so `benchgate run` in a suite's
 * checkout describes that checkout even when started from a git hook (and
 * libgit2 1.5 fails outright with GIT_REPOSITORY_OPEN_FROM_ENV when
 * GIT_WORK_TREE is set). Initialises libgit2.
 *
 * libgit2's code when it fails (GIT_ENOTFOUND outside any repository),
 * with its message in gitref_message(); no message is recorded, as each
 * caller says what it needed the repository for.
 */
int repo_open(git_repository **out, const char *start_dir);

/* Opens the repository at path itself (its work tree or git directory),
 * without searching upwards: a remote's local path, a second handle on a
 * repository already open. Errors as repo_open(). */
int repo_open_at(git_repository **out, const char *path);

/* Opens the bare repository at path, making an empty one there first
 * when there is none (a local copy kept by benchgate itself). Errors as
 * repo_open(). */
int repo_open_or_init_bare(git_repository **out, const char *path);

/*
 * The target branch's tip into *out (free with git_object_free()) and the
 * name it was found under into name: with `branch`, origin/BRANCH first
 * (CI checkouts have no local copy), then BRANCH, else BG_EINPUT; without
 * one the default branch: refs/remotes/origin/HEAD, main, master,
 * origin/main, origin/master, else BG_ENOTFOUND (no message).
 */
int repo_default_branch(git_repository *repo, const char *branch,
			git_object **out, struct strbuf *name);

/*
 * The merge base of HEAD and the commit `ref` names (origin/REF first, as
 * CI checkouts have no local copy of the target branch, then REF itself:
 * a branch, tag or commit) into *out (free with git_commit_free()), and
 * the name REF was found under into name. BG_EINPUT when REF names no
 * commit, HEAD is unborn, or they have no merge base (a shallow clone
 * that does not reach it); BG_ERROR when the merge base cannot be read.
 */
int repo_merge_base(git_commit **out, struct strbuf *name,
		    git_repository *repo, const char *ref);

/*
 * A walk of the first parents from `from`, newest first, into *out (free
 * with git_revwalk_free()): the line of a branch as its merges made it. A
 * shallow clone ends the walk early, which is not an error. libgit2's code
 * when the walk cannot start.
 */
int repo_walk_first_parents(git_revwalk **out, git_repository *repo,
			    const git_oid *from);

#endif
