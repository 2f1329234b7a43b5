/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: a nightly job replayed night by night. A real repository
 * (libgit2) gains one commit on main a night; that night's result is
 * written (generated samples, not timings); then `benchgate history
 * --alert --published site` and `benchgate publish --out site` run, as a
 * nightly CI job runs them. The history has a planted staircase (+30 % at
 * STEP1, +30 % at STEP2) and a regression of +40 % from SHORT to FIXED,
 * then fixed. Checked: each planted regression is alerted exactly once,
 * within 5 commits of where it was planted, on some night; nothing else is
 * ever alerted; a night whose publish did not show a regression (published
 * with a filter that leaves its metric out, as if the change point had
 * vanished) does not make it new the night after; the fixed regression is
 * shown resolved in the state file, the --json history and the terminal
 * view.
 */
#include "harness/util/error.h"
#include "harness/model/result.h"
#include "harness/store/store.h"
#include "harness/util/alloc.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NIGHTS 64
#define STEP1  16
#define STEP2  30
#define SHORT  42
#define FIXED  50
/* The night whose publish leaves latency out. */
#define HIDDEN_NIGHT (STEP2 + 8)
#define RUNS	     8

static char *dir;

static void setup(void)
{
	dir = test_tmpdir();
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(nightly_replay, .init = setup, .fini = teardown, .timeout = 600);

static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double normal(uint64_t *state)
{
	double u1 = ((double)(next_random(state) >> 11) + 0.5) / 0x1p53;
	double u2 = ((double)(next_random(state) >> 11) + 0.5) / 0x1p53;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The latency level of commit i, in ms. */
static double level_at(size_t i)
{
	double level = 10;

	if (i >= STEP1)
		level *= 1.3;
	if (i >= STEP2)
		level *= 1.3;
	if (i >= SHORT && i < FIXED)
		level *= 1.4;
	return level;
}

/* Night i's result: RUNS latency samples around level_at(i), 1 % apart
 * from run to run and from night to night, and a throughput that stays. */
static void store_night(struct store *store, const git_oid *commit, size_t i)
{
	uint64_t seed = 1000 + i;
	struct result *r = result_new();
	struct result_case *c = result_add_case(r, "b", "original", "cpu");
	struct metric_samples *latency = result_case_metric(c, "latency");
	struct metric_samples *throughput = result_case_metric(c, "throughput");
	double night = 0.01 * normal(&seed);

	r->suite = xstrdup("s");
	r->started_at = xstrdup("2026-01-01T00:00:00Z");
	git_oid_tostr(r->git.commit, sizeof(r->git.commit), commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "box");
	latency->unit = xstrdup("ms");
	throughput->better = BETTER_HIGHER;
	for (int k = 0; k < RUNS; k++) {
		metric_samples_push(latency, level_at(i) *
						     exp(night + 0.01 * normal(&seed)));
		metric_samples_push(throughput,
				    100 * exp(0.01 * normal(&seed)));
	}
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
}

/* The commit index of a 12-hex prefix the alert names. */
static size_t commit_index(const git_oid *commits, size_t nr, const char *hex)
{
	for (size_t i = 0; i < nr; i++)
		if (!strncmp(test_oid_hex(&commits[i], 0), hex, 12))
			return i;
	cr_assert_fail("the alert names %.12s, no commit of main", hex);
	return 0;
}

#define RUN(out, ...)                    \
	test_benchgate((out), dir, NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

Test(nightly_replay, each_step_is_alerted_once_and_the_fixed_one_resolved)
{
	git_repository *repo = test_git_init(dir);
	git_oid commits[NIGHTS];
	size_t alerted[NIGHTS] = { 0 }, alerts = 0;
	struct store *store = NULL;
	char path[4096], *text;
	cJSON *state, *points, *item, *history;
	bool resolved = false;
	struct test_output out;

	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(store_open(&store, ".benchgate/results"), BG_OK, "%s",
		     bg_error_last());
	for (size_t night = 0; night < NIGHTS; night++) {
		char message[32];
		const char *line;

		snprintf(message, sizeof(message), "c%zu", night);
		test_git_commit(repo, "refs/heads/main", message, night ? 1 : 0,
				night ? &commits[night - 1] : NULL,
				&commits[night]);
		if (!night)
			cr_assert_eq(git_repository_set_head(repo,
							     "refs/heads/main"),
				     0);
		store_night(store, &commits[night], night);

		RUN(&out, "history", "--alert", "--published", "site");
		cr_assert(out.exit_code == 0 || out.exit_code == 1,
			  "night %zu: exit %d: %s", night, out.exit_code,
			  out.err.buf);
		cr_assert_eq(out.exit_code == 1,
			     strstr(out.out.buf, "new regression in") != NULL,
			     "night %zu: exit %d with %s", night,
			     out.exit_code, out.out.buf);
		for (line = strstr(out.out.buf, "regression at "); line;
		     line = strstr(line + 1, "regression at ")) {
			size_t at = commit_index(commits, night + 1,
						 line + strlen("regression at "));

			alerted[at]++;
			alerts++;
			cr_assert_leq(alerted[at], 1,
				      "night %zu: commit %zu alerted again:\n%s",
				      night, at, out.out.buf);
		}
		test_output_release(&out);

		/* One night the site is published without latency: its
		 * change points are not on the site that night. */
		if (night == HIDDEN_NIGHT)
			RUN(&out, "publish", "--out", "site", "--metric",
			    "throughput", "--quiet");
		else
			RUN(&out, "publish", "--out", "site", "--quiet");
		cr_assert_eq(out.exit_code, 0, "night %zu: publish: %s", night,
			     out.err.buf);
		test_output_release(&out);
	}
	store_free(store);
	git_repository_free(repo);

	/* Each planted regression once, near where it was planted; the fix
	 * is an improvement, never alerted; nothing else. */
	{
		const size_t planted[] = { STEP1, STEP2, SHORT };
		size_t found = 0;

		for (size_t k = 0; k < 3; k++)
			for (size_t i = planted[k] > 5 ? planted[k] - 5 : 0;
			     i <= planted[k] + 5; i++)
				if (alerted[i]) {
					found++;
					break;
				}
		cr_assert_eq(found, 3, "%zu of the 3 regressions alerted",
			     found);
		cr_assert_eq(alerts, 3, "%zu alerts for 3 regressions", alerts);
	}

	/* The state: the short regression resolved by the fix. */
	snprintf(path, sizeof(path), "%s/site/benchgate-state.json", dir);
	text = test_read_file(path);
	cr_assert_not_null(text);
	state = cJSON_Parse(text);
	cr_assert_not_null(state);
	points = cJSON_GetObjectItem(state, "change_points");
	cJSON_ArrayForEach(item, points)
	{
		const cJSON *commit = cJSON_GetObjectItem(item, "commit");
		const cJSON *by = cJSON_GetObjectItem(item, "resolved_by");
		const cJSON *metric = cJSON_GetObjectItem(item, "metric");
		size_t at;

		if (strcmp(metric->valuestring, "latency"))
			continue;
		at = commit_index(commits, NIGHTS, commit->valuestring);
		if (at + 5 >= SHORT && at <= SHORT + 5) {
			cr_assert(cJSON_IsString(by), "no resolved_by: %s",
				  text);
			at = commit_index(commits, NIGHTS, by->valuestring);
			cr_assert(at + 5 >= FIXED && at <= FIXED + 5,
				  "resolved at %zu", at);
			resolved = true;
		} else {
			cr_assert_null(by, "commit %zu resolved: %s", at, text);
		}
	}
	cr_assert(resolved, "%s", text);
	cJSON_Delete(state);
	free(text);

	/* The same in --json and in the terminal view. */
	RUN(&out, "history", "--json", "h.json", "--metric", "latency",
	    "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/h.json", dir);
	text = test_read_file(path);
	history = cJSON_Parse(text);
	cr_assert_not_null(history);
	resolved = false;
	cJSON_ArrayForEach(item, cJSON_GetObjectItem(history, "series"))
	{
		const cJSON *change;

		cJSON_ArrayForEach(change,
				   cJSON_GetObjectItem(item, "change_points"))
			resolved |= cJSON_IsString(
				cJSON_GetObjectItem(change, "resolved_by"));
	}
	cr_assert(resolved, "no resolved_by in --json: %s", text);
	cJSON_Delete(history);
	free(text);
	RUN(&out, "history", "--metric", "latency");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert_not_null(strstr(out.out.buf, ", resolved at "), "%s",
			   out.out.buf);
	test_output_release(&out);
}
