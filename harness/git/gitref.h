/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_GITREF_H
#define BENCHGATE_GITREF_H

#include <git2.h>

/*
 * The libgit2 operations every git-backed module needs the same way: the
 * message of the last libgit2 error, the signature of the commits benchgate
 * makes, and moving a ref only from the value the caller built on (the
 * store branch, `sync`), which is what keeps concurrent writers from
 * dropping each other's results.
 */

/* libgit2's message for its last error; "unknown libgit2 error" when it
 * recorded none. Valid until the next libgit2 call on this thread. */
const char *gitref_message(void);

/*
 * The author and committer of a commit benchgate makes on the results
 * branch: the repository's configured user, else "benchgate
 * <benchgate@localhost>", since CI machines rarely configure user.name and
 * the results branch does not need a person. Free *out with
 * git_signature_free(). BG_ERROR when neither can be made.
 */
int gitref_signature(git_signature **out, git_repository *repo);

/*
 * Compare-and-swap of the ref `name` of repo from `from` to `to`. `from`
 * NULL or all zeros: the ref must not exist yet. The check happens under
 * the ref's lock (git_reference_create() without force checks before
 * taking it, so two creators could both succeed and the first one's
 * commit would be lost).
 *
 * 1 when the ref was not at `from` or is locked by another writer (read
 * it again and retry), 0 when moved, BG_ERROR naming the ref otherwise.
 */
int gitref_move(git_repository *repo, const char *name, const git_oid *from,
		const git_oid *to, const char *message);

#endif
