/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/store/store.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define COMMIT_A "0123456789abcdef0123456789abcdef01234567"
#define COMMIT_B "fedcba9876543210fedcba9876543210fedcba98"
#define MACHINE	 "a1b2c3d4e5f60718"
#define STARTED	 "2026-11-22T07:34:22Z"
#define STAMP	 "20261122T073422Z"

static char *tmp;
static struct strbuf root = STRBUF_INIT;

static void setup(void)
{
	tmp = test_tmpdir();
	strbuf_addf(&root, "%s/results", tmp);
}

static void teardown(void)
{
	test_rmtree(tmp);
	free(tmp);
	strbuf_release(&root);
}

TestSuite(store, .init = setup, .fini = teardown);

static struct result *make_result(const char *suite, const char *commit,
				  const char *machine, const char *started)
{
	struct result *r = result_new();
	struct result_case *rcase;
	struct metric_samples *latency;

	r->suite = xstrdup(suite);
	memcpy(r->git.commit, commit, strlen(commit) + 1);
	memcpy(r->machine.id, machine, strlen(machine) + 1);
	r->started_at = xstrdup(started);
	r->finished_at = xstrdup(started);
	rcase = result_add_case(r, "infer", "original", "cpu");
	latency = result_case_metric(rcase, "latency");
	latency->unit = xstrdup("ms");
	metric_samples_push(latency, 1.71);
	metric_samples_push(latency, 1.69);
	return r;
}

static struct store *open_store(void)
{
	struct store *s = NULL;

	cr_assert_eq(store_open(&s, root.buf), BG_OK, "%s", bg_error_last());
	return s;
}

/* Writes a result and returns the path written (free it). */
static char *write_result(struct store *s, const char *suite,
			  const char *commit, const char *machine,
			  const char *started)
{
	struct result *r = make_result(suite, commit, machine, started);
	struct strbuf path = STRBUF_INIT;

	cr_assert_eq(store_write(s, r, NULL, &path), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
	return strbuf_detach(&path, NULL);
}

static const char *base_name(const char *path)
{
	return strrchr(path, '/') + 1;
}

static size_t count_files(const char *dir, const char *prefix)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	cr_assert_not_null(d, "%s", dir);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/* Runs fn with stderr going to a file; returns what it printed. */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
	struct strbuf path = STRBUF_INIT;
	int saved, fd;
	char *text;

	strbuf_addf(&path, "%s/stderr.txt", tmp);
	fflush(stderr);
	saved = dup(2);
	fd = open(path.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	dup2(fd, 2);
	close(fd);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	text = test_read_file(path.buf);
	unlink(path.buf);
	strbuf_release(&path);
	return text;
}

static void machine_dir(struct strbuf *out, const char *commit)
{
	strbuf_reset(out);
	/* its shard: the commit's first two hex digits */
	strbuf_addf(out, "%s/%.2s/%s/" MACHINE, root.buf, commit, commit);
}

Test(store, a_result_splits_into_two_with_the_same_metadata)
{
	struct result *r = make_result("s", COMMIT_A, MACHINE, STARTED);
	struct result *taken = NULL;
	bool take[] = { true, false, true };

	metric_samples_push(result_case_metric(result_add_case(r, "infer",
							       "original",
							       "cpu"),
					       "latency"),
			    3);
	result_add_case(r, "infer", "pruned", "cpu");
	cr_assert_eq(result_split(r, take, &taken), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(r->cases_nr, 1);
	cr_assert_eq(r->cases[0].metrics[0].samples[0], 3);
	cr_assert_eq(taken->cases_nr, 2);
	cr_assert_eq(taken->cases[0].metrics[0].nr, 2);
	cr_assert_str_eq(taken->cases[1].variant, "pruned");
	cr_assert_str_eq(taken->suite, "s");
	cr_assert_str_eq(taken->git.commit, COMMIT_A);
	cr_assert_str_eq(taken->machine.id, MACHINE);
	cr_assert_str_eq(taken->started_at, STARTED);
	result_free(taken);
	result_free(r);
}

Test(store, write_uses_the_documented_layout_and_round_trips)
{
	struct store *s = open_store();
	struct strbuf dir = STRBUF_INIT, found = STRBUF_INIT;
	struct strbuf expected = STRBUF_INIT;
	struct store_query q = { .commit = COMMIT_A };
	struct result *r = NULL;
	char *path =
		write_result(s, "mlp-variants", COMMIT_A, MACHINE, STARTED);

	machine_dir(&dir, COMMIT_A);
	strbuf_addf(&expected, "%s/mlp-variants-" STAMP ".json", dir.buf);
	cr_assert_str_eq(path, expected.buf);
	cr_assert_eq(store_latest(s, &q, &r, &found), BG_OK);
	cr_assert_str_eq(found.buf, path);
	cr_assert_str_eq(r->suite, "mlp-variants");
	cr_assert_str_eq(r->git.commit, COMMIT_A);
	cr_assert_str_eq(r->machine.id, MACHINE);
	cr_assert_eq(r->cases_nr, 1);
	cr_assert_eq(r->cases[0].metrics[0].nr, 2);
	/* Nothing but the result: no temporary left behind. */
	cr_assert_eq(count_files(dir.buf, ".tmp"), 0);
	cr_assert_eq(count_files(dir.buf, "mlp"), 1);
	result_free(r);
	strbuf_release(&dir);
	strbuf_release(&expected);
	strbuf_release(&found);
	free(path);
	store_free(s);
}

Test(store, timestamp_is_the_start_in_utc)
{
	struct store *s = open_store();
	/* 08:34:22+01:00 is 07:34:22Z; the fraction is dropped. */
	char *path = write_result(s, "s", COMMIT_A, MACHINE,
				  "2026-11-22T08:34:22.125+01:00");

	cr_assert_str_eq(base_name(path), "s-" STAMP ".json");
	free(path);
	store_free(s);
}

Test(store, same_second_gets_suffixes_and_never_overwrites)
{
	struct store *s = open_store();
	char *first = write_result(s, "s", COMMIT_A, MACHINE, STARTED);
	char *first_text = test_read_file(first);
	char *second = write_result(s, "s", COMMIT_A, MACHINE, STARTED);
	char *third = write_result(s, "s", COMMIT_A, MACHINE, STARTED);
	char *again;

	cr_assert_str_eq(base_name(first), "s-" STAMP ".json");
	cr_assert_str_eq(base_name(second), "s-" STAMP "-1.json");
	cr_assert_str_eq(base_name(third), "s-" STAMP "-2.json");
	again = test_read_file(first);
	cr_assert_str_eq(again, first_text);
	free(first);
	free(second);
	free(third);
	free(first_text);
	free(again);
	store_free(s);
}

/*
 * Several `benchgate run` writing at once: WRITERS processes each write
 * PER_WRITER results with one commit, machine, suite and start second, so
 * every write races for the same names.
 */
#define WRITERS	   4
#define PER_WRITER 25

static void writer(void)
{
	struct store *s = NULL;
	int i;

	if (store_open(&s, root.buf) < 0)
		_exit(2);
	for (i = 0; i < PER_WRITER; i++) {
		struct result *r =
			make_result("race", COMMIT_A, MACHINE, STARTED);
		int error = store_write(s, r, NULL, NULL);

		result_free(r);
		if (error < 0) {
			fprintf(stderr, "writer: %s\n", bg_error_last());
			_exit(1);
		}
	}
	store_free(s);
	_exit(0);
}

Test(store, concurrent_writers_lose_nothing)
{
	struct store *s = open_store();
	struct store_query q = { .commit = COMMIT_A, .load = true };
	struct store_entry *entries = NULL;
	struct strbuf dir = STRBUF_INIT;
	pid_t pids[WRITERS];
	size_t nr = 0, i, j;
	int status;

	fflush(NULL);
	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		cr_assert_neq(pids[i], -1);
		if (!pids[i])
			writer();
	}
	for (i = 0; i < WRITERS; i++) {
		cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "writer %zu failed", i);
	}

	machine_dir(&dir, COMMIT_A);
	cr_assert_eq(count_files(dir.buf, "race-"), WRITERS * PER_WRITER);
	cr_assert_eq(count_files(dir.buf, ".tmp"), 0);
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, WRITERS * PER_WRITER);
	for (i = 0; i < nr; i++) {
		cr_assert_not_null(entries[i].result, "%s", entries[i].path);
		cr_assert_eq(entries[i].seq, i, "sorted by suffix");
		for (j = 0; j < i; j++)
			cr_assert_str_neq(entries[i].path, entries[j].path);
	}
	store_entries_free(entries, nr);
	strbuf_release(&dir);
	store_free(s);
}

struct list_call {
	struct store *store;
	struct store_query query;
	size_t nr;
	int error;
	struct result *latest;
};

static void list_and_latest(void *arg)
{
	struct list_call *call = arg;
	struct store_entry *entries = NULL;

	call->error =
		store_list(call->store, &call->query, &entries, &call->nr);
	store_entries_free(entries, call->nr);
	if (!call->error)
		call->error = store_latest(call->store, &call->query,
					   &call->latest, NULL);
}

static size_t occurrences(const char *text, const char *needle)
{
	size_t n = 0;

	while ((text = strstr(text, needle))) {
		n++;
		text += strlen(needle);
	}
	return n;
}

Test(store, corrupt_file_is_reported_once_and_skipped)
{
	struct store *s = open_store();
	struct list_call call = {
		s, { .commit = COMMIT_A, .load = true }, 0, 0, NULL
	};
	char *older = write_result(s, "s", COMMIT_A, MACHINE, STARTED);
	char *good =
		write_result(s, "s", COMMIT_A, MACHINE, "2026-11-22T07:34:23Z");
	char *text = test_read_file(good);
	struct strbuf truncated = STRBUF_INIT, dir = STRBUF_INIT;
	char *err, *path;

	/* The newest file is cut in half, as by a full disk. */
	machine_dir(&dir, COMMIT_A);
	strbuf_add(&truncated, text, strlen(text) / 2);
	path = test_write_file(dir.buf, "s-20261122T073424Z.json",
			       truncated.buf);

	err = capture_stderr(list_and_latest, &call);
	cr_assert_eq(call.error, BG_OK, "%s", bg_error_last());
	cr_assert_eq(call.nr, 2);
	/* The newest loadable result, not the corrupt one. */
	cr_assert_str_eq(call.latest->started_at, "2026-11-22T07:34:23Z");
	result_free(call.latest);
	call.latest = NULL;
	cr_assert_eq(occurrences(err, path), 1, "stderr: %s", err);
	cr_assert_not_null(strstr(err, "not valid JSON"), "stderr: %s", err);
	free(err);

	/* Listing again: still skipped, not reported again. */
	err = capture_stderr(list_and_latest, &call);
	cr_assert_eq(call.nr, 2);
	cr_assert_str_eq(err, "");
	result_free(call.latest);
	free(err);

	free(older);
	free(good);
	free(text);
	free(path);
	strbuf_release(&truncated);
	strbuf_release(&dir);
	store_free(s);
}

Test(store, file_in_the_wrong_directory_is_skipped)
{
	struct store *s = open_store();
	struct list_call call = {
		s, { .commit = COMMIT_B, .load = true }, 0, 0, NULL
	};
	char *path = write_result(s, "s", COMMIT_A, MACHINE, STARTED);
	char *text = test_read_file(path), *err, *copy;
	struct strbuf dir = STRBUF_INIT;

	machine_dir(&dir, COMMIT_B);
	copy = test_write_file(dir.buf, "s-" STAMP ".json", text);
	err = capture_stderr(list_and_latest, &call);
	cr_assert_eq(call.error, BG_ENOTFOUND);
	cr_assert_eq(call.nr, 0);
	cr_assert_not_null(strstr(err, "is stored under"), "stderr: %s", err);
	free(path);
	free(text);
	free(err);
	free(copy);
	strbuf_release(&dir);
	store_free(s);
}

static size_t count_matches(struct store *s, const struct store_query *q)
{
	struct store_entry *entries = NULL;
	size_t nr = 0;

	cr_assert_eq(store_list(s, q, &entries, &nr), BG_OK, "%s",
		     bg_error_last());
	store_entries_free(entries, nr);
	return nr;
}

Test(store, queries_by_commit_prefix_machine_and_suite)
{
	struct store *s = open_store();
	struct store_entry *entries = NULL;
	struct store_query q = { 0 };
	size_t nr = 0;

	free(write_result(s, "alpha", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "beta", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "alpha", COMMIT_A, "other-machine",
			  "2026-11-22T07:34:25Z"));
	free(write_result(s, "alpha", COMMIT_B, MACHINE,
			  "2026-11-22T07:34:24Z"));
	free(write_result(s, "alpha", "unknown", MACHINE, STARTED));

	cr_assert_eq(count_matches(s, NULL), 5);
	q.commit = COMMIT_A;
	cr_assert_eq(count_matches(s, &q), 3);
	q.commit = "0123456";
	cr_assert_eq(count_matches(s, &q), 3);
	q.commit = "0123456789ABCDEF";
	cr_assert_eq(count_matches(s, &q), 3, "prefixes ignore case");
	q.commit = "fedc";
	cr_assert_eq(count_matches(s, &q), 1);
	q.commit = "unknown";
	cr_assert_eq(count_matches(s, &q), 1);
	q.commit = "abcd";
	cr_assert_eq(count_matches(s, &q), 0);
	q.commit = COMMIT_A;
	q.machine = MACHINE;
	cr_assert_eq(count_matches(s, &q), 2);
	q.suite = "alpha";
	cr_assert_eq(count_matches(s, &q), 1);
	q.commit = NULL;
	cr_assert_eq(count_matches(s, &q), 3);
	q.machine = NULL;

	/* Oldest first, across commits and machines. */
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 4);
	cr_assert_str_eq(entries[2].commit, COMMIT_B);
	cr_assert_str_eq(entries[3].machine, "other-machine");
	cr_assert_str_eq(entries[3].timestamp, "20261122T073425Z");
	cr_assert_str_eq(entries[3].suite, "alpha");
	store_entries_free(entries, nr);
	store_free(s);
}

Test(store, queries_by_a_set_of_commits)
{
	struct store *s = open_store();
	const char *set[] = { COMMIT_B, "unknown",
			      "0000000000000000000000000000000000000000" };
	struct store_query q = { .commits = set, .commits_nr = 3 };
	struct store_entry *entries = NULL;
	size_t nr = 0;

	free(write_result(s, "alpha", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "alpha", COMMIT_B, MACHINE,
			  "2026-11-22T07:34:24Z"));
	free(write_result(s, "beta", COMMIT_B, "other-machine", STARTED));
	free(write_result(s, "alpha", "unknown", MACHINE,
			  "2026-11-22T07:34:23Z"));

	/* each commit of the set, sorted as any listing: oldest first */
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(nr, 3);
	cr_assert_str_eq(entries[0].commit, COMMIT_B);
	cr_assert_str_eq(entries[0].machine, "other-machine");
	cr_assert_str_eq(entries[1].commit, "unknown");
	cr_assert_str_eq(entries[2].commit, COMMIT_B);
	store_entries_free(entries, nr);
	q.machine = MACHINE;
	cr_assert_eq(count_matches(s, &q), 2);
	q.suite = "beta";
	cr_assert_eq(count_matches(s, &q), 0);
	q.commits_nr = 0;
	q.machine = q.suite = NULL;
	cr_assert_eq(count_matches(s, &q), 0, "an empty set lists nothing");
	store_free(s);
}

Test(store, bad_queries_are_input_errors)
{
	struct store *s = open_store();
	struct store_entry *entries = NULL;
	struct store_query q = { .commit = "HEAD" };
	size_t nr = 0;

	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_EINPUT);
	q.commit = "012";
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_EINPUT);
	q.commit = NULL;
	q.machine = "../..";
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_EINPUT);
	cr_assert_null(entries);
	/* a set of commits: full ids only, and not beside one commit */
	q.machine = NULL;
	q.commits = (const char *const[]){ "0123456" };
	q.commits_nr = 1;
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_EINPUT);
	q.commits = (const char *const[]){ COMMIT_A };
	q.commit = COMMIT_A;
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_EINPUT);
	cr_assert_null(entries);
	store_free(s);
}

Test(store, missing_store_lists_nothing)
{
	struct store *s = open_store();
	struct store_query q = { .commit = COMMIT_A };
	struct result *r = NULL;

	cr_assert_eq(count_matches(s, NULL), 0);
	cr_assert_eq(count_matches(s, &q), 0);
	cr_assert_eq(store_latest(s, &q, &r, NULL), BG_ENOTFOUND);
	cr_assert_null(r);
	store_free(s);
}

Test(store, suite_names_are_sanitised_for_file_names)
{
	struct strbuf name = STRBUF_INIT;
	static const struct {
		const char *suite, *file;
	} cases[] = {
		{ "mlp-variants_v2.1", "mlp-variants_v2.1" },
		{ "a/b c", "a_b_c" },
		{ "../etc/passwd", "_._etc_passwd" },
		{ ".hidden", "_hidden" },
		{ "caf\xc3\xa9", "caf__" },
		{ "tab\there", "tab_here" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		strbuf_reset(&name);
		cr_assert_eq(store_suite_filename(cases[i].suite, &name),
			     BG_OK);
		cr_assert_str_eq(name.buf, cases[i].file);
	}
	cr_assert_eq(store_suite_filename("", &name), BG_EINPUT);
	cr_assert_eq(store_suite_filename(".", &name), BG_EINPUT);
	cr_assert_eq(store_suite_filename("..", &name), BG_EINPUT);
	strbuf_release(&name);
}

Test(store, hostile_names_stay_inside_the_store)
{
	struct store *s = open_store();
	struct store_query q = { .suite = "../../evil" };
	struct result *r =
		make_result("../../evil", COMMIT_A, MACHINE, STARTED);
	struct strbuf path = STRBUF_INIT, expected = STRBUF_INIT;
	struct store_entry *entries = NULL;
	size_t nr = 0;

	cr_assert_eq(store_write(s, r, NULL, &path), BG_OK);
	strbuf_addf(&expected,
		    "%s/01/" COMMIT_A "/" MACHINE "/_._.._evil-" STAMP ".json",
		    root.buf);
	cr_assert_str_eq(path.buf, expected.buf);
	q.load = true;
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	cr_assert_str_eq(entries[0].result->suite, "../../evil");
	store_entries_free(entries, nr);
	result_free(r);

	r = make_result("s", "../../../tmp/x", MACHINE, STARTED);
	cr_assert_eq(store_write(s, r, NULL, NULL), BG_EINPUT);
	result_free(r);
	r = make_result("s", COMMIT_A, "..", STARTED);
	cr_assert_eq(store_write(s, r, NULL, NULL), BG_EINPUT);
	result_free(r);
	strbuf_release(&path);
	strbuf_release(&expected);
	store_free(s);
}

/* Issue 27: a rerun of one case (bisect's measurements of one variant)
 * was the newest result of its commit and hid the others from baselines.
 * The newest result counts, with the cases it lacks from older ones. */
Test(store, latest_takes_the_cases_a_rerun_lacks_from_older_results)
{
	struct store *s = open_store();
	struct store_query q = { .commit = COMMIT_A };
	struct result *nightly = make_result("s", COMMIT_A, MACHINE, STARTED);
	struct result *rerun =
		make_result("s", COMMIT_A, MACHINE, "2026-11-22T09:00:00Z");
	struct result *other =
		make_result("s", COMMIT_A, "other-machine", "2026-11-22T10:00:00Z");
	struct result *r = NULL;

	metric_samples_push(result_case_metric(result_add_case(nightly,
								"infer",
								"pruned",
								"cpu"),
					       "latency"),
			    2.5);
	rerun->cases[0].metrics[0].samples[0] = 9.5;
	result_add_case(other, "train", "original", "cpu");
	cr_assert_eq(store_write(s, nightly, NULL, NULL), BG_OK);
	cr_assert_eq(store_write(s, rerun, NULL, NULL), BG_OK);
	cr_assert_eq(store_write(s, other, NULL, NULL), BG_OK);
	q.machine = MACHINE;
	cr_assert_eq(store_latest(s, &q, &r, NULL), BG_OK);
	cr_assert_eq(r->cases_nr, 2, "%zu cases", r->cases_nr);
	cr_assert_str_eq(r->cases[0].variant, "original");
	cr_assert_eq(r->cases[0].metrics[0].samples[0], 9.5, "the rerun's");
	cr_assert_str_eq(r->cases[1].variant, "pruned");
	cr_assert_eq(r->cases[1].metrics[0].samples[0], 2.5);
	cr_assert_str_eq(r->started_at, "2026-11-22T09:00:00Z");
	result_free(r);
	result_free(nightly);
	result_free(rerun);
	result_free(other);
	store_free(s);
}

Test(store, suites_mapping_to_one_file_name_are_told_apart_on_load)
{
	struct store *s = open_store();
	struct store_query q = { .suite = "a/b", .load = true };
	struct store_entry *entries = NULL;
	struct result *r = NULL;
	size_t nr = 0;

	free(write_result(s, "a_b", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "a/b", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "a_b", COMMIT_A, MACHINE, STARTED));
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	cr_assert_str_eq(entries[0].result->suite, "a/b");
	store_entries_free(entries, nr);
	q.load = false;
	cr_assert_eq(store_latest(s, &q, &r, NULL), BG_OK);
	cr_assert_str_eq(r->suite, "a/b");
	result_free(r);
	store_free(s);
}

Test(store, reserve_gives_a_log_directory_and_the_result_name)
{
	struct store *s = open_store();
	struct result *r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
	struct store_slot *slot = NULL, *other = NULL;
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf expected = STRBUF_INIT;
	char *log, *loose;
	struct stat st;

	cr_assert_eq(store_reserve(s, r, &slot), BG_OK, "%s", bg_error_last());
	machine_dir(&dir, COMMIT_A);
	cr_assert_str_eq(slot->dir, dir.buf);
	cr_assert_str_eq(slot->name, "mlp-" STAMP);
	cr_assert_str_eq(slot->log_prefix, "logs/mlp-" STAMP);
	strbuf_addf(&expected, "%s/logs/mlp-" STAMP, dir.buf);
	cr_assert_str_eq(slot->log_dir, expected.buf);
	cr_assert(stat(slot->log_dir, &st) == 0 && S_ISDIR(st.st_mode));

	/* A second run in the same second and an unreserved write (an
	 * import) both keep off the reserved name. */
	cr_assert_eq(store_reserve(s, r, &other), BG_OK);
	cr_assert_str_eq(other->name, "mlp-" STAMP "-1");
	loose = write_result(s, "mlp", COMMIT_A, MACHINE, STARTED);
	cr_assert_str_eq(base_name(loose), "mlp-" STAMP "-2.json");

	/* The runner writes its logs, then the result into its slot; the
	 * relative log path resolves from the result's directory. */
	log = test_write_file(slot->log_dir, "infer.log", "ran\n");
	free(r->cases[0].log);
	r->cases[0].log = xstrdup("logs/mlp-" STAMP "/infer.log");
	cr_assert_eq(store_write(s, r, slot, &path), BG_OK);
	strbuf_reset(&expected);
	strbuf_addf(&expected, "%s/%s.json", slot->dir, slot->name);
	cr_assert_str_eq(path.buf, expected.buf);
	strbuf_reset(&expected);
	strbuf_addf(&expected, "%s/%s", slot->dir, r->cases[0].log);
	cr_assert_str_eq(expected.buf, log);

	/* logs/ is never mistaken for results. */
	cr_assert_eq(count_matches(s, NULL), 2);

	store_slot_free(slot);
	store_slot_free(other);
	result_free(r);
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&expected);
	free(log);
	free(loose);
	store_free(s);
}

/* "git:" specs go to the git backend (tests/test_store_git.c). */
Test(store, git_specs_name_a_valid_branch)
{
	struct store *s = NULL;

	cr_assert_eq(store_open(&s, "git:bad..branch"), BG_EINPUT);
	cr_assert_null(s);
	cr_assert_not_null(strstr(bg_error_last(), "not a valid branch"));
	cr_assert_eq(store_open(&s, ""), BG_EINPUT);
}

Test(store, a_file_is_not_a_store)
{
	struct store *s = NULL;
	char *file = test_write_file(tmp, "plain", "x");

	cr_assert_eq(store_open(&s, file), BG_EINPUT);
	cr_assert_null(s);
	free(file);
}

Test(store, relative_specs_are_made_absolute)
{
	struct store *s = NULL;
	char cwd[4096];

	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(tmp), 0);
	cr_assert_eq(store_open(&s, "./results/"), BG_OK);
	cr_assert_str_eq(store_location(s), root.buf);
	store_free(s);
	cr_assert_eq(chdir(cwd), 0);
}

Test(store, stray_files_are_ignored_or_reported)
{
	struct store *s = open_store();
	struct strbuf dir = STRBUF_INIT;
	struct list_call call = { s, { .commit = COMMIT_A }, 0, 0, NULL };
	char *err;

	free(write_result(s, "s", COMMIT_A, MACHINE, STARTED));
	machine_dir(&dir, COMMIT_A);
	free(test_write_file(dir.buf, ".tmp-abcdef", "{"));
	free(test_write_file(dir.buf, "README.txt", "notes"));
	free(test_write_file(dir.buf, "notes.json", "{}"));
	free(test_write_file(root.buf, "not-a-commit/x/s-" STAMP ".json",
			     "{}"));
	err = capture_stderr(list_and_latest, &call);
	cr_assert_eq(call.error, BG_OK);
	cr_assert_eq(call.nr, 1);
	cr_assert_not_null(strstr(err, "notes.json"), "stderr: %s", err);
	cr_assert_null(strstr(err, ".tmp-"), "stderr: %s", err);
	result_free(call.latest);
	free(err);
	strbuf_release(&dir);
	store_free(s);
}

/* Issue 17: temporary files of writes that failed or were killed. */

/* A result whose document is far over a 4 KiB file size limit. */
static struct result *make_big_result(void)
{
	struct result *r = make_result("big", COMMIT_A, MACHINE, STARTED);
	struct metric_samples *latency =
		result_case_metric(&r->cases[0], "latency");

	for (int i = 0; i < 10000; i++)
		metric_samples_push(latency, 1.5 + i * 1e-6);
	return r;
}

/* No temporary file of a write anywhere below the store: neither in its
 * .tmp directory nor beside a result (where older versions wrote them). */
static void assert_no_temporary_file(const char *when)
{
	struct strbuf tree = STRBUF_INIT;

	test_list_tree(&tree, root.buf);
	cr_assert(!strstr(tree.buf, ".tmp/") && !strstr(tree.buf, ".tmp-"),
		  "%s: %s", when, tree.buf);
	strbuf_release(&tree);
}

Test(store, a_write_that_fails_leaves_no_temporary_file)
{
	struct store *s = open_store();
	struct result *r = make_big_result();
	struct strbuf path = STRBUF_INIT;
	struct rlimit limit = { 4096, RLIM_INFINITY };

	/* A full disk, as the kernel reports it to one process: the write
	 * fails with EFBIG once the file passes 4 KiB. */
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
	cr_assert_eq(store_write(s, r, NULL, &path), BG_ERROR);
	cr_assert(strstr(bg_error_last(), "File too large"), "%s",
		  bg_error_last());
	cr_assert_eq(path.len, 0);
	assert_no_temporary_file("after a failed write");
	cr_assert_eq(count_matches(s, NULL), 0);

	/* nor does a failed write aside (session_keep()) */
	cr_assert_eq(store_write_aside(r, tmp, &path), BG_ERROR);
	cr_assert_eq(path.len, 0);
	cr_assert_eq(count_files(tmp, ".benchgate-unstored-"), 0);
	cr_assert_eq(count_files(tmp, STORE_ASIDE_PREFIX), 0);
	result_free(r);
	strbuf_release(&path);
	store_free(s);
}

/*
 * A writer killed in the middle of writing its result: SIGXFSZ (default
 * action: terminate) stops the child inside its write() once the file
 * passes 4 KiB, as kill -9 would, leaving a half-written temporary file.
 * The next run's start (store_reserve()) removes it.
 */
Test(store, a_killed_writers_temporary_file_is_reclaimed_at_the_next_start)
{
	struct store *s = open_store();
	struct result *r = make_big_result();
	struct store_slot *slot = NULL;
	struct strbuf tree = STRBUF_INIT, path = STRBUF_INIT;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (!pid) {
		struct rlimit limit = { 4096, RLIM_INFINITY }, core = { 0, 0 };

		signal(SIGXFSZ, SIG_DFL);
		setrlimit(RLIMIT_CORE, &core);
		setrlimit(RLIMIT_FSIZE, &limit);
		store_write(s, r, NULL, NULL);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ,
		  "the writer died mid-write (status %#x)", status);
	test_list_tree(&tree, root.buf);
	cr_assert(strstr(tree.buf, "tmp"), "it left its temporary file: %s",
		  tree.buf);

	cr_assert_eq(store_reserve(s, r, &slot), BG_OK, "%s", bg_error_last());
	assert_no_temporary_file("after the next start");
	cr_assert_eq(store_write(s, r, slot, &path), BG_OK, "%s",
		     bg_error_last());
	assert_no_temporary_file("after the next write");
	cr_assert_eq(count_matches(s, NULL), 1, "no corrupt nor lost result");
	store_slot_free(slot);
	result_free(r);
	strbuf_release(&tree);
	strbuf_release(&path);
	store_free(s);
}

Test(store, a_result_written_aside_is_complete_and_replaces_nothing)
{
	struct result *r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
	struct result *back = NULL;
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	struct strbuf expected = STRBUF_INIT;

	cr_assert_eq(store_write_aside(r, tmp, &first), BG_OK, "%s",
		     bg_error_last());
	strbuf_addf(&expected, "%s/benchgate-unstored-mlp-" STAMP ".json", tmp);
	cr_assert_str_eq(first.buf, expected.buf);
	cr_assert_eq(store_write_aside(r, tmp, &second), BG_OK);
	strbuf_reset(&expected);
	strbuf_addf(&expected, "%s/benchgate-unstored-mlp-" STAMP "-1.json",
		    tmp);
	cr_assert_str_eq(second.buf, expected.buf);
	cr_assert_eq(result_load(&back, first.buf), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(back->suite, "mlp");
	cr_assert_eq(back->cases[0].metrics[0].nr, 2);
	cr_assert_eq(count_files(tmp, ".benchgate"), 0,
		     "no temporary file beside");
	result_free(back);
	result_free(r);
	strbuf_release(&first);
	strbuf_release(&second);
	strbuf_release(&expected);
}

/* A store's ".tmp" that is a symbolic link (the default store lives in
 * the checked-out repository, which a pull request shapes) is refused:
 * the directory it points to is neither emptied nor written into. */
Test(store, a_symlinked_tmp_is_refused_and_its_target_untouched)
{
	struct store *s = open_store();
	struct result *r = make_result("s", COMMIT_A, MACHINE, STARTED);
	struct strbuf victims = STRBUF_INIT, link_path = STRBUF_INIT;
	char *kept, *path;
	struct dirent *de;
	size_t entries = 0;
	DIR *d;

	strbuf_addf(&victims, "%s/victims", tmp);
	cr_assert_eq(mkdir(victims.buf, 0777), 0);
	path = test_write_file(victims.buf, "precious", "mine");
	cr_assert_eq(mkdir(root.buf, 0777), 0);
	strbuf_addf(&link_path, "%s/.tmp", root.buf);
	cr_assert_eq(symlink(victims.buf, link_path.buf), 0);
	cr_assert_lt(store_write(s, r, NULL, NULL), 0,
		     "a write through a symlinked .tmp succeeded");
	cr_assert(strstr(bg_error_last(), ".tmp"), "%s", bg_error_last());
	kept = test_read_file(path);
	cr_assert_str_eq(kept, "mine");
	cr_assert(d = opendir(victims.buf));
	while ((de = readdir(d)))
		entries += de->d_name[0] != '.';
	closedir(d);
	cr_assert_eq(entries, 1, "something was written through the link");
	free(kept);
	free(path);
	result_free(r);
	strbuf_release(&victims);
	strbuf_release(&link_path);
	store_free(s);
}

/* Files named like results that are not regular files: a FIFO (read, it
 * would block for ever) and a link to /dev/zero (it never ends) are
 * reported and skipped, the good result still found. */
Test(store, special_files_named_like_results_are_skipped, .timeout = 20)
{
	struct store *s = open_store();
	struct list_call call = {
		s, { .commit = COMMIT_A, .load = true }, 0, 0, NULL
	};
	char *good = write_result(s, "s", COMMIT_A, MACHINE, STARTED);
	struct strbuf dir = STRBUF_INIT, fifo = STRBUF_INIT,
		      zero = STRBUF_INIT;
	char *err;

	machine_dir(&dir, COMMIT_A);
	strbuf_addf(&fifo, "%s/s-20261122T073424Z.json", dir.buf);
	strbuf_addf(&zero, "%s/s-20261122T073425Z.json", dir.buf);
	cr_assert_eq(mkfifo(fifo.buf, 0644), 0);
	cr_assert_eq(symlink("/dev/zero", zero.buf), 0);
	err = capture_stderr(list_and_latest, &call);
	cr_assert_eq(call.error, BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(call.latest->started_at, STARTED);
	cr_assert_eq(occurrences(err, "not a regular file"), 2, "stderr: %s",
		     err);
	result_free(call.latest);
	free(err);
	free(good);
	strbuf_release(&dir);
	strbuf_release(&fifo);
	strbuf_release(&zero);
	store_free(s);
}

/* What lies beside a result is read only by a plain relative path, at
 * most max bytes of it (truncated says so), and never through a link. */
Test(store, reads_beside_a_result_by_a_plain_path_only)
{
	static const char *const bad[] = { "", "/etc/passwd", "../x",
					   "logs/../../x", "logs//x", "./x",
					   "logs/", NULL };
	struct store *s = open_store();
	struct store_entry *entries = NULL;
	struct strbuf text = STRBUF_INIT, path = STRBUF_INIT;
	char *written = write_result(s, "suite", COMMIT_A, MACHINE, STARTED);
	bool truncated;
	size_t nr = 0;

	cr_assert_eq(store_list(s, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	machine_dir(&path, COMMIT_A);
	strbuf_addstr(&path, "/logs/x");
	cr_assert_eq(mkdir_p(path.buf), 0);
	strbuf_addstr(&path, "/case.log");
	free(test_write_file(tmp, "outside.txt", "outside"));
	cr_assert_eq(write_file_atomic(path.buf, "0123456789", 10), 0);
	cr_assert_eq(store_read_beside(s, &entries[0], "logs/x/case.log", 4,
				       &text, &truncated),
		     BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(text.buf, "0123");
	cr_assert(truncated);
	strbuf_reset(&text);
	cr_assert_eq(store_read_beside(s, &entries[0], "logs/x/case.log", 10,
				       &text, &truncated),
		     BG_OK);
	cr_assert_str_eq(text.buf, "0123456789");
	cr_assert(!truncated);
	for (size_t i = 0; bad[i]; i++)
		cr_assert_eq(store_read_beside(s, &entries[0], bad[i], 10,
					       &text, &truncated),
			     BG_EINPUT, "'%s' was taken", bad[i]);
	/* a link, as the log or as a directory on the way: not followed */
	cr_assert_eq(unlink(path.buf), 0);
	strbuf_reset(&text);
	strbuf_addf(&text, "%s/outside.txt", tmp);
	cr_assert_eq(symlink(text.buf, path.buf), 0);
	strbuf_reset(&text);
	cr_assert_eq(store_read_beside(s, &entries[0], "logs/x/case.log", 10,
				       &text, &truncated),
		     BG_ERROR);
	cr_assert_eq(text.len, 0);
	strbuf_reset(&path);
	machine_dir(&path, COMMIT_A);
	strbuf_addstr(&path, "/logs/y");
	machine_dir(&text, COMMIT_A);
	strbuf_addstr(&text, "/logs/x");
	/* logs/x/case.log regular again, reached through the link logs/y */
	strbuf_addstr(&text, "/case.log");
	cr_assert_eq(unlink(text.buf), 0);
	cr_assert_eq(write_file_atomic(text.buf, "0123456789", 10), 0);
	strbuf_setlen(&text, text.len - strlen("/case.log"));
	cr_assert_eq(symlink(text.buf, path.buf), 0);
	strbuf_reset(&text);
	cr_assert_eq(store_read_beside(s, &entries[0], "logs/y/case.log", 10,
				       &text, &truncated),
		     BG_ERROR);
	cr_assert(strstr(bg_error_last(), "logs/y"), "%s", bg_error_last());
	cr_assert_eq(text.len, 0);
	store_entries_free(entries, nr);
	store_free(s);
	free(written);
	strbuf_release(&text);
	strbuf_release(&path);
}
