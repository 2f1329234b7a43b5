/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/error.h"
#include "harness/suite/plan.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(plan);

/* 2 benchmarks x 3 variants x 2 devices = 12 cases. */
static const char matrix[] =
	"{\"benchgate\": 1, \"suite\": \"m\", \"devices\": [\"cpu\", \"gpu\"],"
	" \"variants\": {\"original\": {\"vars\": {\"model\": \"${device}-fp32\"}},"
	" \"quantized\": {\"vars\": {\"model\": \"${device}-int8\"}},"
	" \"pruned\": {\"vars\": {\"model\": \"${device}-sparse\"}}},"
	" \"benchmarks\": ["
	"  {\"name\": \"infer\", \"command\": [\"${build_dir}/b\", \"--model\","
	"   \"${model}\", \"--run\", \"${run}\", \"${suite}:${benchmark}:${variant}\"],"
	"   \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]},"
	"  {\"name\": \"load\", \"shell\": \"echo ${model} $$HOME\","
	"   \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}";

static struct suite *load_matrix(void)
{
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "/tmp/m.json", matrix, strlen(matrix)),
		     BG_OK, "%s", bg_error_last());
	return suite;
}

Test(plan, full_matrix_in_suite_order)
{
	struct suite *suite = load_matrix();
	struct plan *plan = NULL;

	cr_assert_eq(plan_build(&plan, suite, NULL, "/opt/build"), BG_OK);
	cr_assert_eq(plan->nr, 12);
	cr_assert_str_eq(plan->cases[0].id, "infer/original/cpu");
	cr_assert_str_eq(plan->cases[1].id, "infer/original/gpu");
	cr_assert_str_eq(plan->cases[2].id, "infer/quantized/cpu");
	cr_assert_str_eq(plan->cases[11].id, "load/pruned/gpu");
	plan_free(plan);
	suite_free(suite);
}

Test(plan, filter_variant_and_device_narrow_the_plan)
{
	struct suite *suite = load_matrix();
	struct plan_filter filter = { .glob = "infer/*" };
	struct plan *plan = NULL;

	cr_assert_eq(plan_build(&plan, suite, &filter, "/b"), BG_OK);
	cr_assert_eq(plan->nr, 6);
	plan_free(plan);

	filter.variant = "quantized";
	filter.device = "gpu";
	cr_assert_eq(plan_build(&plan, suite, &filter, "/b"), BG_OK);
	cr_assert_eq(plan->nr, 1);
	cr_assert_str_eq(plan->cases[0].id, "infer/quantized/gpu");
	plan_free(plan);
	suite_free(suite);
}

Test(plan, empty_selection_is_an_input_error_naming_the_filter)
{
	struct suite *suite = load_matrix();
	struct plan_filter filter = { .glob = "nothing*" };
	struct plan *plan = NULL;

	cr_assert_eq(plan_build(&plan, suite, &filter, "/b"), BG_EINPUT);
	cr_assert(strstr(bg_error_last(),
			 "no case matches --filter 'nothing*'"),
		  "%s", bg_error_last());
	suite_free(suite);
}

Test(plan, shards_are_disjoint_and_cover_the_plan)
{
	struct suite *suite = load_matrix();
	int seen[12] = { 0 };

	for (unsigned count = 1; count <= 5; count++) {
		memset(seen, 0, sizeof(seen));
		for (unsigned index = 1; index <= count; index++) {
			struct plan_filter filter = { 0 };
			struct plan *full = NULL, *plan = NULL;
			char spec[16];

			snprintf(spec, sizeof(spec), "%u/%u", index, count);
			cr_assert_eq(plan_parse_shard(&filter, spec), BG_OK);
			cr_assert_eq(plan_build(&full, suite, NULL, "/b"),
				     BG_OK);
			cr_assert_eq(plan_build(&plan, suite, &filter, "/b"),
				     BG_OK);
			for (size_t i = 0; i < plan->nr; i++)
				for (size_t j = 0; j < full->nr; j++)
					if (!strcmp(plan->cases[i].id,
						    full->cases[j].id))
						seen[j]++;
			cr_assert_geq(plan->nr, 12 / count);
			cr_assert_leq(plan->nr, 12 / count + 1,
				      "balanced shards");
			plan_free(plan);
			plan_free(full);
		}
		for (int j = 0; j < 12; j++)
			cr_assert_eq(seen[j], 1, "case %d in %d shards of %u",
				     j, seen[j], count);
	}
	suite_free(suite);
}

Test(plan, bad_shard_specs_are_rejected)
{
	struct plan_filter filter = { 0 };
	const char *bad[] = { "0/3", "4/3", "1/0", "a/b", "1/2x", "", "2" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_assert_eq(plan_parse_shard(&filter, bad[i]), BG_EINPUT,
			     "accepted '%s'", bad[i]);
}

Test(plan, command_expands_variant_vars_and_builtins)
{
	struct suite *suite = load_matrix();
	struct plan *plan = NULL;
	char **argv = NULL, *shell = NULL;

	cr_assert_eq(plan_build(&plan, suite, NULL, "/opt/build"), BG_OK);
	cr_assert_eq(plan_case_command(&plan->cases[3], plan, 7, &argv, &shell),
		     BG_OK);
	cr_assert_null(shell);
	cr_assert_str_eq(argv[0], "/opt/build/b");
	cr_assert_str_eq(argv[2], "gpu-int8", "vars may use built-ins");
	cr_assert_str_eq(argv[4], "7");
	cr_assert_str_eq(argv[5], "m:infer:quantized");
	cr_assert_null(argv[6]);
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);

	cr_assert_eq(plan_case_command(&plan->cases[6], plan, 0, &argv, &shell),
		     BG_OK);
	cr_assert_null(argv);
	cr_assert_str_eq(shell, "echo cpu-fp32 $HOME", "$$ is a literal $");
	free(shell);
	plan_free(plan);
	suite_free(suite);
}

/* The baseline tree's suite: `infer` runs its own script from its own
 * directory, and it has no `load` benchmark yet. */
static const char baseline_matrix[] =
	"{\"benchgate\": 1, \"suite\": \"m\", \"devices\": [\"cpu\", \"gpu\"],"
	" \"variants\": {\"original\": {\"vars\": {\"model\": \"${device}-fp32\"}},"
	" \"quantized\": {\"vars\": {\"model\": \"q\"}},"
	" \"pruned\": {\"vars\": {\"model\": \"p\"}}},"
	" \"benchmarks\": ["
	"  {\"name\": \"infer\", \"command\": [\"python3\", \"${suite_dir}/b.py\","
	"   \"${build_dir}\", \"${model}\"],"
	"   \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}";

Test(plan, baseline_twins_run_from_their_own_tree_before_each_case)
{
	struct suite *suite = load_matrix(), *old = NULL;
	struct plan *plan = NULL;
	char **argv = NULL, *shell = NULL;

	cr_assert_eq(suite_parse(&old, "/usr/share/m.json", baseline_matrix,
				 strlen(baseline_matrix)),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(plan_build(&plan, suite, NULL, "/opt/new"), BG_OK);
	plan_add_baseline(plan, old, NULL, "/base/build");
	/* 6 infer cases with twins, 6 load cases without */
	cr_assert_eq(plan->nr, 18);
	cr_assert_str_eq(plan->cases[0].id, "infer/original/cpu@baseline");
	cr_assert(plan->cases[0].baseline);
	cr_assert_eq(plan->cases[0].suite, old);
	cr_assert_str_eq(plan->cases[1].id, "infer/original/cpu");
	cr_assert_not(plan->cases[1].baseline);
	cr_assert_eq(plan->cases[1].suite, suite);
	cr_assert_str_eq(plan->cases[12].id, "load/original/cpu");
	cr_assert_str_eq(plan->cases[17].id, "load/pruned/gpu");
	cr_assert_eq(plan_case_command(&plan->cases[0], plan, 0, &argv,
				       &shell),
		     BG_OK);
	cr_assert_str_eq(argv[1], "/usr/share/b.py");
	cr_assert_str_eq(argv[2], "/base/build");
	cr_assert_str_eq(argv[3], "cpu-fp32");
	for (size_t j = 0; argv[j]; j++)
		free(argv[j]);
	free(argv);
	cr_assert_eq(plan_case_command(&plan->cases[1], plan, 0, &argv,
				       &shell),
		     BG_OK);
	cr_assert_str_eq(argv[0], "/opt/new/b");
	for (size_t j = 0; argv[j]; j++)
		free(argv[j]);
	free(argv);
	plan_free(plan);
	suite_free(suite);
	suite_free(old);
}

/* Issue 13: dynamic int8 quantization exists only on CPU, so
 * quantized/gpu is a case that cannot exist: it is not planned at all
 * (not skipped, not failed), sharding deals only the cases that exist, and
 * validate's listing says how many pairs were left out. */
Test(plan, cases_that_cannot_exist_are_not_planned)
{
	static const char text[] =
		"{\"benchgate\": 1, \"suite\": \"m\", \"devices\": [\"cpu\", "
		"\"gpu\", \"ipu\"], \"exclude\": [\"*/ipu\"], \"variants\": "
		"{\"fp32\": {}, \"quantized\": {\"devices\": [\"cpu\"]}}, "
		"\"benchmarks\": [{\"name\": \"infer\", \"command\": [\"b\"], "
		"\"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}";
	struct plan_filter shard = { .shard_index = 2, .shard_count = 2 };
	struct strbuf out = STRBUF_INIT;
	struct suite *suite = NULL;
	struct plan *plan = NULL;

	cr_assert_eq(suite_parse(&suite, "/tmp/m.json", text, strlen(text)),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(plan_build(&plan, suite, NULL, "/b"), BG_OK);
	cr_assert_eq(plan->nr, 3);
	cr_assert_str_eq(plan->cases[0].id, "infer/fp32/cpu");
	cr_assert_str_eq(plan->cases[1].id, "infer/fp32/gpu");
	cr_assert_str_eq(plan->cases[2].id, "infer/quantized/cpu");
	cr_assert_eq(plan_describe(plan, &out), BG_OK);
	cr_assert(strstr(out.buf, ": valid, 3 cases (1 benchmark x 2 variants "
				  "x 3 devices, less 3 variant/device pairs "
				  "that cannot exist)\n"),
		  "%s", out.buf);
	cr_assert_null(strstr(out.buf, "ipu"), "%s", out.buf);
	plan_free(plan);
	strbuf_release(&out);

	cr_assert_eq(plan_build(&plan, suite, &shard, "/b"), BG_OK);
	cr_assert_eq(plan->nr, 1);
	cr_assert_str_eq(plan->cases[0].id, "infer/fp32/gpu");
	plan_free(plan);
	suite_free(suite);
}

/* `"PYTHONPATH": "${suite_dir}/.."` reached the child literally: env
 * values are expanded as the command is. */
Test(plan, env_values_expand_as_the_command_does)
{
	static const char text[] =
		"{\"benchgate\": 1, \"suite\": \"m\", \"defaults\": {\"env\": "
		"{\"PYTHONPATH\": \"${suite_dir}/..\", \"COST\": \"$$5\"}}, "
		"\"variants\": {\"fp32\": {\"vars\": {\"model\": "
		"\"${device}-f\"}}}, \"benchmarks\": [{\"name\": \"infer\", "
		"\"env\": {\"MODEL\": \"${model}@${run}\"}, \"command\": "
		"[\"b\"], \"metrics\": [{\"name\": \"w\", \"from\": "
		"\"wall\"}]}]}";
	struct suite *suite = NULL;
	struct plan *plan = NULL;
	char **env = NULL;

	cr_assert_eq(suite_parse(&suite, "/tmp/m.json", text, strlen(text)),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(plan_build(&plan, suite, NULL, "/b"), BG_OK);
	cr_assert_eq(plan_case_env(&plan->cases[0], plan, 3, &env), BG_OK);
	cr_assert_str_eq(env[0], "PYTHONPATH=/tmp/..");
	cr_assert_str_eq(env[1], "COST=$5");
	cr_assert_str_eq(env[2], "MODEL=cpu-f@3");
	cr_assert_null(env[3]);
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
	plan_free(plan);
	suite_free(suite);
}

/* validate shows what the suite says of each metric beyond its source. */
Test(plan, the_listing_shows_roles_gates_and_metric_devices)
{
	static const char text[] =
		"{\"benchgate\": 1, \"suite\": \"m\", \"devices\": [\"cpu\", "
		"\"gpu\"], \"benchmarks\": [{\"name\": \"infer\", \"command\": "
		"[\"b\"], \"metrics\": [{\"name\": \"t\", \"from\": \"metrics\", "
		"\"role\": \"speed\"}, {\"name\": \"util\", \"from\": \"nvml\", "
		"\"field\": \"utilization_mean\", \"devices\": [\"gpu\"]}]}]}";
	struct strbuf out = STRBUF_INIT;
	struct suite *suite = NULL;
	struct plan *plan = NULL;

	cr_assert_eq(suite_parse(&suite, "/tmp/m.json", text, strlen(text)),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(plan_build(&plan, suite, NULL, "/b"), BG_OK);
	cr_assert_eq(plan_describe(plan, &out), BG_OK);
	cr_assert(strstr(out.buf, "metrics: t (metrics, speed) util (nvml, %, "
				  "not gated, on gpu)\n"),
		  "%s", out.buf);
	strbuf_release(&out);
	plan_free(plan);
	suite_free(suite);
}
