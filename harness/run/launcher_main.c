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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int record_fd = -1;

static void write_record(struct launcher_record *record)
{
	record->magic = LAUNCHER_MAGIC;
	while (write(record_fd, record, sizeof(*record)) < 0 && errno == EINTR)
		;
}

/*
 * Execs argv looked up as posix_spawnp() does it: a name with a '/' is
 * taken as it is, otherwise each directory of search in turn, going on
 * past directories that lack it; a permission error anywhere is the one
 * reported. Returns only on failure, with errno set.
 */
static void exec_program(const char *search, char *const *argv)
{
	const char *name = argv[0], *dir, *end;
	size_t name_len = strlen(name);
	bool denied = false;
	char *path;

	if (strchr(name, '/')) {
		execv(name, argv);
		return;
	}
	if (!(path = malloc(strlen(search) + name_len + 2)))
		return;
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
		execv(path, argv);
		if (errno == EACCES)
			denied = true;
		else if (errno != ENOENT && errno != ENOTDIR &&
			 errno != ESTALE && errno != ENODEV &&
			 errno != ETIMEDOUT)
			break;
		if (!*end)
			break;
	}
	free(path);
	if (denied)
		errno = EACCES;
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
	char *end;
	long fd;
	int status;
	pid_t pid, parent;

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

	parent = getpid();
	pid = fork();
	if (pid <= 0) {
		if (pid == 0) {
			/* killed with the launcher, whatever kills it; a fork
			 * does not inherit this, an exec keeps it */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			/* gone already, before the line above: no signal */
			if (getppid() != parent)
				raise(SIGKILL);
			sigprocmask(SIG_SETMASK, &old_mask, NULL);
			exec_program(argv[2], argv + 3);
		}
		record.kind = LAUNCHER_EXEC_FAILED;
		record.exec_errno = errno;
		write_record(&record);
		_exit(127);
	}

	while (wait4(pid, &status, 0, &record.usage) < 0)
		if (errno != EINTR)
			return 127;
	record.kind = LAUNCHER_RUSAGE;
	write_record(&record);
	if (WIFSIGNALED(status))
		die_of(WTERMSIG(status));
	return WEXITSTATUS(status);
}
