/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/attribution.h"
#include "harness/gate/history.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Histories are made by hand here (commits, series, their points and
 * change points as history_build() would leave them), so each test states
 * exactly which ranges the change points have; attribution_group() must
 * make one incident per cause.
 */

#define COMMITS 40

static struct history h;

static void setup(void)
{
	memset(&h, 0, sizeof(h));
	h.commits = calloc(COMMITS, sizeof(*h.commits));
	h.commits_nr = h.commits_alloc = COMMITS;
	for (size_t i = 0; i < COMMITS; i++)
		snprintf(h.commits[i].commit, sizeof(h.commits[i].commit),
			 "%040zx", i + 1);
}

static void teardown(void)
{
	history_release(&h);
}

TestSuite(attribution, .init = setup, .fini = teardown);

/* A series measured at the commits in `measured` (ascending, ended by
 * -1), with a change point at each measured commit in `changes` (ended by
 * -1), regressions unless `improves`. */
static struct history_series *add_series(const char *benchmark,
					 const char *metric,
					 const int *measured,
					 const int *changes, bool improves)
{
	struct history_series *s;

	h.series = realloc(h.series, (h.series_nr + 1) * sizeof(*h.series));
	s = &h.series[h.series_nr++];
	memset(s, 0, sizeof(*s));
	s->suite = strdup("s");
	s->benchmark = strdup(benchmark);
	s->variant = strdup("original");
	s->device = strdup("cpu");
	s->machine = strdup("m1");
	s->metric = strdup(metric);
	for (size_t i = 0; measured[i] >= 0; i++) {
		s->points = realloc(s->points,
				    (s->points_nr + 1) * sizeof(*s->points));
		s->points[s->points_nr++] = (struct history_point){
			.commit = (size_t)measured[i], .n = 5, .median = 1
		};
	}
	for (size_t c = 0; changes[c] >= 0; c++) {
		size_t index = 0;

		while (s->points[index].commit != (size_t)changes[c])
			index++;
		cr_assert(index > 0);
		s->changes = realloc(s->changes, (s->changes_nr + 1) *
							 sizeof(*s->changes));
		s->changes[s->changes_nr++] = (struct history_change){
			.at = { .index = index, .change = improves ? -0.1 : 0.1 },
			.regression = !improves,
			.range_first = s->points[index - 1].commit + 1,
		};
	}
	return s;
}

static const int every[] = { 0,	 1,  2,	 3,  4,	 5,  6,	 7,  8,	 9,
			     10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
			     20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
			     30, 31, 32, 33, 34, 35, 36, 37, 38, 39, -1 };

Test(attribution, forty_series_moving_at_one_commit_are_one_incident)
{
	char name[16];

	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "b%02d", i);
		add_series(name, "latency", every, (int[]){ 17, -1 }, false);
	}
	attribution_group(&h);
	cr_assert_eq(h.incidents_nr, 1, "one regression, not forty alerts");
	cr_assert_eq(h.incidents[0].range_first, 17);
	cr_assert_eq(h.incidents[0].range_last, 17);
	cr_assert_eq(h.incidents[0].moves_nr, 40);
	cr_assert_eq(h.incidents[0].regressions, 40);
	for (size_t i = 0; i < 40; i++) {
		cr_assert_eq(h.incidents[0].moves[i].series, i,
			     "moves in series order");
		cr_assert_eq(h.series[i].changes[0].incident, 0);
	}
}

Test(attribution, a_sparse_series_joins_and_a_dense_one_narrows_the_range)
{
	static const int sparse[] = { 0, 5, 10, 15, 20, 25, 30, -1 };

	add_series("dense", "latency", every, (int[]){ 13, -1 }, false);
	add_series("sparse", "latency", sparse, (int[]){ 15, -1 }, false);
	attribution_group(&h);
	cr_assert_eq(h.incidents_nr, 1);
	cr_assert_eq(h.incidents[0].range_first, 13,
		     "11..15 met 13..13: the commits both hold");
	cr_assert_eq(h.incidents[0].range_last, 13);
	cr_assert_eq(h.incidents[0].moves_nr, 2);
}

Test(attribution, sparse_series_alone_leave_the_common_range_to_bisect)
{
	static const int odd[] = { 1, 5, 9, 13, 17, 21, -1 };
	static const int even[] = { 0, 4, 8, 12, 16, 20, -1 };

	add_series("odd", "latency", odd, (int[]){ 13, -1 }, false);
	add_series("even", "latency", even, (int[]){ 12, -1 }, false);
	attribution_group(&h);
	cr_assert_eq(h.incidents_nr, 1, "10..12 meets 10..13");
	cr_assert_eq(h.incidents[0].range_first, 10);
	cr_assert_eq(h.incidents[0].range_last, 12);
}

Test(attribution, separate_commits_are_separate_incidents_oldest_first)
{
	add_series("a", "latency", every, (int[]){ 8, 30, -1 }, false);
	add_series("b", "latency", every, (int[]){ 30, -1 }, false);
	add_series("c", "latency", every, (int[]){ 9, -1 }, false);
	attribution_group(&h);
	cr_assert_eq(h.incidents_nr, 3,
		     "a commit apart is another cause: only ranges decide");
	cr_assert_eq(h.incidents[0].range_last, 8);
	cr_assert_eq(h.incidents[1].range_last, 9);
	cr_assert_eq(h.incidents[2].range_last, 30);
	cr_assert_eq(h.incidents[2].moves_nr, 2);
	cr_assert_eq(h.series[0].changes[0].incident, 0);
	cr_assert_eq(h.series[0].changes[1].incident, 2);
	cr_assert_eq(h.series[1].changes[0].incident, 2);
	cr_assert_eq(h.series[2].changes[0].incident, 1);
}

Test(attribution, improvements_join_a_regression_but_start_no_incident)
{
	add_series("faster", "latency", every, (int[]){ 20, -1 }, true);
	add_series("slower", "latency", every, (int[]){ 20, -1 }, false);
	add_series("alone", "latency", every, (int[]){ 5, -1 }, true);
	attribution_group(&h);
	cr_assert_eq(h.incidents_nr, 1);
	cr_assert_eq(h.incidents[0].moves_nr, 2);
	cr_assert_eq(h.incidents[0].regressions, 1);
	cr_assert_eq(h.incidents[0].moves[0].series, 1,
		     "the regression is listed first");
	cr_assert(h.incidents[0].moves[0].regression);
	cr_assert_eq(h.series[0].changes[0].incident, 0);
	cr_assert_eq(h.series[2].changes[0].incident, HISTORY_NO_INCIDENT);
}

Test(attribution, grouping_again_replaces_the_incidents)
{
	add_series("a", "latency", every, (int[]){ 20, -1 }, false);
	attribution_group(&h);
	attribution_group(&h);
	cr_assert_eq(h.incidents_nr, 1);
	cr_assert_eq(h.incidents[0].moves_nr, 1);
}

Test(attribution, no_change_points_no_incidents)
{
	add_series("a", "latency", every, (int[]){ -1 }, false);
	attribution_group(&h);
	cr_assert_eq(h.incidents_nr, 0);
}

Test(attribution, authors_are_read_for_the_commits_named)
{
	char *dir = test_tmpdir();
	git_repository *repo = test_git_init(dir);
	git_oid c[3];

	test_git_commit(repo, "refs/heads/main", "one", 0, NULL, &c[0]);
	test_git_commit(repo, "refs/heads/main", "two", 1, &c[0], &c[1]);
	test_git_commit(repo, "refs/heads/main", "three", 1, &c[1], &c[2]);
	for (size_t i = 0; i < 3; i++)
		snprintf(h.commits[i].commit, sizeof(h.commits[i].commit),
			 "%s", test_oid_hex(&c[i], 0));
	add_series("a", "latency", (int[]){ 0, 1, 2, -1 }, (int[]){ 2, -1 },
		   false);
	attribution_group(&h);
	cr_assert_eq(attribution_read_authors(&h, repo), BG_OK);
	cr_assert_str_eq(h.authors[2], "Test <test@example.invalid>",
			 "testutil.c signs every commit so");
	cr_assert_null(h.authors[1], "a commit nothing names");
	/* A commit the repository does not have is an error naming it. */
	snprintf(h.commits[2].commit, sizeof(h.commits[2].commit), "%040d", 7);
	free(h.authors[2]);
	h.authors[2] = NULL;
	cr_assert_eq(attribution_read_authors(&h, repo), BG_ERROR);
	cr_assert(strstr(bg_error_last(), h.commits[2].commit));
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}
