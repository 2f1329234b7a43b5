#ifndef BENCHGATE_STORE_BACKEND_H
#define BENCHGATE_STORE_BACKEND_H

#include "harness/store/store.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The inside of the store module, shared by store.c (the public verbs and
 * the directory backend) and store_git.c (results on a branch). Nothing
 * outside the store includes this, except sync.c for the naming rules.
 *
 * A backend is a table of verbs. store.c checks the arguments of the public
 * verbs, dispatches to the backend, and sorts and loads what `list`
 * returns, so a backend only has to find entries and read one of them.
 */
struct store_backend {
	int (*reserve)(struct store *store, const struct result *r,
		       struct store_slot **out);
	int (*write)(struct store *store, const struct result *r,
		     const struct store_slot *slot, struct strbuf *path_out);
	/* The entries matching q, unsorted and not loaded. */
	int (*list)(struct store *store, const struct store_query *q,
		    struct store_entry **entries, size_t *nr);
	int (*load)(struct store *store, const struct store_entry *entry,
		    struct result **out);
	/* Releases backend_data; NULL when there is none. */
	void (*free)(struct store *store);
};

struct store {
	const struct store_backend *backend;
	char *location;	    /* for messages: the directory, "git:BRANCH" */
	void *backend_data; /* the backend's own state, or NULL */
	char **warned;	    /* what was already reported, by key */
	size_t warned_nr, warned_alloc;
};

/* "20261122T073422Z": a result's start in UTC, as in its file name. */
#define STORE_TIMESTAMP_LEN 16

/*
 * Opens the store on branch refs/heads/<branch> of the repository that
 * contains the current directory (store_git.c). `branch` is the spec
 * without its "git:" prefix. BG_EINPUT for an invalid branch name or
 * outside a repository.
 */
int store_git_open(struct store **out, const char *branch);

/* Helpers of store.c, so that every backend names and reports alike. */

/* bg_warn() once per store and key (a path): history and baseline read
 * one file many times per process. */
void store_warn_once(struct store *store, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A full lower-case SHA-1 or SHA-256 id, or "unknown". */
bool store_commit_name_valid(const char *commit);

/* The result-name timestamp of an ISO 8601 time; now when iso is NULL or
 * not understood. */
void store_timestamp_of(const char *iso, char out[STORE_TIMESTAMP_LEN + 1]);

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

/* BG_EINPUT naming both places when result r does not record the commit
 * and machine of the directory its entry was found in: a file copied or
 * committed there would silently become another commit's or machine's
 * baseline. */
int store_check_placement(const struct store_entry *entry,
			  const struct result *r);

/* Splits "<suite>-<timestamp>[-N].json" (*suite allocated); false when the
 * name is not a result file name. */
bool store_parse_result_name(const char *file, char **suite,
			     char ts[STORE_TIMESTAMP_LEN + 1], unsigned *seq);

/* The attempt-th name for a stem: "<stem>", "<stem>-1", "<stem>-2", ... */
void store_name_candidate(struct strbuf *name, const char *stem,
			  unsigned attempt);

/* Checks that r's commit, machine id and suite can name a place in a store
 * and appends the suite's file name to `suite`; BG_EINPUT otherwise. */
int store_check_result_names(const struct result *r, struct strbuf *suite);

#endif
