/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runs' pages of the dashboard (run_pages.h): made once per stored
 * result, kept afterwards.
 */
#include "harness/app/run_pages.h"

#include "harness/gate/compare.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/hash.h"
#include "reporters/escape.h"
#include "reporters/report.h"

#include <stdlib.h>
#include <string.h>

#define CASE_SLUG_MAX 60

struct run_source {
	bool wanted; /* a newest point comes from it */
	char *report; /* "reports/RUN.html" once made or kept */
};

struct run_pages {
	const struct history *history;
	struct run_source *sources; /* parallel to history->sources */
	char **logs;		    /* the log pages made or kept, sorted */
	size_t logs_nr, logs_alloc;
	struct strbuf scratch;
};

/* "RUN": the commit's first 12 digits and a hash of what names the
 * result wherever the store is. */
static void run_name(struct strbuf *out, const struct store_entry *entry)
{
	const char *file = strrchr(entry->path, '/');
	struct strbuf key = STRBUF_INIT;

	strbuf_addf(&key, "%s/%s/%s", entry->commit, entry->machine,
		    file ? file + 1 : entry->path);
	strbuf_addf(out, "%.12s-%016llx", entry->commit,
		    (unsigned long long)hash_fnv1a64(key.buf, key.len));
	strbuf_release(&key);
}

static void log_path(struct strbuf *out, const struct store_entry *entry,
		     const char *benchmark, const char *variant,
		     const char *device)
{
	struct strbuf slug = STRBUF_INIT, key = STRBUF_INIT;

	strbuf_addstr(out, "logs/");
	run_name(out, entry);
	strbuf_addf(&key, "%s\n%s\n%s", benchmark, variant, device);
	strbuf_addch(out, '-');
	escape_filename(&slug, benchmark);
	strbuf_addch(&slug, '_');
	escape_filename(&slug, variant);
	strbuf_addch(&slug, '_');
	escape_filename(&slug, device);
	strbuf_add(out, slug.buf,
		   slug.len < CASE_SLUG_MAX ? slug.len : CASE_SLUG_MAX);
	strbuf_addf(out, "-%08x.html",
		    (unsigned)(hash_fnv1a64(key.buf, key.len) & 0xffffffffu));
	strbuf_release(&slug);
	strbuf_release(&key);
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_log(struct run_pages *pages, const char *path)
{
	ALLOC_GROW(pages->logs, pages->logs_nr + 1, pages->logs_alloc);
	pages->logs[pages->logs_nr++] = xstrdup(path);
}

/* The log page of one case of a loaded result, when the case has a log. */
static void make_log(struct run_pages *pages, struct dashboard *site,
		     struct store *store, const struct store_entry *entry,
		     const struct result_case *c)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf title = STRBUF_INIT, page = STRBUF_INIT;
	bool truncated = false;
	int error;

	if (!c->log)
		return;
	error = store_read_beside(store, entry, c->log, RUN_PAGES_LOG_MAX,
				  &text, &truncated);
	if (error == BG_ENOTFOUND) {
		bg_error_clear(); /* a log the run did not keep */
	} else if (error < 0) {
		bg_warn("%s; its log is not published", bg_error_last());
	} else {
		log_path(&path, entry, c->benchmark, c->variant, c->device);
		strbuf_addf(&title, "Log of %s/%s/%s at %.12s on %s",
			    c->benchmark, c->variant, c->device,
			    entry->commit, entry->machine);
		dashboard_log_page(&page, title.buf, text.buf, text.len,
				   truncated);
		dashboard_add_file(site, path.buf, &page, false);
		add_log(pages, path.buf);
	}
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&title);
	strbuf_release(&page);
}

/* The report page of a loaded result. */
static void make_report(struct dashboard *site, const struct result *result,
			const char *path, const char *repo_url)
{
	struct compare_options opts;
	struct comparison *comparison = NULL;
	struct strbuf title = STRBUF_INIT, page = STRBUF_INIT;
	struct report_model model = { 0 };

	compare_options_init(&opts);
	if (compare_results(&comparison, NULL, result, &opts) < 0) {
		bg_warn("%s; its report is not published", bg_error_last());
		return;
	}
	strbuf_addf(&title, "%s at %.12s on %s", result->suite,
		    result->git.commit, result->machine.id);
	model.comparison = comparison;
	model.candidate = result;
	model.repo_url = repo_url;
	model.title = title.buf;
	model.chart_cases = 0;
	report_model_build(&model);
	report_html(&model, &page);
	dashboard_add_file(site, path, &page, false);
	report_model_release(&model);
	comparison_free(comparison);
	strbuf_release(&title);
	strbuf_release(&page);
}

/* Makes the pages of source i, or keeps those an earlier publish made. */
static void add_source(struct run_pages *pages, struct dashboard *site,
		       struct store *store,
		       const struct publish_previous *previous, size_t i,
		       const char *repo_url)
{
	const struct store_entry *entry = &pages->history->sources[i];
	struct strbuf path = STRBUF_INIT;
	struct result *result = NULL;

	strbuf_addstr(&path, "reports/");
	run_name(&path, entry);
	strbuf_addstr(&path, ".html");
	if (previous && publish_previous_has(previous, path.buf)) {
		pages->sources[i].report = strbuf_detach(&path, NULL);
		dashboard_add_file(site, pages->sources[i].report, &path,
				   true);
		return;
	}
	/* store_load() reported why it did not load */
	if (store_load(store, entry, &result) < 0) {
		bg_error_clear();
		strbuf_release(&path);
		return;
	}
	for (size_t c = 0; c < result->cases_nr; c++)
		make_log(pages, site, store, entry, &result->cases[c]);
	make_report(site, result, path.buf, repo_url);
	pages->sources[i].report = strbuf_detach(&path, NULL);
	result_free(result);
}

/* Keeps the log pages an earlier publish made of the cases the newest
 * points are of, for the sources whose report it made: the logs made
 * this time are pages->logs[0, made). */
static void keep_logs(struct run_pages *pages, struct dashboard *site,
		      const struct publish_previous *previous, size_t made)
{
	const struct history *history = pages->history;
	struct strbuf path = STRBUF_INIT, empty = STRBUF_INIT;
	char **kept = NULL;
	size_t kept_nr = 0, kept_alloc = 0;

	for (size_t s = 0; previous && s < history->series_nr; s++) {
		const struct history_series *series = &history->series[s];
		size_t from = series->points_nr > RUN_PAGES_POINTS
				      ? series->points_nr - RUN_PAGES_POINTS
				      : 0;

		for (size_t p = from; p < series->points_nr; p++) {
			size_t source = series->points[p].source;

			if (!pages->sources[source].report)
				continue;
			strbuf_reset(&path);
			log_path(&path, &history->sources[source],
				 series->benchmark, series->variant,
				 series->device);
			if (!publish_previous_has(previous, path.buf))
				continue;
			ALLOC_GROW(kept, kept_nr + 1, kept_alloc);
			kept[kept_nr++] = xstrdup(path.buf);
		}
	}
	if (kept_nr)
		qsort(kept, kept_nr, sizeof(*kept), compare_paths);
	/* the metrics of a case share its log; a made one is not kept */
	for (size_t i = 0; i < kept_nr; i++) {
		bool again = i && !strcmp(kept[i - 1], kept[i]);

		for (size_t k = 0; !again && k < made; k++)
			again = !strcmp(pages->logs[k], kept[i]);
		if (!again) {
			add_log(pages, kept[i]);
			dashboard_add_file(site, kept[i], &empty, true);
		}
	}
	for (size_t i = 0; i < kept_nr; i++)
		free(kept[i]);
	free(kept);
	strbuf_release(&path);
	strbuf_release(&empty);
}

void run_pages_add(struct run_pages **out, struct dashboard *site,
		   const struct history *history, struct store *store,
		   const struct publish_previous *previous,
		   const char *repo_url)
{
	struct run_pages *pages = xcalloc(1, sizeof(*pages));
	size_t made;

	pages->history = history;
	pages->sources = xcalloc(history->sources_nr + 1,
				 sizeof(*pages->sources));
	strbuf_init(&pages->scratch, 0);
	for (size_t s = 0; s < history->series_nr; s++) {
		const struct history_series *series = &history->series[s];
		size_t from = series->points_nr > RUN_PAGES_POINTS
				      ? series->points_nr - RUN_PAGES_POINTS
				      : 0;

		for (size_t p = from; p < series->points_nr; p++)
			pages->sources[series->points[p].source].wanted = true;
	}
	for (size_t i = 0; i < history->sources_nr; i++)
		if (pages->sources[i].wanted)
			add_source(pages, site, store, previous, i, repo_url);
	made = pages->logs_nr;
	keep_logs(pages, site, previous, made);
	if (pages->logs_nr)
		qsort(pages->logs, pages->logs_nr, sizeof(*pages->logs),
		      compare_paths);
	*out = pages;
}

void run_pages_lookup(void *payload, size_t series, size_t point,
		      const char **log, const char **report)
{
	struct run_pages *pages = payload;
	const struct history_series *s = &pages->history->series[series];
	size_t source = s->points[point].source;
	const char *key;
	char **found;

	*log = *report = NULL;
	if (!pages->sources[source].report)
		return;
	*report = pages->sources[source].report;
	strbuf_reset(&pages->scratch);
	log_path(&pages->scratch, &pages->history->sources[source],
		 s->benchmark, s->variant, s->device);
	key = pages->scratch.buf;
	found = pages->logs_nr ? bsearch(&key, pages->logs, pages->logs_nr,
					 sizeof(*pages->logs), compare_paths)
			       : NULL;
	if (found)
		*log = *found;
}

void run_pages_free(struct run_pages *pages)
{
	if (!pages)
		return;
	for (size_t i = 0; i < pages->history->sources_nr; i++)
		free(pages->sources[i].report);
	for (size_t i = 0; i < pages->logs_nr; i++)
		free(pages->logs[i]);
	free(pages->sources);
	free(pages->logs);
	strbuf_release(&pages->scratch);
	free(pages);
}
