/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/history.h"

#include "harness/app/outcome.h"
#include "harness/app/outputs.h"
#include "harness/app/run_pages.h"
#include "harness/forge/body.h"
#include "harness/gate/alert.h"
#include "harness/gate/attribution.h"
#include "harness/git/repo.h"
#include "harness/git/weburl.h"
#include "harness/store/store.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/name.h"
#include "harness/util/terminal.h"
#include "harness/util/utf8.h"
#include "reporters/dashboard.h"
#include "reporters/history_view.h"
#include "harness/app/publish.h"

#include <stdio.h>
#include <stdlib.h>

int app_history_build(struct history *out, struct store **store,
		      const char *store_spec, const struct history_request *req)
{
	struct history_request with_repo = *req;
	git_repository *opened = NULL;
	int error;

	/* opened once for the walk and the authors; when it cannot be,
	 * history_build() says why */
	if (!with_repo.repo && repo_open(&opened, req->start_dir) == 0)
		with_repo.repo = opened;
	if ((error = app_store_open(store, store_spec)) == BG_OK &&
	    (error = history_build(out, *store, &with_repo)) == BG_OK)
		error = attribution_find(out, with_repo.repo);
	git_repository_free(opened);
	return error;
}

/* --issue: the alert as an issue's body. It quotes commit subjects and
 * authors, which a pull request chooses: fenced, so that no mention,
 * image or HTML of theirs goes live on the forge. */
static int write_issue(const char *path, const struct history *history,
		       const struct alerts *alerts)
{
	struct strbuf text = STRBUF_INIT, body = STRBUF_INIT;
	char *valid;
	int error;

	history_view_alerts(&text, history, alerts, false);
	valid = utf8_sanitized(text.buf);
	strbuf_addstr(&body, "The nightly benchmarks found new regressions:"
			     "\n\n");
	body_fence(&body, valid);
	free(valid);
	error = app_write_output(path, &body);
	strbuf_release(&text);
	strbuf_release(&body);
	return error;
}

/* --alert: the regressions the published site does not show yet. */
static int alert(const struct history *history, const char *published,
		 const char *issue, bool quiet, bool color)
{
	struct alerts alerts = { 0 };
	struct strbuf text = STRBUF_INIT;
	int error;

	if ((error = alert_find(&alerts, history, published)) < 0)
		return error;
	if (issue && alerts.nr && (error = write_issue(issue, history,
						       &alerts)) < 0)
		goto done;
	history_view_alerts(&text, history, &alerts, color);
	if (!alerts.nr && !quiet)
		strbuf_addf(&text, "no new regression on %s%s\n",
			    history->branch,
			    alerts.first_run ? " among the newest 10 commits "
					       "(no published state yet)"
					     : " since the published state");
	terminal_write(stdout, text.buf, color ? TERMINAL_COLOR : 0);
	error = alerts.nr ? OUTCOME_REGRESSION : OUTCOME_PASS;
done:
	alerts_release(&alerts);
	strbuf_release(&text);
	return error;
}

int app_history(const struct app_history_request *req)
{
	struct strbuf text = STRBUF_INIT;
	struct history history = { 0 };
	struct store *store = NULL;
	int error;

	if ((error = app_history_build(&history, &store, req->store,
				       &req->history)) < 0)
		goto done;
	if (req->json) {
		struct history_json it;

		history_json_start(&it, &history);
		error = app_write_output_produced(req->json, history_json_next,
						  &it);
		history_json_release(&it);
		if (error < 0)
			goto done;
	}
	if (req->alert) {
		error = alert(&history, req->published, req->issue,
			      req->quiet, req->color);
		goto done;
	}
	if (req->csv)
		history_view_csv(&text, &history);
	else if (!req->quiet)
		history_view_terminal(&text, &history, req->color);
	terminal_write(stdout, text.buf,
		       req->color && !req->csv ? TERMINAL_COLOR : 0);
	error = OUTCOME_PASS;
done:
	history_release(&history);
	store_free(store);
	strbuf_release(&text);
	return error;
}

static void print_published(const struct history *history, const char *dir,
			    const struct publish_counts *counts)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text, "published %zu series of ", history->series_nr);
	name_quote(&text, history->branch);
	strbuf_addstr(&text, " into ");
	name_quote(&text, dir);
	strbuf_addf(&text, ": %zu files written, %zu kept, %zu removed "
			   "(%zu chart%s drawn)\n",
		    counts->written, counts->kept, counts->removed,
		    counts->charts_drawn, counts->charts_drawn == 1 ? "" : "s");
	terminal_write(stdout, text.buf, 0);
	strbuf_release(&text);
}

int app_publish(const struct app_publish_request *req)
{
	struct history history = { 0 };
	struct dashboard site = { 0 };
	struct publish_counts counts;
	struct strbuf repo_url = STRBUF_INIT;
	struct history_request with_repo = req->history;
	struct store *store = NULL;
	git_repository *repo = NULL;
	struct publish_previous *previous = NULL;
	struct run_pages *runs = NULL;
	int error;

	/* one handle for the history, its authors and the commits' links */
	if (repo_open(&repo, with_repo.start_dir) == 0)
		with_repo.repo = repo;
	if ((error = app_history_build(&history, &store, req->store,
				       &with_repo)) < 0)
		goto done;
	weburl_of_repository(&repo_url, repo, NULL);
	/* the runs' pages first: the series pages link them */
	if ((error = publish_previous_read(&previous, req->out)) < 0)
		goto done;
	run_pages_add(&runs, &site, &history, store, previous,
		      repo_url.len ? repo_url.buf : NULL);
	dashboard_render(&site, &history,
			 &(struct dashboard_options){
				 .repo_url = repo_url.len ? repo_url.buf : NULL,
				 .run_pages = run_pages_lookup,
				 .payload = runs,
			 });
	if ((error = publish_site(&counts, req->out, &site, &history)) < 0)
		goto done;
	if (counts.charts_skipped)
		bg_warn("gnuplot not found: charts skipped (install "
			"gnuplot-nox); the next publish draws them");
	if (!req->quiet)
		print_published(&history, req->out, &counts);
	error = OUTCOME_PASS;
done:
	dashboard_release(&site);
	run_pages_free(runs);
	publish_previous_free(previous);
	history_release(&history);
	store_free(store);
	git_repository_free(repo);
	strbuf_release(&repo_url);
	return error;
}
