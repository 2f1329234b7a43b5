/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the scratch directories benchgate makes under $TMPDIR
 * (benchgate-run-*, benchgate-bisect-*) are claimed like the store's: one
 * left by a benchgate killed with kill -9 is removed by the next one, and
 * one whose owner lives is left alone (util/scratch.h).
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmp[4096];

static void setup(void)
{
	test_dir_setup();
	snprintf(tmp, sizeof(tmp), "%s/tmp", test_dir);
	cr_assert_eq(mkdir(tmp, 0700), 0);
	free(test_write_file(
		test_dir, "slow.json",
		"{ \"benchgate\": 1, \"suite\": \"slow\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 20 },\n"
		"  \"benchmarks\": [ { \"name\": \"b\", \"command\": "
		"[\"sleep\", \"1\"],\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
	free(test_write_file(
		test_dir, "quick.json",
		"{ \"benchgate\": 1, \"suite\": \"quick\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
		"  \"benchmarks\": [ { \"name\": \"b\", \"command\": "
		"[\"/bin/true\"],\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
}

TestSuite(scratch, .init = setup, .fini = test_dir_teardown);

/* The names in tmp starting with "benchgate-run-", sorted, space after
 * each. */
static void run_dirs(struct strbuf *out)
{
	struct strbuf all = STRBUF_INIT;
	char *names, *save = NULL;

	strbuf_reset(out);
	test_list_tree(&all, tmp);
	names = all.buf;
	for (char *name = strtok_r(names, " ", &save); name;
	     name = strtok_r(NULL, " ", &save))
		if (!strncmp(name, "benchgate-run-", 14) && !strchr(name, '/'))
			strbuf_addf(out, "%s ", name);
	strbuf_release(&all);
}

/* Whether a run directory in tmp has its ".owner" yet: made a moment
 * after the directory, and only then can the next run tell a dead owner
 * (whose lock is gone) from a directory being made (SCRATCH_UNOWNED_S). */
static bool owner_file_made(void)
{
	struct strbuf all = STRBUF_INIT;
	bool made;

	test_list_tree(&all, tmp);
	made = strstr(all.buf, "benchgate-run-") && strstr(all.buf, "/.owner");
	strbuf_release(&all);
	return made;
}

static void quick_run(void)
{
	char env_tmp[4200];
	const char *env[] = { env_tmp, NULL };
	struct test_output out;

	snprintf(env_tmp, sizeof(env_tmp), "TMPDIR=%s", tmp);
	test_benchgate(&out, test_dir, env,
		       (const char *const[]){ "run", "quick.json", "--store",
					      "store", "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

Test(scratch, a_killed_runs_directory_is_removed_by_the_next_run)
{
	struct strbuf dirs = STRBUF_INIT;
	char lock[4200];
	double waited = 0;
	pid_t pid;

	snprintf(lock, sizeof(lock), "%s/machine.lock", test_dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		setenv("BENCHGATE_LOCK", lock, 1);
		setenv("TMPDIR", tmp, 1);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (chdir(test_dir) < 0)
			_exit(126);
		execl(BENCHGATE_BIN, "benchgate", "run", "slow.json", "--store",
		      "store", "--quiet", (char *)NULL);
		_exit(127);
	}
	/* until its scratch is there, with its owner file: a kill between
	 * the two leaves a directory that looks like one being made, which
	 * the next run rightly leaves alone for a minute (scratch.h) */
	while (!owner_file_made() && waited < 10) {
		usleep(20 * 1000);
		waited += 0.02;
	}
	run_dirs(&dirs);
	cr_assert(dirs.len && owner_file_made(),
		  "no scratch directory with an owner appeared in %s", tmp);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	run_dirs(&dirs);
	cr_assert(dirs.len, "kill -9 leaves its scratch directory");

	quick_run();
	run_dirs(&dirs);
	cr_assert_eq(dirs.len, 0, "left: %s", dirs.buf);
	strbuf_release(&dirs);
}

Test(scratch, a_living_owners_directory_is_left_alone)
{
	struct strbuf dirs = STRBUF_INIT;
	char path[4200];
	int fd;

	/* one whose owner lives: this test holds its lock */
	snprintf(path, sizeof(path), "%s/benchgate-run-live", tmp);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/benchgate-run-live/.owner", tmp);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	/* one just made, whose maker has not locked it yet */
	snprintf(path, sizeof(path), "%s/benchgate-run-young", tmp);
	cr_assert_eq(mkdir(path, 0700), 0);
	/* one whose owner is dead: nobody holds its lock */
	snprintf(path, sizeof(path), "%s/benchgate-run-dead", tmp);
	cr_assert_eq(mkdir(path, 0700), 0);
	free(test_write_file(path, ".owner", ""));
	free(test_write_file(path, "leftover", "x"));

	quick_run();
	run_dirs(&dirs);
	cr_assert_str_eq(dirs.buf, "benchgate-run-live benchgate-run-young ");
	close(fd);
	strbuf_release(&dirs);
}
