/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: nothing benchgate starts outlives the command, whether it
 * ends on its own, with a timed-out benchmark, or interrupted by Ctrl-C:
 * not a benchmark's grandchild, not the launcher, not the guardian
 * (util/process.h). The test makes itself a subreaper
 * (PR_SET_CHILD_SUBREAPER): whatever benchgate leaves behind, alive or
 * dead and unreaped, becomes the test's child, and is found in /proc.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void setup(void)
{
	test_dir_setup();
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	free(test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"left\",\n"
		"  \"defaults\": { \"warmup\": 1, \"runs\": 3 },\n"
		"  \"benchmarks\": [\n"
		/* a grandchild that would run on for a minute */
		"    { \"name\": \"lingers\", \"shell\": \"sleep 60 & echo started\",\n"
		"      \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] },\n"
		/* through the launcher */
		"    { \"name\": \"peak\", \"command\": [\"/bin/true\"],\n"
		"      \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" },\n"
		"                   { \"name\": \"rss\", \"from\": \"rusage\","
		" \"field\": \"maxrss\" } ] } ] }\n"));
	free(test_write_file(
		test_dir, "slow.json",
		"{ \"benchgate\": 1, \"suite\": \"slow\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 20, \"timeout\": "
		"\"0.3s\" },\n"
		"  \"benchmarks\": [ { \"name\": \"b\", \"shell\": "
		"\"sleep 60 & sleep 60\",\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
}

TestSuite(leftovers, .init = setup, .fini = test_dir_teardown);

/* The test's children, "PID (COMMAND) STATE" each, and each is then
 * killed and reaped, so that one test's failure does not leak into the
 * next. */
static void take_children(struct strbuf *out)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;

	cr_assert(proc);
	while ((entry = readdir(proc))) {
		char path[300], *stat, *close_paren;
		int ppid;
		char state;

		if (!isdigit((unsigned char)entry->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", entry->d_name);
		if (!(stat = test_read_file(path)))
			continue;
		close_paren = strrchr(stat, ')');
		if (close_paren &&
		    sscanf(close_paren + 1, " %c %d", &state, &ppid) == 2 &&
		    ppid == getpid()) {
			*close_paren = '\0';
			strbuf_addf(out, "%s) %c; ", stat, state);
			kill(atoi(entry->d_name), SIGKILL);
		}
		free(stat);
	}
	closedir(proc);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void assert_nothing_left(const char *what)
{
	struct strbuf left = STRBUF_INIT;

	take_children(&left);
	cr_assert_eq(left.len, 0, "%s left processes behind: %s", what,
		     left.buf);
	strbuf_release(&left);
}

Test(leftovers, none_after_a_run)
{
	struct test_output out;

	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "run", "suite.json", "--store",
					      "store", "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	assert_nothing_left("run");
}

Test(leftovers, none_after_a_timeout)
{
	struct test_output out;

	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "run", "slow.json", "--store",
					      "store", "--quiet", NULL });
	cr_assert_neq(out.exit_code, 0, "the run timed out: %s%s",
		      out.out.buf, out.err.buf);
	test_output_release(&out);
	assert_nothing_left("a timed-out run");
}

Test(leftovers, none_after_ctrl_c)
{
	char lock[4096];
	pid_t pid;
	int status;

	snprintf(lock, sizeof(lock), "%s/machine.lock", test_dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		setenv("BENCHGATE_LOCK", lock, 1);
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (chdir(test_dir) < 0)
			_exit(126);
		signal(SIGINT, SIG_DFL);
		execl(BENCHGATE_BIN, "benchgate", "run", "slow.json", "--store",
		      "store", "--quiet", (char *)NULL);
		_exit(127);
	}
	usleep(150 * 1000);
	kill(pid, SIGINT);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT,
		  "status %d", status);
	assert_nothing_left("an interrupted run");
}
