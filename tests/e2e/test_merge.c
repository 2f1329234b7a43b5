/*
 * End to end: `benchgate merge` turns the results of `run --shard I/N`
 * jobs into the one result of the whole suite, and refuses results that
 * are not shards of one run.
 */
#include "harness/alloc.h"
#include "harness/error.h"
#include "harness/result.h"
#include "harness/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, cwd, env, ...) \
	test_benchgate((out), (cwd), (env), (const char *const[]){ __VA_ARGS__, NULL })

static char *dir;

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

/* A repository at a commit, a suite of three spin benchmarks, and its
 * two shards run into shard-1.json and shard-2.json. */
static void setup(void)
{
	const char *env[] = { "BENCHGATE_MACHINE_ID=merge-box", NULL };
	git_repository *repo;
	struct test_output out;
	git_oid commit;
	char *suite;

	dir = test_tmpdir();
	repo = test_git_init(dir);
	test_git_commit(repo, "refs/heads/main", "code", 0, NULL, &commit);
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	git_repository_free(repo);
	suite = test_write_file(dir, "s.json",
		"{\"benchgate\": 1, \"suite\": \"sharded\","
		" \"defaults\": {\"runs\": 1, \"warmup\": 0},"
		" \"variants\": {\"a\": {}, \"b\": {}, \"c\": {}},"
		" \"benchmarks\": [{\"name\": \"spin\", \"command\": [\""
		TEST_WORKLOAD_DIR "/spin\", \"--ms\", \"1\"],"
		" \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","
		"  \"key\": \"latency_ms\", \"unit\": \"ms\"}]}]}");
	free(suite);
	RUN(&out, dir, env, "run", "s.json", "--shard", "1/2", "--store",
	    "shards", "--json", "shard-1.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	RUN(&out, dir, env, "run", "s.json", "--shard", "2/2", "--store",
	    "shards", "--json", "shard-2.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

TestSuite(merge, .init = setup, .fini = teardown, .timeout = 120);

static struct result *load(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	struct result *r = NULL;

	strbuf_addf(&path, "%s/%s", dir, name);
	cr_assert_eq(result_load(&r, path.buf), BG_OK, "%s", bg_error_last());
	strbuf_release(&path);
	return r;
}

Test(merge, two_shards_merge_into_their_union)
{
	struct result *one = load("shard-1.json"), *two = load("shard-2.json");
	struct result *merged;
	struct test_output out;

	cr_assert_eq(one->cases_nr + two->cases_nr, 3);
	cr_assert(one->cases_nr >= 1 && two->cases_nr >= 1);
	RUN(&out, dir, NULL, "merge", "shard-2.json", "shard-1.json", "--out",
	    "merged.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "merged 2 results (3 cases) into "
			 "merged.json"), "%s", out.out.buf);
	test_output_release(&out);

	merged = load("merged.json");
	cr_assert_eq(merged->cases_nr, 3);
	for (const char *const *v = (const char *const[]){ "a", "b", "c",
							   NULL }; *v; v++)
		cr_assert_not_null(result_find_case(merged, "spin", *v, "cpu"),
				   "variant %s", *v);
	/* Arguments in order: shard 2's cases first. */
	cr_assert_str_eq(merged->cases[0].variant, two->cases[0].variant);
	/* Shard 1 ran first: its start is the earliest, shard 2's finish
	 * the latest (both UTC "Z", so the strings order). */
	cr_assert_str_eq(merged->started_at, one->started_at);
	cr_assert_str_eq(merged->finished_at, two->finished_at);
	cr_assert_str_eq(merged->git.commit, one->git.commit);
	cr_assert_str_eq(merged->machine.id, "merge-box");
	result_free(merged);
	result_free(one);
	result_free(two);
}

Test(merge, into_a_store)
{
	struct store_entry *entries = NULL;
	struct store *store = NULL;
	struct strbuf path = STRBUF_INIT;
	struct test_output out;
	struct result *r = NULL;
	size_t nr = 0;

	RUN(&out, dir, NULL, "merge", "shard-1.json", "shard-2.json",
	    "--store", "merged");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	strbuf_addf(&path, "%s/merged", dir);
	cr_assert_eq(store_open(&store, path.buf), BG_OK);
	cr_assert_eq(store_list(store, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	cr_assert_eq(store_load(store, &entries[0], &r), BG_OK);
	cr_assert_eq(r->cases_nr, 3);
	result_free(r);
	store_entries_free(entries, nr);
	store_free(store);
	strbuf_release(&path);
}

Test(merge, refuses_what_is_not_shards_of_one_run)
{
	struct result *two = load("shard-2.json");
	struct strbuf json = STRBUF_INIT, path = STRBUF_INIT;
	struct test_output out;

	/* The same case twice. */
	RUN(&out, dir, NULL, "merge", "shard-1.json", "shard-1.json", "--out",
	    "x.json");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "case 'spin/"), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "is in both 'shard-1.json' and "
			 "'shard-1.json'"), "%s", out.err.buf);
	test_output_release(&out);

	/* Another commit. */
	memcpy(two->git.commit, "0123456789abcdef0123456789abcdef01234567",
	       41);
	result_to_json(two, &json);
	strbuf_addf(&path, "%s/other-commit.json", dir);
	cr_assert_eq(write_file_atomic(path.buf, json.buf, json.len), 0);
	RUN(&out, dir, NULL, "merge", "shard-1.json", "other-commit.json",
	    "--out", "x.json");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "'other-commit.json' has commit "
			 "'0123456789abcdef0123456789abcdef01234567'"), "%s",
		  out.err.buf);
	test_output_release(&out);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/x.json", dir);
	cr_assert_null(test_read_file(path.buf), "nothing written");

	RUN(&out, dir, NULL, "merge", "shard-1.json", "--out", "x.json",
	    "--store", "s");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "not both"), "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, dir, NULL, "merge");
	cr_assert_eq(out.exit_code, 2);
	test_output_release(&out);

	result_free(two);
	strbuf_release(&json);
	strbuf_release(&path);
}
