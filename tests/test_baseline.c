/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/baseline.h"
#include "harness/util/error.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Histories are built with libgit2 in a temporary directory; results are
 * written to a store under it for chosen commits, then baseline_resolve()
 * must pick the right one.
 */

static char *dir;
static git_repository *repo;
static struct store *store;

static void setup(void)
{
	char path[4096];

	dir = test_tmpdir();
	repo = test_git_init(dir);
	snprintf(path, sizeof(path), "%s/.benchgate/results", dir);
	cr_assert_eq(store_open(&store, path), BG_OK);
}

static void teardown(void)
{
	store_free(store);
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

TestSuite(baseline, .init = setup, .fini = teardown);

/* Stores a result of suite "s" on machine "m1" at commit, with one case
 * whose latency samples are all `level` (so tests can tell results apart). */
static void store_result_at(const git_oid *commit, double level)
{
	struct result *r = result_new();
	struct metric_samples *m;

	r->suite = strdup("s");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s",
		 test_oid_hex(commit, 3));
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	m = result_case_metric(result_add_case(r, "b", "original", "cpu"),
			       "latency");
	for (int i = 0; i < 5; i++)
		metric_samples_push(m, level + i * 0.01);
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
}

static double resolved_level(const struct baseline *b)
{
	cr_assert_not_null(b->result, "no baseline: %s", b->note);
	return b->result->cases[0].metrics[0].samples[0];
}

static void checkout(const char *branch)
{
	cr_assert_eq(git_repository_set_head(repo, branch), 0);
}

static int resolve(struct baseline *out, const char *spec, const char *branch)
{
	struct baseline_request req = { .spec = spec,
					.branch = branch,
					.start_dir = dir,
					.suite = "s",
					.machine = "m1" };

	return baseline_resolve(out, store, &req);
}

Test(baseline, linear_history_uses_the_nearest_ancestor_with_a_result)
{
	struct baseline b;
	git_oid c[4];

	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &c[0]);
	for (int i = 1; i < 4; i++)
		test_git_commit(repo, "refs/heads/main",
				i == 1	 ? "c1"
				: i == 2 ? "c2"
					 : "c3",
				1, &c[i - 1], &c[i]);
	store_result_at(&c[0], 10);
	store_result_at(&c[1], 11);
	checkout("refs/heads/main");
	cr_assert_eq(resolve(&b, "auto", NULL), BG_OK, "%s", bg_error_last());
	cr_assert_eq(resolved_level(&b), 11, "c1 is the nearest with a result");
	cr_assert_str_eq(b.source, "auto");
	cr_assert(strstr(b.note, "2 first-parent commits below"), "%s", b.note);
	cr_assert_eq(b.history_nr, 2, "both results feed the noise history");
	baseline_release(&b);
}

Test(baseline, a_result_that_measured_nothing_is_passed_over)
{
	struct baseline b;
	struct result *r = result_new();
	git_oid c0, c1;

	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &c0);
	test_git_commit(repo, "refs/heads/main", "c1", 1, &c0, &c1);
	store_result_at(&c0, 10);
	/* c1's run broke: every case failed */
	r->suite = strdup("s");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s",
		 test_oid_hex(&c1, 3));
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	result_case_fail(result_add_case(r, "b", "original", "cpu"),
			 CASE_FAILED, "exited with status 2");
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
	checkout("refs/heads/main");
	cr_assert_eq(resolve(&b, "auto", NULL), BG_OK, "%s", bg_error_last());
	cr_assert_eq(resolved_level(&b), 10, "c0's result, not c1's failed one");
	cr_assert_eq(b.history_nr, 1);
	baseline_release(&b);
}

/* main: base -> main_tip; the branch feature forks at base. */
static void fork_feature_from_main(git_oid *base, git_oid *main_tip)
{
	git_oid feature;

	test_git_commit(repo, "refs/heads/main", "base", 0, NULL, base);
	test_git_commit(repo, "refs/heads/main", "main moves on", 1, base,
			main_tip);
	test_git_commit(repo, "refs/heads/feature", "feature work", 1, base,
			&feature);
}

Test(baseline, pull_request_compares_with_the_merge_base_not_main_tip)
{
	struct baseline b;
	git_oid base, main_tip;

	fork_feature_from_main(&base, &main_tip);
	store_result_at(&base, 10);
	store_result_at(&main_tip, 99);
	checkout("refs/heads/feature");
	cr_assert_eq(resolve(&b, "auto", "main"), BG_OK, "%s", bg_error_last());
	cr_assert_eq(resolved_level(&b), 10,
		     "the merge base's result, not main's newer one");
	cr_assert(strstr(b.note, "merge base with main"), "%s", b.note);
	baseline_release(&b);
}

Test(baseline, walk_follows_first_parents_through_merges)
{
	struct baseline b;
	git_oid root, side, merge, parents[2];

	/* A result only on the merged-in side branch must not be used: it
	 * was never on main's first-parent line. */
	test_git_commit(repo, "refs/heads/main", "root", 0, NULL, &root);
	test_git_commit(repo, "refs/heads/side", "side", 1, &root, &side);
	parents[0] = root;
	parents[1] = side;
	test_git_commit(repo, "refs/heads/main", "merge", 2, parents, &merge);
	store_result_at(&root, 10);
	store_result_at(&side, 55);
	checkout("refs/heads/main");
	cr_assert_eq(resolve(&b, "auto", NULL), BG_OK);
	cr_assert_eq(resolved_level(&b), 10);
	baseline_release(&b);
}

Test(baseline, branch_without_results_has_no_baseline)
{
	struct baseline b;
	git_oid c0;

	test_git_commit(repo, "refs/heads/main", "only", 0, NULL, &c0);
	checkout("refs/heads/main");
	cr_assert_eq(resolve(&b, "auto", NULL), BG_OK);
	cr_assert_null(b.result);
	cr_assert_str_eq(b.source, "none");
	baseline_release(&b);
}

Test(baseline, committed_baseline_is_the_fallback)
{
	struct baseline b;
	char path[4096];
	git_oid c0;

	test_git_commit(repo, "refs/heads/main", "only", 0, NULL, &c0);
	checkout("refs/heads/main");
	/* A result stored elsewhere, then saved as the committed baseline. */
	store_result_at(&c0, 42);
	{
		struct store_entry *entries = NULL;
		struct strbuf saved = STRBUF_INIT;
		size_t nr = 0;

		cr_assert_eq(store_list(store, NULL, &entries, &nr), BG_OK);
		cr_assert_eq(baseline_save(entries[0].path, NULL, dir, false,
					   &saved),
			     BG_OK, "%s", bg_error_last());
		cr_assert_eq(baseline_save(entries[0].path, NULL, dir, false,
					   &saved),
			     BG_EINPUT,
			     "an existing baseline is not replaced silently");
		cr_assert_eq(baseline_save(entries[0].path, NULL, dir, true,
					   &saved),
			     BG_OK);
		store_entries_free(entries, nr);
		strbuf_release(&saved);
	}
	snprintf(path, sizeof(path), "%s/.benchgate", dir);
	test_rmtree(path);
	cr_assert_eq(resolve(&b, "auto", NULL), BG_OK);
	cr_assert_str_eq(b.source, "baselines");
	cr_assert_eq(resolved_level(&b), 42);
	baseline_release(&b);
}

Test(baseline, explicit_ref_and_file)
{
	struct baseline b;
	struct store_entry *entries = NULL;
	size_t nr = 0;
	git_oid c0, c1;

	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &c0);
	test_git_commit(repo, "refs/heads/main", "c1", 1, &c0, &c1);
	store_result_at(&c0, 7);
	checkout("refs/heads/main");
	cr_assert_eq(resolve(&b, "main~1", NULL), BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(b.source, "ref");
	cr_assert_eq(resolved_level(&b), 7);
	baseline_release(&b);

	cr_assert_eq(store_list(store, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(resolve(&b, entries[0].path, NULL), BG_OK);
	cr_assert_str_eq(b.source, "file");
	baseline_release(&b);
	store_entries_free(entries, nr);

	cr_assert_eq(resolve(&b, "no-such-rev", NULL), BG_EINPUT);
	cr_assert(strstr(bg_error_last(),
			 "neither a result file nor a revision"));
	baseline_release(&b);
}

Test(baseline, shallow_clone_ends_the_walk_without_failing)
{
	struct baseline b;
	char path[4096], hex[GIT_OID_HEXSZ + 1];
	git_oid c0, c1, c2;

	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &c0);
	test_git_commit(repo, "refs/heads/main", "c1", 1, &c0, &c1);
	test_git_commit(repo, "refs/heads/main", "c2", 1, &c1, &c2);
	store_result_at(&c2, 5);
	checkout("refs/heads/main");
	/* As a depth-1 CI checkout: c2 is a shallow root, its parents are
	 * not in the object database. */
	git_oid_tostr(hex, sizeof(hex), &c2);
	snprintf(path, sizeof(path), "%s/.git/shallow", dir);
	{
		FILE *f = fopen(path, "w");

		cr_assert_not_null(f);
		fprintf(f, "%s\n", hex);
		fclose(f);
	}
	git_repository_free(repo);
	repo = NULL;
	cr_assert_eq(git_repository_open(&repo, dir), 0);
	cr_assert_eq(resolve(&b, "auto", NULL), BG_OK, "%s", bg_error_last());
	cr_assert_eq(resolved_level(&b), 5);
	baseline_release(&b);
}

Test(baseline, historical_noise_needs_five_results)
{
	struct baseline b;
	git_oid c[6];

	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &c[0]);
	store_result_at(&c[0], 10);
	for (int i = 1; i < 6; i++) {
		char message[8];

		snprintf(message, sizeof(message), "c%d", i);
		test_git_commit(repo, "refs/heads/main", message, 1, &c[i - 1],
				&c[i]);
		store_result_at(&c[i], i % 2 ? 10.4 : 9.6);
	}
	checkout("refs/heads/main");
	cr_assert_eq(resolve(&b, "auto", NULL), BG_OK);
	cr_assert_eq(b.history_nr, 6);
	cr_assert_gt(baseline_noise("b", "original", "cpu", "latency", &b),
		     0.02);
	cr_assert_eq(baseline_noise("b", "original", "cpu", "nope", &b), 0);
	baseline_release(&b);
}

Test(baseline, a_compare_side_describes_this_machine_only_for_a_revision)
{
	struct strbuf file = STRBUF_INIT;
	struct store_query q = { .machine = "m1", .suite = "s" };
	struct result *stored = NULL;
	struct baseline b;
	git_oid c0;

	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &c0);
	checkout("refs/heads/main");
	store_result_at(&c0, 10);
	cr_assert_eq(store_latest(store, &q, &stored, &file), BG_OK);
	cr_assert_eq(chdir(dir), 0);
	/* an id that cannot name a store directory: describing fails */
	setenv("BENCHGATE_MACHINE_ID", "../bad", 1);
	cr_assert_eq(baseline_resolve_side(&b, store, file.buf, "BASE", NULL), BG_OK,
		     "%s", bg_error_last());
	cr_assert_str_eq(b.source, "file");
	baseline_release(&b);
	cr_assert_eq(baseline_resolve_side(&b, store, "main", "BASE", "s"), BG_EINPUT,
		     "a revision is looked up by this machine's id");
	baseline_release(&b);

	setenv("BENCHGATE_MACHINE_ID", "m1", 1);
	cr_assert_eq(baseline_resolve_side(&b, store, "main", "BASE", "s"), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(b.source, "ref");
	cr_assert_eq(resolved_level(&b), 10);
	baseline_release(&b);
	cr_assert_eq(baseline_resolve_side(&b, store, "main", "BASE", NULL), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "give --suite"), "%s",
		  bg_error_last());
	baseline_release(&b);
	result_free(stored);
	strbuf_release(&file);
}
