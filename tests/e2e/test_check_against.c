/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate check --against main --build CMD` on a generated
 * repository. Its benchmark reports the latency that the file `latency`
 * of its tree says, as the build copied it into the build directory: a
 * planted change with no noise at all, so a busy machine (ctest -j2)
 * cannot move the verdict, and one that only the build of each tree
 * carries, so the test fails unless both trees were built. main moves on
 * after the branches fork from it: only the merge base, not main's tip,
 * gives the verdicts asserted. The repository is made with the git
 * program.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct test_git_area area;
static char store_opt[4200];
static char base_hex[41];

#define BUILD "mkdir -p build && cp latency build/latency"

/*
 * repo/: main at "first" (latency 100 ms), from which the branches fork:
 * docs (a README, no code) and slow ("slower by 20 %", 120 ms); main then
 * moves on to "faster" (80 ms), which the docs branch would fail against.
 */
static void setup(void)
{
	test_git_area_init(
		&area,
		"cat > suite.json <<'EOF'\n"
		"{ \"benchgate\": 1, \"suite\": \"latency\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 5, "
		"\"threshold\": \"10%\" },\n"
		"  \"benchmarks\": [ { \"name\": \"serve\",\n"
		"    \"shell\": \"echo latency_ms $(cat ${build_dir}/latency) ms"
		" > $BENCHGATE_METRICS_FILE\",\n"
		"    \"metrics\": [ { \"name\": \"latency\", \"from\": "
		"\"metrics\", \"key\": \"latency_ms\", \"unit\": \"ms\" } ] } ] }\n"
		"EOF\n"
		"echo build/ > .gitignore\n"
		"echo 100 > latency\n"
		"git add -A && git commit -qm first\n"
		"git rev-parse HEAD > ../base\n"
		"git checkout -qb docs && echo 'how to use it' > README\n"
		"git add -A && git commit -qm 'document it'\n"
		"git checkout -qb slow main && echo 120 > latency\n"
		"git commit -qam 'slower by 20 %'\n"
		"git checkout -q main && echo 80 > latency\n"
		"git commit -qam faster\n");
	snprintf(store_opt, sizeof(store_opt), "%s/store", area.dir);
	test_read_commit_ids(area.dir, "base", &base_hex, 1);
}

static void teardown(void)
{
	test_git_area_release(&area);
}

TestSuite(check_against, .init = setup, .fini = teardown, .timeout = 180);

static void on_branch(const char *branch)
{
	struct strbuf script = STRBUF_INIT;

	strbuf_addf(&script, "cd repo && git checkout -q %s", branch);
	test_shell(area.dir, script.buf);
	strbuf_release(&script);
}

/* check --against main --build BUILD, and extra options (NULL-ended). */
static void check(struct test_output *out, const char *build,
		  const char *extra)
{
	test_benchgate(out, area.repo, area.env,
		       (const char *const[]){ "check", "suite.json", "--store",
					      store_opt, "--no-color",
					      "--against", "main", "--build",
					      build, extra, NULL });
}

Test(check_against, a_docs_only_branch_passes_against_the_merge_base)
{
	struct test_output out;
	char note[128];

	on_branch("docs");
	check(&out, BUILD, NULL);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "PASS"), "%s", out.out.buf);
	/* what it compared: the ref, the merge base and its subject */
	snprintf(note, sizeof(note), "at %.12s (\"first\")", base_hex);
	cr_assert(strstr(out.out.buf, "baseline: --against main: the merge "
				      "base with main"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, note), "%s", out.out.buf);
	cr_assert(strstr(out.err.buf, "check: comparing with the merge base"),
		  "%s", out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
}

Test(check_against, a_branch_20_percent_slower_fails_the_gate)
{
	struct test_output out;

	on_branch("slow");
	check(&out, BUILD, NULL);
	cr_assert_eq(out.exit_code, 1, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "serve/default/cpu latency"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "100 ms"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "120 ms"), "%s", out.out.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
}

Test(check_against, a_build_that_fails_is_broken_not_slower)
{
	struct test_output out;

	on_branch("slow");
	check(&out, "echo 'no compiler here' >&2; exit 7", NULL);
	cr_assert_eq(out.exit_code, 3, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "cannot be built"), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "exited with status 7: no compiler "
				      "here"),
		  "%s", out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
	/* only the current tree's build fails: the same */
	check(&out, "test ! -d .git || exit 5; " BUILD, NULL);
	cr_assert_eq(out.exit_code, 3, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "the current tree cannot be built"),
		  "%s", out.err.buf);
	test_output_release(&out);
	/* and one that hangs is killed at the build timeout */
	check(&out, "sleep 30", "--build-timeout=1");
	cr_assert_eq(out.exit_code, 3, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "timed out after 1s"), "%s",
		  out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
}

Test(check_against, an_interrupted_check_removes_its_scratch_tree)
{
	struct test_output out;

	/* the build's shell is benchgate's child: it interrupts benchgate,
	 * Ctrl-C while the merge base builds */
	check(&out, "kill -INT $PPID; sleep 5", NULL);
	cr_assert_eq(out.exit_code, -1, "ended by the signal: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "check stopped, its scratch tree "
				      "removed"),
		  "%s", out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
	/* SIGTERM while the current tree builds */
	check(&out, "test ! -d .git || kill -TERM $PPID; sleep 1; " BUILD,
	      NULL);
	cr_assert_eq(out.exit_code, -1, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
}

Test(check_against, an_interrupt_while_measuring_removes_the_tree)
{
	struct test_output out;

	/* the benchmark of the scratch tree (no .git there) sends SIGTERM
	 * to benchgate as a CI runner cancelling the job would */
	free(test_write_file(area.dir, "repo/suite.json",
			     "{ \"benchgate\": 1, \"suite\": \"stop\","
			     "  \"benchmarks\": [ { \"name\": \"stop\","
			     "  \"shell\": \"test -d ${suite_dir}/.git ||"
			     " kill -TERM $PPID; sleep 0.1\","
			     "  \"metrics\": [ { \"name\": \"wall\","
			     " \"from\": \"wall\" } ] } ] }\n"));
	test_shell(area.dir, "cd repo && git -c user.name=t -c user.email=t@e "
			     "commit -qam stop");
	test_benchgate(&out, area.repo, area.env,
		       (const char *const[]){ "check", "suite.json", "--store",
					      store_opt, "--against", "HEAD",
					      NULL });
	cr_assert_eq(out.exit_code, -1, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
}

Test(check_against, bad_input_is_exit_2_before_anything_is_made)
{
	struct test_output out;

	test_benchgate(&out, area.repo, area.env,
		       (const char *const[]){ "check", "suite.json", "--store",
					      store_opt, "--against", "nosuch",
					      NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "--against: 'nosuch' names no commit"),
		  "%s", out.err.buf);
	test_output_release(&out);
	test_benchgate(&out, area.repo, area.env,
		       (const char *const[]){ "check", "suite.json", "--store",
					      store_opt, "--build", "make",
					      NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "--build builds the two trees of "
				      "--against"),
		  "%s", out.err.buf);
	test_output_release(&out);
	test_benchgate(&out, area.repo, area.env,
		       (const char *const[]){ "check", "suite.json", "--store",
					      store_opt, "--against", "main",
					      "--baseline-tree", ".", NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "cannot be combined with "
				      "--baseline-tree"),
		  "%s", out.err.buf);
	test_output_release(&out);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "nothing was checked out");
}

Test(check_against, a_suite_the_branch_adds_is_compared_with_the_store)
{
	struct test_output out;

	on_branch("docs");
	test_shell(area.dir,
		   "cd repo && cp suite.json added.json && git add -A &&"
		   " git -c user.name=t -c user.email=t@e commit -qm add");
	test_benchgate(&out, area.repo, area.env,
		       (const char *const[]){ "check", "added.json", "--store",
					      store_opt, "--against", "main",
					      "--build", BUILD, NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "warning: the suite 'added.json' is "
				      "not in the merge base"),
		  "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "1 new"), "%s", out.out.buf);
	cr_assert_eq(test_count_entries(area.scratch, 0), 0,
		     "the scratch tree is gone");
	test_output_release(&out);
}
