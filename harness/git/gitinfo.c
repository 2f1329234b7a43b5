/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/git/gitinfo.h"

#include "harness/util/alloc.h"
#include "harness/git/repo.h"
#include "harness/util/error.h"
#include "harness/git/gitref.h"

#include <git2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static void warn_unversioned(const char *start_dir, int git_error)
{
	const char *dir = start_dir ? start_dir : ".";

	if (git_error == GIT_ENOTFOUND)
		bg_warn("'%s' is not in a git repository: results are recorded "
			"for commit 'unknown'",
			dir);
	else if (git_error == GIT_EOWNER)
		bg_warn("cannot open the git repository of '%s': %s (see git "
			"config safe.directory): results are recorded for "
			"commit 'unknown'",
			dir, gitref_message());
	else
		bg_warn("cannot open the git repository of '%s': %s: results "
			"are recorded for commit 'unknown'",
			dir, gitref_message());
}

static int read_branch(char **out, git_repository *repo)
{
	static const char heads[] = "refs/heads/";
	git_reference *head = NULL;
	const char *target;

	*out = NULL;
	/* HEAD itself rather than git_repository_head(): its symbolic target
	 * names the branch even before the branch has a commit. */
	if (git_reference_lookup(&head, repo, "HEAD") < 0)
		return bg_error("cannot read HEAD: %s", gitref_message());
	if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
		target = git_reference_symbolic_target(head);
		if (!strncmp(target, heads, sizeof(heads) - 1))
			target += sizeof(heads) - 1;
		*out = xstrdup(target);
	}
	git_reference_free(head);
	return BG_OK;
}

static void format_commit_time(char **out, git_time_t when, int offset)
{
	time_t local = (time_t)when + (time_t)offset * 60;
	int minutes = offset < 0 ? -offset : offset;
	char date[32], text[48];
	struct tm tm;

	if (!gmtime_r(&local, &tm))
		return;
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(text, sizeof(text), "%s%c%02d:%02d", date,
		 offset < 0 ? '-' : '+', minutes / 60, minutes % 60);
	*out = xstrdup(text);
}

static int stop_at_first_change(const git_diff *diff,
				const git_diff_delta *delta,
				const char *matched_pathspec, void *payload)
{
	(void)diff;
	(void)delta;
	(void)matched_pathspec;
	*(bool *)payload = true;
	/* Aborting the diff: one change is all "dirty" needs to know. */
	return GIT_EUSER;
}

/* Whether e's file, which lstat() described as st, holds what the index
 * recorded: same kind of file, executable bit, size, inode, change and
 * modification times, to the nanosecond. */
static bool stat_matches(const git_index_entry *e, const struct stat *st)
{
	bool link = e->mode == GIT_FILEMODE_LINK;

	if (link ? !S_ISLNK(st->st_mode) : !S_ISREG(st->st_mode))
		return false;
	if (!link && !!(st->st_mode & S_IXUSR) !=
			     (e->mode == GIT_FILEMODE_BLOB_EXECUTABLE))
		return false;
	return e->file_size == (uint32_t)st->st_size &&
	       e->ino == (uint32_t)st->st_ino &&
	       e->mtime.seconds == (int32_t)st->st_mtim.tv_sec &&
	       e->mtime.nanoseconds == (uint32_t)st->st_mtim.tv_nsec &&
	       e->ctime.seconds == (int32_t)st->st_ctim.tv_sec &&
	       e->ctime.nanoseconds == (uint32_t)st->st_ctim.tv_nsec;
}

/*
 * Whether entry e was modified at or after the index was written, to the
 * nanosecond ("racily clean": a change in the same tick of the file
 * system's clock would not show in its times). libgit2's rule
 * (git_index_entry_newer_than_index(), built with nanosecond times as
 * Debian's is), which its diff applies after this check anyway: taken to
 * the second, a fresh clone, which writes its files and its index within
 * one second, had every entry hashed (45 ms of CPU for this repository
 * instead of 17), and an entry found changed then went to the diff, which
 * decided by the nanosecond all the same.
 */
static bool racily_clean(const git_index_entry *e, const struct stat *index_st)
{
	if (e->mtime.seconds != (int32_t)index_st->st_mtim.tv_sec)
		return e->mtime.seconds > (int32_t)index_st->st_mtim.tv_sec;
	return e->mtime.nanoseconds >= (uint32_t)index_st->st_mtim.tv_nsec;
}

/*
 * Whether the work tree certainly holds what the index does, found as git
 * itself finds it: one lstat() per tracked file, against the stat data the
 * index recorded, without reading a directory. An entry that is racily
 * clean is hashed and compared by content, as libgit2's diff would. false at the first doubt (a change,
 * a missing file, a submodule, a conflict, an entry flagged
 * assume-unchanged, skip-worktree or intent-to-add), for the diff to
 * decide: this only saves its directory walk, one stat per directory
 * entry, on a clean tree.
 */
static bool workdir_matches_index(git_repository *repo, git_index *index)
{
	const char *workdir = git_repository_workdir(repo);
	const char *index_path = git_index_path(index);
	struct strbuf path = STRBUF_INIT;
	struct stat index_st, st;
	size_t count = git_index_entrycount(index), root;
	bool matches = workdir && index_path && !stat(index_path, &index_st);

	if (matches)
		strbuf_addstr(&path, workdir);
	root = path.len;
	for (size_t i = 0; matches && i < count; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		git_oid id;

		if (!e || GIT_INDEX_ENTRY_STAGE(e) ||
		    (e->flags & GIT_INDEX_ENTRY_VALID) ||
		    (e->flags_extended & (GIT_INDEX_ENTRY_INTENT_TO_ADD |
					  GIT_INDEX_ENTRY_SKIP_WORKTREE)) ||
		    e->mode == GIT_FILEMODE_COMMIT) {
			matches = false;
			break;
		}
		strbuf_setlen(&path, root);
		strbuf_addstr(&path, e->path);
		matches = !lstat(path.buf, &st) && stat_matches(e, &st);
		if (matches && racily_clean(e, &index_st))
			matches = !git_repository_hashfile(&id, repo, path.buf,
							   GIT_OBJECT_BLOB,
							   e->path) &&
				  git_oid_equal(&id, &e->id);
	}
	git_error_clear();
	strbuf_release(&path);
	return matches;
}

/* head_tree is NULL on an unborn branch: then anything staged is a change. */
static int read_dirty(bool *dirty, git_repository *repo, git_tree *head_tree)
{
	git_diff_options opts;
	git_index *index = NULL;
	git_diff *diff = NULL;
	int error;

	*dirty = false;
	if (git_repository_is_bare(repo))
		return BG_OK;
	/* Not GIT_DIFF_OPTIONS_INIT: it trips -Wmissing-field-initializers. */
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	/* No GIT_DIFF_INCLUDE_UNTRACKED: untracked directories are then
	 * skipped, not walked. IGNORE_DIRTY still reports a submodule moved
	 * to another commit but does not scan the submodule's files. */
	opts.flags = GIT_DIFF_SKIP_BINARY_CHECK;
	opts.ignore_submodules = GIT_SUBMODULE_IGNORE_DIRTY;
	opts.notify_cb = stop_at_first_change;
	opts.payload = dirty;

	if ((error = git_repository_index(&index, repo)) < 0)
		goto done;
	error = git_diff_tree_to_index(&diff, repo, head_tree, index, &opts);
	git_diff_free(diff);
	diff = NULL;
	if (error < 0 || *dirty || workdir_matches_index(repo, index))
		goto done;
	error = git_diff_index_to_workdir(&diff, repo, index, &opts);
	git_diff_free(diff);
done:
	git_index_free(index);
	if (error == GIT_EUSER && *dirty) {
		git_error_clear();
		return BG_OK;
	}
	if (error < 0)
		return bg_error("cannot compare the work tree with HEAD: %s",
				gitref_message());
	return BG_OK;
}

void gitinfo_read_commit(struct git_meta *out, git_commit *commit)
{
	const char *subject = git_commit_summary(commit);
	unsigned int i, nr = git_commit_parentcount(commit);

	git_oid_tostr(out->commit, sizeof(out->commit), git_commit_id(commit));
	format_commit_time(&out->commit_time, git_commit_time(commit),
			   git_commit_time_offset(commit));
	out->subject = xstrdup(subject);
	/* Only the ids stored in the commit: in a shallow clone the parent
	 * objects are absent, and looking them up would fail. */
	out->parents = xcalloc(nr ? nr : 1, sizeof(*out->parents));
	for (i = 0; i < nr; i++) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex),
			      git_commit_parent_id(commit, i));
		out->parents[i] = xstrdup(hex);
	}
	out->parents_nr = nr;
}

int gitinfo_read(struct git_meta *out, const char *start_dir)
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_oid head_id;
	int error, unborn;

	memset(out, 0, sizeof(*out));
	memcpy(out->commit, "unknown", sizeof("unknown"));
	if ((error = repo_open(&repo, start_dir)) < 0) {
		warn_unversioned(start_dir, error);
		git_error_clear();
		error = BG_OK;
		goto done;
	}
	if ((error = read_branch(&out->branch, repo)) < 0)
		goto done;
	if ((unborn = git_repository_head_unborn(repo)) < 0) {
		error = bg_error("cannot read HEAD: %s", gitref_message());
		goto done;
	}
	if (!unborn) {
		if (git_reference_name_to_id(&head_id, repo, "HEAD") < 0 ||
		    git_commit_lookup(&commit, repo, &head_id) < 0 ||
		    git_commit_tree(&tree, commit) < 0) {
			error = bg_error("cannot read the HEAD commit: %s",
					 gitref_message());
			goto done;
		}
		gitinfo_read_commit(out, commit);
	}
	error = read_dirty(&out->dirty, repo, tree);
done:
	if (error < 0)
		git_meta_release(out);
	git_tree_free(tree);
	git_commit_free(commit);
	git_repository_free(repo);
	return error;
}

int gitinfo_repo_root(const char *start_dir, struct strbuf *out)
{
	const char *dir = start_dir ? start_dir : ".";
	git_repository *repo = NULL;
	const char *workdir;
	size_t len;
	int error = BG_OK;

	if (repo_open(&repo, start_dir) < 0) {
		error = bg_notfound("'%s' is not in a git repository: %s", dir,
				    gitref_message());
		goto done;
	}
	if (!(workdir = git_repository_workdir(repo))) {
		error = bg_notfound("'%s' is in a bare git repository, which "
				    "has no work tree",
				    dir);
		goto done;
	}
	len = strlen(workdir);
	if (len > 1 && workdir[len - 1] == '/')
		len--;
	strbuf_add(out, workdir, len);
done:
	git_repository_free(repo);
	return error;
}
