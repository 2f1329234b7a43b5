/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_OUTPUTS_H
#define BENCHGATE_APP_OUTPUTS_H

#include "harness/util/fileio.h"

#include <stdbool.h>
#include <stddef.h>

/* What the use cases share: the store they open, the files they write. */

struct report_model;
struct store;

/* Opens the store spec names, else the default one (store.h's
 * store_default_spec()), into *out; errors of store_open(). */
int app_store_open(struct store **out, const char *spec);

/*
 * Machine output on stdout: an output option given "-" (--json -) means
 * stdout, and then nothing else goes there. app_claim_stdout() keeps the
 * real stdout for app_write_output() and points stdout at stderr, so every
 * other line (summaries, notes) goes to stderr; the command layer calls it
 * while parsing such an option. Idempotent.
 */
void app_claim_stdout(void);

/* Whether an output path means stdout: "-", or a path to the file that
 * stdout is (the same device and inode: /dev/stdout, /proc/self/fd/1, the
 * file stdout was redirected to), so that prose never mixes into the
 * document written there. */
bool app_output_is_stdout(const char *path);

struct strbuf;
/* Writes text to path atomically (fileio.h), or for "-" to the stdout that
 * app_claim_stdout() kept; BG_ERROR when it cannot. */
int app_write_output(const char *path, const struct strbuf *text);

/* app_write_output() of the text produce gives (fileio.h), written piece
 * by piece as it comes. */
int app_write_output_produced(const char *path, file_producer *produce,
			      void *ctx);

/* Before anything is measured: creates the directory of json_path and
 * report_dir when missing and proves a file can be written in each (each
 * when not NULL; "-" is stdout, nothing to prove), so that minutes of
 * measuring are not lost to a typo. BG_EINPUT naming the option (--json,
 * --report), the path and why. */
int app_prepare_outputs(const char *json_path, const char *report_dir);

/* Writes the comparison of model, the command's one report model (built
 * with its chart_cases, report.h), to json_path and every report into
 * report_dir, saying so unless quiet; each when not NULL, each even when
 * the other failed: the first failure is returned, the other printed. */
int app_write_outputs(const struct report_model *model, const char *json_path,
		      const char *report_dir, bool quiet);

#endif
