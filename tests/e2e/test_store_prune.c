/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate store prune` and `benchgate store compact`
 * (maintain.h) on directory and git:BRANCH stores: a dry run changes
 * nothing and says what a real run then does; results not selected stay
 * byte for byte; tagged commits are kept; links are removed, never
 * followed; a git store's prune is one commit, --squash leaves one
 * commit; and a change far beyond the noise is still a regression after
 * both sides were compacted.
 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/isotime.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN(out, ...)                          \
	test_benchgate((out), repo_dir.buf, NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

#define MACHINE "0123456789abcdef"
#define OLD "2026-01-01T00:00:00Z"

static char *dir;
static struct strbuf repo_dir = STRBUF_INIT;
static git_repository *repo;
static git_oid commits[2];

/* A repository with two commits on main, the first tagged v1. */
static void setup(void)
{
	git_object *target = NULL;
	git_oid tag;

	dir = test_tmpdir();
	git_libgit2_init();
	strbuf_addf(&repo_dir, "%s/repo", dir);
	repo = test_git_init(repo_dir.buf);
	test_git_commit(repo, "refs/heads/main", "one", 0, NULL, &commits[0]);
	test_git_commit(repo, "refs/heads/main", "two", 1, &commits[0],
			&commits[1]);
	cr_assert_eq(git_object_lookup(&target, repo, &commits[0],
				       GIT_OBJECT_COMMIT),
		     0);
	cr_assert_eq(git_tag_create_lightweight(&tag, repo, "v1", target, 0),
		     0);
	git_object_free(target);
}

static void teardown(void)
{
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
	strbuf_release(&repo_dir);
	git_libgit2_shutdown();
}

TestSuite(store_prune, .init = setup, .fini = teardown, .timeout = 300);

/* Stores a result of suite "s" at commits[c] started at `started` (NULL:
 * now) whose latency has `runs` runs of `per_run` samples around
 * `level`, deterministic noise of +-1 %. */
static void store_result(const char *spec, int c, const char *started,
			 double level, size_t runs, size_t per_run)
{
	struct strbuf now = STRBUF_INIT;
	struct store *store = NULL;
	struct result *r = result_new();
	struct metric_samples *m;
	unsigned state = 12345u + (unsigned)c;

	cr_assert_eq(chdir(repo_dir.buf), 0);
	cr_assert_eq(store_open(&store, spec), 0, "%s", bg_error_last());
	iso8601_now(&now);
	r->suite = xstrdup("s");
	r->started_at = xstrdup(started ? started : now.buf);
	git_oid_tostr(r->git.commit, sizeof(r->git.commit), &commits[c]);
	snprintf(r->machine.id, sizeof(r->machine.id), "%s", MACHINE);
	m = result_case_metric(result_add_case(r, "b", "original", "cpu"),
			       "latency");
	m->runs = runs;
	for (size_t k = 0; k < runs * per_run; k++) {
		state = state * 1103515245u + 12345u;
		metric_samples_push(m, level * (0.99 + 0.02 * (state >> 16) /
							       65536.0));
	}
	cr_assert_eq(store_write(store, r, NULL, NULL), 0, "%s",
		     bg_error_last());
	result_free(r);
	store_free(store);
	strbuf_release(&now);
}

/* The listing of a directory below the repository, sorted, with sizes. */
static char *tree_of(const char *rel)
{
	struct test_output out;
	const char *argv[] = { "/bin/sh", "-c",
			       "find \"$0\" -printf '%s %p %l\\n' | sort", rel,
			       NULL };
	char *listing;

	test_run(&out, repo_dir.buf, NULL, argv);
	listing = strbuf_detach(&out.out, NULL);
	test_output_release(&out);
	return listing;
}

static size_t count_in(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

Test(store_prune, dry_run_changes_nothing_and_names_what_the_real_run_removes)
{
	struct test_output out;
	char *before, *after;

	store_result("d", 0, OLD, 10, 1, 5);  /* old, tagged v1 */
	store_result("d", 1, OLD, 10, 1, 5);  /* old */
	store_result("d", 1, NULL, 10, 1, 5); /* today */
	test_shell(repo_dir.buf,
		   "echo secret > outside\n"
		   "for m in d/*/*/" MACHINE "; do\n"
		   "  l=$m/logs/s-20260101T000000Z; mkdir -p $l\n"
		   "  echo log > $l/b.log; ln -s ../../../../../../outside "
		   "$l/link\n"
		   "done\n");
	before = tree_of("d");

	RUN(&out, "store", "prune", "--store", "d", "--older-than", "30d",
	    "--keep-tagged", "--dry-run");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert_eq(count_in(out.out.buf, "would remove "), 2, "%s",
		     out.out.buf);
	cr_assert(strstr(out.out.buf, test_oid_hex(&commits[1], 0)), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "would remove 1 of 3 results (1 kept "
				      "as tagged)"),
		  "%s", out.out.buf);
	after = tree_of("d");
	cr_assert_str_eq(after, before, "a dry run changed the store");
	free(after);
	test_output_release(&out);

	RUN(&out, "store", "prune", "--store", "d", "--older-than", "30d",
	    "--keep-tagged");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "removed 1 of 3 results"), "%s",
		  out.out.buf);
	test_output_release(&out);
	/* the old result of the untagged commit is gone with its logs (the
	 * link removed, not followed); the tagged one and today's stay */
	test_shell(repo_dir.buf,
		   "test \"$(cat outside)\" = secret\n"
		   "c0=$(git rev-parse v1) c1=$(git rev-parse main)\n"
		   "test -f d/*/$c0/" MACHINE "/s-20260101T000000Z.json\n"
		   "test -f d/*/$c0/" MACHINE "/logs/s-20260101T000000Z/b.log\n"
		   "test ! -e d/*/$c1/" MACHINE "/s-20260101T000000Z.json\n"
		   "test ! -e d/*/$c1/" MACHINE "/logs/s-20260101T000000Z\n"
		   "test $(ls d/*/$c1/" MACHINE "/*.json | wc -l) = 1\n");
	free(before);
}

Test(store_prune, git_prune_is_one_commit_and_squash_leaves_one)
{
	struct test_output out;

	store_result("git:results", 0, OLD, 10, 1, 5);
	store_result("git:results", 1, OLD, 10, 1, 5);
	store_result("git:results", 1, NULL, 10, 1, 5);
	RUN(&out, "store", "prune", "--store", "git:results", "--older-than",
	    "30d");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "removed 2 of 3 results"), "%s",
		  out.out.buf);
	test_output_release(&out);
	test_shell(repo_dir.buf,
		   "test $(git rev-list --count results) = 4\n"
		   "git log -1 --format=%s results | grep -q 'store prune: 2 "
		   "results'\n"
		   "test $(git ls-tree -r --name-only results | wc -l) = 1\n"
		   "git ls-tree -r --name-only results~1 | grep -c json | "
		   "grep -qx 3\n");

	RUN(&out, "store", "prune", "--store", "git:results", "--older-than",
	    "30d", "--squash");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	test_shell(repo_dir.buf,
		   "test $(git rev-list --count results) = 1\n"
		   "test $(git ls-tree -r --name-only results | wc -l) = 1\n");

	RUN(&out, "store", "prune", "--store", "d", "--older-than", "1d",
	    "--squash");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "no history to squash"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, "store", "prune", "--store", "d", "--older-than", "soon");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--older-than: expected an age"), "%s",
		  out.err.buf);
	test_output_release(&out);
}

/* `compare --json -` of the stored results of commits[0] (the baseline)
 * and commits[1]: its exit status, the document in json. */
static int compare_stored(const char *spec, struct strbuf *json)
{
	struct store_entry *entries = NULL;
	struct store *store = NULL;
	struct test_output out;
	const char *paths[2] = { NULL, NULL };
	size_t nr = 0;
	int status;

	cr_assert_eq(chdir(repo_dir.buf), 0);
	cr_assert_eq(store_open(&store, spec), 0);
	cr_assert_eq(store_list(store, NULL, &entries, &nr), 0);
	cr_assert_eq(nr, 2);
	for (size_t i = 0; i < nr; i++)
		paths[strcmp(entries[i].commit, test_oid_hex(&commits[0], 0))
			      ? 1
			      : 0] = entries[i].path;
	cr_assert(paths[0] && paths[1]);
	RUN(&out, "compare", paths[0], paths[1], "--json", "-");
	status = out.exit_code;
	strbuf_add(json, out.out.buf, out.out.len);
	test_output_release(&out);
	store_entries_free(entries, nr);
	store_free(store);
	return status;
}

Test(store_prune, compaction_keeps_the_verdict_of_a_change_far_beyond_noise)
{
	struct strbuf json = STRBUF_INIT;
	struct test_output out;
	char *before, *after;

	/* 5 runs of 1000 samples; the candidate 30 % slower, its noise
	 * +-1 %: a regression by any reading */
	store_result("d", 0, OLD, 10, 5, 1000);
	store_result("d", 1, OLD, 13, 5, 1000);
	cr_assert_eq(compare_stored("d", &json), 1, "%s", json.buf);
	strbuf_reset(&json);

	before = tree_of("d");
	RUN(&out, "store", "compact", "--store", "d", "--samples", "20",
	    "--dry-run");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert_eq(count_in(out.out.buf, "would compact "), 3, "%s",
		     out.out.buf);
	test_output_release(&out);
	after = tree_of("d");
	cr_assert_str_eq(after, before, "a dry run changed the store");
	free(after);

	RUN(&out, "store", "compact", "--store", "d", "--samples", "20");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "compacted 2 of 2 results"), "%s",
		  out.out.buf);
	test_output_release(&out);
	test_shell(repo_dir.buf, "for f in d/*/*/*/*.json; do\n"
				 "  test $(wc -c < $f) -lt 2000\n"
				 "  grep -q 'compacted_from.*5000' $f\n"
				 "done\n");

	cr_assert_eq(compare_stored("d", &json), 1, "%s", json.buf);
	cr_assert(strstr(json.buf, "compacted: the baseline keeps 20 of 5000 "
				   "samples, the candidate keeps 20 of 5000"),
		  "%s", json.buf);
	strbuf_release(&json);
	free(before);
}
