/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: a benchmark (code a pull request controls) does not get the
 * CI job's credentials nor its workflow-command files from benchgate's
 * environment, unless the suite's "pass_env" names one; a bad name there
 * is refused with its place in the file.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(scrubbed_env, .init = test_dir_setup, .fini = test_dir_teardown);

/* What a CI job's environment holds, and one plain variable. */
static const char *const job_env[] = {
	"GITHUB_TOKEN=ghs_secret1",
	"GH_TOKEN=ghs_secret2",
	"ACTIONS_RUNTIME_TOKEN=secret3",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN=secret4",
	"GITHUB_ENV=/tmp/github-env-file",
	"GITHUB_OUTPUT=/tmp/github-output-file",
	"GITHUB_STATE=/tmp/github-state-file",
	"GITHUB_PATH=/tmp/github-path-file",
	"GITHUB_STEP_SUMMARY=/tmp/github-summary-file",
	"GITLAB_TOKEN=glpat-secret5",
	"CI_JOB_TOKEN=secret6",
	"CI_JOB_JWT_V2=secret7",
	"CI_REPOSITORY_URL=https://gitlab-ci-token:secret8@example.invalid/r",
	"HF_TOKEN=passed-on-purpose",
	"PLAIN_SETTING=kept",
	NULL,
};

Test(scrubbed_env, a_benchmark_gets_no_ci_credentials_but_those_passed)
{
	struct test_output out;
	char path[4096], *seen;

	free(test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"env\",\n"
		"  \"defaults\": { \"warmup\": 1, \"runs\": 1 },\n"
		"  \"pass_env\": [\"HF_TOKEN\"],\n"
		"  \"benchmarks\": [ { \"name\": \"b\", \"shell\": "
		"\"env > seen-$BENCHGATE_RUN.txt\",\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
	test_benchgate(&out, test_dir, job_env,
		       (const char *const[]){ "run", "suite.json", "--store",
					      "store", "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/seen-0.txt", test_dir);
	seen = test_read_file(path);
	cr_assert_not_null(seen);
	for (size_t i = 0; job_env[i]; i++) {
		const char *value = strchr(job_env[i], '=') + 1;
		bool passed = !strncmp(job_env[i], "HF_TOKEN=", 9) ||
			      !strncmp(job_env[i], "PLAIN_SETTING=", 14);

		cr_assert_eq(strstr(seen, value) != NULL, passed,
			     "%s %s the benchmark: %s", job_env[i],
			     passed ? "must reach" : "reached", seen);
	}
	free(seen);
}

Test(scrubbed_env, a_bad_name_in_pass_env_is_refused)
{
	struct test_output out;

	free(test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"env\",\n"
		"  \"pass_env\": [\"HF_TOKEN\", \"2BAD.NAME\"],\n"
		"  \"benchmarks\": [ { \"name\": \"b\", \"command\": "
		"[\"/bin/true\"],\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "run", "suite.json", "--store",
					      "store", "--quiet", NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "suite.json"), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "pass_env"), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "2BAD.NAME"), "%s", out.err.buf);
	test_output_release(&out);
}
