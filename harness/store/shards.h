/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SHARDS_H
#define BENCHGATE_SHARDS_H

#include "harness/model/result.h"
#include "harness/store/store.h"

#include <stddef.h>

/*
 * `benchgate merge`: one result from the shards of a run. A suite split
 * with `--shard I/N` over several CI jobs gives N results of one commit
 * and machine, each with a disjoint part of the cases; merged, they are
 * the result a single run would have stored.
 */

/*
 * Loads the results at paths[0..nr) (nr >= 1) and merges them:
 * - suite, suite_sha256, git.commit and machine.id must be the same in
 *   all, else BG_EINPUT naming the two files and the two values;
 * - cases are concatenated in the order of `paths`; a case (benchmark,
 *   variant and device) present twice is BG_EINPUT naming it and both
 *   files, since shards are disjoint and two measurements of one case in
 *   one result would be pooled by nothing downstream;
 * - started_at is the earliest, finished_at the latest; git.dirty is true
 *   if any shard was dirty; the other metadata comes from the first.
 * Errors of result_load() are passed up.
 *
 * A case's `log` and artifact paths are relative to its shard's file.
 * The merged result is then written to out_file atomically, where a
 * relative path of a shard in another directory becomes absolute, so
 * that it still resolves (one that is not there is left as is and
 * reported with bg_warn(), naming the shard). Or, with out_file NULL, it
 * is stored in the store of store_spec (NULL: store_default_spec()) with
 * the logs and artifacts its cases name copied in beside it, as a run's
 * own would be: "logs/<shard>/<f>" becomes "logs/<name>/<f>",
 * "artifacts/<shard>/<rest>" (a file or a directory)
 * "artifacts/<name>/<rest>" for the merged result's <name>. Absolute
 * paths are left as they are. A file not beside its shard (a `run --json`
 * copy has paths relative to the stored result) cannot be carried: its
 * path is left and bg_warn() names the shard and the count. BG_ERROR when
 * a copy fails (the store then holds a partial copy, harmless as a dead
 * run's logs); errors of store_open() and of writing.
 *
 * Appends where the result went to `where` and sets *cases_nr to its
 * number of cases.
 */
int shards_merge_into(const char *const *paths, size_t nr, const char *out_file,
		      const char *store_spec, struct strbuf *where,
		      size_t *cases_nr);

#endif
