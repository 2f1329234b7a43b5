/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/process.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define WORKLOAD(name) TEST_WORKLOAD_DIR "/" name

static struct process_outcome outcome;
/* The launcher the helpers below run through; a test sets it to run them
 * through benchgate-launch. */
static const char *launcher;

static void setup(void)
{
	process_outcome_init(&outcome);
	/*
	 * Orphaned grandchildren are re-parented to this test process, so it
	 * can reap them and tell "killed" from "still running" without
	 * relying on the container's init to reap zombies.
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static void teardown(void)
{
	process_outcome_release(&outcome);
}

TestSuite(process, .init = setup, .fini = teardown);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_argv(const char *const *argv)
{
	struct process_options options = PROCESS_OPTIONS_INIT;

	options.argv = argv;
	options.timeout_s = 10;
	options.launcher = launcher;
	cr_assert_eq(process_run(&outcome, &options), 0);
}

static void run_shell(const char *shell)
{
	struct process_options options = PROCESS_OPTIONS_INIT;

	options.shell = shell;
	options.timeout_s = 10;
	options.launcher = launcher;
	cr_assert_eq(process_run(&outcome, &options), 0);
}

static char *describe(void)
{
	struct strbuf why = STRBUF_INIT;

	process_outcome_describe(&outcome, &why);
	return strbuf_detach(&why, NULL);
}

/* Whether pid runs: it exists and is not a zombie (one whose parent, not
 * this process, has yet to reap it). */
static bool running(pid_t pid)
{
	char path[64], stat[1024];
	const char *end;
	FILE *file;
	size_t len;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(file = fopen(path, "r")))
		return false;
	len = fread(stat, 1, sizeof(stat) - 1, file);
	fclose(file);
	stat[len] = '\0';
	/* "pid (comm) S ...": the state follows the last ')' */
	end = strrchr(stat, ')');
	return !end || (end[1] != ' ' || (end[2] != 'Z' && end[2] != 'X'));
}

/*
 * How long the tests wait for something that is bound to happen (a pid
 * file written, a killed group reaped): a guard against a hang, not a
 * timing claim. On a loaded runner (ctest -j2 beside two busy loops) the
 * guardian that kills a group may wait more than a second for a core,
 * and a success returns as soon as it is seen.
 */
#define PATIENCE_S 30

/* Waits up to PATIENCE_S for pid (our child by subreaping) to be reaped
 * and says how it ended; 0 when it ended as another's child; -1 when it
 * is still running. */
static int reap_orphan(pid_t pid)
{
	double until = now_s() + PATIENCE_S;
	int status;

	while (now_s() < until) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status;
		/* not ours: its parent lives on, so only its state tells */
		if (got < 0 && errno == ECHILD && !running(pid))
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * Waits up to PATIENCE_S for the runner `helper` to block in ppoll(): it
 * is then waiting for its run, whose group it has noted for the guardian
 * and the signal handler. Before that note (process.h: benchgate killed
 * between a spawn and the store of its group) nothing can kill the run,
 * and a loaded machine can hold a runner there long after its child
 * wrote its pid file: a test that kills the runner waits for this first.
 */
static void wait_until_waiting(pid_t helper)
{
	double until = now_s() + PATIENCE_S;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)helper);
	while (now_s() < until) {
		char *text = test_read_file(path);
		long number = -1;

		cr_assert_not_null(text, "cannot read %s", path);
		/* "running" while it runs, else the number of the call */
		if (sscanf(text, "%ld", &number) != 1)
			number = -1;
		free(text);
		if (number == SYS_ppoll)
			return;
		usleep(1000);
	}
	cr_assert_fail("runner %d never waited for its run", (int)helper);
}

/* The field-th pid (0-based) in the file, waiting up to PATIENCE_S for
 * it. */
static pid_t read_pid_file(const char *path, int field)
{
	double until = now_s() + PATIENCE_S;
	char *text, *p;
	pid_t pid;

	while (!(text = test_read_file(path)) && now_s() < until)
		usleep(1000);
	cr_assert_not_null(text, "no pid file %s", path);
	p = text;
	pid = (pid_t)strtol(p, &p, 10);
	while (field-- > 0)
		pid = (pid_t)strtol(p, &p, 10);
	free(text);
	return pid;
}

Test(process, true_exits_zero_and_is_measured)
{
	const char *argv[] = { "/bin/true", NULL };

	run_argv(argv);
	cr_assert_eq(outcome.status, PROCESS_EXITED);
	cr_assert_eq(outcome.exit_code, 0);
	cr_assert_not(outcome.timed_out);
	cr_assert_not(process_outcome_failed(&outcome));
	cr_assert_gt(outcome.wall_s, 0);
	cr_assert_lt(outcome.wall_s, 5);
	cr_assert_gt(outcome.maxrss_bytes, 64u << 10);
	cr_assert_eq(outcome.out.text.len, 0);
	cr_assert_eq(outcome.err.text.len, 0);
}

Test(process, captures_stdout_and_stderr_apart)
{
	run_shell("echo to-out; echo to-err >&2; echo more-out");
	cr_assert_str_eq(outcome.out.text.buf, "to-out\nmore-out\n");
	cr_assert_str_eq(outcome.err.text.buf, "to-err\n");
	cr_assert_eq(outcome.out.dropped, 0);
}

Test(process, nonzero_exit_is_reported)
{
	const char *argv[] = { WORKLOAD("exit_nonzero"), "3", NULL };
	char *why;

	run_argv(argv);
	cr_assert_eq(outcome.status, PROCESS_EXITED);
	cr_assert_eq(outcome.exit_code, 3);
	cr_assert(process_outcome_failed(&outcome));
	why = describe();
	cr_assert_str_eq(why, "exited with status 3");
	cr_assert_not_null(strstr(outcome.err.text.buf, "error line 30\n"));
	free(why);
}

Test(process, crash_is_reported_with_the_signal_name)
{
	const char *argv[] = { WORKLOAD("crash_segv"), NULL };
	char *why;

	run_argv(argv);
	cr_assert_eq(outcome.status, PROCESS_SIGNALED);
	cr_assert_eq(outcome.signal, SIGSEGV);
	cr_assert_not(outcome.timed_out);
	why = describe();
	cr_assert_str_eq(why, "killed by signal 11 (Segmentation fault)");
	cr_assert_str_eq(outcome.out.text.buf, "about to crash\n");
	free(why);
}

Test(process, missing_program_is_a_spawn_error)
{
	const char *argv[] = { "/nonexistent/benchgate-program", NULL };
	char *why;

	run_argv(argv);
	cr_assert_eq(outcome.status, PROCESS_SPAWN_FAILED);
	cr_assert_eq(outcome.spawn_errno, ENOENT);
	cr_assert(process_outcome_failed(&outcome));
	why = describe();
	cr_assert_str_eq(why, "cannot execute '/nonexistent/benchgate-program':"
			      " No such file or directory");
	free(why);
}

Test(process, program_is_looked_up_in_path)
{
	const char *found[] = { "true", NULL };
	const char *missing[] = { "benchgate-no-such-program", NULL };

	run_argv(found);
	cr_assert_eq(outcome.status, PROCESS_EXITED);
	cr_assert_eq(outcome.exit_code, 0);
	run_argv(missing);
	cr_assert_eq(outcome.status, PROCESS_SPAWN_FAILED);
	cr_assert_eq(outcome.spawn_errno, ENOENT);
}

Test(process, missing_directory_is_named)
{
	const char *argv[] = { "/bin/true", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;

	options.argv = argv;
	options.cwd = "/nonexistent/dir";
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(outcome.status, PROCESS_SPAWN_FAILED);
	cr_assert_str_eq(outcome.spawn_error,
			 "cannot change to directory '/nonexistent/dir': "
			 "No such file or directory");
}

Test(process, cwd_and_environment_are_applied)
{
	const char *env[] = { "BG_TEST_NEW=stale", "BG_TEST_NEW=fresh",
			      "HOME=/overridden", "BG_TEST_GONE", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	char *dir = test_tmpdir();
	char *expected = NULL;
	size_t len;

	/* the last entry for a name wins; a bare name removes it */
	setenv("BG_TEST_GONE", "inherited", 1);
	options.shell = "pwd; echo \"$BG_TEST_NEW $HOME "
			"${BG_TEST_GONE-unset}\"; env | grep -c '^HOME='";
	options.env = env;
	options.cwd = dir;
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(outcome.exit_code, 0);
	len = strlen(dir) + 64;
	expected = xmalloc(len);
	snprintf(expected, len, "%s\nfresh /overridden unset\n1\n", dir);
	cr_assert_str_eq(outcome.out.text.buf, expected);
	free(expected);
	test_rmtree(dir);
	free(dir);
}

Test(process, stdin_is_dev_null)
{
	run_shell("cat; echo eof");
	cr_assert_str_eq(outcome.out.text.buf, "eof\n");
}

Test(process, ignored_signals_are_not_inherited)
{
	const char *argv[] = { "grep", "SigIgn", "/proc/self/status", NULL };
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	unsigned long long ignored;

	run_argv(argv);
	signal(SIGPIPE, old);
	/* the mask is hex, bit n-1 for signal n (proc(5)); 1..31 are the
	 * standard signals, the rest belong to libc and the sanitizers */
	ignored = strtoull(outcome.out.text.buf + strlen("SigIgn:"), NULL, 16);
	cr_assert_eq(ignored & 0x7fffffffull, 0, "SigIgn %s",
		     outcome.out.text.buf);
}

static void check_timeout_kills_group(const char *mode, double min_s,
				      double max_s)
{
	struct process_options options = PROCESS_OPTIONS_INIT;
	char *dir = test_tmpdir();
	size_t len = strlen(dir) + 16;
	char *pid_path = xmalloc(len);
	const char *argv[] = { WORKLOAD("hang_with_grandchild"), pid_path, mode,
			       NULL };
	double start, elapsed;
	pid_t child, grandchild;
	int status;
	char *why;

	snprintf(pid_path, len, "%s/pid", dir);
	options.argv = argv;
	options.timeout_s = 1;
	options.grace_s = 0.5;
	options.launcher = launcher;
	start = now_s();
	cr_assert_eq(process_run(&outcome, &options), 0);
	elapsed = now_s() - start;

	cr_assert(outcome.timed_out);
	cr_assert_eq(outcome.status, PROCESS_SIGNALED);
	cr_assert_geq(elapsed, min_s, "returned after %.3f s", elapsed);
	cr_assert_lt(elapsed, max_s, "returned after %.3f s", elapsed);
	why = describe();
	cr_assert_str_eq(why, "timed out after 1s");
	cr_assert_not_null(strstr(outcome.out.text.buf, "hanging"));

	/* through a launcher, the benchmark is an orphan like its child */
	child = read_pid_file(pid_path, 0);
	cr_assert_neq(reap_orphan(child), -1, "child %d still running",
		      (int)child);
	grandchild = read_pid_file(pid_path, 1);
	status = reap_orphan(grandchild);
	cr_assert_neq(status, -1, "grandchild %d still running",
		      (int)grandchild);
	cr_assert_eq(kill(grandchild, 0), -1);
	cr_assert_eq(errno, ESRCH);

	free(why);
	free(pid_path);
	test_rmtree(dir);
	free(dir);
}

Test(process, timeout_terminates_the_group_and_its_stubborn_grandchild)
{
	/* the child dies of SIGTERM; the grandchild, which ignores it, is
	 * killed as soon as the child is gone */
	check_timeout_kills_group("", 1.0, 1.9);
	cr_assert_eq(outcome.signal, SIGTERM);
}

Test(process, timeout_escalates_to_sigkill_after_the_grace_period)
{
	check_timeout_kills_group("ignore-term", 1.5, 2.6);
	cr_assert_eq(outcome.signal, SIGKILL);
}

Test(process, lingering_grandchild_is_killed_when_the_child_exits)
{
	char *dir = test_tmpdir();
	struct strbuf shell = STRBUF_INIT;
	struct strbuf pid_path = STRBUF_INIT;
	double start, elapsed;
	pid_t lingering;
	int status;

	strbuf_addf(&pid_path, "%s/pid", dir);
	/* the background sleep holds stdout open: without the group kill
	 * the run would last 30 s */
	strbuf_addf(&shell, "sleep 30 & echo $! > '%s'; echo started",
		    pid_path.buf);
	start = now_s();
	run_shell(shell.buf);
	elapsed = now_s() - start;
	cr_assert_eq(outcome.exit_code, 0);
	cr_assert_not(outcome.timed_out);
	cr_assert_lt(elapsed, 1.0, "returned after %.3f s", elapsed);
	cr_assert_str_eq(outcome.out.text.buf, "started\n");

	lingering = read_pid_file(pid_path.buf, 0);
	status = reap_orphan(lingering);
	cr_assert_neq(status, -1, "sleep %d still running", (int)lingering);
	cr_assert_eq(kill(lingering, 0), -1);

	strbuf_release(&shell);
	strbuf_release(&pid_path);
	test_rmtree(dir);
	free(dir);
}

/* The descriptors this process has open. */
static int open_descriptors(void)
{
	int nr = 0;
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;

	cr_assert_not_null(dir);
	while ((entry = readdir(dir)))
		nr += entry->d_name[0] != '.';
	closedir(dir);
	return nr;
}

Test(process, runs_reuse_their_descriptors_and_keep_their_output_apart)
{
	struct strbuf shell = STRBUF_INIT, out = STRBUF_INIT,
		      err = STRBUF_INIT;
	int before;

	run_shell("true");
	before = open_descriptors();
	for (int i = 0; i < 20; i++) {
		strbuf_reset(&shell);
		strbuf_addf(&shell, "echo run %d; echo err %d >&2", i, i);
		run_shell(shell.buf);
		strbuf_reset(&out);
		strbuf_addf(&out, "run %d\n", i);
		strbuf_reset(&err);
		strbuf_addf(&err, "err %d\n", i);
		cr_assert_str_eq(outcome.out.text.buf, out.buf);
		cr_assert_str_eq(outcome.err.text.buf, err.buf);
	}
	cr_assert_eq(open_descriptors(), before,
		     "20 runs left %d descriptors open",
		     open_descriptors() - before);
	strbuf_release(&shell);
	strbuf_release(&out);
	strbuf_release(&err);
}

Test(process, what_a_process_that_left_the_group_writes_later_is_dropped)
{
	char *dir = test_tmpdir();
	struct strbuf shell = STRBUF_INIT;
	struct strbuf pid_path = STRBUF_INIT;
	double start, elapsed;
	pid_t escaped;

	strbuf_addf(&pid_path, "%s/pid", dir);
	/* a process of its own session, out of reach of the group kill,
	 * that writes into the run's stdout after the run */
	strbuf_addf(&shell,
		    "setsid sh -c 'echo $$ > \"%s\"; sleep 0.3; echo late' & "
		    "while [ ! -s \"%s\" ]; do sleep 0.01; done; echo early",
		    pid_path.buf, pid_path.buf);
	start = now_s();
	run_shell(shell.buf);
	elapsed = now_s() - start;
	cr_assert_str_eq(outcome.out.text.buf, "early\n");
	cr_assert_lt(elapsed, 1.0, "returned after %.3f s", elapsed);

	escaped = read_pid_file(pid_path.buf, 0);
	cr_assert_neq(reap_orphan(escaped), -1, "sh %d still running",
		      (int)escaped);
	/* "late" is written by now; it is not the next run's */
	run_shell("echo second");
	cr_assert_str_eq(outcome.out.text.buf, "second\n");

	strbuf_release(&shell);
	strbuf_release(&pid_path);
	test_rmtree(dir);
	free(dir);
}

/*
 * Forks a helper process that plays benchgate: it runs hang_with_grandchild
 * (writing pid_path) through `through` (NULL: directly), with
 * process_forward_termination() when `forward`. Returns the helper's pid.
 */
static pid_t start_runner(const char *pid_path, const char *through,
			  bool forward)
{
	pid_t helper = fork();

	cr_assert_neq(helper, -1);
	if (helper == 0) {
		const char *argv[] = { WORKLOAD("hang_with_grandchild"),
				       pid_path, NULL };
		struct process_options options = PROCESS_OPTIONS_INIT;

		options.argv = argv;
		options.timeout_s = 60;
		options.launcher = through;
		if (forward) {
			/* as in a foreground benchgate: a background job of
			 * a non-interactive shell starts with SIGINT
			 * ignored */
			signal(SIGINT, SIG_DFL);
			process_forward_termination();
		}
		process_run(&outcome, &options);
		_exit(0);
	}
	return helper;
}

Test(process, termination_signal_kills_the_running_group_too)
{
	char *dir = test_tmpdir();
	struct strbuf pid_path = STRBUF_INIT;
	pid_t helper, child, grandchild;
	int status;

	strbuf_addf(&pid_path, "%s/pid", dir);
	/* a helper process plays benchgate, interrupted while it runs */
	helper = start_runner(pid_path.buf, NULL, true);
	child = read_pid_file(pid_path.buf, 0);
	grandchild = read_pid_file(pid_path.buf, 1);
	cr_assert_eq(kill(helper, SIGINT), 0);
	cr_assert_eq(waitpid(helper, &status, 0), helper);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT,
		  "helper status %#x", (unsigned)status);
	cr_assert_neq(reap_orphan(child), -1, "child %d still running",
		      (int)child);
	cr_assert_neq(reap_orphan(grandchild), -1,
		      "grandchild %d still "
		      "running",
		      (int)grandchild);

	strbuf_release(&pid_path);
	test_rmtree(dir);
	free(dir);
}

/*
 * A helper process plays benchgate and runs hang_with_grandchild through
 * `through` (NULL: directly); it is killed with SIGKILL once both hang,
 * which no handler sees. Both must be gone shortly after.
 */
/* The parent of pid, from /proc/PID/stat; -1 when unknown. */
static pid_t parent_of(pid_t pid)
{
	char path[64], *stat, *close_paren;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(stat = test_read_file(path)))
		return -1;
	close_paren = strrchr(stat, ')');
	if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
		ppid = -1;
	free(stat);
	return (pid_t)ppid;
}

static void check_killed_runner_leaves_nothing(const char *through)
{
	char *dir = test_tmpdir();
	struct strbuf pid_path = STRBUF_INIT;
	pid_t helper, child, grandchild, parent;
	int child_status, grandchild_status, parent_status;

	strbuf_addf(&pid_path, "%s/pid", dir);
	helper = start_runner(pid_path.buf, through, false);
	child = read_pid_file(pid_path.buf, 0);
	grandchild = read_pid_file(pid_path.buf, 1);
	wait_until_waiting(helper);
	/* the helper itself, or its launcher */
	parent = parent_of(child);
	cr_assert_eq(parent == helper, through == NULL, "parent %d, helper %d",
		     (int)parent, (int)helper);
	cr_assert_eq(kill(helper, SIGKILL), 0);
	cr_assert_eq(waitpid(helper, NULL, 0), helper);
	child_status = reap_orphan(child);
	grandchild_status = reap_orphan(grandchild);
	parent_status = parent == helper ? 0 : reap_orphan(parent);
	/* whatever the verdict, leave nothing running */
	if (child_status == -1)
		kill(child, SIGKILL);
	if (grandchild_status == -1)
		kill(grandchild, SIGKILL);
	if (parent_status == -1)
		kill(parent, SIGKILL);
	cr_assert_neq(child_status, -1, "child %d still running", (int)child);
	cr_assert_neq(grandchild_status, -1, "grandchild %d still running",
		      (int)grandchild);
	cr_assert_neq(parent_status, -1, "launcher %d still running",
		      (int)parent);

	strbuf_release(&pid_path);
	test_rmtree(dir);
	free(dir);
}

Test(process, sigkill_of_the_runner_kills_the_running_group_too)
{
	check_killed_runner_leaves_nothing(NULL);
}

Test(process, sigkill_of_the_runner_kills_a_launched_group_too)
{
	check_killed_runner_leaves_nothing(BENCHGATE_LAUNCHER_BIN);
}

Test(process, launcher_killed_alone_takes_the_benchmark_with_it)
{
	char *dir = test_tmpdir();
	struct strbuf pid_path = STRBUF_INIT;
	pid_t helper, launched, child, grandchild;
	int child_status, grandchild_status, status;

	/* a helper plays benchgate, running through the launcher; someone
	 * kills the launcher alone */
	strbuf_addf(&pid_path, "%s/pid", dir);
	helper = start_runner(pid_path.buf, BENCHGATE_LAUNCHER_BIN, false);
	child = read_pid_file(pid_path.buf, 0);
	grandchild = read_pid_file(pid_path.buf, 1);
	/* the launcher replied: the helper knows the run's group */
	wait_until_waiting(helper);
	launched = parent_of(child);
	cr_assert_gt(launched, 0);
	cr_assert_eq(kill(launched, SIGKILL), 0);
	/* benchgate sees its child gone and kills the whole group */
	cr_assert_eq(waitpid(helper, &status, 0), helper);
	child_status = reap_orphan(child);
	grandchild_status = reap_orphan(grandchild);
	if (child_status == -1)
		kill(child, SIGKILL);
	if (grandchild_status == -1)
		kill(grandchild, SIGKILL);
	cr_assert_neq(child_status, -1, "benchmark %d still running",
		      (int)child);
	cr_assert_neq(grandchild_status, -1, "grandchild %d still running",
		      (int)grandchild);

	strbuf_release(&pid_path);
	test_rmtree(dir);
	free(dir);
}

/* The children of this process, as /proc lists them (at most `max`). */
static size_t own_children(pid_t *pids, size_t max)
{
	char path[64], stat[512];
	size_t nr = 0;
	FILE *list;

	/* "children" lists those of one thread: the process's main one */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(),
		 (int)getpid());
	list = fopen(path, "r");
	cr_assert_not_null(list, "cannot read %s", path);
	while (nr < max && fscanf(list, "%511s", stat) == 1)
		pids[nr++] = (pid_t)atoi(stat);
	fclose(list);
	return nr;
}

Test(process, a_killed_guardian_is_replaced_at_the_next_run)
{
	const char *argv[] = { "/bin/true", NULL };
	pid_t children[8];
	size_t nr;

	/* the first run starts the guardian, the one child left after it */
	run_argv(argv);
	nr = own_children(children, 8);
	cr_assert_eq(nr, 1, "%zu children", nr);
	/* it ignores SIGTERM, not SIGKILL; gone before the next run */
	cr_assert_eq(kill(children[0], SIGKILL), 0);
	cr_assert_eq(waitpid(children[0], NULL, 0), children[0]);
	/* a runner (forked from here, it knows the dead guardian) must
	 * start another one, or nothing kills its group when it dies */
	check_killed_runner_leaves_nothing(NULL);
}

Test(process, flood_is_drained_with_bounded_memory)
{
	const char *argv[] = { WORKLOAD("flood_stdout"), "200", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	const char *last = "flood done bytes=209715200\n";
	size_t total = ((size_t)200 << 20) + strlen(last);
	struct rusage before, after;

	options.argv = argv;
	options.timeout_s = 60;
	options.capture_cap = (size_t)64 << 10;
	getrusage(RUSAGE_SELF, &before);
	cr_assert_eq(process_run(&outcome, &options), 0);
	getrusage(RUSAGE_SELF, &after);

	cr_assert_eq(outcome.status, PROCESS_EXITED);
	cr_assert_eq(outcome.exit_code, 0);
	cr_assert_leq(outcome.out.text.len, options.capture_cap);
	cr_assert_eq(outcome.out.text.len + outcome.out.dropped, total);
	cr_assert_eq(outcome.out.dropped_at, (size_t)32 << 10);
	/* the tail is kept: the last line survives the flood */
	cr_assert_str_eq(outcome.out.text.buf + outcome.out.text.len -
				 strlen(last),
			 last);
	cr_assert_str_eq(outcome.err.text.buf, "flood done\n");
	/* ru_maxrss is in KiB: memory grew by far less than the flood */
	cr_assert_lt(after.ru_maxrss - before.ru_maxrss, 16L << 10,
		     "grew by %ld KiB", after.ru_maxrss - before.ru_maxrss);
}

Test(process, capture_keeps_head_and_tail)
{
	struct process_options options = PROCESS_OPTIONS_INIT;
	size_t total = 0;
	int i;

	/* "seq 1 10000" writes the numbers one per line: 48894 bytes */
	for (i = 1; i <= 10000; i++)
		total += (size_t)snprintf(NULL, 0, "%d\n", i);
	options.shell = "seq 1 10000";
	options.capture_cap = 100;
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(outcome.out.text.len, 100);
	cr_assert_eq(outcome.out.dropped, total - 100);
	cr_assert_eq(outcome.out.dropped_at, 50);
	cr_assert_eq(strncmp(outcome.out.text.buf, "1\n2\n3\n", 6), 0);
	cr_assert_str_eq(outcome.out.text.buf + 100 - 12, "\n9999\n10000\n");
}

Test(process, outcome_can_be_reused)
{
	const char *argv[] = { WORKLOAD("exit_nonzero"), "7", NULL };
	const char *ok[] = { "/bin/true", NULL };

	run_argv(argv);
	cr_assert_eq(outcome.exit_code, 7);
	run_argv(ok);
	cr_assert_eq(outcome.exit_code, 0);
	cr_assert_eq(outcome.err.text.len, 0);
}

/*
 * benchgate-launch (harness/util/launcher.h). On exec, Linux folds the peak RSS
 * of the memory that the exec replaces into the new program's ru_maxrss
 * (fs/exec.c, setmax_mm_hiwater_rss): spawned from this process, a program
 * reports at least this process's peak; exec'd from the launcher's small
 * fork, its own. alloc_mb is built without sanitizers, so that its own
 * peak is its block and a small C program's few hundred KiB.
 */

#define MIB ((uint64_t)1 << 20)

/* Raises this test process's peak RSS to at least mb MiB. */
static char *grow_peak_rss(size_t mb)
{
	char *block = xmalloc(mb << 20);

	memset(block, 1, mb << 20);
	return block;
}

static double in_mib(uint64_t bytes)
{
	return (double)bytes / (double)MIB;
}

Test(process, without_launcher_maxrss_includes_the_parents_peak)
{
	const char *argv[] = { WORKLOAD("alloc_mb"), "--mb", "1", NULL };
	char *block = grow_peak_rss(200);
	struct rusage self;

	getrusage(RUSAGE_SELF, &self);
	run_argv(argv);
	free(block);
	cr_assert_eq(outcome.exit_code, 0);
	/* the artifact the launcher is there for: 1 MiB reads as 200 */
	cr_assert_geq(outcome.maxrss_bytes, (uint64_t)self.ru_maxrss * 1024,
		      "child %.1f MiB, parent %.1f MiB",
		      in_mib(outcome.maxrss_bytes),
		      in_mib((uint64_t)self.ru_maxrss * 1024));
}

Test(process, launcher_maxrss_is_the_childs_own)
{
	const char *argv[] = { WORKLOAD("alloc_mb"), "--mb", "1", NULL };
	char *block = grow_peak_rss(200);

	launcher = BENCHGATE_LAUNCHER_BIN;
	run_argv(argv);
	free(block);
	cr_assert_eq(outcome.status, PROCESS_EXITED);
	cr_assert_eq(outcome.exit_code, 0);
	cr_assert_str_eq(outcome.out.text.buf, "touched 1 MiB\n");
	cr_assert_gt(outcome.maxrss_bytes, MIB);
	cr_assert_lt(outcome.maxrss_bytes, 5 * MIB, "%.1f MiB",
		     in_mib(outcome.maxrss_bytes));
}

Test(process, launcher_maxrss_follows_what_the_child_allocates)
{
	const char *argv[] = { WORKLOAD("alloc_mb"), "--mb", "40", NULL };
	double mib;

	launcher = BENCHGATE_LAUNCHER_BIN;
	run_argv(argv);
	cr_assert_eq(outcome.exit_code, 0);
	mib = in_mib(outcome.maxrss_bytes);
	cr_assert(mib > 40 * 0.9 && mib < 40 * 1.1, "%.1f MiB", mib);
	cr_assert_gt(outcome.wall_s, 0);
}

Test(process, launcher_passes_the_exit_status_and_the_signal_on)
{
	const char *fails[] = { WORKLOAD("exit_nonzero"), "3", NULL };
	const char *crashes[] = { WORKLOAD("crash_segv"), NULL };
	char *why;

	launcher = BENCHGATE_LAUNCHER_BIN;
	run_argv(fails);
	cr_assert_eq(outcome.status, PROCESS_EXITED);
	cr_assert_eq(outcome.exit_code, 3);
	cr_assert_not_null(strstr(outcome.err.text.buf, "error line 30\n"));
	run_argv(crashes);
	cr_assert_eq(outcome.status, PROCESS_SIGNALED);
	why = describe();
	cr_assert_str_eq(why, "killed by signal 11 (Segmentation fault)");
	cr_assert_str_eq(outcome.out.text.buf, "about to crash\n");
	free(why);
}

Test(process, launcher_exec_errors_read_as_without_it)
{
	/* a missing path, a name not in PATH, a directory (EACCES) */
	const char *programs[] = { "/nonexistent/benchgate-program",
				   "benchgate-no-such-program",
				   TEST_FIXTURE_DIR };

	for (size_t i = 0; i < sizeof(programs) / sizeof(*programs); i++) {
		const char *argv[] = { programs[i], NULL };
		char *direct, *launched;
		int direct_errno;

		launcher = NULL;
		run_argv(argv);
		cr_assert_eq(outcome.status, PROCESS_SPAWN_FAILED);
		direct = describe();
		direct_errno = outcome.spawn_errno;
		launcher = BENCHGATE_LAUNCHER_BIN;
		run_argv(argv);
		cr_assert_eq(outcome.status, PROCESS_SPAWN_FAILED);
		cr_assert_eq(outcome.spawn_errno, direct_errno);
		launched = describe();
		cr_assert_str_eq(launched, direct);
		free(direct);
		free(launched);
	}
}

Test(process, launcher_looks_the_program_up_in_benchgates_path)
{
	/* as posix_spawnp does: the child's PATH is not where it is found */
	const char *argv[] = { "true", NULL };
	const char *env[] = { "PATH=/nonexistent", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;

	options.argv = argv;
	options.env = env;
	options.launcher = BENCHGATE_LAUNCHER_BIN;
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(outcome.status, PROCESS_EXITED);
	cr_assert_eq(outcome.exit_code, 0);
}

/* The mask of the standard signals on the line `name` of a
 * /proc/PID/status (proc(5)): hex, bit n-1 for signal n. */
static unsigned long long status_mask(const char *status, const char *name)
{
	const char *line = strstr(status, name);

	cr_assert_not_null(line, "no %s in %s", name, status);
	return strtoull(line + strlen(name) + 1, NULL, 16) & 0x7fffffffull;
}

Test(process, launcher_leaves_the_childs_signals_and_descriptors_alone)
{
	const char *argv[] = { "grep", "^Sig", "/proc/self/status", NULL };

	/* the launcher's handler of SIGHUP and its mask are its own */
	launcher = BENCHGATE_LAUNCHER_BIN;
	run_argv(argv);
	cr_assert_eq(status_mask(outcome.out.text.buf, "SigBlk:"), 0, "%s",
		     outcome.out.text.buf);
	cr_assert_eq(status_mask(outcome.out.text.buf, "SigIgn:"), 0, "%s",
		     outcome.out.text.buf);
	/* and it keeps its socket to itself */
	run_shell("if (: >&3) 2>/dev/null; then echo open; else echo closed; "
		  "fi");
	cr_assert_str_eq(outcome.out.text.buf, "closed\n");
}

Test(process, launcher_timeout_terminates_child_and_grandchild)
{
	/* the launcher, outside the group, tells how the child ended */
	launcher = BENCHGATE_LAUNCHER_BIN;
	check_timeout_kills_group("", 1.0, 1.9);
	cr_assert_eq(outcome.signal, SIGTERM);
}

Test(process, launcher_timeout_escalates_to_sigkill_for_both)
{
	launcher = BENCHGATE_LAUNCHER_BIN;
	check_timeout_kills_group("ignore-term", 1.5, 2.6);
	cr_assert_eq(outcome.signal, SIGKILL);
}

/* The pid that a shell run through the launcher names as its parent. */
static pid_t launched_parent(void)
{
	launcher = BENCHGATE_LAUNCHER_BIN;
	run_shell("echo $PPID");
	cr_assert_eq(outcome.exit_code, 0, "%s", outcome.err.text.buf);
	return (pid_t)atoi(outcome.out.text.buf);
}

Test(process, one_launcher_serves_every_run_of_the_process)
{
	pid_t first = launched_parent(), children[8];
	size_t nr;

	cr_assert_gt(first, 1);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(launched_parent(), first);
	/* the guardian and the launcher, asleep between the runs */
	nr = own_children(children, 8);
	cr_assert_eq(nr, 2, "%zu children", nr);
	cr_assert(children[0] == first || children[1] == first);
}

Test(process, a_killed_launcher_is_replaced_at_the_next_run)
{
	pid_t first = launched_parent(), second;

	/* reaped by process_run(), not here */
	cr_assert_eq(kill(first, SIGKILL), 0);
	second = launched_parent();
	cr_assert_gt(second, 1);
	cr_assert_neq(second, first);
}

Test(process, launched_runs_count_in_what_benchgate_used)
{
	const char *argv[] = { WORKLOAD("spin"), "--ms", "60", NULL };
	double before = process_launched_cpu_s(), used;

	launcher = BENCHGATE_LAUNCHER_BIN;
	run_argv(argv);
	cr_assert_eq(outcome.exit_code, 0, "%s", outcome.err.text.buf);
	used = process_launched_cpu_s() - before;
	/* RUSAGE_CHILDREN does not see them while the launcher lives */
	cr_assert_geq(used, 0.05, "%.3f s", used);
	cr_assert_float_eq(used, outcome.utime_s + outcome.stime_s, 1e-6);
}

Test(process, a_launched_run_starts_where_benchgate_is_now)
{
	char *dir = test_tmpdir(), *real = realpath(dir, NULL);
	char *back = getcwd(NULL, 0);

	/* the launcher is started from the first directory */
	launcher = BENCHGATE_LAUNCHER_BIN;
	run_shell("pwd -P");
	cr_assert_not_null(real);
	cr_assert_eq(chdir(dir), 0);
	run_shell("pwd -P");
	cr_assert_eq(chdir(back), 0);
	cr_assert_eq(outcome.exit_code, 0);
	outcome.out.text.buf[strcspn(outcome.out.text.buf, "\n")] = '\0';
	cr_assert_str_eq(outcome.out.text.buf, real);
	free(back);
	free(real);
	test_rmtree(dir);
	free(dir);
}

Test(process, a_launcher_that_does_not_answer_is_an_error_naming_it)
{
	const char *argv[] = { "/bin/true", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;

	/* not this build's launcher: it exits without a word */
	options.argv = argv;
	options.launcher = "/bin/true";
	cr_assert_eq(process_run(&outcome, &options), BG_ERROR);
	cr_assert_not_null(strstr(bg_error_last(),
				  "the launcher '/bin/true' ended without an "
				  "answer (exit status 0)"),
			   "%s", bg_error_last());
}

Test(process, a_launched_run_gets_no_descriptor_of_benchgates_but_stdio)
{
	char probe[128];
	int fds[2];

	/* open without close-on-exec before the launcher starts: the
	 * launcher, which lives as long as benchgate, keeps none of them */
	cr_assert_eq(pipe(fds), 0);
	snprintf(probe, sizeof(probe),
		 "if [ -e /proc/self/fd/%d ]; then echo open; "
		 "else echo closed; fi",
		 fds[1]);
	launcher = BENCHGATE_LAUNCHER_BIN;
	run_shell(probe);
	cr_assert_str_eq(outcome.out.text.buf, "closed\n");
	close(fds[0]);
	close(fds[1]);
}

Test(process, a_fixed_layout_run_is_not_randomized_and_benchgate_stays_as_it_was)
{
	const char *argv[] = { "cat", "/proc/self/personality", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	int before = personality(0xffffffff);

	/* where a seccomp filter refuses it, the run goes on randomized */
	if (personality((unsigned long)before | ADDR_NO_RANDOMIZE) < 0)
		cr_skip("this kernel refuses ADDR_NO_RANDOMIZE");
	personality((unsigned long)before);
	options.argv = argv;
	options.fixed_layout = true;
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(strtoul(outcome.out.text.buf, NULL, 16) &
			     ADDR_NO_RANDOMIZE,
		     ADDR_NO_RANDOMIZE, "%s", outcome.out.text.buf);
	cr_assert_eq(personality(0xffffffff), before);
	/* and only that run */
	options.fixed_layout = false;
	cr_assert_eq(process_run(&outcome, &options), 0);
	cr_assert_eq(strtoul(outcome.out.text.buf, NULL, 16) &
			     ADDR_NO_RANDOMIZE,
		     0, "%s", outcome.out.text.buf);
}
