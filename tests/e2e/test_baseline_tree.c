/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: check --baseline-tree on a Python project made here, whose
 * benchmark imports a module of the repository. The baseline side must run
 * the baseline tree's code: its suite, its ${suite_dir}, its directory.
 * The repository is made with the git program, as a CI job makes its
 * work tree of the merge base (`git worktree add`).
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

TestSuite(baseline_tree, .init = test_dir_setup, .fini = test_dir_teardown);

/* Runs a shell script in test_dir; it must succeed. */
static void shell(const char *script)
{
	struct test_output out;

	test_run(&out, test_dir, NULL,
		 (const char *const[]){ "/bin/sh", "-ec", script, NULL });
	cr_assert_eq(out.exit_code, 0, "%s:\n%s%s", script, out.out.buf,
		     out.err.buf);
	test_output_release(&out);
}

/* The module every run imports, taking `ms` per call. */
static void write_workload(int ms)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "import time\n\n\ndef work():\n    time.sleep(%g)\n",
		 ms / 1000.0);
	free(test_write_file(test_dir, "repo/src/workload.py", text));
}

/*
 * repo/: a git repository on main whose suite bench/suite.json runs
 * bench/bench.py, which imports src/workload.py; base/: a work tree of
 * main beside it, as the pull request workflow makes of the merge base.
 */
static void make_python_project(void)
{
	free(test_write_file(
		test_dir, "repo/bench/suite.json",
		"{\"benchgate\": 1, \"suite\": \"py\","
		" \"defaults\": {\"runs\": 8, \"warmup\": 1, \"threshold\": \"10%\"},"
		" \"benchmarks\": [{\"name\": \"infer\","
		"  \"command\": [\"python3\", \"${suite_dir}/bench.py\"],"
		"  \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","
		"   \"key\": \"latency_ms\", \"unit\": \"ms\"}]}]}\n"));
	free(test_write_file(
		test_dir, "repo/bench/bench.py",
		"import os\nimport sys\nimport time\n\n"
		"here = os.path.dirname(os.path.abspath(__file__))\n"
		"sys.path.insert(0, os.path.join(here, '..', 'src'))\n"
		"import workload  # noqa: E402\n\n"
		"times = []\n"
		"for _ in range(5):\n"
		"    start = time.perf_counter()\n"
		"    workload.work()\n"
		"    times.append((time.perf_counter() - start) * 1000)\n"
		"times.sort()\n"
		"with open(os.environ['BENCHGATE_METRICS_FILE'], 'w') as f:\n"
		"    f.write('latency_ms %f ms\\n' % times[2])\n"));
	free(test_write_file(test_dir, "repo/README", "a project\n"));
	write_workload(10);
	shell("cd repo && git init -q -b main . &&"
	      " git add -A && git -c user.name=t -c user.email=t@example.com"
	      " commit -q -m first &&"
	      " git worktree add -q --detach ../base main");
}

/* Commits the work tree's changes on a new branch. */
static void commit_branch(const char *branch)
{
	char script[512];

	snprintf(script, sizeof(script),
		 "cd repo && git checkout -q -b %s main && git add -A &&"
		 " git -c user.name=t -c user.email=t@example.com commit -q"
		 " -m change",
		 branch);
	shell(script);
}

static void check_against_base(struct test_output *out)
{
	char repo[4096], store[4096];

	snprintf(repo, sizeof(repo), "%s/repo", test_dir);
	snprintf(store, sizeof(store), "%s/store", test_dir);
	RUN(out, repo, NULL, "check", "bench/suite.json", "--store", store,
	    "--no-color", "--baseline-tree", "../base");
}

Test(baseline_tree, a_regression_in_an_imported_module_fails_the_gate)
{
	struct test_output out;

	make_python_project();
	shell("cd repo && git checkout -q -b slow main");
	/* +300 %: far beyond what a busy machine adds to a 10 ms nap */
	write_workload(40);
	commit_branch("slow-commit");
	check_against_base(&out);
	cr_assert_eq(out.exit_code, 1,
		     "the baseline runs base/src/workload.py: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "infer/default/cpu latency"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "tree ../base measured in this session"),
		  "%s", out.out.buf);
	test_output_release(&out);
}

Test(baseline_tree, a_branch_that_changes_no_code_passes)
{
	struct test_output out;

	make_python_project();
	free(test_write_file(test_dir, "repo/README", "a project, documented\n"));
	commit_branch("docs");
	check_against_base(&out);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "PASS"), "%s", out.out.buf);
	test_output_release(&out);
}

Test(baseline_tree, a_tree_without_the_suite_is_exit_2_naming_the_file)
{
	struct test_output out;
	char repo[4096];

	make_python_project();
	shell("mkdir empty");
	snprintf(repo, sizeof(repo), "%s/repo", test_dir);
	RUN(&out, repo, NULL, "check", "bench/suite.json", "--store",
	    "../store", "--baseline-tree", "../empty");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "--baseline-tree: "), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "empty/bench/suite.json"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, repo, NULL, "check", "bench/suite.json", "--store",
	    "../store", "--baseline-tree", "../nowhere");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "'../nowhere' is not a directory"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, repo, NULL, "check", "bench/suite.json", "--store",
	    "../store", "--baseline-tree", "../base", "--build-dir", "/tmp");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "is outside the work tree"), "%s",
		  out.err.buf);
	test_output_release(&out);
}

Test(baseline_tree, the_removed_baseline_build_names_its_replacement)
{
	struct test_output out;

	RUN(&out, test_dir, NULL, "check", "suite.json", "--baseline-build",
	    "old");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "'--baseline-build' was replaced by "
				      "--baseline-tree DIR"),
		  "%s", out.err.buf);
	test_output_release(&out);
}

/* A CPU-bound process beside the test until busy_stop(), from `delay_ms`
 * on: what a shared CI runner does to the runs, of both sides alike, and
 * a load that changes in the middle of the session (drift). */
static pid_t busy_start(int delay_ms)
{
	pid_t parent = getpid(), pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		volatile unsigned long spin = 0;

		/* a test killed (its timeout) must not leave it spinning */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		usleep((useconds_t)delay_ms * 1000);
		for (;;)
			spin++;
	}
	return pid;
}

static void busy_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * repo/ and base/ as make_python_project() makes them, but the benchmark
 * is a fixed amount of CPU work in the shell (cost/loops iterations),
 * timed by its wall clock: what a busy neighbour slows.
 */
static void make_loop_project(int loops, int candidate_loops)
{
	char cost[32];

	free(test_write_file(
		test_dir, "repo/bench/suite.json",
		"{\"benchgate\": 1, \"suite\": \"loop\","
		" \"defaults\": {\"runs\": \"auto\", \"max_runs\": 200,"
		"  \"warmup\": 1, \"threshold\": \"5%\"},"
		" \"benchmarks\": [{\"name\": \"loop\","
		"  \"command\": [\"/bin/sh\", \"-c\", \"n=$(cat ${suite_dir}/../cost);"
		" i=0; while [ $i -lt $n ]; do i=$((i+1)); done\"],"
		"  \"metrics\": [{\"name\": \"wall\", \"from\": \"wall\"}]}]}\n"));
	snprintf(cost, sizeof(cost), "%d\n", loops);
	free(test_write_file(test_dir, "repo/cost", cost));
	shell("cd repo && git init -q -b main . &&"
	      " git add -A && git -c user.name=t -c user.email=t@example.com"
	      " commit -q -m first &&"
	      " git worktree add -q --detach ../base main");
	snprintf(cost, sizeof(cost), "%d\n", candidate_loops);
	free(test_write_file(test_dir, "repo/cost", cost));
	free(test_write_file(test_dir, "repo/NOTES", "a change\n"));
	commit_branch("change");
}

Test(baseline_tree, a_20_percent_slowdown_beside_a_busy_process_is_named,
     .timeout = 300)
{
	struct test_output out;
	pid_t busy, late;

	/* The runs of both sides alternate: the neighbour (and whatever
	 * else the machine does, here a second one from 3 s on) slows both
	 * runs of a round alike, and the
	 * runs are compared pair by pair, sampled until the pairs decide
	 * (at most 200 a side: under a heavy load the pairs need more). */
	make_loop_project(40000, 48000);
	busy = busy_start(0);
	late = busy_start(3000);
	check_against_base(&out);
	busy_stop(busy);
	busy_stop(late);
	cr_assert_eq(out.exit_code, 1, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "loop/default/cpu wall"), "%s",
		  out.out.buf);
	test_output_release(&out);
}

Test(baseline_tree, the_same_code_beside_a_busy_process_is_not_a_regression,
     .timeout = 300)
{
	struct test_output out;
	pid_t busy, late;

	make_loop_project(40000, 40000);
	busy = busy_start(0);
	late = busy_start(3000);
	check_against_base(&out);
	busy_stop(busy);
	busy_stop(late);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}
