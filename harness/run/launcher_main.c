/* SPDX-License-Identifier: Apache-2.0 */
/*
 * benchgate-launch FD SEARCH PROGRAM [ARG...]: runs a benchmark from a
 * small process, so that its ru_maxrss is its own, and reports its rusage
 * on FD. The protocol and the reasons are in harness/util/launcher.h.
 *
 * Built static and without sanitizers, and linked with nothing of
 * benchgate: its memory at the fork is what the benchmark inherits.
 */
#include "harness/util/launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int record_fd = -1;

static void write_record(struct launcher_record *record)
{
	record->magic = LAUNCHER_MAGIC;
	while (write(record_fd, record, sizeof(*record)) < 0 && errno == EINTR)
		;
}

/*
 * Spawns argv as benchgate spawns a benchmark without the launcher
 * (util/process.c): posix_spawn(), ignored signals back to their default,
 * the mask `mask`, so that the spawn costs the same either way and a
 * sample does not depend on whether the launcher is there. The program is
 * looked up as posix_spawnp() does it: a name with a '/' is taken as it
 * is, otherwise each directory of search in turn, going on past
 * directories that lack it; a permission error anywhere is the one
 * reported. Returns 0 with *pid set, or the errno of the failure.
 */
static int spawn_program(pid_t *pid, const char *search, char *const *argv,
			 const sigset_t *mask, char *path)
{
	const char *name = argv[0], *dir, *end;
	size_t name_len = strlen(name);
	posix_spawnattr_t attr;
	sigset_t defaults;
	bool denied = false;
	int error = ENOENT;

	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr,
				 POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, mask);
	sigemptyset(&defaults);
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaddset(&defaults, sig);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	if (strchr(name, '/')) {
		error = posix_spawn(pid, name, NULL, &attr, argv, environ);
		goto done;
	}
	for (dir = search;; dir = end + 1) {
		size_t len;

		end = strchr(dir, ':');
		if (!end)
			end = dir + strlen(dir);
		len = (size_t)(end - dir);
		memcpy(path, dir, len);
		if (len)
			path[len++] = '/';
		memcpy(path + len, name, name_len + 1);
		error = posix_spawn(pid, path, NULL, &attr, argv, environ);
		if (!error)
			goto done;
		if (error == EACCES)
			denied = true;
		else if (error != ENOENT && error != ENOTDIR &&
			 error != ESTALE && error != ENODEV &&
			 error != ETIMEDOUT)
			break;
		if (!*end)
			break;
	}
	if (denied)
		error = EACCES;
done:
	posix_spawnattr_destroy(&attr);
	return error;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Ends the launcher by the signal that ended the benchmark. */
static void die_of(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t only;

	/* the benchmark dumped its core, if any: no second one of ours */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&only);
	sigaddset(&only, sig);
	sigprocmask(SIG_UNBLOCK, &only, NULL);
	raise(sig);
	/* only a signal whose default is not to terminate gets here */
	_exit(128 + sig);
}

int main(int argc, char **argv)
{
	struct launcher_record record;
	sigset_t termination, old_mask;
	char *end, *path;
	int64_t started;
	long fd;
	int status;
	int spawn_errno;
	pid_t pid;

	if (argc < 4) {
		fputs("usage: benchgate-launch FD SEARCH PROGRAM [ARG...]\n",
		      stderr);
		return 127;
	}
	errno = 0;
	fd = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || fd < 0 || fd > INT_MAX ||
	    fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) {
		fprintf(stderr, "benchgate-launch: bad descriptor '%s'\n",
			argv[1]);
		return 127;
	}
	record_fd = (int)fd;
	memset(&record, 0, sizeof(record));

	/* the group's SIGTERM at a timeout is the benchmark's to handle; the
	 * child unblocks them again before the exec */
	sigemptyset(&termination);
	sigaddset(&termination, SIGINT);
	sigaddset(&termination, SIGTERM);
	sigaddset(&termination, SIGHUP);
	sigprocmask(SIG_BLOCK, &termination, &old_mask);

	if (!(path = malloc(strlen(argv[2]) + strlen(argv[3]) + 2)))
		return 127;
	/* no parent-death signal is needed: a launcher killed alone is a
	 * child gone, whose whole group benchgate kills; benchgate killed,
	 * its guardian kills the group (util/process.h) */
	started = now_ns();
	spawn_errno = spawn_program(&pid, argv[2], argv + 3, &old_mask, path);
	if (spawn_errno) {
		record.kind = LAUNCHER_EXEC_FAILED;
		record.exec_errno = spawn_errno;
		write_record(&record);
		return 127;
	}

	while (wait4(pid, &status, 0, &record.usage) < 0)
		if (errno != EINTR)
			return 127;
	record.wall_ns = now_ns() - started;
	record.kind = LAUNCHER_RUSAGE;
	write_record(&record);
	if (WIFSIGNALED(status))
		die_of(WTERMSIG(status));
	return WEXITSTATUS(status);
}
