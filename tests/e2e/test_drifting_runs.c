/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end, issue 27: runs that drift over a session, with a burst over
 * two adjacent runs, as the project's own CI measured them (10
 * repetitions a side under ASan beside another test), compared as a
 * stored baseline. The gate counts their dependence without collapsing
 * to one degree of freedom a side: `compare` names the 4x slowdown a
 * regression (exit 1), and the same runs on both sides pass. Two
 * sessions of the same build whose machine wandered low in one and high in
 * the other are not named a regression without a history: inconclusive,
 * with a note that says to measure both in one session.
 */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, cwd, ...)                                 \
	test_benchgate((out), (cwd), env,                  \
		       (const char *const[]){ __VA_ARGS__, NULL })

static const char *const env[] = { "BENCHGATE_DEVICES=cpu",
				   "BENCHGATE_MACHINE_ID=drift-box", NULL };

TestSuite(drifting_runs, .init = test_dir_setup, .fini = test_dir_teardown);

/* Prints run n's recorded cpu_time, the n-th line of `values`: recorded,
 * never timed, so the verdicts cannot depend on how busy the machine
 * is. */
static const char script[] = "n=$(cat count 2>/dev/null || echo 0)\n"
			     "echo $((n + 1)) > count\n"
			     "echo \"cpu_time=$(sed -n \"$((n + 1))p\" values)\"\n";

static const char suite[] =
	"{\"benchgate\": 1, \"suite\": \"drift\","
	" \"defaults\": {\"runs\": 10, \"warmup\": 0},"
	" \"benchmarks\": [{\"name\": \"spin\","
	"  \"command\": [\"/bin/sh\", \"values.sh\"],"
	"  \"metrics\": [{\"name\": \"cpu_time\", \"from\": \"stdout\","
	"   \"regex\": \"cpu_time=([0-9.]+)\", \"unit\": \"ns\"}]}]}";

/* The baseline drifts down and back up by a fifth, and a burst doubles
 * its 7th and 8th runs; the candidate, 4x slower, drifts the same way. */
static const char baseline[] = "33900\n32400\n30100\n28700\n26900\n"
			       "25800\n64900\n61200\n26400\n27900\n";
static const char candidate[] = "143100\n137900\n131100\n124600\n120100\n"
				"116300\n114800\n117900\n122200\n128500\n";

static void measure(const char *values, const char *json)
{
	struct test_output out;
	char *count = NULL;

	free(test_write_file(test_dir, "values", values));
	count = test_write_file(test_dir, "count", "0\n");
	RUN(&out, test_dir, "run", "s.json", "--store", "store", "--json",
	    json, "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	free(count);
}

static void measure_both(void)
{
	free(test_write_file(test_dir, "values.sh", script));
	free(test_write_file(test_dir, "s.json", suite));
	measure(baseline, "a.json");
	measure(candidate, "b.json");
}

Test(drifting_runs, a_fourfold_slowdown_is_a_regression)
{
	struct test_output out;

	measure_both();
	RUN(&out, test_dir, "compare", "a.json", "b.json");
	cr_assert_eq(out.exit_code, 1, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "1 regression,"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, " 0 inconclusive"), "%s", out.out.buf);
	test_output_release(&out);
}

Test(drifting_runs, the_same_drifting_runs_pass)
{
	struct test_output out;

	measure_both();
	RUN(&out, test_dir, "compare", "a.json", "a.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

/* Two sessions of twelve runs of the same build, from the detection
 * corpus's drift model (tests/test_compare_drift.c has the same values):
 * their own spread reads +11.1 % [+1.3 %, +21.9 %]. */
static const char suite12[] =
	"{\"benchgate\": 1, \"suite\": \"drift\","
	" \"defaults\": {\"runs\": 12, \"warmup\": 0},"
	" \"benchmarks\": [{\"name\": \"spin\","
	"  \"command\": [\"/bin/sh\", \"values.sh\"],"
	"  \"metrics\": [{\"name\": \"cpu_time\", \"from\": \"stdout\","
	"   \"regex\": \"cpu_time=([0-9.]+)\", \"unit\": \"ns\"}]}]}";
static const char session_a[] = "10227\n9928\n9881\n9840\n9827\n9857\n"
				"9497\n9545\n9342\n9916\n10179\n10215\n";
static const char session_b[] = "10892\n10568\n10846\n10689\n10655\n"
				"11187\n11310\n11038\n11257\n11252\n"
				"10945\n10722\n";

Test(drifting_runs, two_drifting_sessions_without_a_history_are_inconclusive)
{
	struct test_output out;
	struct strbuf path = STRBUF_INIT;
	char *doc;

	free(test_write_file(test_dir, "values.sh", script));
	free(test_write_file(test_dir, "s.json", suite12));
	measure(session_a, "a.json");
	measure(session_b, "b.json");
	RUN(&out, test_dir, "compare", "a.json", "b.json", "--json",
	    "c.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "0 regression"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "1 inconclusive"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "no history bounds the noise between "
				      "the two sessions"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "--baseline-tree"), "%s", out.out.buf);
	/* more runs of the same sessions would not decide it */
	cr_assert_null(strstr(out.out.buf, "need more runs"), "%s",
		       out.out.buf);
	/* and the document says so to whoever reads it again */
	strbuf_addf(&path, "%s/c.json", test_dir);
	doc = test_read_file(path.buf);
	cr_assert_not_null(doc, "%s", path.buf);
	cr_assert(strstr(doc, "\"session_unbounded\":\ttrue"), "%s", doc);
	free(doc);
	strbuf_release(&path);
	test_output_release(&out);
}
