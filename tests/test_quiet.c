/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The processes a measurement names as busy (run/quiet.h): those that
 * used a share of a core during it, from their CPU time at its start and
 * end, whether they were there at the start or started during it; not
 * one that was busy only before it, nor benchgate's own children.
 * Spinners of this test stand in for the other jobs: stopped and
 * continued with signals, so each is busy exactly when the test says.
 */
#include "harness/model/result.h"
#include "harness/run/quiet.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

TestSuite(quiet);

static void spin(void)
{
	for (;;)
		;
}

/* A process that spins, not this one's child (benchgate's own children
 * are never named): a grandchild whose parent has gone. Stopped first
 * when `stopped`. */
static pid_t spinner(bool stopped)
{
	int pipe_fds[2];
	pid_t child, grandchild = -1;

	cr_assert_eq(pipe(pipe_fds), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (!child) {
		pid_t pid = fork();

		if (!pid) {
			if (stopped)
				raise(SIGSTOP);
			spin();
		}
		_exit(write(pipe_fds[1], &pid, sizeof(pid)) == sizeof(pid)
			      ? 0
			      : 1);
	}
	cr_assert_eq(waitpid(child, NULL, 0), child);
	cr_assert_eq(read(pipe_fds[0], &grandchild, sizeof(grandchild)),
		     sizeof(grandchild));
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	cr_assert_gt(grandchild, 0);
	return grandchild;
}

static void sleep_s(double seconds)
{
	struct timespec ts = { .tv_sec = (time_t)seconds,
			       .tv_nsec = (long)((seconds - (double)(time_t)
								seconds) *
						 1e9) };

	while (nanosleep(&ts, &ts) < 0)
		;
}

/* Waits until pid has stopped (its state in /proc/PID/stat is 'T'): a
 * spinner that stops itself may not have run that far yet on a loaded
 * machine, and a SIGCONT sent before it stops would be lost. A guard of
 * 30 s against a hang, not a timing claim. */
static void wait_stopped(pid_t pid)
{
	char path[64], stat[1024];
	const char *end;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int tries = 0; tries < 30000; tries++) {
		FILE *file = fopen(path, "r");
		size_t len;

		cr_assert_not_null(file, "%s: %s", path, strerror(errno));
		len = fread(stat, 1, sizeof(stat) - 1, file);
		fclose(file);
		stat[len] = '\0';
		/* "pid (comm) S ...": the state follows the last ')' */
		end = strrchr(stat, ')');
		if (end && end[1] == ' ' && end[2] == 'T')
			return;
		sleep_s(0.001);
	}
	cr_assert_fail("process %d did not stop", (int)pid);
}

/* The share of a core recorded for pid, or -1 when it is not named. */
static double named(const struct machine_load *load, pid_t pid)
{
	for (size_t i = 0; i < load->busy_nr; i++)
		if (load->busy[i].pid == pid)
			return load->busy[i].cpu;
	return -1;
}

Test(quiet, names_the_processes_busy_during_the_measurement)
{
	struct machine_load load = { 0 };
	struct quiet_watch *watch;
	pid_t before, resumed, late, child;

	/* busy before the start only */
	before = spinner(false);
	sleep_s(0.3);
	cr_assert_eq(kill(before, SIGSTOP), 0);
	/* there at the start, idle, then busy */
	resumed = spinner(true);
	wait_stopped(resumed);
	child = fork();
	cr_assert_geq(child, 0);
	if (!child)
		spin();
	watch = quiet_begin();
	cr_assert_eq(kill(resumed, SIGCONT), 0);
	/* started during it */
	late = spinner(false);
	sleep_s(0.6);
	quiet_end(watch, &load);
	kill(before, SIGKILL);
	kill(resumed, SIGKILL);
	kill(late, SIGKILL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	cr_assert(load.observed);
	cr_assert_geq(named(&load, resumed), QUIET_PROCESS_CPU);
	cr_assert_geq(named(&load, late), QUIET_PROCESS_CPU);
	cr_assert_eq(named(&load, before), -1, "%g",
		     named(&load, before));
	cr_assert_eq(named(&load, child), -1);
	for (size_t i = 0; i < load.busy_nr; i++)
		if (load.busy[i].pid == resumed)
			cr_assert_str_eq(load.busy[i].command, "test_quiet");
	machine_load_release(&load);
}
