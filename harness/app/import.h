/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_IMPORT_H
#define BENCHGATE_IMPORT_H

#include "harness/bridge/bridge.h"
#include "harness/model/result.h"

#include <stddef.h>

/*
 * `benchgate import`: the documents of a peer tool (bridge.h) made into one
 * result of the current commit and machine, as `run` makes its own, so
 * that the store, compare, check, history and the reports take it like
 * any other.
 */

/*
 * Reads the nr files of `paths` as documents of `format` into a new
 * result *out (free with result_free()) of suite `suite` (a name, name.h),
 * with the git commit of the current directory, this machine
 * (machine.h), the current time and this benchgate's version. Each file's
 * benchmarks become cases (bridge_add_to_result()); what a document
 * notes (a summary counted as one value) is printed as a warning naming
 * the file. BG_EINPUT for a bad suite name, a file that is not such a
 * document or a benchmark in two files; BG_ERROR when a file cannot be
 * read; *out is then NULL.
 */
int import_files(struct result **out, enum bridge_format format,
		 char *const *paths, size_t nr, const char *suite);

#endif
