/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SCRATCH_H
#define BENCHGATE_SCRATCH_H

#include "harness/util/strbuf.h"

/*
 * Scratch directories under $TMPDIR (/tmp when unset), claimed and
 * reclaimed as the store's are: "<tmpdir>/benchgate-scratch-<uid>/
 * <label>-XXXXXX" holds a file ".owner" on which its maker holds an flock
 * (close-on-exec, so no benchmark inherits it) for as long as it lives.
 * The kernel drops the lock of a process that dies, however it died (kill
 * -9 included): before making its own, scratch_claim() removes every
 * directory of the same label whose ".owner" it can lock, or which has
 * none and was last changed SCRATCH_UNOWNED_S seconds ago or more (one
 * whose maker died between making it and locking). Only directories
 * (never a symlink) of this user are looked at.
 *
 * The per-user parent (mode 0700, made when missing, removed by the
 * release that leaves it empty) keeps that look-up to this user's scratch
 * directories: a shared /tmp holds thousands of entries, and listing them
 * all cost every `run` a millisecond. Where the parent's name is taken by anything else than a
 * directory of this user that only they can write to (a symlink, another
 * user's), the directories go into $TMPDIR itself, named
 * "benchgate-<label>-XXXXXX", as before the parent existed.
 */

#define SCRATCH_PARENT "benchgate-scratch-"

#define SCRATCH_UNOWNED_S 60

struct scratch {
	char *dir;    /* absolute when it can be resolved */
	char *parent; /* the per-user parent it is in; NULL: in $TMPDIR */
	int owner_fd;
};

/* Reclaims the dead owners' directories of the label, then makes and
 * claims a new one into *out. BG_ERROR when it cannot be made. */
int scratch_claim(struct scratch *out, const char *label);

/* Removes the directory and everything in it, and drops the claim. */
void scratch_release(struct scratch *scratch);

#endif
