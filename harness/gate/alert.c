/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/alert.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/jsonread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static const char *const key_fields[] = { "suite",   "machine", "benchmark",
					  "variant", "device",  "metric" };

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

static void read_change_point(struct published_list *list,
			      struct json_reader *rd, const cJSON *item)
{
	static const char *const directions[] = { "regression", "improvement",
						  NULL };
	struct strbuf key = STRBUF_INIT;
	char *field = NULL, *commit = NULL;
	int direction = 0;

	for (size_t i = 0; i < 6; i++) {
		if (json_read_string(rd, item, key_fields[i], JSON_REQUIRED,
				     &field) != 1)
			goto done;
		strbuf_addf(&key, "%s%s", i ? "\n" : "", field);
	}
	if (json_read_string(rd, item, "commit", JSON_REQUIRED, &commit) != 1 ||
	    json_read_enum(rd, item, "direction", JSON_REQUIRED, directions,
			   &direction) != 1)
		goto done;
	ALLOC_GROW(list->items, list->nr + 1, list->alloc);
	list->items[list->nr++] = (struct published){
		.key = strbuf_detach(&key, NULL),
		.commit = commit,
		.regression = direction == 0,
	};
	commit = NULL;
done:
	free(field);
	free(commit);
	strbuf_release(&key);
}

static int read_state(struct published_list *list, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct json_reader rd;
	const cJSON *points, *item;
	int version = 0, index = 0, error;

	if ((error = strbuf_read_file(&text, path)) < 0)
		return error;
	if ((error = json_reader_parse(&rd, path, text.buf, text.len)) < 0)
		goto done;
	if (!cJSON_IsObject(rd.root)) {
		error = json_reader_fail(&rd, "expected the object benchgate "
					      "publish writes");
		goto done;
	}
	json_read_int(&rd, rd.root, "benchgate_dashboard", JSON_REQUIRED, 1, 1,
		      &version);
	points = json_read_array(&rd, rd.root, "change_points", JSON_REQUIRED);
	json_reader_push_key(&rd, "change_points");
	cJSON_ArrayForEach(item, points)
	{
		json_reader_push_index(&rd, index++);
		if (!cJSON_IsObject(item))
			json_reader_fail(&rd, "expected an object, found %s",
					 json_type_name(item));
		else
			read_change_point(list, &rd, item);
		json_reader_pop(&rd);
	}
	json_reader_pop(&rd);
	error = rd.error;
done:
	json_reader_release(&rd);
	strbuf_release(&text);
	if (!error && list->nr)
		qsort(list->items, list->nr, sizeof(*list->items),
		      compare_published);
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

bool alert_history_has(const struct history *history, const char *key,
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
	struct strbuf path = STRBUF_INIT, key = STRBUF_INIT;
	int error = BG_OK;

	strbuf_addf(&path, "%s/benchgate-state.json", published_dir);
	if (access(path.buf, F_OK) < 0 && errno == ENOENT)
		out->first_run = true;
	else if ((error = read_state(&list, path.buf)) < 0)
		goto done;
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
	strbuf_release(&path);
	strbuf_release(&key);
	return error;
}

void alerts_release(struct alerts *alerts)
{
	free(alerts->items);
	memset(alerts, 0, sizeof(*alerts));
}
