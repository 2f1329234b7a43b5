/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the dashboard's pages and its feed both name: a series' page, the
 * change points newest first (dashboard_series.h).
 */
#include "reporters/dashboard_series.h"

#include "harness/util/alloc.h"
#include "harness/util/hash.h"
#include "reporters/escape.h"

#include <stdlib.h>

/* The slug part of a series' name: long enough to read, short enough for
 * any file system. */
#define SLUG_MAX 60

void dashboard_series_name(struct strbuf *out, const struct history_series *s)
{
	const char *parts[] = { s->machine, s->benchmark, s->variant,
				s->device, s->metric };
	struct strbuf key = STRBUF_INIT, slug = STRBUF_INIT;

	strbuf_addf(&key, "%s\n%s\n%s\n%s\n%s\n%s", s->suite, s->machine,
		    s->benchmark, s->variant, s->device, s->metric);
	for (size_t i = 0; i < 5; i++) {
		if (i)
			strbuf_addch(&slug, '_');
		escape_filename(&slug, parts[i]);
	}
	/* A slug is ASCII: cut anywhere. */
	strbuf_add(out, slug.buf, slug.len < SLUG_MAX ? slug.len : SLUG_MAX);
	strbuf_addf(out, "-%016llx",
		    (unsigned long long)hash_fnv1a64(key.buf, key.len));
	strbuf_release(&key);
	strbuf_release(&slug);
}

/* A change with the position of its commit, the key it sorts by, so
 * that the comparison needs no context. */
struct keyed_change {
	size_t commit;
	struct dashboard_change_ref ref;
};

static int compare_newest_first(const void *a, const void *b)
{
	const struct keyed_change *x = a, *y = b;

	if (x->commit != y->commit)
		return x->commit > y->commit ? -1 : 1;
	if (x->ref.series != y->ref.series)
		return x->ref.series < y->ref.series ? -1 : 1;
	return x->ref.change < y->ref.change ? -1
					     : x->ref.change > y->ref.change;
}

size_t dashboard_changes_newest_first(const struct history *history,
				      struct dashboard_change_ref **out)
{
	struct keyed_change *keyed = NULL;
	size_t nr = 0, alloc = 0;

	*out = NULL;
	for (size_t i = 0; i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];

		for (size_t j = 0; j < s->changes_nr; j++) {
			ALLOC_GROW(keyed, nr + 1, alloc);
			keyed[nr++] = (struct keyed_change){
				.commit = s->points[s->changes[j].at.index]
						  .commit,
				.ref = { i, j },
			};
		}
	}
	if (!nr)
		return 0;
	qsort(keyed, nr, sizeof(*keyed), compare_newest_first);
	*out = xcalloc(nr, sizeof(**out));
	for (size_t i = 0; i < nr; i++)
		(*out)[i] = keyed[i].ref;
	free(keyed);
	return nr;
}

const struct git_meta *
dashboard_change_commit(const struct history *history,
			const struct dashboard_change_ref *ref)
{
	const struct history_series *s = &history->series[ref->series];

	return &history->commits[s->points[s->changes[ref->change].at.index]
					 .commit];
}
