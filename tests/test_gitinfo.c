/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/git/gitinfo.h"
#include "harness/git/repo.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <git2.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Fixture repositories are built here with libgit2, in a temporary
 * directory, with a fixed signature: 1795332862 is 2026-11-22T07:34:22Z
 * (`date -u -d @1795332862`).
 */
#define FIXTURE_TIME 1795332862

static char *tmp;

static void setup(void)
{
	char *parent;

	repo_libgit2_init();
	tmp = test_tmpdir();
	/* Discovery must never climb out of the sandbox into a repository
	 * that happens to contain $TMPDIR. */
	parent = xstrdup(tmp);
	setenv("GIT_CEILING_DIRECTORIES", dirname(parent), 1);
	free(parent);
}

static void teardown(void)
{
	test_rmtree(tmp);
	free(tmp);
}

TestSuite(gitinfo, .init = setup, .fini = teardown);

static git_repository *fixture_init(const char *dir)
{
	git_repository_init_options opts;
	git_repository *repo = NULL;

	git_repository_init_options_init(&opts,
					 GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_MKPATH;
	opts.initial_head = "main";
	cr_assert_geq(git_repository_init_ext(&repo, dir, &opts), 0, "%s",
		      git_error_last() ? git_error_last()->message : "");
	return repo;
}

static void fixture_stage(git_repository *repo, const char *file,
			  const char *text)
{
	git_index *index = NULL;

	free(test_write_file(git_repository_workdir(repo), file, text));
	cr_assert_geq(git_repository_index(&index, repo), 0);
	cr_assert_geq(git_index_add_bypath(index, file), 0);
	cr_assert_geq(git_index_write(index), 0);
	git_index_free(index);
}

/* Commits `file` with `text` on HEAD; offset in minutes east of UTC. */
static void fixture_commit(git_repository *repo, const char *file,
			   const char *text, const char *message, int offset,
			   git_oid *out)
{
	git_signature *sig = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_commit *parent = NULL;
	git_oid tree_id, head_id;
	const git_commit *parents[1];
	size_t nr = 0;

	fixture_stage(repo, file, text);
	cr_assert_geq(git_repository_index(&index, repo), 0);
	cr_assert_geq(git_index_write_tree(&tree_id, index), 0);
	cr_assert_geq(git_tree_lookup(&tree, repo, &tree_id), 0);
	if (git_reference_name_to_id(&head_id, repo, "HEAD") == 0) {
		cr_assert_geq(git_commit_lookup(&parent, repo, &head_id), 0);
		parents[nr++] = parent;
	}
	cr_assert_geq(git_signature_new(&sig, "Bench Gate", "bg@example.com",
					FIXTURE_TIME, offset),
		      0);
	cr_assert_geq(git_commit_create(out, repo, "HEAD", sig, sig, NULL,
					message, tree, nr, parents),
		      0);
	git_signature_free(sig);
	git_commit_free(parent);
	git_tree_free(tree);
	git_index_free(index);
}

static char *hex(const git_oid *id)
{
	char text[GIT_OID_HEXSZ + 1];

	git_oid_tostr(text, sizeof(text), id);
	return xstrdup(text);
}

/* A repository main: A <- B, B's message with a body and a -05:30 zone. */
static git_repository *two_commits(git_oid *a, git_oid *b)
{
	git_repository *repo = fixture_init(tmp);

	fixture_commit(repo, "model.txt", "fp32\n", "first\n", 60, a);
	fixture_commit(repo, "model.txt", "int8\n",
		       "quantize the model\n\nbody line\n", -330, b);
	return repo;
}

Test(gitinfo, reads_commit_branch_time_subject_and_parents)
{
	struct git_meta meta;
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);
	char *a_hex = hex(&a), *b_hex = hex(&b);

	cr_assert_eq(gitinfo_read(&meta, tmp), BG_OK);
	cr_assert_str_eq(meta.commit, b_hex);
	cr_assert_str_eq(meta.branch, "main");
	cr_assert_not(meta.dirty);
	/* FIXTURE_TIME at -05:30, as `git log --format=%cI` shows it. */
	cr_assert_str_eq(meta.commit_time, "2026-11-22T02:04:22-05:30");
	cr_assert_str_eq(meta.subject, "quantize the model");
	cr_assert_eq(meta.parents_nr, 1);
	cr_assert_str_eq(meta.parents[0], a_hex);
	git_meta_release(&meta);
	git_repository_free(repo);
	free(a_hex);
	free(b_hex);
}

Test(gitinfo, root_commit_time_east_of_utc_and_no_parents)
{
	struct git_meta meta;
	git_oid a;
	git_repository *repo = fixture_init(tmp);

	fixture_commit(repo, "f", "x\n", "only\n", 60, &a);
	cr_assert_eq(gitinfo_read(&meta, tmp), BG_OK);
	cr_assert_str_eq(meta.commit_time, "2026-11-22T08:34:22+01:00");
	cr_assert_eq(meta.parents_nr, 0);
	git_meta_release(&meta);
	git_repository_free(repo);
}

Test(gitinfo, discovers_the_repository_from_a_subdirectory)
{
	struct git_meta meta;
	struct strbuf root = STRBUF_INIT, sub = STRBUF_INIT;
	char real_tmp[PATH_MAX], real_root[PATH_MAX];
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);
	char *b_hex = hex(&b);

	free(test_write_file(tmp, "suites/deep/suite.json", "{}"));
	strbuf_addf(&sub, "%s/suites/deep", tmp);
	cr_assert_eq(gitinfo_read(&meta, sub.buf), BG_OK);
	cr_assert_str_eq(meta.commit, b_hex);
	cr_assert_eq(gitinfo_repo_root(sub.buf, &root), BG_OK);
	cr_assert_not_null(realpath(tmp, real_tmp));
	cr_assert_not_null(realpath(root.buf, real_root));
	cr_assert_str_eq(real_root, real_tmp);
	cr_assert_neq(root.buf[root.len - 1], '/');
	git_meta_release(&meta);
	git_repository_free(repo);
	strbuf_release(&root);
	strbuf_release(&sub);
	free(b_hex);
}

Test(gitinfo, detached_head_has_no_branch)
{
	struct git_meta meta;
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);
	char *a_hex = hex(&a);

	cr_assert_geq(git_repository_set_head_detached(repo, &a), 0);
	/* Detaching does not check out: put A's content back so that only
	 * HEAD differs. */
	fixture_stage(repo, "model.txt", "fp32\n");
	cr_assert_eq(gitinfo_read(&meta, tmp), BG_OK);
	cr_assert_str_eq(meta.commit, a_hex);
	cr_assert_null(meta.branch);
	cr_assert_not(meta.dirty);
	cr_assert_str_eq(meta.subject, "first");
	cr_assert_eq(meta.parents_nr, 0);
	git_meta_release(&meta);
	git_repository_free(repo);
	free(a_hex);
}

static bool dirty_now(void)
{
	struct git_meta meta;
	bool dirty;

	cr_assert_eq(gitinfo_read(&meta, tmp), BG_OK);
	dirty = meta.dirty;
	git_meta_release(&meta);
	return dirty;
}

Test(gitinfo, untracked_and_ignored_files_do_not_make_it_dirty)
{
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	free(test_write_file(tmp, "notes.txt", "scratch\n"));
	free(test_write_file(tmp, "build/out/bench", "binary\n"));
	free(test_write_file(tmp, ".benchgate/results/x.json", "{}"));
	cr_assert_not(dirty_now());
	git_repository_free(repo);
}

Test(gitinfo, modified_tracked_file_is_dirty)
{
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	free(test_write_file(tmp, "model.txt", "pruned\n"));
	cr_assert(dirty_now());
	git_repository_free(repo);
}

Test(gitinfo, deleted_tracked_file_is_dirty)
{
	struct strbuf path = STRBUF_INIT;
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	strbuf_addf(&path, "%s/model.txt", tmp);
	cr_assert_eq(unlink(path.buf), 0);
	cr_assert(dirty_now());
	git_repository_free(repo);
	strbuf_release(&path);
}

Test(gitinfo, staged_change_is_dirty)
{
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	fixture_stage(repo, "new.txt", "staged\n");
	cr_assert(dirty_now());
	git_repository_free(repo);
}

/* Dates model.txt (of two_commits()) back to 2020-01-01 and records that
 * in the index, written now: its entry is then not racily clean, and
 * gitinfo_read() decides by the stat data alone while they match. */
static const struct timespec old_times[2] = { { 1577836800, 123456789 },
					      { 1577836800, 123456789 } };

static void backdate_model(git_repository *repo)
{
	struct strbuf path = STRBUF_INIT;
	git_index *index = NULL;

	strbuf_addf(&path, "%s/model.txt", tmp);
	cr_assert_eq(utimensat(AT_FDCWD, path.buf, old_times, 0), 0);
	cr_assert_geq(git_repository_index(&index, repo), 0);
	cr_assert_geq(git_index_add_bypath(index, "model.txt"), 0);
	cr_assert_geq(git_index_write(index), 0);
	git_index_free(index);
	strbuf_release(&path);
}

Test(gitinfo, a_clean_tree_recorded_before_is_clean)
{
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	backdate_model(repo);
	cr_assert_not(dirty_now());
	git_repository_free(repo);
}

/* The same size and modification time, another content: only the change
 * time (and the content) tell. */
Test(gitinfo, a_change_that_keeps_size_and_mtime_is_dirty)
{
	struct strbuf path = STRBUF_INIT;
	int fd;
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	backdate_model(repo);
	strbuf_addf(&path, "%s/model.txt", tmp);
	/* in place: the same inode */
	fd = open(path.buf, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "int4\n", 5), 5);
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(utimensat(AT_FDCWD, path.buf, old_times, 0), 0);
	cr_assert(dirty_now());
	git_repository_free(repo);
	strbuf_release(&path);
}

/* A new mode is a change (core.filemode is true where git init ran). */
Test(gitinfo, a_file_made_executable_is_dirty)
{
	struct strbuf path = STRBUF_INIT;
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	backdate_model(repo);
	strbuf_addf(&path, "%s/model.txt", tmp);
	cr_assert_eq(chmod(path.buf, 0755), 0);
	cr_assert(dirty_now());
	git_repository_free(repo);
	strbuf_release(&path);
}

/* Touched, not changed: the times differ, the content does not. */
Test(gitinfo, a_touched_but_unchanged_file_is_clean)
{
	struct strbuf path = STRBUF_INIT;
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);

	backdate_model(repo);
	strbuf_addf(&path, "%s/model.txt", tmp);
	cr_assert_eq(utimensat(AT_FDCWD, path.buf, NULL, 0), 0);
	cr_assert_not(dirty_now());
	git_repository_free(repo);
	strbuf_release(&path);
}

Test(gitinfo, unborn_branch_has_unknown_commit_and_its_branch)
{
	struct git_meta meta;
	git_repository *repo = fixture_init(tmp);

	cr_assert_eq(gitinfo_read(&meta, tmp), BG_OK);
	cr_assert_str_eq(meta.commit, "unknown");
	cr_assert_str_eq(meta.branch, "main");
	cr_assert_not(meta.dirty);
	cr_assert_null(meta.commit_time);
	cr_assert_null(meta.subject);
	cr_assert_eq(meta.parents_nr, 0);
	git_meta_release(&meta);

	/* Anything staged before the first commit is a change. */
	fixture_stage(repo, "a.txt", "a\n");
	cr_assert(dirty_now());
	git_repository_free(repo);
}

/* Runs fn with stderr going to a file; returns what it printed. */
static char *capture_stderr(int (*fn)(void *), void *arg, int *ret)
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
	*ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	text = test_read_file(path.buf);
	unlink(path.buf);
	strbuf_release(&path);
	return text;
}

static int read_into(void *meta)
{
	struct strbuf dir = STRBUF_INIT;
	int ret;

	strbuf_addf(&dir, "%s/plain", tmp);
	ret = gitinfo_read(meta, dir.buf);
	strbuf_release(&dir);
	return ret;
}

Test(gitinfo, outside_a_repository_warns_and_records_unknown)
{
	struct git_meta meta;
	struct strbuf root = STRBUF_INIT, dir = STRBUF_INIT;
	char *err;
	int ret;

	free(test_write_file(tmp, "plain/suite.json", "{}"));
	err = capture_stderr(read_into, &meta, &ret);
	cr_assert_eq(ret, BG_OK);
	cr_assert_str_eq(meta.commit, "unknown");
	cr_assert_null(meta.branch);
	cr_assert_not(meta.dirty);
	cr_assert_eq(meta.parents_nr, 0);
	cr_assert_not_null(strstr(err, "warning: "), "stderr: %s", err);
	cr_assert_not_null(strstr(err, "not in a git repository"), "stderr: %s",
			   err);
	git_meta_release(&meta);

	strbuf_addf(&dir, "%s/plain", tmp);
	cr_assert_eq(gitinfo_repo_root(dir.buf, &root), BG_ENOTFOUND);
	cr_assert_eq(root.len, 0);
	strbuf_release(&root);
	strbuf_release(&dir);
	free(err);
}

Test(gitinfo, missing_start_directory_is_not_a_crash)
{
	struct git_meta meta;
	struct strbuf dir = STRBUF_INIT;

	strbuf_addf(&dir, "%s/does/not/exist", tmp);
	cr_assert_eq(gitinfo_read(&meta, dir.buf), BG_OK);
	cr_assert_str_eq(meta.commit, "unknown");
	git_meta_release(&meta);
	strbuf_release(&dir);
}

/*
 * libgit2 1.5 (Debian bookworm) cannot make a shallow clone: fetch depth
 * arrived in 1.7. So the test makes what a `git clone --depth 1` leaves:
 * a `shallow` file naming the tip, and the tip's parent missing from the
 * object database (its loose object deleted). gitinfo must still name the
 * parent, which is recorded inside the tip commit.
 */
Test(gitinfo, shallow_clone_records_parents_missing_from_the_odb)
{
	struct git_meta meta;
	struct strbuf path = STRBUF_INIT;
	git_commit *missing = NULL;
	git_oid a, b;
	git_repository *repo = two_commits(&a, &b);
	char *a_hex = hex(&a), *b_hex = hex(&b);

	free(test_write_file(git_repository_path(repo), "shallow", b_hex));
	strbuf_reset(&path);
	strbuf_addf(&path, "%sobjects/%.2s/%s", git_repository_path(repo),
		    a_hex, a_hex + 2);
	cr_assert_eq(unlink(path.buf), 0, "%s", path.buf);
	git_repository_free(repo);

	/* The simulation holds: shallow, and the parent really is gone. */
	cr_assert_geq(git_repository_open(&repo, tmp), 0);
	cr_assert_eq(git_repository_is_shallow(repo), 1);
	cr_assert_lt(git_commit_lookup(&missing, repo, &a), 0);

	cr_assert_eq(gitinfo_read(&meta, tmp), BG_OK);
	cr_assert_str_eq(meta.commit, b_hex);
	cr_assert_str_eq(meta.branch, "main");
	cr_assert_not(meta.dirty);
	cr_assert_eq(meta.parents_nr, 1);
	cr_assert_str_eq(meta.parents[0], a_hex);
	git_meta_release(&meta);
	git_repository_free(repo);
	strbuf_release(&path);
	free(a_hex);
	free(b_hex);
}

Test(gitinfo, repo_root_of_a_bare_repository_is_not_found)
{
	struct strbuf root = STRBUF_INIT;
	git_repository *repo = NULL;

	cr_assert_geq(git_repository_init(&repo, tmp, 1), 0);
	cr_assert_eq(gitinfo_repo_root(tmp, &root), BG_ENOTFOUND);
	git_repository_free(repo);
	strbuf_release(&root);
}
