/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result reader on documents from elsewhere (`compare`, `merge`, the
 * git store): whatever a file holds, it is read whole and checked, or
 * rejected with its position; nothing undefined happens on the way.
 */
#include "harness/model/result.h"
#include "harness/util/error.h"

#include <criterion/criterion.h>
#include <string.h>

/* Every expected line:column below is counted by hand in the text beside
 * it: lines and columns from 1, columns in bytes. */

TestSuite(result);

/* Lines 1 and 2 of every document below; its first case starts line 3. */
#define HEAD                                                                 \
	"{\"benchgate_result\": 1, \"suite\": \"s\", \"git\": {\"commit\": " \
	"\"unknown\"},\n"                                                    \
	" \"machine\": {\"id\": \"box\"}, \"cases\": [\n"
#define TAIL "]}\n"

/* A case on line 3 whose metrics (and what follows them) are on line 4. */
#define CASE(...)                                                          \
	"{\"benchmark\": \"b\", \"variant\": \"v\", \"device\": \"cpu\", " \
	"\"status\": \"ok\",\n" __VA_ARGS__ "}"

static struct result *parsed;

static int parse(const char *text)
{
	result_free(parsed);
	parsed = NULL;
	return result_parse(&parsed, text, strlen(text), "r.json");
}

static void assert_rejected(const char *text, const char *message)
{
	cr_assert_eq(parse(text), BG_EINPUT, "accepted:\n%s", text);
	cr_assert_null(parsed);
	cr_assert_str_eq(bg_error_last(), message);
}

static void teardown_result(void)
{
	result_free(parsed);
	parsed = NULL;
}

Test(result, a_valid_document_is_read_whole, .fini = teardown_result)
{
	const struct metric_samples *m;

	cr_assert_eq(parse(HEAD CASE("\"runs\": 3, \"metrics\": {\"latency\": "
				     "{\"unit\": \"\xc2\xb5s\", \"better\": "
				     "\"higher\", \"runs\": 3, \"samples\": "
				     "[1, 2, 3]}}") TAIL),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(parsed->cases[0].runs, 3);
	m = &parsed->cases[0].metrics[0];
	/* a unit may be any printable text, "µs" included */
	cr_assert_str_eq(m->unit, "\xc2\xb5s");
	cr_assert_eq(m->better, BETTER_HIGHER);
	cr_assert_eq(m->runs, 3);
	cr_assert_eq(m->nr, 3);
}

/* Counts were cast straight from a double to an unsigned integer: a
 * negative, huge or infinite one is undefined behaviour (clang's
 * -fsanitize=float-cast-overflow reports it). */
Test(result, runs_that_are_no_count_are_rejected, .fini = teardown_result)
{
	/* line 4 `"runs": -1, ...`: the value is column 9 */
	assert_rejected(HEAD CASE("\"runs\": -1, \"metrics\": {}") TAIL,
			"r.json:4:9: cases[0].runs: expected a whole number "
			"from 0 to 2147483647");
	assert_rejected(HEAD CASE("\"runs\": 1e300, \"metrics\": {}") TAIL,
			"r.json:4:9: cases[0].runs: expected a whole number "
			"from 0 to 2147483647");
	assert_rejected(HEAD CASE("\"runs\": 2.5, \"metrics\": {}") TAIL,
			"r.json:4:9: cases[0].runs: expected a whole number "
			"from 0 to 2147483647");
	/* line 4 `"metrics": {"t": {"runs": -3, ...`: column 27; cJSON reads
	 * 1e999 as an infinity */
	assert_rejected(HEAD CASE("\"metrics\": {\"t\": {\"runs\": -3, "
				  "\"samples\": [1]}}") TAIL,
			"r.json:4:27: cases[0].metrics.t.runs: expected a "
			"whole number from 0 to 2147483647");
	assert_rejected(HEAD CASE("\"metrics\": {\"t\": {\"runs\": 1e999, "
				  "\"samples\": [1]}}") TAIL,
			"r.json:4:27: cases[0].metrics.t.runs: expected a "
			"whole number from 0 to 2147483647");
}

Test(result, machine_counts_out_of_range_are_rejected, .fini = teardown_result)
{
	/* line 2 `"machine": {"id": "box", "cores": -2}`: column 35 */
	assert_rejected("{\"benchgate_result\": 1, \"suite\": \"s\", "
			"\"git\": {\"commit\": \"unknown\"},\n"
			"\"machine\": {\"id\": \"box\", \"cores\": -2}, "
			"\"cases\": []}",
			"r.json:2:35: machine.cores: expected a whole number "
			"from 0 to 2147483647");
	/* `"memory_bytes": -1` starts its value at column 42 */
	assert_rejected("{\"benchgate_result\": 1, \"suite\": \"s\", "
			"\"git\": {\"commit\": \"unknown\"},\n"
			"\"machine\": {\"id\": \"box\", \"memory_bytes\": -1}, "
			"\"cases\": []}",
			"r.json:2:42: machine.memory_bytes: expected a whole "
			"number from 0 to 9007199254740992");
}

/* cJSON keeps both members of a repeated key: the reader merged their
 * samples into one metric and lost the first unit. */
Test(result, a_metric_repeated_in_a_case_is_rejected_at_the_repeat,
     .fini = teardown_result)
{
	/* line 5 `"latency": {...}` after the first on line 4: column 1 */
	assert_rejected(HEAD CASE("\"metrics\": {\"latency\": {\"unit\": "
				  "\"ms\", \"samples\": [1]},\n"
				  "\"latency\": {\"unit\": \"s\", "
				  "\"samples\": [2]}}") TAIL,
			"r.json:5:1: cases[0].metrics.latency: duplicate key "
			"'latency'");
}

Test(result, a_key_repeated_anywhere_is_rejected, .fini = teardown_result)
{
	/* line 4 `"runs": 1, "runs": 2`: the second key is column 12 */
	assert_rejected(HEAD CASE("\"runs\": 1, \"runs\": 2, \"metrics\": {}")
				TAIL,
			"r.json:4:12: cases[0].runs: duplicate key 'runs'");
}

/*
 * Names from elsewhere follow the suite loader's rules: a benchmark name
 * with a newline would start a line of benchgate's output with a workflow
 * command (`::add-mask::`, `::set-env`) that a GitHub runner executes, and
 * an ESC sequence would reach the terminal raw. Nor does the message itself
 * carry them raw: a control character reads as \xNN.
 */
Test(result, names_follow_the_suite_rules, .fini = teardown_result)
{
	/* line 3 `{"benchmark": "a\n::set-env...`: the value is column 15 */
	assert_rejected(HEAD "{\"benchmark\": \"a\\n::set-env name=x::y\", "
			     "\"variant\": \"v\", \"device\": \"cpu\", "
			     "\"status\": \"ok\", \"metrics\": {}}" TAIL,
			"r.json:3:15: cases[0].benchmark: expected a name of "
			"letters, digits, '-', '_', '.' and '+', found "
			"'a\\x0a::set-env name=x::y'");
	/* `"variant": "\u001b[31mred"` after `"benchmark": "b", `: column 31 */
	assert_rejected(HEAD "{\"benchmark\": \"b\", \"variant\": "
			     "\"\\u001b[31mred\", \"device\": \"cpu\", "
			     "\"status\": \"ok\", \"metrics\": {}}" TAIL,
			"r.json:3:31: cases[0].variant: expected a name of "
			"letters, digits, '-', '_', '.' and '+', found "
			"'\\x1b[31mred'");
	/* a device "::error::x": column 46 */
	assert_rejected(HEAD "{\"benchmark\": \"b\", \"variant\": \"v\", "
			     "\"device\": \"::error::x\", \"status\": \"ok\", "
			     "\"metrics\": {}}" TAIL,
			"r.json:3:46: cases[0].device: expected a name of "
			"letters, digits, '-', '_', '.' and '+', found "
			"'::error::x'");
	/* a metric named by a key: reported at the metric, line 4 column 28 */
	assert_rejected(
		HEAD CASE("\"metrics\": {\"l\\r\\u202eat\": "
			  "{\"samples\": [1]}}") TAIL,
		"r.json:4:28: cases[0].metrics.l\\x0d\\xe2\\x80\\xaeat: "
		"expected a name of letters, digits, '-', '_', '.' "
		"and '+', found 'l\\x0d\\xe2\\x80\\xaeat'");
}

Test(result, units_and_the_suite_name_are_printable_text,
     .fini = teardown_result)
{
	/* line 4 `"metrics": {"t": {"unit": "m\u001b]8;;", ...`: column 27 */
	assert_rejected(HEAD CASE("\"metrics\": {\"t\": {\"unit\": "
				  "\"m\\u001b]8;;\", \"samples\": [1]}}") TAIL,
			"r.json:4:27: cases[0].metrics.t.unit: expected "
			"printable text (no control characters or "
			"bidirectional overrides, not starting with '::'), "
			"found 'm\\x1b]8;;'");
	/* line 1 `..."suite": "s\n::add-mask::x"`: column 34 */
	assert_rejected("{\"benchgate_result\": 1, \"suite\": "
			"\"s\\n::add-mask::x\", \"git\": {\"commit\": "
			"\"unknown\"}, \"machine\": {\"id\": \"box\"}, "
			"\"cases\": []}",
			"r.json:1:34: suite: expected printable text (no "
			"control characters or bidirectional overrides, not "
			"starting with '::'), found 's\\x0a::add-mask::x'");
	/* The store keeps suites whose names the loader would refuse (it
	 * makes file names of them safely): a '/' is still fine here. */
	cr_assert_eq(parse("{\"benchgate_result\": 1, \"suite\": \"a/b\", "
			   "\"git\": {\"commit\": \"unknown\"}, \"machine\": "
			   "{\"id\": \"box\"}, \"cases\": []}"),
		     BG_OK, "%s", bg_error_last());
}

/* "better" other than lower or higher read silently as lower. */
Test(result, an_unknown_direction_is_rejected, .fini = teardown_result)
{
	/* line 4 `"metrics": {"t": {"better": "up", ...`: column 29 */
	assert_rejected(HEAD CASE("\"metrics\": {\"t\": {\"better\": \"up\", "
				  "\"samples\": [1]}}") TAIL,
			"r.json:4:29: cases[0].metrics.t.better: unknown "
			"value 'up'; expected one of: lower, higher");
}

/* Found by fuzz_result: a value with a byte that is no UTF-8 was kept in a
 * fixed field, written back with U+FFFD in its place (three bytes for one)
 * and then no longer fitted, so the result did not survive its own
 * document. Such fields are printable text, bounded, or refused. */
Test(result, fixed_fields_are_printable_and_bounded, .fini = teardown_result)
{
	/* line 1 `..."suite": "s", "suite_sha256": "ab\xff"`: column 55 */
	assert_rejected(
		"{\"benchgate_result\": 1, \"suite\": \"s\", "
		"\"suite_sha256\": \"ab\xff\", \"git\": {\"commit\": "
		"\"unknown\"}, \"machine\": {\"id\": \"box\"}, "
		"\"cases\": []}",
		"r.json:1:55: suite_sha256: expected printable text (no "
		"control characters or bidirectional overrides, not "
		"starting with '::'), found 'ab\\xff'");
	/* a SHA-256 longer than 64 characters was dropped without a word */
	assert_rejected("{\"benchgate_result\": 1, \"suite\": \"s\", "
			"\"suite_sha256\": \""
			"0123456789abcdef0123456789abcdef"
			"0123456789abcdef0123456789abcdef"
			"0\", \"git\": "
			"{\"commit\": \"unknown\"}, \"machine\": {\"id\": "
			"\"box\"}, \"cases\": []}",
			"r.json:1:55: suite_sha256: expected a SHA-256 of 64 "
			"hex digits");
	/* line 1 `"git": {"commit": "c\x80"`: column 30 */
	assert_rejected("{\"benchgate_result\": 1, \"suite\": \"s\",\n"
			"\"git\": {\"commit\": \"c\x80\"}, \"machine\": "
			"{\"id\": \"box\"}, \"cases\": []}",
			"r.json:2:19: git.commit: expected printable text (no "
			"control characters or bidirectional overrides, not "
			"starting with '::'), found 'c\\x80'");
}

/* Issue 13: the reference variant and each metric's gate and role travel
 * with the result, and a document without them reads as before (gated, no
 * role, reference "original"). */
Test(result, gate_role_and_reference_round_trip, .fini = teardown_result)
{
	struct strbuf text = STRBUF_INIT;
	const struct metric_samples *m;

	cr_assert_eq(parse("{\"benchgate_result\": 1, \"suite\": \"s\", "
			   "\"reference\": \"fp32\", \"git\": {\"commit\": "
			   "\"unknown\"},\n \"machine\": {\"id\": \"box\"}, "
			   "\"cases\": [\n" CASE(
				   "\"metrics\": {\"util\": {\"gate\": false, "
				   "\"samples\": [1]}, \"acc\": {\"role\": "
				   "\"accuracy\", \"samples\": [2]}, \"t\": "
				   "{\"samples\": [3]}}") TAIL),
		     BG_OK, "%s", bg_error_last());
	result_to_json(parsed, &text);
	cr_assert_eq(parse(text.buf), BG_OK, "%s", bg_error_last());
	strbuf_release(&text);
	cr_assert_str_eq(parsed->reference, "fp32");
	m = result_case_find_metric(&parsed->cases[0], "util");
	cr_assert(!m->gate);
	cr_assert_null(m->role);
	m = result_case_find_metric(&parsed->cases[0], "acc");
	cr_assert(m->gate);
	cr_assert_str_eq(m->role, "accuracy");
	m = result_case_find_metric(&parsed->cases[0], "t");
	cr_assert(m->gate);
	cr_assert_null(m->role);

	cr_assert_eq(parse(HEAD CASE("\"metrics\": {}") TAIL), BG_OK);
	cr_assert_null(parsed->reference);
}

/* A role is one the variant table knows. */
Test(result, an_unknown_role_is_rejected, .fini = teardown_result)
{
	/* line 4 `"metrics": {"t": {"role": "fast", ...`: column 27 */
	assert_rejected(HEAD CASE("\"metrics\": {\"t\": {\"role\": \"fast\", "
				  "\"samples\": [1]}}") TAIL,
			"r.json:4:27: cases[0].metrics.t.role: unknown "
			"value 'fast'; expected one of: speed, size, accuracy");
}
