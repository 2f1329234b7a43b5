/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STORE_H
#define BENCHGATE_STORE_H

#include "harness/model/result.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Where results are kept, keyed by commit and machine (DESIGN.md):
 *
 *     <store>/<shard>/<commit>/<machine-id>/<suite>-<timestamp>.json
 *     <store>/<shard>/<commit>/<machine-id>/logs/<suite>-<timestamp>/<case>.log
 *
 * <shard> is the commit id's first two hex digits, so that no directory
 * holds more than 256 shards or a few thousand commits; results of no
 * commit are in <store>/unknown/<machine-id>/. Stores written before
 * shards keep <store>/<commit>/: every reader looks in both places (a
 * listing of one commit opens both), new results go into the shard and
 * take no name that the flat folder holds, and store_migrate() moves the
 * flat folders into their shards.
 *
 * <timestamp> is the run's start in UTC, "20261122T073422Z"; runs of one
 * suite started in the same second get "-1", "-2", ... after it. <suite> is
 * the suite name made safe for a file name (store_suite_filename()).
 *
 * Guarantees of a directory store (harness/store/store_dir.c):
 * - a result file is complete or absent: it is written to a temporary file
 *   in <store>/.tmp, fsynced, then linked to its name, all under the lock
 *   below; a write that fails removes its temporary file, and one that a
 *   writer killed midway left is removed by the next store_reserve() or
 *   store_write() (under the lock, whatever is in .tmp is a dead
 *   writer's);
 * - an existing result is never overwritten, and concurrent writers (several
 *   `benchgate run` on one machine) never lose a result: names are chosen
 *   under an flock(2) on <store>/.lock;
 * - reading never fails because of one bad file: a truncated or corrupt
 *   result is reported once per store with bg_warn() and skipped;
 * - listing one commit opens only that commit's directories (its shard's
 *   folder and the flat one), so the cost does not grow with the length of
 *   the history.
 * Files whose names start with '.' (the lock, temporary files) and the
 * logs/ directories are the store's own and never listed.
 *
 * A store is reached through a spec: a directory path (relative to the
 * current directory), or "git:BRANCH" for a store kept on a branch of the
 * repository containing the current directory (a second backend behind
 * the same verbs). A directory really named "git:x" is spelled "./git:x".
 * "git:URL#BRANCH" keeps it on BRANCH of a results repository of its own
 * (a URL, "host:path" or a path, none of which a branch name can be):
 * the same backend on a bare local copy of it, in the user's cache
 * directory, synced with URL as `benchgate sync` does (sync.h): fetched
 * before the first read of an open store, pushed after each write,
 * rewrite and migration. A write the results repository does not take
 * is taken back from the copy (when nothing came on top of it) and fails,
 * so that the caller keeps the result elsewhere; squashing is refused.
 *
 * A git store keeps the same tree, logs included, as commits on
 * refs/heads/BRANCH, written through libgit2 without touching the work
 * tree, the index or HEAD (harness/store/store_git.c):
 * - each store_write() is one commit on top of the branch's tip (in a
 *   batch, store_batch_begin(), each group of writes is); the ref
 *   moves by compare-and-swap, so concurrent writers (processes sharing
 *   the repository, `benchgate sync`) never drop each other's commits;
 * - names follow the rules above; an existing path is never replaced;
 * - a reserved slot's logs and artifacts ("<slot dir>/artifacts/<name>/",
 *   session.c) live in "<git dir>/benchgate/BRANCH/..." until the result
 *   is written, then go into the branch beside it, every regular file
 *   below them (hidden ones excepted), and the scratch copies are removed;
 *   the scratch is not sharded (it only holds runs in progress);
 * - entries are named "BRANCH:<shard>/<commit>/<machine>/<file>.json"
 *   ("BRANCH:<commit>/..." for a flat folder), a revision
 *   `git show` understands; reading looks at the local branch only (run
 *   `benchgate sync` to bring in other runners' results, see sync.h).
 *
 * A struct store belongs to one thread at a time; processes share a store
 * directory safely.
 */
struct store;

/* The length of a shard's name: two lower-case hex digits, the first of
 * the ids of the commits whose folders it holds. */
#define STORE_SHARD_LEN 2

/*
 * A third backend keeps results in a PostgreSQL database: a spec starting
 * "postgresql://" or "postgres://" is a libpq connection URL (password,
 * ~/.pgpass, PGPASSWORD, sslmode and service files as libpq has them),
 * harness/store/store_pg.c. Its schema is made by store_init(); its
 * layout, summaries and views are docs/reference/store-postgresql.md's.
 * - each store_write() is one transaction: the result is whole or absent,
 *   and a document already stored (the same bytes, by SHA-256) is not
 *   stored again, its entry is the answer;
 * - a reserved slot's logs and artifacts are files in a scratch directory
 *   under store_cache_dir() until the result is written, then rows of the
 *   database beside it (benchgate_files) and the files are removed;
 * - entries are named "<location>#<commit>/<machine>/<file>.json";
 * - store_location() is the URL without its password: no message and no
 *   file ever holds the password;
 * - opening does not connect; the first verb that reads or writes does,
 *   and fails with BG_EINPUT naming `benchgate store init` when the
 *   database has no schema or an older one, BG_ERROR when the server
 *   cannot be reached. store_reserve() lets a run go on when the server
 *   is down (warning), so that its store_write() failure keeps the result
 *   in a file (session_keep()).
 */

/* Whether spec names a PostgreSQL store ("postgresql://", "postgres://"). */
bool store_spec_is_postgres(const char *spec);

/*
 * Prepares the store of `spec`: creates or migrates a PostgreSQL store's
 * schema to this benchgate's version (in one transaction; concurrent
 * calls take turns) and appends a line saying what was done to `report`
 * (its location without the password). BG_EINPUT for a spec that is not a
 * PostgreSQL store (a directory or branch is made by its first write) or
 * whose schema is newer than this benchgate's; BG_ERROR when the server
 * cannot be reached or refuses.
 */
int store_init(const char *spec, struct strbuf *report);

/*
 * Opens the store of `spec` into *out (free with store_free()). A store is
 * only created by the first write (a directory, or the branch), so opening
 * a store that does not exist yet is fine and it lists nothing.
 * BG_EINPUT for an empty spec, a path that exists but is not a directory,
 * a "git:" spec whose branch name is not valid, and a "git:" spec outside
 * a repository.
 */
int store_open(struct store **out, const char *spec);

/* Frees the store; NULL-safe. */
void store_free(struct store *store);

/* The store's location for messages: the absolute directory,
 * "git:BRANCH", or a PostgreSQL URL without its password. Borrowed. */
const char *store_location(const struct store *store);

/*
 * Where readers may keep caches of what the store holds (history_index.h):
 * files named ".<something>" in this directory, which the store never
 * lists and never needs; each can be deleted at any time. A directory
 * store's own directory; "<git common dir>/benchgate/<branch>" for a git
 * store (beside its scratch, outside the branch);
 * "$XDG_CACHE_HOME/benchgate/postgresql-<hash of the location>" (or under
 * ~/.cache) for a PostgreSQL store. It may not exist yet.
 * Borrowed.
 */
const char *store_cache_dir(const struct store *store);

/*
 * Appends the default store spec for a run started in start_dir (NULL: the
 * current directory): $BENCHGATE_STORE when set and not empty, else
 * ".benchgate/results" at the root of the repository's work tree, or
 * under start_dir itself outside any repository.
 */
void store_default_spec(struct strbuf *out, const char *start_dir);

/*
 * Appends to `out` the suite name made safe as a file name: every byte
 * outside [A-Za-z0-9._-] becomes '_', and so does a leading '.' (which
 * would hide the file). Different names can map to one file name ("a/b"
 * and "a_b"); readers compare the suite inside the file when it matters.
 * BG_EINPUT for "", "." and "..", and for names over 200 bytes (a file
 * name has at most 255).
 */
int store_suite_filename(const char *suite, struct strbuf *out);

/*
 * A place for a result, claimed before the run so that the runner can write
 * logs while it runs. Fields are owned by the slot.
 */
struct store_slot {
	char *dir;	  /* absolute directory the result file goes into:
			   * the base of the result's relative paths (git
			   * store: its scratch twin inside the git dir) */
	char *name;	  /* "<suite>-<timestamp>[-N]", the result's stem */
	char *log_dir;	  /* absolute "<dir>/logs/<name>", already created */
	char *log_prefix; /* "logs/<name>": a case's `log` field is
			   * "<log_prefix>/<case>.log" */
};

/*
 * Claims a slot for the result `r` will become: r->git.commit,
 * r->machine.id and r->suite must be set, and r->started_at should be (else
 * the current time names the slot). The slot's name is unique among the
 * store's results and other slots, so another run cannot take it.
 * A run that dies leaves its log directory and no result: harmless.
 * Errors: BG_EINPUT when the commit, machine id or suite cannot name a
 * path (for example a commit that is not hex or "unknown"); BG_ERROR when
 * the directories cannot be created.
 */
int store_reserve(struct store *store, const struct result *r,
		  struct store_slot **out);

/* Frees the slot (not its directory); NULL-safe. */
void store_slot_free(struct store_slot *slot);

/*
 * Gives up a slot whose result will never be written (an interrupted
 * run): removes its log directory with what the run wrote there, and each
 * directory above it that the slot made and that is now empty, so that
 * the store is as it was; then frees the slot. NULL-safe.
 */
void store_slot_abandon(struct store_slot *slot);

/*
 * Writes `r` into the store, atomically and never over an existing file
 * (see above), and appends the new file's path to path_out (may be NULL).
 * With a slot from store_reserve() for this result, the file is
 * "<slot->dir>/<slot->name>.json"; without (slot NULL, e.g. an import),
 * the name is taken from r->started_at (or the current time) and the
 * first free suffix. Errors as for store_reserve(); nothing is left behind
 * on failure.
 */
int store_write(struct store *store, const struct result *r,
		const struct store_slot *slot, struct strbuf *path_out);

/* The start of the name of a file store_write_aside() writes. */
#define STORE_ASIDE_PREFIX "benchgate-unstored-"

/*
 * For a result that no store would take (session.h: session_keep()):
 * writes r, outside any store, as a new file in the directory `dir`
 * named STORE_ASIDE_PREFIX "<suite>-<timestamp>[-N].json" (the stem of
 * its name in a store), and appends the file's path to path_out. As in a
 * directory store, the file is complete or absent (a temporary file
 * ".benchgate-unstored-XXXXXX" beside it, fsynced, then linked) and never
 * replaces one: the first free suffix is taken. On a file system without
 * hard links two writers of one suite in the same second could race for
 * a name, as nothing locks `dir`. Errors as for store_reserve(); nothing
 * is left behind on failure.
 */
int store_write_aside(const struct result *r, const char *dir,
		      struct strbuf *path_out);

/* Which results to list; NULL fields match everything. */
struct store_query {
	const char *commit;  /* a full id, "unknown", or a prefix of at least
			      * 4 hex digits matching every such commit */
	/* Instead of commit: the results of each of these commits_nr
	 * distinct full ids ("unknown" too), in one listing: `history`
	 * lists the commits of its walk so, which a PostgreSQL store
	 * answers with one query instead of a round trip per commit (a
	 * directory or branch still opens each commit's folders). */
	const char *const *commits;
	size_t commits_nr;
	const char *machine; /* exact machine id */
	const char *suite;   /* suite name, compared as store_suite_filename()
			      * maps it and, with `load`, exactly */
	bool load;	     /* load each result into its entry, skipping
			      * corrupt ones; otherwise only names are read */
};

struct store_entry {
	char *path; /* the result file; git store:
				 * "BRANCH:<commit>/<machine>/<file>" */
	char *commit;
	char *machine;
	char *suite;	       /* as in the file name (sanitised) */
	char timestamp[17];    /* "20261122T073422Z" */
	unsigned seq;	       /* the "-N" suffix, 0 without */
	struct result *result; /* with query.load; else NULL */
	/* git store: the id of the result's blob, which changes with its
	 * content (caches key on it); PostgreSQL: the first 40 hex digits
	 * of its SHA-256; "" in a directory store, whose files a cache
	 * tells apart by size, mtime and inode */
	char content_id[41];
};

/*
 * Lists the results matching q (NULL: all) into *entries (free with
 * store_entries_free()), *nr of them, oldest first: by timestamp, then
 * suffix, then commit, machine and suite. A store that does not exist yet
 * lists nothing. A .json file not named like a result is reported (once)
 * and skipped, other files are ignored; with q->load, results that do not
 * load are reported and skipped too.
 * BG_EINPUT for a commit or machine in q that cannot be in a store (in
 * q->commits: anything but a full id or "unknown"), or both q->commit and
 * q->commits;
 * BG_ERROR when a directory cannot be read.
 */
int store_list(struct store *store, const struct store_query *q,
	       struct store_entry **entries, size_t *nr);

void store_entries_free(struct store_entry *entries, size_t nr);

/*
 * Loads the result of an entry into *out (free with result_free()). A
 * result that does not parse, or whose commit or machine does not match
 * the directory it is in, is reported once with bg_warn() and its error
 * returned (BG_EINPUT; BG_ERROR for I/O), so that callers just skip it.
 */
int store_load(struct store *store, const struct store_entry *entry,
	       struct result **out);

/*
 * Reads a file stored beside a result, such as a case's log: `relative` is
 * as the result records it (result_case.log, "logs/<name>/<case>.log"),
 * relative to the result file's directory. At most `max` bytes are
 * appended; *truncated says whether the file held more. It is read as
 * store_read_file() reads it: no link is followed, on the way or at the
 * end (BG_ERROR naming it), and only a regular file (a blob, in a git
 * store) is read. BG_EINPUT when relative is not a plain relative path
 * (empty, absolute, or with an empty, "." or ".." component);
 * BG_ENOTFOUND when there is no such file; BG_ERROR when anything cannot
 * be read. out is appended to, and as it was on an error.
 */
int store_read_beside(struct store *store, const struct store_entry *entry,
		      const char *relative, size_t max, struct strbuf *out,
		      bool *truncated);

/*
 * Loads the newest result matching q (q->load is ignored) into *out (free
 * with result_free()) and appends its path to path_out (may be NULL),
 * with the cases it lacks taken from the older results of its commit,
 * suite and machine (newest first): a filtered rerun or bisect's
 * measurements of one variant never hide the other cases.
 * Corrupt files are reported and passed over for the next newest.
 * BG_ENOTFOUND when none matches; errors of store_list() otherwise.
 */
int store_latest(struct store *store, const struct store_query *q,
		 struct result **out, struct strbuf *path_out);

/* Reading and writing what a result owns (store copy, copy.h) */

/* Paths, each allocated; release with store_paths_release(). */
struct store_paths {
	char **items;
	size_t nr, alloc;
};

void store_paths_release(struct store_paths *paths);

/*
 * Appends to `out` the bytes of a file of the entry's result, as stored:
 * with rel NULL the result document itself; otherwise `rel`, a path
 * relative to the result's directory as store_entry_files() lists them
 * ("logs/<name>/<case>.log"). A symbolic link, on the way or at the end,
 * is never followed but BG_ERROR, as are I/O errors and files over
 * RESULT_MAX_BYTES; BG_ENOTFOUND when there is no such file; BG_EINPUT
 * for a rel that is absolute or has an empty, "." or ".." component.
 */
int store_read_file(struct store *store, const struct store_entry *entry,
		    const char *rel, struct strbuf *out);

/*
 * Appends to `out` the files the entry's result owns besides its
 * document: every regular file below "logs/<name>/" and
 * "artifacts/<name>/" of its directory (<name> is the result file's name
 * without ".json"), relative to that directory, sorted. Hidden files
 * (names starting with '.'), links and anything else that is not a
 * regular file or a directory are left out, never followed.
 */
int store_entry_files(struct store *store, const struct store_entry *entry,
		      struct store_paths *out);

/*
 * The bytes the entry's result takes into *document (the result document)
 * and *owned (the files store_entry_files() lists), as the store counts
 * them: a directory or git store reads the files (one that does not read
 * counts 0); a PostgreSQL store asks the database for octet_length() of
 * the stored document and of each file's content, in one query, without
 * reading them (what the database takes on disk differs: compression,
 * the metric rows, indexes, and space freed only for reuse until VACUUM
 * FULL). Errors of store_read_file() for the document, or of the query.
 */
int store_entry_size(struct store *store, const struct store_entry *entry,
		     uint64_t *document, uint64_t *owned);

/*
 * store_write() of a result whose stored bytes are to be `document`
 * exactly (r is document parsed): what `store copy` writes, so that a
 * result moved between stores stays byte for byte the same. When the
 * store has to give the result another name than the slot's (a git store
 * whose branch took the name meanwhile) its log and artifact paths change
 * and r is serialised instead.
 */
int store_write_document(struct store *store, const struct result *r,
			 const struct strbuf *document,
			 const struct store_slot *slot, struct strbuf *path_out);

/* Batching writes (`store copy`) */

/*
 * The most writes a batch holds back before it stores them. It bounds
 * what a killed caller loses (the writes held since the last commit, to
 * be done again) and what a git store holds meanwhile: a claim, with an
 * open file for its owner lock, per held result.
 */
#define STORE_BATCH_MAX 100

/*
 * Starts a batch of writes: until store_batch_end(), store_write() and
 * store_write_document() may hold their results back and store them
 * together, STORE_BATCH_MAX at most at a time. A git store makes each
 * such group one commit, and a "git:URL#BRANCH" store pushes once, at
 * the end, instead of one commit and one push per result: what makes
 * `store copy` of thousands of results into a branch take seconds, not
 * hours. A directory or PostgreSQL store stores each write at once (a
 * file, a transaction), as outside a batch.
 *
 * Every guarantee of a write stays: its name is claimed when it is
 * written (so later writes of the batch and other writers take others),
 * no stored result is ever replaced (a name another writer's result took
 * on the branch meanwhile moves the held one to the next free name, as a
 * single write does), the branch moves by compare-and-swap, and a group
 * is stored whole or not at all. What changes is when: a held result is
 * not listed until its group is stored, and when the commit of a group
 * fails (or the process dies), none of it is stored. So a batch is for a
 * caller that can do its writes again (`store copy` is resumable), never
 * for a run, whose result must be kept aside when it cannot be stored.
 * Batches do not nest; other verbs than writes wait for the end.
 */
void store_batch_begin(struct store *store);

/*
 * Ends the batch begun on store: stores what it holds back, then pushes
 * what it committed to a "git:URL#BRANCH" store's results repository.
 * Call it after a failed write too, so that the writes before it are
 * kept. An error when the last group cannot be stored (none of it is) or
 * the push fails (what was committed stays in the local copy, and the
 * next use of the store pushes it). An error of a write in a batch may
 * be that of the group its write completed: none of that group is
 * stored then. store_free() of a store in a batch drops what it holds
 * back.
 */
int store_batch_end(struct store *store);

/* Rewriting results: prune and compact (maintain.h) */

/* One result to replace or remove. */
struct store_change {
	const struct store_entry *entry; /* from store_list() of the store */
	const struct strbuf *document;	 /* its new document, the same
					  * result's; NULL: remove the result
					  * with its logs and artifacts */
};

enum store_rewrite_flags {
	/* git store: the branch becomes one commit without parents, so
	 * that what was removed is no longer reachable from it */
	STORE_REWRITE_SQUASH = 1 << 0,
};

/*
 * Applies the changes; results not named are never touched. A git store
 * makes them one commit on the branch with `message` (the old blobs stay
 * in the branch's history until STORE_REWRITE_SQUASH and git's garbage
 * collection drop them); the ref moves by compare-and-swap, and a branch
 * that moved meanwhile is read again (a change whose result is gone from
 * it is dropped). A directory store replaces each document atomically
 * (a temporary file renamed over it, under the store's lock) and removes
 * a result's document first, then its logs/<name>/ and
 * artifacts/<name>/ (links removed, never followed), then the
 * directories left empty. A PostgreSQL store makes all the changes one
 * transaction (all or none): a document replaced gets its new SHA-256
 * and metric summaries (computed from the new document as store_write()
 * computes them); a result removed takes its summaries and files with it;
 * a result changed or removed since it was listed (its SHA-256 no
 * longer starts with the entry's content_id) is left as it is now, with
 * a warning, and so is one whose new document is already stored as
 * another result.
 * BG_EINPUT for STORE_REWRITE_SQUASH on a store that has no history;
 * BG_ERROR for I/O, the changes made before it kept (none, in a
 * PostgreSQL store).
 */
int store_rewrite(struct store *store, const struct store_change *changes,
		  size_t nr, const char *message, unsigned flags);

/* Moving results into the current layout (`benchgate store migrate`) */

struct store_migration {
	size_t folders;	    /* flat commit folders found at the root */
	size_t files;	    /* their files moved into shards (or that would
			     * be), duplicates of a shard's file included */
	size_t left;	    /* files left where they are: their place in the
			     * shard holds other content (reported) */
	unsigned long long bytes; /* of the files moved */
};

/*
 * Moves the results a store keeps in the flat layout of older versions,
 * "<commit>/<machine>/...", into their shards, "<shard>/<commit>/...":
 * every file below each flat commit folder, as it is (names, bytes, and
 * in a directory its inode and times: a rename), then the folder. A file
 * whose place in the shard is taken is dropped when it holds the same
 * bytes and left where it is otherwise (warned about; readers list both
 * folders, nothing is lost). A directory store does it under its lock; a
 * git store makes it one commit, the ref moved by compare-and-swap.
 * Running it again finds nothing to do. With dry_run nothing changes.
 * One line per folder goes to `listing` (may be NULL); *report counts.
 * A PostgreSQL store has no folders: nothing to do. BG_ERROR for I/O,
 * what was moved before it staying moved.
 */
int store_migrate(struct store *store, bool dry_run, FILE *listing,
		  struct store_migration *report);

#endif
