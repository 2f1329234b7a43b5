/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/error.h"
#include "harness/suite/suite.h"
#include "harness/probe/sampler.h"
#include "harness/util/strbuf.h"

#include <criterion/criterion.h>
#include <string.h>

TestSuite(suite);

/* A valid suite the malformed ones below are variations of. */
#define GOOD_BENCHMARK                                                              \
	"{ \"name\": \"infer\",\n"                                                  \
	"  \"command\": [\"${build_dir}/bench\", \"${model}\"],\n"                  \
	"  \"metrics\": [\n"                                                        \
	"    { \"name\": \"latency\", \"from\": \"metrics\", \"unit\": \"ms\" },\n" \
	"    { \"name\": \"rss\", \"from\": \"rusage\", \"field\": \"maxrss\" }\n"  \
	"  ] }"

#define GOOD_VARIANTS                                                             \
	"\"variants\": { \"original\": { \"vars\": { \"model\": \"a.bin\" } },\n" \
	"               \"quantized\": { \"vars\": { \"model\": \"b.bin\" } } }"

static const char good_suite[] =
	"{\n"
	"\"benchgate\": 1,\n"
	"\"suite\": \"demo\",\n"
	"\"defaults\": { \"warmup\": 2, \"runs\": 10, \"timeout\": \"60s\",\n"
	"              \"threshold\": \"3%\", \"confidence\": 0.99,\n"
	"              \"env\": { \"OMP_NUM_THREADS\": \"1\" } },\n"
	"\"devices\": [\"cpu\", \"gpu\"],\n" GOOD_VARIANTS ",\n"
	"\"benchmarks\": [" GOOD_BENCHMARK "]\n"
	"}\n";

/* Parses text and asserts it fails as an input error whose message contains
 * every one of the expected fragments (position and explanation). */
static void assert_rejected(const char *text, const char *const *expected)
{
	struct suite *suite = NULL;
	int error = suite_parse(&suite, "bad.json", text, strlen(text));

	cr_assert_eq(error, BG_EINPUT, "expected an input error for:\n%s",
		     text);
	cr_assert_null(suite);
	for (; *expected; expected++)
		cr_assert(strstr(bg_error_last(), *expected),
			  "message '%s' lacks '%s'", bg_error_last(),
			  *expected);
}

#define REJECTS(text, ...) \
	assert_rejected((text), (const char *const[]){ __VA_ARGS__, NULL })

Test(suite, good_suite_loads_with_merged_defaults)
{
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "/tmp/good.json", good_suite,
				 strlen(good_suite)),
		     BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(suite->name, "demo");
	cr_assert_eq(suite->devices_nr, 2);
	cr_assert_eq(suite->variants_nr, 2);
	cr_assert_str_eq(suite->variants[1].name, "quantized");
	cr_assert_eq(suite->benchmarks_nr, 1);
	cr_assert_eq(suite->benchmarks[0].settings.warmup, 2);
	cr_assert_float_eq(suite->benchmarks[0].settings.threshold, 0.03,
			   1e-12);
	cr_assert_float_eq(suite->benchmarks[0].settings.timeout_s, 60, 1e-12);
	cr_assert_eq(suite->benchmarks[0].settings.env_nr, 1);
	cr_assert_str_eq(suite->benchmarks[0].metrics[0].key, "latency",
			 "the metrics key defaults to the metric name");
	cr_assert_str_eq(suite->benchmarks[0].metrics[1].unit, "B",
			 "maxrss implies bytes");
	cr_assert_eq(strlen(suite->sha256), 64);
	suite_free(suite);
}

Test(suite, missing_variants_and_devices_default_to_one_each)
{
	static const char text[] =
		"{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"wall\"}]}]}";
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "s.json", text, strlen(text)), BG_OK,
		     "%s", bg_error_last());
	cr_assert_str_eq(suite->variants[0].name, "default");
	cr_assert_str_eq(suite->devices[0], "cpu");
	cr_assert_str_eq(suite->benchmarks[0].metrics[0].unit, "s");
	suite_free(suite);
}

Test(suite, trailing_comma_is_a_syntax_error_with_line_and_column)
{
	REJECTS("{\n  \"benchgate\": 1,\n  \"devices\": [\"cpu\",]\n}",
		"bad.json:3:20:", "a trailing ',' before ']'");
}

/* The same suite, its metric's source given by %s. */
#define COMMENTED_SUITE(source) \
	"// benchgate suite\n" \
	"{ \"$schema\": \"../schema/suite.schema.json\",\n" \
	"  /* one benchmark */ \"benchgate\": 1, \"suite\": \"s\",\n" \
	"  \"benchmarks\": [{\"name\": \"t\", \"command\": [\"true\"], " \
	"// argv\n" \
	"    \"metrics\": [{\"name\": \"w\", \"from\": \"" source "\"}]}]}"

Test(suite, schema_key_and_comments_are_read_as_editors_write_them)
{
	const char *text = COMMENTED_SUITE("wall");
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "s.json", text, strlen(text)), BG_OK,
		     "%s", bg_error_last());
	cr_assert_str_eq(suite->benchmarks[0].metrics[0].name, "w");
	suite_free(suite);
	/* a mistake after the comments is named where it is in the file:
	 * line 5, the value of "from" at column 39 */
	REJECTS(COMMENTED_SUITE("wal"),
		"bad.json:5:39: benchmarks[0].metrics[0].from: ");
}

Test(suite, schema_key_must_be_a_string)
{
	REJECTS("{\"$schema\": 2, \"benchgate\": 1, \"suite\": \"s\"}",
		"bad.json:1:13:",
		"$schema: expected a string, found a number");
}

Test(suite, unclosed_object_is_reported_at_end_of_file)
{
	REJECTS("{\n\"benchgate\": 1,\n\"suite\": \"x\"\n",
		"bad.json:4:1:", "unexpected end of file");
}

Test(suite, garbage_token_names_the_character)
{
	REJECTS("{\"benchgate\": 1, \"suite\": nope}",
		"bad.json:1:27:", "unexpected 'n'");
}

Test(suite, top_level_array_is_not_a_suite)
{
	REJECTS("[1, 2]", "bad.json:1:1:", "expected a suite object");
}

Test(suite, wrong_format_version_is_rejected)
{
	REJECTS("{\"benchgate\": 2, \"suite\": \"x\"}",
		"bad.json:1:15:", "benchgate: expected 1");
}

Test(suite, unknown_key_in_metric_names_its_path)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"wall\"}, {\"name\": \"x\",\n \"frm\": \"wall\"}]}]}",
		"bad.json:2:2:", "benchmarks[0].metrics[1].frm",
		"unknown key 'frm'", "expected one of: name, from");
}

Test(suite, missing_required_key_is_named)
{
	REJECTS("{\"benchgate\": 1, \"benchmarks\": []}",
		"missing required key 'suite'");
}

Test(suite, wrong_type_names_what_was_found)
{
	REJECTS("{\"benchgate\": 1, \"suite\": 42}",
		"bad.json:1:27:", "suite: expected a string, found a number");
}

Test(suite, duplicate_key_points_at_the_second_occurrence)
{
	REJECTS("{\"benchgate\": 1,\n\"suite\": \"a\",\n\"suite\": \"b\"}",
		"bad.json:3:1:", "duplicate key 'suite'");
}

Test(suite, duplicate_benchmark_names_are_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", " GOOD_VARIANTS
		", \"benchmarks\": [" GOOD_BENCHMARK ", " GOOD_BENCHMARK "]}",
		"benchmarks[1].name", "duplicate benchmark name 'infer'");
}

Test(suite, duplicate_metric_names_are_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"wall\"}, {\"name\": \"w\", \"from\": \"wall\"}]}]}",
		"benchmarks[0].metrics[1].name", "duplicate metric name 'w'");
}

Test(suite, unknown_variable_names_the_variant_and_position)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", " GOOD_VARIANTS
		", \"benchmarks\": [{\"name\": \"t\",\n\"command\": [\"run\", "
		"\"${modle}\"], \"metrics\": [{\"name\": \"w\", \"from\": "
		"\"wall\"}]}]}",
		"bad.json:3:20:", "benchmarks[0].command[1]",
		"unknown variable '${modle}' for variant 'original'");
}

Test(suite, variable_missing_from_one_variant_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"variants\": {\"a\": "
		"{\"vars\": {\"m\": \"1\"}}, \"b\": {}}, \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"${m}\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"wall\"}]}]}",
		"unknown variable '${m}' for variant 'b'");
}

Test(suite, unterminated_variable_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"${oops\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"wall\"}]}]}",
		"benchmarks[0].command[0]", "unterminated '${'");
}

Test(suite, bad_duration_is_explained)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"defaults\": {\"timeout\": "
		"\"10 parsecs\"}}",
		"defaults.timeout", "expected a positive duration");
}

Test(suite, bad_percentage_is_explained)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"defaults\": "
		"{\"threshold\": 3}}",
		"defaults.threshold", "expected a percentage such as \"3%\"");
}

Test(suite, empty_variants_matrix_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"variants\": {}}",
		"variants: expected a non-empty object of variants");
}

Test(suite, empty_devices_matrix_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"devices\": []}",
		"devices: expected a non-empty array");
}

Test(suite, empty_benchmarks_matrix_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": []}",
		"benchmarks: expected a non-empty array of benchmarks");
}

Test(suite, unknown_metric_source_lists_the_valid_ones)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"clock\"}]}]}",
		"benchmarks[0].metrics[0].from", "unknown source 'clock'",
		"wall, rusage");
}

Test(suite, regex_needs_exactly_one_group)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"stdout\", \"regex\": \"t=[0-9]+\"}]}]}",
		"metrics[0].regex", "exactly one capture group, found 0");
}

/* A suite with one metric whose regex is the argument. */
#define REGEX_SUITE(regex)                                                  \
	"{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": " \
	"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "  \
	"\"from\": \"stdout\", \"regex\": \"" regex "\"}]}]}"

/*
 * Found by fuzz_suite: glibc's regcomp() copies what a '+' or an interval
 * repeats, so stacked or nested repetitions multiply. Measured here with
 * glibc 2.36: "v=([0-9]+" and 16 more '+' took 118 MiB to compile, 20 took
 * 2 GiB and 2.6 s, and each '+' doubles it; so do 18 nested "(...)+" (2.5
 * GiB). Loading such a suite must refuse it, not exhaust the machine.
 */
Test(suite, a_regex_whose_repetitions_multiply_is_rejected)
{
	REJECTS(REGEX_SUITE("v=([0-9]++++++++++++++++++++++++++++++)"),
		"metrics[0].regex", "repetitions", "more than 4096 copies");
	REJECTS(REGEX_SUITE("((((((((((((((((((a)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)"
			    "+)+)+)"),
		"metrics[0].regex", "more than 4096 copies");
	REJECTS(REGEX_SUITE("(a{1,100}{1,100})"), "metrics[0].regex",
		"more than 4096 copies");
}

Test(suite, a_regex_of_a_few_repetitions_loads)
{
	/* '+' and '{' inside a bracket expression or escaped are literal */
	static const char text[] = REGEX_SUITE(
		"t=([0-9.eE+-]+) ms [[:digit:]+{]+ \\\\+{2} x{1,3}");
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "ok.json", text, strlen(text)), BG_OK,
		     "%s", bg_error_last());
	suite_free(suite);
}

Test(suite, key_that_does_not_apply_to_the_source_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"wall\", \"regex\": \"(x)\"}]}]}",
		"metrics[0].regex", "'regex' does not apply to source 'wall'");
}

Test(suite, command_and_shell_together_are_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"shell\": \"true\", \"command\": [\"true\"], \"metrics\": "
		"[{\"name\": \"w\", \"from\": \"wall\"}]}]}",
		"benchmarks[0].command", "not both");
}

Test(suite, names_with_unsafe_characters_are_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"variants\": {\"<script>\": "
		"{}}}",
		"bad.json:1:57: variants.<script>: expected a name of letters, "
		"digits, '-', '_', '.' and '+', found '<script>'");
	/* a device: no case id, file name or output line may carry a
	 * newline, and the message quotes it as \x0a */
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"devices\": [\"cpu\", "
		"\"a\\n::b\"]}",
		"bad.json:1:51: devices[1]: expected a name", "'a\\x0a::b'");
}

/* A unit is shown beside every number, on the terminal and in CI logs:
 * any printable text ("µs", "samples/s"), but no control characters. */
Test(suite, units_must_be_printable_text)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"w\", "
		"\"from\": \"wall\",\n\"unit\": \"s\\n::add-mask::x\"}]}]}",
		"bad.json:2:9: benchmarks[0].metrics[0].unit: expected printable "
		"text",
		"found 's\\x0a::add-mask::x'");
}

Test(suite, tolerance_without_exact_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [{\"name\": \"a\", "
		"\"from\": \"metrics\", \"tolerance\": 0.1}]}]}",
		"metrics[0].tolerance", "needs \"exact\": true");
}

Test(suite, min_runs_above_max_runs_is_rejected)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"defaults\": {\"runs\": "
		"\"auto\", \"min_runs\": 20, \"max_runs\": 10}}",
		"min_runs (20) is larger than max_runs (10)");
}

/* A benchmark with the metrics given, the first of them on line 2. */
#define PER_SUITE(metrics)                                                  \
	"{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": " \
	"\"t\", \"command\": [\"true\"], \"metrics\": [\n" metrics "]}]}"
#define SAMPLES_METRIC "{\"name\": \"samples\", \"from\": \"metrics\"}"

Test(suite, per_may_name_a_later_metric_and_keeps_the_source_unit)
{
	static const char text[] = PER_SUITE(
		"{\"name\": \"e\", \"from\": \"rapl\", \"field\": \"energy\", "
		"\"per\": \"samples\"},\n" SAMPLES_METRIC);
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "s.json", text, strlen(text)), BG_OK,
		     "%s", bg_error_last());
	cr_assert_str_eq(suite->benchmarks[0].metrics[0].per, "samples");
	cr_assert_str_eq(suite->benchmarks[0].metrics[0].unit, "J");
	cr_assert_null(suite->benchmarks[0].metrics[1].per);
	suite_free(suite);
}

Test(suite, per_naming_an_unknown_metric_lists_the_others)
{
	/* column 57: the value of "per" on line 2 */
	REJECTS(PER_SUITE("{\"name\": \"e\", \"from\": \"rapl\", \"field\": "
			  "\"energy\", \"per\": \"sample\"},\n" SAMPLES_METRIC),
		"bad.json:2:57:", "benchmarks[0].metrics[0].per",
		"unknown metric 'sample'", "benchmark 't'",
		"(one of: samples)");
}

Test(suite, per_naming_its_own_metric_is_rejected)
{
	REJECTS(PER_SUITE(SAMPLES_METRIC ",\n{\"name\": \"w\", \"from\": "
					 "\"wall\", \"per\": \"w\"}"),
		"bad.json:3:38:", "benchmarks[0].metrics[1].per",
		"metric 'w' cannot be per itself");
}

Test(suite, per_naming_a_per_metric_is_rejected)
{
	REJECTS(PER_SUITE(SAMPLES_METRIC
			  ",\n"
			  "{\"name\": \"a\", \"from\": \"wall\", \"per\": "
			  "\"b\"},\n"
			  "{\"name\": \"b\", \"from\": \"wall\", \"per\": "
			  "\"samples\"}"),
		"bad.json:3:38:", "benchmarks[0].metrics[1].per",
		"metric 'b' is itself per 'samples'",
		"not another per-sample metric");
}

Test(suite, per_must_be_a_string)
{
	REJECTS(PER_SUITE("{\"name\": \"w\", \"from\": \"wall\", "
			  "\"per\": 32},\n" SAMPLES_METRIC),
		"bad.json:2:38:", "benchmarks[0].metrics[0].per",
		"expected a string, found a number");
}

Test(suite, per_and_callgrind_do_not_mix)
{
	REJECTS(PER_SUITE("{\"name\": \"i\", \"from\": \"callgrind\", "
			  "\"per\": \"samples\"},\n" SAMPLES_METRIC),
		"benchmarks[0].metrics[0].per",
		"'per' does not apply to source 'callgrind'");
	REJECTS(PER_SUITE("{\"name\": \"w\", \"from\": \"wall\", "
			  "\"per\": \"i\"},\n"
			  "{\"name\": \"i\", \"from\": \"callgrind\"}"),
		"benchmarks[0].metrics[0].per",
		"metric 'i' comes from callgrind's run of its own");
}

Test(suite, load_reports_a_missing_file)
{
	struct suite *suite = NULL;

	cr_assert_eq(suite_load(&suite, "/nonexistent/suite.json"), BG_ERROR);
	cr_assert(strstr(bg_error_last(), "/nonexistent/suite.json"));
}

/* Issue 13: the suite model. A suite of two variants on three devices,
 * line by line so that positions can be counted: MODEL_SUITE(top, metrics)
 * puts `top` on line 2 and the metrics on line 5. */
#define MODEL_SUITE(top, metrics)                                            \
	"{\"benchgate\": 1, \"suite\": \"s\",\n" top                         \
	"\"devices\": [\"cpu\", \"gpu\", \"ipu\"],\n"                        \
	"\"variants\": {\"fp32\": {}, \"int8\": {\"devices\": [\"cpu\"]}},\n" \
	"\"benchmarks\": [{\"name\": \"t\", \"command\": [\"true\"], "      \
	"\"metrics\": [\n" metrics "]}]}"
#define WALL_METRIC "{\"name\": \"w\", \"from\": \"wall\"}"

static struct suite *parse_ok(const char *text)
{
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "s.json", text, strlen(text)), BG_OK,
		     "%s", bg_error_last());
	return suite;
}

Test(suite, a_variant_runs_on_its_devices_less_the_excluded_ones)
{
	struct suite *suite = parse_ok(
		MODEL_SUITE("\"exclude\": [\"fp32/ipu\"],\n", WALL_METRIC));
	const struct variant *fp32 = &suite->variants[0];
	const struct variant *int8 = &suite->variants[1];

	cr_assert(suite_case_exists(suite, fp32, "cpu"));
	cr_assert(suite_case_exists(suite, fp32, "gpu"));
	cr_assert(!suite_case_exists(suite, fp32, "ipu"), "excluded");
	cr_assert(suite_case_exists(suite, int8, "cpu"));
	cr_assert(!suite_case_exists(suite, int8, "gpu"), "not its device");
	suite_free(suite);

	/* a '*' stays within its side of the '/' */
	suite = parse_ok(MODEL_SUITE("\"exclude\": [\"*/gpu\"],\n",
				     WALL_METRIC));
	cr_assert(!suite_case_exists(suite, fp32 = &suite->variants[0], "gpu"));
	cr_assert(suite_case_exists(suite, fp32, "cpu"));
	suite_free(suite);
}

Test(suite, an_exclude_pattern_must_name_a_pair_that_exists)
{
	REJECTS(MODEL_SUITE("\"exclude\": [\"fp32/tpu\"],\n", WALL_METRIC),
		"bad.json:2:13: exclude[0]: 'fp32/tpu' matches no "
		"variant/device pair of the suite");
	REJECTS(MODEL_SUITE("\"exclude\": [\"fp32\"],\n", WALL_METRIC),
		"bad.json:2:13: exclude[0]: expected a \"variant/device\" "
		"pattern");
}

/* `tpu` or `gpu0` ran silently as CPU cases. */
Test(suite, an_unknown_device_is_a_suite_error)
{
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\",\n"
		"\"devices\": [\"cpu\", \"gpu0\"]}",
		"bad.json:2:20: devices[1]: unknown device 'gpu0'; expected "
		"cpu, gpu (or cuda), ipu, or a name of \"declared_devices\"");
	/* the variants' devices are the suite's */
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\",\n"
		"\"variants\": {\"a\": {\"devices\": [\"gpu\"]}}, "
		"\"benchmarks\": [{\"name\": \"t\", \"command\": [\"true\"], "
		"\"metrics\": [" WALL_METRIC "]}]}",
		"bad.json:2:32: variants.a.devices[0]: device 'gpu' is not one "
		"of the suite's devices (cpu)");
}

Test(suite, declared_devices_and_the_cuda_alias_are_known)
{
	static const char text[] =
		"{\"benchgate\": 1, \"suite\": \"s\", \"declared_devices\": "
		"[\"npu\"], \"devices\": [\"cuda\", \"npu\"], \"benchmarks\": "
		"[{\"name\": \"t\", \"command\": [\"true\"], \"metrics\": "
		"[" WALL_METRIC "]}]}";
	struct suite *suite = parse_ok(text);

	cr_assert_eq(suite->devices_nr, 2);
	suite_free(suite);
}

Test(suite, metric_devices_gate_and_role_are_read)
{
	struct suite *suite = parse_ok(MODEL_SUITE(
		"\"reference\": \"fp32\",\n",
		"{\"name\": \"peak\", \"from\": \"metrics\", \"devices\": "
		"[\"gpu\"], \"role\": \"size\"},\n"
		"{\"name\": \"w\", \"from\": \"wall\", \"gate\": false, "
		"\"role\": \"speed\"},\n"
		"{\"name\": \"util\", \"from\": \"nvml\", \"field\": "
		"\"utilization_mean\"},\n"
		"{\"name\": \"util_gated\", \"from\": \"system\", \"field\": "
		"\"load\", \"gate\": true},\n"
		"{\"name\": \"mem\", \"from\": \"nvml\", \"field\": "
		"\"memory_peak\"}"));
	const struct metric_spec *m = suite->benchmarks[0].metrics;

	cr_assert_str_eq(suite->reference, "fp32");
	cr_assert(metric_spec_on_device(&m[0], "gpu"));
	cr_assert(!metric_spec_on_device(&m[0], "cpu"));
	cr_assert(metric_spec_on_device(&m[1], "cpu"), "no list: everywhere");
	cr_assert_str_eq(m[0].role, "size");
	cr_assert(m[0].gate);
	cr_assert(!m[1].gate, "gate: false");
	cr_assert_str_eq(m[1].role, "speed");
	cr_assert(!m[2].gate, "utilisation has no worse direction");
	cr_assert(m[3].gate, "unless the suite says so");
	cr_assert(m[4].gate, "a GPU's memory peak has one");
	suite_free(suite);
}

Test(suite, metric_use_keys_are_checked)
{
	REJECTS(MODEL_SUITE("", "{\"name\": \"w\", \"from\": \"wall\", "
				"\"role\": \"latency\"}"),
		"bad.json:5:39: benchmarks[0].metrics[0].role: unknown value "
		"'latency'; expected one of: speed, size, accuracy");
	REJECTS(MODEL_SUITE("", "{\"name\": \"w\", \"from\": \"wall\", "
				"\"role\": \"speed\"},\n"
				"{\"name\": \"u\", \"from\": \"wall\", "
				"\"role\": \"speed\"}"),
		"bad.json:6:39: benchmarks[0].metrics[1].role: metric 'w' has "
		"role 'speed' already");
	REJECTS(MODEL_SUITE("", "{\"name\": \"w\", \"from\": \"wall\", "
				"\"devices\": [\"tpu\"]}"),
		"bad.json:5:43: benchmarks[0].metrics[0].devices[0]: device "
		"'tpu' is not one of the suite's devices (cpu, gpu, ipu)");
	REJECTS(MODEL_SUITE("", "{\"name\": \"w\", \"from\": \"wall\", "
				"\"gate\": \"no\"}"),
		"benchmarks[0].metrics[0].gate: expected true or false");
}

Test(suite, the_reference_names_a_variant)
{
	REJECTS(MODEL_SUITE("\"reference\": \"original\",\n", WALL_METRIC),
		"bad.json:2:14: reference: unknown variant 'original'; "
		"expected one of: fp32, int8");
}

/* `"PYTHONPATH": "${suite_dir}/.."` reached the child literally and
 * "${nosuch}" passed validate. */
Test(suite, env_values_are_checked_as_commands_are)
{
	struct suite *suite = parse_ok(
		"{\"benchgate\": 1, \"suite\": \"s\", \"defaults\": {\"env\": "
		"{\"PYTHONPATH\": \"${suite_dir}/..\"}}, \"variants\": {\"a\": "
		"{\"vars\": {\"m\": \"x\"}}}, \"benchmarks\": [{\"name\": "
		"\"t\", \"env\": {\"MODEL\": \"${m}-${device}\"}, \"command\": "
		"[\"true\"], \"metrics\": [" WALL_METRIC "]}]}");

	suite_free(suite);
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\",\n\"defaults\": "
		"{\"env\": {\"P\": \"${nosuch}\"}}, \"benchmarks\": [{\"name\": "
		"\"t\", \"command\": [\"true\"], \"metrics\": [" WALL_METRIC
		"]}]}",
		"bad.json:2:27: defaults.env.P: unknown variable '${nosuch}' "
		"for variant 'default'");
	REJECTS("{\"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [{\"name\": "
		"\"t\",\n\"env\": {\"P\": \"${nosuch}\"}, \"command\": [\"true\"], "
		"\"metrics\": [" WALL_METRIC "]}]}",
		"bad.json:2:14: benchmarks[0].env.P: unknown variable "
		"'${nosuch}'");
}

/* A suite with one benchmark whose only metric is `metric`. */
#define ONE_METRIC(metric)                                                 \
	"{ \"benchgate\": 1, \"suite\": \"s\", \"benchmarks\": [\n"        \
	"  { \"name\": \"b\", \"command\": [\"hyperfine\"],\n"             \
	"    \"metrics\": [ " metric " ] } ] }\n"

Test(suite, a_peers_document_is_a_metric_source)
{
	static const char text[] = ONE_METRIC(
		"{ \"name\": \"score\", \"from\": \"customBiggerIsBetter\","
		" \"path\": \"out.json\", \"key\": \"My bench\" }");
	struct suite *suite = NULL;
	const struct metric_spec *metric;
	enum bridge_format format;

	cr_assert_eq(suite_parse(&suite, "s.json", text, strlen(text)), BG_OK,
		     "%s", bg_error_last());
	metric = &suite->benchmarks[0].metrics[0];
	cr_assert(metric_source_bridge(metric->from, &format));
	cr_assert_eq(format, BRIDGE_GAB_BIGGER);
	cr_assert_eq(metric->better, BETTER_HIGHER,
		     "the format's direction, unless the suite says one");
	cr_assert_str_eq(metric->key, "My bench");
	suite_free(suite);
	REJECTS(ONE_METRIC("{ \"name\": \"t\", \"from\": \"hyperfine\" }"),
		"bad.json:3:18: benchmarks[0].metrics[0]: missing required "
		"key 'path'");
	REJECTS(ONE_METRIC("{ \"name\": \"t\", \"from\": \"gbench\", "
			   "\"path\": \"x\", \"regex\": \"(x)\" }"),
		"benchmarks[0].metrics[0].regex", "gbench");
}

/* Issue 21: probe owns the one table of sampled fields (sampler.h), and
 * the suite loader checks a metric's "field" against it: every field the
 * sampler lists loads, with the sampler's unit and gate default, and a
 * wrong one is refused with the sampler's list of its source's fields. */
Test(suite, sampled_fields_are_the_samplers)
{
	size_t nr;
	const struct sampler_field *fields = sampler_fields(&nr);
	struct strbuf text = STRBUF_INIT, names = STRBUF_INIT;

	cr_assert_gt(nr, 0);
	for (size_t i = 0; i < nr; i++) {
		const char *source = metric_source_name(fields[i].source);
		struct suite *suite;
		const struct metric_spec *metric;

		strbuf_reset(&text);
		strbuf_addf(&text,
			    MODEL_SUITE("", "{\"name\": \"m\", \"from\": "
					    "\"%s\", \"field\": \"%s\"}"),
			    source, fields[i].name);
		suite = parse_ok(text.buf);
		metric = &suite->benchmarks[0].metrics[0];
		cr_expect_str_eq(metric->unit ? metric->unit : "(none)",
				 fields[i].unit ? fields[i].unit : "(none)",
				 "%s %s", source, fields[i].name);
		cr_expect_eq(metric->gate, !fields[i].undirected, "%s %s",
			     source, fields[i].name);
		suite_free(suite);

		/* the list a wrong field gets: this source's fields */
		strbuf_reset(&names);
		strbuf_addstr(&names, "expected one of: ");
		for (size_t j = 0, listed = 0; j < nr; j++)
			if (fields[j].source == fields[i].source)
				strbuf_addf(&names, "%s%s",
					    listed++ ? ", " : "",
					    fields[j].name);
		strbuf_reset(&text);
		strbuf_addf(&text,
			    MODEL_SUITE("", "{\"name\": \"m\", \"from\": "
					    "\"%s\", \"field\": \"nope\"}"),
			    source);
		REJECTS(text.buf, "unknown field 'nope'", names.buf);
	}
	strbuf_release(&text);
	strbuf_release(&names);
}
