/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CHECKOUT_H
#define BENCHGATE_CHECKOUT_H

#include "harness/util/strbuf.h"

#include <git2.h>

/*
 * Scratch checkouts: the files of a commit written into a directory of
 * their own, away from the user's work tree, index and branches
 * (`benchgate bisect` builds and measures each commit it tests in one).
 *
 * A scratch area is one new directory under $TMPDIR (/tmp when unset),
 * "benchgate-<label>-XXXXXX"; each commit's tree goes into a directory
 * below it. The tree is written with libgit2 (git_checkout_tree() with a
 * target directory): the files of the commit, with their modes and
 * symbolic links, and no .git: the repository is not touched, so a
 * checkout never disturbs the user's work tree, and removing it leaves
 * nothing behind. Submodules are not checked out.
 *
 * The scratch area is removed by checkout_area_free(); a caller that can
 * be interrupted catches the signal and ends through it (`bisect` does,
 * with process.h's process_catch_interrupts()). It is claimed
 * (util/scratch.h): one left by a process killed with kill -9 is removed
 * when the next area of its label is made.
 */

struct checkout_area;

/* Makes a new scratch area into *out (free with checkout_area_free(),
 * also after an error). BG_ERROR naming the directory when it cannot be
 * made. */
int checkout_area_new(struct checkout_area **out, const char *label);

/*
 * Writes the tree of `commit` into the new directory "<area>/<name>" and
 * appends that directory's path to *dir. BG_ERROR with libgit2's message
 * when the directory exists already or the tree cannot be read or
 * written (what was written is removed). Remove the directory with
 * remove_tree() (util/fileio.h) when done with it.
 */
int checkout_commit(struct checkout_area *area, git_repository *repo,
		    git_commit *commit, const char *name, struct strbuf *dir);

/* Removes the scratch area and everything in it; NULL-safe. */
void checkout_area_free(struct checkout_area *area);

/*
 * Appends to *out where `path` (a file or directory of a work tree; it
 * need not exist, its parent must) would be in `tree`, a checkout of
 * that work tree's repository: "<tree>/<path relative to the work tree's
 * root>". BG_ENOTFOUND when path is in no git work tree, or (naming the
 * root) outside the one it was found in (as a build directory elsewhere
 * can be).
 */
int checkout_place(struct strbuf *out, const char *path, const char *tree);

#endif
