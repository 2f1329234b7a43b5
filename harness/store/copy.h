/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STORE_COPY_H
#define BENCHGATE_STORE_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * `benchgate store copy`: every result of one store into another, any
 * direction between the backends behind store.h (a directory, a git
 * branch, a PostgreSQL database), through the public verbs only, so
 * that a new backend is copied to and from by implementing them.
 *
 * A result is copied with its document byte for byte
 * (store_write_document()) and every file it owns (store_entry_files():
 * its logs and artifacts). Results are copied oldest first, so an empty
 * target gives each result the name it had, "-N" suffixes included, and
 * a round trip dir -> git -> dir gives identical files.
 *
 * Resumable: a result the target already holds is skipped. Two results
 * are the same when they have the same commit, machine, suite and start
 * (their file names' timestamp) and the same document once their own name
 * is taken out of its log and artifact paths (a result that had to take
 * another name in the target, "-1" after a killed copy left a slot
 * behind, is still recognised). Writes go into the target as a batch
 * (store_batch_begin()): a git branch gets one commit per
 * STORE_BATCH_MAX results, and a results repository one push, at the
 * end. Each group is stored whole or not at all, so a copy killed at any
 * point (or stopped by a failed write: the groups before it are kept)
 * is finished by running it again.
 *
 * At the end the target is listed again and every readable result of the
 * source must be found in it (a missing one is BG_ERROR naming the
 * count); source results that do not load are reported with bg_warn()
 * and counted, not copied.
 */

struct store_copy_options {
	const char *from; /* store specs, as store_open() takes them */
	const char *to;
	bool progress; /* a line on stderr as each tenth is done */
};

struct store_copy_report {
	size_t results;	   /* readable results in the source */
	size_t copied;	   /* written into the target by this call */
	size_t present;	   /* already in the target, skipped */
	size_t renamed;	   /* copied under another name: their document's
			    * log and artifact paths changed with it */
	size_t unreadable; /* source results that did not load */
	size_t files;	   /* logs and artifacts copied */
	uint64_t bytes;	   /* documents, logs and artifacts copied */
};

/*
 * Copies the results of o->from into o->to (created by its first write)
 * and fills *report. BG_EINPUT for a spec store_open() refuses or two
 * specs naming one store; BG_ERROR when a read or a write fails (what
 * was copied before stays, and a second run resumes) or when the
 * verification finds a result missing.
 */
int store_copy(const struct store_copy_options *o,
	       struct store_copy_report *report);

#endif
