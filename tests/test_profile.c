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
#include "harness/store/result.h"
#include "harness/run/suite.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

TestSuite(profile);

Test(profile, poplar_options_without_the_users)
{
	struct strbuf out = STRBUF_INIT;

	cr_assert_eq(profile_poplar_options(&out, NULL, "/r/a b/poplar"),
		     BG_OK);
	cr_assert_str_eq(out.buf, "{\"autoReport.all\":\"true\","
				  "\"autoReport.directory\":"
				  "\"/r/a b/poplar\"}");
	strbuf_release(&out);
	cr_assert_eq(profile_poplar_options(&out, " \n", "/r"), BG_OK,
		     "a blank value is no options");
	cr_assert_str_eq(out.buf, "{\"autoReport.all\":\"true\","
				  "\"autoReport.directory\":\"/r\"}");
	strbuf_release(&out);
}

Test(profile, poplar_options_merge_into_the_users_keeping_their_order)
{
	struct strbuf out = STRBUF_INIT;

	cr_assert_eq(profile_poplar_options(
			     &out,
			     "{\"debug.instrument\": \"true\", "
			     "\"autoReport.all\": false, "
			     "\"target.workerStackSizeInBytes\": \"0x200\", "
			     "\"autoReport.directory\": \"./old\", "
			     "\"autoReport.all\": \"false\"}",
			     "/store/artifacts/x/c/poplar"),
		     BG_OK, "%s", bg_error_last());
	/* the user's first autoReport.all is replaced where it stood, its
	 * duplicate dropped, so no old value can win */
	cr_assert_str_eq(out.buf, "{\"debug.instrument\":\"true\","
				  "\"autoReport.all\":\"true\","
				  "\"target.workerStackSizeInBytes\":\"0x200\","
				  "\"autoReport.directory\":"
				  "\"/store/artifacts/x/c/poplar\"}");
	strbuf_release(&out);
}

Test(profile, poplar_options_that_are_not_an_object_are_refused_clearly)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "kept");
	cr_assert_eq(profile_poplar_options(&out,
					    "{\"debug.instrument\": ", "/r"),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(),
			 "POPLAR_ENGINE_OPTIONS is not valid JSON"),
		  "%s", bg_error_last());
	cr_assert(strstr(bg_error_last(), "{\"debug.instrument\": "));
	cr_assert_eq(profile_poplar_options(&out, "[\"autoReport.all\"]", "/r"),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "not an object"), "%s",
		  bg_error_last());
	cr_assert_eq(profile_poplar_options(&out, "{} trailing", "/r"),
		     BG_EINPUT);
	cr_assert_str_eq(out.buf, "kept", "nothing appended on error");
	strbuf_release(&out);
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
