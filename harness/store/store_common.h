/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STORE_COMMON_H
#define BENCHGATE_STORE_COMMON_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The rules both store backends (store_dir.c, store_git.c) and `sync` name
 * and report by, written once so that a directory, a branch and a merge of
 * two branches agree on what a result's name is: the layout of store.h,
 * "<commit>/<machine>/<suite>-<timestamp>[-N].json". Nothing outside the
 * store includes this.
 */

struct result;
struct store;
struct store_backend;
struct store_entry;
struct store_query;
struct store_slot;

/* "20261122T073422Z": a result's start in UTC, as in its file name. */
#define STORE_TIMESTAMP_LEN 16

/* Far beyond any real burst of runs in one second; a bound so that a
 * broken file system or scratch directory cannot spin a name search
 * forever. */
#define STORE_NAME_ATTEMPTS_MAX 100000

/* A store of `backend` at `location` (taken over: freed by store_free()),
 * with the backend's own state (may be NULL). */
struct store *store_new(const struct store_backend *backend, char *location,
			void *backend_data);

/* bg_warn() once per store and key (a path): history and baseline read
 * one file many times per process, and one warning gets it fixed. */
void store_warn_once(struct store *store, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A full lower-case SHA-1 or SHA-256 id, or "unknown": the names a commit
 * directory can have. */
bool store_commit_name_valid(const char *commit);

/* Appends the directory under which stores keep their local caches:
 * $XDG_CACHE_HOME/benchgate, else ~/.cache/benchgate, else
 * $TMPDIR/benchgate-cache-<uid> (/tmp when unset), each only when
 * absolute. */
void store_cache_root(struct strbuf *out);

/*
 * Appends to `out` the directory of `commit`'s results relative to the
 * store's root, where new results go: "<first two hex digits>/<commit>"
 * ("38/38f97067..."), so that no directory holds more than 256 shards
 * or a few thousand commits; "unknown" (results of no commit) stays at
 * the root. commit is valid (store_commit_name_valid()).
 */
void store_commit_dir(const char *commit, struct strbuf *out);

/* Whether commit (valid) also has the older, flat place "<commit>" at
 * the root, which readers look in too: every id but "unknown". */
bool store_commit_has_flat_dir(const char *commit);

/* Whether `name` is a shard's name (STORE_SHARD_LEN lower-case hex). */
bool store_shard_name_valid(const char *name);

/* Prints the line of store_migrate()'s listing (NULL: none) for one flat
 * commit folder: "moved <commit>/ to <shard>/<commit>/: N files, B
 * bytes[, L left in place]". */
void store_migration_line(FILE *listing, bool dry_run, const char *commit,
			  size_t files, unsigned long long bytes, size_t left);

/*
 * Appends `commit` of a query in lower case to `prefix`: a full id (see
 * store_commit_name_valid()) or a prefix of at least 4 hex digits that
 * selects every commit directory it starts. BG_EINPUT otherwise.
 */
int store_commit_prefix(const char *commit, struct strbuf *prefix);

/*
 * Checks that r's commit, machine id and suite can name a place in a store
 * (BG_EINPUT naming the field otherwise) and appends the stem of its result
 * file name, "<suite file name>-<timestamp>", to `stem`. The timestamp is
 * r->started_at's in UTC, or now's when it is unset or not ISO 8601.
 */
int store_result_stem(const struct result *r, struct strbuf *stem);

/* The attempt-th name for a stem: "<stem>", "<stem>-1", "<stem>-2", ... */
void store_name_candidate(struct strbuf *name, const char *stem,
			  unsigned attempt);

/*
 * Claims a result name by the store's protocol, with the store's lock held:
 * the first candidate "<stem>[-N]" (store_name_candidate(), from
 * first_attempt on) whose result taken(name, data) does not report and
 * whose "<logs>/<name>" directory this call creates. That directory is the
 * claim: another writer's (EEXIST) sends the search to the next candidate.
 * The name is left in `name`. BG_ERROR when the directory cannot be made,
 * or after STORE_NAME_ATTEMPTS_MAX candidates, the message ending in
 * `where` ("in '/store/<commit>/<machine>'", "on branch 'results'").
 */
int store_claim_name(const char *stem, unsigned first_attempt, const char *logs,
		     bool (*taken)(const char *name, void *data), void *data,
		     const char *where, struct strbuf *name);

/* Splits "<suite>-<timestamp>[-N].json" (*suite allocated); false when the
 * name is not a result file name. */
bool store_parse_result_name(const char *file, char **suite,
			     char ts[STORE_TIMESTAMP_LEN + 1], unsigned *seq);

/* A slot for the result named `name` in directory `dir` (both copied), its
 * logs in "<dir>/logs/<name>"; free with store_slot_free(). */
struct store_slot *store_slot_new(const char *dir, const char *name);

/* A listing being built by a backend. */
struct store_entry_list {
	struct store_entry *items;
	size_t nr, alloc;
};

/*
 * Adds the file `file` of a <commit>/<machine> directory to list when it is
 * a result of `suite` (NULL: of any suite); `path` is how the entry is
 * reached and reported. Names that end in .json but are not result names
 * are warned about once; other files are ignored.
 */
void store_list_add(struct store *store, struct store_entry_list *list,
		    const char *path, const char *file, const char *commit,
		    const char *machine, const char *suite);

/*
 * Hands a finished listing to a backend's `list` verb: on success moves it
 * to *entries and *nr, else frees it. Returns `error` when < 0, else
 * BG_OK.
 */
int store_list_finish(struct store_entry_list *list, int error,
		      struct store_entry **entries, size_t *nr);

/* BG_EINPUT unless every id of q->commits is a full commit id or
 * "unknown" (store_commit_name_valid()): a set of commits is never one of
 * prefixes. */
int store_commit_set_check(const struct store_query *q);

/*
 * A backend's `list` of q->commits (store.h) when it lists one commit at
 * a time (a directory, a branch): its `list` asked for each of them as
 * q->commit, the entries joined. Checked as store_commit_set_check().
 */
int store_list_each_commit(struct store *store, const struct store_query *q,
			   int (*list)(struct store *store,
				       const struct store_query *q,
				       struct store_entry **entries,
				       size_t *nr),
			   struct store_entry **entries, size_t *nr);

/* BG_EINPUT naming both places when result r does not record the commit
 * and machine of the directory its entry was found in: a file copied or
 * committed there would silently become another commit's or machine's
 * baseline. */
int store_check_placement(const struct store_entry *entry,
			  const struct result *r);

/* Appends the name of the entry's result, its file name without ".json"
 * ("<suite>-<timestamp>[-N]"), to `name`. */
void store_entry_name(const struct store_entry *entry, struct strbuf *name);

/* "<area>/<old_name>/..." (or "<area>/<old_name>" itself) becomes
 * "<area>/<name>/...": a log or artifact path of a result that had to
 * change names. Other paths, and NULL, are left as they are. */
void store_move_path(char **path, const char *area, const char *old_name,
		     const char *name);

/* Moves every log and artifact path of r's cases from old_name to name
 * (store_move_path()). */
void store_rename_result(struct result *r, const char *old_name,
			 const char *name);

#endif
