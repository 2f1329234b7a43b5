/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/alert.h"

#include "harness/gate/published.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <stdlib.h>
#include <string.h>

/* A change point the published state lists. */
struct published {
	char *key; /* suite, machine, benchmark, variant, device, metric */
	char *commit;
	bool regression;
};

struct published_list {
	struct published *items;
	size_t nr, alloc;
};

void alert_series_key(struct strbuf *out, const struct history_series *s)
{
	/* Names and machine ids hold no newline (name.h, result.h). */
	strbuf_addf(out, "%s\n%s\n%s\n%s\n%s\n%s", s->suite, s->machine,
		    s->benchmark, s->variant, s->device, s->metric);
}

static int compare_published(const void *a, const void *b)
{
	return strcmp(((const struct published *)a)->key,
		      ((const struct published *)b)->key);
}

/* The change points of the state in dir, sorted by series key. */
static int read_state(struct published_list *list, bool *found,
		      const char *dir)
{
	struct published_state state = { 0 };
	struct strbuf key = STRBUF_INIT;
	int error;

	if ((error = published_read(&state, dir)) < 0)
		goto done;
	*found = state.found;
	for (size_t i = 0; i < state.points_nr; i++) {
		const struct published_point *p = &state.points[i];

		strbuf_reset(&key);
		published_point_key(&key, p);
		ALLOC_GROW(list->items, list->nr + 1, list->alloc);
		list->items[list->nr++] = (struct published){
			.key = xstrdup(key.buf),
			.commit = xstrdup(p->commit),
			.regression = p->regression,
		};
	}
	if (list->nr)
		qsort(list->items, list->nr, sizeof(*list->items),
		      compare_published);
done:
	published_release(&state);
	strbuf_release(&key);
	return error;
}

/* Whether the change point c of series s stands for the state's change
 * point at commit id `commit`: commit lies in c's commit range widened by
 * ALERT_MARGIN commits each way. */
static bool covers(const struct history *history,
		   const struct history_series *s, const struct history_change *c,
		   const char *commit)
{
	size_t first = c->range_first, last = s->points[c->at.index].commit;
	size_t low = first > ALERT_MARGIN ? first - ALERT_MARGIN : 0;

	for (size_t i = low; i < history->commits_nr && i <= last + ALERT_MARGIN;
	     i++)
		if (!strcmp(history->commits[i].commit, commit))
			return true;
	return false;
}

/* Whether history has a change point of the series whose
 * alert_series_key() is `key`, in the direction `regression` says, that
 * the state's change point at `commit` stands for (covers()). */
static bool history_has(const struct history *history, const char *key,
			const char *commit, bool regression)
{
	struct strbuf own = STRBUF_INIT;
	bool found = false;

	for (size_t i = 0; !found && i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];

		strbuf_reset(&own);
		alert_series_key(&own, s);
		if (strcmp(own.buf, key))
			continue;
		for (size_t j = 0; !found && j < s->changes_nr; j++)
			found = s->changes[j].regression == regression &&
				covers(history, s, &s->changes[j], commit);
	}
	strbuf_release(&own);
	return found;
}

/* Whether list has a change point of the series and direction that the
 * change point c of s stands for (covers()). */
static bool was_published(const struct published_list *list,
			  const struct history *history,
			  const struct history_series *s,
			  const struct history_change *c, const char *key)
{
	struct published probe = { .key = (char *)key };
	const struct published *hit =
		list->nr ? bsearch(&probe, list->items, list->nr,
				   sizeof(*list->items), compare_published)
			 : NULL;
	const struct published *first = hit, *end = hit;

	if (!hit)
		return false;
	while (first > list->items && !strcmp(first[-1].key, key))
		first--;
	while (end < list->items + list->nr && !strcmp(end->key, key))
		end++;
	for (const struct published *p = first; p < end; p++)
		if (p->regression == c->regression &&
		    covers(history, s, c, p->commit))
			return true;
	return false;
}

/* An alert with the position of its commit, the key it sorts by, so
 * that the comparison needs no context. */
struct keyed_alert {
	size_t commit;
	struct alert alert;
};

static int compare_alerts(const void *a, const void *b)
{
	const struct keyed_alert *x = a, *y = b;

	if (x->commit != y->commit)
		return x->commit > y->commit ? -1 : 1;
	return x->alert.series < y->alert.series ? -1 : 1;
}

/* Newest commit first, then in the order of the series. */
static void sort_alerts(struct alerts *alerts, const struct history *history)
{
	struct keyed_alert *keyed;

	if (!alerts->nr)
		return;
	keyed = xcalloc(alerts->nr, sizeof(*keyed));
	for (size_t i = 0; i < alerts->nr; i++) {
		const struct alert *a = &alerts->items[i];
		const struct history_series *s = &history->series[a->series];

		keyed[i] = (struct keyed_alert){
			.commit = s->points[s->changes[a->change].at.index]
					  .commit,
			.alert = *a,
		};
	}
	qsort(keyed, alerts->nr, sizeof(*keyed), compare_alerts);
	for (size_t i = 0; i < alerts->nr; i++)
		alerts->items[i] = keyed[i].alert;
	free(keyed);
}

int alert_find(struct alerts *out, const struct history *history,
	       const char *published_dir)
{
	struct published_list list = { 0 };
	struct strbuf key = STRBUF_INIT;
	bool found = false;
	int error;

	if ((error = read_state(&list, &found, published_dir)) < 0)
		goto done;
	out->first_run = !found;
	for (size_t i = 0; i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];

		strbuf_reset(&key);
		alert_series_key(&key, s);
		for (size_t j = 0; j < s->changes_nr; j++) {
			size_t at = s->points[s->changes[j].at.index].commit;

			if (!s->changes[j].regression ||
			    (out->first_run &&
			     at + ALERT_FIRST_RUN_COMMITS <
				     history->commits_nr) ||
			    was_published(&list, history, s, &s->changes[j],
					  key.buf))
				continue;
			ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			out->items[out->nr++] = (struct alert){ i, j };
		}
	}
	sort_alerts(out, history);
done:
	for (size_t i = 0; i < list.nr; i++) {
		free(list.items[i].key);
		free(list.items[i].commit);
	}
	free(list.items);
	strbuf_release(&key);
	return error;
}

void alerts_release(struct alerts *alerts)
{
	free(alerts->items);
	memset(alerts, 0, sizeof(*alerts));
}

static const char *commit_of(const struct history *history,
			     const struct history_series *s, size_t change)
{
	return history->commits[s->points[s->changes[change].at.index].commit]
		.commit;
}

void alert_points_to_publish(struct published_state *next,
			     const struct history *history,
			     const struct published_state *previous)
{
	struct strbuf key = STRBUF_INIT;

	for (size_t i = 0; i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];

		for (size_t j = 0; j < s->changes_nr; j++) {
			const struct history_change *c = &s->changes[j];
			struct published_point p = {
				.suite = s->suite,
				.machine = s->machine,
				.benchmark = s->benchmark,
				.variant = s->variant,
				.device = s->device,
				.metric = s->metric,
				.commit = (char *)commit_of(history, s, j),
				.regression = c->regression,
				.change = c->at.change,
				.resolved_by =
					c->resolved
						? (char *)commit_of(
							  history, s,
							  c->resolved_by)
						: NULL,
				.present = true,
			};

			published_add_point(next, &p);
		}
	}
	/* an earlier publish's change point that this history no longer
	 * shows is remembered, so that it is not new when it comes back */
	for (size_t i = 0; previous && i < previous->points_nr; i++) {
		struct published_point p = previous->points[i];

		strbuf_reset(&key);
		published_point_key(&key, &p);
		if (history_has(history, key.buf, p.commit, p.regression))
			continue;
		p.present = false;
		published_add_point(next, &p);
	}
	strbuf_release(&key);
}
