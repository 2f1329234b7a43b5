/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/check.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The gate driving a session: adaptive stopping, the baseline found before
 * the run, the gate's settings. Each test writes the suite below into a
 * fresh directory with a store beside it; the benchmarks report `n`
 * through the metrics file, from the number in the file `level`, so that
 * what they measure is known exactly:
 * - "steady" always reports the level: its median is precise at once;
 * - "wavy" reports the level and 10 % more in turns: its median is never
 *   within the 1 % precision target, so only a decided comparison stops
 *   it before max_runs.
 */
static const char suite_text[] =
	"{ \"benchgate\": 1, \"suite\": \"gate\",\n"
	"  \"defaults\": { \"warmup\": 0, \"runs\": \"auto\",\n"
	"                \"min_runs\": 3, \"max_runs\": 24 },\n"
	"  \"benchmarks\": [\n"
	"    { \"name\": \"steady\",\n"
	"      \"shell\": \"echo n $(cat level) > "
	"\\\"$BENCHGATE_METRICS_FILE\\\"\",\n"
	"      \"metrics\": [ { \"name\": \"n\", \"from\": \"metrics\" } ] },\n"
	"    { \"name\": \"wavy\", \"threshold\": 0.2,\n"
	"      \"shell\": \"v=$(cat level); echo n $((v + v / 10 * "
	"(BENCHGATE_RUN % 2))) > \\\"$BENCHGATE_METRICS_FILE\\\"\",\n"
	"      \"metrics\": [ { \"name\": \"n\", \"from\": \"metrics\" } ] } ] }\n";

static char *dir;
static char *suite_path;
static struct strbuf store = STRBUF_INIT;

static void setup(void)
{
	dir = test_tmpdir();
	suite_path = test_write_file(dir, "suite.json", suite_text);
	strbuf_addf(&store, "%s/store", dir);
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
	free(suite_path);
	strbuf_release(&store);
}

TestSuite(check, .init = setup, .fini = teardown);

static void set_level(const char *level)
{
	free(test_write_file(dir, "level", level));
}

static void session_options_init(struct session_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->suite_path = suite_path;
	opts->build_dir = dir;
	opts->store_spec = store.buf;
	opts->runs = -1;
	opts->warmup = -1;
}

static void check_options_init(struct check_options *opts, const char *baseline)
{
	memset(opts, 0, sizeof(*opts));
	session_options_init(&opts->session);
	opts->baseline = baseline;
	opts->threshold = -1;
	opts->confidence = -1;
}

/* A result of `runs` fixed runs at level, stored; its path into path. */
static void store_result(const char *level, int runs, struct strbuf *path)
{
	struct session_options opts;
	struct session *session = NULL;

	set_level(level);
	session_options_init(&opts);
	opts.runs = runs;
	cr_assert_eq(session_prepare(&session, &opts), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(check_measure(session, NULL), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(session_store(session), BG_OK, "%s", bg_error_last());
	strbuf_addstr(path, session->result_path.buf);
	session_free(session);
}

static const struct result_case *case_of(const struct result *result,
					 const char *benchmark)
{
	const struct result_case *rcase =
		result_find_case(result, benchmark, "default", "cpu");

	cr_assert_not_null(rcase, "no case %s", benchmark);
	return rcase;
}

static const struct metric_comparison *item_of(const struct comparison *c,
					       const char *benchmark)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->items[i].benchmark, benchmark))
			return &c->items[i];
	cr_assert_fail("no item for %s", benchmark);
	return NULL;
}

Test(check, without_a_baseline_a_case_stops_once_its_median_is_precise)
{
	struct session_options opts;
	struct session *session = NULL;

	set_level("1000");
	session_options_init(&opts);
	cr_assert_eq(session_prepare(&session, &opts), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(check_measure(session, NULL), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(case_of(session->result, "steady")->runs, 3);
	cr_assert_eq(case_of(session->result, "wavy")->runs, 24);
	session_free(session);
}

Test(check, a_case_stops_once_its_comparison_is_decided)
{
	struct strbuf base = STRBUF_INIT;
	struct check_options opts;
	struct check *check = NULL;
	size_t runs;

	store_result("1000", 20, &base);
	set_level("2000");
	check_options_init(&opts, base.buf);
	cr_assert_eq(check_run(&check, &opts), BG_OK, "%s", bg_error_last());
	/* doubled: decided as soon as the test may decide it, which with
	 * no history is at 40 runs of both sides together (compare.h) */
	runs = case_of(check->session->result, "wavy")->runs;
	cr_assert_geq(runs, 2 * COMPARE_MIN_DECISIVE_RUNS_ALONE - 20);
	cr_assert_lt(runs, 24, "ran to max_runs: never decided");
	cr_assert_eq(check_conclude(check), BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(check->comparison->baseline.source, "file");
	cr_assert_str_eq(check->comparison->baseline.path, base.buf);
	cr_assert_str_eq(check->comparison->candidate.path,
			 check->session->result_path.buf);
	cr_assert_eq(item_of(check->comparison, "wavy")->verdict,
		     VERDICT_REGRESSION);
	check_free(check);
	strbuf_release(&base);
}

Test(check, the_command_lines_threshold_wins_over_the_suites)
{
	struct strbuf base = STRBUF_INIT;
	struct check_options opts;
	struct check *check = NULL;

	store_result("1000", 3, &base);
	check_options_init(&opts, base.buf);
	opts.session.runs = 3;
	cr_assert_eq(check_run(&check, &opts), BG_OK, "%s", bg_error_last());
	cr_assert_eq(check_conclude(check), BG_OK, "%s", bg_error_last());
	cr_assert_float_eq(item_of(check->comparison, "steady")->threshold,
			   COMPARE_THRESHOLD_DEFAULT, 1e-12);
	cr_assert_float_eq(item_of(check->comparison, "wavy")->threshold, 0.2,
			   1e-12);
	check_free(check);

	opts.threshold = 0.1;
	cr_assert_eq(check_run(&check, &opts), BG_OK, "%s", bg_error_last());
	cr_assert_eq(check_conclude(check), BG_OK, "%s", bg_error_last());
	cr_assert_float_eq(item_of(check->comparison, "steady")->threshold, 0.1,
			   1e-12);
	cr_assert_float_eq(item_of(check->comparison, "wavy")->threshold, 0.1,
			   1e-12);
	check_free(check);
	strbuf_release(&base);
}

Test(check, the_new_result_is_never_its_own_baseline)
{
	git_repository *repo;
	struct check_options opts;
	struct check *check = NULL;
	git_oid head;

	repo = test_git_init(dir);
	test_git_commit(repo, "refs/heads/main", "one", 0, NULL, &head);
	cr_assert_eq(chdir(dir), 0);
	set_level("1000");
	check_options_init(&opts, "auto");
	opts.session.runs = 3;
	cr_assert_eq(check_run(&check, &opts), BG_OK, "%s", bg_error_last());
	cr_assert_eq(check_conclude(check), BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(check->baseline.source, "none");
	cr_assert_null(check->baseline.result);
	check_free(check);

	/* the first one is stored now, and the second finds it */
	cr_assert_eq(check_run(&check, &opts), BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(check->baseline.source, "auto");
	cr_assert_str_eq(check->baseline.result->git.commit,
			 test_oid_hex(&head, 0));
	check_free(check);
	git_repository_free(repo);
}
