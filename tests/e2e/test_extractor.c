/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the `command` metric source (harness/run/extractor.h), an
 * extractor run after each measured run that reads what the run left in
 * $BENCHGATE_RUN_DIR and its log, through the built binary.
 */
#include "harness/model/result.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(extractor, .init = test_dir_setup, .fini = test_dir_teardown);

/* An extractor that counts its calls in calls.txt, reads the cycles the
 * benchmark wrote into its run directory and the compile time from the
 * run's log; it fails with a message on stderr when FAIL is set. */
static const char extract_sh[] =
	"#!/bin/sh\n"
	"echo x >> calls.txt\n"
	"if [ -n \"$FAIL\" ]; then echo 'reading profile.pop' >&2;\n"
	"  echo 'pva: cannot open profile.pop' >&2; exit 4; fi\n"
	"echo \"cycles $(cat \"$BENCHGATE_RUN_DIR/cycles\")\"\n"
	"echo \"compile_s $(sed -n 's/^compile time: //p' "
	"\"$BENCHGATE_RUN_LOG\") s\"\n"
	"echo \"case $BENCHGATE_BENCHMARK/$BENCHGATE_VARIANT/"
	"$BENCHGATE_DEVICE\" >&2\n";

static char *write_suite(const char *env)
{
	struct strbuf text = STRBUF_INIT;
	char *path;

	strbuf_addf(&text,
		    "{ \"benchgate\": 1, \"suite\": \"ext\",\n"
		    "  \"defaults\": { \"warmup\": 1, \"runs\": 3, \"env\": "
		    "{ %s } },\n"
		    "  \"benchmarks\": [ { \"name\": \"compile\",\n"
		    "    \"shell\": \"echo $((1000 + BENCHGATE_RUN)) > "
		    "\\\"$BENCHGATE_RUN_DIR/cycles\\\"; echo 'compile time: "
		    "2.5'\",\n"
		    "    \"metrics\": [\n"
		    "      { \"name\": \"cycles\", \"from\": \"command\",\n"
		    "        \"command\": [\"sh\", \"${suite_dir}/extract.sh\"] "
		    "},\n"
		    "      { \"name\": \"compile_time\", \"from\": \"command\","
		    " \"key\": \"compile_s\",\n"
		    "        \"command\": [\"sh\", \"${suite_dir}/extract.sh\"] "
		    "} ] } ] }\n",
		    env);
	free(test_write_file(test_dir, "extract.sh", extract_sh));
	path = test_write_file(test_dir, "suite.json", text.buf);
	strbuf_release(&text);
	return path;
}

Test(extractor, reads_the_run_directory_and_log_once_per_measured_run)
{
	char *suite = write_suite("");
	struct result *result = test_run_result(test_dir, suite, NULL, 0);
	const struct metric_samples *cycles, *compile;
	struct strbuf calls_path = STRBUF_INIT;
	char *calls;

	cycles = result_case_find_metric(&result->cases[0], "cycles");
	compile = result_case_find_metric(&result->cases[0], "compile_time");
	cr_assert(cycles && compile);
	cr_assert_eq(cycles->nr, 3);
	/* each run's own directory: run 0, 1, 2 wrote 1000, 1001, 1002 */
	for (size_t i = 0; i < 3; i++)
		cr_expect_eq(cycles->samples[i], 1000 + (double)i);
	cr_expect_eq(compile->samples[2], 2.5);
	cr_expect_str_eq(compile->unit, "s");
	/* two metrics, one command: one call per measured run, none for
	 * the warmup */
	strbuf_addf(&calls_path, "%s/calls.txt", test_dir);
	calls = test_read_file(calls_path.buf);
	cr_assert(calls);
	cr_expect_str_eq(calls, "x\nx\nx\n");
	free(calls);
	strbuf_release(&calls_path);
	result_free(result);
	free(suite);
}

Test(extractor, a_failing_extractor_fails_its_case_with_its_stderr)
{
	char *suite = write_suite("\"FAIL\": \"1\"");
	struct result *result = test_run_result(test_dir, suite, NULL, 3);

	cr_assert_eq(result->cases[0].status, CASE_FAILED);
	cr_expect(strstr(result->cases[0].reason, "extractor 'sh' exited "
						  "with status 4"),
		  "%s", result->cases[0].reason);
	cr_expect(strstr(result->cases[0].reason,
			 "pva: cannot open profile.pop"),
		  "%s", result->cases[0].reason);
	result_free(result);
	free(suite);
}

Test(extractor, a_suite_is_held_to_the_command_key)
{
	static const struct {
		const char *metric, *expected;
	} cases[] = {
		{ "{ \"name\": \"c\", \"from\": \"command\" }",
		  "metrics[0]: missing required key 'command'" },
		{ "{ \"name\": \"c\", \"from\": \"command\", \"command\": [] }",
		  "expected a non-empty array of strings" },
		{ "{ \"name\": \"c\", \"from\": \"metrics\", \"command\": "
		  "[\"x\"] }",
		  "command" },
		{ "{ \"name\": \"c\", \"from\": \"command\", \"command\": "
		  "[\"${nosuch}\"] }",
		  "nosuch" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct strbuf text = STRBUF_INIT;
		struct test_output out;
		char *path;

		strbuf_addf(&text,
			    "{ \"benchgate\": 1, \"suite\": \"s\",\n"
			    "  \"benchmarks\": [ { \"name\": \"b\", "
			    "\"command\": [\"true\"],\n"
			    "    \"metrics\": [ %s ] } ] }\n",
			    cases[i].metric);
		path = test_write_file(test_dir, "bad.json", text.buf);
		test_benchgate(&out, test_dir, NULL,
			       (const char *[]){ "validate", path, NULL });
		cr_expect_eq(out.exit_code, 2, "%s", cases[i].metric);
		cr_expect(strstr(out.err.buf, "bad.json:3:") &&
				  strstr(out.err.buf, cases[i].expected),
			  "%s: %s", cases[i].metric, out.err.buf);
		test_output_release(&out);
		strbuf_release(&text);
		free(path);
	}
}
