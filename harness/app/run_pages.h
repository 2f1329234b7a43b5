/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_RUN_PAGES_H
#define BENCHGATE_RUN_PAGES_H

#include "harness/app/publish.h"
#include "harness/gate/history.h"
#include "harness/store/store.h"
#include "reporters/dashboard.h"

/*
 * The pages of the runs behind a dashboard's newest points, which `publish`
 * adds to the site so that each point links its log and its report:
 *   reports/RUN.html           the HTML report of the result (every metric
 *                              "new", with its variant table), as
 *                              `benchgate report` writes it
 *   logs/RUN-CASE.html         a case's log (store_read_beside()), escaped
 *                              in a page of the site (dashboard_log_page())
 * RUN names the result by its commit and a hash of its commit, machine and
 * file name; CASE is a slug of the case and a hash of its names. A result
 * never changes once stored, so its pages are made once: a republish keeps
 * those an earlier publish wrote (publish_previous_has()) without loading
 * the result again, which keeps publishing after one new commit as fast
 * as before. Only the newest RUN_PAGES_POINTS points of each series get
 * pages.
 */

#define RUN_PAGES_POINTS DASHBOARD_TABLE_POINTS
/* A log is published up to this many bytes, with a note when cut. */
#define RUN_PAGES_LOG_MAX ((size_t)1 << 20)

struct run_pages;

/*
 * Adds the pages of the runs of history's newest points to site (made or
 * kept, as above) and sets *out to what run_pages_lookup() answers from.
 * A result that does not load, or a log that cannot be read, is reported
 * (bg_warn()) and left without its page; never fails otherwise. Free with
 * run_pages_free() after the site is rendered.
 */
void run_pages_add(struct run_pages **out, struct dashboard *site,
		   const struct history *history, struct store *store,
		   const struct publish_previous *previous,
		   const char *repo_url);

/* dashboard_options.run_pages, with payload the struct run_pages. */
void run_pages_lookup(void *payload, size_t series, size_t point,
		      const char **log, const char **report);

void run_pages_free(struct run_pages *pages);

#endif
