/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SUMMARY_H
#define BENCHGATE_SUMMARY_H

#include "reporters/report.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * What `run`, `compare` and `check` print in the terminal: aligned tables,
 * coloured only when asked (the CLI asks when stdout is a TTY and NO_COLOR
 * is unset). The numbers come from the report model (report.h), built
 * once by the command and read here as in every report, so a change
 * reads the same everywhere; the functions that take a model require it
 * built (report_model_build()).
 */

/* Per case, each metric's median and spread (robust CV), runs and status;
 * failed cases with the first line of their reason. */
void summary_print_result(FILE *to, const struct result *result, bool color);

/* The same, for model->candidate stored at result_path: a failed case
 * shows the last lines of its stderr and where its log is (the result's
 * log paths are relative to its file). Skipped cases come after the
 * table, each reason once with the cases it covers. */
void summary_print_result_at(FILE *to, const struct report_model *model,
			     const char *result_path, bool color);

/* The result table of model->candidate without its failed and skipped
 * cases: what check prints above a comparison, which lists those once. */
void summary_print_measures(FILE *to, const struct report_model *model,
			    bool color);

/* The variant table of a comparison (speed-up against the reference
 * variant, size and accuracy), as summary_print_comparison() ends:
 * `run` prints it for a result compared with nothing. Nothing when the
 * comparison has no variants. */
void summary_print_variants(FILE *to, const struct report_model *model,
			    bool color);

/* A warning on stderr (bg_warn(), "benchgate: warning: ..."), whatever
 * else goes to stdout, when other processes were busy on the machine
 * during the result's measurement (result->load): which, how busy, and the
 * load average. Nothing when the machine was quiet or the result does not
 * say. */
void summary_warn_load(const struct result *result);

/* The verdict line alone ("PASS: 0 regressions, ..."): what --quiet
 * keeps. */
void summary_print_verdict(FILE *to, const struct comparison *comparison,
			   bool color);

/* The verdict line, then the comparisons: regressions first, then
 * failures, improvements, inconclusive; unchanged and the rest only when
 * `all` is set (else counted). Then the variant comparison table. */
void summary_print_comparison(FILE *to, const struct report_model *model,
			      bool color, bool all);

#endif
