/* SPDX-License-Identifier: Apache-2.0 */
/* posix_spawn_file_actions_addchdir_np() and the pidfd syscall number */
#define _GNU_SOURCE

#include "harness/util/process.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/launcher_client.h"
#include "harness/util/spawn_attr.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Without a pidfd, exit is checked after waits growing from MIN to MAX. */
#define FALLBACK_POLL_MIN_S 0.00005
#define FALLBACK_POLL_MAX_S 0.01

/* A pipe holds 64 KiB by default: one read takes what one poll announces. */
#define READ_CHUNK 65536

struct capture_state {
	struct process_capture *capture;
	int fd; /* the kit's read end, borrowed; -1 after a read error */
	enum process_stream stream;
	const struct process_observer *observer; /* NULL: none */
	size_t head_cap;
	char *ring; /* the last tail_cap bytes past the head */
	size_t tail_cap;
	size_t ring_pos;
	size_t ring_len;
	size_t overflow; /* bytes past the head, ring included */
};

/*
 * What every run of this process reuses (process.h): stdin's /dev/null
 * and the two capture pipes, made at its first run. benchgate keeps the
 * write ends open, so a pipe never reads end of file: the child's exit
 * wakes benchgate once (its pidfd), not once more for each pipe that
 * hangs up, and a run makes and closes no descriptors but its pidfd. The
 * read ends do not block: what is left in them when the group is gone is
 * read until they are empty.
 */
static struct {
	bool made;	 /* by this process: a fork makes its own */
	bool atfork_set; /* kit_forget() is called in a fork's child */
	int devnull;
	int pipes[2][2]; /* [enum process_stream][0: read, 1: write] */
} kit = { false, false, -1, { { -1, -1 }, { -1, -1 } } };

/* The process group of the child being run, for the signal handler. */
static volatile sig_atomic_t running_group;

/* benchgate's end of the guardian's socket (process.h); -1: none yet, or
 * lost (the guardian was killed), to be started again at the next run. */
static int guardian_fd = -1;
static pid_t guardian_pid;
static pid_t guardian_owner; /* the process that forked it */
/* The group being run as the guardian sees it: a page shared with it. */
static _Atomic int32_t *guardian_group;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void process_outcome_init(struct process_outcome *outcome)
{
	memset(outcome, 0, sizeof(*outcome));
	strbuf_init(&outcome->out.text, 0);
	strbuf_init(&outcome->err.text, 0);
}

void process_outcome_release(struct process_outcome *outcome)
{
	strbuf_release(&outcome->out.text);
	strbuf_release(&outcome->err.text);
	free(outcome->spawn_error);
	process_outcome_init(outcome);
}

static void capture_init(struct capture_state *state,
			 struct process_capture *capture,
			 enum process_stream stream,
			 const struct process_observer *observer, size_t cap)
{
	memset(state, 0, sizeof(*state));
	state->capture = capture;
	state->stream = stream;
	state->observer = observer;
	state->fd = -1;
	state->tail_cap = cap / 2;
	state->head_cap = cap - state->tail_cap;
}

static void capture_add(struct capture_state *state, const char *data,
			size_t len)
{
	struct strbuf *text = &state->capture->text;
	size_t first;

	if (!state->overflow) {
		size_t take = state->head_cap - text->len;

		if (take > len)
			take = len;
		strbuf_add(text, data, take);
		data += take;
		len -= take;
	}
	if (!len)
		return;
	state->overflow += len;
	if (!state->tail_cap)
		return;
	if (!state->ring)
		state->ring = xmalloc(state->tail_cap);
	if (len >= state->tail_cap) {
		memcpy(state->ring, data + len - state->tail_cap,
		       state->tail_cap);
		state->ring_pos = 0;
		state->ring_len = state->tail_cap;
		return;
	}
	first = state->tail_cap - state->ring_pos;
	if (first > len)
		first = len;
	memcpy(state->ring + state->ring_pos, data, first);
	memcpy(state->ring, data + first, len - first);
	state->ring_pos = (state->ring_pos + len) % state->tail_cap;
	state->ring_len += len;
	if (state->ring_len > state->tail_cap)
		state->ring_len = state->tail_cap;
}

/* Joins head and tail into capture->text and frees the ring. */
static void capture_finish(struct capture_state *state)
{
	struct process_capture *capture = state->capture;

	capture->dropped = state->overflow - state->ring_len;
	capture->dropped_at = capture->text.len;
	if (!state->ring_len) {
		/* nothing past the head */
	} else if (state->ring_len < state->tail_cap) {
		strbuf_add(&capture->text, state->ring, state->ring_len);
	} else {
		strbuf_add(&capture->text, state->ring + state->ring_pos,
			   state->tail_cap - state->ring_pos);
		strbuf_add(&capture->text, state->ring, state->ring_pos);
	}
	free(state->ring);
	state->ring = NULL;
	state->fd = -1;
}

/* Reads one chunk of what the pipe holds; false once it is empty (or
 * failed: it is then read no more in this run). */
static bool capture_read(struct capture_state *state)
{
	char chunk[READ_CHUNK];
	ssize_t got;

	if (state->fd < 0)
		return false;
	got = read(state->fd, chunk, sizeof(chunk));
	if (got > 0) {
		/* all of it, before the capture keeps its part */
		if (state->observer)
			state->observer->output(state->observer->payload,
						state->stream, chunk,
						(size_t)got);
		capture_add(state, chunk, (size_t)got);
		return true;
	}
	if (got == 0 || (errno != EINTR && errno != EAGAIN))
		state->fd = -1;
	return got < 0 && errno == EINTR;
}

/* Reads what the run's group left in the pipes, once nothing of the group
 * is left to write more: one poll(), and the reads of those that hold
 * something. */
static void capture_drain(struct capture_state *streams)
{
	struct pollfd fds[2];

	for (int i = 0; i < 2; i++)
		fds[i] = (struct pollfd){ .fd = streams[i].fd,
					  .events = POLLIN };
	if (poll(fds, 2, 0) <= 0)
		return;
	for (int i = 0; i < 2; i++)
		if (fds[i].revents)
			while (capture_read(&streams[i]))
				;
}

/* In the child of a fork: the kit is the parent's. */
static void kit_forget(void)
{
	kit.made = false;
}

/* Makes the kit for this process, once (a fork's inherited copies are
 * closed: the pipes are its parent's). */
static int kit_ensure(void)
{
	int stream;

	if (kit.made)
		return BG_OK;
	if (!kit.atfork_set)
		kit.atfork_set = !pthread_atfork(NULL, NULL, kit_forget);
	close_fd(&kit.devnull);
	for (stream = 0; stream < 2; stream++) {
		close_fd(&kit.pipes[stream][0]);
		close_fd(&kit.pipes[stream][1]);
	}
	kit.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (kit.devnull < 0)
		return bg_error("cannot open '/dev/null': %s",
				strerror(errno));
	for (stream = 0; stream < 2; stream++)
		if (pipe2(kit.pipes[stream], O_CLOEXEC) < 0 ||
		    fcntl(kit.pipes[stream][0], F_SETFL, O_NONBLOCK) < 0) {
			int error = errno;

			close_fd(&kit.pipes[stream][0]);
			close_fd(&kit.pipes[stream][1]);
			return bg_error("cannot create a pipe: %s",
					strerror(error));
		}
	/* without the handler, a fork could not tell: a kit a run */
	kit.made = kit.atfork_set;
	return BG_OK;
}

/*
 * The guardian's life (process.h): blocks until benchgate is gone (the
 * socket's end of file: its last descriptor closed with it, whatever
 * killed it), then kills the group that `group` names, grandchildren
 * included, and exits. A fork of a process that may have threads:
 * async-signal-safe calls only.
 */
__attribute__((noreturn)) static void guardian_main(int fd,
						    _Atomic int32_t *group)
{
	static const int terminal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	int32_t last;
	sigset_t none;
	ssize_t got;
	char byte;
	int devnull;

	/* the signals that end benchgate must not end its guardian first:
	 * it has work to do just after */
	for (size_t i = 0; i < sizeof(terminal) / sizeof(*terminal); i++)
		signal(terminal[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* nothing of benchgate's: no lock held, no pipe kept from EOF */
	if (fd != 3)
		fd = dup2(fd, 3);
	devnull = open("/dev/null", O_RDWR);
	for (int i = 0; i < 3; i++)
		dup2(devnull, i);
#ifdef SYS_close_range
	if (fd != 3 || syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
#endif
	{
		struct rlimit limit;

		getrlimit(RLIMIT_NOFILE, &limit);
		for (rlim_t i = 4; i < limit.rlim_cur && i < 65536; i++)
			if ((int)i != fd)
				close((int)i);
	}
	/* nothing is ever sent: only the end of file wakes it */
	do
		got = read(fd, &byte, 1);
	while (got > 0 || (got < 0 && errno == EINTR));
	last = atomic_load_explicit(group, memory_order_acquire);
	if (last > 0)
		kill(-(pid_t)last, SIGKILL);
	_exit(0);
}

/* benchgate is a subreaper (process.h): what a run's processes leave when
 * they end is adopted by benchgate, not by init. The run's group was
 * killed: its processes that benchgate adopted are reaped here, waiting
 * for the last of them to die, so that none is left as a zombie.
 * Async-signal-safe. */
static void reap_group(pid_t group)
{
	siginfo_t info;

	for (;;) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PGID, (id_t)group, &info, WEXITED) < 0 &&
		    errno != EINTR)
			break; /* ECHILD: no child of that group is left */
	}
}

/* Ends the guardian and reaps it, so that it does not outlive benchgate.
 * No group is running when this is called (benchgate kills its own
 * first), so there is nothing left for the guardian to do: it is killed
 * rather than waited for, as a fork of benchgate that still holds a copy
 * of the socket would keep its end of file from coming. Only the process
 * that started the guardian touches it; a fork just closes its copy.
 * Async-signal-safe. */
static void guardian_stop(void)
{
	pid_t pid = guardian_pid;

	close_fd(&guardian_fd);
	guardian_pid = 0;
	if (pid <= 0 || guardian_owner != getpid())
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Starts the guardian if it is not running; left without one (with a
 * warning) when that fails: the runs themselves are not concerned. */
static void guardian_start(void)
{
	static bool stops_at_exit;
	int fds[2];
	pid_t pid;

	if (guardian_fd >= 0)
		return;
	if (!guardian_group) {
		void *page = mmap(NULL, sizeof(*guardian_group),
				  PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (page == MAP_FAILED) {
			bg_warn("cannot start the guardian of benchmarks: %s",
				strerror(errno));
			return;
		}
		guardian_group = page;
		atomic_store(guardian_group, (int32_t)running_group);
		/* the kernel hands benchgate what the runs orphan */
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	}
	/* SEQPACKET: end of file on close, and nothing to read before */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0) {
		bg_warn("cannot start the guardian of benchmarks: %s",
			strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		guardian_main(fds[1], guardian_group);
	}
	close(fds[1]);
	if (pid < 0) {
		bg_warn("cannot start the guardian of benchmarks: %s",
			strerror(errno));
		close(fds[0]);
		return;
	}
	guardian_fd = fds[0];
	guardian_pid = pid;
	guardian_owner = getpid();
	if (!stops_at_exit)
		stops_at_exit = atexit(guardian_stop) == 0;
}

/* Forgets a guardian that is gone (killed by someone), reaping it. */
static void guardian_lost(void)
{
	guardian_stop();
}

/*
 * Just before a child is spawned, one poll() for two things: a guardian
 * that is gone (its end of the socket hung up) is started again, so that
 * no run goes unguarded; and what a process that left an earlier run's
 * group (setsid) wrote into the pipes since is thrown away, not counted
 * as this run's output.
 */
static void prepare_spawn(void)
{
	struct pollfd fds[3] = {
		{ .fd = guardian_fd, .events = 0 },
		{ .fd = kit.pipes[PROCESS_STDOUT][0], .events = POLLIN },
		{ .fd = kit.pipes[PROCESS_STDERR][0], .events = POLLIN },
	};
	char stale[READ_CHUNK];

	if (poll(fds, 3, 0) > 0) {
		if (fds[0].revents & (POLLHUP | POLLERR))
			guardian_lost();
		for (int i = 1; i < 3; i++)
			while ((fds[i].revents & POLLIN) &&
			       read(fds[i].fd, stale, sizeof(stale)) > 0)
				;
	}
	guardian_start();
}

/* Notes the group being run, 0 for none, for the signal handler and the
 * guardian: a store to memory they read, no system call, no message. */
static void set_running_group(pid_t group)
{
	running_group = (sig_atomic_t)group;
	if (guardian_group)
		atomic_store_explicit(guardian_group, (int32_t)group,
				      memory_order_release);
}

static bool same_name(const char *entry, const char *other)
{
	const char *eq = strchr(entry, '=');
	size_t len = eq ? (size_t)(eq - entry) : strlen(entry);

	return !strncmp(entry, other, len) &&
	       (other[len] == '=' || other[len] == '\0');
}

/* The length of the name of an environment entry "NAME=VALUE". */
static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

bool process_is_credential(const char *name)
{
	static const char *const exact[] = {
		"GITHUB_TOKEN",		  "GH_TOKEN",
		"GITHUB_ENV",		  "GITHUB_OUTPUT",
		"GITHUB_STATE",		  "GITHUB_PATH",
		"GITHUB_STEP_SUMMARY",	  "GITLAB_TOKEN",
		"CI_JOB_TOKEN",		  "CI_BUILD_TOKEN",
		"CI_REPOSITORY_URL",	  "CI_REGISTRY_PASSWORD",
		"CI_DEPLOY_PASSWORD",	  "MLFLOW_TRACKING_PASSWORD",
	};
	static const char *const prefixes[] = { "ACTIONS_", "CI_JOB_JWT" };
	size_t len = name_len(name);

	for (size_t i = 0; i < sizeof(exact) / sizeof(*exact); i++)
		if (strlen(exact[i]) == len && !strncmp(name, exact[i], len))
			return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return len >= 6 && !strncmp(name + len - 6, "_TOKEN", 6);
}

/* Whether the inherited entry is removed: a credential not passed. */
static bool scrubbed(const char *entry, const char *const *pass)
{
	if (!process_is_credential(entry))
		return false;
	for (size_t i = 0; pass && pass[i]; i++)
		if (same_name(pass[i], entry))
			return false;
	return true;
}

/* The inherited environment less its credentials (but those passed), with
 * `extra` over it ("NAME" alone removes NAME); environ itself when there
 * is nothing to change. Free the array (not the strings) when it is not
 * environ. Called at every run: each name's length is taken once, and
 * names are compared only when their lengths agree. */
static char **build_environment(const char *const *extra,
				const char *const *pass)
{
	size_t extra_nr = 0, inherited_nr = 0, nr = 0, i, j;
	size_t extra_len[64], *lens = extra_len;
	bool scrub = false;
	char **env;

	while (extra && extra[extra_nr])
		extra_nr++;
	for (; environ[inherited_nr]; inherited_nr++)
		scrub = scrub || (!extra_nr &&
				  scrubbed(environ[inherited_nr], pass));
	if (!extra_nr && !scrub)
		return environ;
	if (extra_nr > sizeof(extra_len) / sizeof(*extra_len))
		lens = xmalloc(extra_nr * sizeof(*lens));
	for (j = 0; j < extra_nr; j++)
		lens[j] = name_len(extra[j]);
	env = xmalloc((inherited_nr + extra_nr + 1) * sizeof(*env));
	for (i = 0; i < inherited_nr; i++) {
		const char *entry = environ[i];
		size_t len = name_len(entry);

		for (j = 0; j < extra_nr; j++)
			if (lens[j] == len && !memcmp(extra[j], entry, len))
				break;
		if (j == extra_nr && !scrubbed(entry, pass))
			env[nr++] = (char *)entry;
	}
	for (j = 0; j < extra_nr; j++) {
		for (i = j + 1; i < extra_nr; i++)
			if (lens[i] == lens[j] &&
			    !memcmp(extra[i], extra[j], lens[j]))
				break;
		/* the last entry for a name wins, as in a shell */
		if (i == extra_nr && extra[j][lens[j]] == '=')
			env[nr++] = (char *)extra[j];
	}
	env[nr] = NULL;
	if (lens != extra_len)
		free(lens);
	return env;
}

static void set_spawn_error(struct process_outcome *outcome,
			    const struct process_options *options,
			    const char *program, int error)
{
	struct strbuf why = STRBUF_INIT;

	outcome->status = PROCESS_SPAWN_FAILED;
	outcome->spawn_errno = error;
	/* posix_spawn reports a failed chdir like a failed exec; tell which */
	if (options->cwd && access(options->cwd, X_OK) < 0)
		strbuf_addf(&why, "cannot change to directory '%s': %s",
			    options->cwd, strerror(errno));
	else
		strbuf_addf(&why, "cannot execute '%s': %s", program,
			    strerror(error));
	outcome->spawn_error = strbuf_detach(&why, NULL);
}

/* *start is the clock just before the spawn itself: the attributes and
 * file actions are made outside the time measured. */
static int spawn_child(pid_t *pid, double *start,
		       const struct process_options *options, int devnull,
		       int out_fd, int err_fd, char *const *argv, char **env)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	int layout = -1, error;

	posix_spawn_file_actions_init(&actions);
	spawn_attr_init(&attr);

	if (options->cwd)
		posix_spawn_file_actions_addchdir_np(&actions, options->cwd);
	posix_spawn_file_actions_adddup2(&actions, devnull, 0);
	posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
	posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
	/* the child takes benchgate's personality with it: set for the
	 * spawn alone (benchgate's own layout is made already) */
	if (options->fixed_layout &&
	    (layout = personality(0xffffffff)) >= 0 &&
	    personality((unsigned long)layout | ADDR_NO_RANDOMIZE) < 0)
		layout = -1;

	*start = now_s();
	error = posix_spawnp(pid, argv[0], &actions, &attr, argv, env);
	if (layout >= 0)
		personality((unsigned long)layout);

	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&actions);
	return error;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	/* the kernel sets close-on-exec on every pidfd */
	long fd = syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0)
		return (int)fd;
#else
	(void)pid;
#endif
	return -1;
}

/* True once the child is a zombie; it is not reaped, so its pid (and the
 * group id) cannot be reused before the group is killed. */
static bool child_exited(pid_t pid, int pidfd, const struct pollfd *pidfd_poll)
{
	siginfo_t info;

	if (pidfd >= 0)
		return pidfd_poll && pidfd_poll->revents;
	memset(&info, 0, sizeof(info));
	if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return info.si_pid == pid;
}

static void set_timeout(struct timespec *ts, double seconds)
{
	/* An endless wait (INFINITY) passes no timespec to ppoll() at all,
	 * but casting it to time_t would still be undefined (clang's
	 * -fsanitize=float-cast-overflow stops on it): cap it. */
	if (!(seconds > 0))
		seconds = 0;
	else if (seconds > 1e9)
		seconds = 1e9;
	ts->tv_sec = (time_t)seconds;
	ts->tv_nsec = (long)((seconds - (double)ts->tv_sec) * 1e9);
}

static void take_usage(struct process_outcome *outcome,
		       const struct rusage *usage)
{
	outcome->utime_s = (double)usage->ru_utime.tv_sec +
			   (double)usage->ru_utime.tv_usec / 1e6;
	outcome->stime_s = (double)usage->ru_stime.tv_sec +
			   (double)usage->ru_stime.tv_usec / 1e6;
	/* Linux reports ru_maxrss in KiB */
	outcome->maxrss_bytes = (uint64_t)usage->ru_maxrss * 1024;
}

static void take_status(struct process_outcome *outcome, int status)
{
	if (WIFSIGNALED(status)) {
		outcome->status = PROCESS_SIGNALED;
		outcome->signal = WTERMSIG(status);
	} else {
		outcome->status = PROCESS_EXITED;
		outcome->exit_code = WEXITSTATUS(status);
	}
}

static int reap_child(struct process_outcome *outcome, pid_t pid)
{
	struct rusage usage;
	int status;
	pid_t got;

	memset(&usage, 0, sizeof(usage));
	do
		got = wait4(pid, &status, 0, &usage);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return bg_error("cannot reap process %d: %s", (int)pid,
				strerror(errno));
	take_status(outcome, status);
	take_usage(outcome, &usage);
	return BG_OK;
}

/* The end of a launched run, once the launcher's socket is readable:
 * the launcher reaped the child and killed its group; what the group
 * orphaned is reaped here. */
static void end_launched(struct process_outcome *outcome, pid_t pid)
{
	struct launcher_end end;

	if (launcher_end_run(pid, &end) > 0) {
		take_usage(outcome, &end.usage);
		/* the benchmark's own time, the launcher's outside */
		outcome->wall_s = (double)end.wall_ns / 1e9;
	}
	/* else the launcher died: the run reads as ended by its death */
	take_status(outcome, end.status);
	set_running_group(0);
	reap_group(pid);
}

/*
 * Waits for the end of the run, reading its output as it comes, then
 * kills what is left of its group, reaps it and reads what the group left
 * in the pipes. The end is the child's pidfd becoming readable, or for a
 * launched run (launched), the launcher's reply. The pipes never hang up
 * (kit): only output and the end wake this loop.
 */
static int wait_for_child(struct process_outcome *outcome,
			  const struct process_options *options, pid_t pid,
			  bool launched, double start,
			  struct capture_state *streams)
{
	double term_at = options->timeout_s > 0 ? start + options->timeout_s
						: INFINITY;
	double grace = options->grace_s > 0 ? options->grace_s
					    : PROCESS_GRACE_DEFAULT;
	double kill_at = INFINITY;
	double fallback_wait = FALLBACK_POLL_MIN_S;
	int pidfd = launched ? -1 : open_pidfd(pid);
	int end_fd = launched ? launcher_fd() : pidfd;
	bool exited = false;
	int error = BG_OK;

	while (!exited) {
		struct pollfd fds[3];
		struct pollfd *end_poll = NULL;
		struct timespec timeout;
		double now, wake;
		nfds_t nr = 0;
		int i;

		for (i = 0; i < 2; i++) {
			if (streams[i].fd < 0)
				continue;
			fds[nr].fd = streams[i].fd;
			fds[nr].events = POLLIN;
			fds[nr].revents = 0;
			nr++;
		}
		if (end_fd >= 0) {
			end_poll = &fds[nr];
			fds[nr].fd = end_fd;
			fds[nr].events = POLLIN;
			fds[nr].revents = 0;
			nr++;
		}
		wake = outcome->timed_out ? kill_at : term_at;
		now = now_s();
		if (end_fd < 0 && wake > now + fallback_wait) {
			wake = now + fallback_wait;
			fallback_wait *= 2;
			if (fallback_wait > FALLBACK_POLL_MAX_S)
				fallback_wait = FALLBACK_POLL_MAX_S;
		}
		set_timeout(&timeout, wake - now);
		if (ppoll(fds, nr, isinf(wake) ? NULL : &timeout, NULL) < 0 &&
		    errno != EINTR) {
			error = bg_error("cannot poll the child's output: %s",
					 strerror(errno));
			break;
		}

		for (i = 0, nr = 0; i < 2; i++)
			if (streams[i].fd >= 0 && fds[nr++].revents)
				capture_read(&streams[i]);

		if (launched && end_poll->revents) {
			end_launched(outcome, pid);
			exited = true;
			break;
		}
		if (!launched && child_exited(pid, pidfd, end_poll)) {
			outcome->wall_s = now_s() - start;
			/* nothing of this run may outlive it */
			kill(-pid, SIGKILL);
			set_running_group(0);
			if ((error = reap_child(outcome, pid)) < 0)
				break;
			reap_group(pid);
			exited = true;
			break;
		}

		now = now_s();
		if (!outcome->timed_out && now >= term_at) {
			kill(-pid, SIGTERM);
			outcome->timed_out = true;
			kill_at = now + grace;
		} else if (outcome->timed_out && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = INFINITY;
		}
	}

	if (!exited) {
		/* only after a harness failure: leave nothing behind */
		kill(-pid, SIGKILL);
		set_running_group(0);
		if (launched)
			launcher_stop();
		else
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		reap_group(pid);
	}
	/* no writer of the group is left: the pipes hold all it wrote */
	capture_drain(streams);
	close_fd(&pidfd);
	return error;
}

/* Spawns the run directly, or through the launcher; 0 or the errno of
 * the exec that failed, or BG_ERROR when the launcher failed. */
static int spawn_run(pid_t *pid, double *start,
		     const struct process_options *options,
		     const char *const *argv, char **env)
{
	struct launcher_run run;

	if (!options->launcher)
		return spawn_child(pid, start, options, kit.devnull,
				   kit.pipes[PROCESS_STDOUT][1],
				   kit.pipes[PROCESS_STDERR][1],
				   (char *const *)argv, env);
	run.path = options->launcher;
	run.stdio[0] = kit.devnull;
	run.stdio[1] = kit.pipes[PROCESS_STDOUT][1];
	run.stdio[2] = kit.pipes[PROCESS_STDERR][1];
	run.cwd = options->cwd;
	run.argv = argv;
	run.env = env;
	/* the run's own time is the launcher's to take: this one bounds
	 * the timeout */
	*start = now_s();
	return launcher_start_run(&run, pid);
}

int process_run(struct process_outcome *outcome,
		const struct process_options *options)
{
	size_t cap = options->capture_cap ? options->capture_cap
					  : PROCESS_CAPTURE_CAP_DEFAULT;
	const char *shell_argv[] = { "/bin/sh", "-c", options->shell, NULL };
	const char *const *argv = options->shell ? shell_argv : options->argv;
	struct capture_state streams[2];
	int spawned, error = BG_OK;
	char **env = NULL;
	sigset_t termination, old_mask;
	double start;
	pid_t pid;

	assert(argv && argv[0]);
	/* before the kit exists: the guardian is forked from here */
	guardian_start();
	process_outcome_release(outcome);
	outcome->timeout_s = options->timeout_s;
	capture_init(&streams[0], &outcome->out, PROCESS_STDOUT,
		     options->observer, cap);
	capture_init(&streams[1], &outcome->err, PROCESS_STDERR,
		     options->observer, cap);

	if ((error = kit_ensure()) < 0)
		goto done;
	env = build_environment(options->env, options->pass_env);

	/* a termination signal between the spawn and the note of the group
	 * would leave the child behind: hold it until the note is taken */
	sigemptyset(&termination);
	sigaddset(&termination, SIGINT);
	sigaddset(&termination, SIGTERM);
	sigaddset(&termination, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &termination, &old_mask);
	/* before the child: forking benchgate (slow under ASan) between the
	 * spawn and the store of its group would leave a child no one guards */
	prepare_spawn();
	spawned = spawn_run(&pid, &start, options, argv, env);
	if (!spawned)
		set_running_group(pid);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	if (spawned < 0) {
		error = spawned;
		goto done;
	}
	if (spawned) {
		set_spawn_error(outcome, options, argv[0], spawned);
		goto done;
	}

	streams[0].fd = kit.pipes[PROCESS_STDOUT][0];
	streams[1].fd = kit.pipes[PROCESS_STDERR][0];
	error = wait_for_child(outcome, options, pid, options->launcher != NULL,
			       start, streams);

done:
	capture_finish(&streams[0]);
	capture_finish(&streams[1]);
	if (env != environ)
		free(env);
	return error;
}

double process_launched_cpu_s(void)
{
	return launcher_runs_cpu_s();
}

static volatile sig_atomic_t catching, caught;

static void kill_running_group(int sig)
{
	pid_t group = (pid_t)running_group;

	/* only async-signal-safe calls from here on */
	if (group > 0)
		kill(-group, SIGKILL);
	if (catching && !caught) {
		caught = sig;
		return;
	}
	/* atexit() handlers do not run: the launcher, what the group
	 * orphaned (the launcher's run among them, once it is gone) and the
	 * guardian are reaped here */
	launcher_stop();
	if (group > 0)
		reap_group(group);
	guardian_stop();
	signal(sig, SIG_DFL);
	raise(sig);
}

void process_catch_interrupts(bool on)
{
	catching = on;
}

int process_interrupted(void)
{
	return caught;
}

void process_end_if_interrupted(void)
{
	if (!caught)
		return;
	launcher_stop();
	guardian_stop();
	signal(caught, SIG_DFL);
	raise(caught);
}

void process_forward_termination(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction action, old;

	memset(&action, 0, sizeof(action));
	action.sa_handler = kill_running_group;
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(*signals); i++) {
		if (sigaction(signals[i], NULL, &old) < 0 ||
		    old.sa_handler != SIG_DFL)
			continue;
		sigaction(signals[i], &action, NULL);
	}
}

bool process_outcome_failed(const struct process_outcome *outcome)
{
	return outcome->status != PROCESS_EXITED || outcome->exit_code != 0 ||
	       outcome->timed_out;
}

void process_outcome_describe(const struct process_outcome *outcome,
			      struct strbuf *out)
{
	if (outcome->status == PROCESS_SPAWN_FAILED)
		strbuf_addstr(out, outcome->spawn_error ? outcome->spawn_error
							: "cannot execute");
	else if (outcome->timed_out)
		strbuf_addf(out, "timed out after %gs", outcome->timeout_s);
	else if (outcome->status == PROCESS_SIGNALED)
		strbuf_addf(out, "killed by signal %d (%s)", outcome->signal,
			    strsignal(outcome->signal));
	else
		strbuf_addf(out, "exited with status %d", outcome->exit_code);
}
