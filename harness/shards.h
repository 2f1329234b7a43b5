#ifndef BENCHGATE_SHARDS_H
#define BENCHGATE_SHARDS_H

#include "harness/result.h"

#include <stddef.h>

/*
 * `benchgate merge`: one result from the shards of a run. A suite split
 * with `--shard I/N` over several CI jobs gives N results of one commit
 * and machine, each with a disjoint part of the cases; merged, they are
 * the result a single run would have stored.
 */

/*
 * Loads the results at paths[0..nr) (nr >= 1) and merges them into *out
 * (free with result_free()):
 * - suite, suite_sha256, git.commit and machine.id must be the same in
 *   all, else BG_EINPUT naming the two files and the two values;
 * - cases are concatenated in the order of `paths`; a case (benchmark,
 *   variant and device) present twice is BG_EINPUT naming it and both
 *   files, since shards are disjoint and two measurements of one case in
 *   one result would be pooled by nothing downstream;
 * - started_at is the earliest, finished_at the latest; git.dirty is true
 *   if any shard was dirty; the other metadata comes from the first.
 * A case's `log` is relative to its shard's file. With out_dir (the
 * directory the merged result will be written to) a relative log of a
 * shard in another directory becomes absolute, so that it still resolves;
 * with NULL (the result goes into a store) logs stay as recorded.
 * Errors of result_load() are passed up.
 */
int shards_merge(struct result **out, const char *const *paths, size_t nr,
		 const char *out_dir);

#endif
