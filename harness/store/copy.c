/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `store copy` (copy.h): the results of one store into another through
 * the public verbs of store.h.
 */
#include "harness/store/copy.h"
#include "harness/store/store.h"
#include "harness/store/store_common.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a result is, whatever it is named: the document with its own
 * name taken out of its log and artifact paths, hashed. */
struct identity {
	char sha256[65];
	bool known; /* computed (or tried: empty when unreadable) */
	bool used;  /* matched a source result already */
};

/* A store's listing with the identities computed as needed. */
struct listing {
	struct store *store;
	struct store_entry *entries;
	size_t nr;
	struct identity *ids;
};

static void listing_release(struct listing *l)
{
	store_entries_free(l->entries, l->nr);
	free(l->ids);
	l->entries = NULL;
	l->ids = NULL;
	l->nr = 0;
}

static int listing_read(struct listing *l, struct store *store)
{
	int error;

	listing_release(l);
	l->store = store;
	if ((error = store_list(store, NULL, &l->entries, &l->nr)) < 0)
		return error;
	l->ids = xcalloc(l->nr ? l->nr : 1, sizeof(*l->ids));
	return BG_OK;
}

/* The identity of r, stored as `name`. */
static void identity_of(struct result *r, const char *name, char out[65])
{
	struct strbuf json = STRBUF_INIT;

	store_rename_result(r, name, "@");
	result_to_json(r, &json);
	store_rename_result(r, "@", name);
	if (hash_sha256_hex(json.buf, json.len, out) < 0)
		out[0] = '\0';
	strbuf_release(&json);
}

/* Reads the entry's document into doc and parses it into *out, checking
 * that it is where it belongs; reported once and its error returned. */
static int read_result(struct store *store, const struct store_entry *entry,
		       struct strbuf *doc, struct result **out)
{
	int error;

	*out = NULL;
	if ((error = store_read_file(store, entry, NULL, doc)) < 0 ||
	    (error = result_parse(out, doc->buf, doc->len, entry->path)) < 0 ||
	    (error = store_check_placement(entry, *out)) < 0) {
		bg_warn("%s; not copied", bg_error_last());
		result_free(*out);
		*out = NULL;
	}
	return error;
}

static const char *listed_identity(struct listing *l, size_t i)
{
	struct identity *id = &l->ids[i];

	if (!id->known) {
		struct strbuf doc = STRBUF_INIT, name = STRBUF_INIT;
		struct result *r = NULL;

		id->known = true;
		if (read_result(l->store, &l->entries[i], &doc, &r) == 0) {
			store_entry_name(&l->entries[i], &name);
			identity_of(r, name.buf, id->sha256);
		}
		bg_error_clear();
		result_free(r);
		strbuf_release(&doc);
		strbuf_release(&name);
	}
	return id->sha256;
}

/* Finds, and marks used, an entry of l that is the source result `entry`
 * of identity `sha256`; whether one was. */
static bool listing_take(struct listing *l, const struct store_entry *entry,
			 const char *sha256)
{
	size_t low = 0, high = l->nr;

	/* store_list() sorts by timestamp first: the first of entry's */
	while (low < high) {
		size_t mid = low + (high - low) / 2;

		if (strcmp(l->entries[mid].timestamp, entry->timestamp) < 0)
			low = mid + 1;
		else
			high = mid;
	}
	for (size_t i = low; i < l->nr && !strcmp(l->entries[i].timestamp,
						   entry->timestamp);
	     i++) {
		const struct store_entry *t = &l->entries[i];

		if (l->ids[i].used || strcmp(t->commit, entry->commit) ||
		    strcmp(t->machine, entry->machine) ||
		    strcmp(t->suite, entry->suite) ||
		    strcmp(listed_identity(l, i), sha256))
			continue;
		l->ids[i].used = true;
		return true;
	}
	return false;
}

/* Copies the file `rel` of a source result into the slot, its
 * "<area>/<old_name>" prefix becoming the slot's name. */
static int copy_file(struct store *from, const struct store_entry *entry,
		     const char *rel, const char *old_name,
		     const struct store_slot *slot,
		     struct store_copy_report *report)
{
	struct strbuf data = STRBUF_INIT, path = STRBUF_INIT;
	char *moved = xstrdup(rel);
	char *slash;
	int error;

	store_move_path(&moved, "logs", old_name, slot->name);
	store_move_path(&moved, "artifacts", old_name, slot->name);
	if ((error = store_read_file(from, entry, rel, &data)) < 0)
		goto done;
	strbuf_addf(&path, "%s/%s", slot->dir, moved);
	slash = strrchr(path.buf, '/');
	*slash = '\0';
	error = mkdir_p(path.buf);
	*slash = '/';
	if (error < 0 || (error = write_file_atomic_unsynced(
				  path.buf, data.buf, data.len)) < 0)
		goto done;
	report->files++;
	report->bytes += data.len;
done:
	free(moved);
	strbuf_release(&data);
	strbuf_release(&path);
	return error;
}

/* Writes the source result r (document doc, named name) with its files
 * into the target. */
static int copy_result(struct store *from, struct store *to,
		       const struct store_entry *entry, struct result *r,
		       const struct strbuf *doc, const char *name,
		       struct store_copy_report *report)
{
	struct store_paths files = { 0 };
	struct store_slot *slot = NULL;
	int error;

	if ((error = store_entry_files(from, entry, &files)) < 0 ||
	    (error = store_reserve(to, r, &slot)) < 0)
		goto done;
	for (size_t i = 0; i < files.nr && !error; i++)
		error = copy_file(from, entry, files.items[i], name, slot,
				  report);
	if (error < 0)
		goto done;
	if (strcmp(slot->name, name)) {
		/* the name was taken: the paths inside change with it */
		store_rename_result(r, name, slot->name);
		error = store_write(to, r, slot, NULL);
		report->renamed++;
	} else {
		error = store_write_document(to, r, doc, slot, NULL);
	}
	if (error < 0)
		goto done;
	report->copied++;
	report->bytes += doc->len;
	/* a result without logs leaves no empty claim behind, nor an
	 * empty logs/, as it had none in the source (rmdir() only removes
	 * an empty directory) */
	if (rmdir(slot->log_dir) == 0) {
		char *slash = strrchr(slot->log_dir, '/');

		*slash = '\0';
		rmdir(slot->log_dir);
		*slash = '/';
	}
done:
	if (error < 0)
		store_slot_abandon(slot);
	else
		store_slot_free(slot);
	store_paths_release(&files);
	return error;
}

static void print_progress(const struct store_copy_options *o, size_t done,
			   size_t total, const struct store_copy_report *report)
{
	if (!o->progress ||
	    (done != total && done * 10 / total == (done - 1) * 10 / total))
		return;
	fprintf(stderr,
		"store copy: %zu/%zu results (%zu copied, %zu already "
		"there)\n",
		done, total, report->copied, report->present);
}

/* The i-th source result: skipped when the target has it, else copied.
 * Its identity is kept for verify() (empty when it does not load). */
static int copy_one(struct listing *src, size_t i, struct listing *dst,
		    struct store_copy_report *report)
{
	const struct store_entry *entry = &src->entries[i];
	struct strbuf doc = STRBUF_INIT, name = STRBUF_INIT;
	struct result *r = NULL;
	int error = BG_OK;

	src->ids[i].known = true;
	if (read_result(src->store, entry, &doc, &r) < 0) {
		bg_error_clear();
		report->unreadable++;
		goto done;
	}
	report->results++;
	store_entry_name(entry, &name);
	identity_of(r, name.buf, src->ids[i].sha256);
	if (listing_take(dst, entry, src->ids[i].sha256))
		report->present++;
	else
		error = copy_result(src->store, dst->store, entry, r, &doc,
				    name.buf, report);
done:
	result_free(r);
	strbuf_release(&doc);
	strbuf_release(&name);
	return error;
}

/* Every readable source result must be in the target now. */
static int verify(struct listing *src, struct listing *dst)
{
	size_t missing = 0;
	int error;

	if ((error = listing_read(dst, dst->store)) < 0)
		return error;
	for (size_t i = 0; i < src->nr; i++)
		if (src->ids[i].sha256[0] &&
		    !listing_take(dst, &src->entries[i], src->ids[i].sha256))
			missing++;
	if (missing)
		return bg_error("%zu result%s of '%s' %s not in '%s' after the "
				"copy",
				missing, missing == 1 ? "" : "s",
				store_location(src->store),
				missing == 1 ? "is" : "are",
				store_location(dst->store));
	return BG_OK;
}

int store_copy(const struct store_copy_options *o,
	       struct store_copy_report *report)
{
	struct listing src = { 0 }, dst = { 0 };
	struct store *from = NULL, *to = NULL;
	int error, ended;

	memset(report, 0, sizeof(*report));
	if ((error = store_open(&from, o->from)) < 0 ||
	    (error = store_open(&to, o->to)) < 0)
		goto done;
	if (!strcmp(store_location(from), store_location(to))) {
		error = bg_input_error("'%s' and '%s' are one store: nothing "
				       "to copy",
				       o->from, o->to);
		goto done;
	}
	if ((error = listing_read(&src, from)) < 0 ||
	    (error = listing_read(&dst, to)) < 0)
		goto done;
	/* a git target commits (and pushes) results by the group, not one
	 * by one; after a failure too, what was written before it is kept
	 * for the next run to resume from */
	store_batch_begin(to);
	for (size_t i = 0; i < src.nr && !error; i++) {
		error = copy_one(&src, i, &dst, report);
		print_progress(o, i + 1, src.nr, report);
	}
	ended = store_batch_end(to);
	if (!error)
		error = ended;
	if (!error)
		error = verify(&src, &dst);
done:
	listing_release(&src);
	listing_release(&dst);
	store_free(from);
	store_free(to);
	return error;
}
