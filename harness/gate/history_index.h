/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_HISTORY_INDEX_H
#define BENCHGATE_HISTORY_INDEX_H

#include "harness/store/store.h"
#include "harness/util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

/*
 * What `benchgate history` needs of each stored result, kept beside the
 * store so that a history of thousands of commits is not re-read and
 * re-summarised on every call: per result file, its suite and machine and,
 * per case and metric that measured something, the samples' count,
 * median, interval of the median and the median's own variance
 * (changepoint.h) - a few dozen bytes where the file held every sample.
 *
 * A cache, never a source: each summary is keyed by the result file's
 * place in the store and its identity (a git store: the blob's id; a
 * directory store: size, modification time and inode), and a file whose
 * identity changed is read again. The index is the file ".history-index"
 * in store_cache_dir(): deleting it costs the next call a full read. The
 * file carries its version and a checksum of its header and of each
 * section: one that is unreadable, truncated, not a regular file, of
 * another version or byte order, whose sums do not match or whose ids
 * and ranges fail validation is ignored with one warning and rebuilt from
 * the results; one summarised at another confidence is rebuilt quietly. It
 * is replaced whole (write_file_atomic(), so concurrent readers see the
 * old or the new one) when a call read results it did not hold; a store
 * where it cannot be written (read-only) is simply read every time.
 * Results that do not load are never recorded, so they are reported on
 * every call, as without the index. Summaries of files that left the
 * store stay in the index (unused) until it is deleted.
 */
struct history_index;

/* Strings are ids into the index (history_index_string()). */
#define HISTORY_INDEX_NONE UINT32_MAX

/* A case and metric as a result names it. */
struct history_index_metric {
	uint32_t benchmark, variant, device, metric;
	uint32_t unit;	 /* HISTORY_INDEX_NONE: the result gives none */
	uint32_t better; /* enum better */
};

/* One metric of one case of a result, summarised. */
struct history_index_point {
	uint32_t metric; /* history_index_metric_at() */
	uint32_t n;	 /* samples */
	double median;
	double ci_low, ci_high; /* stats_median_order_ci() at the index's
				 * confidence */
	double variance;	/* changepoint_median_variance(); NAN for
				 * fewer than 2 finite samples */
};

/* A result file summarised: every case of status ok and every metric with
 * samples, in the file's order. */
struct history_index_result {
	uint32_t suite, machine;
	/* Cores other processes kept busy while it ran (its load_at_start's
	 * cpu_busy, result.h); 0 when it recorded none. */
	double busy;
	const struct history_index_point *points; /* valid until the next
						   * lookup */
	size_t points_nr;
};

/*
 * Opens the index of `store` (reading its file when there is a usable
 * one) for summaries at `confidence`. Never fails: without a usable file
 * the index starts empty.
 */
struct history_index *history_index_open(struct store *store,
					  double confidence);

/*
 * The summary of entry's result (an entry store_list() gave for `store`):
 * from the index when it holds the file as it is now, else loaded with
 * store_load() and summarised into the index. store_load()'s errors (the
 * file reported there) when it does not load.
 */
int history_index_lookup(struct history_index *index, struct store *store,
			 const struct store_entry *entry,
			 struct history_index_result *out);

const char *history_index_string(const struct history_index *index,
				 uint32_t id);
const struct history_index_metric *
history_index_metric_at(const struct history_index *index, uint32_t id);

/* Writes the index back when lookups added to it; best effort (a store
 * that cannot take it is read in full next time). */
void history_index_save(struct history_index *index);

/*
 * For the fuzz target and tests: an index of no store, at `confidence`,
 * read from the `len` bytes at data as history_index_open() reads its
 * file. NULL, and in *why (static text) what is wrong, when they are not
 * a usable index.
 */
struct history_index *history_index_parse(const void *data, size_t len,
					   double confidence,
					   const char **why);

/* Appends to out the bytes history_index_save() would write. */
void history_index_encode(const struct history_index *index,
			  struct strbuf *out);

/* NULL-safe. */
void history_index_free(struct history_index *index);

#endif
