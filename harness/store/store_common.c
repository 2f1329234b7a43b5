/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/store/store_common.h"

#include "harness/store/store.h"
#include "harness/store/store_backend.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/isotime.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct store *store_new(const struct store_backend *backend, char *location,
			void *backend_data)
{
	struct store *store = xcalloc(1, sizeof(*store));

	store->backend = backend;
	store->location = location;
	store->backend_data = backend_data;
	return store;
}

void store_warn_once(struct store *store, const char *key, const char *fmt, ...)
{
	struct strbuf message = STRBUF_INIT;
	va_list ap;
	size_t i;

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

void store_cache_root(struct strbuf *out)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	const char *tmp = getenv("TMPDIR");

	if (xdg && *xdg == '/')
		strbuf_addf(out, "%s/benchgate", xdg);
	else if (home && *home == '/')
		strbuf_addf(out, "%s/.cache/benchgate", home);
	else
		strbuf_addf(out, "%s/benchgate-cache-%ld",
			    tmp && *tmp == '/' ? tmp : "/tmp", (long)getuid());
}

bool store_commit_name_valid(const char *commit)
{
	size_t len = strlen(commit);

	if (!strcmp(commit, "unknown"))
		return true;
	return (len == 40 || len == 64) && all_hex(commit, len);
}

void store_commit_dir(const char *commit, struct strbuf *out)
{
	if (store_commit_has_flat_dir(commit))
		strbuf_addf(out, "%.*s/", STORE_SHARD_LEN, commit);
	strbuf_addstr(out, commit);
}

bool store_commit_has_flat_dir(const char *commit)
{
	return strcmp(commit, "unknown") != 0;
}

bool store_shard_name_valid(const char *name)
{
	return strlen(name) == STORE_SHARD_LEN &&
	       all_hex(name, STORE_SHARD_LEN);
}

void store_migration_line(FILE *listing, bool dry_run, const char *commit,
			  size_t files, unsigned long long bytes, size_t left)
{
	if (!listing)
		return;
	fprintf(listing, "%s %s/ to %.*s/%s/: %zu files, %llu bytes",
		dry_run ? "would move" : "moved", commit, STORE_SHARD_LEN,
		commit, commit, files, bytes);
	if (left)
		fprintf(listing, ", %zu left in place", left);
	fputc('\n', listing);
}

int store_commit_prefix(const char *commit, struct strbuf *prefix)
{
	size_t i, start = prefix->len, len = strlen(commit);

	for (i = 0; i < len; i++)
		strbuf_addch(prefix, tolower((unsigned char)commit[i]));
	if (store_commit_name_valid(prefix->buf + start) ||
	    (len >= 4 && all_hex(prefix->buf + start, len)))
		return BG_OK;
	return bg_input_error("'%s' is not a commit id or a prefix of at least "
			      "4 hex digits",
			      commit);
}

/* "20261122T073422Z" for an ISO 8601 time ("2026-11-22T08:34:22+01:00"),
 * or for now when iso is NULL or not understood. */
static void timestamp_of(const char *iso, char out[STORE_TIMESTAMP_LEN + 1])
{
	struct tm tm;
	double seconds;
	time_t when = time(NULL);

	if (iso8601_parse(iso, &seconds))
		when = (time_t)floor(seconds);
	if (!gmtime_r(&when, &tm))
		memset(&tm, 0, sizeof(tm));
	strftime(out, STORE_TIMESTAMP_LEN + 1, "%Y%m%dT%H%M%SZ", &tm);
}

static bool timestamp_valid(const char *ts)
{
	int i;

	for (i = 0; i < STORE_TIMESTAMP_LEN; i++) {
		char c = ts[i];

		if (i == 8    ? c != 'T'
		    : i == 15 ? c != 'Z'
			      : !isdigit((unsigned char)c))
			return false;
	}
	return true;
}

int store_result_stem(const struct result *r, struct strbuf *stem)
{
	char ts[STORE_TIMESTAMP_LEN + 1];
	int error;

	if (!store_commit_name_valid(r->git.commit))
		return bg_input_error("result commit '%s' is not a commit id "
				      "(40 hex digits) or 'unknown'",
				      r->git.commit);
	if (!result_machine_id_valid(r->machine.id))
		return bg_input_error("result machine id '%s' cannot name a "
				      "store directory",
				      r->machine.id);
	if (!r->suite)
		return bg_input_error("result has no suite name");
	if ((error = store_suite_filename(r->suite, stem)) < 0)
		return error;
	timestamp_of(r->started_at, ts);
	strbuf_addf(stem, "-%s", ts);
	return BG_OK;
}

void store_name_candidate(struct strbuf *name, const char *stem,
			  unsigned attempt)
{
	strbuf_reset(name);
	strbuf_addstr(name, stem);
	if (attempt)
		strbuf_addf(name, "-%u", attempt);
}

int store_claim_name(const char *stem, unsigned first_attempt, const char *logs,
		     bool (*taken)(const char *name, void *data), void *data,
		     const char *where, struct strbuf *name)
{
	struct strbuf claim = STRBUF_INIT;
	unsigned attempt;
	int error = BG_OK;

	for (attempt = first_attempt;; attempt++) {
		if (attempt == STORE_NAME_ATTEMPTS_MAX) {
			error = bg_error("cannot find a free name for '%s' %s",
					 stem, where);
			break;
		}
		store_name_candidate(name, stem, attempt);
		if (taken(name->buf, data))
			continue;
		strbuf_reset(&claim);
		strbuf_addf(&claim, "%s/%s", logs, name->buf);
		if (!mkdir(claim.buf, 0777))
			break;
		if (errno != EEXIST) {
			error = bg_error("cannot create directory '%s': %s",
					 claim.buf, strerror(errno));
			break;
		}
	}
	strbuf_release(&claim);
	return error;
}

/* A timestamp ends in 'Z' and a suffix in a digit, so a suite name that
 * itself contains dashes and digits cannot confuse the two. */
bool store_parse_result_name(const char *file, char **suite,
			     char ts[STORE_TIMESTAMP_LEN + 1], unsigned *seq)
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
	if (end - file < STORE_TIMESTAMP_LEN + 2)
		return false;
	stamp = end - STORE_TIMESTAMP_LEN;
	if (stamp[-1] != '-' || !timestamp_valid(stamp))
		return false;
	memcpy(ts, stamp, STORE_TIMESTAMP_LEN);
	ts[STORE_TIMESTAMP_LEN] = '\0';
	*suite = xstrndup(file, (size_t)(stamp - 1 - file));
	return true;
}

struct store_slot *store_slot_new(const char *dir, const char *name)
{
	struct store_slot *slot = xcalloc(1, sizeof(*slot));
	struct strbuf text = STRBUF_INIT;

	slot->dir = xstrdup(dir);
	slot->name = xstrdup(name);
	strbuf_addf(&text, "%s/logs/%s", dir, name);
	slot->log_dir = strbuf_detach(&text, NULL);
	strbuf_addf(&text, "logs/%s", name);
	slot->log_prefix = strbuf_detach(&text, NULL);
	return slot;
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

int store_list_finish(struct store_entry_list *list, int error,
		      struct store_entry **entries, size_t *nr)
{
	if (error < 0) {
		store_entries_free(list->items, list->nr);
	} else {
		*entries = list->items;
		*nr = list->nr;
	}
	memset(list, 0, sizeof(*list));
	return error < 0 ? error : BG_OK;
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

void store_entry_name(const struct store_entry *entry, struct strbuf *name)
{
	const char *file = strrchr(entry->path, '/');
	size_t len;

	file = file ? file + 1 : entry->path;
	len = strlen(file);
	if (len > 5 && !strcmp(file + len - 5, ".json"))
		len -= 5;
	strbuf_add(name, file, len);
}

void store_move_path(char **path, const char *area, const char *old_name,
		     const char *name)
{
	struct strbuf prefix = STRBUF_INIT, moved = STRBUF_INIT;

	strbuf_addf(&prefix, "%s/%s", area, old_name);
	if (*path && !strncmp(*path, prefix.buf, prefix.len) &&
	    ((*path)[prefix.len] == '/' || !(*path)[prefix.len])) {
		strbuf_addf(&moved, "%s/%s%s", area, name, *path + prefix.len);
		free(*path);
		*path = strbuf_detach(&moved, NULL);
	}
	strbuf_release(&prefix);
	strbuf_release(&moved);
}

void store_rename_result(struct result *r, const char *old_name,
			 const char *name)
{
	for (size_t i = 0; i < r->cases_nr; i++) {
		struct result_case *rcase = &r->cases[i];

		store_move_path(&rcase->log, "logs", old_name, name);
		for (size_t j = 0; j < rcase->artifacts_nr; j++)
			store_move_path(&rcase->artifacts[j].path, "artifacts",
					old_name, name);
	}
}

int store_commit_set_check(const struct store_query *q)
{
	for (size_t i = 0; i < q->commits_nr; i++)
		if (!store_commit_name_valid(q->commits[i]))
			return bg_input_error("'%s' is not a full commit id",
					      q->commits[i]);
	return BG_OK;
}

int store_list_each_commit(struct store *store, const struct store_query *q,
			   int (*list)(struct store *store,
				       const struct store_query *q,
				       struct store_entry **entries,
				       size_t *nr),
			   struct store_entry **entries, size_t *nr)
{
	struct store_query one = *q;
	size_t alloc = 0;
	int error;

	*entries = NULL;
	*nr = 0;
	if ((error = store_commit_set_check(q)) < 0)
		return error;
	one.commits = NULL;
	one.commits_nr = 0;
	for (size_t i = 0; i < q->commits_nr; i++) {
		struct store_entry *some = NULL;
		size_t some_nr = 0;

		one.commit = q->commits[i];
		if ((error = list(store, &one, &some, &some_nr)) < 0) {
			store_entries_free(*entries, *nr);
			*entries = NULL;
			*nr = 0;
			return error;
		}
		ALLOC_GROW(*entries, *nr + some_nr, alloc);
		if (some_nr)
			memcpy(*entries + *nr, some, some_nr * sizeof(*some));
		*nr += some_nr;
		free(some);
	}
	return BG_OK;
}
