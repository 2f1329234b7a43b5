/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/history_index.h"

#include "harness/gate/changepoint.h"
#include "harness/gate/stats.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/hash.h"
#include "harness/util/strbuf.h"

#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The file: a header, then the strings (each ending in a NUL, ids in
 * order), the metrics, the records and the points, each an array of the
 * fixed-width structs below in this machine's byte order. The header
 * holds a checksum of each section and of itself, so that a damaged
 * value is noticed before it is served (a cache must never be believed
 * over the results it summarises); every id and range is checked on
 * reading too, and anything out of place discards the file.
 */
#define INDEX_FILE "/.history-index"
#define INDEX_MAGIC "bgindex\n"
#define INDEX_VERSION 3
#define INDEX_BYTE_ORDER 0x01020304u
/* Larger than any index this version writes would be absurd: 16 GiB. */
#define INDEX_MAX_BYTES (UINT64_C(16) << 30)

/* The fuzz target's build checks no sums, so that mutated bytes reach the
 * validation behind them (libFuzzer cannot forge a checksum). */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define sum_matches(sum, expected) ((void)(sum), (void)(expected), true)
#else
#define sum_matches(sum, expected) ((sum) == (expected))
#endif

enum section { STRINGS, METRICS, RECORDS, POINTS, SECTIONS };

/* The counts keep their offsets of version 1 (tests find the sections
 * by them); the checksums follow. */
struct file_header {
	char magic[8];
	uint32_t version, byte_order;
	double confidence;
	uint64_t strings_bytes, strings_nr, metrics_nr, records_nr, points_nr;
	uint64_t sums[SECTIONS]; /* FNV-1a 64 of each section's bytes */
	uint64_t header_sum;	 /* of the header's bytes before it */
};

struct record {
	uint32_t key, identity, suite, machine;
	uint64_t first;
	uint64_t points_nr;
	double busy; /* since version 3 */
};

_Static_assert(sizeof(struct file_header) == 104, "header layout");
_Static_assert(sizeof(struct record) == 40, "record layout");
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

/* Reads a section of `bytes` bytes and checks its sum. */
static bool read_section(FILE *f, void *out, size_t bytes, uint64_t sum)
{
	return fread(out, 1, bytes, f) == bytes &&
	       sum_matches(hash_fnv1a64(out, bytes), sum);
}

/* An array of nr elements of `size` bytes, read and checked. */
static void *read_array(FILE *f, uint64_t nr, size_t size, uint64_t sum,
			size_t *alloc)
{
	void *out = xmalloc(nr ? (size_t)nr * size : 1);

	*alloc = nr ? (size_t)nr : 1;
	if (read_section(f, out, (size_t)nr * size, sum))
		return out;
	free(out);
	*alloc = 0;
	return NULL;
}

static const char *load_strings(struct history_index *ix, FILE *f,
				const struct file_header *h)
{
	char *blob, *at, *end;
	const char *why = NULL;

	if (h->strings_nr > h->strings_bytes || h->strings_nr >= UINT32_MAX)
		return "more strings than bytes";
	blob = xmalloc((size_t)h->strings_bytes + 1);
	if (!read_section(f, blob, (size_t)h->strings_bytes, h->sums[STRINGS]))
		why = "the strings' checksum does not match";
	else if (h->strings_bytes && blob[h->strings_bytes - 1])
		why = "the last string does not end";
	/* Interning gives ids in order: a repeated string breaks that. */
	for (at = blob, end = blob + h->strings_bytes; !why && at < end;
	     at += strlen(at) + 1)
		if (intern(ix, at) != ix->strings_nr - 1)
			why = "a string is repeated";
	free(blob);
	if (!why && ix->strings_nr != h->strings_nr)
		why = "the strings are not as many as the header says";
	return why;
}

static bool valid_string(const struct history_index *ix, uint32_t id)
{
	return id < ix->strings_nr;
}

static const char *load_metrics(struct history_index *ix, FILE *f,
				const struct file_header *h)
{
	struct history_index_metric *metrics;
	const char *why = NULL;
	size_t alloc;

	if (h->metrics_nr >= UINT32_MAX)
		return "too many metrics";
	metrics = read_array(f, h->metrics_nr, sizeof(*metrics),
			     h->sums[METRICS], &alloc);
	if (!metrics)
		return "the metrics' checksum does not match";
	for (uint64_t i = 0; !why && i < h->metrics_nr; i++) {
		const struct history_index_metric *m = &metrics[i];

		if (!valid_string(ix, m->benchmark) ||
		    !valid_string(ix, m->variant) ||
		    !valid_string(ix, m->device) ||
		    !valid_string(ix, m->metric) ||
		    (m->unit != HISTORY_INDEX_NONE &&
		     !valid_string(ix, m->unit)) ||
		    m->better > BETTER_HIGHER)
			why = "a metric is out of range";
		else if (intern_metric(ix, m) != i)
			why = "a metric is repeated";
	}
	free(metrics);
	return why;
}

static const char *load_records(struct history_index *ix, FILE *f,
				const struct file_header *h)
{
	if (h->records_nr >= UINT32_MAX)
		return "too many records";
	ix->records = read_array(f, h->records_nr, sizeof(*ix->records),
				 h->sums[RECORDS], &ix->records_alloc);
	if (!ix->records)
		return "the records' checksum does not match";
	ix->points = read_array(f, h->points_nr, sizeof(*ix->points),
				h->sums[POINTS], &ix->points_alloc);
	if (!ix->points)
		return "the points' checksum does not match";
	if (fgetc(f) != EOF)
		return "bytes after the last section";
	ix->points_nr = (size_t)h->points_nr;
	for (size_t i = 0; i < ix->points_nr; i++)
		if (ix->points[i].metric >= ix->metrics_nr ||
		    !ix->points[i].n)
			return "a point is out of range";
	for (; ix->records_nr < h->records_nr; ix->records_nr++) {
		const struct record *r = &ix->records[ix->records_nr];

		if (!valid_string(ix, r->key) ||
		    !valid_string(ix, r->identity) ||
		    !valid_string(ix, r->suite) ||
		    !valid_string(ix, r->machine) ||
		    r->first > ix->points_nr ||
		    r->points_nr > ix->points_nr - r->first ||
		    !(r->busy >= 0 && isfinite(r->busy)))
			return "a record is out of range";
		if (ix->record_of[r->key] != HISTORY_INDEX_NONE)
			return "a record is repeated";
		ix->record_of[r->key] = (uint32_t)ix->records_nr;
	}
	return NULL;
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
static bool sizes_add_up(const struct file_header *h, uint64_t size)
{
	const uint64_t sizes[] = { sizeof(struct history_index_metric),
				   sizeof(struct record),
				   sizeof(struct history_index_point) };
	const uint64_t counts[] = { h->metrics_nr, h->records_nr,
				    h->points_nr };
	uint64_t total = sizeof(*h) + h->strings_bytes;

	if (h->strings_bytes > size)
		return false;
	for (size_t i = 0; i < 3; i++) {
		if (counts[i] > size / sizes[i])
			return false;
		total += counts[i] * sizes[i];
	}
	return total == size;
}

/* Reads the index from f, `size` bytes: NULL, or why it is not usable
 * (the index is then left empty). */
static const char *load_from(struct history_index *ix, FILE *f,
			     uint64_t size)
{
	struct file_header h;
	const char *why = NULL;
	bool ours = false;

	if (size > INDEX_MAX_BYTES)
		why = "larger than any index";
	else if (fread(&h, sizeof(h), 1, f) != 1 ||
		 memcmp(h.magic, INDEX_MAGIC, sizeof(h.magic)))
		why = "not an index";
	else if (h.version == 2)
		; /* an earlier benchgate's, without the load: rebuilt quietly */
	else if (h.version != INDEX_VERSION)
		why = "of another version";
	else if (h.byte_order != INDEX_BYTE_ORDER)
		why = "of another byte order";
	else if (!sum_matches(hash_fnv1a64(&h, offsetof(struct file_header,
							       header_sum)),
			      h.header_sum))
		why = "the header's checksum does not match";
	else if (!(ours = h.confidence == ix->confidence))
		; /* summarised at another confidence: not damaged, not ours */
	else if (!sizes_add_up(&h, size))
		why = "its size is not what the header says";
	else if (!(why = load_strings(ix, f, &h)) &&
		 !(why = load_metrics(ix, f, &h)))
		why = load_records(ix, f, &h);
	if (why || !ours) {
		clear(ix);
		ix->dirty = true;
	}
	return why;
}

/* Reads the index's file. A file that is there and not usable is
 * reported once, as a warning: it is rebuilt from the results (and
 * written again at the end of the call). */
static void load(struct history_index *ix)
{
	int fd = open_regular(ix->path, 0);
	const char *why;
	struct stat st;
	FILE *f;

	if (fd < 0) {
		if (fd != BG_ENOTFOUND)
			bg_warn("%s; the history index is rebuilt from the "
				"results", bg_error_last());
		bg_error_clear();
		return;
	}
	if (fstat(fd, &st) < 0 || !(f = fdopen(fd, "rb"))) {
		close(fd);
		return;
	}
	why = load_from(ix, f, (uint64_t)st.st_size);
	fclose(f);
	if (why)
		bg_warn("'%s': damaged history index (%s); it is rebuilt "
			"from the results", ix->path, why);
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
	rec->busy = r->load.observed && isfinite(r->load.cpu_busy) &&
				    r->load.cpu_busy > 0
			    ? r->load.cpu_busy
			    : 0;
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
			.busy = rec->busy,
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

/*
 * The file's bytes as parts: the first holds the header, the strings, the
 * metrics and the records; the points are written from where they are
 * (most of the file: a copy would be most of the memory), a part per run
 * of them. Free *parts; release head.
 */
static size_t encode_parts(const struct history_index *ix,
			   struct strbuf *head, struct iovec **parts)
{
	struct file_header h = { .magic = INDEX_MAGIC,
				 .version = INDEX_VERSION,
				 .byte_order = INDEX_BYTE_ORDER,
				 .confidence = ix->confidence };
	size_t parts_nr = 1, at;
	uint64_t first = 0;

	h.strings_nr = ix->strings_nr;
	h.metrics_nr = ix->metrics_nr;
	strbuf_add(head, &h, sizeof(h));
	for (size_t i = 0; i < ix->strings_nr; i++)
		strbuf_add(head, ix->strings[i], strlen(ix->strings[i]) + 1);
	h.strings_bytes = head->len - sizeof(h);
	h.sums[STRINGS] = hash_fnv1a64(head->buf + sizeof(h), head->len -
							      sizeof(h));
	h.sums[METRICS] = hash_fnv1a64(ix->metrics, ix->metrics_nr *
							    sizeof(*ix->metrics));
	strbuf_add(head, ix->metrics, ix->metrics_nr * sizeof(*ix->metrics));
	/* Only the records still current: a file read again replaced its
	 * record, and the old one's points go with it. */
	at = head->len;
	for (size_t i = 0; i < ix->records_nr; i++) {
		struct record rec = ix->records[i];

		if (ix->record_of[rec.key] != i)
			continue;
		rec.first = first;
		first += rec.points_nr;
		strbuf_add(head, &rec, sizeof(rec));
		h.records_nr++;
	}
	h.sums[RECORDS] = hash_fnv1a64(head->buf + at, head->len - at);
	h.points_nr = first;
	*parts = xmalloc((ix->records_nr + 1) * sizeof(**parts));
	h.sums[POINTS] = HASH_FNV1A64_START;
	for (size_t i = 0; i < ix->records_nr; i++) {
		const struct record *rec = &ix->records[i];
		char *from = (char *)(ix->points + rec->first);
		size_t len = (size_t)rec->points_nr * sizeof(*ix->points);
		struct iovec *last = &(*parts)[parts_nr - 1];

		if (ix->record_of[rec->key] != i || !len)
			continue;
		h.sums[POINTS] = hash_fnv1a64_add(h.sums[POINTS], from, len);
		if (parts_nr > 1 &&
		    (char *)last->iov_base + last->iov_len == from)
			last->iov_len += len;
		else
			(*parts)[parts_nr++] = (struct iovec){ from, len };
	}
	h.header_sum = hash_fnv1a64(&h, offsetof(struct file_header,
						 header_sum));
	memcpy(head->buf, &h, sizeof(h));
	(*parts)[0] = (struct iovec){ head->buf, head->len };
	return parts_nr;
}

void history_index_encode(const struct history_index *ix, struct strbuf *out)
{
	struct strbuf head = STRBUF_INIT;
	struct iovec *parts;
	size_t nr = encode_parts(ix, &head, &parts);

	for (size_t i = 0; i < nr; i++)
		strbuf_add(out, parts[i].iov_base, parts[i].iov_len);
	free(parts);
	strbuf_release(&head);
}

struct history_index *history_index_parse(const void *data, size_t len,
					   double confidence,
					   const char **why)
{
	struct history_index *ix = xcalloc(1, sizeof(*ix));
	FILE *f = len ? fmemopen((void *)data, len, "rb") : NULL;

	ix->confidence = confidence;
	*why = f ? load_from(ix, f, len) : "not an index";
	if (f)
		fclose(f);
	if (*why) {
		history_index_free(ix);
		return NULL;
	}
	return ix;
}

void history_index_save(struct history_index *ix)
{
	struct strbuf head = STRBUF_INIT, dir = STRBUF_INIT;
	struct iovec *parts;
	size_t parts_nr;

	if (!ix->dirty || !ix->path)
		return;
	parts_nr = encode_parts(ix, &head, &parts);
	/* The git store's cache directory may not exist yet. */
	strbuf_add(&dir, ix->path, (size_t)(strrchr(ix->path, '/') - ix->path));
	if (mkdir_p(dir.buf) < 0 ||
	    write_file_atomic_parts(ix->path, parts, parts_nr) < 0)
		bg_error_clear(); /* a cache: the store stays the source */
	ix->dirty = false;
	free(parts);
	strbuf_release(&head);
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
