/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STORE_MAINTAIN_H
#define BENCHGATE_STORE_MAINTAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Keeping a store small: `benchgate store prune` removes old results with
 * their logs and artifacts, `benchgate store compact` replaces the
 * per-iteration samples of old results by a bounded subsample. Both
 * select by age (the start of the run, as its file name records it) and
 * can keep the results of tagged commits; a dry run prints what would go
 * and the bytes it would save, and changes nothing. Results not selected
 * are never touched (store_rewrite()). Directory, git: and PostgreSQL
 * stores follow the same rules, here; each applies the changes its way
 * (store_rewrite(): a PostgreSQL store in one transaction).
 *
 * Compaction keeps, of a metric with more than `samples` samples, a
 * deterministic subsample: when its samples divide into its runs (as the
 * runner records them), samples / runs (at least one) order statistics of
 * each run's samples, evenly spaced from its smallest to its largest (one:
 * its median), so that per-run medians, spreads and the number of
 * independent runs the gate counts stay what they were (a metric with
 * no more than that per run is left alone); otherwise `samples` order
 * statistics of all of them. The metric records how many
 * it had ("compacted_from"), and readers say so. Compacting again keeps
 * the first count.
 */

enum store_maintain_action {
	STORE_PRUNE,   /* remove the selected results */
	STORE_COMPACT, /* compact their samples */
};

struct store_maintain_options {
	const char *store; /* a spec (store_open()); NULL: the default */
	enum store_maintain_action action;
	double older_than_s; /* select results started longer ago; < 0: all */
	bool keep_tagged;    /* never select a result of a tagged commit */
	size_t samples;	     /* STORE_COMPACT: samples kept per metric */
	bool dry_run;	     /* print, change nothing */
	bool squash;	     /* git store: the branch becomes one commit */
	FILE *listing;	     /* one line per selected result; NULL: none */
};

struct store_maintain_report {
	size_t results;	    /* readable results in the store */
	size_t selected;    /* removed or compacted (or would be) */
	size_t kept_tagged; /* old enough, but of a tagged commit */
	uint64_t bytes_before; /* of the selected: documents, logs and
				* artifacts before ... */
	uint64_t bytes_after;  /* ... and after (0 for a prune) */
	/* the bytes are a PostgreSQL store's octet_length() of documents
	 * and files (store_entry_size()), not the space on its disk */
	bool database_sizes;
};

/* What the bytes of a report with database_sizes are: said under it. */
#define STORE_MAINTAIN_DATABASE_SIZES                                      \
	"bytes: PostgreSQL's octet_length() of the documents and files, "  \
	"uncompressed; the database reuses the space after (auto)VACUUM, " \
	"VACUUM FULL gives it back to the file system"

/*
 * Prunes or compacts the store as `o` says and fills *report. BG_EINPUT
 * for --keep-tagged outside a repository, --squash on a directory store
 * or a compaction to no samples; errors of reading and of
 * store_rewrite() otherwise (a store only partly rewritten is still
 * whole: each result is either as it was or changed).
 */
int store_maintain(const struct store_maintain_options *o,
		   struct store_maintain_report *report);

#endif
