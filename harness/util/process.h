/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PROCESS_H
#define BENCHGATE_PROCESS_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Running one child process and measuring it.
 *
 * The child is started with posix_spawn (no shell unless one is asked for
 * explicitly) in a process group of its own, with stdin from /dev/null and
 * stdout and stderr captured through pipes. Every run of a process reuses
 * that /dev/null and the two pipes, made at its first run (a fork makes
 * its own), so a run opens and closes no descriptor but its pidfd; one
 * process_run() at a time, as they share them. The whole group is the unit of
 * control: a timeout sends SIGTERM to the group, then SIGKILL after a grace
 * period; and once the main child has exited, whatever is left in its group
 * is killed, so a lingering grandchild neither keeps the pipes open nor runs
 * into the next measurement.
 *
 * Exit is noticed through a pidfd polled together with the pipes, so a run
 * costs a spawn, a poll and a reap: no sleeping, no SIGCHLD handler. The
 * pipes never hang up (benchgate holds their write ends): only output and
 * the exit wake benchgate, once for an exit, and what the group wrote is
 * read to the end once the group is gone. Where pidfds are not available
 * a short, growing poll timeout stands in.
 *
 * Nothing of a run outlives benchgate, even one killed with SIGKILL: the
 * first process_run() forks a guardian, a small process (a copy of
 * benchgate with none of its descriptors, blocked in read()) that holds
 * one end of a socket whose other end only benchgate holds, and a page
 * of memory shared with benchgate where the group being run is written as
 * the run starts and cleared as it ends: a store, no message and no
 * system call per run, and the guardian is never woken but once. When
 * benchgate is gone, however it died, the socket reads end of file and
 * the guardian kills the group the page names, then exits. It
 * ignores the terminal's signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) so as
 * to outlive benchgate; one killed anyway is started again at the next
 * run. Why not the kernel's parent-death signal alone: posix_spawn() has
 * no step between fork and exec to set it, forking benchgate for every
 * run costs page tables where spawn costs none, and PR_SET_PDEATHSIG
 * reaches only the child itself, never the grandchildren it starts, which
 * the guardian's kill of the group does. Being a subreaper does not help
 * there: it adopts orphans only while it lives, and there benchgate is
 * what died.
 * A run started by the launcher is guarded the same way, and the
 * launcher also kills it when benchgate dies (launcher.h). Left
 * uncovered: a descendant that leaves the group (setsid), as the timeout
 * misses it too, and benchgate killed in the microseconds between a
 * spawn and the store of its group. What such a descendant writes after
 * its run ended is thrown away before the next spawn, not counted as the
 * next run's; what it writes while a later run runs is that run's.
 *
 * What a run's processes orphan as they end is not left to init either:
 * benchgate makes itself a subreaper (PR_SET_CHILD_SUBREAPER) at its first
 * run, adopts them, and once the run's group is killed, reaps those of
 * the group, so that none is left as a zombie under whatever started
 * benchgate (a CI runner's init that does not reap, a test harness).
 *
 * Nor do the guardian and the launcher outlive benchgate: at exit
 * (atexit(), and in the handler of a signal that ends benchgate)
 * benchgate closes its ends of their sockets and reaps them, so that no
 * process of benchgate's is left after any command, not even a dead one
 * waiting to be reaped.
 *
 * The caller must not ignore SIGCHLD nor reap children with waitpid(-1)
 * while process_run() is active: the child is reaped here, by pid. The
 * guardian and the launcher are children too, reaped here once they
 * are found gone.
 */

/* Bytes kept of each of stdout and stderr when not told otherwise. */
#define PROCESS_CAPTURE_CAP_DEFAULT ((size_t)1024 * 1024)

/* Seconds between SIGTERM and SIGKILL when not told otherwise. */
#define PROCESS_GRACE_DEFAULT 2.0

/* The two captured streams of the child. */
enum process_stream {
	PROCESS_STDOUT = 0,
	PROCESS_STDERR = 1
};

/*
 * Sees ALL of the child's stdout and stderr, not only what the capture
 * keeps (struct process_capture): output() gets every byte read from the
 * pipes exactly once, in order within each stream, as it is read, with
 * the observer's payload. A consumer that must not lose output (a regex
 * metric, collectors.h) reads it here, and keeps what it needs as it
 * goes. Called on the thread that runs process_run(), before it returns.
 * The pipes are not read while output() runs, and a child whose pipe is
 * full waits: keep it short. The data is borrowed for the call only.
 */
struct process_observer {
	void (*output)(void *payload, enum process_stream stream,
		       const char *data, size_t len);
	void *payload;
};

struct process_options {
	/* argv[0] is looked up in benchgate's own PATH (not one set in env)
	 * when it has no '/'; a relative path with a '/' is relative to cwd.
	 * NULL-terminated. Ignored when shell is set. */
	const char *const *argv;
	/* Explicit opt-in: run "/bin/sh -c shell". */
	const char *shell;
	/* "NAME=VALUE" entries added to (and overriding) the inherited
	 * environment, and "NAME" entries removing NAME from it; the last
	 * entry for a name wins. NULL-terminated, or NULL for none. The
	 * inherited environment never holds credentials
	 * (process_is_credential()) but those pass_env names. */
	const char *const *env;
	/* Working directory of the child; NULL: inherit. */
	const char *cwd;
	/* Seconds before the group gets SIGTERM; 0: no timeout. */
	double timeout_s;
	/* Seconds from SIGTERM to SIGKILL; 0: PROCESS_GRACE_DEFAULT. */
	double grace_s;
	/* Bytes kept per stream; 0: PROCESS_CAPTURE_CAP_DEFAULT. */
	size_t capture_cap;
	/* Path of benchgate-launch (launcher.h), an absolute one; NULL:
	 * spawn the child directly. Through it, the outcome's rusage is the
	 * child's own: maxrss does not include benchgate's memory. The
	 * launcher is started at the first such run and serves every later
	 * one until benchgate exits (launcher_client.h); the child is in a
	 * group of its own as without it, and the outcome reads the same. */
	const char *launcher;
	/* Sees all of the output as it is read; NULL: none. Borrowed. */
	const struct process_observer *observer;
	/* Names of inherited variables the child keeps although they are
	 * credentials (process_is_credential()); NULL-terminated, or NULL
	 * for none. */
	const char *const *pass_env;
	/* The child's address space is not randomized (personality
	 * ADDR_NO_RANDOMIZE, as `setarch -R` does), so that a count that
	 * depends on where things are (malloc's alignment, a hash of a
	 * pointer) is the same at every run: callgrind's instructions. Best
	 * effort: where the kernel refuses it (a seccomp filter), the run
	 * goes on randomized. Not through a launcher. */
	bool fixed_layout;
};

#define PROCESS_OPTIONS_INIT                                             \
	{                                                                \
		NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, false \
	}

/*
 * Whether the inherited variable `name` (up to '=' or the end) is a CI
 * credential or a file of workflow commands, which no child gets unless
 * options->pass_env names it: code a pull request controls runs as a
 * child (a benchmark, a build command), and must not reach the job's
 * tokens nor write the job's environment, outputs or path. They are
 * GITHUB_TOKEN, GH_TOKEN, every ACTIONS_* (the runtime and OIDC tokens),
 * the workflow-command files GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE,
 * GITHUB_PATH and GITHUB_STEP_SUMMARY, GITLAB_TOKEN, CI_JOB_TOKEN,
 * CI_BUILD_TOKEN, CI_JOB_JWT*, CI_REPOSITORY_URL (which embeds the job
 * token), CI_REGISTRY_PASSWORD, CI_DEPLOY_PASSWORD,
 * MLFLOW_TRACKING_PASSWORD, and every name that ends in _TOKEN.
 */
bool process_is_credential(const char *name);

/*
 * The captured output of one stream, bounded by the cap like curl's dynbuf
 * but without failing: the pipe is drained to the end whatever the child
 * writes, the first half of the cap and the last half are kept, and the
 * bytes in between are counted. So a flood of 200 MB neither blocks the
 * child nor grows memory, and the last lines (where errors and summaries
 * are) survive.
 *
 * `text` holds the kept bytes (head then tail, NUL-terminated; the child's
 * own NUL bytes are kept too); `dropped` bytes were left out at offset
 * `dropped_at` of text. The head and the tail are joined there with
 * nothing between them: the bytes on the two sides were never next to
 * each other, so whoever shows text marks the cut there (the case log
 * writes a line "[... N bytes dropped]"), and nothing may be parsed
 * across it. What was measured from the output is read from all of it,
 * through a process_observer, never from this.
 */
struct process_capture {
	struct strbuf text;
	size_t dropped;
	size_t dropped_at;
};

enum process_status {
	PROCESS_EXITED = 0,   /* exit_code is valid */
	PROCESS_SIGNALED,     /* signal is valid */
	PROCESS_SPAWN_FAILED, /* spawn_errno is valid; nothing ran */
};

struct process_outcome {
	enum process_status status;
	int exit_code;
	int signal;
	int spawn_errno;
	char *spawn_error; /* "cannot execute 'x': No such file ..." */
	bool timed_out;	   /* the group got SIGTERM at the deadline */
	double timeout_s;  /* copied from the options, for messages */
	double wall_s;	   /* CLOCK_MONOTONIC, spawn to exit, taken by
			    * whoever spawned the child (launcher.h) */
	/* rusage of the child and its reaped descendants, from wait4().
	 * Without a launcher, maxrss is at least benchgate's own peak RSS,
	 * which exec carries over (launcher.h); with one, it is the child's.
	 * A launcher killed mid-run (by someone) leaves them zero, and the
	 * status its own. */
	double utime_s;
	double stime_s;
	uint64_t maxrss_bytes;
	struct process_capture out;
	struct process_capture err;
};

/* Sets an outcome up empty (no allocation). */
void process_outcome_init(struct process_outcome *outcome);

/* Frees the outcome's contents and leaves it as after init. */
void process_outcome_release(struct process_outcome *outcome);

/*
 * Runs the child described by options to completion and fills outcome
 * (which must have been initialised; its previous contents are released).
 *
 * Returns BG_OK whenever the outcome says what happened, including a
 * child that could not be executed (PROCESS_SPAWN_FAILED, with the reason
 * in spawn_error), crashed or timed out. BG_ERROR only when the harness
 * itself failed (no pipes, no /dev/null, the child could not be reaped);
 * the outcome is then unspecified but safe to release.
 */
int process_run(struct process_outcome *outcome,
		const struct process_options *options);

/*
 * CPU seconds of the runs a launcher started and reaped, that getrusage()'s
 * RUSAGE_CHILDREN does not count yet (launcher_client.h): what benchgate
 * and its runs used is getrusage() of itself and of its children plus
 * this.
 */
double process_launched_cpu_s(void);

/*
 * Makes SIGINT, SIGTERM and SIGHUP sent to benchgate kill the group of the
 * child being run as well, then end benchgate by that same signal. In a
 * group of its own, the child does not get the terminal's Ctrl-C: without
 * this it would outlive an interrupted benchgate. Signals that benchgate
 * ignores (nohup) stay ignored. Call once, early, from the command layer.
 */
void process_forward_termination(void);

/*
 * While a measurement runs (on: true), the first such signal kills the
 * child's group but does not end benchgate: it is remembered, for the
 * measurement to stop at its next step and leave the store as it was
 * (session.h); a second one ends benchgate at once. Off again, a signal
 * ends benchgate as above.
 */
void process_catch_interrupts(bool on);

/* The signal caught while interrupts were caught, or 0. */
int process_interrupted(void);

/* Ends benchgate by the caught signal, as it would have ended without
 * catching it (exit status 128 + signal for the shell); returns when none
 * was caught. */
void process_end_if_interrupted(void);

/* True when the run did not end with exit status 0 on its own. */
bool process_outcome_failed(const struct process_outcome *outcome);

/*
 * Appends why the run failed to out: "cannot execute 'x': ...", "timed
 * out after 2s", "killed by signal 11 (Segmentation fault)", "exited with
 * status 3"; or "exited with status 0" for a run that succeeded.
 */
void process_outcome_describe(const struct process_outcome *outcome,
			      struct strbuf *out);

#endif
