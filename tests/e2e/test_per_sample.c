/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: metrics declared "per" a count of samples, through the built
 * binary. Energy per sample is the case it exists for: the CPU's energy
 * comes from a fixture powercap tree (BENCHGATE_SYSFS_ROOT, sysfs.h) whose
 * counter the workload itself advances by a known number of joules per
 * run, so the expected values are exact (tests/workloads/samples_energy.c).
 */
#include "harness/util/error.h"
#include "harness/model/result.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKLOAD(name) TEST_WORKLOAD_DIR "/" name
#define COUNTER	       "sys/class/powercap/intel-rapl:0/energy_uj"

static char *dir;
static struct strbuf sysfs_env = STRBUF_INIT;

static void setup(void)
{
	dir = test_tmpdir();
	strbuf_addf(&sysfs_env, "BENCHGATE_SYSFS_ROOT=%s/sys", dir);
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
	strbuf_release(&sysfs_env);
}

TestSuite(per_sample, .init = setup, .fini = teardown);

/* One CPU package whose counter starts at 1 J and wraps far away. */
static void put_rapl_package(void)
{
	free(test_write_file(dir, "sys/class/powercap/intel-rapl:0/name",
			     "package-0\n"));
	free(test_write_file(dir, COUNTER, "1000000\n"));
	free(test_write_file(dir,
			     "sys/class/powercap/intel-rapl:0/"
			     "max_energy_range_uj",
			     "262143328850\n"));
}

/*
 * Writes a suite whose variants run samples_energy with these per-run
 * sample counts and the joules 2, 3 and 0.5 (runs 0, 1, 2); returns its
 * path (free it).
 */
static char *write_suite(const char *variants)
{
	struct strbuf text = STRBUF_INIT;
	char *path;

	strbuf_addf(&text,
		    "{ \"benchgate\": 1, \"suite\": \"energy\",\n"
		    "  \"defaults\": { \"warmup\": 0, \"runs\": 3 },\n"
		    "  \"variants\": { %s },\n"
		    "  \"benchmarks\": [ { \"name\": \"infer\",\n"
		    "    \"command\": [\"%s\", \"%s/%s\", \"${samples}\","
		    " \"2,3,0.5\"],\n"
		    "    \"metrics\": [\n"
		    "      { \"name\": \"energy_per_sample\","
		    " \"from\": \"rapl\", \"field\": \"energy\","
		    " \"per\": \"samples\", \"unit\": \"J\" },\n"
		    "      { \"name\": \"energy\", \"from\": \"rapl\","
		    " \"field\": \"energy\" },\n"
		    "      { \"name\": \"samples\", \"from\": \"metrics\","
		    " \"better\": \"higher\", \"exact\": true } ] } ] }\n",
		    variants, WORKLOAD("samples_energy"), dir, COUNTER);
	path = test_write_file(dir, "suite.json", text.buf);
	strbuf_release(&text);
	return path;
}

/* `benchgate run` of the suite with --json, and the result it wrote. */
static struct result *run_suite(struct test_output *out, const char *suite,
				int expected_exit)
{
	struct strbuf store = STRBUF_INIT, json = STRBUF_INIT;
	const char *env[] = { sysfs_env.buf, NULL };
	struct result *result = NULL;

	strbuf_addf(&store, "%s/store", dir);
	strbuf_addf(&json, "%s/result.json", dir);
	test_benchgate(out, dir, env,
		       (const char *const[]){ "run", suite, "--store",
					      store.buf, "--json", json.buf,
					      "--no-color", NULL });
	cr_assert_eq(out->exit_code, expected_exit, "%s%s", out->out.buf,
		     out->err.buf);
	cr_assert_eq(result_load(&result, json.buf), BG_OK, "%s",
		     bg_error_last());
	strbuf_release(&store);
	strbuf_release(&json);
	return result;
}

static const struct metric_samples *metric(const struct result_case *rcase,
					   const char *name, size_t nr)
{
	const struct metric_samples *m = result_case_find_metric(rcase, name);

	cr_assert_not_null(m, "%s/%s lacks %s", rcase->benchmark,
			   rcase->variant, name);
	cr_assert_eq(m->nr, nr, "%s: %zu samples", name, m->nr);
	return m;
}

Test(per_sample, energy_per_sample_is_each_runs_energy_over_its_samples)
{
	/* joules 2, 3, 0.5 (the workload's arguments) over samples 4, 8, 5 */
	static const double energy[] = { 2, 3, 0.5 };
	static const double per_sample[] = { 0.5, 0.375, 0.1 };
	struct test_output out;
	const struct metric_samples *e, *n, *eps;
	const struct result_case *busy, *empty;
	struct result *result;
	char *suite;

	put_rapl_package();
	suite = write_suite(
		"\"busy\": { \"vars\": { \"samples\": \"4,8,5\" } },"
		" \"empty\": { \"vars\": { \"samples\": \"4,0,5\" } }");
	/* exit 3: the "empty" case failed; "busy" still ran and was stored */
	result = run_suite(&out, suite, 3);

	busy = result_find_case(result, "infer", "busy", "cpu");
	cr_assert_not_null(busy);
	cr_assert_eq(busy->status, CASE_OK, "%s", busy->reason);
	e = metric(busy, "energy", 3);
	n = metric(busy, "samples", 3);
	eps = metric(busy, "energy_per_sample", 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_float_eq(e->samples[i], energy[i], 1e-9, "run %zu",
				   i);
		cr_assert_float_eq(eps->samples[i],
				   e->samples[i] / n->samples[i], 1e-12,
				   "run %zu: %g J / %g samples", i,
				   e->samples[i], n->samples[i]);
		cr_assert_float_eq(eps->samples[i], per_sample[i], 1e-9);
	}
	cr_assert_str_eq(eps->unit, "J");
	cr_assert_eq(eps->runs, 3);

	empty = result_find_case(result, "infer", "empty", "cpu");
	cr_assert_not_null(empty);
	cr_assert_eq(empty->status, CASE_FAILED);
	cr_assert(strstr(empty->reason, "metric 'energy_per_sample': count "
					"metric 'samples' is 0 in this run") &&
			  strstr(empty->reason, "(measured run 2/3)"),
		  "%s", empty->reason);

	/* the terminal summary: a row with the median per sample, 0.375 J */
	cr_assert(strstr(out.out.buf, "energy_per_sample"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "0.375 J"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "count metric 'samples' is 0"), "%s",
		  out.out.buf);

	result_free(result);
	test_output_release(&out);
	free(suite);
}

Test(per_sample, without_rapl_the_per_metric_is_left_out_and_the_run_passes)
{
	struct test_output out;
	const struct result_case *rcase;
	struct result *result;
	char *suite;

	/* a sysfs root without powercap; the workload's counter file is
	 * there but is no RAPL package */
	free(test_write_file(dir, COUNTER, "1000000\n"));
	suite = write_suite(
		"\"busy\": { \"vars\": { \"samples\": \"4,8,5\" } }");
	result = run_suite(&out, suite, 0);

	rcase = result_find_case(result, "infer", "busy", "cpu");
	cr_assert_eq(rcase->status, CASE_OK, "%s", rcase->reason);
	metric(rcase, "samples", 3);
	cr_assert_null(result_case_find_metric(rcase, "energy"));
	cr_assert_null(result_case_find_metric(rcase, "energy_per_sample"));
	/* the collector's reason, once, for both metrics */
	cr_assert(strstr(out.err.buf, "(source 'rapl') is left out"), "%s",
		  out.err.buf);
	cr_assert_null(strstr(strstr(out.err.buf, "is left out") + 1,
			      "is left out"),
		       "%s", out.err.buf);

	result_free(result);
	test_output_release(&out);
	free(suite);
}

Test(per_sample, validate_names_a_bad_per_and_exits_2)
{
	struct test_output out;
	char *suite = test_write_file(
		dir, "bad.json",
		"{ \"benchgate\": 1, \"suite\": \"s\",\n"
		"  \"benchmarks\": [ { \"name\": \"infer\","
		" \"command\": [\"true\"],\n"
		"    \"metrics\": [\n"
		"      { \"name\": \"e\", \"from\": \"rapl\","
		" \"field\": \"energy\", \"per\": \"items\" },\n"
		"      { \"name\": \"samples\","
		" \"from\": \"metrics\" } ] } ] }\n");

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "validate", suite, NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "bad.json:4:64: benchmarks[0].metrics[0]"
				      ".per: unknown metric 'items'"),
		  "%s", out.err.buf);
	cr_assert_eq(out.out.len, 0, "nothing printed as if valid");
	test_output_release(&out);
	free(suite);
}
