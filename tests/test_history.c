/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/history.h"
#include "harness/util/error.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Histories are built with libgit2 in a temporary directory (first-parent
 * lines, side branches merged in), results written to a store under it at
 * chosen commits, then history_build() must give each series its points
 * in order, its gaps, and the newest result of a commit.
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

TestSuite(history, .init = setup, .fini = teardown);

/* What one stored result holds: a case and its latency around `level`. */
struct stored {
	const char *suite, *machine, *benchmark, *variant;
	const char *started_at; /* orders results of one commit */
	double level;
	bool more_cases; /* also other/original at level + 1 and
			  * b/pruned at level + 2 */
	double busy;	 /* cores busy meanwhile; 0: load not observed */
};

static void add_case(struct result *r, const char *benchmark,
		     const char *variant, double level)
{
	struct result_case *c = result_add_case(r, benchmark, variant, "cpu");
	struct metric_samples *latency = result_case_metric(c, "latency");
	struct metric_samples *throughput = result_case_metric(c, "throughput");

	latency->unit = strdup("ms");
	throughput->better = BETTER_HIGHER;
	for (int i = 0; i < 5; i++) {
		metric_samples_push(latency, level + i * 0.01);
		metric_samples_push(throughput, 1000 / level);
	}
}

/* Stores a result at commit: latency (ms, lower is better) samples
 * level, level + 0.01, ..., and throughput (higher is better) 1000 /
 * level, 5 of each. */
static void store_at(const git_oid *commit, struct stored s)
{
	struct result *r = result_new();

	r->suite = strdup(s.suite ? s.suite : "s");
	r->started_at =
		strdup(s.started_at ? s.started_at : "2026-01-01T00:00:00Z");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s",
		 test_oid_hex(commit, 3));
	snprintf(r->machine.id, sizeof(r->machine.id), "%s",
		 s.machine ? s.machine : "m1");
	r->load.observed = s.busy > 0;
	r->load.cpu_busy = s.busy;
	add_case(r, s.benchmark ? s.benchmark : "b",
		 s.variant ? s.variant : "original", s.level);
	if (s.more_cases) {
		add_case(r, "other", "original", s.level + 1);
		add_case(r, "b", "pruned", s.level + 2);
	}
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
}

/* A line of n commits on main, c[0] the root, each message "cI". */
static void line(git_oid *c, size_t n)
{
	char message[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(message, sizeof(message), "c%zu", i);
		test_git_commit(repo, "refs/heads/main", message, i ? 1 : 0,
				i ? &c[i - 1] : NULL, &c[i]);
	}
}

static int build(struct history *h, struct history_request req)
{
	memset(h, 0, sizeof(*h));
	req.start_dir = dir;
	return history_build(h, store, &req);
}

static const struct history_series *find(const struct history *h,
					 const char *machine,
					 const char *variant,
					 const char *metric)
{
	for (size_t i = 0; i < h->series_nr; i++)
		if (!strcmp(h->series[i].machine, machine) &&
		    !strcmp(h->series[i].variant, variant) &&
		    !strcmp(h->series[i].metric, metric))
			return &h->series[i];
	cr_assert_fail("no series %s %s %s", machine, variant, metric);
	return NULL;
}

static const char *point_commit(const struct history *h,
				const struct history_series *s, size_t i)
{
	return h->commits[s->points[i].commit].commit;
}

Test(history, first_parents_oldest_first_with_gaps_and_no_side_branch)
{
	struct history h;
	const struct history_series *s;
	git_oid c0, c1, side, merge, c3, parents[2];

	/* main: c0 - c1 - merge(c1, side) - c3; side forks at c1. */
	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &c0);
	test_git_commit(repo, "refs/heads/main", "c1", 1, &c0, &c1);
	test_git_commit(repo, "refs/heads/side", "side work", 1, &c1, &side);
	parents[0] = c1;
	parents[1] = side;
	test_git_commit(repo, "refs/heads/main", "merge side", 2, parents,
			&merge);
	test_git_commit(repo, "refs/heads/main", "c3", 1, &merge, &c3);
	store_at(&c0, (struct stored){ .level = 10 });
	store_at(&side, (struct stored){ .level = 99 });
	store_at(&merge, (struct stored){ .level = 11 });
	store_at(&c3, (struct stored){ .level = 12 });

	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(h.branch, "main");
	cr_assert_eq(h.commits_nr, 4, "the side commit is no first parent");
	cr_assert_str_eq(h.commits[0].commit, test_oid_hex(&c0, 0));
	cr_assert_str_eq(h.commits[2].subject, "merge side");
	cr_assert_str_eq(h.commits[3].commit_time, "2026-01-01T00:00:00+00:00",
			 "testutil's fixed commit time, as git log %%cI");
	cr_assert_eq(h.series_nr, 2, "latency and throughput");
	s = find(&h, "m1", "original", "latency");
	cr_assert_str_eq(s->unit, "ms");
	cr_assert_eq(s->better, BETTER_LOWER);
	cr_assert_eq(s->points_nr, 3, "c1 is a gap, the side's 99 not seen");
	cr_assert_eq(s->points[0].commit, 0);
	cr_assert_eq(s->points[1].commit, 2);
	cr_assert_eq(s->points[2].commit, 3);
	/* median of 10.00 .. 10.04 */
	cr_assert_float_eq(s->points[0].median, 10.02, 1e-12);
	cr_assert_float_eq(s->points[1].median, 11.02, 1e-12);
	cr_assert_eq(s->points[2].n, 5);
	cr_assert(s->points[0].ci_low <= 10.02 &&
		  s->points[0].ci_high >= 10.02);
	cr_assert(s->points[0].ci_low >= 10.0 && s->points[0].ci_high <= 10.04);
	cr_assert_eq(find(&h, "m1", "original", "throughput")->better,
		     BETTER_HIGHER);
	history_release(&h);
}

Test(history, newest_result_of_a_commit_and_machine_counts)
{
	struct history h;
	git_oid c[2];

	line(c, 2);
	store_at(&c[1], (struct stored){
				.level = 20,
				.started_at = "2026-01-01T00:00:09Z",
			});
	store_at(&c[1], (struct stored){
				.level = 30,
				.started_at = "2026-01-01T00:00:05Z",
			});
	store_at(&c[1], (struct stored){ .level = 40, .machine = "m2" });
	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(h.series_nr, 4, "two machines, two metrics");
	cr_assert_eq(find(&h, "m1", "original", "latency")->points_nr, 1);
	cr_assert_float_eq(
		find(&h, "m1", "original", "latency")->points[0].median, 20.02,
		1e-12, "the result started last, not the one stored last");
	cr_assert_float_eq(
		find(&h, "m2", "original", "latency")->points[0].median, 40.02,
		1e-12);
	history_release(&h);
}

/* Issue 27: bisect's results for one variant became the newest result of
 * a commit and the other variants' points vanished from the history. Each
 * case takes its point from the newest result that measured it. */
Test(history, a_rerun_of_one_case_does_not_hide_the_others)
{
	struct history h;
	git_oid c[2];

	line(c, 2);
	store_at(&c[1], (struct stored){
				.level = 20,
				.started_at = "2026-01-01T00:00:01Z",
				.more_cases = true,
			});
	store_at(&c[1], (struct stored){
				.level = 50,
				.variant = "pruned",
				.started_at = "2026-01-01T00:00:09Z",
			});
	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(h.series_nr, 6, "three cases, two metrics");
	cr_assert_eq(find(&h, "m1", "pruned", "latency")->points_nr, 1);
	cr_assert_float_eq(
		find(&h, "m1", "pruned", "latency")->points[0].median, 50.02,
		1e-12, "the rerun's point, the newer");
	for (size_t i = 0; i < h.series_nr; i++)
		if (!strcmp(h.series[i].variant, "original"))
			cr_assert_eq(h.series[i].points_nr, 1, "%s %s",
				     h.series[i].benchmark, h.series[i].metric);
	history_release(&h);
}

Test(history, a_corrupt_newest_result_gives_way_to_the_one_before)
{
	struct store_entry *entries = NULL;
	struct history h;
	size_t nr = 0;
	git_oid c[1];
	FILE *f;

	line(c, 1);
	store_at(&c[0], (struct stored){
				.level = 20,
				.started_at = "2026-01-01T00:00:01Z",
			});
	store_at(&c[0], (struct stored){
				.level = 30,
				.started_at = "2026-01-01T00:00:02Z",
			});
	cr_assert_eq(store_list(store, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 2);
	f = fopen(entries[1].path, "w");
	cr_assert_not_null(f);
	fputs("{\"benchgate_result\": 1,", f);
	fclose(f);
	store_entries_free(entries, nr);
	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK);
	cr_assert_float_eq(
		find(&h, "m1", "original", "latency")->points[0].median, 20.02,
		1e-12);
	history_release(&h);
}

Test(history, filters_select_series)
{
	struct history h;
	git_oid c[1];

	line(c, 1);
	/* Cases b/original at 1, other/original at 2, b/pruned at 3. */
	store_at(&c[0], (struct stored){ .level = 1, .more_cases = true });
	store_at(&c[0], (struct stored){ .level = 7, .machine = "m2" });
	store_at(&c[0], (struct stored){ .level = 9, .suite = "t" });

	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK);
	cr_assert_eq(h.series_nr, 10, "5 cases x 2 metrics");
	/* Ordered by suite, machine, benchmark, variant, device, metric. */
	cr_assert_str_eq(h.series[0].suite, "s");
	cr_assert_str_eq(h.series[0].benchmark, "b");
	cr_assert_str_eq(h.series[0].metric, "latency");
	cr_assert_str_eq(h.series[9].suite, "t");
	history_release(&h);

	cr_assert_eq(build(&h, (struct history_request){ .machine = "m2" }),
		     BG_OK);
	cr_assert_eq(h.series_nr, 2);
	cr_assert_float_eq(h.series[0].points[0].median, 7.02, 1e-12);
	history_release(&h);

	cr_assert_eq(build(&h, (struct history_request){ .suite = "t",
							 .metric = "latency" }),
		     BG_OK);
	cr_assert_eq(h.series_nr, 1);
	cr_assert_float_eq(h.series[0].points[0].median, 9.02, 1e-12);
	history_release(&h);

	cr_assert_eq(build(&h, (struct history_request){ .benchmark = "other",
							 .device = "cpu" }),
		     BG_OK);
	cr_assert_eq(h.series_nr, 2);
	cr_assert_float_eq(h.series[0].points[0].median, 2.02, 1e-12);
	history_release(&h);

	cr_assert_eq(build(&h, (struct history_request){ .variant = "pruned",
							 .metric = "latency" }),
		     BG_OK);
	cr_assert_eq(h.series_nr, 1);
	cr_assert_float_eq(h.series[0].points[0].median, 3.02, 1e-12);
	history_release(&h);

	cr_assert_eq(build(&h, (struct history_request){ .device = "gpu" }),
		     BG_OK);
	cr_assert_eq(h.series_nr, 0);
	cr_assert_eq(h.commits_nr, 1, "the walk is the same without results");
	history_release(&h);
}

Test(history, since_a_revision_or_a_date)
{
	struct history h;
	git_oid c[4], side;

	line(c, 4);
	test_git_commit(repo, "refs/heads/side", "side", 1, &c[1], &side);
	for (size_t i = 0; i < 4; i++)
		store_at(&c[i], (struct stored){ .level = 10 + (double)i });

	cr_assert_eq(build(&h, (struct history_request){ .since = test_oid_hex(
								 &c[2], 0) }),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(h.commits_nr, 2, "c2 included, c3 after it");
	cr_assert_str_eq(h.commits[0].subject, "c2");
	cr_assert_eq(h.series[0].points_nr, 2);
	history_release(&h);

	/* testutil commits at 2026-01-01T00:00:00Z. */
	cr_assert_eq(build(&h,
			   (struct history_request){ .since = "2025-12-31" }),
		     BG_OK);
	cr_assert_eq(h.commits_nr, 4);
	history_release(&h);
	cr_assert_eq(build(&h,
			   (struct history_request){
				   .since = "2026-01-01T00:00:01Z" }),
		     BG_OK);
	cr_assert_eq(h.commits_nr, 0);
	cr_assert_eq(h.series_nr, 0);
	history_release(&h);

	cr_assert_eq(build(&h,
			   (struct history_request){ .since = "2026-13-01" }),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "--since: '2026-13-01' is not a "
					  "valid date"),
		  "%s", bg_error_last());
	history_release(&h);
	cr_assert_eq(build(&h,
			   (struct history_request){ .since = "yesterday" }),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "neither a date"), "%s",
		  bg_error_last());
	history_release(&h);
	cr_assert_eq(build(&h, (struct history_request){ .since = "side" }),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "not on the first-parent history "
					  "of main"),
		  "%s", bg_error_last());
	history_release(&h);
}

Test(history, branches_named_defaulted_and_unknown)
{
	struct history h;
	git_oid c[2], other;

	line(c, 2);
	test_git_commit(repo, "refs/heads/other", "other", 1, &c[0], &other);
	store_at(&other, (struct stored){ .level = 7 });

	cr_assert_eq(build(&h, (struct history_request){ .branch = "other" }),
		     BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(h.branch, "other");
	cr_assert_eq(h.commits_nr, 2);
	cr_assert_eq(h.series_nr, 2);
	history_release(&h);

	cr_assert_eq(build(&h, (struct history_request){ .branch = "nope" }),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "--branch: no branch 'nope'"), "%s",
		  bg_error_last());
	history_release(&h);
}

Test(history, without_a_default_branch_head_is_walked)
{
	struct history h;
	git_oid c0;

	test_git_commit(repo, "refs/heads/trunk", "t0", 0, NULL, &c0);
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/trunk"), 0);
	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(h.branch, "HEAD");
	cr_assert_eq(h.commits_nr, 1);
	history_release(&h);
}

Test(history, outside_a_repository_is_an_input_error)
{
	struct history h = { 0 };
	char *elsewhere = test_tmpdir();
	struct history_request req = { .start_dir = elsewhere };

	cr_assert_eq(history_build(&h, store, &req), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "not in a git repository"), "%s",
		  bg_error_last());
	history_release(&h);
	test_rmtree(elsewhere);
	free(elsewhere);
}

/* A commit's level moved by -0.6 % to +0.6 % (a fixed pattern of period
 * 5): real histories wander from commit to commit by more than one
 * commit's runs spread, and a detector may rely on that. */
static double wobble(size_t i)
{
	return 1 + 0.003 * (double)((int)(i * 7 % 5) - 2);
}

/*
 * A planted step: twelve commits at 10 ms, then twelve at 12 ms (+20 %,
 * far beyond the 0.01 ms spread of each point's samples and the 0.6 %
 * wobble of the levels), with two unmeasured commits just before the
 * step. Any detector meeting
 * changepoint.h's contract finds the step at the first point of 12 ms;
 * its direction and bisect range are history's.
 */
Test(history, a_planted_step_is_a_change_point_with_its_range)
{
	git_oid c[26];
	struct history h;
	const struct history_series *latency, *throughput;
	const struct history_change *change;

	line(c, 26);
	for (size_t i = 0; i < 26; i++) {
		if (i == 12 || i == 13)
			continue; /* the gap: commits c12 and c13 */
		store_at(&c[i], (struct stored){
					.level = (i < 12 ? 10 : 12) * wobble(i),
				});
	}
	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK);
	latency = find(&h, "m1", "original", "latency");
	cr_assert_eq(latency->points_nr, 24);
	cr_assert_eq(latency->changes_nr, 1);
	change = &latency->changes[0];
	cr_assert_eq(change->at.index, 12, "the first point at 12 ms");
	cr_assert_str_eq(point_commit(&h, latency, 12),
			 test_oid_hex(&c[14], 0));
	cr_assert(change->regression, "slower latency is worse");
	cr_assert_float_eq(change->at.change, 12.02 / 10.02 - 1, 0.02);
	cr_assert_str_eq(h.commits[change->range_first].commit,
			 test_oid_hex(&c[12], 0),
			 "from the first unmeasured commit");

	throughput = find(&h, "m1", "original", "throughput");
	cr_assert_eq(throughput->changes_nr, 1);
	cr_assert(throughput->changes[0].regression,
		  "less throughput is worse");
	history_release(&h);
}

/*
 * A load burst: four nights in a row measured while other processes kept
 * two cores busy, and 40 % slower for it, in a history otherwise at
 * 10 ms. Weighted by their load, those nights barely count, so no change
 * point comes of them: neither when the history is built from the
 * results (no index yet) nor from the index written then, which carries
 * each result's load. The other nights had 5 % of a core busy, every
 * machine's background: a quiet night, weighted in full (without the
 * weights, the burst reads as a regression fixed four commits later).
 */
Test(history, a_load_burst_is_weighted_down_with_and_without_the_index)
{
	char index_path[4096];
	git_oid c[30];
	struct history h;
	const struct history_series *latency;

	line(c, 30);
	for (size_t i = 0; i < 30; i++) {
		bool burst = i >= 12 && i < 16;

		store_at(&c[i], (struct stored){
					.level = (burst ? 14 : 10) * wobble(i),
					.busy = burst ? 2 : 0.05,
				});
	}
	snprintf(index_path, sizeof(index_path),
		 "%s/.benchgate/results/.history-index", dir);
	cr_assert(access(index_path, F_OK) < 0, "no index before the first");
	for (int from_index = 0; from_index < 2; from_index++) {
		cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK);
		cr_assert_eq(access(index_path, F_OK), 0, "the index is saved");
		latency = find(&h, "m1", "original", "latency");
		cr_assert_eq(latency->points_nr, 30);
		cr_assert_float_eq(latency->points[13].busy, 2, 1e-9,
				   "the burst's load, %s",
				   from_index ? "from the index" : "read");
		cr_assert_float_eq(latency->points[3].busy, 0.05, 1e-9);
		cr_assert_eq(latency->changes_nr, 0,
			     "the burst is no change point (%s): %zu found",
			     from_index ? "from the index"
					: "from the results",
			     latency->changes_nr);
		history_release(&h);
	}
}

Test(history, an_improvement_is_no_regression)
{
	git_oid c[24];
	struct history h;
	const struct history_series *latency;

	line(c, 24);
	for (size_t i = 0; i < 24; i++)
		store_at(&c[i], (struct stored){
					.level = (i < 12 ? 12 : 10) * wobble(i),
				});
	cr_assert_eq(build(&h, (struct history_request){ 0 }), BG_OK);
	latency = find(&h, "m1", "original", "latency");
	cr_assert_eq(latency->changes_nr, 1);
	cr_assert_eq(latency->changes[0].at.index, 12);
	cr_assert_not(latency->changes[0].regression);
	cr_assert_eq(latency->changes[0].range_first,
		     latency->points[12].commit, "no commit in between");
	cr_assert_not(
		find(&h, "m1", "original", "throughput")->changes[0].regression);
	history_release(&h);
}
