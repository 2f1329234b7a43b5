/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: one measurement at a time per machine. Two `run` at once on
 * one lock file (BENCHGATE_LOCK, so that other tests do not wait here):
 * the second waits, saying on whom, or fails with --no-wait; and what a
 * result records of a machine that was not quiet.
 */
#include "harness/model/result.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static void setup(void)
{
	dir = test_tmpdir();
	/* a run of one second, so that a second run comes while it runs */
	free(test_write_file(
		dir, "slow.json",
		"{\"benchgate\": 1, \"suite\": \"slow\","
		" \"defaults\": {\"runs\": 1, \"warmup\": 0},"
		" \"benchmarks\": [{\"name\": \"nap\","
		"  \"shell\": \"sleep 1; echo 'naps 1' > \\\"$BENCHGATE_METRICS_FILE\\\"\","
		"  \"metrics\": [{\"name\": \"naps\", \"from\": \"metrics\","
		"   \"key\": \"naps\"}]}]}\n"));
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(lock, .init = setup, .fini = teardown);

/* Runs a shell script in dir with BENCHGATE_LOCK in dir and $BG the
 * benchgate binary. */
static void shell(struct test_output *out, const char *script)
{
	char lock[4096];
	const char *env[] = { lock, "BG=" BENCHGATE_BIN, NULL };

	snprintf(lock, sizeof(lock), "BENCHGATE_LOCK=%s/machine.lock", dir);
	test_run(out, dir, env,
		 (const char *const[]){ "/bin/sh", "-c", script, NULL });
}

/* The only result in a store directory of dir, loaded. */
static struct result *stored(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return test_only_result(path);
}

Test(lock, a_second_run_waits_for_the_first_or_fails_with_no_wait)
{
	struct test_output out;
	struct result *first, *second;

	shell(&out, "\"$BG\" run slow.json --store first >first.log 2>&1 &"
		    " sleep 0.5;"
		    " \"$BG\" run slow.json --store never --no-wait;"
		    " echo \"no-wait exit $?\";"
		    " \"$BG\" run slow.json --store second;"
		    " echo \"wait exit $?\"; wait");
	cr_assert(strstr(out.out.buf, "no-wait exit 2"), "%s%s", out.out.buf,
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "machine.lock' is held by pid "),
		  "names the holder: %s", out.err.buf);
	cr_assert(strstr(out.err.buf, "(benchgate)"), "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "wait exit 0"), "%s%s", out.out.buf,
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "waiting for the machine lock"), "%s",
		  out.err.buf);
	test_output_release(&out);
	/* the second measured once the first was done */
	first = stored("first");
	second = stored("second");
	cr_assert_leq(strcmp(first->finished_at, second->started_at), 0,
		      "first finished %s, second started %s",
		      first->finished_at, second->started_at);
	result_free(first);
	result_free(second);
}

Test(lock, a_result_records_a_busy_machine_and_the_summary_warns)
{
	struct test_output out;
	struct result *result;
	bool found = false;

	shell(&out, "sh -c 'while :; do :; done' & spinner=$!; sleep 0.3;"
		    " \"$BG\" run slow.json --store busy --no-color;"
		    " echo \"spinner $spinner\"; kill $spinner");
	cr_assert(strstr(out.err.buf, "benchgate: warning: the machine was "
				      "not quiet"),
		  "%s%s", out.out.buf, out.err.buf);
	result = stored("busy");
	cr_assert(result->load.observed);
	for (size_t i = 0; i < result->load.busy_nr; i++) {
		char pid[64];

		snprintf(pid, sizeof(pid), "spinner %d\n",
			 result->load.busy[i].pid);
		if (strstr(out.out.buf, pid)) {
			found = true;
			cr_assert_gt(result->load.busy[i].cpu, 0);
			cr_assert_str_eq(result->load.busy[i].command, "sh");
		}
	}
	cr_assert(found, "the spinner is among the busy: %s", out.out.buf);
	cr_assert_geq(result->load.cpu_busy, 0.25);
	test_output_release(&out);
	result_free(result);
}

Test(lock, a_quiet_machine_gets_no_warning)
{
	struct test_output out;
	struct result *result;

	shell(&out, "\"$BG\" run slow.json --store calm --no-color");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	result = stored("calm");
	cr_assert(result->load.observed);
	/* another test may be busy on this machine: the warning is there
	 * exactly when the record says so */
	cr_assert_eq(strstr(out.err.buf, "machine was not quiet") != NULL,
		     !machine_load_quiet(&result->load), "%s", out.err.buf);
	cr_assert_null(strstr(out.out.buf, "warning"), "%s", out.out.buf);
	test_output_release(&out);
	result_free(result);
}

/* The machine is judged over the whole measurement, not a window at its
 * start: a job that starts once the runs are under way is seen too. */
Test(lock, a_job_that_starts_during_the_runs_is_recorded)
{
	struct test_output out;
	struct result *result;
	bool found = false;

	shell(&out, "\"$BG\" run slow.json --store late --no-color"
		    " >late.log 2>&1 & bg=$!; sleep 0.4;"
		    " sh -c 'while :; do :; done' & spinner=$!;"
		    " wait $bg; echo \"exit $?\"; echo \"spinner $spinner\";"
		    " kill $spinner; cat late.log");
	cr_assert(strstr(out.out.buf, "exit 0"), "%s%s", out.out.buf,
		  out.err.buf);
	cr_assert(strstr(out.out.buf, "benchgate: warning: the machine was "
				      "not quiet"),
		  "%s%s", out.out.buf, out.err.buf);
	result = stored("late");
	for (size_t i = 0; i < result->load.busy_nr; i++) {
		char pid[64];

		snprintf(pid, sizeof(pid), "spinner %d\n",
			 result->load.busy[i].pid);
		found = found || strstr(out.out.buf, pid);
	}
	cr_assert(found, "the spinner is among the busy: %s", out.out.buf);
	/* about half a core over the second: surely more than a quarter */
	cr_assert_geq(result->load.cpu_busy, 0.25);
	test_output_release(&out);
	result_free(result);
}
