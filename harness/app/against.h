/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_AGAINST_H
#define BENCHGATE_APP_AGAINST_H

#include "harness/app/check.h"
#include "harness/git/checkout.h"

#include <stdbool.h>

/*
 * `check --against REF`: the baseline tree a check makes for itself, as a
 * pull request job would by hand. The merge base of HEAD and REF
 * (repo_merge_base()) is checked out into a scratch tree (checkout.h: the
 * commit's files, no .git, claimed so that one left by a kill -9 is
 * reclaimed), the build command runs there and then in the current work
 * tree (/bin/sh -c, each tree's root its working directory, killed after
 * the build timeout), and the check measures the scratch tree as its
 * --baseline-tree, interleaved with the candidate, labelled with the merge
 * base's commit. A suite the merge base does not have (the branch adds
 * it) has nothing there to measure: the tree is removed, a warning says
 * so, and the check compares with the stored results as without
 * --against. The tree is removed once measured, or when anything fails. SIGINT, SIGTERM and SIGHUP are caught from the checkout on
 * (process.h): what runs is killed, the check stops at its next step, the
 * tree is removed and benchgate ends by the signal.
 */

struct against_options {
	const char *ref;	   /* --against; NULL: not asked */
	const char *build_command; /* --build; NULL: nothing to build */
	int build_timeout_s;	   /* --build-timeout; 0: no limit */
	bool quiet;		   /* no progress lines on stderr */
};

struct against {
	struct checkout_area *area;
	struct strbuf tree;   /* the merge base's checkout; "" before */
	struct git_meta base; /* its commit */
	struct strbuf what;   /* what the baseline's note calls the tree */
};

void against_init(struct against *against);

/*
 * Makes the baseline tree of opts for `check` (its session's suite path
 * and build directory) and points check at it: its baseline tree, commit
 * and description, borrowed from `against` until against_release(). 0
 * when ready; OUTCOME_CASE_FAILED (outcome.h) when a build failed, its
 * message printed, as a tree that cannot be built is broken, not slower;
 * BG_EINPUT for a REF that names no commit, no merge base, a suite outside
 * a git work tree, or options the tree cannot be combined with
 * (--baseline-tree, a --baseline other than auto, --order sequential);
 * BG_ERROR when the checkout or the harness fails, or on an interrupt.
 */
int against_prepare(struct against *against,
		    const struct against_options *opts,
		    struct check_options *check);

/* Removes the tree and everything below it, once measured; stops
 * catching interrupts. The names (tree, base, what) stay. */
void against_remove_tree(struct against *against);

/* against_remove_tree(), and frees the names. */
void against_release(struct against *against);

#endif
