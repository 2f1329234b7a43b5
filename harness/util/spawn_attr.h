/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SPAWN_ATTR_H
#define BENCHGATE_SPAWN_ATTR_H

#include <signal.h>
#include <spawn.h>

/*
 * The posix_spawn() attributes of every process benchgate starts to run a
 * benchmark: the benchmark itself, spawned by benchgate (util/process.c)
 * or by the launcher (run/launcher_main.c), and the launcher (util/
 * launcher_client.c), so that a run starts the same whoever spawns it.
 * Header-only, as the launcher is built with nothing of benchgate linked
 * in (launcher.h).
 *
 * - a process group of its own, whose id is the child's pid: a timeout's
 *   signal to the group reaches the grandchildren, and the terminal's
 *   Ctrl-C does not (benchgate forwards it);
 * - an empty signal mask, whatever the spawner blocks;
 * - every signal back to its default action: ignored signals survive
 *   exec, and a benchmark must not inherit the spawner's.
 *
 * Destroy attr with posix_spawnattr_destroy().
 */
static inline void spawn_attr_init(posix_spawnattr_t *attr)
{
	sigset_t signals;

	posix_spawnattr_init(attr);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP |
					       POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(attr, 0);
	sigemptyset(&signals);
	posix_spawnattr_setsigmask(attr, &signals);
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaddset(&signals, sig);
	posix_spawnattr_setsigdefault(attr, &signals);
}

#endif
