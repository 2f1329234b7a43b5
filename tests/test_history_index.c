/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/history.h"
#include "harness/store/store.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The history index (history_index.h) is a cache: whatever state it is in
 * (absent, current, stale, damaged), history_build() must give the
 * history the store holds, and a later call must read it instead of the
 * results.
 */

static char *dir;
static git_repository *repo;
static struct store *store;
static char index_path[8300];
static git_oid commits[30];

/* One result of suite "s" on machine m1 at commit: case b/original/cpu
 * with latency samples level, level + 0.01, ..., level + 0.04 ms. */
static void store_level(const git_oid *commit, double level, double busy)
{
	struct result *r = result_new();
	struct result_case *c = result_add_case(r, "b", "original", "cpu");
	struct metric_samples *latency = result_case_metric(c, "latency");

	r->suite = strdup("s");
	r->started_at = strdup("2026-01-01T00:00:00Z");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s",
		 test_oid_hex(commit, 3));
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	if (busy > 0) {
		r->load.observed = true;
		r->load.cpu_busy = busy;
	}
	latency->unit = strdup("ms");
	for (int i = 0; i < 5; i++)
		metric_samples_push(latency, level + i * 0.01);
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
}

/* 30 commits on main, each measured; latency steps from 10 to 12 ms at
 * commit 15 (and wobbles by 0.05 ms on the way); commit 7 was measured
 * while other processes kept 1.25 cores busy. */
#define BUSY_COMMIT 7
static void setup(void)
{
	char path[4096], message[32];

	dir = test_tmpdir();
	repo = test_git_init(dir);
	snprintf(path, sizeof(path), "%s/.benchgate/results", dir);
	snprintf(index_path, sizeof(index_path), "%s/.history-index", path);
	cr_assert_eq(store_open(&store, path), BG_OK);
	for (size_t i = 0; i < 30; i++) {
		snprintf(message, sizeof(message), "c%zu", i);
		test_git_commit(repo, "refs/heads/main", message, i ? 1 : 0,
				i ? &commits[i - 1] : NULL, &commits[i]);
		store_level(&commits[i],
			    (i < 15 ? 10 : 12) + 0.05 * (double)(i % 3),
			    i == BUSY_COMMIT ? 1.25 : 0);
	}
}

static void teardown(void)
{
	store_free(store);
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

TestSuite(history_index, .init = setup, .fini = teardown);

static void build(struct history *h)
{
	memset(h, 0, sizeof(*h));
	cr_assert_eq(history_build(h, store,
				   &(struct history_request){
					   .start_dir = dir,
					   .branch = "main" }),
		     BG_OK, "%s", bg_error_last());
}

/* Every point and change point of a and b agree. */
static void assert_same(const struct history *a, const struct history *b)
{
	cr_assert_eq(a->series_nr, b->series_nr);
	for (size_t i = 0; i < a->series_nr; i++) {
		const struct history_series *x = &a->series[i],
					    *y = &b->series[i];

		cr_assert_str_eq(x->metric, y->metric);
		cr_assert_eq(x->points_nr, y->points_nr);
		for (size_t j = 0; j < x->points_nr; j++) {
			cr_assert_eq(x->points[j].commit, y->points[j].commit);
			cr_assert_eq(x->points[j].n, y->points[j].n);
			cr_assert_eq(x->points[j].median, y->points[j].median);
			cr_assert_eq(x->points[j].ci_low, y->points[j].ci_low);
			cr_assert_eq(x->points[j].ci_high,
				     y->points[j].ci_high);
			cr_assert_eq(x->points[j].busy, y->points[j].busy);
		}
		cr_assert_eq(x->changes_nr, y->changes_nr);
		for (size_t j = 0; j < x->changes_nr; j++)
			cr_assert_eq(x->changes[j].at.index,
				     y->changes[j].at.index);
	}
}

static const struct history_series *latency(const struct history *h)
{
	for (size_t i = 0; i < h->series_nr; i++)
		if (!strcmp(h->series[i].metric, "latency"))
			return &h->series[i];
	cr_assert_fail("no latency series");
	return NULL;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

Test(history_index, is_written_once_and_gives_the_same_history)
{
	struct history cold, warm;
	struct stat before, after;

	build(&cold);
	cr_assert_eq(stat(index_path, &before), 0, "no index at %s",
		     index_path);
	cr_assert_eq(latency(&cold)->points_nr, 30);
	cr_assert_eq(latency(&cold)->changes_nr, 1);
	cr_assert_eq(latency(&cold)->changes[0].at.index, 15);
	/* the median's interval: min and max of 5 samples at 99 % */
	cr_assert_float_eq(latency(&cold)->points[0].ci_low, 10.0, 1e-12);
	cr_assert_float_eq(latency(&cold)->points[0].ci_high, 10.04, 1e-12);
	build(&warm);
	assert_same(&cold, &warm);
	cr_assert_eq(stat(index_path, &after), 0);
	cr_assert(before.st_ino == after.st_ino &&
			  before.st_mtim.tv_nsec == after.st_mtim.tv_nsec &&
			  before.st_mtim.tv_sec == after.st_mtim.tv_sec,
		  "an index that held every result was written again");
	history_release(&cold);
	history_release(&warm);
}

/* The index never holds the only copy: a result file that changed is
 * read again. */
Test(history_index, a_result_file_that_changed_is_read_again)
{
	struct store_query q = { .commit = test_oid_hex(&commits[3], 0) };
	struct store_entry *entries = NULL;
	struct result *r = NULL;
	struct strbuf json = STRBUF_INIT;
	struct history first, second;
	size_t nr = 0;
	FILE *f;

	build(&first);
	cr_assert_float_eq(latency(&first)->points[3].median, 10.02, 1e-9);
	cr_assert_eq(store_list(store, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	cr_assert_eq(store_load(store, &entries[0], &r), BG_OK);
	for (size_t i = 0; i < r->cases[0].metrics_nr; i++)
		if (!strcmp(r->cases[0].metrics[i].name, "latency"))
			for (size_t j = 0; j < r->cases[0].metrics[i].nr; j++)
				r->cases[0].metrics[i].samples[j] += 100;
	result_to_json(r, &json);
	cr_assert(f = fopen(entries[0].path, "w"));
	fwrite(json.buf, 1, json.len, f);
	fclose(f);
	build(&second);
	cr_assert_float_eq(latency(&second)->points[3].median, 110.02, 1e-9);
	history_release(&second);
	/* the index written without the replaced summary's points */
	build(&second);
	cr_assert_float_eq(latency(&second)->points[3].median, 110.02, 1e-9);
	cr_assert_float_eq(latency(&second)->points[4].median,
			   latency(&first)->points[4].median, 1e-12);
	history_release(&first);
	history_release(&second);
	result_free(r);
	strbuf_release(&json);
	store_entries_free(entries, nr);
}

/* A damaged index (cut short, or a header that claims more than the file
 * holds) is ignored and replaced. */
Test(history_index, a_damaged_index_is_ignored_and_rebuilt)
{
	struct history good, again;
	off_t size;
	FILE *f;

	build(&good);
	size = file_size(index_path);
	cr_assert_gt(size, 64);
	cr_assert_eq(truncate(index_path, size / 2), 0);
	build(&again);
	assert_same(&good, &again);
	cr_assert_eq(file_size(index_path), size, "the index was rebuilt");
	history_release(&again);

	/* the header of a valid file, then counts far beyond its size */
	cr_assert(f = fopen(index_path, "r+b"));
	fseek(f, 24, SEEK_SET);
	fwrite("\xff\xff\xff\xff\xff\xff\xff\x0f", 1, 8, f);
	fclose(f);
	build(&again);
	assert_same(&good, &again);
	history_release(&again);

	/* not an index at all */
	free(test_write_file(dir, ".benchgate/results/.history-index",
			     "not an index"));
	build(&again);
	assert_same(&good, &again);
	cr_assert_eq(file_size(index_path), size);
	history_release(&again);
	history_release(&good);
}

/* The index file's bytes (free them) and size. */
static unsigned char *read_index(size_t *size)
{
	FILE *f = fopen(index_path, "rb");
	unsigned char *bytes;
	long len;

	cr_assert(f, "no index at %s", index_path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	bytes = malloc((size_t)len + 1);
	cr_assert_eq(fread(bytes, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*size = (size_t)len;
	return bytes;
}

static void write_index(const unsigned char *bytes, size_t size)
{
	FILE *f = fopen(index_path, "wb");

	cr_assert(f);
	cr_assert_eq(fwrite(bytes, 1, size, f), size);
	fclose(f);
}

/* Where the metric table starts: the header's counts (at the same
 * offsets in every version: strings' bytes at 24, then the numbers of
 * strings, metrics, records and points) and the fixed widths of a
 * metric (24 bytes), a record (40) and a point (40) give the header's
 * size, whatever it is. */
static size_t metric_table_at(const unsigned char *bytes, size_t size)
{
	uint64_t counts[5];

	memcpy(counts, bytes + 24, sizeof(counts));
	return size - (size_t)(counts[3] * 40 + counts[4] * 40 +
			       counts[2] * 24);
}

/* Each point carries the load its result recorded, from the results and
 * from the index alike; an index of version 2 (without it) is rebuilt. */
Test(history_index, keeps_each_results_load_and_rebuilds_an_older_index)
{
	struct history cold, warm;
	unsigned char *bytes;
	uint32_t version = 2;
	size_t size;

	build(&cold);
	for (size_t i = 0; i < 30; i++)
		cr_assert_eq(latency(&cold)->points[i].busy,
			     i == BUSY_COMMIT ? 1.25 : 0, "point %zu", i);
	build(&warm);
	assert_same(&cold, &warm);
	history_release(&warm);

	/* the version, after the 8 bytes of the magic */
	bytes = read_index(&size);
	memcpy(bytes + 8, &version, sizeof(version));
	write_index(bytes, size);
	free(bytes);
	build(&warm);
	assert_same(&cold, &warm);
	bytes = read_index(&size);
	memcpy(&version, bytes + 8, sizeof(version));
	cr_assert_eq(version, 3, "the older index was not rebuilt");
	free(bytes);
	history_release(&warm);
	history_release(&cold);
}

/* A metric record that fails validation (its `better` is 2) once
 * crashed every later call with a double free; it is rebuilt. */
Test(history_index, a_metric_that_fails_validation_is_rebuilt)
{
	struct history good, again;
	unsigned char *bytes;
	uint32_t two = 2;
	size_t size;

	build(&good);
	bytes = read_index(&size);
	/* the first metric's `better`, its sixth field */
	memcpy(bytes + metric_table_at(bytes, size) + 20, &two, sizeof(two));
	write_index(bytes, size);
	build(&again);
	assert_same(&good, &again);
	history_release(&again);
	free(bytes);
	/* and the rebuilt index is the good one */
	bytes = read_index(&size);
	build(&again);
	assert_same(&good, &again);
	history_release(&again);
	history_release(&good);
	free(bytes);
}

/* The index is never served over the results it summarises: a median
 * edited in it (10.02 ms, commit 0's, made 1500) is noticed and the
 * store read again. */
Test(history_index, an_edited_median_is_not_served)
{
	double was = 10.0 + 2 * 0.01, edited = 1500;
	struct history good, again;
	unsigned char *bytes;
	size_t size, at;

	build(&good);
	cr_assert_float_eq(latency(&good)->points[0].median, was, 1e-12);
	was = latency(&good)->points[0].median;
	bytes = read_index(&size);
	for (at = 0; at + 8 <= size && memcmp(bytes + at, &was, 8); at++)
		;
	cr_assert_leq(at + 8, size, "no median %g in the index", was);
	memcpy(bytes + at, &edited, sizeof(edited));
	write_index(bytes, size);
	build(&again);
	assert_same(&good, &again);
	history_release(&again);
	history_release(&good);
	free(bytes);
}

/* Every single byte flipped anywhere in the index: the history stays
 * the store's, never a crash. */
Test(history_index, any_flipped_byte_is_detected)
{
	struct history good, again;
	unsigned char *bytes;
	size_t size;

	build(&good);
	bytes = read_index(&size);
	for (size_t at = 0; at < size; at += 1 + size / 97) {
		bytes[at] ^= 0x5a;
		write_index(bytes, size);
		build(&again);
		assert_same(&good, &again);
		history_release(&again);
		bytes[at] ^= 0x5a;
	}
	history_release(&good);
	free(bytes);
}

/* `benchgate history --store STORE --json` in repo_dir, the document read
 * back (free it). */
static char *history_json(const char *repo_dir, const char *store_spec)
{
	struct test_output out;
	char path[8192];

	snprintf(path, sizeof(path), "%s/history.json", dir);
	test_benchgate(&out, repo_dir, NULL,
		       (const char *[]){ "history", "--store", store_spec,
					 "--json", path, NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	return test_read_file(path);
}

/* The document, written piece by piece, is the text cJSON_Print() gives
 * of it, as when it was printed from one tree: parsed and printed again,
 * the same bytes. */
static void assert_cjson_text(const char *text)
{
	cJSON *root = cJSON_Parse(text);
	char *again;

	cr_assert_not_null(root, "%.300s", text);
	again = cJSON_Print(root);
	cr_assert_not_null(again);
	cr_assert_eq(strlen(again) + 1, strlen(text));
	cr_assert(!strncmp(again, text, strlen(again)) &&
			  text[strlen(again)] == '\n',
		  "history --json differs from cJSON_Print's text");
	free(again);
	cJSON_Delete(root);
}

static void generate(const char *repo_dir, const char *count)
{
	const char *gen[] = { BENCHGATE_SOURCE_DIR
			      "/tests/perf/gen-history-store",
			      repo_dir,
			      "--commits",
			      count,
			      "--benchmarks",
			      "2",
			      "--metrics",
			      "3",
			      "--git-store",
			      "results",
			      NULL };
	struct test_output out;

	test_run(&out, NULL, NULL, gen);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
}

/* The built binary on a generated store, a directory and a git branch:
 * the second call reads the index and writes the same document; after
 * ten more commits' results the index takes them in, and the document
 * is the one a call without an index writes. */
Test(history_index, the_binary_indexes_both_store_kinds)
{
	const char *stores[] = { ".benchgate/results", "git:results" };
	char repo_dir[4096], indexes[2][8192];
	char *cold, *text;

	snprintf(repo_dir, sizeof(repo_dir), "%s/gen", dir);
	snprintf(indexes[0], sizeof(indexes[0]),
		 "%s/.benchgate/results/.history-index", repo_dir);
	snprintf(indexes[1], sizeof(indexes[1]),
		 "%s/.git/benchgate/results/.history-index", repo_dir);
	generate(repo_dir, "60");
	cold = history_json(repo_dir, stores[0]);
	cr_assert(strstr(cold, "\"m02\""), "%.300s", cold);
	assert_cjson_text(cold);
	for (size_t i = 0; i < 2; i++) {
		for (int call = 0; call < 2; call++) {
			text = history_json(repo_dir, stores[i]);
			cr_assert_str_eq(text, cold, "%s, call %d differs",
					 stores[i], call);
			free(text);
		}
		cr_assert_gt(file_size(indexes[i]), 64);
	}
	free(cold);

	generate(repo_dir, "70");
	for (size_t i = 0; i < 2; i++) {
		text = history_json(repo_dir, stores[i]);
		cr_assert(strstr(text, "\"change 69\""), "%s: no commit 69",
			  stores[i]);
		cr_assert_eq(unlink(indexes[i]), 0);
		cold = history_json(repo_dir, stores[i]);
		cr_assert_str_eq(text, cold, "%s: the index's history is not "
				 "the store's", stores[i]);
		free(text);
		free(cold);
	}
}

/* The binary on a damaged index: the same document as from the store,
 * one warning that names the index, exit 0; the next call is quiet. */
Test(history_index, the_binary_warns_once_and_rebuilds_a_damaged_index)
{
	char repo_dir[4096], index[8192], json[8192];
	struct test_output out;
	char *cold, *text;
	unsigned char *bytes;
	size_t size;
	const char *warning;

	snprintf(repo_dir, sizeof(repo_dir), "%s/gen", dir);
	snprintf(index, sizeof(index), "%s/.benchgate/results/.history-index",
		 repo_dir);
	snprintf(json, sizeof(json), "%s/history.json", dir);
	generate(repo_dir, "20");
	cold = history_json(repo_dir, ".benchgate/results");
	snprintf(index_path, sizeof(index_path), "%s", index);
	bytes = read_index(&size);
	/* the last point's median: its sign and exponent */
	bytes[size - 40 + 15] ^= 0x40;
	write_index(bytes, size);
	for (int call = 0; call < 2; call++) {
		test_benchgate(&out, repo_dir, NULL,
			       (const char *[]){ "history", "--store",
						 ".benchgate/results",
						 "--json", json, NULL });
		cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
		warning = strstr(out.err.buf, "warning:");
		if (call == 0) {
			cr_assert(warning && strstr(warning, "history index"),
				  "no warning: %s", out.err.buf);
			cr_assert_null(strstr(warning + 1, "warning:"),
				       "more than one: %s", out.err.buf);
		} else {
			cr_assert_null(warning, "%s", out.err.buf);
		}
		test_output_release(&out);
		text = test_read_file(json);
		cr_assert_str_eq(text, cold, "call %d", call);
		free(text);
	}
	free(cold);
	free(bytes);
}
