/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_IMPORT_H
#define BENCHGATE_IMPORT_H

#include "harness/bridge/bridge.h"
#include "harness/model/result.h"

#include <stdbool.h>
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

/* `benchgate import` as a whole. */
struct app_import_request {
	const char *store;  /* NULL: the default store */
	const char *json;   /* also write the result here; NULL: no */
	const char *format; /* bridge_format_parse()'s names; required */
	const char *suite;  /* NULL: the format's name */
	char *const *files;
	size_t files_nr;
	bool quiet, color;
};

/* Imports the files (import_files()), stores the result and prints its
 * summary and where it went: OUTCOME_CASE_FAILED (outcome.h) when the tool
 * reported a benchmark as failed, else OUTCOME_PASS; BG_EINPUT without a
 * format; errors of import_files(), the store and the writing of json. */
int app_import(const struct app_import_request *req);

#endif
