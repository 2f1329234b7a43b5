/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/attribution.h"

#include "harness/git/gitinfo.h"
#include "harness/git/repo.h"
#include "harness/git/gitref.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A change point waiting for its incident. */
struct candidate {
	struct history_move move;
	size_t first, last; /* its range */
};

static int compare_candidates(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	size_t wx = x->last - x->first, wy = y->last - y->first;

	if (x->move.regression != y->move.regression)
		return x->move.regression ? -1 : 1;
	if (wx != wy)
		return wx < wy ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	if (x->move.series != y->move.series)
		return x->move.series < y->move.series ? -1 : 1;
	return x->move.change < y->move.change ? -1 : 1;
}

static size_t collect(const struct history *history, struct candidate **out)
{
	struct candidate *candidates;
	size_t nr = 0, total = 0;

	for (size_t i = 0; i < history->series_nr; i++)
		total += history->series[i].changes_nr;
	candidates = xcalloc(total ? total : 1, sizeof(*candidates));
	for (size_t i = 0; i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];

		for (size_t j = 0; j < s->changes_nr; j++) {
			const struct history_change *change = &s->changes[j];

			candidates[nr++] = (struct candidate){
				.move = { i, j, change->regression },
				.first = change->range_first,
				.last = s->points[change->at.index].commit,
			};
		}
	}
	*out = candidates;
	return nr;
}

/* The first incident whose range meets [first, last], or NULL. */
static struct history_incident *meeting(struct history *history, size_t first,
					size_t last)
{
	for (size_t i = 0; i < history->incidents_nr; i++) {
		struct history_incident *incident = &history->incidents[i];

		if (incident->range_first <= last &&
		    first <= incident->range_last)
			return incident;
	}
	return NULL;
}

static void join(struct history_incident *incident, const struct candidate *c)
{
	if (c->first > incident->range_first)
		incident->range_first = c->first;
	if (c->last < incident->range_last)
		incident->range_last = c->last;
	ALLOC_GROW(incident->moves, incident->moves_nr + 1,
		   incident->moves_alloc);
	incident->moves[incident->moves_nr++] = c->move;
	incident->regressions += c->move.regression;
}

/* Regressions first, then series order: what the views list. */
static int compare_moves(const void *a, const void *b)
{
	const struct history_move *x = a, *y = b;

	if (x->regression != y->regression)
		return x->regression ? -1 : 1;
	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	return x->change < y->change ? -1 : x->change > y->change;
}

/* Incidents' ranges never overlap: a range only narrows, and an incident
 * starts only where no other one's range reaches. */
static int compare_incidents(const void *a, const void *b)
{
	const struct history_incident *x = a, *y = b;

	return x->range_last < y->range_last ? -1
					      : x->range_last > y->range_last;
}

static void release_incidents(struct history *history)
{
	for (size_t i = 0; i < history->incidents_nr; i++)
		free(history->incidents[i].moves);
	free(history->incidents);
	history->incidents = NULL;
	history->incidents_nr = history->incidents_alloc = 0;
}

void attribution_group(struct history *history)
{
	struct candidate *candidates = NULL;
	size_t nr = collect(history, &candidates);

	release_incidents(history);
	if (nr)
		qsort(candidates, nr, sizeof(*candidates), compare_candidates);
	for (size_t i = 0; i < nr; i++) {
		const struct candidate *c = &candidates[i];
		struct history_incident *incident =
			meeting(history, c->first, c->last);

		history->series[c->move.series].changes[c->move.change]
			.incident = HISTORY_NO_INCIDENT;
		if (!incident && !c->move.regression)
			continue;
		if (!incident) {
			ALLOC_GROW(history->incidents,
				   history->incidents_nr + 1,
				   history->incidents_alloc);
			incident = &history->incidents[history->incidents_nr++];
			*incident = (struct history_incident){
				.range_first = c->first,
				.range_last = c->last,
			};
		}
		join(incident, c);
	}
	free(candidates);
	if (history->incidents_nr)
		qsort(history->incidents, history->incidents_nr,
		      sizeof(*history->incidents), compare_incidents);
	for (size_t i = 0; i < history->incidents_nr; i++) {
		struct history_incident *incident = &history->incidents[i];

		qsort(incident->moves, incident->moves_nr,
		      sizeof(*incident->moves), compare_moves);
		for (size_t j = 0; j < incident->moves_nr; j++)
			history->series[incident->moves[j].series]
				.changes[incident->moves[j].change]
				.incident = i;
	}
}

static int read_author(struct history *history, git_repository *repo,
		       size_t commit_index)
{
	const char *hex = history->commits[commit_index].commit;
	const git_signature *author;
	struct strbuf ident = STRBUF_INIT;
	git_commit *commit = NULL;
	git_oid oid;

	if (history->authors[commit_index])
		return BG_OK;
	if (git_oid_fromstr(&oid, hex) < 0 ||
	    git_commit_lookup(&commit, repo, &oid) < 0)
		return bg_error("cannot read the author of commit %s: %s", hex,
				gitref_message());
	author = git_commit_author(commit);
	strbuf_addf(&ident, "%s <%s>", author->name ? author->name : "",
		    author->email ? author->email : "");
	history->authors[commit_index] = strbuf_detach(&ident, NULL);
	git_commit_free(commit);
	return BG_OK;
}

int attribution_read_authors(struct history *history, git_repository *repo)
{
	int error = BG_OK;

	if (!history->authors)
		history->authors = xcalloc(
			history->commits_nr ? history->commits_nr : 1,
			sizeof(*history->authors));
	for (size_t i = 0; i < history->series_nr && !error; i++) {
		const struct history_series *s = &history->series[i];

		for (size_t j = 0; j < s->changes_nr && !error; j++)
			error = read_author(
				history, repo,
				s->points[s->changes[j].at.index].commit);
	}
	for (size_t i = 0; i < history->incidents_nr && !error; i++)
		error = read_author(history, repo,
				    history->incidents[i].range_last);
	return error;
}

int attribution_find(struct history *history, git_repository *repo)
{
	attribution_group(history);
	return attribution_read_authors(history, repo);
}
