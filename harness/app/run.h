/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_RUN_H
#define BENCHGATE_APP_RUN_H

#include "harness/run/session.h"

#include <stdbool.h>

/* `benchgate run`: measure a suite, store its result, print a summary. */
struct app_run_request {
	struct session_options session;
	const char *json; /* also write the result here; NULL: no */
	bool quiet, color;
};

/*
 * Measures the suite (check_measure(), no baseline), draws its flame
 * graphs, stores the result (or keeps it aside, at req->json when given,
 * when the store refuses it) and prints its summary, the variants compared
 * inside it and where it went. Returns an outcome (outcome.h) or an error
 * of session_prepare() and check_measure().
 */
int app_run(const struct app_run_request *req);

#endif
