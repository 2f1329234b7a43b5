#include "harness/store/store.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/isotime.h"
#include "harness/store/gitinfo.h"
#include "harness/store/store_backend.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SUITE_FILENAME_MAX 200
#define TIMESTAMP_LEN	   16
/* Far beyond any real burst of runs in one second; a bound so that a
 * broken file system cannot spin the name search forever. */
#define NAME_ATTEMPTS_MAX 100000

/* Shared helpers */

static void warn_once(struct store *store, const char *key, const char *fmt,
		      ...) __attribute__((format(printf, 3, 4)));

static void warn_once(struct store *store, const char *key, const char *fmt,
		      ...)
{
	struct strbuf message = STRBUF_INIT;
	va_list ap;
	size_t i;

	/* history and baseline may read one file many times per process;
	 * one warning is enough to get it fixed. */
	for (i = 0; i < store->warned_nr; i++)
		if (!strcmp(store->warned[i], key))
			return;
	ALLOC_GROW(store->warned, store->warned_nr + 1, store->warned_alloc);
	store->warned[store->warned_nr++] = xstrdup(key);
	va_start(ap, fmt);
	strbuf_vaddf(&message, fmt, ap);
	va_end(ap);
	bg_warn("%s", message.buf);
	strbuf_release(&message);
}

/* Lower case only: that is how commit directories are named. */
static bool all_hex(const char *s, size_t len)
{
	return strspn(s, "0123456789abcdef") >= len;
}

/* The names a commit directory can have: a full SHA-1 or SHA-256 id in
 * lower case, or "unknown" for results measured outside a repository. */
static bool commit_name_valid(const char *commit)
{
	size_t len = strlen(commit);

	if (!strcmp(commit, "unknown"))
		return true;
	return (len == 40 || len == 64) && all_hex(commit, len);
}

static bool path_exists(const char *path)
{
	struct stat st;

	/* Anything but a clear "no such file" counts as taken: a name is
	 * skipped rather than risked. */
	return lstat(path, &st) == 0 || errno != ENOENT;
}

int store_suite_filename(const char *suite, struct strbuf *out)
{
	size_t i, len = strlen(suite);

	if (!len || !strcmp(suite, ".") || !strcmp(suite, ".."))
		return bg_input_error("suite name '%s' cannot name a result "
				      "file",
				      suite);
	if (len > SUITE_FILENAME_MAX)
		return bg_input_error("suite name '%.40s...' is longer than "
				      "%d bytes",
				      suite, SUITE_FILENAME_MAX);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)suite[i];
		bool safe = isalnum(c) || c == '-' || c == '_' ||
			    (c == '.' && i > 0);

		/* isalnum() is locale-dependent; only ASCII passes. */
		strbuf_addch(out, safe && c < 0x80 ? (char)c : '_');
	}
	return BG_OK;
}

/* "20261122T073422Z" for an ISO 8601 time ("2026-11-22T08:34:22+01:00"),
 * or for now when iso is NULL or not understood. */
static void timestamp_of(const char *iso, char out[TIMESTAMP_LEN + 1])
{
	struct tm tm;
	double seconds;
	time_t when = time(NULL);

	if (iso8601_parse(iso, &seconds))
		when = (time_t)floor(seconds);
	if (!gmtime_r(&when, &tm))
		memset(&tm, 0, sizeof(tm));
	strftime(out, TIMESTAMP_LEN + 1, "%Y%m%dT%H%M%SZ", &tm);
}

static bool timestamp_valid(const char *ts)
{
	int i;

	for (i = 0; i < TIMESTAMP_LEN; i++) {
		char c = ts[i];

		if (i == 8    ? c != 'T'
		    : i == 15 ? c != 'Z'
			      : !isdigit((unsigned char)c))
			return false;
	}
	return true;
}

/* Splits "<suite>-<timestamp>[-N].json"; false when the name is not one.
 * A timestamp ends in 'Z' and a suffix in a digit, so a suite name that
 * itself contains dashes and digits cannot confuse the two. */
static bool parse_result_name(const char *file, char **suite,
			      char ts[TIMESTAMP_LEN + 1], unsigned *seq)
{
	size_t len = strlen(file);
	const char *end, *stamp;

	if (len < 5 || strcmp(file + len - 5, ".json"))
		return false;
	end = file + len - 5;
	*seq = 0;
	if (end > file && end[-1] != 'Z') {
		const char *digits = end;
		unsigned long value;

		while (digits > file && isdigit((unsigned char)digits[-1]))
			digits--;
		if (digits == end || digits == file || digits[-1] != '-' ||
		    *digits == '0' || end - digits > 9)
			return false;
		value = strtoul(digits, NULL, 10);
		*seq = (unsigned)value;
		end = digits - 1;
	}
	if (end - file < TIMESTAMP_LEN + 2)
		return false;
	stamp = end - TIMESTAMP_LEN;
	if (stamp[-1] != '-' || !timestamp_valid(stamp))
		return false;
	memcpy(ts, stamp, TIMESTAMP_LEN);
	ts[TIMESTAMP_LEN] = '\0';
	*suite = xstrndup(file, (size_t)(stamp - 1 - file));
	return true;
}

static void entry_release(struct store_entry *entry)
{
	free(entry->path);
	free(entry->commit);
	free(entry->machine);
	free(entry->suite);
	result_free(entry->result);
	memset(entry, 0, sizeof(*entry));
}

void store_entries_free(struct store_entry *entries, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		entry_release(&entries[i]);
	free(entries);
}

static int compare_entries(const void *a, const void *b)
{
	const struct store_entry *x = a, *y = b;
	int order;

	if ((order = strcmp(x->timestamp, y->timestamp)))
		return order;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if ((order = strcmp(x->commit, y->commit)))
		return order;
	if ((order = strcmp(x->machine, y->machine)))
		return order;
	return strcmp(x->suite, y->suite);
}

/* Directory backend */

/* "<root>/<commit>/<machine>" and the suite's file name for a result. */
static int result_location(struct store *store, const struct result *r,
			   struct strbuf *dir, struct strbuf *suite)
{
	if (!commit_name_valid(r->git.commit))
		return bg_input_error("result commit '%s' is not a commit id "
				      "(40 hex digits) or 'unknown'",
				      r->git.commit);
	if (!result_machine_id_valid(r->machine.id))
		return bg_input_error("result machine id '%s' cannot name a "
				      "store directory",
				      r->machine.id);
	if (!r->suite)
		return bg_input_error("result has no suite name");
	strbuf_addf(dir, "%s/%s/%s", store->location, r->git.commit,
		    r->machine.id);
	return store_suite_filename(r->suite, suite);
}

static void name_candidate(struct strbuf *name, const char *stem,
			   unsigned attempt)
{
	strbuf_reset(name);
	strbuf_addstr(name, stem);
	if (attempt)
		strbuf_addf(name, "-%u", attempt);
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

static int dir_reserve(struct store *store, const struct result *r,
		       struct store_slot **out)
{
	struct strbuf dir = STRBUF_INIT, suite = STRBUF_INIT;
	struct strbuf stem = STRBUF_INIT, name = STRBUF_INIT;
	struct strbuf probe = STRBUF_INIT, log_dir = STRBUF_INIT;
	struct store_slot *slot = NULL;
	char ts[TIMESTAMP_LEN + 1];
	unsigned attempt;
	int lock = -1, error;

	*out = NULL;
	if ((error = result_location(store, r, &dir, &suite)) < 0)
		goto done;
	strbuf_addf(&probe, "%s/logs", dir.buf);
	if ((error = mkdir_p(probe.buf)) < 0)
		goto done;
	timestamp_of(r->started_at, ts);
	strbuf_addf(&stem, "%s-%s", suite.buf, ts);
	if ((error = lock_store(store, &lock)) < 0)
		goto done;
	for (attempt = 0;; attempt++) {
		if (attempt == NAME_ATTEMPTS_MAX) {
			error = bg_error("cannot find a free name for '%s' in "
					 "'%s'",
					 stem.buf, dir.buf);
			goto done;
		}
		name_candidate(&name, stem.buf, attempt);
		strbuf_reset(&probe);
		strbuf_addf(&probe, "%s/%s.json", dir.buf, name.buf);
		if (path_exists(probe.buf))
			continue;
		strbuf_reset(&log_dir);
		strbuf_addf(&log_dir, "%s/logs/%s", dir.buf, name.buf);
		if (!mkdir(log_dir.buf, 0777))
			break;
		if (errno != EEXIST) {
			error = bg_error("cannot create directory '%s': %s",
					 log_dir.buf, strerror(errno));
			goto done;
		}
	}
	slot = xcalloc(1, sizeof(*slot));
	slot->dir = strbuf_detach(&dir, NULL);
	slot->log_dir = strbuf_detach(&log_dir, NULL);
	strbuf_reset(&probe);
	strbuf_addf(&probe, "logs/%s", name.buf);
	slot->log_prefix = strbuf_detach(&probe, NULL);
	slot->name = strbuf_detach(&name, NULL);
	*out = slot;
done:
	unlock_file(lock);
	strbuf_release(&dir);
	strbuf_release(&suite);
	strbuf_release(&stem);
	strbuf_release(&name);
	strbuf_release(&probe);
	strbuf_release(&log_dir);
	return error;
}

static int write_temporary(const char *dir, const struct result *r,
			   struct strbuf *tmp)
{
	struct strbuf json = STRBUF_INIT;
	int error;

	result_to_json(r, &json);
	/* A dot name: listings ignore it if this process dies midway. */
	strbuf_addf(tmp, "%s/.tmp-XXXXXX", dir);
	error = write_file_temporary(tmp, json.buf, json.len);
	strbuf_release(&json);
	return error;
}

static int dir_write(struct store *store, const struct result *r,
		     const struct store_slot *slot, struct strbuf *path_out)
{
	struct strbuf dir = STRBUF_INIT, suite = STRBUF_INIT;
	struct strbuf stem = STRBUF_INIT, name = STRBUF_INIT;
	struct strbuf tmp = STRBUF_INIT, target = STRBUF_INIT;
	struct strbuf probe = STRBUF_INIT;
	char ts[TIMESTAMP_LEN + 1];
	unsigned attempt;
	int lock = -1, placed = 0, error;

	if ((error = result_location(store, r, &dir, &suite)) < 0)
		goto done;
	/* A slot of another commit or machine is a caller's mistake. */
	assert(!slot || !strcmp(slot->dir, dir.buf));
	if ((error = mkdir_p(dir.buf)) < 0 ||
	    (error = write_temporary(dir.buf, r, &tmp)) < 0)
		goto done;
	timestamp_of(r->started_at, ts);
	strbuf_addf(&stem, "%s-%s", suite.buf, ts);
	if ((error = lock_store(store, &lock)) < 0)
		goto done;
	if (slot) {
		strbuf_addf(&target, "%s/%s.json", dir.buf, slot->name);
		placed = place_file(tmp.buf, target.buf);
	}
	for (attempt = 0; !placed; attempt++) {
		if (attempt == NAME_ATTEMPTS_MAX) {
			placed = bg_error("cannot find a free name for '%s' "
					  "in '%s'",
					  stem.buf, dir.buf);
			break;
		}
		name_candidate(&name, stem.buf, attempt);
		if (slot && !strcmp(name.buf, slot->name))
			continue;
		/* A logs/ directory without a result is a run in progress
		 * that reserved this name. */
		strbuf_reset(&probe);
		strbuf_addf(&probe, "%s/logs/%s", dir.buf, name.buf);
		if (path_exists(probe.buf))
			continue;
		strbuf_reset(&target);
		strbuf_addf(&target, "%s/%s.json", dir.buf, name.buf);
		placed = place_file(tmp.buf, target.buf);
	}
	unlock_file(lock);
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
	strbuf_release(&dir);
	strbuf_release(&suite);
	strbuf_release(&stem);
	strbuf_release(&name);
	strbuf_release(&tmp);
	strbuf_release(&target);
	strbuf_release(&probe);
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
	struct dirent *de;
	DIR *d = NULL;
	int error = BG_OK;

	if (q->suite && (error = store_suite_filename(q->suite, &suite)) < 0)
		goto done;
	if (q->commit) {
		size_t i, len = strlen(q->commit);

		for (i = 0; i < len; i++)
			strbuf_addch(&prefix,
				     tolower((unsigned char)q->commit[i]));
		if (commit_name_valid(prefix.buf)) {
			error = list_commit(store, prefix.buf, q,
					    q->suite ? suite.buf : NULL, &list);
			goto done;
		}
		if (len < 4 || !all_hex(prefix.buf, len)) {
			error = bg_input_error("'%s' is not a commit id or a "
					       "prefix of at least 4 hex "
					       "digits",
					       q->commit);
			goto done;
		}
	}
	/* No full id: the one place where the whole history is walked. */
	if ((error = open_dir(&d, store->location)) < 0 || !d)
		goto done;
	while (!error && (de = readdir(d))) {
		if (!commit_name_valid(de->d_name) ||
		    strncmp(de->d_name, prefix.buf, prefix.len))
			continue;
		error = list_commit(store, de->d_name, q,
				    q->suite ? suite.buf : NULL, &list);
	}
done:
	if (d)
		closedir(d);
	strbuf_release(&suite);
	strbuf_release(&prefix);
	if (error < 0) {
		store_entries_free(list.items, list.nr);
		return error;
	}
	*entries = list.items;
	*nr = list.nr;
	return BG_OK;
}

static int dir_load(struct store *store, const struct store_entry *entry,
		    struct result **out)
{
	struct result *r = NULL;
	int error;

	*out = NULL;
	if ((error = result_load(&r, entry->path)) < 0) {
		warn_once(store, entry->path, "%s; skipped", bg_error_last());
		return error;
	}
	if ((error = store_check_placement(entry, r)) < 0) {
		warn_once(store, entry->path, "%s; skipped", bg_error_last());
		result_free(r);
		return error;
	}
	*out = r;
	return BG_OK;
}

static const struct store_backend dir_backend = {
	dir_reserve, dir_write, dir_list, dir_load, NULL,
};

/* Shared with the git backend (store_backend.h) */

void store_warn_once(struct store *store, const char *key, const char *fmt, ...)
{
	struct strbuf message = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&message, fmt, ap);
	va_end(ap);
	warn_once(store, key, "%s", message.buf);
	strbuf_release(&message);
}

bool store_commit_name_valid(const char *commit)
{
	return commit_name_valid(commit);
}

void store_timestamp_of(const char *iso, char out[STORE_TIMESTAMP_LEN + 1])
{
	timestamp_of(iso, out);
}

bool store_parse_result_name(const char *file, char **suite,
			     char ts[STORE_TIMESTAMP_LEN + 1], unsigned *seq)
{
	return parse_result_name(file, suite, ts, seq);
}

void store_name_candidate(struct strbuf *name, const char *stem,
			  unsigned attempt)
{
	name_candidate(name, stem, attempt);
}

int store_check_result_names(const struct result *r, struct strbuf *suite)
{
	struct strbuf dir = STRBUF_INIT;
	struct store nowhere = { .location = (char *)"" };
	int error = result_location(&nowhere, r, &dir, suite);

	strbuf_release(&dir);
	return error;
}

/* Public verbs */

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

int store_open(struct store **out, const char *spec)
{
	struct strbuf location = STRBUF_INIT;
	struct store *store;
	struct stat st;

	*out = NULL;
	if (!spec || !*spec)
		return bg_input_error("the store path is empty");
	if (!strncmp(spec, "git:", 4))
		return store_git_open(out, spec + 4);
	if (spec[0] != '/') {
		current_directory(&location);
		while (!strncmp(spec, "./", 2))
			spec += 2;
		strbuf_addch(&location, '/');
	}
	strbuf_addstr(&location, spec);
	while (location.len > 1 && location.buf[location.len - 1] == '/')
		strbuf_setlen(&location, location.len - 1);
	if (stat(location.buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
		bg_input_error("store '%s' is not a directory", location.buf);
		strbuf_release(&location);
		return BG_EINPUT;
	}
	store = xcalloc(1, sizeof(*store));
	store->backend = &dir_backend;
	store->location = strbuf_detach(&location, NULL);
	*out = store;
	return BG_OK;
}

void store_free(struct store *store)
{
	size_t i;

	if (!store)
		return;
	if (store->backend->free)
		store->backend->free(store);
	for (i = 0; i < store->warned_nr; i++)
		free(store->warned[i]);
	free(store->warned);
	free(store->location);
	free(store);
}

const char *store_location(const struct store *store)
{
	return store->location;
}

void store_default_spec(struct strbuf *out, const char *start_dir)
{
	if (gitinfo_repo_root(start_dir, out) < 0) {
		bg_error_clear();
		strbuf_addstr(out, start_dir ? start_dir : ".");
	}
	strbuf_addstr(out, "/.benchgate/results");
}

int store_reserve(struct store *store, const struct result *r,
		  struct store_slot **out)
{
	return store->backend->reserve(store, r, out);
}

void store_slot_free(struct store_slot *slot)
{
	if (!slot)
		return;
	free(slot->dir);
	free(slot->name);
	free(slot->log_dir);
	free(slot->log_prefix);
	free(slot);
}

int store_write(struct store *store, const struct result *r,
		const struct store_slot *slot, struct strbuf *path_out)
{
	return store->backend->write(store, r, slot, path_out);
}

int store_load(struct store *store, const struct store_entry *entry,
	       struct result **out)
{
	return store->backend->load(store, entry, out);
}

int store_list(struct store *store, const struct store_query *q,
	       struct store_entry **entries, size_t *nr)
{
	static const struct store_query everything;
	size_t i, kept = 0;
	int error;

	*entries = NULL;
	*nr = 0;
	if (!q)
		q = &everything;
	if (q->machine && !result_machine_id_valid(q->machine))
		return bg_input_error("'%s' is not a machine id", q->machine);
	if ((error = store->backend->list(store, q, entries, nr)) < 0)
		return error;
	if (*nr > 1)
		qsort(*entries, *nr, sizeof(**entries), compare_entries);
	if (!q->load)
		return BG_OK;
	for (i = 0; i < *nr; i++) {
		struct store_entry *entry = &(*entries)[i];

		if (store_load(store, entry, &entry->result) < 0 ||
		    (q->suite && strcmp(entry->result->suite, q->suite))) {
			entry_release(entry);
			continue;
		}
		(*entries)[kept++] = *entry;
	}
	*nr = kept;
	bg_error_clear();
	return BG_OK;
}

int store_latest(struct store *store, const struct store_query *q,
		 struct result **out, struct strbuf *path_out)
{
	struct store_query names = { 0 };
	struct store_entry *entries = NULL;
	size_t nr = 0, i;
	int error;

	*out = NULL;
	if (q)
		names = *q;
	names.load = false;
	if ((error = store_list(store, &names, &entries, &nr)) < 0)
		return error;
	for (i = nr; i-- > 0;) {
		struct result *r = NULL;

		if (store_load(store, &entries[i], &r) < 0)
			continue;
		if (q && q->suite && strcmp(r->suite, q->suite)) {
			result_free(r);
			continue;
		}
		*out = r;
		if (path_out)
			strbuf_addstr(path_out, entries[i].path);
		break;
	}
	store_entries_free(entries, nr);
	if (!*out)
		return bg_notfound("no result in '%s' matches commit '%s', "
				   "machine '%s', suite '%s'",
				   store->location,
				   q && q->commit ? q->commit : "*",
				   q && q->machine ? q->machine : "*",
				   q && q->suite ? q->suite : "*");
	return BG_OK;
}

void store_list_add(struct store *store, struct store_entry_list *list,
		    const char *path, const char *file, const char *commit,
		    const char *machine, const char *suite)
{
	struct store_entry entry = { 0 };
	size_t len = strlen(file);

	if (len < 5 || strcmp(file + len - 5, ".json"))
		return;
	if (!store_parse_result_name(file, &entry.suite, entry.timestamp,
				     &entry.seq)) {
		store_warn_once(store, path,
				"'%s': not a result file name "
				"(<suite>-<YYYYMMDDTHHMMSSZ>.json), skipped",
				path);
		return;
	}
	if (suite && strcmp(entry.suite, suite)) {
		free(entry.suite);
		return;
	}
	entry.path = xstrdup(path);
	entry.commit = xstrdup(commit);
	entry.machine = xstrdup(machine);
	ALLOC_GROW(list->items, list->nr + 1, list->alloc);
	list->items[list->nr++] = entry;
}

int store_check_placement(const struct store_entry *entry,
			  const struct result *r)
{
	if (!strcmp(r->git.commit, entry->commit) &&
	    !strcmp(r->machine.id, entry->machine))
		return BG_OK;
	return bg_input_error("'%s': records commit '%s' on machine '%s' but "
			      "is stored under '%s/%s'",
			      entry->path, r->git.commit, r->machine.id,
			      entry->commit, entry->machine);
}
