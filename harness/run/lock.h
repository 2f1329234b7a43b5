/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_LOCK_H
#define BENCHGATE_LOCK_H

#include <stdbool.h>
#include <stdio.h>

/*
 * One measurement at a time per machine: `run` and `check` hold an
 * advisory lock (flock(2)) on one file while they measure, so that two
 * jobs on one machine never slow each other down unnoticed and a
 * contaminated result never becomes a baseline.
 *
 * The file is $BENCHGATE_LOCK, else MACHINE_LOCK_DEFAULT: one file for the
 * whole machine, not one per user, since another user's benchmark disturbs
 * a measurement as much as one's own. Whoever creates it makes it
 * readable and writable by everyone (whatever the umask), and an existing
 * file is opened without O_CREAT, as fs.protected_regular refuses O_CREAT
 * on another user's file in a sticky directory such as /tmp. Jobs in
 * containers that share a machine but not /tmp point BENCHGATE_LOCK at a
 * file on a volume they all mount. The lock goes with the process: a job
 * that is killed releases it, and the benchmarks it starts do not inherit
 * it (close-on-exec), so one left running cannot keep it.
 */

#define MACHINE_LOCK_DEFAULT "/tmp/benchgate.lock"

struct machine_lock;

/*
 * Takes the machine lock into *out (release with machine_lock_release()).
 * When another process holds it: with `wait`, says so on `notice` first,
 * naming the file and the holder ("waiting for the machine lock
 * '/tmp/benchgate.lock', held by pid 4242 (benchgate), to measure alone"),
 * and waits as long as it takes; without, BG_EINPUT with the same names.
 * BG_ERROR when the file cannot be opened or locked, naming it and
 * BENCHGATE_LOCK.
 */
int machine_lock_take(struct machine_lock **out, bool wait, FILE *notice);

/* Releases the lock and frees it; NULL-safe. */
void machine_lock_release(struct machine_lock *lock);

#endif
