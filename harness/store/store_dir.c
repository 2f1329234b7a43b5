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

/* "<root>/<commit>/<machine>" and the stem of the file name for a
 * result. */
static int result_location(struct store *store, const struct result *r,
			   struct strbuf *dir, struct strbuf *stem)
{
	int error = store_result_stem(r, stem);

	if (error < 0)
		return error;
	strbuf_addf(dir, "%s/%s/%s", store->location, r->git.commit,
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
	const struct store_slot *slot;
};

/* The slot's own name (tried first), and every name a run in progress
 * reserved: a logs/ directory without a result. */
static bool name_reserved(const char *name, void *data)
{
	const struct reserved_names *reserved = data;
	struct strbuf probe = STRBUF_INIT;
	bool taken;

	if (reserved->slot && !strcmp(name, reserved->slot->name))
		return true;
	strbuf_addf(&probe, "%s/logs/%s", reserved->dir, name);
	taken = path_exists(probe.buf);
	strbuf_release(&probe);
	return taken;
}

/* Whether the result file of `name` exists in the directory `dir`. */
static bool result_exists(const char *name, void *dir)
{
	struct strbuf path = STRBUF_INIT;
	bool exists;

	strbuf_addf(&path, "%s/%s.json", (const char *)dir, name);
	exists = path_exists(path.buf);
	strbuf_release(&path);
	return exists;
}

static int dir_reserve(struct store *store, const struct result *r,
		       struct store_slot **out)
{
	struct strbuf dir = STRBUF_INIT, stem = STRBUF_INIT;
	struct strbuf name = STRBUF_INIT, logs = STRBUF_INIT;
	struct strbuf where = STRBUF_INIT, tmp = STRBUF_INIT;
	int lock = -1, tmp_dir = -1, error;

	*out = NULL;
	if ((error = result_location(store, r, &dir, &stem)) < 0)
		goto done;
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
				      dir.buf, where.buf, &name)) < 0)
		goto done;
	*out = store_slot_new(dir.buf, name.buf);
done:
	if (tmp_dir >= 0)
		close(tmp_dir);
	unlock_file(lock);
	strbuf_release(&tmp);
	strbuf_release(&dir);
	strbuf_release(&stem);
	strbuf_release(&name);
	strbuf_release(&logs);
	strbuf_release(&where);
	return error;
}

/* Writes r to a new file after the mkstemp(3) template `tmp`; `tmp` then
 * holds its name, or "" on error (nothing left behind). */
static int write_temporary(const struct result *r, struct strbuf *tmp)
{
	struct strbuf json = STRBUF_INIT;
	int error;

	if ((error = result_to_json_checked(r, &json, "the result")) == 0)
		error = write_file_temporary(tmp, json.buf, json.len);
	else
		strbuf_reset(tmp);
	strbuf_release(&json);
	return error;
}

static int dir_write(struct store *store, const struct result *r,
		     const struct store_slot *slot, struct strbuf *path_out)
{
	struct strbuf dir = STRBUF_INIT, stem = STRBUF_INIT;
	struct strbuf tmp = STRBUF_INIT, target = STRBUF_INIT;
	int lock = -1, tmp_dir = -1, placed = 0, error;

	if ((error = result_location(store, r, &dir, &stem)) < 0)
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
	if ((error = write_temporary(r, &tmp)) < 0)
		goto done;
	if (slot) {
		strbuf_addf(&target, "%s/%s.json", dir.buf, slot->name);
		placed = place_file(tmp.buf, target.buf);
	}
	if (!placed) {
		struct reserved_names reserved = { dir.buf, slot };

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
	if ((error = write_temporary(r, &tmp)) < 0)
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

static int list_machine(struct store *store, const char *commit,
			const char *machine, const char *suite,
			struct store_entry_list *list)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	struct dirent *de;
	DIR *d = NULL;
	int error;

	strbuf_addf(&dir, "%s/%s/%s", store->location, commit, machine);
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

static int list_commit(struct store *store, const char *commit,
		       const struct store_query *q, const char *suite,
		       struct store_entry_list *list)
{
	struct strbuf dir = STRBUF_INIT;
	struct dirent *de;
	DIR *d = NULL;
	int error;

	if (q->machine) {
		error = list_machine(store, commit, q->machine, suite, list);
		goto done;
	}
	strbuf_addf(&dir, "%s/%s", store->location, commit);
	if ((error = open_dir(&d, dir.buf)) < 0 || !d)
		goto done;
	while (!error && (de = readdir(d)))
		if (result_machine_id_valid(de->d_name))
			error = list_machine(store, commit, de->d_name, suite,
					     list);
done:
	if (d)
		closedir(d);
	strbuf_release(&dir);
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

	if (q->suite) {
		if ((error = store_suite_filename(q->suite, &suite)) < 0)
			goto done;
		suite_name = suite.buf;
	}
	if (q->commit) {
		if ((error = store_commit_prefix(q->commit, &prefix)) < 0)
			goto done;
		if (store_commit_name_valid(prefix.buf)) {
			error = list_commit(store, prefix.buf, q, suite_name,
					    &list);
			goto done;
		}
	}
	/* No full id: the one place where the whole history is walked. */
	if ((error = open_dir(&d, store->location)) < 0 || !d)
		goto done;
	while (!error && (de = readdir(d))) {
		if (!store_commit_name_valid(de->d_name) ||
		    strncmp(de->d_name, prefix.buf, prefix.len))
			continue;
		error = list_commit(store, de->d_name, q, suite_name, &list);
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

/* Reads up to max bytes of the regular file name of dir, no link. */
static int read_capped_at(int dir, const char *name, size_t max,
			  struct strbuf *out, bool *truncated,
			  const char *shown)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					   O_CLOEXEC);
	size_t start = out->len;
	struct stat st;
	int error = BG_OK;

	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR
			       ? bg_notfound("'%s': no such file", shown)
			       : bg_error("cannot open '%s': %s", shown,
					  strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bg_notfound("'%s': not a regular file", shown);
	}
	while (out->len - start < max) {
		size_t want = max - (out->len - start);
		ssize_t got;

		strbuf_grow(out, want < 65536 ? want : 65536);
		got = read(fd, out->buf + out->len,
			   want < 65536 ? want : 65536);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			error = bg_error("cannot read '%s': %s", shown,
					 strerror(errno));
			break;
		}
		if (!got)
			break;
		strbuf_setlen(out, out->len + (size_t)got);
	}
	if (!error && out->len - start == max) {
		char more;

		*truncated = read(fd, &more, 1) == 1;
	}
	if (error)
		strbuf_setlen(out, start);
	close(fd);
	return error;
}

static int dir_read_beside(struct store *store, const struct store_entry *entry,
			   const char *relative, size_t max,
			   struct strbuf *out, bool *truncated)
{
	struct strbuf path = STRBUF_INIT, part = STRBUF_INIT;
	const char *slash = strrchr(entry->path, '/');
	int dir, error = BG_OK;

	(void)store;
	strbuf_add(&path, entry->path,
		   slash ? (size_t)(slash - entry->path) : 0);
	if (!path.len)
		strbuf_addch(&path, '.');
	dir = open(path.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		error = bg_notfound("'%s': no such directory", path.buf);
		goto done;
	}
	/* every directory below the result's without following a link */
	for (const char *p = relative; !error;) {
		size_t len = strcspn(p, "/");
		int next;

		strbuf_reset(&part);
		strbuf_add(&part, p, len);
		strbuf_addf(&path, "/%s", part.buf);
		if (!p[len]) {
			error = read_capped_at(dir, part.buf, max, out,
					       truncated, path.buf);
			break;
		}
		if ((next = dir_open_at(dir, part.buf, false, path.buf)) < 0) {
			error = next;
			break;
		}
		close(dir);
		dir = next;
		p += len + 1;
	}
	close(dir);
done:
	strbuf_release(&path);
	strbuf_release(&part);
	return error;
}

static const struct store_backend dir_backend = {
	dir_reserve, dir_write, dir_list, dir_load, NULL, dir_read_beside,
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
