/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public verbs of store.h: they check their arguments, dispatch to the
 * store's backend (store_backend.h: store_dir.c or store_git.c), and sort
 * and load what the backend lists.
 */
#include "harness/store/store.h"
#include "harness/store/store_backend.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/git/gitinfo.h"

#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUITE_FILENAME_MAX 200

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

/* Whether the text before a '#' names a repository rather than being
 * part of a branch name: a URL, a path, or an scp-like "host:path". */
static bool names_repository(const char *text, size_t len)
{
	const char *colon = memchr(text, ':', len);
	const char *scheme = strstr(text, "://");

	/* none of them can start or be a valid branch name */
	return len && ((scheme && (size_t)(scheme - text) < len) ||
		       text[0] == '/' || text[0] == '.' ||
		       (colon && !memchr(text, '/', (size_t)(colon - text))));
}

/* "git:BRANCH", or "git:URL#BRANCH" for a results repository of its own;
 * `rest` is what follows "git:". */
static int open_git(struct store **out, const char *rest)
{
	const char *hash = strrchr(rest, '#');
	char *url;
	int error;

	if (!hash || !names_repository(rest, (size_t)(hash - rest))) {
		/* not echoed: a URL may hold a password */
		if (names_repository(rest, strlen(rest)))
			return bg_input_error("a git: store in a repository "
					      "of its own names its branch "
					      "after '#' (git:URL#BRANCH)");
		return store_git_open(out, rest);
	}
	url = xstrndup(rest, (size_t)(hash - rest));
	error = store_git_open_url(out, url, hash + 1);
	free(url);
	return error;
}

int store_open(struct store **out, const char *spec)
{
	*out = NULL;
	if (!spec || !*spec)
		return bg_input_error("the store path is empty");
	if (!strncmp(spec, "git:", 4))
		return open_git(out, spec + 4);
	if (store_spec_is_postgres(spec))
		return store_pg_open(out, spec);
	return store_dir_open(out, spec);
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
	free(store->cache_dir);
	free(store);
}

const char *store_location(const struct store *store)
{
	return store->location;
}

const char *store_cache_dir(const struct store *store)
{
	return store->cache_dir;
}

void store_default_spec(struct strbuf *out, const char *start_dir)
{
	const char *env = getenv("BENCHGATE_STORE");

	if (env && *env) {
		strbuf_addstr(out, env);
		return;
	}
	if (gitinfo_repo_root(start_dir, out) < 0) {
		bg_error_clear();
		strbuf_addstr(out, start_dir ? start_dir : ".");
	}
	strbuf_addstr(out, "/.benchgate/results");
}

int store_init(const char *spec, struct strbuf *report)
{
	struct store *store = NULL;
	int from, to, error;

	if (!store_spec_is_postgres(spec))
		return bg_input_error("'%s' is not a PostgreSQL store "
				      "(postgresql://...): a directory or "
				      "git: store needs no init, its first "
				      "write makes it",
				      spec);
	if ((error = store_pg_open(&store, spec)) < 0 ||
	    (error = store_pg_init(store, &from, &to)) < 0)
		goto done;
	if (from == to)
		strbuf_addf(report, "the store '%s' has schema version %d, "
				    "this benchgate's: nothing to do",
			    store->location, to);
	else if (!from)
		strbuf_addf(report, "created the store '%s' (schema version "
				    "%d)",
			    store->location, to);
	else
		strbuf_addf(report, "migrated the store '%s' from schema "
				    "version %d to %d",
			    store->location, from, to);
done:
	store_free(store);
	return error;
}

int store_reserve(struct store *store, const struct result *r,
		  struct store_slot **out)
{
	return store->backend->reserve(store, r, out);
}

/* rmdir of path's parent, which fails harmlessly unless it is empty;
 * path is left as its parent. */
static void remove_parent_if_empty(struct strbuf *path)
{
	char *slash = strrchr(path->buf, '/');

	if (!slash || slash == path->buf)
		return;
	strbuf_setlen(path, (size_t)(slash - path->buf));
	rmdir(path->buf);
}

/* Whether the directory "<...>/<shard>/<commit>" is a commit's folder
 * in its shard. */
static bool in_its_shard(const char *commit_dir)
{
	const char *commit = strrchr(commit_dir, '/');
	const char *shard = commit;

	if (!commit)
		return false;
	while (shard > commit_dir && shard[-1] != '/')
		shard--;
	return (size_t)(commit - shard) == STORE_SHARD_LEN &&
	       !strncmp(shard, commit + 1, STORE_SHARD_LEN);
}

void store_slot_abandon(struct store_slot *slot)
{
	struct strbuf path = STRBUF_INIT;

	if (!slot)
		return;
	remove_tree(slot->log_dir);
	/* logs/, then <machine>/ and <commit>/ (or the git store's scratch
	 * twins) when this run made them */
	strbuf_addstr(&path, slot->log_dir);
	for (int level = 0; level < 3; level++)
		remove_parent_if_empty(&path);
	/* and the shard above <commit>/ (store_commit_dir()) */
	if (in_its_shard(path.buf))
		remove_parent_if_empty(&path);
	strbuf_release(&path);
	store_slot_free(slot);
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
	return store->backend->write(store, r, slot, NULL, path_out);
}

int store_write_document(struct store *store, const struct result *r,
			 const struct strbuf *document,
			 const struct store_slot *slot, struct strbuf *path_out)
{
	return store->backend->write(store, r, slot, document, path_out);
}

void store_batch_begin(struct store *store)
{
	assert(!store->batch);
	store->batch = true;
}

int store_batch_end(struct store *store)
{
	int error = BG_OK;

	assert(store->batch);
	if (store->backend->batch_end)
		error = store->backend->batch_end(store);
	store->batch = false;
	return error;
}

int store_rewrite(struct store *store, const struct store_change *changes,
		  size_t nr, const char *message, unsigned flags)
{
	if (!nr && !(flags & STORE_REWRITE_SQUASH))
		return BG_OK;
	return store->backend->rewrite(store, changes, nr, message, flags);
}

int store_migrate(struct store *store, bool dry_run, FILE *listing,
		  struct store_migration *report)
{
	memset(report, 0, sizeof(*report));
	if (!store->backend->migrate)
		return BG_OK;
	return store->backend->migrate(store, dry_run, listing, report);
}

void store_paths_release(struct store_paths *paths)
{
	for (size_t i = 0; i < paths->nr; i++)
		free(paths->items[i]);
	free(paths->items);
	memset(paths, 0, sizeof(*paths));
}

/* Whether rel stays below the directory it is relative to. */
static bool relative_path_safe(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return false;
	while (*p) {
		size_t len = strcspn(p, "/");

		if (!len || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += len;
		if (*p)
			p++;
	}
	return p[-1] != '/';
}

int store_read_file(struct store *store, const struct store_entry *entry,
		    const char *rel, struct strbuf *out)
{
	if (rel && !relative_path_safe(rel))
		return bg_input_error("'%s' is not a path below the result "
				      "'%s'",
				      rel, entry->path);
	return store->backend->read_file(store, entry, rel, out);
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int store_entry_files(struct store *store, const struct store_entry *entry,
		      struct store_paths *out)
{
	size_t before = out->nr;
	int error = store->backend->entry_files(store, entry, out);

	if (error >= 0 && out->nr - before > 1)
		qsort(out->items + before, out->nr - before,
		      sizeof(*out->items), compare_paths);
	return error;
}

int store_entry_size(struct store *store, const struct store_entry *entry,
		     uint64_t *document, uint64_t *owned)
{
	struct store_paths files = { 0 };
	struct strbuf data = STRBUF_INIT;
	int error;

	*document = *owned = 0;
	if (store->backend->entry_size)
		return store->backend->entry_size(store, entry, document,
						  owned);
	if ((error = store_read_file(store, entry, NULL, &data)) < 0)
		goto done;
	*document = data.len;
	if (store_entry_files(store, entry, &files) == 0)
		for (size_t i = 0; i < files.nr; i++) {
			strbuf_reset(&data);
			if (store_read_file(store, entry, files.items[i],
					    &data) == 0)
				*owned += data.len;
		}
	bg_error_clear();
done:
	store_paths_release(&files);
	strbuf_release(&data);
	return error;
}

int store_load(struct store *store, const struct store_entry *entry,
	       struct result **out)
{
	return store->backend->load(store, entry, out);
}

int store_read_beside(struct store *store, const struct store_entry *entry,
		      const char *relative, size_t max, struct strbuf *out,
		      bool *truncated)
{
	struct strbuf whole = STRBUF_INIT;
	int error;

	*truncated = false;
	if (!relative_path_safe(relative))
		return bg_input_error("'%s': '%s' is not a path beside the "
				      "result",
				      entry->path, relative);
	/* one reader of what a result owns, the one `store copy` uses */
	error = store->backend->read_file(store, entry, relative, &whole);
	if (error >= 0) {
		*truncated = whole.len > max;
		strbuf_add(out, whole.buf, *truncated ? max : whole.len);
	}
	strbuf_release(&whole);
	return error;
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
	if (q->commits && q->commit)
		return bg_input_error("a listing of one commit and a set of "
				      "commits at once");
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

/* Moves the cases of `from` that `to` does not have into `to`. */
static void lend_cases(struct result *to, struct result *from)
{
	size_t kept = 0;

	for (size_t j = 0; j < from->cases_nr; j++) {
		struct result_case *c = &from->cases[j];

		if (result_find_case(to, c->benchmark, c->variant, c->device)) {
			from->cases[kept++] = *c;
			continue;
		}
		ALLOC_GROW(to->cases, to->cases_nr + 1, to->cases_alloc);
		to->cases[to->cases_nr++] = *c;
	}
	from->cases_nr = kept;
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
	/* The older results of its commit, suite and machine lend it the
	 * cases it lacks: a rerun of some cases does not hide the others. */
	while (*out && i-- > 0) {
		struct result *older = NULL;

		if (strcmp(entries[i].machine, (*out)->machine.id) ||
		    store_load(store, &entries[i], &older) < 0)
			continue;
		if (!strcmp(older->suite, (*out)->suite) &&
		    !strcmp(older->git.commit, (*out)->git.commit))
			lend_cases(*out, older);
		result_free(older);
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
