/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BASELINE_H
#define BENCHGATE_BASELINE_H

#include "harness/model/result.h"
#include "harness/store/store.h"

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Which result a candidate is compared against (DESIGN.md, "Baseline
 * resolution"), found through libgit2:
 *
 * - "auto": the merge base of HEAD and the target branch, then its
 *   first-parent ancestors in order, stopping at the first commit with a
 *   result for the same suite and machine in the store. Comparing against
 *   the merge base, not HEAD's parent, keeps a pull request from being
 *   judged against commits of the target branch it has not seen.
 * - a file path that exists: that result file;
 * - anything else: a revspec libgit2 resolves ("main", "v1.2", "HEAD~3",
 *   "origin/main"), then the same first-parent walk from that commit;
 * - when nothing is found: baselines/<suite>/<machine>.json in the
 *   repository (a committed baseline); else no baseline at all.
 *
 * The walk also gathers up to BASELINE_HISTORY earlier results of the same
 * suite and machine: their spread is the metric's historical noise.
 */

#define BASELINE_HISTORY  20
#define BASELINE_MAX_WALK 2000

struct baseline_request {
	const char *spec;      /* "auto" (NULL too), a file or a revspec */
	const char *branch;    /* auto: the target branch; NULL: origin/HEAD,
				    * else main or master */
	const char *start_dir; /* where to find the repository; NULL: "." */
	const char *suite;
	const char *machine;
	/* how messages name spec: "--baseline" (NULL), or compare's "BASE" */
	const char *spec_name;
};

struct baseline {
	struct result *result; /* NULL: no baseline ("new") */
	char *source;	       /* "auto", "ref", "file", "baselines", "none" */
	char *path;	       /* the file compared against, or NULL */
	char *note;	       /* one line saying how it was found */
	struct result **history; /* owned; newest first, may include result */
	size_t history_nr;
};

/*
 * Resolves the baseline for req from store (may be NULL: only files and
 * committed baselines). Not finding one is not an error (source "none").
 * BG_EINPUT for a spec that is neither a readable result file nor a
 * revision, or a result file that does not parse; BG_ERROR for libgit2
 * failures. Release *out with baseline_release().
 */
int baseline_resolve(struct baseline *out, struct store *store,
		     const struct baseline_request *req);

/*
 * One side of `compare`: the result file `spec` (called spec_name in
 * messages: "BASE", "CAND") names, else the nearest
 * stored result of suite for this machine at or below revision spec (found
 * as for a --baseline revision; the machine is described, its accelerators
 * probed, only then: its id keys the store). BG_EINPUT when spec is no
 * file and suite is NULL, or no such result is found; errors of
 * baseline_resolve(). Release *out with baseline_release().
 */
int baseline_resolve_side(struct baseline *out, struct store *store,
			  const char *spec, const char *spec_name,
			  const char *suite);

void baseline_release(struct baseline *baseline);


/*
 * A compare_noise_fn over baseline->history (payload: the struct baseline):
 * the robust CV of the per-result medians of the case and metric, from at
 * least 5 results; 0 when there are fewer.
 */
double baseline_noise(const char *benchmark, const char *variant,
		      const char *device, const char *metric, void *payload);

/*
 * Copies a result file (validated first) to baselines/<suite>/<machine>.json
 * under the root of the repository containing start_dir (or to `to` when
 * given) atomically, and appends the destination to path_out. An existing
 * destination is a stored baseline: it is replaced only with `force`,
 * otherwise BG_EINPUT says so.
 */
int baseline_save(const char *result_path, const char *to,
		  const char *start_dir, bool force, struct strbuf *path_out);

#endif
