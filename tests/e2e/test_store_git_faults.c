/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the git store (`--store git:results`) under the faults of
 * issue 17. A write that fails on a full disk used to leave its scratch
 * in .git/benchgate/ (and the disk full of it), and `kill -9` in the
 * middle of a run left it for good; now a failed write removes its
 * scratch and the next run removes a dead run's.
 */
#include "harness/util/alloc.h"
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN(out, env, ...)                     \
	test_benchgate((out), repo_dir, (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

#define SCRATCH "/.git/benchgate/results"
/* Many cases: a result whose JSON, compressed, is far larger than any
 * one case's log (about 1.7 KiB against 115 bytes for 60 cases). */
#define CASES 120

static char *dir, *repo_dir;
static const char *machine_env[] = { "BENCHGATE_MACHINE_ID=m1", NULL };

static void setup(void)
{
	git_repository *repo;
	git_oid head;

	dir = test_tmpdir();
	git_libgit2_init();
	repo_dir = xstrdup(dir);
	repo = test_git_init(repo_dir);
	test_git_commit(repo, "refs/heads/main", "the code", 0, NULL, &head);
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	git_repository_free(repo);
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
	free(repo_dir);
}

TestSuite(store_git_faults, .init = setup, .fini = teardown, .timeout = 300);

/* A suite of CASES benchmarks that run `true` and measure wall time. */
static char *many_cases_suite(void)
{
	struct strbuf text = STRBUF_INIT;
	char *path;

	strbuf_addstr(&text, "{\"benchgate\": 1, \"suite\": \"many\","
			     " \"defaults\": {\"runs\": 1, \"warmup\": 0},"
			     " \"benchmarks\": [");
	for (int i = 0; i < CASES; i++)
		strbuf_addf(&text,
			    "%s{\"name\": \"case%03d\", \"command\": "
			    "[\"true\"], \"metrics\": [{\"name\": \"wall\", "
			    "\"from\": \"wall\"}]}",
			    i ? ", " : "", i);
	strbuf_addstr(&text, "]}");
	path = test_write_file(dir, "suites/many.json", text.buf);
	strbuf_release(&text);
	return path;
}

/* The scratch directory's entries, recursively, space-separated. */
static void list_scratch(struct strbuf *out)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s" SCRATCH, repo_dir);
	test_list_tree(out, path.buf);
	strbuf_release(&path);
}

static void assert_scratch_empty(void)
{
	struct strbuf left = STRBUF_INIT;

	list_scratch(&left);
	cr_assert_str_eq(left.buf, ".lock", "left in %s" SCRATCH ": %.2000s",
			 repo_dir, left.buf);
	strbuf_release(&left);
}

/*
 * The full disk, without privileges: the kernel refuses to grow
 * any file of benchgate's past 1 KiB (RLIMIT_FSIZE, inherited; SIGXFSZ
 * ignored, which exec keeps), which every case's log fits in and the
 * stored result does not. The run measures, fails to store, and leaves
 * no scratch; the next run stores.
 */
Test(store_git_faults, a_write_failing_on_a_full_disk_leaves_no_scratch)
{
	char *suite = many_cases_suite();
	struct test_output out;
	struct rlimit saved, limit;

	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
	limit = saved;
	limit.rlim_cur = 1024;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
	RUN(&out, machine_env, "run", suite, "--store", "git:results",
	    "--quiet");
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	cr_assert(out.exit_code > 0, "exit %d\n%s", out.exit_code, out.err.buf);
	cr_assert(strstr(out.err.buf, "File too large"), "%s", out.err.buf);
	test_output_release(&out);
	assert_scratch_empty();

	RUN(&out, machine_env, "run", suite, "--store", "git:results");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "stored results:"), "%s", out.out.buf);
	test_output_release(&out);
	assert_scratch_empty();
	free(suite);
}

/* Starts benchgate with output to /dev/null; its pid. */
static pid_t start_benchgate(const char *const *args)
{
	const char *argv[16];
	size_t n = 0;
	pid_t pid;

	argv[n++] = BENCHGATE_BIN;
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (chdir(repo_dir) < 0)
			_exit(126);
		putenv((char *)machine_env[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Waits, in 10 ms steps for at most a minute, for `path` to hold a
 * process id; returns it, or -1. */
static pid_t wait_for_pid_file(const char *path)
{
	struct timespec step = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 6000; i++) {
		char *text = test_read_file(path);
		long pid = text ? strtol(text, NULL, 10) : 0;

		free(text);
		if (pid > 0)
			return (pid_t)pid;
		nanosleep(&step, NULL);
	}
	return -1;
}

/*
 * kill -9 of benchgate while a benchmark runs: its claim, logs and
 * artifacts stayed in .git/benchgate for good (183 MB in the issue).
 * The next run finds that nobody holds the claim and removes it.
 */
Test(store_git_faults, a_killed_runs_scratch_is_removed_by_the_next_run)
{
	struct strbuf pid_file = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf left = STRBUF_INIT;
	char *slow, *quick = many_cases_suite();
	struct test_output out;
	pid_t benchgate, benchmark;
	int status;

	strbuf_addf(&pid_file, "%s/benchmark.pid", dir);
	/* It says where it is, then sleeps far longer than the test. */
	strbuf_addf(&text,
		    "{\"benchgate\": 1, \"suite\": \"slow\","
		    " \"defaults\": {\"runs\": 1, \"warmup\": 0},"
		    " \"benchmarks\": [{\"name\": \"sleep\", \"command\": "
		    "[\"sh\", \"-c\", \"echo $$$$ > %s.tmp && mv %s.tmp %s && "
		    "exec sleep 300\"], \"metrics\": [{\"name\": \"wall\", "
		    "\"from\": \"wall\"}]}]}",
		    pid_file.buf, pid_file.buf, pid_file.buf);
	slow = test_write_file(dir, "suites/slow.json", text.buf);
	benchgate = start_benchgate((const char *const[]){
		"run", slow, "--store", "git:results", NULL });
	benchmark = wait_for_pid_file(pid_file.buf);
	cr_assert_eq(kill(benchgate, SIGKILL), 0);
	cr_assert_eq(waitpid(benchgate, &status, 0), benchgate);
	cr_assert_gt(benchmark, 0, "the benchmark never started");
	/* The benchmark is an orphan now; not this test's subject. */
	kill(benchmark, SIGKILL);
	list_scratch(&left);
	cr_assert(strstr(left.buf, "/logs/slow-"),
		  "the killed run left no claim to reclaim: %s", left.buf);

	RUN(&out, machine_env, "run", quick, "--store", "git:results",
	    "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	assert_scratch_empty();
	free(slow);
	free(quick);
	strbuf_release(&pid_file);
	strbuf_release(&text);
	strbuf_release(&left);
}
