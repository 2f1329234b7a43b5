/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STORE_BACKEND_H
#define BENCHGATE_STORE_BACKEND_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The inside of the store: the one interface between store.c, which holds
 * the public verbs of store.h, and the backends behind them, store_dir.c
 * (a directory) and store_git.c (a branch). Nothing outside the store
 * includes this.
 *
 * A backend is a table of verbs. store.c checks the arguments of the public
 * verbs, dispatches to the backend, and sorts and loads what `list`
 * returns, so a backend only has to find entries and read one of them.
 * The naming rules both backends follow are store_common.h's.
 *
 * The store's public types appear here only as pointers, so that this
 * header needs nothing of store.h: store.c includes it to dispatch, the
 * backends include it and store.h to implement, and no two of them
 * include each other.
 */

struct result;
struct store;
struct store_entry;
struct store_query;
struct store_change;
struct store_migration;
struct store_paths;
struct store_slot;

struct store_backend {
	int (*reserve)(struct store *store, const struct result *r,
		       struct store_slot **out);
	/* document: the bytes to store for r as they are (store_write_
	 * document()); NULL: r serialised. */
	int (*write)(struct store *store, const struct result *r,
		     const struct store_slot *slot,
		     const struct strbuf *document, struct strbuf *path_out);
	/* The entries matching q, unsorted and not loaded; q->commit and
	 * q->commits are not both set (store_list_each_commit() answers
	 * q->commits for a backend that lists one commit at a time). */
	int (*list)(struct store *store, const struct store_query *q,
		    struct store_entry **entries, size_t *nr);
	int (*load)(struct store *store, const struct store_entry *entry,
		    struct result **out);
	/* store_read_file(), store_read_beside() and store_entry_files(),
	 * arguments checked. */
	int (*read_file)(struct store *store, const struct store_entry *entry,
			 const char *rel, struct strbuf *out);
	int (*entry_files)(struct store *store, const struct store_entry *entry,
			   struct store_paths *out);
	/* store_entry_size(); NULL: store.c reads the document and the
	 * files to count their bytes. */
	int (*entry_size)(struct store *store, const struct store_entry *entry,
			  uint64_t *document, uint64_t *owned);
	/* store_rewrite(): nr > 0, or a squash. */
	int (*rewrite)(struct store *store, const struct store_change *changes,
		       size_t nr, const char *message, unsigned flags);
	/* store_migrate(), report zeroed; NULL: a store with one layout. */
	int (*migrate)(struct store *store, bool dry_run, FILE *listing,
		       struct store_migration *report);
	/* Stores what writes held back since store_batch_begin() (store->
	 * batch) and ends the batch; NULL: a backend that holds nothing
	 * back. */
	int (*batch_end)(struct store *store);
	/* Releases backend_data, dropping what a batch holds back; NULL
	 * when there is none. */
	void (*free)(struct store *store);
};

struct store {
	const struct store_backend *backend;
	char *location;	    /* for messages: the directory, "git:BRANCH" */
	char *cache_dir;    /* store_cache_dir(); the backend's open sets it */
	void *backend_data; /* the backend's own state, or NULL */
	bool batch;	    /* between store_batch_begin() and _end() */
	char **warned;	    /* what was already reported, by key */
	size_t warned_nr, warned_alloc;
};

/*
 * Opens the directory store at `path`, a spec that is not "git:..."
 * (store_dir.c): relative paths are made absolute against the current
 * directory, "./" prefixes and trailing slashes dropped. BG_EINPUT when
 * the path exists but is not a directory.
 */
int store_dir_open(struct store **out, const char *path);

/*
 * Opens the store on branch refs/heads/<branch> of the repository that
 * contains the current directory (store_git.c). `branch` is the spec
 * without its "git:" prefix. BG_EINPUT for an invalid branch name or
 * outside a repository.
 */
int store_git_open(struct store **out, const char *branch);

/*
 * Opens the store on branch `branch` of the results repository `url` (a
 * URL, an scp-like "host:path" or a path, made absolute), through a bare
 * local copy in the user's cache directory that is synced with it
 * (store_git.c). BG_EINPUT for an invalid branch name.
 */
int store_git_open_url(struct store **out, const char *url,
		       const char *branch);

/*
 * Opens the store in the PostgreSQL database of `url`, a spec for which
 * store_spec_is_postgres() holds (store_pg.c). Connects lazily: the first
 * verb that needs the server connects and checks the schema.
 */
int store_pg_open(struct store **out, const char *url);

/*
 * Creates or migrates the schema of a store opened by store_pg_open() to
 * this benchgate's version, in one transaction; *from and *to get the
 * versions before and after (equal: nothing to do). BG_ERROR when the
 * server cannot be reached or refuses, BG_EINPUT for a newer schema.
 */
int store_pg_init(struct store *store, int *from, int *to);

#endif
