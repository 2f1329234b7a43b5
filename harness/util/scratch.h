/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SCRATCH_H
#define BENCHGATE_SCRATCH_H

#include "harness/util/strbuf.h"

/*
 * Scratch directories under $TMPDIR (/tmp when unset), claimed and
 * reclaimed as the store's are: "<tmpdir>/benchgate-<label>-XXXXXX" holds
 * a file ".owner" on which its maker holds an flock (close-on-exec, so no
 * benchmark inherits it) for as long as it lives. The kernel drops the
 * lock of a process that dies, however it died (kill -9 included): before
 * making its own, scratch_claim() removes every directory of the same
 * label whose ".owner" it can lock, or which has none and was last
 * changed SCRATCH_UNOWNED_S seconds ago or more (one made by a benchgate
 * that predates owners, or whose maker died between making it and
 * locking). Only directories (never a symlink) of this user are looked
 * at.
 */

#define SCRATCH_UNOWNED_S 60

struct scratch {
	char *dir; /* absolute when it can be resolved */
	int owner_fd;
};

/* Reclaims the dead owners' directories of the label, then makes and
 * claims a new one into *out. BG_ERROR when it cannot be made. */
int scratch_claim(struct scratch *out, const char *label);

/* Removes the directory and everything in it, and drops the claim. */
void scratch_release(struct scratch *scratch);

#endif
