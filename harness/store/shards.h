#ifndef BENCHGATE_SHARDS_H
#define BENCHGATE_SHARDS_H

#include "harness/store/result.h"
#include "harness/store/store.h"

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
 * A case's `log` and artifact paths are relative to its shard's file.
 * With out_dir (the directory the merged result will be written to) a
 * relative path of a shard in another directory becomes absolute, so that
 * it still resolves; one that is not there is left as is and reported
 * with bg_warn(), naming the shard. With NULL (the result goes into a
 * store) paths stay as recorded: see shards_carry_files().
 * With origins, *origins receives for each case of *out the path of its
 * shard (borrowed from paths; free() the array).
 * Errors of result_load() are passed up.
 */
int shards_merge(struct result **out, const char *const *paths, size_t nr,
		 const char *out_dir, const char ***origins);

/*
 * Copies the logs and artifacts that the cases of `merged` (from
 * shards_merge() with out_dir NULL) name relative to their shard, origins
 * from that call, into `slot`, reserved for `merged` in the store it will
 * be written to, and points the paths at the copies: "logs/<shard>/<f>"
 * becomes "<slot->log_prefix>/<f>", "artifacts/<shard>/<rest>" (a file or
 * a directory) "artifacts/<slot->name>/<rest>", so that they go into the
 * store with the result as a run's own would. Absolute paths are left as
 * they are. A file not beside its shard (a `run --json` copy has paths
 * relative to the stored result) cannot be carried: its path is left and
 * bg_warn() names the shard and the count. BG_ERROR when a copy fails
 * (the slot then holds a partial copy, harmless as a dead run's logs).
 */
int shards_carry_files(struct result *merged, const char *const *origins,
		       const struct store_slot *slot);

#endif
