/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate merge` turns the results of `run --shard I/N`
 * jobs into the one result of the whole suite, and refuses results that
 * are not shards of one run.
 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

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
	suite = test_write_file(
		dir, "s.json",
		"{\"benchgate\": 1, \"suite\": \"sharded\","
		" \"defaults\": {\"runs\": 1, \"warmup\": 0},"
		" \"variants\": {\"a\": {}, \"b\": {}, \"c\": {}},"
		" \"benchmarks\": [{\"name\": \"spin\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/spin\", \"--ms\", \"1\"],"
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
				      "merged.json"),
		  "%s", out.out.buf);
	test_output_release(&out);

	merged = load("merged.json");
	cr_assert_eq(merged->cases_nr, 3);
	for (const char *const *v =
		     (const char *const[]){ "a", "b", "c", NULL };
	     *v; v++)
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

/* The one result `merge --store merged` wrote, with its three cases;
 * *file (free it) is the path of its file. */
static struct result *load_merged(char **file)
{
	struct store_entry *entries = NULL;
	struct store *store = NULL;
	struct strbuf path = STRBUF_INIT;
	struct result *r = NULL;
	size_t nr = 0;

	strbuf_addf(&path, "%s/merged", dir);
	cr_assert_eq(store_open(&store, path.buf), BG_OK);
	cr_assert_eq(store_list(store, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	cr_assert_eq(store_load(store, &entries[0], &r), BG_OK);
	cr_assert_eq(r->cases_nr, 3);
	*file = xstrdup(entries[0].path);
	store_entries_free(entries, nr);
	store_free(store);
	strbuf_release(&path);
	return r;
}

Test(merge, into_a_store)
{
	struct test_output out;
	char *file;

	RUN(&out, dir, NULL, "merge", "shard-1.json", "shard-2.json", "--store",
	    "merged");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	result_free(load_merged(&file));
	free(file);
}

/* The stored shard files of the "shards" store (absolute paths; free
 * them), each given a nested artifact beside it as `run --profile` leaves
 * one: "artifacts/<shard name>/<case>/profile/folded.txt" holding the
 * case's name. */
static void stored_shards_with_artifacts(char *paths[2])
{
	struct store_entry *entries = NULL;
	struct store *store = NULL;
	struct strbuf spec = STRBUF_INIT;
	size_t nr = 0;

	strbuf_addf(&spec, "%s/shards", dir);
	cr_assert_eq(store_open(&store, spec.buf), BG_OK);
	cr_assert_eq(store_list(store, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 2);
	for (size_t i = 0; i < nr; i++) {
		struct strbuf json = STRBUF_INIT, rel = STRBUF_INIT;
		struct result *r = NULL;
		char *slash, *name;

		cr_assert_eq(result_load(&r, entries[i].path), BG_OK);
		paths[i] = xstrdup(entries[i].path);
		name = xstrdup(strrchr(paths[i], '/') + 1);
		*strrchr(name, '.') = '\0';
		slash = strrchr(entries[i].path, '/');
		*slash = '\0';
		for (size_t j = 0; j < r->cases_nr; j++) {
			strbuf_reset(&rel);
			strbuf_addf(&rel,
				    "artifacts/%s/spin__%s__cpu/profile/"
				    "folded.txt",
				    name, r->cases[j].variant);
			free(test_write_file(entries[i].path, rel.buf,
					     r->cases[j].variant));
			result_case_add_artifact(&r->cases[j], "folded",
						 rel.buf, NULL);
		}
		result_to_json(r, &json);
		cr_assert_eq(write_file_atomic(paths[i], json.buf, json.len),
			     0);
		result_free(r);
		free(name);
		strbuf_release(&json);
		strbuf_release(&rel);
	}
	store_entries_free(entries, nr);
	store_free(store);
	strbuf_release(&spec);
}

Test(merge, carries_logs_and_artifacts_into_the_store)
{
	struct strbuf path = STRBUF_INIT, prefix = STRBUF_INIT;
	struct test_output out;
	struct result *r;
	char *shards[2], *file;

	stored_shards_with_artifacts(shards);
	RUN(&out, dir, NULL, "merge", shards[0], shards[1], "--store",
	    "merged");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(!strstr(out.err.buf, "not carried"), "%s", out.err.buf);
	test_output_release(&out);
	r = load_merged(&file);
	*strrchr(file, '.') = '\0';
	strbuf_addf(&prefix, "artifacts/%s/", strrchr(file, '/') + 1);
	*strrchr(file, '/') = '\0';
	for (size_t i = 0; i < r->cases_nr; i++) {
		const struct result_case *c = &r->cases[i];
		char *text;

		/* The log, beside the merged result now. */
		cr_assert_not_null(c->log);
		cr_assert_neq(c->log[0], '/', "%s", c->log);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", file, c->log);
		text = test_read_file(path.buf);
		cr_assert_not_null(text, "log '%s' is not there", path.buf);
		free(text);
		/* The artifact, with the bytes the shard had. */
		cr_assert_eq(c->artifacts_nr, 1);
		cr_assert(!strncmp(c->artifacts[0].path, prefix.buf,
				   prefix.len),
			  "%s", c->artifacts[0].path);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", file, c->artifacts[0].path);
		text = test_read_file(path.buf);
		cr_assert_not_null(text, "'%s' is not there", path.buf);
		cr_assert_str_eq(text, c->variant);
		free(text);
	}
	result_free(r);
	free(file);
	strbuf_release(&path);
	strbuf_release(&prefix);
	free(shards[0]);
	free(shards[1]);
}

Test(merge, carries_artifacts_onto_a_git_store_branch)
{
	git_repository *repo = NULL;
	git_object *blob = NULL;
	struct strbuf rev = STRBUF_INIT;
	struct test_output out;
	struct result *r = NULL;
	char *shards[2];

	stored_shards_with_artifacts(shards);
	RUN(&out, dir, NULL, "merge", shards[0], shards[1], "--store",
	    "git:results");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	/* "merged 2 results (3 cases) into results:<path>" */
	cr_assert_not_null(strstr(out.out.buf, "into results:"), "%s",
			   out.out.buf);
	strbuf_addstr(&rev, strstr(out.out.buf, "into ") + 5);
	strbuf_rtrim(&rev);
	test_output_release(&out);
	cr_assert_eq(git_repository_open(&repo, dir), 0);
	cr_assert_eq(git_revparse_single(&blob, repo, rev.buf), 0, "%s",
		     rev.buf);
	cr_assert_eq(result_parse(&r, git_blob_rawcontent((git_blob *)blob),
				  (size_t)git_blob_rawsize((git_blob *)blob),
				  rev.buf),
		     BG_OK);
	git_object_free(blob);
	*strrchr(rev.buf, '/') = '\0';
	for (size_t i = 0; i < r->cases_nr; i++) {
		const char *variant = r->cases[i].variant;
		struct strbuf artifact = STRBUF_INIT;

		cr_assert_eq(r->cases[i].artifacts_nr, 1);
		strbuf_addf(&artifact, "%s/%s", rev.buf,
			    r->cases[i].artifacts[0].path);
		cr_assert_eq(git_revparse_single(&blob, repo, artifact.buf), 0,
			     "'%s' is not on the branch", artifact.buf);
		cr_assert_eq(git_blob_rawsize((git_blob *)blob),
			     strlen(variant));
		cr_assert_eq(memcmp(git_blob_rawcontent((git_blob *)blob),
				    variant, strlen(variant)),
			     0);
		git_object_free(blob);
		strbuf_release(&artifact);
	}
	result_free(r);
	git_repository_free(repo);
	strbuf_release(&rev);
	free(shards[0]);
	free(shards[1]);
}

Test(merge, warns_about_files_a_json_copy_cannot_carry)
{
	struct test_output out;

	/* `run --json` copies: their logs are beside the stored shards. */
	RUN(&out, dir, NULL, "merge", "shard-1.json", "shard-2.json", "--store",
	    "merged");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "named by 'shard-1.json'"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "named by 'shard-2.json'"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "not carried"), "%s", out.err.buf);
	test_output_release(&out);
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
				      "'shard-1.json'"),
		  "%s", out.err.buf);
	test_output_release(&out);

	/* Another commit. */
	memcpy(two->git.commit, "0123456789abcdef0123456789abcdef01234567", 41);
	result_to_json(two, &json);
	strbuf_addf(&path, "%s/other-commit.json", dir);
	cr_assert_eq(write_file_atomic(path.buf, json.buf, json.len), 0);
	RUN(&out, dir, NULL, "merge", "shard-1.json", "other-commit.json",
	    "--out", "x.json");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf,
			 "'other-commit.json' has commit "
			 "'0123456789abcdef0123456789abcdef01234567'"),
		  "%s", out.err.buf);
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
