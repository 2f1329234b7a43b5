/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_GITINFO_H
#define BENCHGATE_GITINFO_H

#include "harness/model/result.h"
#include "harness/util/strbuf.h"

#include <git2.h>

/*
 * Which commit a result belongs to: the git_meta of a result, read with
 * libgit2 from the repository that contains a directory.
 *
 * The repository is discovered like git does: from the start directory
 * upwards, stopping at a file system boundary and at the directories of
 * GIT_CEILING_DIRECTORIES. GIT_DIR is deliberately not consulted: the
 * start directory decides, so `benchgate run` in a suite's checkout
 * describes that checkout even when started from a git hook.
 */

/*
 * Fills `out` (overwritten: release an old value first; release the new one
 * with git_meta_release()) with the state of the repository containing
 * start_dir (NULL: the current directory):
 *
 * - commit: HEAD's commit id, 40 hex. "unknown" when there is no commit to
 *   name: outside any repository, or on an unborn branch.
 * - branch: HEAD's branch short name ("main"), also on an unborn branch;
 *   NULL when HEAD is detached (as CI checkouts of a tag or a pull request
 *   merge commit are).
 * - dirty: true when a tracked file differs between HEAD, the index and the
 *   work tree (modified, staged, deleted, type-changed), or a submodule is
 *   checked out at another commit than recorded. Untracked and ignored
 *   files do NOT count: build directories and results written under the
 *   work tree would otherwise mark every run dirty, and they do not change
 *   the code that was measured. For speed on big repositories untracked
 *   directories are not walked, submodules' own work trees are not
 *   scanned, and the scan stops at the first difference.
 * - commit_time: the committer time in ISO 8601 with the commit's own UTC
 *   offset, as `git log --format=%cI` prints it ("2026-11-22T08:34:22+01:00").
 * - subject: the commit message's subject as `git log --format=%s` prints it
 *   (the first paragraph, lines joined by spaces).
 * - parents: the parent ids as recorded in the commit. The parent objects
 *   themselves are never read, so a shallow clone, whose parents are
 *   missing from the object database, works.
 *
 * Outside a repository, or when libgit2 refuses to open the repository
 * (for example one owned by another user without safe.directory), a warning
 * says so, commit is "unknown", and the result is BG_OK: benchmarking an
 * unversioned directory is allowed. BG_ERROR (with libgit2's message) only
 * when an opened repository cannot be read: a corrupt HEAD, index or
 * object; `out` is then left with commit "unknown" and no other fields.
 */
int gitinfo_read(struct git_meta *out, const char *start_dir);

/*
 * Fills the commit, commit_time, subject and parents of `out` (the other
 * fields untouched; release with git_meta_release()) from `commit`, as
 * gitinfo_read() does for HEAD's. `history` reads every commit it walks
 * so. Parent objects are not read (a shallow clone lacks them).
 */
void gitinfo_read_commit(struct git_meta *out, git_commit *commit);

/*
 * Appends to `out` the root of the work tree containing start_dir (NULL:
 * the current directory), without a trailing slash ("/home/me/project").
 * That is where the default store `.benchgate/results` lives.
 * BG_ENOTFOUND outside any repository and in a bare repository (no work
 * tree); `out` is then unchanged.
 */
int gitinfo_repo_root(const char *start_dir, struct strbuf *out);

#endif
