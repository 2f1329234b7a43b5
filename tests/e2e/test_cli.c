/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the built benchgate binary driven as a user drives it, on
 * fixture suites in temporary directories and on the example suite.
 * Assertions are on exit codes, printed messages and the files left behind.
 */
#include "harness/util/error.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

TestSuite(cli, .init = test_dir_setup, .fini = test_dir_teardown);

Test(cli, help_version_and_unknown_command)
{
	struct test_output out;

	RUN(&out, NULL, NULL, "--help");
	cr_assert_eq(out.exit_code, 0);
	cr_assert(strstr(out.out.buf, "check"));
	test_output_release(&out);
	RUN(&out, NULL, NULL, "run", "--help");
	cr_assert_eq(out.exit_code, 0);
	cr_assert(strstr(out.out.buf, "--shard I/N"));
	test_output_release(&out);
	RUN(&out, NULL, NULL, "frobnicate");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "unknown command 'frobnicate'"));
	test_output_release(&out);
	RUN(&out, NULL, NULL, "run", "--runs", "zero", "x.json");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--runs: expected a whole number"), "%s",
		  out.err.buf);
	test_output_release(&out);
}

Test(cli, validate_prints_the_plan_or_the_positioned_error)
{
	struct test_output out;
	char *bad;

	RUN(&out, BENCHGATE_SOURCE_DIR, NULL, "validate",
	    "suites/mlp-variants/suite.json");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "4 cases"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "infer-batch32/quantized/cpu"));
	cr_assert(strstr(out.out.buf, "mlp-int8.bin"), "argv is expanded");
	test_output_release(&out);

	bad = test_write_file(
		test_dir, "bad.json",
		"{\"benchgate\": 1, \"suite\": \"x\",\n"
		" \"benchmarks\": [{\"name\": \"t\", \"command\": "
		"[\"true\"],\n  \"metrics\": [{\"name\": \"w\", "
		"\"frm\": \"wall\"}]}]}");
	RUN(&out, test_dir, NULL, "validate", "bad.json");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "bad.json:3:29: benchmarks[0].metrics[0]"
				      ".frm: unknown key 'frm'"),
		  "%s", out.err.buf);
	cr_assert_eq(out.out.len, 0, "nothing printed as if valid");
	test_output_release(&out);
	free(bad);
}

Test(cli, example_suite_stores_four_variants_with_every_metric)
{
	static const char *const metrics[] = { "latency",  "throughput",
					       "accuracy", "model_size",
					       "params",   "wall_time",
					       "peak_rss" };
	static const char *const variants[] = { "original", "quantized",
						"pruned", "distilled" };
	struct test_output out;
	struct result *result;
	char store[4096];

	snprintf(store, sizeof(store), "%s/store", test_dir);
	RUN(&out, BENCHGATE_SOURCE_DIR, NULL, "run",
	    "suites/mlp-variants/suite.json", "--runs", "3", "--warmup", "1",
	    "--build-dir", BENCHGATE_BUILD_DIR, "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "stored "), "%s", out.out.buf);
	result = test_only_result(store);
	cr_assert_str_eq(result->suite, "mlp-variants");
	cr_assert_eq(result->cases_nr, 4);
	for (size_t v = 0; v < 4; v++) {
		const struct result_case *c = result_find_case(
			result, "infer-batch32", variants[v], "cpu");

		cr_assert_not_null(c, "no case for %s", variants[v]);
		cr_assert_eq(c->status, CASE_OK, "%s: %s", variants[v],
			     c->reason);
		cr_assert_eq(c->runs, 3);
		for (size_t m = 0; m < sizeof(metrics) / sizeof(*metrics);
		     m++) {
			const struct metric_samples *s =
				result_case_find_metric(c, metrics[m]);

			cr_assert_not_null(s, "%s lacks %s", variants[v],
					   metrics[m]);
			cr_assert_geq(s->nr, 3);
		}
	}
	result_free(result);
	test_output_release(&out);
}

Test(cli, failing_cases_are_recorded_and_the_others_still_run)
{
	struct test_output out;
	struct result *result;
	char *suite, store[4096];
	const struct result_case *c;

	suite = test_write_file(
		test_dir, "s.json",
		"{\"benchgate\": 1, \"suite\": \"broken\","
		" \"defaults\": {\"runs\": 2, \"warmup\": 0, \"timeout\": \"20s\"},"
		" \"benchmarks\": ["
		"  {\"name\": \"segv\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/crash_segv\"], \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]},"
		"  {\"name\": \"good\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/spin\", \"--ms\", \"2\"], \"metrics\": [{\"name\": \"latency\","
		"   \"from\": \"metrics\", \"key\": \"latency_ms\", \"unit\": \"ms\"}]},"
		"  {\"name\": \"missing\", \"command\": [\"/nonexistent/bench\"],"
		"   \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}");
	snprintf(store, sizeof(store), "%s/store", test_dir);
	RUN(&out, test_dir, NULL, "run", "s.json", "--store", store);
	cr_assert_eq(out.exit_code, 3, "a crashed case is exit 3: %s%s",
		     out.out.buf, out.err.buf);
	result = test_only_result(store);
	c = result_find_case(result, "segv", "default", "cpu");
	cr_assert_eq(c->status, CASE_FAILED);
	cr_assert(strstr(c->reason, "signal 11"), "%s", c->reason);
	c = result_find_case(result, "missing", "default", "cpu");
	cr_assert_eq(c->status, CASE_FAILED);
	cr_assert(strstr(c->reason, "/nonexistent/bench"), "%s", c->reason);
	c = result_find_case(result, "good", "default", "cpu");
	cr_assert_eq(c->status, CASE_OK, "%s", c->reason);
	cr_assert_eq(result_case_find_metric(c, "latency")->nr, 2);
	result_free(result);
	test_output_release(&out);
	free(suite);
}

/* A repository whose HEAD has a commit, and a spin suite with a practical
 * threshold of 10 %: these tests run beside others on two cores. */
static void make_spin_repo(void)
{
	git_repository *repo = test_git_init(test_dir);
	git_oid commit;
	char *suite;

	test_git_commit(repo, "refs/heads/main", "first", 0, NULL, &commit);
	git_repository_set_head(repo, "refs/heads/main");
	git_repository_free(repo);
	suite = test_write_file(
		test_dir, "spin.json",
		"{\"benchgate\": 1, \"suite\": \"spin\","
		" \"defaults\": {\"runs\": 10, \"warmup\": 1, \"threshold\": \"10%\"},"
		" \"benchmarks\": [{\"name\": \"spin\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/spin\", \"--ms\", \"15\"],"
		" \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","
		"  \"key\": \"latency_ms\", \"unit\": \"ms\"}]}]}");
	free(suite);
}

Test(cli, check_passes_unchanged_code_and_fails_a_20_percent_slowdown)
{
	const char *slow[] = { "SPIN_SLOWDOWN=0.2", NULL };
	char json[4096];
	struct test_output out;
	char *doc;

	make_spin_repo();
	RUN(&out, test_dir, NULL, "check", "spin.json", "--no-color");
	cr_assert_eq(out.exit_code, 0, "no baseline yet is a pass: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "new"), "%s", out.out.buf);
	test_output_release(&out);

	for (int i = 0; i < 2; i++) {
		RUN(&out, test_dir, NULL, "check", "spin.json");
		cr_assert_eq(out.exit_code, 0, "unchanged code passes: %s%s",
			     out.out.buf, out.err.buf);
		cr_assert(strstr(out.out.buf, "PASS"), "%s", out.out.buf);
		test_output_release(&out);
	}

	snprintf(json, sizeof(json), "%s/comparison.json", test_dir);
	RUN(&out, test_dir, slow, "check", "spin.json", "--json", json);
	cr_assert_eq(out.exit_code, 1, "20 %% slower fails the gate: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "spin/default/cpu latency"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "regression"), "%s", out.out.buf);
	doc = test_read_file(json);
	cr_assert_not_null(doc);
	cr_assert(strstr(doc, "\"verdict\":\t\"regression\""), "%s", doc);
	free(doc);
	test_output_release(&out);
}

/* The suite of make_spin_builds(), in the work tree and in base/. */
#define SPIN_AB_SUITE                                                         \
	"{\"benchgate\": 1, \"suite\": \"spin\","                             \
	" \"defaults\": {\"runs\": 10, \"warmup\": 1, \"threshold\": \"10%\"}," \
	" \"benchmarks\": [{\"name\": \"spin\", \"command\":"                  \
	" [\"${build_dir}/spin\", \"--ms\", \"15\"],"                            \
	" \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","         \
	"  \"key\": \"latency_ms\", \"unit\": \"ms\"}]}]}"

/* Two trees of the spin workload for --baseline-tree: the work tree's
 * build new/spin is the workload 20 % slower when `slower`; base/ is the
 * baseline's tree, with the same suite and its build base/new/spin the
 * workload itself. */
static void make_spin_builds(bool slower)
{
	char *script, path[4096];

	free(test_write_file(test_dir, "base/ab.json", SPIN_AB_SUITE));
	snprintf(path, sizeof(path), "%s/base/new", test_dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/base/new/spin", test_dir);
	cr_assert_eq(symlink(TEST_WORKLOAD_DIR "/spin", path), 0);
	script = test_write_file(
		test_dir, "new/spin",
		slower ? "#!/bin/sh\nSPIN_SLOWDOWN=0.2 exec " TEST_WORKLOAD_DIR
			 "/spin \"$@\"\n"
		       : "#!/bin/sh\nexec " TEST_WORKLOAD_DIR "/spin \"$@\"\n");
	cr_assert_eq(chmod(script, 0755), 0);
	free(script);
	free(test_write_file(test_dir, "ab.json", SPIN_AB_SUITE));
}

Test(cli, check_measures_a_baseline_tree_in_the_same_session)
{
	char json[4096], store[4096];
	struct test_output out;
	struct result *result;
	char *doc;

	make_spin_repo();
	make_spin_builds(true);
	snprintf(json, sizeof(json), "%s/comparison.json", test_dir);
	snprintf(store, sizeof(store), "%s/store", test_dir);
	/* Nothing stored yet: the baseline is measured, not looked up. */
	RUN(&out, test_dir, NULL, "check", "ab.json", "--store", store,
	    "--build-dir", "new", "--baseline-tree", "base", "--json", json);
	cr_assert_eq(out.exit_code, 1, "20 %% slower fails the gate: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "tree base measured in this session"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "spin/default/cpu latency"), "%s",
		  out.out.buf);
	doc = test_read_file(json);
	cr_assert(strstr(doc, "\"source\":\t\"tree\""), "%s", doc);
	cr_assert(strstr(doc, "\"verdict\":\t\"regression\""), "%s", doc);
	free(doc);
	test_output_release(&out);
	/* Only the candidate's cases are stored. */
	result = test_only_result(store);
	cr_assert_eq(result->cases_nr, 1);
	cr_assert_eq(result->cases[0].runs, 10);
	result_free(result);
}

Test(cli, check_passes_a_baseline_tree_of_the_same_code)
{
	struct test_output out;

	make_spin_repo();
	make_spin_builds(false);
	for (int i = 0; i < 2; i++) {
		RUN(&out, test_dir, NULL, "check", "ab.json", "--store", "store",
		    "--build-dir", "new", "--baseline-tree", "base");
		cr_assert_eq(out.exit_code, 0, "the same code passes: %s%s",
			     out.out.buf, out.err.buf);
		cr_assert(strstr(out.out.buf, "PASS"), "%s", out.out.buf);
		test_output_release(&out);
	}
}

Test(cli, a_baseline_tree_that_cannot_be_measured_is_exit_2)
{
	struct test_output out;

	make_spin_repo();
	make_spin_builds(false);
	RUN(&out, test_dir, NULL, "check", "ab.json", "--store", "store",
	    "--build-dir", "new", "--baseline-tree", "nowhere");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "'nowhere' is not a directory"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, test_dir, NULL, "check", "ab.json", "--store", "store",
	    "--build-dir", "new", "--baseline-tree", "base", "--order",
	    "sequential");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--order sequential"), "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, test_dir, NULL, "run", "ab.json", "--baseline-tree", "base");
	cr_assert_eq(out.exit_code, 2, "only check measures a baseline");
	test_output_release(&out);
}

Test(cli, a_baseline_tree_that_crashes_is_a_failed_case)
{
	struct test_output out;
	char *script;

	make_spin_repo();
	make_spin_builds(false);
	free(test_write_file(test_dir, "broken/ab.json", SPIN_AB_SUITE));
	script = test_write_file(test_dir, "broken/new/spin",
				 "#!/bin/sh\nexit 7\n");
	cr_assert_eq(chmod(script, 0755), 0);
	free(script);
	RUN(&out, test_dir, NULL, "check", "ab.json", "--store", "store",
	    "--build-dir", "new", "--baseline-tree", "broken");
	cr_assert_eq(out.exit_code, 3, "nothing could be compared: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "the baseline tree's case failed: "
				      "exited with status 7"),
		  "%s", out.out.buf);
	test_output_release(&out);
}

Test(cli, check_with_a_bad_suite_is_exit_2_and_runs_nothing)
{
	struct test_output out;
	char *suite = test_write_file(test_dir, "s.json", "{\"benchgate\": 1}");

	RUN(&out, test_dir, NULL, "check", "s.json", "--store", "store");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "missing required key 'suite'"), "%s",
		  out.err.buf);
	test_output_release(&out);
	free(suite);
}

static bool has_file_with_prefix(const char *directory, const char *prefix)
{
	char command[4096];
	struct test_output out;
	bool found;

	snprintf(command, sizeof(command), "ls %s | grep -q '^%s'", directory,
		 prefix);
	test_run(&out, NULL, NULL,
		 (const char *const[]){ "/bin/sh", "-c", command, NULL });
	found = out.exit_code == 0;
	test_output_release(&out);
	return found;
}

Test(cli, check_on_the_example_writes_every_report_and_chart)
{
	static const char *const files[] = {
		"junit.xml",	   "report.md",	     "report.html",
		"comparison.json", "comparison.csv", "metrics.txt"
	};
	static const char *const charts[] = { "history-", "variants-",
					      "tradeoff-", "distribution-" };
	const char *slow[] = { "MLP_BENCH_SLOWDOWN=4", NULL };
	char store[1024], out_dir[1024], charts_dir[1200], path[1200];
	struct test_output out;

	snprintf(store, sizeof(store), "%s/store", test_dir);
	snprintf(out_dir, sizeof(out_dir), "%s/out", test_dir);
	snprintf(charts_dir, sizeof(charts_dir), "%s/charts", out_dir);
	/* Two variants and six runs: the least that lets a 99 % rank test
	 * decide (with three runs per side no p-value goes below 0.1). */
	RUN(&out, BENCHGATE_SOURCE_DIR, NULL, "check",
	    "suites/mlp-variants/suite.json", "--runs", "6", "--warmup", "0",
	    "--filter", "*/[od]*/cpu", "--build-dir", BENCHGATE_BUILD_DIR,
	    "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);

	/* Five times slower: a regression, so the distribution charts
	 * appear. Against HEAD's result by name: "auto" would look at the
	 * merge base with main, which holds no result on a branch ahead of
	 * it. This test is about the reports, not the test's power on a
	 * busy machine, where six runs a side drift together: at load 30,
	 * +50 % read +77 % [-42 %, +441 %], inconclusive even at
	 * confidence 0.5; fivefold is beyond what such drift hides. */
	RUN(&out, BENCHGATE_SOURCE_DIR, slow, "check",
	    "suites/mlp-variants/suite.json", "--runs", "6", "--warmup", "0",
	    "--filter", "*/[od]*/cpu", "--build-dir", BENCHGATE_BUILD_DIR,
	    "--store", store, "--report", out_dir, "--confidence", "0.5",
	    "--baseline", "HEAD");
	cr_assert_eq(out.exit_code, 1, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char *text;

		snprintf(path, sizeof(path), "%s/%s", out_dir, files[i]);
		text = test_read_file(path);
		cr_assert_not_null(text, "%s was not written", files[i]);
		cr_assert_gt(strlen(text), 100, "%s is empty", files[i]);
		free(text);
	}
	for (size_t i = 0; i < sizeof(charts) / sizeof(*charts); i++)
		cr_assert(has_file_with_prefix(charts_dir, charts[i]),
			  "no %s chart", charts[i]);
	snprintf(path, sizeof(path), "%s/junit.xml", out_dir);
	test_run(&out, NULL, NULL,
		 (const char *const[]){
			 "/usr/bin/xmllint", "--noout", "--schema",
			 TEST_FIXTURE_DIR "/junit.xsd", path, NULL });
	cr_assert_eq(out.exit_code, 0, "junit.xml invalid: %s", out.err.buf);
	test_output_release(&out);
}

Test(cli, report_writes_the_formats_asked_for_from_a_result)
{
	char store[1024], out_dir[1024], path[1200];
	struct test_output out;
	struct store *s = NULL;
	struct store_entry *entries = NULL;
	size_t nr = 0;
	char *md;

	make_spin_repo();
	snprintf(store, sizeof(store), "%s/store", test_dir);
	snprintf(out_dir, sizeof(out_dir), "%s/rep", test_dir);
	RUN(&out, test_dir, NULL, "run", "spin.json", "--runs", "3", "--store",
	    store);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	cr_assert_eq(store_open(&s, store), BG_OK);
	cr_assert_eq(store_list(s, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	RUN(&out, test_dir, NULL, "report", entries[0].path, "--out", out_dir,
	    "--format", "markdown,csv");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	snprintf(path, sizeof(path), "%s/report.md", out_dir);
	md = test_read_file(path);
	cr_assert_not_null(md);
	cr_assert(strstr(md, "<!-- benchgate:spin -->"));
	free(md);
	snprintf(path, sizeof(path), "%s/report.html", out_dir);
	cr_assert_null(test_read_file(path), "html was not asked for");
	test_output_release(&out);
	RUN(&out, test_dir, NULL, "report", entries[0].path, "--out", out_dir,
	    "--format", "pdf");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "unknown report format 'pdf'"));
	test_output_release(&out);
	store_entries_free(entries, nr);
	store_free(s);
}

/* The rss samples of case `name` of the only result in store, in MiB,
 * checked against [low, high]. */
static void check_rss(const char *store, const char *name, double low,
		      double high)
{
	struct result *result = test_only_result(store);
	const struct result_case *c =
		result_find_case(result, name, "default", "cpu");
	const struct metric_samples *rss;

	cr_assert_not_null(c, "no case %s", name);
	cr_assert_eq(c->status, CASE_OK, "%s", c->reason);
	rss = result_case_find_metric(c, "rss");
	cr_assert_not_null(rss);
	cr_assert_eq(rss->nr, 2);
	for (size_t i = 0; i < rss->nr; i++) {
		double mib = rss->samples[i] / (1 << 20);

		cr_assert(mib >= low && mib <= high,
			  "%s: %.1f MiB not in "
			  "[%g, %g]",
			  name, mib, low, high);
	}
	result_free(result);
}

Test(cli, maxrss_is_the_benchmarks_own_not_benchgates)
{
	const char *no_launcher[] = { "BENCHGATE_LAUNCHER=/nonexistent", NULL };
	struct strbuf listing = STRBUF_INIT;
	struct test_output out;
	char *suite, store[4096];

	/* exec keeps the larger of the old memory's peak and the new
	 * program's (harness/util/launcher.h): a small benchmark shows
	 * benchgate's own peak, 12 MiB and more, a large one its own */
	suite = test_write_file(
		test_dir, "rss.json",
		"{\"benchgate\": 1, \"suite\": \"rss\","
		" \"defaults\": {\"runs\": 2, \"warmup\": 0},"
		" \"benchmarks\": ["
		"  {\"name\": \"mb30\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/alloc_mb\", \"--mb\", \"30\"], \"metrics\": [{\"name\":"
		"   \"rss\", \"from\": \"rusage\", \"field\": \"maxrss\"}]},"
		"  {\"name\": \"mb1\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/alloc_mb\", \"--mb\", \"1\"], \"metrics\": [{\"name\":"
		"   \"rss\", \"from\": \"rusage\", \"field\": \"maxrss\"}]}]}");
	snprintf(store, sizeof(store), "%s/store", test_dir);
	RUN(&out, test_dir, NULL, "run", "rss.json", "--store", store);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_null(strstr(out.err.buf, "launcher"), "%s", out.err.buf);
	check_rss(store, "mb30", 30 * 0.85, 30 * 1.15);
	check_rss(store, "mb1", 1, 5);
	test_output_release(&out);

	/* without the launcher: an error naming it, and nothing measured,
	 * as maxrss would include benchgate's own memory */
	snprintf(store, sizeof(store), "%s/store-without", test_dir);
	RUN(&out, test_dir, no_launcher, "run", "rss.json", "--store", store);
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "cannot use the launcher '/nonexistent'"),
		  "%s", out.err.buf);
	test_output_release(&out);
	test_list_tree(&listing, store);
	cr_assert_null(strstr(listing.buf, ".json"), "%s", listing.buf);
	strbuf_release(&listing);
	free(suite);
}

Test(cli, absent_devices_skip_unless_required)
{
	const char *no_gpu[] = { "BENCHGATE_DEVICES=cpu", NULL };
	char store[1024];
	struct test_output out;
	char *suite = test_write_file(
		test_dir, "dev.json",
		"{\"benchgate\": 1, \"suite\": \"dev\", \"devices\": [\"cpu\", \"gpu\"],"
		" \"defaults\": {\"runs\": 2, \"warmup\": 0},"
		" \"benchmarks\": [{\"name\": \"t\", \"command\": [\"/bin/true\"],"
		" \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}");

	snprintf(store, sizeof(store), "%s/store", test_dir);
	RUN(&out, test_dir, no_gpu, "run", "dev.json", "--store", store);
	cr_assert_eq(out.exit_code, 0, "a skip never fails: %s%s", out.out.buf,
		     out.err.buf);
	cr_assert(strstr(out.out.buf, "skipped"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, test_dir, no_gpu, "run", "dev.json", "--store", store,
	    "--require-devices");
	cr_assert_eq(out.exit_code, 3, "a hardware runner must not skip: %s%s",
		     out.out.buf, out.err.buf);
	test_output_release(&out);
	free(suite);
}

/*
 * Issue 17, item 4: a result the store cannot take. The first run of
 * "wrecker" turns the store into a file, as a disk that fills or goes
 * read-only during the measurements would (a store that cannot be written
 * from the start stops the run before anything is measured: exit 2), so
 * every benchmark runs and then the store refuses the result. "broken"
 * fails with a last line of output that must survive.
 */
static const char lost_suite[] =
	"{\"benchgate\": 1, \"suite\": \"lost\","
	" \"defaults\": {\"runs\": 2, \"warmup\": 0},"
	" \"benchmarks\": ["
	"  {\"name\": \"wrecker\", \"shell\": \"rm -rf store && : > store\","
	"   \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}%s]}";
static const char broken_case[] =
	", {\"name\": \"broken\", \"shell\": \"echo boom-at-the-end >&2; "
	"exit 1\", \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}";

static void write_lost_suite(bool with_broken_case)
{
	char text[2048];

	snprintf(text, sizeof(text), lost_suite,
		 with_broken_case ? broken_case : "");
	free(test_write_file(test_dir, "lost.json", text));
}

/* The fallback files benchgate left in `where`: their count, and the
 * path of the last into path. */
static int fallback_files(const char *where, char *path, size_t size)
{
	struct dirent *de;
	DIR *d = opendir(where);
	int nr = 0;

	cr_assert_not_null(d, "%s", where);
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "benchgate-unstored-", 19))
			continue;
		snprintf(path, size, "%s/%s", where, de->d_name);
		nr++;
	}
	closedir(d);
	return nr;
}

/* The kept result: every case with its measured runs, the broken case's
 * last line of output in its reason, and no path into the lost store. */
static void assert_kept_result(const char *path, bool with_broken_case)
{
	struct result *result = NULL;
	const struct result_case *c;

	cr_assert_eq(result_load(&result, path), BG_OK, "%s: %s", path,
		     bg_error_last());
	cr_assert_str_eq(result->suite, "lost");
	c = result_find_case(result, "wrecker", "default", "cpu");
	cr_assert_not_null(c);
	cr_assert_eq(c->status, CASE_OK, "%s", c->reason);
	cr_assert_eq(result_case_find_metric(c, "w")->nr, 2);
	cr_assert(!c->log || c->log[0] == '/', "log '%s'", c->log);
	if (with_broken_case) {
		c = result_find_case(result, "broken", "default", "cpu");
		cr_assert_eq(c->status, CASE_FAILED);
		cr_assert(strstr(c->reason, "boom-at-the-end"), "%s",
			  c->reason);
	}
	result_free(result);
}

Test(cli, a_result_the_store_refuses_is_kept_in_the_json_file)
{
	char json[1024], tmpdir[1100], fallback[1024];
	const char *env[] = { tmpdir, NULL };
	struct test_output out;

	write_lost_suite(true);
	snprintf(json, sizeof(json), "%s/result.json", test_dir);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", test_dir);
	RUN(&out, test_dir, env, "run", "lost.json", "--store", "store", "--json",
	    json);
	cr_assert_eq(out.exit_code, 4,
		     "measured but not stored is exit 4, before 3: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "cannot store the result"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, json), "the message names the file: %s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "ends with the last lines of its output"),
		  "it says where the logs' tails are: %s", out.err.buf);
	cr_assert(strstr(out.out.buf, "wrecker"), "the summary is printed: %s",
		  out.out.buf);
	assert_kept_result(json, true);
	cr_assert_eq(fallback_files(test_dir, fallback, sizeof(fallback)), 0,
		     "--json took it: no fallback file");
	test_output_release(&out);
}

Test(cli, without_json_an_unstored_result_is_kept_in_a_fallback_file)
{
	char tmpdir[1100], fallback[1024], later[1024];
	const char *env[] = { tmpdir, NULL };
	struct test_output out;
	struct result *stored;

	write_lost_suite(true);
	/* TMPDIR is the second choice: it must stay empty */
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s/tmp", test_dir);
	cr_assert_eq(mkdir(tmpdir + 7, 0755), 0);
	RUN(&out, test_dir, env, "run", "lost.json", "--store", "store");
	cr_assert_eq(out.exit_code, 4, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(fallback_files(test_dir, fallback, sizeof(fallback)), 1,
		     "one fallback file in the current directory: %s",
		     out.err.buf);
	cr_assert(strstr(fallback, "/benchgate-unstored-lost-"), "%s",
		  fallback);
	cr_assert_eq(fallback_files(tmpdir + 7, later, sizeof(later)), 0,
		     "not also in $TMPDIR");
	cr_assert(strstr(out.err.buf, fallback), "the message names it: %s",
		  out.err.buf);
	assert_kept_result(fallback, true);
	test_output_release(&out);

	/* It is a result like a stored one: `merge` stores it later. */
	snprintf(later, sizeof(later), "%s/later", test_dir);
	RUN(&out, test_dir, NULL, "merge", fallback, "--store", later);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	stored = test_only_result(later);
	cr_assert_eq(stored->cases_nr, 2);
	result_free(stored);
}

Test(cli, check_gates_a_result_the_store_refuses_and_keeps_it)
{
	char json[1024], tmpdir[1100], fallback[1024];
	const char *env[] = { tmpdir, NULL };
	struct test_output out;
	char *doc;

	write_lost_suite(false);
	snprintf(json, sizeof(json), "%s/comparison.json", test_dir);
	/* TMPDIR is the second choice: it must stay empty */
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s/tmp", test_dir);
	cr_assert_eq(mkdir(tmpdir + 7, 0755), 0);
	RUN(&out, test_dir, env, "check", "lost.json", "--store", "store", "--json",
	    json, "--report", "out");
	cr_assert_eq(out.exit_code, 4, "a pass that lost its result: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "PASS") || strstr(out.out.buf, "new"),
		  "the gate still decided: %s", out.out.buf);
	cr_assert_eq(fallback_files(test_dir, fallback, sizeof(fallback)), 1, "%s",
		     out.err.buf);
	cr_assert(strstr(out.err.buf, fallback), "%s", out.err.buf);
	assert_kept_result(fallback, false);
	doc = test_read_file(json);
	cr_assert_not_null(doc, "the comparison is written all the same");
	cr_assert(strstr(doc, fallback), "its candidate is the kept file: %s",
		  doc);
	free(doc);
	test_output_release(&out);
}

Test(cli, a_json_file_that_cannot_be_written_is_exit_4_not_2)
{
	char store[1024];
	struct test_output out;
	struct result *result;

	free(test_write_file(
		test_dir, "ok.json",
		"{\"benchgate\": 1, \"suite\": \"ok\","
		" \"defaults\": {\"runs\": 2, \"warmup\": 0},"
		" \"benchmarks\": [{\"name\": \"t\", \"command\": [\"/bin/true\"],"
		" \"metrics\": [{\"name\": \"w\", \"from\": \"wall\"}]}]}"));
	free(test_write_file(test_dir, "a-file", "not a directory\n"));
	snprintf(store, sizeof(store), "%s/store", test_dir);
	RUN(&out, test_dir, NULL, "run", "ok.json", "--store", store, "--json",
	    "a-file/result.json");
	cr_assert_eq(out.exit_code, 4, "it ran and was stored: %s%s",
		     out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "a-file/result.json"), "%s", out.err.buf);
	result = test_only_result(store);
	cr_assert_str_eq(result->suite, "ok");
	result_free(result);
	test_output_release(&out);
}
