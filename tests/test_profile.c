/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Profiling runs: the Poplar options merged for the PopVision Graph
 * Analyser, the suite's "profile" setting, and the artifacts a result
 * carries. The runs themselves are in e2e/test_profile.c.
 *
 * The Poplar option names are those of the Poplar SDK's documentation of
 * POPLAR_ENGINE_OPTIONS ("autoReport.all", "autoReport.directory",
 * "debug.instrument").
 */
#include "harness/util/error.h"
#include "harness/run/profile.h"
#include "harness/model/result.h"
#include "harness/suite/suite.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(profile);

/*
 * The POPLAR_ENGINE_OPTIONS that profile_prepare() gives the profiling run
 * of an "ipu" case with its artifacts in <tmp>/<where>, when benchgate's
 * environment holds `user` (NULL: unset). Appends the value, if the run
 * gets one, to out and the report directory it should name to report_dir;
 * returns what profile_prepare() returned.
 */
static int poplar_options(struct strbuf *out, const char *user,
			  const char *where, struct strbuf *report_dir)
{
	static const char name[] = "POPLAR_ENGINE_OPTIONS=";
	static const struct benchmark benchmark; /* no env of its own */
	struct plan_case pcase = { .benchmark = &benchmark, .device = "ipu" };
	struct profiler *profiler = NULL;
	struct profile_run run;
	struct strbuf dir = STRBUF_INIT;
	char *tmp = test_tmpdir();
	int error;

	if (user)
		setenv("POPLAR_ENGINE_OPTIONS", user, 1);
	else
		unsetenv("POPLAR_ENGINE_OPTIONS");
	strbuf_addf(&dir, "%s/%s", tmp, where);
	strbuf_addf(report_dir, "%s/poplar", dir.buf);
	profiler_new(&profiler);
	error = profile_prepare(&run, profiler, &pcase, dir.buf);
	for (size_t i = 0; run.env[i]; i++)
		if (!strncmp(run.env[i], name, strlen(name)))
			strbuf_addstr(out, run.env[i] + strlen(name));
	if (error)
		cr_assert_eq(access(dir.buf, F_OK), -1,
			     "a run that cannot be profiled leaves no "
			     "directory");
	profile_run_release(&run);
	profiler_free(profiler);
	test_rmtree(tmp);
	free(tmp);
	strbuf_release(&dir);
	return error;
}

Test(profile, poplar_options_without_the_users)
{
	struct strbuf out = STRBUF_INIT, dir = STRBUF_INIT,
		      expected = STRBUF_INIT;

	cr_assert_eq(poplar_options(&out, NULL, "r/a b", &dir), BG_OK);
	strbuf_addf(&expected,
		    "{\"autoReport.all\":\"true\","
		    "\"autoReport.directory\":\"%s\"}",
		    dir.buf);
	cr_assert_str_eq(out.buf, expected.buf);
	strbuf_release(&out);
	strbuf_release(&dir);
	strbuf_release(&expected);
	cr_assert_eq(poplar_options(&out, " \n", "r", &dir), BG_OK,
		     "a blank value is no options");
	strbuf_addf(&expected,
		    "{\"autoReport.all\":\"true\","
		    "\"autoReport.directory\":\"%s\"}",
		    dir.buf);
	cr_assert_str_eq(out.buf, expected.buf);
	strbuf_release(&out);
	strbuf_release(&dir);
	strbuf_release(&expected);
}

Test(profile, poplar_options_merge_into_the_users_keeping_their_order)
{
	struct strbuf out = STRBUF_INIT, dir = STRBUF_INIT,
		      expected = STRBUF_INIT;

	cr_assert_eq(poplar_options(&out,
				    "{\"debug.instrument\": \"true\", "
				    "\"autoReport.all\": false, "
				    "\"target.workerStackSizeInBytes\": "
				    "\"0x200\", "
				    "\"autoReport.directory\": \"./old\", "
				    "\"autoReport.all\": \"false\"}",
				    "store/artifacts/x/c", &dir),
		     BG_OK, "%s", bg_error_last());
	/* the user's first autoReport.all is replaced where it stood, its
	 * duplicate dropped, so no old value can win */
	strbuf_addf(&expected,
		    "{\"debug.instrument\":\"true\","
		    "\"autoReport.all\":\"true\","
		    "\"target.workerStackSizeInBytes\":\"0x200\","
		    "\"autoReport.directory\":\"%s\"}",
		    dir.buf);
	cr_assert_str_eq(out.buf, expected.buf);
	strbuf_release(&out);
	strbuf_release(&dir);
	strbuf_release(&expected);
}

Test(profile, poplar_options_that_are_not_an_object_are_refused_clearly)
{
	struct strbuf out = STRBUF_INIT, dir = STRBUF_INIT;

	cr_assert_eq(poplar_options(&out, "{\"debug.instrument\": ", "r", &dir),
		     BG_ENOTFOUND);
	cr_assert(strstr(bg_error_last(),
			 "POPLAR_ENGINE_OPTIONS is not valid JSON"),
		  "%s", bg_error_last());
	cr_assert(strstr(bg_error_last(), "{\"debug.instrument\": "));
	cr_assert_eq(poplar_options(&out, "[\"autoReport.all\"]", "r", &dir),
		     BG_ENOTFOUND);
	cr_assert(strstr(bg_error_last(), "not an object"), "%s",
		  bg_error_last());
	cr_assert_eq(poplar_options(&out, "{} trailing", "r", &dir),
		     BG_ENOTFOUND);
	cr_assert_str_eq(out.buf, "", "no options on error");
	strbuf_release(&out);
	strbuf_release(&dir);
}

static struct suite *parse(const char *text)
{
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "/tmp/s.json", text, strlen(text)),
		     BG_OK, "%s", bg_error_last());
	return suite;
}

#define SUITE(defaults, benchmark)                                                \
	"{\"benchgate\": 1, \"suite\": \"s\", \"defaults\": {" defaults "},\n"    \
	" \"benchmarks\": [{\"name\": \"b\", \"command\": [\"true\"], " benchmark \
	" \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]},\n"               \
	" {\"name\": \"c\", \"command\": [\"true\"], "                            \
	"\"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}"

Test(profile, suite_profile_setting)
{
	struct suite *suite;

	suite = parse(SUITE("", ""));
	cr_assert_eq(suite->benchmarks[0].settings.profile, -1,
		     "not set: as the command line says");
	suite_free(suite);

	suite = parse(SUITE("\"profile\": true", "\"profile\": false,"));
	cr_assert_eq(suite->benchmarks[0].settings.profile, 0);
	cr_assert_eq(suite->benchmarks[1].settings.profile, 1,
		     "inherited from the defaults");
	suite_free(suite);
}

Test(profile, suite_profile_setting_must_be_a_boolean)
{
	static const char text[] = SUITE("", "\"profile\": \"perf\",");
	struct suite *suite = NULL;

	cr_assert_eq(suite_parse(&suite, "bad.json", text, strlen(text)),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "benchmarks[0].profile: expected "
					  "true or false"),
		  "%s", bg_error_last());
}

Test(profile, artifacts_and_the_note_round_trip_through_a_result)
{
	struct result *result = result_new(), *back = NULL;
	struct strbuf json = STRBUF_INIT;
	struct result_case *rcase;

	result->suite = strdup("s");
	rcase = result_add_case(result, "b", "default", "cpu");
	result_case_add_artifact(rcase, "profile",
				 "/store/c/m/artifacts/s-1/b__default__cpu",
				 "/store/c/m/");
	result_case_add_artifact(rcase, "flamegraph", "/elsewhere/f.svg",
				 "/store/c/m");
	/* a base that is only a prefix of a name is not its directory */
	result_case_add_artifact(rcase, "perf", "/store/c/mm/perf.data",
				 "/store/c/m");
	rcase->profile_note = strdup("no flame graph: perf is not installed");
	result_add_case(result, "c", "default", "cpu");

	result_to_json(result, &json);
	cr_assert_null(strstr(strstr(json.buf, "\"c\""), "artifacts"),
		       "a case without artifacts has no key for them");
	cr_assert_eq(result_parse(&back, json.buf, json.len, "r.json"), BG_OK,
		     "%s", bg_error_last());
	rcase = &back->cases[0];
	cr_assert_eq(rcase->artifacts_nr, 3);
	cr_assert_str_eq(rcase->artifacts[0].kind, "profile");
	cr_assert_str_eq(rcase->artifacts[0].path,
			 "artifacts/s-1/b__default__cpu");
	cr_assert_str_eq(rcase->artifacts[1].path, "/elsewhere/f.svg");
	cr_assert_str_eq(rcase->artifacts[2].path, "/store/c/mm/perf.data");
	cr_assert_str_eq(rcase->profile_note,
			 "no flame graph: perf is not installed");
	cr_assert_eq(back->cases[1].artifacts_nr, 0);
	cr_assert_null(back->cases[1].profile_note);

	strbuf_release(&json);
	result_free(result);
	result_free(back);
}

Test(profile, malformed_artifacts_are_reported)
{
	static const char text[] =
		"{\"benchgate_result\": 1, \"suite\": \"s\", "
		"\"git\": {\"commit\": \"unknown\"}, "
		"\"machine\": {\"id\": \"m\"}, "
		"\"cases\": [{\"benchmark\": \"b\", \"variant\": \"v\", "
		"\"device\": \"cpu\", \"status\": \"ok\", \"metrics\": {}, "
		"\"artifacts\": [{\"kind\": \"flamegraph\"}]}]}";
	struct result *result = NULL;

	cr_assert_eq(result_parse(&result, text, strlen(text), "r.json"),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "r.json: path: expected a string"),
		  "%s", bg_error_last());
}
