/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_OUTPUTS_H
#define BENCHGATE_APP_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

/* What the use cases share: the store they open, the files they write. */

struct report_model;
struct session;
struct store;

/* Opens the store spec names, else the default one (store.h's
 * store_default_spec()), into *out; errors of store_open(). */
int app_store_open(struct store **out, const char *spec);

/* Writes the comparison of model to json_path and every report into
 * report_dir, at most chart_cases charted (report.h), saying so unless
 * quiet; each when not NULL. Errors of the writing. */
int app_write_outputs(const struct report_model *model, const char *json_path,
		      const char *report_dir, size_t chart_cases, bool quiet);

/*
 * Draws the flame graphs of the session's profiling runs, the baseline
 * tree's too (reporters/flamegraph.h), once it is finished
 * (session_finish()) and before it is stored, so that the result lists
 * them and the store keeps them: a git store takes the files below the
 * result's directory in with the result, and a stored result is never
 * rewritten. Never fails: a profile never fails a case.
 */
void app_draw_profiles(struct session *session);

#endif
