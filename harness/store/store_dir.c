/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The directory backend of the store: the layout and guarantees of
 * store.h, in plain files under one directory.
 */
#include "harness/store/store.h"
#include "harness/store/store_backend.h"
#include "harness/store/store_common.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool path_exists(const char *path)
{
	struct stat st;

	/* Anything but a clear "no such file" counts as taken: a name is
	 * skipped rather than risked. */
	return lstat(path, &st) == 0 || errno != ENOENT;
}

/* "<root>/<shard>/<commit>/<machine>" (store_commit_dir()), the stem of
 * the file name for a result, and the flat "<root>/<commit>/<machine>"
 * of stores written before shards, whose names are taken too (the same
 * as dir for "unknown"). */
static int result_location(struct store *store, const struct result *r,
			   struct strbuf *dir, struct strbuf *stem,
			   struct strbuf *flat)
{
	int error = store_result_stem(r, stem);

	if (error < 0)
		return error;
	strbuf_addf(dir, "%s/", store->location);
	store_commit_dir(r->git.commit, dir);
	strbuf_addf(dir, "/%s", r->machine.id);
	strbuf_addf(flat, "%s/%s/%s", store->location, r->git.commit,
		    r->machine.id);
	return BG_OK;
}

/*
 * Choosing a name and claiming it happen under one exclusive lock on the
 * whole store. link() alone would already refuse to replace a file; the
 * lock is what makes a reserved slot (a logs/ directory with no result
 * yet) and a written name exclude each other, and what makes the
 * fallback for file systems without hard links safe.
 */
static int lock_store(struct store *store, int *fd_out)
{
	struct strbuf path = STRBUF_INIT;
	int error;

	strbuf_addf(&path, "%s/.lock", store->location);
	error = lock_file(path.buf, fd_out);
	strbuf_release(&path);
	return error;
}

/*
 * Under the store lock: removes what writers killed mid-write left in
 * "<store>/.tmp". A writer creates its temporary file there and links or
 * removes it without letting go of the lock, so whatever is there while
 * the lock is held belongs to a writer that died (the kernel dropped its
 * flock). Best effort: a leftover costs disk space, not correctness.
 */
static void reclaim_temporaries(int tmp_dir)
{
	struct dirent *de;
	int fd = dup(tmp_dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* through the directory's descriptor: its entries, not a link's */
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(tmp_dir, de->d_name, 0);
	closedir(d);
}

/* Opens (making it) the store's ".tmp" without following a link: one
 * there (the store may be inside a checkout a pull request shaped) is
 * refused, so that neither reclaiming nor writing reaches its target. */
static int open_tmp_dir(struct store *store, struct strbuf *path)
{
	strbuf_addf(path, "%s/.tmp", store->location);
	return dir_open_at(AT_FDCWD, path->buf, true, path->buf);
}

/* Gives the complete temporary file `tmp` the name `target` unless that
 * exists: 1 when placed, 0 when the name is taken, < 0 on error. */
static int place_file(const char *tmp, const char *target)
{
	if (!link(tmp, target))
		return 1;
	if (errno == EEXIST)
		return 0;
	if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS &&
	    errno != EMLINK)
		return bg_error("cannot link '%s' to '%s': %s", tmp, target,
				strerror(errno));
	/* No hard links here (vfat, some network file systems). Testing then
	 * renaming is race-free only because every writer holds the lock. */
	if (path_exists(target))
		return 0;
	if (rename(tmp, target) < 0)
		return bg_error("cannot rename '%s' to '%s': %s", tmp, target,
				strerror(errno));
	return 1;
}

/*
 * Gives the complete temporary file `tmp` the first free name
 * "<dir>/<prefix><stem>[-N].json" that reserved() (may be NULL) does not
 * hold back, into `target`: 1 when placed, < 0 on error (none free).
 */
static int place_under_free_name(const char *tmp, const char *dir,
				 const char *prefix, const char *stem,
				 bool (*reserved)(const char *name, void *data),
				 void *data, struct strbuf *target)
{
	struct strbuf name = STRBUF_INIT;
	int placed = 0;

	for (unsigned attempt = 0; !placed; attempt++) {
		if (attempt == STORE_NAME_ATTEMPTS_MAX) {
			placed = bg_error("cannot find a free name for '%s' "
					  "in '%s'",
					  stem, dir);
			break;
		}
		store_name_candidate(&name, stem, attempt);
		if (reserved && reserved(name.buf, data))
			continue;
		strbuf_reset(target);
		strbuf_addf(target, "%s/%s%s.json", dir, prefix, name.buf);
		placed = place_file(tmp, target->buf);
	}
	strbuf_release(&name);
	return placed;
}

struct reserved_names {
	const char *dir;
	const char *flat; /* the flat twin of dir (result_location()) */
	const struct store_slot *slot;
};

/* Whether the result file of `name` exists in the directory `dir`. */
static bool result_in(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	bool exists;

	strbuf_addf(&path, "%s/%s.json", dir, name);
	exists = path_exists(path.buf);
	strbuf_release(&path);
	return exists;
}

/* The slot's own name (tried first), every name a run in progress
 * reserved (a logs/ directory without a result), and the names of the
 * flat folder: one name never stands for two results of a commit, so
 * that `store migrate` can move them into the shard. */
static bool name_reserved(const char *name, void *data)
{
	const struct reserved_names *reserved = data;
	struct strbuf probe = STRBUF_INIT;
	bool taken;

	if (reserved->slot && !strcmp(name, reserved->slot->name))
		return true;
	strbuf_addf(&probe, "%s/logs/%s", reserved->dir, name);
	taken = path_exists(probe.buf) || result_in(reserved->flat, name);
	strbuf_release(&probe);
	return taken;
}

/* Whether the result file of `name` exists in the shard's directory or
 * in its flat twin (struct reserved_names). */
static bool result_exists(const char *name, void *data)
{
	const struct reserved_names *reserved = data;

	return result_in(reserved->dir, name) ||
	       result_in(reserved->flat, name);
}

static int dir_reserve(struct store *store, const struct result *r,
		       struct store_slot **out)
{
	struct strbuf dir = STRBUF_INIT, stem = STRBUF_INIT;
	struct strbuf name = STRBUF_INIT, logs = STRBUF_INIT;
	struct strbuf where = STRBUF_INIT, tmp = STRBUF_INIT;
	struct strbuf flat = STRBUF_INIT;
	struct reserved_names places;
	int lock = -1, tmp_dir = -1, error;

	*out = NULL;
	if ((error = result_location(store, r, &dir, &stem, &flat)) < 0)
		goto done;
	places = (struct reserved_names){ dir.buf, flat.buf, NULL };
	strbuf_addf(&logs, "%s/logs", dir.buf);
	strbuf_addf(&where, "in '%s'", dir.buf);
	if ((error = mkdir_p(logs.buf)) < 0 ||
	    (error = lock_store(store, &lock)) < 0)
		goto done;
	/* a run's start is where a dead run's leftovers go */
	if ((error = tmp_dir = open_tmp_dir(store, &tmp)) < 0)
		goto done;
	reclaim_temporaries(tmp_dir);
	if ((error = store_claim_name(stem.buf, 0, logs.buf, result_exists,
				      &places, where.buf, &name)) < 0)
		goto done;
	*out = store_slot_new(dir.buf, name.buf);
done:
	if (tmp_dir >= 0)
		close(tmp_dir);
	unlock_file(lock);
	strbuf_release(&tmp);
	strbuf_release(&dir);
	strbuf_release(&flat);
	strbuf_release(&stem);
	strbuf_release(&name);
	strbuf_release(&logs);
	strbuf_release(&where);
	return error;
}

/* Writes r (its `document` when given) to a new file after the mkstemp(3)
 * template `tmp`; `tmp` then holds its name, or "" on error (nothing left
 * behind). */
static int write_temporary(const struct result *r,
			   const struct strbuf *document, struct strbuf *tmp)
{
	struct strbuf json = STRBUF_INIT;
	int error;

	if (document)
		error = write_file_temporary(tmp, document->buf, document->len);
	else if ((error = result_to_json_checked(r, &json, "the result")) == 0)
		error = write_file_temporary(tmp, json.buf, json.len);
	else
		strbuf_reset(tmp);
	strbuf_release(&json);
	return error;
}

static int dir_write(struct store *store, const struct result *r,
		     const struct store_slot *slot,
		     const struct strbuf *document, struct strbuf *path_out)
{
	struct strbuf dir = STRBUF_INIT, stem = STRBUF_INIT;
	struct strbuf tmp = STRBUF_INIT, target = STRBUF_INIT;
	struct strbuf flat = STRBUF_INIT;
	int lock = -1, tmp_dir = -1, placed = 0, error;

	if ((error = result_location(store, r, &dir, &stem, &flat)) < 0)
		goto done;
	/* A slot of another commit or machine is a caller's mistake. */
	assert(!slot || !strcmp(slot->dir, dir.buf));
	if ((error = mkdir_p(dir.buf)) < 0 ||
	    (error = lock_store(store, &lock)) < 0)
		goto done;
	/*
	 * The temporary file is made and placed (or removed) under the
	 * lock, in the one directory reclaim_temporaries() empties, so that
	 * a writer killed midway leaves nothing the next one does not find.
	 * A dot directory: listings never see it.
	 */
	if ((tmp_dir = open_tmp_dir(store, &tmp)) < 0) {
		error = tmp_dir;
		strbuf_reset(&tmp);
		goto done;
	}
	reclaim_temporaries(tmp_dir);
	strbuf_addstr(&tmp, "/XXXXXX");
	if ((error = write_temporary(r, document, &tmp)) < 0)
		goto done;
	if (slot) {
		strbuf_addf(&target, "%s/%s.json", dir.buf, slot->name);
		placed = place_file(tmp.buf, target.buf);
	}
	if (!placed) {
		struct reserved_names reserved = { dir.buf, flat.buf, slot };

		strbuf_reset(&target);
		placed = place_under_free_name(tmp.buf, dir.buf, "", stem.buf,
					       name_reserved, &reserved,
					       &target);
	}
	if (placed < 0) {
		error = placed;
		goto done;
	}
	unlink(tmp.buf);
	strbuf_reset(&tmp);
	fsync_dir(dir.buf);
	if (path_out)
		strbuf_addstr(path_out, target.buf);
done:
	if (tmp.len)
		unlink(tmp.buf);
	if (tmp_dir >= 0)
		close(tmp_dir);
	unlock_file(lock);
	strbuf_release(&dir);
	strbuf_release(&flat);
	strbuf_release(&stem);
	strbuf_release(&tmp);
	strbuf_release(&target);
	return error;
}

int store_write_aside(const struct result *r, const char *dir,
		      struct strbuf *path_out)
{
	struct strbuf stem = STRBUF_INIT, tmp = STRBUF_INIT;
	struct strbuf target = STRBUF_INIT;
	int placed, error;

	if ((error = store_result_stem(r, &stem)) < 0)
		goto done;
	/* a dot name that says whose it is, should this process die */
	strbuf_addf(&tmp, "%s/." STORE_ASIDE_PREFIX "XXXXXX", dir);
	if ((error = write_temporary(r, NULL, &tmp)) < 0)
		goto done;
	placed = place_under_free_name(tmp.buf, dir, STORE_ASIDE_PREFIX,
				       stem.buf, NULL, NULL, &target);
	if (placed < 0) {
		error = placed;
		goto done;
	}
	fsync_dir(dir);
	strbuf_add(path_out, target.buf, target.len);
done:
	if (tmp.len)
		unlink(tmp.buf);
	strbuf_release(&stem);
	strbuf_release(&tmp);
	strbuf_release(&target);
	return error;
}

/* Opens a directory that may legitimately be absent (*out NULL, BG_OK). */
static int open_dir(DIR **out, const char *path)
{
	*out = opendir(path);
	if (*out || errno == ENOENT || errno == ENOTDIR)
		return BG_OK;
	return bg_error("cannot read directory '%s': %s", path,
			strerror(errno));
}

/* The results in "<commit_dir>/<machine>", commit_dir absolute. */
static int list_machine(struct store *store, const char *commit_dir,
			const char *commit, const char *machine,
			const char *suite, struct store_entry_list *list)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	struct dirent *de;
	DIR *d = NULL;
	int error;

	strbuf_addf(&dir, "%s/%s", commit_dir, machine);
	if ((error = open_dir(&d, dir.buf)) < 0 || !d)
		goto done;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "logs"))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir.buf, de->d_name);
		store_list_add(store, list, path.buf, de->d_name, commit,
			       machine, suite);
	}
done:
	if (d)
		closedir(d);
	strbuf_release(&dir);
	strbuf_release(&path);
	return error;
}

/* The results of one commit folder, "<root>/<rel>" ("<shard>/<commit>"
 * or the flat "<commit>"). */
static int list_commit(struct store *store, const char *rel,
		       const char *commit, const struct store_query *q,
		       const char *suite, struct store_entry_list *list)
{
	struct strbuf dir = STRBUF_INIT;
	struct dirent *de;
	DIR *d = NULL;
	int error;

	strbuf_addf(&dir, "%s/%s", store->location, rel);
	if (q->machine) {
		error = list_machine(store, dir.buf, commit, q->machine, suite,
				     list);
		goto done;
	}
	if ((error = open_dir(&d, dir.buf)) < 0 || !d)
		goto done;
	while (!error && (de = readdir(d)))
		if (result_machine_id_valid(de->d_name))
			error = list_machine(store, dir.buf, commit,
					     de->d_name, suite, list);
done:
	if (d)
		closedir(d);
	strbuf_release(&dir);
	return error;
}

/* Both places of one commit: its shard's folder, then the flat one. */
static int list_full_id(struct store *store, const char *commit,
			const struct store_query *q, const char *suite,
			struct store_entry_list *list)
{
	struct strbuf rel = STRBUF_INIT;
	int error;

	store_commit_dir(commit, &rel);
	error = list_commit(store, rel.buf, commit, q, suite, list);
	if (!error && store_commit_has_flat_dir(commit))
		error = list_commit(store, commit, commit, q, suite, list);
	strbuf_release(&rel);
	return error;
}

/* The commit folders of the shard "<root>/<shard>" that start with
 * prefix. */
static int list_shard(struct store *store, const char *shard,
		      const char *prefix, const struct store_query *q,
		      const char *suite, struct store_entry_list *list)
{
	struct strbuf dir = STRBUF_INIT, rel = STRBUF_INIT;
	struct dirent *de;
	DIR *d = NULL;
	int error;

	strbuf_addf(&dir, "%s/%s", store->location, shard);
	if ((error = open_dir(&d, dir.buf)) < 0 || !d)
		goto done;
	while (!error && (de = readdir(d))) {
		/* a commit in the wrong shard is not where readers of its
		 * id look: left out here too, so listings agree */
		if (!store_commit_name_valid(de->d_name) ||
		    !store_commit_has_flat_dir(de->d_name) ||
		    strncmp(de->d_name, shard, STORE_SHARD_LEN) ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		strbuf_reset(&rel);
		strbuf_addf(&rel, "%s/%s", shard, de->d_name);
		error = list_commit(store, rel.buf, de->d_name, q, suite, list);
	}
done:
	if (d)
		closedir(d);
	strbuf_release(&dir);
	strbuf_release(&rel);
	return error;
}

static int dir_list(struct store *store, const struct store_query *q,
		    struct store_entry **entries, size_t *nr)
{
	struct store_entry_list list = { 0 };
	struct strbuf suite = STRBUF_INIT, prefix = STRBUF_INIT;
	const char *suite_name = NULL;
	struct dirent *de;
	DIR *d = NULL;
	int error = BG_OK;

	if (q->commits)
		return store_list_each_commit(store, q, dir_list, entries, nr);

	if (q->suite) {
		if ((error = store_suite_filename(q->suite, &suite)) < 0)
			goto done;
		suite_name = suite.buf;
	}
	if (q->commit) {
		if ((error = store_commit_prefix(q->commit, &prefix)) < 0)
			goto done;
		if (store_commit_name_valid(prefix.buf)) {
			error = list_full_id(store, prefix.buf, q, suite_name,
					     &list);
			goto done;
		}
	}
	/* No full id: the one place where the whole history is walked.
	 * The root holds shards, "unknown" and the flat commit folders of
	 * stores written before shards (`store migrate` moves them). */
	if ((error = open_dir(&d, store->location)) < 0 || !d)
		goto done;
	while (!error && (de = readdir(d))) {
		if (store_shard_name_valid(de->d_name)) {
			if (!strncmp(de->d_name, prefix.buf,
				     prefix.len < STORE_SHARD_LEN
					     ? prefix.len
					     : STORE_SHARD_LEN))
				error = list_shard(store, de->d_name,
						   prefix.buf, q, suite_name,
						   &list);
			continue;
		}
		if (!store_commit_name_valid(de->d_name) ||
		    strncmp(de->d_name, prefix.buf, prefix.len))
			continue;
		error = list_commit(store, de->d_name, de->d_name, q,
				    suite_name, &list);
	}
done:
	if (d)
		closedir(d);
	strbuf_release(&suite);
	strbuf_release(&prefix);
	return store_list_finish(&list, error, entries, nr);
}

static int dir_load(struct store *store, const struct store_entry *entry,
		    struct result **out)
{
	struct result *r = NULL;
	int error;

	*out = NULL;
	if ((error = result_load(&r, entry->path)) < 0 ||
	    (error = store_check_placement(entry, r)) < 0) {
		store_warn_once(store, entry->path, "%s; skipped",
				bg_error_last());
		result_free(r);
		return error;
	}
	*out = r;
	return BG_OK;
}

/* Reading a result's files, never through a link */

/* Opens the directory of rel's components but the last (below base,
 * itself opened as a path) without following links; *last is rel's
 * last component. A descriptor, or < 0 recorded. */
static int open_parent_nofollow(const char *base, const char *rel,
				const char **last)
{
	struct strbuf component = STRBUF_INIT;
	const char *p = rel, *slash;
	int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? bg_notfound("cannot open directory "
						     "'%s': %s",
						     base, strerror(errno))
				       : bg_error("cannot open directory '%s': "
						  "%s",
						  base, strerror(errno));
	while ((slash = strchr(p, '/'))) {
		int next;

		strbuf_reset(&component);
		strbuf_add(&component, p, (size_t)(slash - p));
		next = dir_open_at(fd, component.buf, false, rel);
		close(fd);
		if ((fd = next) < 0)
			break;
		p = slash + 1;
	}
	*last = p;
	strbuf_release(&component);
	return fd;
}

static int dir_read_file(struct store *store, const struct store_entry *entry,
			 const char *rel, struct strbuf *out)
{
	struct strbuf base = STRBUF_INIT, shown = STRBUF_INIT;
	const char *slash = strrchr(entry->path, '/'), *last = NULL;
	int fd, error;

	(void)store;
	assert(slash);
	strbuf_add(&base, entry->path, (size_t)(slash - entry->path));
	if (!rel)
		rel = slash + 1;
	strbuf_addf(&shown, "%s/%s", base.buf, rel);
	if ((fd = open_parent_nofollow(base.buf, rel, &last)) < 0) {
		error = fd;
		goto done;
	}
	error = read_file_at(out, fd, last, O_NOFOLLOW, RESULT_MAX_BYTES,
			     shown.buf);
	close(fd);
done:
	strbuf_release(&base);
	strbuf_release(&shown);
	return error;
}

/* Appends the regular files below the directory descriptor dir (taken
 * over and closed), named "<prefix>/<path below dir>". */
static int collect_files(int dir, const char *prefix, struct store_paths *out)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *de;
	DIR *d = fdopendir(dir);
	int error = BG_OK;

	if (!d) {
		close(dir);
		return bg_error("cannot read directory '%s': %s", prefix,
				strerror(errno));
	}
	while (!error && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", prefix, de->d_name);
		if (S_ISDIR(st.st_mode)) {
			int sub = dir_open_at(dirfd(d), de->d_name, false,
					      path.buf);

			error = sub < 0 ? sub : collect_files(sub, path.buf, out);
		} else if (S_ISREG(st.st_mode)) {
			ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			out->items[out->nr++] = strbuf_detach(&path, NULL);
		}
	}
	closedir(d);
	strbuf_release(&path);
	return error;
}

static int dir_entry_files(struct store *store, const struct store_entry *entry,
			   struct store_paths *out)
{
	static const char *const areas[] = { "logs", "artifacts" };
	struct strbuf name = STRBUF_INIT, rel = STRBUF_INIT;
	struct strbuf base = STRBUF_INIT;
	const char *slash = strrchr(entry->path, '/');
	int error = BG_OK;

	assert(slash);
	strbuf_add(&base, entry->path, (size_t)(slash - entry->path));
	store_entry_name(entry, &name);
	for (size_t i = 0; i < 2 && !error; i++) {
		const char *last = NULL;
		int parent, fd;

		strbuf_reset(&rel);
		strbuf_addf(&rel, "%s/%s", areas[i], name.buf);
		parent = open_parent_nofollow(base.buf, rel.buf, &last);
		if (parent == BG_ENOTFOUND) {
			bg_error_clear();
			continue;
		}
		if ((error = parent) < 0)
			break;
		fd = dir_open_at(parent, last, false, rel.buf);
		close(parent);
		if (fd == BG_ENOTFOUND) {
			bg_error_clear();
			continue;
		}
		error = fd < 0 ? fd : collect_files(fd, rel.buf, out);
	}
	(void)store;
	strbuf_release(&name);
	strbuf_release(&rel);
	strbuf_release(&base);
	return error;
}

/* Rewriting */

/* Removes the result of entry: its document, then what it owns, then
 * the directories left empty (rmdir() leaves any that is not). */
static int remove_result(struct store *store, const struct store_entry *entry)
{
	struct strbuf dir = STRBUF_INIT, name = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	const char *slash = strrchr(entry->path, '/');
	int error = BG_OK;

	assert(slash);
	strbuf_add(&dir, entry->path, (size_t)(slash - entry->path));
	store_entry_name(entry, &name);
	if (unlink(entry->path) < 0 && errno != ENOENT) {
		error = bg_error("cannot remove '%s': %s", entry->path,
				 strerror(errno));
		goto done;
	}
	for (int area = 0; area < 2; area++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir.buf,
			    area ? "artifacts" : "logs");
		strbuf_addf(&path, "/%s", name.buf);
		remove_tree(path.buf);
		strbuf_setlen(&path, path.len - name.len - 1);
		rmdir(path.buf);
	}
	fsync_dir(dir.buf);
	/* <machine>/, then <commit>/, then its shard, never the root */
	for (int level = 0; level < 3 && rmdir(dir.buf) == 0; level++) {
		if (!(slash = strrchr(dir.buf, '/')))
			break;
		strbuf_setlen(&dir, (size_t)(slash - dir.buf));
		if (!strcmp(dir.buf, store->location))
			break;
	}
done:
	strbuf_release(&dir);
	strbuf_release(&name);
	strbuf_release(&path);
	return error;
}

/* Replaces the document of entry by `document`, through a temporary file
 * in the store's .tmp (tmp_path its template's directory). */
static int replace_result(const struct store_entry *entry,
			  const struct strbuf *document, const char *tmp_path)
{
	struct strbuf tmp = STRBUF_INIT;
	const char *slash = strrchr(entry->path, '/');
	int error;

	strbuf_addf(&tmp, "%s/XXXXXX", tmp_path);
	if ((error = write_file_temporary(&tmp, document->buf,
					  document->len)) < 0)
		goto done;
	if (rename(tmp.buf, entry->path) < 0) {
		error = bg_error("cannot replace '%s': %s", entry->path,
				 strerror(errno));
		unlink(tmp.buf);
		goto done;
	}
	strbuf_reset(&tmp);
	strbuf_add(&tmp, entry->path, (size_t)(slash - entry->path));
	fsync_dir(tmp.buf);
done:
	strbuf_release(&tmp);
	return error;
}

static int dir_rewrite(struct store *store, const struct store_change *changes,
		       size_t nr, const char *message, unsigned flags)
{
	struct strbuf tmp = STRBUF_INIT;
	int lock = -1, tmp_dir = -1, error = BG_OK;

	(void)message;
	if (flags & STORE_REWRITE_SQUASH)
		return bg_input_error("store '%s' is a directory: it has no "
				      "history to squash",
				      store->location);
	if ((error = lock_store(store, &lock)) < 0)
		goto done;
	if ((error = tmp_dir = open_tmp_dir(store, &tmp)) < 0)
		goto done;
	reclaim_temporaries(tmp_dir);
	error = BG_OK;
	for (size_t i = 0; i < nr && !error; i++)
		error = changes[i].document
				? replace_result(changes[i].entry,
						 changes[i].document, tmp.buf)
				: remove_result(store, changes[i].entry);
done:
	if (tmp_dir >= 0)
		close(tmp_dir);
	unlock_file(lock);
	strbuf_release(&tmp);
	return error;
}

/* Migrating flat commit folders into shards (store_migrate()) */

struct dir_migration {
	struct store *store;
	bool dry_run;
	struct store_migration *report;
	size_t files, left; /* of the folder being moved */
	unsigned long long bytes;
};

/* Counts the files below path (itself included when it is not a
 * directory) as moved, never following a link. */
static void count_moved(struct dir_migration *m, const char *path)
{
	struct strbuf sub = STRBUF_INIT;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		m->files++;
		m->bytes += S_ISREG(st.st_mode) ? (unsigned long long)st.st_size
						: 0;
		return;
	}
	if (!(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s/%s", path, de->d_name);
		count_moved(m, sub.buf);
	}
	closedir(d);
	strbuf_release(&sub);
}

/* Whether the regular files a and b hold the same bytes. */
static bool same_content(const char *a, const char *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same = strbuf_read_file(&x, a) >= 0 &&
		    strbuf_read_file(&y, b) >= 0 && x.len == y.len &&
		    !memcmp(x.buf, y.buf, x.len);

	bg_error_clear();
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

/*
 * Moves src to dst: a rename when dst does not exist; when both are
 * directories, what src holds, one by one, then src if it is left
 * empty; a file whose place is taken is dropped when it holds the same
 * bytes, else left (warned about).
 */
static int migrate_path(struct dir_migration *m, const char *src,
			const char *dst)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	struct stat s_st, d_st;
	struct dirent *de;
	DIR *d = NULL;
	int error = BG_OK;

	if (lstat(src, &s_st) < 0)
		goto done;
	if (lstat(dst, &d_st) < 0) {
		if (errno != ENOENT) {
			error = bg_error("cannot read '%s': %s", dst,
					 strerror(errno));
			goto done;
		}
		count_moved(m, src);
		if (!m->dry_run && rename(src, dst) < 0)
			error = bg_error("cannot move '%s' to '%s': %s", src,
					 dst, strerror(errno));
		goto done;
	}
	if (S_ISDIR(s_st.st_mode) && S_ISDIR(d_st.st_mode)) {
		if (!(d = opendir(src))) {
			error = bg_error("cannot read directory '%s': %s", src,
					 strerror(errno));
			goto done;
		}
		while (!error && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			strbuf_reset(&from);
			strbuf_addf(&from, "%s/%s", src, de->d_name);
			strbuf_reset(&to);
			strbuf_addf(&to, "%s/%s", dst, de->d_name);
			error = migrate_path(m, from.buf, to.buf);
		}
		if (!m->dry_run)
			rmdir(src);
		goto done;
	}
	if (S_ISREG(s_st.st_mode) && S_ISREG(d_st.st_mode) &&
	    same_content(src, dst)) {
		m->files++;
		if (!m->dry_run && unlink(src) < 0)
			error = bg_error("cannot remove '%s': %s", src,
					 strerror(errno));
		goto done;
	}
	m->left++;
	store_warn_once(m->store, src,
			"'%s' %s where it is: '%s' holds other content", src,
			m->dry_run ? "would stay" : "stays", dst);
done:
	if (d)
		closedir(d);
	strbuf_release(&from);
	strbuf_release(&to);
	return error;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The flat commit folders at the root, sorted. */
static int flat_folders(struct store *store, struct store_paths *out)
{
	struct dirent *de;
	DIR *d = NULL;
	int error;

	if ((error = open_dir(&d, store->location)) < 0 || !d)
		return error;
	while ((de = readdir(d))) {
		if (!store_commit_name_valid(de->d_name) ||
		    !store_commit_has_flat_dir(de->d_name))
			continue;
		ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		out->items[out->nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (out->nr > 1)
		qsort(out->items, out->nr, sizeof(*out->items), compare_names);
	return BG_OK;
}

static int dir_migrate(struct store *store, bool dry_run, FILE *listing,
		       struct store_migration *report)
{
	struct dir_migration m = { store, dry_run, report, 0, 0, 0 };
	struct store_paths folders = { 0 };
	struct strbuf src = STRBUF_INIT, dst = STRBUF_INIT;
	int lock = -1, error;

	if ((error = flat_folders(store, &folders)) < 0 || !folders.nr)
		goto done;
	/* writers place results under the lock: none moves meanwhile */
	if (!dry_run && (error = lock_store(store, &lock)) < 0)
		goto done;
	for (size_t i = 0; i < folders.nr && !error; i++) {
		const char *commit = folders.items[i];

		m.files = m.left = 0;
		m.bytes = 0;
		strbuf_reset(&src);
		strbuf_addf(&src, "%s/%s", store->location, commit);
		strbuf_reset(&dst);
		strbuf_addf(&dst, "%s/", store->location);
		store_commit_dir(commit, &dst);
		/* the shard, made first (a rename needs its parent) */
		strbuf_setlen(&dst, dst.len - strlen(commit) - 1);
		if (!dry_run && (error = mkdir_p(dst.buf)) < 0)
			break;
		strbuf_addf(&dst, "/%s", commit);
		error = migrate_path(&m, src.buf, dst.buf);
		if (!dry_run && !error)
			fsync_dir(store->location);
		report->folders++;
		report->files += m.files;
		report->left += m.left;
		report->bytes += m.bytes;
		store_migration_line(listing, dry_run, commit, m.files,
				     m.bytes, m.left);
	}
done:
	unlock_file(lock);
	store_paths_release(&folders);
	strbuf_release(&src);
	strbuf_release(&dst);
	return error;
}

static const struct store_backend dir_backend = {
	.reserve = dir_reserve,
	.write = dir_write,
	.list = dir_list,
	.load = dir_load,
	.read_file = dir_read_file,
	.entry_files = dir_entry_files,
	.rewrite = dir_rewrite,
	.migrate = dir_migrate,
};

static void current_directory(struct strbuf *out)
{
	size_t size = 256;

	for (;;) {
		strbuf_grow(out, size);
		if (getcwd(out->buf + out->len, size)) {
			strbuf_setlen(out,
				      out->len + strlen(out->buf + out->len));
			return;
		}
		if (errno != ERANGE) {
			/* The directory was removed under us: relative paths
			 * still work, only messages lose the prefix. */
			strbuf_addch(out, '.');
			return;
		}
		size *= 2;
	}
}

int store_dir_open(struct store **out, const char *path)
{
	struct strbuf location = STRBUF_INIT;
	struct stat st;

	*out = NULL;
	if (path[0] != '/') {
		current_directory(&location);
		while (!strncmp(path, "./", 2))
			path += 2;
		strbuf_addch(&location, '/');
	}
	strbuf_addstr(&location, path);
	while (location.len > 1 && location.buf[location.len - 1] == '/')
		strbuf_setlen(&location, location.len - 1);
	if (stat(location.buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
		bg_input_error("store '%s' is not a directory", location.buf);
		strbuf_release(&location);
		return BG_EINPUT;
	}
	*out = store_new(&dir_backend, strbuf_detach(&location, NULL), NULL);
	(*out)->cache_dir = xstrdup((*out)->location);
	return BG_OK;
}
