/* SPDX-License-Identifier: Apache-2.0 */
/*
 * benchgate-launch: starts benchmarks on benchgate's behalf from a small
 * process, so that their ru_maxrss is their own, and reports how each
 * ended. The protocol and the reasons are in harness/util/launcher.h.
 *
 * Built static and without sanitizers, and linked with nothing of
 * benchgate: its memory at the spawn is what the benchmark's peak starts
 * from, so it holds no more than the largest request.
 */
/* posix_spawn_file_actions_addchdir_np() */
#define _GNU_SOURCE

#include "harness/util/launcher.h"
#include "harness/util/spawn_attr.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A request, its strings split out; the buffers grow to the largest. */
struct request {
	struct launcher_request head;
	char *body; /* head.size bytes and a NUL */
	size_t body_cap;
	const char *cwd; /* NULL: the launcher's */
	const char *search;
	char **ptrs; /* argv and NULL, then the environment and NULL */
	size_t ptrs_cap;
	char *path; /* a directory of search, '/' and argv[0] */
	size_t path_cap;
};

/* The process group of the run in flight, for benchgate_gone(). */
static volatile sig_atomic_t running_group;

/* SIGHUP, the parent-death signal: benchgate died, whatever killed it.
 * Nothing of its run may outlive it. */
static void benchgate_gone(int sig)
{
	pid_t group = (pid_t)running_group;

	(void)sig;
	if (group > 0)
		kill(-group, SIGKILL);
	_exit(0);
}

/* Reads len bytes; false at end of file or on an error. */
static bool read_all(void *buf, size_t len)
{
	char *at = buf;

	while (len) {
		ssize_t got = read(LAUNCHER_FD, at, len);

		if (got > 0) {
			at += got;
			len -= (size_t)got;
		} else if (got == 0 || errno != EINTR) {
			return false;
		}
	}
	return true;
}

static void send_reply(struct launcher_reply *reply)
{
	reply->magic = LAUNCHER_MAGIC;
	/* benchgate gone: the next read says so */
	while (send(LAUNCHER_FD, reply, sizeof(*reply), MSG_NOSIGNAL) < 0 &&
	       errno == EINTR)
		;
}

/* buf, grown to hold need units; out of memory ends the launcher, which
 * benchgate reads as end of file. */
static void *grow(void *buf, size_t *cap, size_t need, size_t unit)
{
	if (need <= *cap)
		return buf;
	if (!(buf = realloc(buf, need * unit)))
		_exit(127);
	*cap = need;
	return buf;
}

/* Splits n strings off the body from *at into ptrs (NULL-terminated);
 * false when the body holds fewer. */
static bool split(struct request *request, size_t *at, char **ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *string = request->body + *at;
		char *nul;

		if (*at >= request->head.size ||
		    !(nul = memchr(string, '\0', request->head.size - *at)))
			return false;
		ptrs[i] = string;
		*at += (size_t)(nul - string) + 1;
	}
	ptrs[n] = NULL;
	return true;
}

/* Reads the next request; false at end of file. One that is not of this
 * build's protocol ends the launcher: benchgate reads end of file. */
static bool read_request(struct request *request)
{
	struct launcher_request *head = &request->head;
	char *where[3];
	size_t at = 0;

	if (!read_all(head, sizeof(*head)))
		return false;
	if (head->magic != LAUNCHER_MAGIC || !head->argc ||
	    head->size > LAUNCHER_REQUEST_MAX || head->argc > head->size ||
	    head->envc > head->size)
		_exit(127);
	request->body = grow(request->body, &request->body_cap,
			     (size_t)head->size + 1, 1);
	request->ptrs = grow(request->ptrs, &request->ptrs_cap,
			     (size_t)head->argc + head->envc + 2,
			     sizeof(char *));
	/* no directory of search and no name is longer than the body */
	request->path = grow(request->path, &request->path_cap,
			     (size_t)head->size + 2, 1);
	if (!read_all(request->body, head->size))
		return false;
	request->body[head->size] = '\0';
	if (!split(request, &at, where, 2) ||
	    !split(request, &at, request->ptrs, head->argc) ||
	    !split(request, &at, request->ptrs + head->argc + 1, head->envc))
		_exit(127);
	request->cwd = *where[0] ? where[0] : NULL;
	request->search = where[1];
	return true;
}

/*
 * Spawns the request's program as benchgate spawns a benchmark without
 * the launcher (util/process.c), so that the spawn costs the same either
 * way. The program is looked up as posix_spawnp() does it: a name with a
 * '/' is taken as it is, otherwise each directory of search in turn,
 * going on past directories that lack it; a permission error anywhere is
 * the one reported. Returns 0 with *pid set, or the errno of the failure.
 */
static int spawn_program(pid_t *pid, struct request *request,
			 const posix_spawnattr_t *attr)
{
	char **argv = request->ptrs;
	char **env = request->ptrs + request->head.argc + 1;
	const char *name = argv[0], *dir, *end;
	size_t name_len = strlen(name);
	posix_spawn_file_actions_t actions, *chdir_first = NULL;
	bool denied = false;
	int error = ENOENT;

	if (request->cwd) {
		posix_spawn_file_actions_init(&actions);
		posix_spawn_file_actions_addchdir_np(&actions, request->cwd);
		chdir_first = &actions;
	}
	if (strchr(name, '/')) {
		error = posix_spawn(pid, name, chdir_first, attr, argv, env);
		goto done;
	}
	for (dir = request->search;; dir = end + 1) {
		size_t len;

		end = strchr(dir, ':');
		if (!end)
			end = dir + strlen(dir);
		len = (size_t)(end - dir);
		memcpy(request->path, dir, len);
		if (len)
			request->path[len++] = '/';
		memcpy(request->path + len, name, name_len + 1);
		error = posix_spawn(pid, request->path, chdir_first, attr, argv,
				    env);
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
	if (chdir_first)
		posix_spawn_file_actions_destroy(chdir_first);
	return error;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs the request to its end, replying as it starts and as it ends. */
static void run(struct request *request, const posix_spawnattr_t *attr,
		const sigset_t *hangup)
{
	struct launcher_reply reply;
	siginfo_t info;
	int64_t started;
	int status;
	pid_t pid;

	memset(&reply, 0, sizeof(reply));
	/* benchgate's death between the spawn and the note of the group
	 * would leave the run behind: it waits for the note */
	sigprocmask(SIG_BLOCK, hangup, NULL);
	started = now_ns();
	reply.exec_errno = spawn_program(&pid, request, attr);
	if (!reply.exec_errno)
		running_group = (sig_atomic_t)pid;
	sigprocmask(SIG_UNBLOCK, hangup, NULL);
	if (reply.exec_errno) {
		reply.kind = LAUNCHER_EXEC_FAILED;
		send_reply(&reply);
		return;
	}
	reply.kind = LAUNCHER_STARTED;
	reply.pid = (int32_t)pid;
	send_reply(&reply);

	/* exited, not yet reaped: its pid still holds the group's id */
	memset(&info, 0, sizeof(info));
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			_exit(127);
	reply.wall_ns = now_ns() - started;
	/* nothing of the run may outlive it */
	kill(-pid, SIGKILL);
	running_group = 0;
	while (wait4(pid, &status, 0, &reply.usage) < 0)
		if (errno != EINTR)
			_exit(127);
	reply.kind = LAUNCHER_ENDED;
	reply.status = status;
	send_reply(&reply);
}

/* Closes every descriptor from `first` on. */
static void close_from(int first)
{
	struct rlimit limit;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0u, 0u) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &limit) < 0)
		return;
	for (rlim_t fd = (rlim_t)first; fd < limit.rlim_cur && fd < 65536;
	     fd++)
		close((int)fd);
}

int main(int argc, char **argv)
{
	struct request request;
	struct sigaction gone;
	posix_spawnattr_t attr;
	sigset_t hangup;

	(void)argv;
	if (argc != 1 || fcntl(LAUNCHER_FD, F_SETFD, FD_CLOEXEC) < 0) {
		fputs("benchgate-launch: started by benchgate only, with its "
		      "socket on descriptor 3 (harness/util/launcher.h)\n",
		      stderr);
		return 127;
	}
	/* nothing of benchgate's but stdio and the socket: no lock held and
	 * no pipe kept from its end of file for as long as benchgate runs,
	 * nor passed on to a benchmark */
	close_from(LAUNCHER_FD + 1);
	memset(&gone, 0, sizeof(gone));
	gone.sa_handler = benchgate_gone;
	sigemptyset(&gone.sa_mask);
	sigaction(SIGHUP, &gone, NULL);
	prctl(PR_SET_PDEATHSIG, SIGHUP, 0, 0, 0);
	sigemptyset(&hangup);
	sigaddset(&hangup, SIGHUP);

	/* as benchgate spawns a benchmark */
	spawn_attr_init(&attr);

	memset(&request, 0, sizeof(request));
	/* until benchgate closes its end */
	while (read_request(&request))
		run(&request, &attr, &hangup);
	return 0;
}
