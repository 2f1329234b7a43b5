/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_RUN_SCRATCH_H
#define BENCHGATE_RUN_SCRATCH_H

#include "harness/util/strbuf.h"

#include <dirent.h>
#include <stdbool.h>

/*
 * What every run of a session gets to write in (metrics-protocol.md): the
 * path of a fresh metrics file, $BENCHGATE_METRICS_FILE, and an empty
 * directory of its own, $BENCHGATE_RUN_DIR, both in the session's scratch
 * directory. Both are the same at every run: the directory is made before
 * the first run and again only after a run that left something in it, so
 * that a run costs no mkdir(), rmdir() or walk of a tree.
 *
 * After each run the metrics file is removed and the directory read back
 * from its start: an unlink() (of a file that is seldom there), an
 * fstat(), an lseek() and two getdents64(). An inotify watch would make
 * that one read(), but closing one waits for an SRCU grace period (8 ms
 * here, fsnotify_destroy_group()), which every `run` would pay at its
 * end: more than the five calls cost over a thousand runs.
 */
struct run_scratch {
	struct strbuf metrics_path; /* "<session>/metrics" */
	struct strbuf dir;	    /* "<session>/run" */
	DIR *handle;		    /* the directory; NULL: to be made */
};

/* Names the two in the session's directory `session`; makes nothing. */
void run_scratch_init(struct run_scratch *scratch, const char *session);

/* Before a run: the directory is there and empty, the metrics file is
 * not. BG_ERROR, with a message, when the directory cannot be made. */
int run_scratch_prepare(struct run_scratch *scratch);

/* After a run: leaves the two as run_scratch_prepare() will want them
 * (the directory removed if the run left something in it). */
void run_scratch_tidy(struct run_scratch *scratch);

/* Closes the directory; the directory itself goes with the session's.
 * Also safe on a zeroed struct that run_scratch_init() never saw. */
void run_scratch_release(struct run_scratch *scratch);

#endif
