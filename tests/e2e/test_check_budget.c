/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `check` at its defaults. A suite that sets no "runs" is
 * sampled adaptively by check (from min_runs to max_runs, stopping once
 * the comparison is decided) within a time budget (--budget,
 * BENCHGATE_BUDGET, 900 s by default), so that a +10 % change in noisy
 * runs is named where the fixed 10 runs of `run` leave it inconclusive.
 * The runs' values are recorded, never timed (a seeded generator and a
 * run counter), so the verdicts cannot depend on the machine's load.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, env, ...)                            \
	test_benchgate((out), test_dir, (env),        \
		       (const char *const[]){ __VA_ARGS__, NULL })

TestSuite(check_budget, .init = test_dir_setup, .fini = test_dir_teardown,
	  .timeout = 300);

/* latency=LEVEL x exp(0.1 z), z about standard normal (twelve uniforms
 * less 6 from a Park-Miller stream whose state is in the file `lehmer`),
 * LEVEL from the file `level`; then it sleeps as long as the file `nap`
 * says. */
static const char script[] =
	"awk -v l=\"$(cat level)\" 'BEGIN {\n"
	"  if ((getline x < \"lehmer\") <= 0) x = 7919\n"
	"  close(\"lehmer\")\n"
	"  z = 0\n"
	"  for (i = 0; i < 12; i++) {\n"
	"    x = (x * 16807) % 2147483647; z += x / 2147483647 }\n"
	"  print x > \"lehmer\"\n"
	"  printf \"latency=%.6f\\n\", l * exp(0.1 * (z - 6)) }'\n"
	"sleep \"$(cat nap 2>/dev/null || echo 0)\"\n";

/* No "runs": check samples adaptively, `run` makes 10. */
static const char suite[] =
	"{\"benchgate\": 1, \"suite\": \"budget\","
	" \"defaults\": {\"warmup\": 0},"
	" \"benchmarks\": [{\"name\": \"b\","
	"  \"command\": [\"/bin/sh\", \"noisy.sh\"],"
	"  \"metrics\": [{\"name\": \"latency\", \"from\": \"stdout\","
	"   \"regex\": \"latency=([0-9.]+)\", \"unit\": \"ms\"}]}]}";

static const char *const env[] = { "BENCHGATE_DEVICES=cpu",
				   "BENCHGATE_MACHINE_ID=budget-box", NULL };

/* base.json: 30 runs at 1.00 ms; then the level is 1.10 (+10 %). */
static void baseline(void)
{
	struct test_output out;

	free(test_write_file(test_dir, "noisy.sh", script));
	free(test_write_file(test_dir, "s.json", suite));
	free(test_write_file(test_dir, "level", "1.00"));
	RUN(&out, env, "run", "s.json", "--store", "store", "--runs", "30",
	    "--json", "base.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	free(test_write_file(test_dir, "level", "1.10"));
}

/* The candidate's samples in the comparison document `name` (one a
 * run): its metric's "candidate": {"n": ...}, blanks aside. */
static int candidate_runs(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text, *at;
	size_t kept = 0;
	int n = -1;

	strbuf_addf(&path, "%s/%s", test_dir, name);
	text = test_read_file(path.buf);
	cr_assert_not_null(text, "%s", path.buf);
	for (size_t i = 0; text[i]; i++)
		if (!strchr(" \t\n", text[i]))
			text[kept++] = text[i];
	text[kept] = '\0';
	at = strstr(text, "\"candidate\":{\"n\":");
	cr_assert(at && sscanf(at, "\"candidate\":{\"n\":%d", &n) == 1, "%s",
		  text);
	free(text);
	strbuf_release(&path);
	return n;
}

Test(check_budget, a_ten_percent_change_is_named_at_the_defaults)
{
	struct test_output out;

	baseline();
	/* the fixed 10 runs cannot decide it */
	RUN(&out, env, "check", "s.json", "--store", "store", "--baseline",
	    "base.json", "--runs", "10", "--json", "fixed.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "inconclusive"), "%s", out.out.buf);
	test_output_release(&out);

	/* the defaults sample on and name it */
	RUN(&out, env, "check", "s.json", "--store", "store", "--baseline",
	    "base.json", "--json", "auto.json");
	cr_assert_eq(out.exit_code, 1, "a regression: %s%s", out.out.buf,
		     out.err.buf);
	cr_assert(strstr(out.out.buf, "regression"), "%s", out.out.buf);
	cr_assert_gt(candidate_runs("auto.json"), 10, "sampled beyond 10");
	cr_assert_leq(candidate_runs("auto.json"), 30, "max_runs");
	test_output_release(&out);
}

Test(check_budget, a_spent_budget_stops_at_min_runs)
{
	struct test_output out;
	const char *const budget_env[] = { "BENCHGATE_DEVICES=cpu",
					   "BENCHGATE_MACHINE_ID=budget-box",
					   "BENCHGATE_BUDGET=1", NULL };

	baseline();
	free(test_write_file(test_dir, "nap", "0.3"));
	RUN(&out, budget_env, "check", "s.json", "--store", "store",
	    "--baseline", "base.json", "--json", "spent.json");
	cr_assert(strstr(out.err.buf, "the time budget of 1 s is spent"),
		  "%s", out.err.buf);
	cr_assert_eq(candidate_runs("spent.json"), 5, "its min_runs: %d, %s%s",
		     candidate_runs("spent.json"), out.out.buf, out.err.buf);
	test_output_release(&out);

	/* --budget over the environment's, and bad values are exit 2 */
	RUN(&out, budget_env, "check", "s.json", "--store", "store",
	    "--baseline", "base.json", "--budget", "abc");
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, ((const char *const[]){ "BENCHGATE_BUDGET=soon", NULL }),
	    "check", "s.json", "--store", "store", "--baseline", "base.json");
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "BENCHGATE_BUDGET: expected a whole "
				      "number of seconds"),
		  "%s", out.err.buf);
	test_output_release(&out);
}
