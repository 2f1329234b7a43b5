/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/launcher_client.h"

#include "harness/util/error.h"
#include "harness/util/launcher.h"
#include "harness/util/spawn_attr.h"
#include "harness/util/strbuf.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* This process's launcher. */
static struct {
	int fd;	     /* benchgate's end of the socket; -1: none */
	pid_t pid;   /* 0: none */
	pid_t owner; /* the process that started it: a fork has none */
	char *path;  /* what it was started from */
	bool atfork_set;
	bool stops_at_exit;
	struct strbuf request; /* reused by every run */
	double runs_cpu_s;
} launcher = { -1, 0, 0, NULL, false, false, STRBUF_INIT, 0 };

/* In the child of a fork: the launcher is the parent's, and its copy of
 * the socket must not keep the launcher from reading end of file. */
static void launcher_forget(void)
{
	if (launcher.fd >= 0)
		close(launcher.fd);
	launcher.fd = -1;
	launcher.pid = 0;
}

/* Kills the launcher, if this process has one. */
static void kill_launcher(void)
{
	if (launcher.pid > 0)
		kill(launcher.pid, SIGKILL);
}

/* Reaps the launcher, gone or going (async-signal-safe); its wait
 * status. */
static int reap_launcher(void)
{
	pid_t pid = launcher.pid;
	int status = 0;

	launcher_forget();
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	/* the runs it reaped are counted in RUSAGE_CHILDREN now */
	launcher.runs_cpu_s = 0;
	return status;
}

void launcher_stop(void)
{
	if (launcher.owner != getpid()) {
		launcher_forget();
		return;
	}
	/* no run is in flight: whoever stops it mid-run killed the run's
	 * group first */
	kill_launcher();
	reap_launcher();
}

double launcher_runs_cpu_s(void)
{
	return launcher.runs_cpu_s;
}

int launcher_fd(void)
{
	return launcher.fd;
}

static int start_launcher(const struct launcher_run *run)
{
	char *const argv[] = { (char *)run->path, NULL };
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	int fds[2], error;
	pid_t pid;

	if (!launcher.atfork_set)
		launcher.atfork_set =
			!pthread_atfork(NULL, NULL, launcher_forget);
	if (!launcher.atfork_set)
		return bg_error("cannot start the launcher: no fork handler");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return bg_error("cannot start the launcher: %s",
				strerror(errno));
	posix_spawn_file_actions_init(&actions);
	for (int i = 0; i < 3; i++)
		posix_spawn_file_actions_adddup2(&actions, run->stdio[i], i);
	posix_spawn_file_actions_adddup2(&actions, fds[1], LAUNCHER_FD);
	/* as a benchmark is spawned: the terminal's Ctrl-C is benchgate's */
	spawn_attr_init(&attr);
	error = posix_spawn(&pid, run->path, &actions, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&actions);
	close(fds[1]);
	if (error) {
		close(fds[0]);
		return bg_error("cannot start the launcher '%s': %s", run->path,
				strerror(error));
	}
	launcher.fd = fds[0];
	launcher.pid = pid;
	launcher.owner = getpid();
	if (!launcher.path || strcmp(launcher.path, run->path)) {
		free(launcher.path);
		launcher.path = strdup(run->path);
	}
	if (!launcher.stops_at_exit)
		launcher.stops_at_exit = atexit(launcher_stop) == 0;
	return BG_OK;
}

/* The request for run (launcher.h), in launcher.request. */
static void build_request(const struct launcher_run *run)
{
	struct strbuf *out = &launcher.request;
	struct launcher_request head = { LAUNCHER_MAGIC, 0, 0, 0 };
	const char *search = getenv("PATH");
	char cwd[PATH_MAX];

	strbuf_reset(out);
	strbuf_add(out, &head, sizeof(head));
	/* "": the launcher's own, when benchgate's is gone */
	if (run->cwd)
		strbuf_addstr(out, run->cwd);
	else if (getcwd(cwd, sizeof(cwd)))
		strbuf_addstr(out, cwd);
	strbuf_addch(out, '\0');
	/* what glibc's posix_spawnp() searches when PATH is unset */
	strbuf_addstr(out, search ? search : "/bin:/usr/bin");
	strbuf_addch(out, '\0');
	for (; run->argv[head.argc]; head.argc++)
		strbuf_add(out, run->argv[head.argc],
			   strlen(run->argv[head.argc]) + 1);
	for (; run->env[head.envc]; head.envc++)
		strbuf_add(out, run->env[head.envc],
			   strlen(run->env[head.envc]) + 1);
	head.size = (uint32_t)(out->len - sizeof(head));
	memcpy(out->buf, &head, sizeof(head));
}

/* Sends the request; false when the launcher is gone (EPIPE). */
static bool send_request(void)
{
	const char *at = launcher.request.buf;
	size_t left = launcher.request.len;

	while (left) {
		ssize_t sent = send(launcher.fd, at, left, MSG_NOSIGNAL);

		if (sent > 0) {
			at += sent;
			left -= (size_t)sent;
		} else if (sent < 0 && errno != EINTR) {
			return false;
		}
	}
	return true;
}

/* Reads one reply; false at end of file (the launcher gone) or when it is
 * not a reply of this build's launcher. */
static bool read_reply(struct launcher_reply *reply)
{
	char *at = (char *)reply;
	size_t left = sizeof(*reply);

	while (left) {
		ssize_t got = read(launcher.fd, at, left);

		if (got > 0) {
			at += got;
			left -= (size_t)got;
		} else if (got == 0 || errno != EINTR) {
			return false;
		}
	}
	return reply->magic == LAUNCHER_MAGIC;
}

/* Why the launcher stopped answering, once it is reaped. */
static int launcher_failed(const char *path, int status)
{
	return bg_error(
		"the launcher '%s' ended without an answer (%s %d): "
		"is it the one of this benchgate's build?",
		path, WIFSIGNALED(status) ? "killed by signal" : "exit status",
		WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

int launcher_start_run(const struct launcher_run *run, pid_t *pid)
{
	struct launcher_reply reply;
	int error, status;

	if (launcher.fd >= 0 && strcmp(launcher.path, run->path))
		launcher_stop();
	build_request(run);
	for (int attempt = 0;; attempt++) {
		if (launcher.fd < 0 && (error = start_launcher(run)) < 0)
			return error;
		if (send_request() && read_reply(&reply))
			break;
		/* one killed since the last run (or being killed: a SIGKILL
		 * takes a moment) is replaced, once. Left uncovered: one
		 * killed in the microseconds between its spawn of the run and
		 * its reply, whose run then goes on unknown to benchgate */
		kill_launcher();
		status = reap_launcher();
		if (attempt)
			return launcher_failed(run->path, status);
	}
	if (reply.kind == LAUNCHER_EXEC_FAILED)
		return reply.exec_errno > 0 ? reply.exec_errno : ENOEXEC;
	if (reply.kind != LAUNCHER_STARTED) {
		kill_launcher();
		return launcher_failed(run->path, reap_launcher());
	}
	*pid = (pid_t)reply.pid;
	return 0;
}

int launcher_end_run(pid_t group, struct launcher_end *end)
{
	struct launcher_reply reply;

	memset(end, 0, sizeof(*end));
	if (read_reply(&reply) && reply.kind == LAUNCHER_ENDED) {
		end->status = reply.status;
		end->usage = reply.usage;
		end->wall_ns = reply.wall_ns;
		launcher.runs_cpu_s +=
			(double)reply.usage.ru_utime.tv_sec +
			(double)reply.usage.ru_utime.tv_usec / 1e6 +
			(double)reply.usage.ru_stime.tv_sec +
			(double)reply.usage.ru_stime.tv_usec / 1e6;
		return 1;
	}
	/* killed by someone, or not speaking this build's protocol: the run
	 * must not outlive it */
	kill(-group, SIGKILL);
	kill_launcher();
	end->status = reap_launcher();
	return 0;
}
