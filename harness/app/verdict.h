/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_VERDICT_H
#define BENCHGATE_APP_VERDICT_H

#include "harness/app/against.h"
#include "harness/app/check.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The use cases that end in a verdict: `check` (measure, find the
 * baseline, compare, report) and `compare` (two stored results). Each
 * prints the comparison, writes what was asked for and returns the
 * outcome (outcome.h) of the verdict, or a negative BG_* error.
 */

/* Where the comparison goes besides the terminal. */
struct app_outputs {
	const char *json;	/* the comparison document; NULL: none */
	const char *report_dir; /* every report; NULL: none */
	size_t chart_cases;	/* report.h's chart_cases */
	bool quiet, color;
};

struct app_check_request {
	struct check_options check;
	struct against_options against; /* its ref NULL: no --against */
	struct app_outputs out;
};

/* With --against, against_prepare() first (its tree removed once
 * measured); check_run(), the flame graphs, check_conclude(), then the
 * summary, the CI annotations and the outputs, also when the result was
 * not stored (the outcome then says so, app_outcome_after_measuring()). */
int app_check(const struct app_check_request *req);

struct app_compare_request {
	const char *store; /* NULL: the default store */
	const char *base, *cand; /* result files or revisions */
	const char *suite;	 /* the suite of revisions' results */
	double threshold, confidence; /* < 0: as the results record */
	struct app_outputs out;
};

int app_compare(const struct app_compare_request *req);

#endif
