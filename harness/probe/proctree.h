/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PROCTREE_H
#define BENCHGATE_PROCTREE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The processes below a process: what GPU memory per process is summed
 * over, since a benchmark may start workers (a data loader, a shell, the
 * launcher) that hold memory on the GPU on its behalf.
 *
 * Read from /proc/PID/task/TID/children (Linux 3.5 and later with
 * CONFIG_PROC_CHILDREN, as Debian and Ubuntu build their kernels), under
 * procfs_path() so that tests can plant a tree. A process that exits
 * meanwhile is skipped: the answer is a snapshot.
 */

/*
 * Writes `root`'s descendants (not root itself), breadth first, into
 * `out` and returns how many, at most `max`. Allocates nothing but what
 * opendir() does.
 */
size_t proctree_descendants(pid_t root, pid_t *out, size_t max);

#endif
