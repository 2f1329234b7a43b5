/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_HISTORY_H
#define BENCHGATE_APP_HISTORY_H

#include "harness/gate/history.h"

#include <stdbool.h>

/*
 * The use cases that read a branch's history: `history` (the series, as a
 * view, CSV, JSON, or the alerts a published site lacks) and `publish`
 * (the static dashboard). Both read the same history, built here.
 */

struct store;

/* Opens the store (app_store_open()) into *store and builds into *out
 * (zeroed) the history that req selects, its change points attributed
 * (attribution_find()), with req->repo or else one repository it opens
 * for both. The caller releases both, also after an error;
 * errors of history_build() and attribution_find(). */
int app_history_build(struct history *out, struct store **store,
		      const char *store_spec,
		      const struct history_request *req);

struct app_history_request {
	struct history_request history;
	const char *store;     /* NULL: the default store */
	const char *json;      /* also write the history document here */
	const char *published; /* with alert: the published site's DIR */
	/* with alert: also write the alert here as the body of an issue
	 * (Markdown, through the forge's neutraliser: body_fence()) */
	const char *issue;
	bool csv;	       /* CSV on stdout instead of the view */
	bool alert;	       /* only the regressions the site lacks */
	bool quiet, color;
};

/* Prints the history (or its alerts); OUTCOME_REGRESSION when alerting
 * finds one, else OUTCOME_PASS; errors of app_history_build(), the
 * writing of json and alert_find(). */
int app_history(const struct app_history_request *req);

struct app_publish_request {
	struct history_request history;
	const char *store; /* NULL: the default store */
	const char *out;   /* the site's directory */
	bool quiet;
};

/* Writes the dashboard into req->out (harness/app/publish.h) and says what
 * it did unless quiet; errors of app_history_build() and publish_site(). */
int app_publish(const struct app_publish_request *req);

#endif
