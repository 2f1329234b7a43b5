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
 * Whether a run left anything is asked of the kernel: an inotify watch on
 * the session's directory and on the run's reports every name made in
 * them (made, linked or moved in; the run's directory itself removed or
 * moved), so after a run that made nothing, the tidying is one read()
 * that finds nothing. After a run that made something, or where inotify
 * is not to be had (its limits reached), the metrics file is removed and
 * the directory read back, and removed with what is in it unless it is
 * empty.
 */
struct run_scratch {
	struct strbuf metrics_path; /* "<session>/metrics" */
	struct strbuf dir;	    /* "<session>/run" */
	DIR *handle;		    /* the directory; NULL: to be made */
	int watch_fd;		    /* inotify; -1: none */
	int dir_watch;		    /* the directory's watch; -1: none */
};

/* Names the two in the session's directory `session`; makes nothing. */
void run_scratch_init(struct run_scratch *scratch, const char *session);

/* Before a run: the directory is there and empty, the metrics file is
 * not. BG_ERROR, with a message, when the directory cannot be made. */
int run_scratch_prepare(struct run_scratch *scratch);

/* After a run: leaves the two as run_scratch_prepare() will want them
 * (the directory removed if the run left something in it). */
void run_scratch_tidy(struct run_scratch *scratch);

/* Closes the directory and the watch; the directory itself goes with the
 * session's. */
void run_scratch_release(struct run_scratch *scratch);

#endif
