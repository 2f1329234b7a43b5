/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: every run finds $BENCHGATE_RUN_DIR there and empty and
 * $BENCHGATE_METRICS_FILE not there, whatever the run before it did with
 * them (harness/run/run_scratch.h), through the built binary.
 */
#include "harness/model/result.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>

TestSuite(run_scratch, .init = test_dir_setup, .fini = test_dir_teardown);

/* Fails its run unless the scratch is as a run must find it, then does
 * to it what its run number says: each leaves something behind in its
 * own way, or nothing. */
static const char scratch_sh[] =
	"#!/bin/sh\n"
	"dir=$BENCHGATE_RUN_DIR metrics=$BENCHGATE_METRICS_FILE\n"
	"[ -d \"$dir\" ] && [ -z \"$(ls -A \"$dir\")\" ] && "
	"[ ! -e \"$metrics\" ] ||\n"
	"  { echo \"$1: scratch not fresh at run $BENCHGATE_RUN\" >&2; "
	"ls -la \"$dir\" >&2; exit 3; }\n"
	"case $BENCHGATE_RUN in\n"
	"0) touch \"$dir/file\" ;;\n"
	"1) ;;\n"
	"2) mkdir \"$dir/sub\" && touch \"$dir/sub/deep\" ;;\n"
	"3) echo 'value 1' > \"$metrics\" ;;\n"
	"4) rm -rf \"$dir\" && mkdir \"$dir\" && touch \"$dir/again\" ;;\n"
	"5) touch \"$dir/gone\" && rm \"$dir/gone\" ;;\n"
	"6) echo x > side && mv side \"$dir/moved\" ;;\n"
	"7) ln -s /nonexistent \"$dir/link\" ;;\n"
	"esac\n";

Test(run_scratch, every_run_finds_its_scratch_fresh)
{
	char *suite;
	struct result *result;

	free(test_write_file(test_dir, "scratch.sh", scratch_sh));
	suite = test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"scratch\",\n"
		"  \"defaults\": { \"warmup\": 1, \"runs\": 9 },\n"
		"  \"benchmarks\": [\n"
		"    { \"name\": \"a\", \"command\": [\"sh\", "
		"\"${suite_dir}/scratch.sh\", \"a\"],\n"
		"      \"metrics\": [ { \"name\": \"wall\", \"from\": "
		"\"wall\" } ] },\n"
		"    { \"name\": \"b\", \"command\": [\"sh\", "
		"\"${suite_dir}/scratch.sh\", \"b\"],\n"
		"      \"metrics\": [ { \"name\": \"wall\", \"from\": "
		"\"wall\" } ] } ] }\n");
	result = test_run_result(test_dir, suite, NULL, 0);
	cr_assert_eq(result->cases_nr, 2);
	for (size_t i = 0; i < result->cases_nr; i++) {
		cr_expect_eq(result->cases[i].status, CASE_OK, "%s: %s",
			     result->cases[i].benchmark,
			     result->cases[i].reason ? result->cases[i].reason
						     : "");
		cr_expect_eq(result->cases[i].runs, 9);
	}
	result_free(result);
	free(suite);
}
