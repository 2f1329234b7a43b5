/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_LAUNCHER_CLIENT_H
#define BENCHGATE_LAUNCHER_CLIENT_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/*
 * benchgate's side of benchgate-launch (launcher.h): the runs whose peak
 * RSS is measured are started by a launcher, one per benchgate process,
 * started at its first such run and kept until benchgate exits (atexit(),
 * or launcher_stop() from a signal handler). A fork of benchgate starts
 * its own. util/process.c is the one user; one run at a time.
 */

struct launcher_run {
	/* benchgate-launch, an absolute path; another than the running
	 * launcher's replaces it */
	const char *path;
	/* stdin, stdout and stderr of the launcher, and so of every run it
	 * starts: taken when it starts, so the same at every run */
	int stdio[3];
	/* working directory of the run; NULL: benchgate's (the launcher
	 * takes it at each run, not at its start) */
	const char *cwd;
	/* argv[0] is looked up in benchgate's PATH when it has no '/' */
	const char *const *argv;
	char *const *env;
};

/* How a run ended, as the launcher saw it. */
struct launcher_end {
	int status;	     /* as wait4() gives it */
	struct rusage usage; /* the run's own */
	int64_t wall_ns;     /* from the spawn to the exit seen */
};

/*
 * Starts the run in a process group of its own, the launcher first if
 * this process has none (or one that died). Returns 0 with *pid the run's
 * (its group's id); a positive errno when the program could not be
 * executed (nothing runs); BG_ERROR (reported) when no launcher could be
 * started or spoken to.
 */
int launcher_start_run(const struct launcher_run *run, pid_t *pid);

/* The descriptor to poll while the run started runs: it becomes
 * readable when the run ended or the launcher died. */
int launcher_fd(void);

/*
 * Once launcher_fd() is readable: how the run ended. Returns 1 with *end
 * filled; 0 when the launcher died instead, having killed the run's group
 * and reaped the launcher, so that what is left of the group is this
 * process's to reap (it is a subreaper, util/process.h): end->status is
 * then the launcher's own, usage and wall_ns zero.
 */
int launcher_end_run(pid_t group, struct launcher_end *end);

/* CPU seconds of the runs the running launcher reaped: getrusage()'s
 * RUSAGE_CHILDREN counts them only once the launcher itself is reaped, and
 * then they are no longer counted here. */
double launcher_runs_cpu_s(void);

/* Ends the launcher and reaps it; a fork just forgets the parent's.
 * Async-signal-safe. */
void launcher_stop(void);

#endif
