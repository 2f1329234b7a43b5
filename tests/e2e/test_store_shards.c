/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: commit folders in shards (store.h). A store of many commits
 * keeps them below "<first two hex digits>/", so its root stays small; a
 * store of the older flat layout, whole or mixed with shards, reads the
 * same, and `benchgate store migrate` moves it into shards byte for byte
 * (a dry run changes nothing, a second run finds nothing to do, a file
 * whose place is taken by other content stays), in a directory and on a
 * git branch, `history` printing the same before and after.
 */
#include "harness/store/store.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN(out, ...)                         \
	test_benchgate((out), dir, NULL,      \
		       (const char *const[]){ __VA_ARGS__, NULL })

/* Enough commits to fill many shards, and a level change for history. */
#define COMMITS 40
#define STEP	25

static char *dir;
static git_oid commits[COMMITS];

/* main: c0 .. c39. */
static void setup(void)
{
	git_repository *repo;
	char message[32];

	dir = test_tmpdir();
	repo = test_git_init(dir);
	for (size_t i = 0; i < COMMITS; i++) {
		snprintf(message, sizeof(message), "c%zu", i);
		test_git_commit(repo, "refs/heads/main", message, i ? 1 : 0,
				i ? &commits[i - 1] : NULL, &commits[i]);
	}
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	git_repository_free(repo);
	cr_assert_eq(chdir(dir), 0);
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(store_shards, .init = setup, .fini = teardown, .timeout = 300);

/* One result per commit (none at c3) in the store of spec, and a second
 * one at c7: its name gets the suffix "-1". */
static void fill(const char *spec)
{
	struct store *store = NULL;

	cr_assert_eq(store_open(&store, spec), BG_OK, "%s", bg_error_last());
	for (size_t i = 0; i < COMMITS; i++)
		if (i != 3)
			test_store_series_at(store, &commits[i], "box",
					     i < STEP ? 10 : 13);
	test_store_series_at(store, &commits[7], "box", 10);
	store_free(store);
}

/* Another result at commit i, in the store of spec. */
static void add_one(const char *spec, size_t i)
{
	struct store *store = NULL;

	cr_assert_eq(store_open(&store, spec), BG_OK, "%s", bg_error_last());
	test_store_series_at(store, &commits[i], "box", 10);
	store_free(store);
}

/* `benchgate history --store spec` as CSV: every point. */
static char *history(const char *spec)
{
	struct test_output out;
	char *csv;

	RUN(&out, "history", "--store", spec, "--branch", "main", "--csv");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	csv = strbuf_detach(&out.out, NULL);
	test_output_release(&out);
	return csv;
}

static size_t lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* The files below the store rel (relative to the repository) with their
 * contents' hashes, sorted, the store's own dot files (its lock, .tmp,
 * history index) left out: two listings differ at any change of a byte
 * or a name. */
static char *files_of(const char *rel)
{
	struct test_output out;
	const char *argv[] = {
		"/bin/sh", "-c",
		"cd \"$0\" && find . -path './.*' -prune -o -type f -print | "
		"sort | xargs sha256sum",
		rel, NULL
	};
	char *listing;

	test_run(&out, dir, NULL, argv);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	listing = strbuf_detach(&out.out, NULL);
	test_output_release(&out);
	return listing;
}

Test(store_shards, a_store_of_many_commits_keeps_them_in_shards)
{
	char *csv;

	fill("d");
	/* the root holds shards only; each commit is in its own */
	test_shell(dir,
		   "test -z \"$(find d -mindepth 1 -maxdepth 1 ! -name '.*' "
		   "! -name '[0-9a-f][0-9a-f]')\"\n"
		   "test $(ls d | wc -l) -gt 10\n"
		   "for c in $(git rev-list main); do\n"
		   "  s=$(echo $c | cut -c1-2)\n"
		   "  test -d d/$s/$c/box || test $c = $(git rev-parse "
		   "main~36)\n"
		   "done\n"
		   "test $(find d -name '*.json' | wc -l) = 40\n"
		   "test -f d/$(git rev-parse main~32 | cut -c1-2)/"
		   "$(git rev-parse main~32)/box/s-20260101T000000Z-1.json\n");
	csv = history("d");
	/* a header, and two metrics at the 39 measured commits */
	cr_assert_eq(lines(csv), 1 + 2 * (COMMITS - 1), "%s", csv);
	free(csv);
}

/*
 * The same results as a store of the older flat layout, "<commit>/" at
 * the root, mixed with a shard: read the same, a new result takes no name
 * the flat folder holds, and migration gives the sharded store exactly.
 */
Test(store_shards, a_flat_store_reads_the_same_and_migrates_byte_for_byte)
{
	struct test_output out;
	char *want, *before, *after, *listing, *expected;

	fill("ref");
	add_one("ref", 12);
	want = history("ref");
	/* "old": ref's folders flat at the root, but for one shard */
	test_shell(dir, "cp -a ref old\n"
			"keep=$(git rev-parse main | cut -c1-2)\n"
			"for s in old/[0-9a-f][0-9a-f]; do\n"
			"  test $s = old/$keep && continue\n"
			"  mv $s/* old/ && rmdir $s\n"
			"done\n"
			"test -d old/$(git rev-parse main~27)\n");
	/* ...whose c12 result then comes from a newer benchgate: into the
	 * shard, named after the flat folder's result, not over it */
	test_shell(dir, "c=$(git rev-parse main~27)\n"
			"rm old/$c/box/s-20260101T000000Z-1.json\n");
	add_one("old", 12);
	test_shell(dir, "c=$(git rev-parse main~27)\n"
			"s=$(echo $c | cut -c1-2)\n"
			"test -f old/$s/$c/box/s-20260101T000000Z-1.json\n"
			"test -f old/$c/box/s-20260101T000000Z.json\n");
	before = history("old");
	cr_assert_str_eq(before, want, "a flat store reads differently");

	listing = files_of("old");
	RUN(&out, "store", "migrate", "--store", "old", "--dry-run");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "would move "), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, " flat commit folders into shards"),
		  "%s", out.out.buf);
	after = files_of("old");
	cr_assert_str_eq(after, listing, "a dry run changed the store");
	free(after);
	test_output_release(&out);

	RUN(&out, "store", "migrate", "--store", "old");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "; 0 left in place"), "%s",
		  out.out.buf);
	test_output_release(&out);
	expected = files_of("ref");
	after = files_of("old");
	cr_assert_str_eq(after, expected, "migrated store differs from ref");
	free(after);
	test_shell(dir, "test -z \"$(find old -mindepth 1 -maxdepth 1 "
			"! -name '.*' ! -name '[0-9a-f][0-9a-f]')\"\n");
	after = history("old");
	cr_assert_str_eq(after, before, "history changed");
	free(after);

	RUN(&out, "store", "migrate", "--store", "old");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "moved 0 flat commit folders"), "%s",
		  out.out.buf);
	test_output_release(&out);
	free(want);
	free(before);
	free(listing);
	free(expected);
}

/* A file whose place in the shard holds other content stays where it is,
 * named in a warning; the same bytes there are merged away. */
Test(store_shards, a_taken_place_keeps_the_flat_file)
{
	struct test_output out;

	fill("d");
	test_shell(dir,
		   "c=$(git rev-parse main~2) s=$(echo $c | cut -c1-2)\n"
		   "mkdir -p d/$c/box/logs/x\n"
		   "cp d/$s/$c/box/s-20260101T000000Z.json d/$c/box/\n"
		   "echo flat > d/$c/box/logs/x/b.log\n"
		   "mkdir -p d/$s/$c/box/logs/x\n"
		   "echo shard > d/$s/$c/box/logs/x/b.log\n"
		   "echo new > d/$c/box/logs/x/other.log\n");
	RUN(&out, "store", "migrate", "--store", "d");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "moved 1 flat commit folders into "
				      "shards: 2 files"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "; 1 left in place"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.err.buf, "logs/x/b.log' stays where it is"),
		  "%s", out.err.buf);
	test_shell(dir,
		   "c=$(git rev-parse main~2) s=$(echo $c | cut -c1-2)\n"
		   "test \"$(cat d/$c/box/logs/x/b.log)\" = flat\n"
		   "test \"$(cat d/$s/$c/box/logs/x/b.log)\" = shard\n"
		   "test \"$(cat d/$s/$c/box/logs/x/other.log)\" = new\n"
		   "test ! -e d/$c/box/s-20260101T000000Z.json\n"
		   "test $(find d -name '*.json' | wc -l) = 40\n");
	test_output_release(&out);
}

/* The flat layout on a branch (as an older benchgate committed it): read
 * the same, migrated in one commit that moves every blob unchanged. */
Test(store_shards, a_flat_branch_migrates_in_one_commit)
{
	struct test_output out;
	char *want, *before, *after;

	fill("ref");
	want = history("ref");
	/* the flat tree committed to refs/heads/old with git's plumbing */
	test_shell(dir,
		   "cp -a ref flat && rm -rf flat/.[!.]*\n"
		   "for s in flat/[0-9a-f][0-9a-f]; do\n"
		   "  mv $s/* flat/ && rmdir $s\n"
		   "done\n"
		   "export GIT_INDEX_FILE=$PWD/.flat-index\n"
		   "(cd flat && git --git-dir=../.git --work-tree=. add -A .)\n"
		   "t=$(git write-tree)\n"
		   "c=$(git -c user.name=t -c user.email=t@t commit-tree -m "
		   "flat $t)\n"
		   "git update-ref refs/heads/old $c\n"
		   "rm -f .flat-index\n"
		   "git ls-tree -r old | awk '{ print $3, substr($4, 1, 2) "
		   "\"/\" $4 }' | sort > expected\n"
		   "test $(wc -l < expected) = 40\n");
	before = history("git:old");
	cr_assert_str_eq(before, want, "a flat branch reads differently");

	RUN(&out, "store", "migrate", "--store", "git:old", "--dry-run");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "would move 39 flat commit folders"),
		  "%s", out.out.buf);
	test_output_release(&out);
	test_shell(dir, "test $(git rev-list --count old) = 1\n");

	RUN(&out, "store", "migrate", "--store", "git:old");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "moved 39 flat commit folders"), "%s",
		  out.out.buf);
	test_output_release(&out);
	/* one commit; every blob where its shard puts it, ids unchanged */
	test_shell(dir, "test $(git rev-list --count old) = 2\n"
			"git ls-tree -r old | awk '{ print $3, $4 }' | sort "
			"> actual\n"
			"diff expected actual\n");
	after = history("git:old");
	cr_assert_str_eq(after, before, "history changed");
	free(after);

	RUN(&out, "store", "migrate", "--store", "git:old");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "moved 0 flat commit folders"), "%s",
		  out.out.buf);
	test_output_release(&out);
	test_shell(dir, "test $(git rev-list --count old) = 2\n");
	free(want);
	free(before);
}
