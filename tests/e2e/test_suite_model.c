/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the suite model of issue 13, as a user of a model in several
 * variants meets it through the built binary. A variant that exists only
 * on the CPU is not planned on the GPU; a metric of the GPU only is not
 * missing on the CPU; a metric with gate: false regresses without failing
 * the gate and is shown as not gated; the variant table compares with the
 * named reference in the columns the roles say; env values expand as the
 * command does; an unknown device or variable is a suite error (exit 2).
 */
#include "harness/model/result.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

TestSuite(suite_model, .init = test_dir_setup, .fini = test_dir_teardown);

/* Writes name in test_dir with single quotes standing for double quotes. */
static void write_quoted(const char *name, const char *text)
{
	char *copy = strdup(text);

	for (char *p = copy; *p; p++)
		if (*p == '\'')
			*p = '"';
	free(test_write_file(test_dir, name, copy));
	free(copy);
}

/*
 * int8 runs on the CPU only; fp32 is the reference. The benchmark checks
 * that its env arrived expanded (else it fails), and reports a batch time
 * 4 times shorter for int8, the GPU allocator's peak on the GPU only, and
 * a start-up time taken from $STARTUP that is not gated.
 */
static const char model_suite[] =
	"{ 'benchgate': 1, 'suite': 'model', 'reference': 'fp32',\n"
	"  'devices': ['cpu', 'gpu'],\n"
	"  'variants': { 'fp32': { 'vars': { 'scale': '1' } },\n"
	"                'int8': { 'vars': { 'scale': '4' },\n"
	"                          'devices': ['cpu'] } },\n"
	"  'defaults': { 'runs': 5, 'warmup': 0,\n"
	"    'env': { 'MODEL_HOME': '${suite_dir}/home',\n"
	"             'FACTOR': '${scale}' } },\n"
	"  'benchmarks': [ { 'name': 'infer',\n"
	"    'command': ['/bin/sh', '${suite_dir}/bench.sh'],\n"
	"    'metrics': [\n"
	"      { 'name': 'batch_ms', 'from': 'metrics', 'unit': 'ms',\n"
	"        'role': 'speed' },\n"
	"      { 'name': 'bytes', 'from': 'metrics', 'exact': true,\n"
	"        'role': 'size' },\n"
	"      { 'name': 'top1', 'from': 'metrics', 'exact': true,\n"
	"        'better': 'higher', 'role': 'accuracy' },\n"
	"      { 'name': 'startup', 'from': 'metrics', 'unit': 's',\n"
	"        'gate': false },\n"
	"      { 'name': 'gpu_peak', 'from': 'metrics', 'unit': 'B',\n"
	"        'devices': ['gpu'] } ] } ] }\n";

static const char bench_sh[] =
	"case \"$MODEL_HOME\" in */home) ;; *) echo \"env not expanded: "
	"$MODEL_HOME\" >&2; exit 1;; esac\n"
	"[ \"${MODEL_HOME%/home}\" = \"$(pwd)\" ] || { echo \"not the suite "
	"dir: $MODEL_HOME\" >&2; exit 1; }\n"
	"awk -v f=\"$FACTOR\" -v r=\"$BENCHGATE_RUN\" -v s=\"${STARTUP:-1}\" "
	"-v dev=\"$BENCHGATE_DEVICE\" 'BEGIN {\n"
	"  printf \"{\\\"batch_ms\\\": %.4f, \\\"bytes\\\": %d, \\\"top1\\\": "
	"%.3f, \\\"startup\\\": %.4f\", 40 / f * (1 + 0.002 * (r % 3)),\n"
	"    400 / f, 0.95 - 0.005 * (f > 1), s * (1 + 0.002 * (r % 4))\n"
	"  if (dev == \"gpu\") printf \", \\\"gpu_peak\\\": 7\"\n"
	"  print \"}\" }' > \"$BENCHGATE_METRICS_FILE\"\n";

static const char *const with_gpu[] = { "BENCHGATE_DEVICES=cpu,gpu", NULL };

/* Runs the suite into test_dir/<name>.json with $STARTUP at startup. */
static void run_model(const char *name, const char *startup)
{
	char json[4096], store[4096], startup_env[64];
	const char *env[] = { "BENCHGATE_DEVICES=cpu,gpu", startup_env, NULL };
	struct test_output out;

	snprintf(json, sizeof(json), "%s/%s.json", test_dir, name);
	snprintf(store, sizeof(store), "%s/store-%s", test_dir, name);
	snprintf(startup_env, sizeof(startup_env), "STARTUP=%s", startup);
	RUN(&out, test_dir, env, "run", "model.json", "--store", store, "--json",
	    json, "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

Test(suite_model, variants_devices_roles_and_an_ungated_metric)
{
	struct test_output out;
	struct result *result = NULL;
	char path[4096], *text;
	const struct result_case *rcase;

	write_quoted("model.json", model_suite);
	free(test_write_file(test_dir, "bench.sh", bench_sh));

	/* validate lists what will run, and only that */
	RUN(&out, test_dir, with_gpu, "validate", "model.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "valid, 3 cases (1 benchmark x 2 "
				      "variants x 2 devices, less 1 "
				      "variant/device pair that cannot "
				      "exist)"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "infer/int8/cpu"), "%s", out.out.buf);
	cr_assert_null(strstr(out.out.buf, "infer/int8/gpu"), "%s",
		       out.out.buf);
	test_output_release(&out);

	run_model("base", "1");
	run_model("cand", "2");

	/* not planned: no case, not a skipped or failed one */
	snprintf(path, sizeof(path), "%s/cand.json", test_dir);
	cr_assert_eq(result_load(&result, path), BG_OK, "%s", bg_error_last());
	cr_assert_eq(result->cases_nr, 3);
	cr_assert_null(result_find_case(result, "infer", "int8", "gpu"));
	cr_assert_str_eq(result->reference, "fp32");
	rcase = result_find_case(result, "infer", "int8", "cpu");
	cr_assert_eq(rcase->status, CASE_OK, "%s", rcase->reason);
	cr_assert_null(result_case_find_metric(rcase, "gpu_peak"),
		       "a GPU metric is not collected on the CPU");
	cr_assert(!result_case_find_metric(rcase, "startup")->gate);
	cr_assert_str_eq(result_case_find_metric(rcase, "bytes")->role,
			 "size");
	rcase = result_find_case(result, "infer", "fp32", "gpu");
	cr_assert_not_null(result_case_find_metric(rcase, "gpu_peak"));
	result_free(result);

	/* start-up doubled: shown, not gated, and the gate passes */
	RUN(&out, test_dir, NULL, "compare", "base.json", "cand.json", "--json",
	    "cmp.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "regression, not gated"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "PASS: 0 regressions"), "%s",
		  out.out.buf);
	cr_assert_null(strstr(out.out.buf, " missing"), "%s", out.out.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/cmp.json", test_dir);
	text = test_read_file(path);
	cr_assert(strstr(text, "\"verdict\":\t\"pass\""), "%s", text);
	cr_assert(strstr(text, "\"gate\":\tfalse"), "%s", text);
	/* the variant table: int8 against fp32, from the roles' metrics */
	cr_assert(strstr(text, "\"against\":\t\"fp32\""), "%s", text);
	cr_assert(strstr(text, "\"speed_metric\":\t\"batch_ms\""), "%s", text);
	free(text);
}

Test(suite_model, an_unknown_device_is_a_suite_error)
{
	struct test_output out;

	write_quoted("tpu.json",
		     "{ 'benchgate': 1, 'suite': 'tpu',\n"
		     "  'devices': ['cpu', 'tpu'],\n"
		     "  'benchmarks': [ { 'name': 't', 'command': ['true'],\n"
		     "    'metrics': [ { 'name': 'w', 'from': 'wall' } ] } ] }");
	RUN(&out, test_dir, NULL, "validate", "tpu.json");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "tpu.json:2:22: devices[1]: unknown "
				      "device 'tpu'"),
		  "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, test_dir, NULL, "run", "tpu.json", "--store", "store");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);

	/* a declared device is known */
	write_quoted("npu.json",
		     "{ 'benchgate': 1, 'suite': 'npu',\n"
		     "  'declared_devices': ['npu'], 'devices': ['npu'],\n"
		     "  'benchmarks': [ { 'name': 't', 'command': ['true'],\n"
		     "    'metrics': [ { 'name': 'w', 'from': 'wall' } ] } ] }");
	RUN(&out, test_dir, NULL, "validate", "npu.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

Test(suite_model, an_unknown_variable_in_env_is_a_load_time_error)
{
	struct test_output out;

	write_quoted("env.json",
		     "{ 'benchgate': 1, 'suite': 'env',\n"
		     "  'defaults': { 'env': { 'P': '${suite_dir}/lib',\n"
		     "                         'Q': '${nosuch}' } },\n"
		     "  'benchmarks': [ { 'name': 't', 'command': ['true'],\n"
		     "    'metrics': [ { 'name': 'w', 'from': 'wall' } ] } ] }");
	RUN(&out, test_dir, NULL, "validate", "env.json");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "env.json:3:31: defaults.env.Q: unknown "
				      "variable '${nosuch}'"),
		  "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, test_dir, NULL, "run", "env.json", "--store", "store");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}
