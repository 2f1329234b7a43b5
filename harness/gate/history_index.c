/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/history_index.h"

#include "harness/gate/changepoint.h"
#include "harness/gate/stats.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/hash.h"
#include "harness/util/strbuf.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * The file: a header, then the strings (each ending in a NUL, ids in
 * order), the metrics, the records and the points, each an array of the
 * fixed-width structs below in this machine's byte order. Every id and
 * range is checked on reading; anything out of place discards the file.
 */
#define INDEX_FILE "/.history-index"
#define INDEX_MAGIC "bgindex\n"
#define INDEX_VERSION 1
#define INDEX_BYTE_ORDER 0x01020304u

struct file_header {
	char magic[8];
	uint32_t version, byte_order;
	double confidence;
	uint64_t strings_bytes, strings_nr, metrics_nr, records_nr, points_nr;
};

/* One result file: key is "<commit>/<machine>/<file name>". */
struct record {
	uint32_t key, identity, suite, machine;
	uint64_t first;
	uint64_t points_nr;
};

_Static_assert(sizeof(struct file_header) == 64, "header layout");
_Static_assert(sizeof(struct record) == 32, "record layout");
_Static_assert(sizeof(struct history_index_metric) == 24, "metric layout");
_Static_assert(sizeof(struct history_index_point) == 40, "point layout");

/* Open addressing: slots hold id + 1, 0 is empty; half full at most. */
struct id_table {
	uint32_t *slots;
	size_t nr;
};

struct history_index {
	char *path; /* NULL: the store has no place for it */
	double confidence;
	bool dirty;
	char **strings;
	size_t strings_nr, strings_alloc;
	struct id_table string_ids;
	uint32_t *record_of; /* by key string: record, HISTORY_INDEX_NONE */
	size_t record_of_alloc;
	struct history_index_metric *metrics;
	size_t metrics_nr, metrics_alloc;
	struct id_table metric_ids;
	struct record *records;
	size_t records_nr, records_alloc;
	struct history_index_point *points;
	size_t points_nr, points_alloc;
};

static uint64_t string_hash(const struct history_index *ix, uint32_t id)
{
	return hash_fnv1a64(ix->strings[id], strlen(ix->strings[id]));
}

static uint64_t metric_hash(const struct history_index *ix, uint32_t id)
{
	return hash_fnv1a64(&ix->metrics[id], sizeof(ix->metrics[id]));
}

/* Rebuilds the table for `count` ids at least twice that many slots. */
static void table_grow(struct id_table *t, const struct history_index *ix,
		       size_t count,
		       uint64_t (*hash)(const struct history_index *, uint32_t))
{
	size_t nr = t->nr ? t->nr : 64;

	while (nr < 2 * (count + 1))
		nr *= 2;
	if (nr == t->nr)
		return;
	free(t->slots);
	t->slots = xcalloc(nr, sizeof(*t->slots));
	t->nr = nr;
	for (uint32_t id = 0; id < count; id++) {
		size_t slot = hash(ix, id) & (nr - 1);

		while (t->slots[slot])
			slot = (slot + 1) & (nr - 1);
		t->slots[slot] = id + 1;
	}
}

/* The id of the string, added when new. */
static uint32_t intern(struct history_index *ix, const char *s)
{
	size_t slot, mask;

	table_grow(&ix->string_ids, ix, ix->strings_nr, string_hash);
	mask = ix->string_ids.nr - 1;
	for (slot = hash_fnv1a64(s, strlen(s)) & mask;
	     ix->string_ids.slots[slot]; slot = (slot + 1) & mask) {
		uint32_t id = ix->string_ids.slots[slot] - 1;

		if (!strcmp(ix->strings[id], s))
			return id;
	}
	ALLOC_GROW(ix->strings, ix->strings_nr + 1, ix->strings_alloc);
	ALLOC_GROW(ix->record_of, ix->strings_nr + 1, ix->record_of_alloc);
	ix->strings[ix->strings_nr] = xstrdup(s);
	ix->record_of[ix->strings_nr] = HISTORY_INDEX_NONE;
	ix->string_ids.slots[slot] = (uint32_t)++ix->strings_nr;
	return (uint32_t)(ix->strings_nr - 1);
}

static uint32_t intern_metric(struct history_index *ix,
			      const struct history_index_metric *m)
{
	size_t slot, mask;

	table_grow(&ix->metric_ids, ix, ix->metrics_nr, metric_hash);
	mask = ix->metric_ids.nr - 1;
	for (slot = hash_fnv1a64(m, sizeof(*m)) & mask;
	     ix->metric_ids.slots[slot]; slot = (slot + 1) & mask) {
		uint32_t id = ix->metric_ids.slots[slot] - 1;

		if (!memcmp(&ix->metrics[id], m, sizeof(*m)))
			return id;
	}
	ALLOC_GROW(ix->metrics, ix->metrics_nr + 1, ix->metrics_alloc);
	ix->metrics[ix->metrics_nr] = *m;
	ix->metric_ids.slots[slot] = (uint32_t)++ix->metrics_nr;
	return (uint32_t)(ix->metrics_nr - 1);
}

static bool read_array(FILE *f, void **out, size_t *alloc, uint64_t nr,
		       size_t size)
{
	*out = NULL;
	if (nr > SIZE_MAX / size)
		return false;
	*out = xmalloc(nr ? (size_t)nr * size : 1);
	*alloc = nr ? (size_t)nr : 1;
	return fread(*out, size, (size_t)nr, f) == (size_t)nr;
}

static bool load_strings(struct history_index *ix, FILE *f,
			 const struct file_header *h)
{
	char *blob, *at, *end;
	bool ok;

	if (h->strings_bytes > SIZE_MAX - 1 ||
	    h->strings_nr > h->strings_bytes || h->strings_nr >= UINT32_MAX)
		return false;
	blob = xmalloc((size_t)h->strings_bytes + 1);
	ok = fread(blob, 1, (size_t)h->strings_bytes, f) ==
		     (size_t)h->strings_bytes &&
	     (!h->strings_bytes || !blob[h->strings_bytes - 1]);
	/* Interning gives ids in order: a repeated string breaks that. */
	for (at = blob, end = blob + h->strings_bytes; ok && at < end;
	     at += strlen(at) + 1)
		ok = intern(ix, at) == ix->strings_nr - 1;
	free(blob);
	return ok && ix->strings_nr == h->strings_nr;
}

static bool valid_string(const struct history_index *ix, uint32_t id)
{
	return id < ix->strings_nr;
}

static bool load_tables(struct history_index *ix, FILE *f,
			const struct file_header *h)
{
	struct history_index_metric *metrics;
	size_t alloc;
	void *data;
	bool ok;

	if (h->metrics_nr >= UINT32_MAX || h->records_nr >= UINT32_MAX)
		return false;
	ok = read_array(f, &data, &alloc, h->metrics_nr, sizeof(*metrics));
	metrics = data;
	for (uint64_t i = 0; ok && i < h->metrics_nr; i++) {
		const struct history_index_metric *m = &metrics[i];

		ok = valid_string(ix, m->benchmark) &&
		     valid_string(ix, m->variant) &&
		     valid_string(ix, m->device) &&
		     valid_string(ix, m->metric) &&
		     (m->unit == HISTORY_INDEX_NONE ||
		      valid_string(ix, m->unit)) &&
		     m->better <= BETTER_HIGHER &&
		     intern_metric(ix, m) == i;
	}
	free(metrics);
	ok = ok && read_array(f, &data, &ix->records_alloc, h->records_nr,
			      sizeof(*ix->records));
	ix->records = data;
	return ok;
}

static bool load_records(struct history_index *ix, FILE *f,
			 const struct file_header *h)
{
	void *data;
	bool ok = read_array(f, &data, &ix->points_alloc, h->points_nr,
			     sizeof(*ix->points));

	ix->points = data;
	if (!ok || fgetc(f) != EOF)
		return false;
	ix->points_nr = (size_t)h->points_nr;
	for (size_t i = 0; i < ix->points_nr; i++)
		if (ix->points[i].metric >= ix->metrics_nr)
			return false;
	for (; ix->records_nr < h->records_nr; ix->records_nr++) {
		const struct record *r = &ix->records[ix->records_nr];

		if (!valid_string(ix, r->key) ||
		    !valid_string(ix, r->identity) ||
		    !valid_string(ix, r->suite) ||
		    !valid_string(ix, r->machine) ||
		    r->first > ix->points_nr ||
		    r->points_nr > ix->points_nr - r->first ||
		    ix->record_of[r->key] != HISTORY_INDEX_NONE)
			return false;
		ix->record_of[r->key] = (uint32_t)ix->records_nr;
	}
	return true;
}

static void clear(struct history_index *ix)
{
	for (size_t i = 0; i < ix->strings_nr; i++)
		free(ix->strings[i]);
	free(ix->strings);
	free(ix->string_ids.slots);
	free(ix->record_of);
	free(ix->metrics);
	free(ix->metric_ids.slots);
	free(ix->records);
	free(ix->points);
	ix->strings = NULL;
	ix->string_ids = (struct id_table){ 0 };
	ix->record_of = NULL;
	ix->metrics = NULL;
	ix->metric_ids = (struct id_table){ 0 };
	ix->records = NULL;
	ix->points = NULL;
	ix->strings_nr = ix->strings_alloc = ix->record_of_alloc = 0;
	ix->metrics_nr = ix->metrics_alloc = 0;
	ix->records_nr = ix->records_alloc = 0;
	ix->points_nr = ix->points_alloc = 0;
}

/* Whether the sections the header declares add up to the file's size:
 * checked before anything is allocated, so that a damaged header cannot
 * ask for more memory than the file holds. */
static bool sizes_add_up(const struct file_header *h, FILE *f)
{
	const uint64_t sizes[] = { sizeof(struct history_index_metric),
				   sizeof(struct record),
				   sizeof(struct history_index_point) };
	const uint64_t counts[] = { h->metrics_nr, h->records_nr,
				    h->points_nr };
	uint64_t total = sizeof(*h) + h->strings_bytes;
	struct stat st;

	if (fstat(fileno(f), &st) < 0 || h->strings_bytes > (uint64_t)st.st_size)
		return false;
	for (size_t i = 0; i < 3; i++) {
		if (counts[i] > (uint64_t)st.st_size / sizes[i])
			return false;
		total += counts[i] * sizes[i];
	}
	return total == (uint64_t)st.st_size;
}

static void load(struct history_index *ix)
{
	struct file_header h;
	FILE *f = fopen(ix->path, "rb");
	bool ok;

	if (!f)
		return;
	ok = fread(&h, sizeof(h), 1, f) == 1 &&
	     !memcmp(h.magic, INDEX_MAGIC, sizeof(h.magic)) &&
	     h.version == INDEX_VERSION && h.byte_order == INDEX_BYTE_ORDER &&
	     h.confidence == ix->confidence && sizes_add_up(&h, f) &&
	     load_strings(ix, f, &h) &&
	     load_tables(ix, f, &h) && load_records(ix, f, &h);
	fclose(f);
	if (!ok)
		clear(ix);
}

struct history_index *history_index_open(struct store *store,
					  double confidence)
{
	struct history_index *ix = xcalloc(1, sizeof(*ix));
	const char *dir = store_cache_dir(store);

	ix->confidence = confidence;
	if (dir) {
		struct strbuf path = STRBUF_INIT;

		strbuf_addf(&path, "%s%s", dir, INDEX_FILE);
		ix->path = strbuf_detach(&path, NULL);
		load(ix);
	}
	return ix;
}

/* What tells this version of the file from another: the blob's id, or
 * the file's size, modification time and inode. false when it cannot be
 * found out (the load then reports what is wrong). */
static bool identity_of(const struct store_entry *entry, struct strbuf *out)
{
	struct stat st;

	if (entry->content_id[0]) {
		strbuf_addstr(out, entry->content_id);
		return true;
	}
	if (stat(entry->path, &st) < 0)
		return false;
	strbuf_addf(out, "%llu %lld.%09ld %llu", (unsigned long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
		    (unsigned long long)st.st_ino);
	return true;
}

static uint32_t optional_string(struct history_index *ix, const char *s)
{
	return s ? intern(ix, s) : HISTORY_INDEX_NONE;
}

/* Room for one more point. Not ALLOC_GROW(): an index read from its file
 * is full to the last point, and doubling (and clearing) a million
 * points' array for a night's hundred would add its size to the peak. */
static void reserve_point(struct history_index *ix)
{
	if (ix->points_nr < ix->points_alloc)
		return;
	ix->points_alloc += ix->points_alloc / 8 + 1024;
	ix->points = xrealloc(ix->points,
			      ix->points_alloc * sizeof(*ix->points));
}

static void summarise(struct history_index *ix, const struct result *r,
		      struct record *rec)
{
	rec->suite = intern(ix, r->suite);
	rec->machine = intern(ix, r->machine.id);
	rec->first = ix->points_nr;
	for (size_t i = 0; i < r->cases_nr; i++) {
		const struct result_case *c = &r->cases[i];

		if (c->status != CASE_OK)
			continue;
		for (size_t j = 0; j < c->metrics_nr; j++) {
			const struct metric_samples *m = &c->metrics[j];
			struct history_index_metric key = {
				.benchmark = intern(ix, c->benchmark),
				.variant = intern(ix, c->variant),
				.device = intern(ix, c->device),
				.metric = intern(ix, m->name),
				.unit = optional_string(ix, m->unit),
				.better = (uint32_t)m->better,
			};
			struct stats_interval ci = { NAN, NAN };
			struct history_index_point *p;

			if (!m->nr)
				continue;
			stats_median_order_ci(m->samples, m->nr,
					      ix->confidence, &ci);
			reserve_point(ix);
			p = &ix->points[ix->points_nr++];
			p->metric = intern_metric(ix, &key);
			p->n = m->nr > UINT32_MAX ? UINT32_MAX
						  : (uint32_t)m->nr;
			p->median = stats_median(m->samples, m->nr);
			p->ci_low = ci.low;
			p->ci_high = ci.high;
			p->variance =
				changepoint_median_variance(m->samples, m->nr);
		}
	}
	rec->points_nr = ix->points_nr - rec->first;
}

int history_index_lookup(struct history_index *ix, struct store *store,
			 const struct store_entry *entry,
			 struct history_index_result *out)
{
	struct strbuf key = STRBUF_INIT, identity = STRBUF_INIT;
	const char *file = strrchr(entry->path, '/');
	const struct record *rec = NULL;
	struct result *r = NULL;
	uint32_t key_id, at;
	int error = BG_OK;

	strbuf_addf(&key, "%s/%s/%s", entry->commit, entry->machine,
		    file ? file + 1 : entry->path);
	key_id = intern(ix, key.buf);
	at = ix->record_of[key_id];
	if (identity_of(entry, &identity) && at != HISTORY_INDEX_NONE &&
	    !strcmp(ix->strings[ix->records[at].identity], identity.buf)) {
		rec = &ix->records[at];
	} else if ((error = store_load(store, entry, &r)) == BG_OK) {
		struct record fresh = { .key = key_id };

		summarise(ix, r, &fresh);
		/* after summarise(): the identity was not interned before */
		fresh.identity = intern(ix, identity.buf);
		ALLOC_GROW(ix->records, ix->records_nr + 1, ix->records_alloc);
		ix->records[ix->records_nr] = fresh;
		ix->record_of[key_id] = (uint32_t)ix->records_nr;
		rec = &ix->records[ix->records_nr++];
		ix->dirty = true;
		result_free(r);
	}
	if (rec)
		*out = (struct history_index_result){
			.suite = rec->suite,
			.machine = rec->machine,
			.points = ix->points + rec->first,
			.points_nr = (size_t)rec->points_nr,
		};
	strbuf_release(&key);
	strbuf_release(&identity);
	return error;
}

const char *history_index_string(const struct history_index *ix, uint32_t id)
{
	return id < ix->strings_nr ? ix->strings[id] : NULL;
}

const struct history_index_metric *
history_index_metric_at(const struct history_index *ix, uint32_t id)
{
	return &ix->metrics[id];
}

void history_index_save(struct history_index *ix)
{
	struct file_header h = { .magic = INDEX_MAGIC,
				 .version = INDEX_VERSION,
				 .byte_order = INDEX_BYTE_ORDER,
				 .confidence = ix->confidence };
	struct strbuf out = STRBUF_INIT, dir = STRBUF_INIT;
	struct iovec *parts;
	size_t parts_nr = 1;
	uint64_t first = 0;

	if (!ix->dirty || !ix->path)
		return;
	h.strings_nr = ix->strings_nr;
	h.metrics_nr = ix->metrics_nr;
	strbuf_add(&out, &h, sizeof(h));
	for (size_t i = 0; i < ix->strings_nr; i++)
		strbuf_add(&out, ix->strings[i], strlen(ix->strings[i]) + 1);
	h.strings_bytes = out.len - sizeof(h);
	strbuf_add(&out, ix->metrics, ix->metrics_nr * sizeof(*ix->metrics));
	/* Only the records still current: a file read again replaced its
	 * record, and the old one's points go with it. */
	for (size_t i = 0; i < ix->records_nr; i++) {
		struct record rec = ix->records[i];

		if (ix->record_of[rec.key] != i)
			continue;
		rec.first = first;
		first += rec.points_nr;
		strbuf_add(&out, &rec, sizeof(rec));
		h.records_nr++;
	}
	h.points_nr = first;
	memcpy(out.buf, &h, sizeof(h));
	/* The points are written from where they are (most of the file: a
	 * copy would be most of the memory), a part per run of them. */
	parts = xmalloc((ix->records_nr + 1) * sizeof(*parts));
	parts[0] = (struct iovec){ out.buf, out.len };
	for (size_t i = 0; i < ix->records_nr; i++) {
		const struct record *rec = &ix->records[i];
		char *from = (char *)(ix->points + rec->first);
		size_t len = (size_t)rec->points_nr * sizeof(*ix->points);
		struct iovec *last = &parts[parts_nr - 1];

		if (ix->record_of[rec->key] != i || !len)
			continue;
		if (parts_nr > 1 &&
		    (char *)last->iov_base + last->iov_len == from)
			last->iov_len += len;
		else
			parts[parts_nr++] = (struct iovec){ from, len };
	}
	/* The git store's cache directory may not exist yet. */
	strbuf_add(&dir, ix->path, (size_t)(strrchr(ix->path, '/') - ix->path));
	if (mkdir_p(dir.buf) < 0 ||
	    write_file_atomic_parts(ix->path, parts, parts_nr) < 0)
		bg_error_clear(); /* a cache: the store stays the source */
	ix->dirty = false;
	free(parts);
	strbuf_release(&out);
	strbuf_release(&dir);
}

void history_index_free(struct history_index *ix)
{
	if (!ix)
		return;
	clear(ix);
	free(ix->path);
	free(ix);
}
