/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the scratch directories benchgate makes under $TMPDIR, in
 * this user's benchgate-scratch-<uid>/ (run-*, bisect-*), are claimed
 * like the store's: one left by a benchgate killed with kill -9 is removed
 * by the next one, and one whose owner lives is left alone; where that
 * parent is not this user's directory, they go into $TMPDIR itself
 * (util/scratch.h).
 */
#include "harness/util/scratch.h"
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

/* This user's parent of scratch directories in tmp (scratch.h). */
static void parent_dir(struct strbuf *out)
{
	strbuf_addf(out, "%s/" SCRATCH_PARENT "%lu", tmp,
		    (unsigned long)geteuid());
}

/* The run directories in the parent, space after each. */
static void run_dirs(struct strbuf *out)
{
	struct strbuf all = STRBUF_INIT, parent = STRBUF_INIT;
	char *names, *save = NULL;

	strbuf_reset(out);
	parent_dir(&parent);
	test_list_tree(&all, parent.buf);
	names = all.buf;
	for (char *name = strtok_r(names, " ", &save); name;
	     name = strtok_r(NULL, " ", &save))
		if (!strncmp(name, "run-", 4) && !strchr(name, '/'))
			strbuf_addf(out, "%s ", name);
	strbuf_release(&all);
	strbuf_release(&parent);
}

/* Whether a run directory in tmp has its ".owner" yet: made a moment
 * after the directory, and only then can the next run tell a dead owner
 * (whose lock is gone) from a directory being made (SCRATCH_UNOWNED_S). */
static bool owner_file_made(void)
{
	struct strbuf all = STRBUF_INIT;
	bool made;

	test_list_tree(&all, tmp);
	made = strstr(all.buf, "/run-") && strstr(all.buf, "/.owner");
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

	struct strbuf parent = STRBUF_INIT;

	parent_dir(&parent);
	cr_assert_eq(mkdir(parent.buf, 0700), 0);
	/* one whose owner lives: this test holds its lock */
	snprintf(path, sizeof(path), "%s/run-live", parent.buf);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/run-live/.owner", parent.buf);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	/* one just made, whose maker has not locked it yet */
	snprintf(path, sizeof(path), "%s/run-young", parent.buf);
	cr_assert_eq(mkdir(path, 0700), 0);
	/* one whose owner is dead: nobody holds its lock */
	snprintf(path, sizeof(path), "%s/run-dead", parent.buf);
	cr_assert_eq(mkdir(path, 0700), 0);
	free(test_write_file(path, ".owner", ""));
	free(test_write_file(path, "leftover", "x"));
	strbuf_release(&parent);

	quick_run();
	run_dirs(&dirs);
	/* in the order the directory lists them */
	cr_assert(strstr(dirs.buf, "run-live ") &&
			  strstr(dirs.buf, "run-young ") &&
			  dirs.len == strlen("run-live run-young "),
		  "%s", dirs.buf);
	close(fd);
	strbuf_release(&dirs);
}

/* Runs a suite whose benchmark writes where its metrics file would be,
 * in the run's scratch directory: that path. */
static char *scratch_of_a_run(void)
{
	char env_tmp[4200], where[4200];
	const char *env[] = { env_tmp, NULL };
	struct test_output out;
	char *path;

	free(test_write_file(
		test_dir, "where.json",
		"{ \"benchgate\": 1, \"suite\": \"where\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
		"  \"benchmarks\": [ { \"name\": \"b\", \"shell\": "
		"\"printf %s \\\"$BENCHGATE_METRICS_FILE\\\" > where\",\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
	snprintf(env_tmp, sizeof(env_tmp), "TMPDIR=%s", tmp);
	test_benchgate(&out, test_dir, env,
		       (const char *const[]){ "run", "where.json", "--store",
					      "store", "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	snprintf(where, sizeof(where), "%s/where", test_dir);
	path = test_read_file(where);
	cr_assert(path, "the benchmark wrote no %s", where);
	return path;
}

Test(scratch, a_runs_directory_is_in_this_users_parent)
{
	struct strbuf parent = STRBUF_INIT, left = STRBUF_INIT;
	char *metrics = scratch_of_a_run();

	parent_dir(&parent);
	strbuf_addstr(&parent, "/run-");
	cr_assert_eq(strncmp(metrics, parent.buf, parent.len), 0,
		     "'%s' is not in '%s'", metrics, parent.buf);
	/* the last one out leaves nothing behind */
	test_list_tree(&left, tmp);
	cr_assert_str_eq(left.buf, "");
	free(metrics);
	strbuf_release(&parent);
	strbuf_release(&left);
}

/* The parent is private: one that others may write to is not used. */
Test(scratch, a_parent_others_may_write_to_is_not_used)
{
	struct strbuf parent = STRBUF_INIT, flat = STRBUF_INIT;
	char *metrics;

	parent_dir(&parent);
	cr_assert_eq(mkdir(parent.buf, 0700), 0);
	cr_assert_eq(chmod(parent.buf, 0777), 0);
	metrics = scratch_of_a_run();
	strbuf_addf(&flat, "%s/benchgate-run-", tmp);
	cr_assert_eq(strncmp(metrics, flat.buf, flat.len), 0,
		     "'%s' is not in '%s'", metrics, tmp);
	free(metrics);
	strbuf_release(&parent);
	strbuf_release(&flat);
}

Test(scratch, a_parent_that_is_a_symlink_is_not_used)
{
	struct strbuf parent = STRBUF_INIT, elsewhere = STRBUF_INIT;
	struct strbuf flat = STRBUF_INIT, left = STRBUF_INIT;
	char *metrics;

	/* the name taken by a link to a directory of someone else's choice */
	strbuf_addf(&elsewhere, "%s/elsewhere", test_dir);
	cr_assert_eq(mkdir(elsewhere.buf, 0700), 0);
	parent_dir(&parent);
	cr_assert_eq(symlink(elsewhere.buf, parent.buf), 0);
	metrics = scratch_of_a_run();
	strbuf_addf(&flat, "%s/benchgate-run-", tmp);
	cr_assert_eq(strncmp(metrics, flat.buf, flat.len), 0,
		     "'%s' is not in '%s'", metrics, tmp);
	test_list_tree(&left, elsewhere.buf);
	cr_assert_str_eq(left.buf, "");
	free(metrics);
	strbuf_release(&parent);
	strbuf_release(&elsewhere);
	strbuf_release(&flat);
	strbuf_release(&left);
}
