/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_DASHBOARD_SERIES_H
#define BENCHGATE_DASHBOARD_SERIES_H

#include "reporters/report.h"

#include <stddef.h>

/*
 * What the dashboard's pages (dashboard.h) and its feed (feed.h) both
 * name, below both of them: a series' page and the change points of a
 * history newest first.
 */

/*
 * The path of a series' page and its chart's stem, "series/NAME.html"
 * and "NAME": a readable slug of its machine, case and metric and a hash of its
 * whole key (suite, machine, case, metric), so two series never share a
 * page and a series keeps its page from one publish to the next.
 */
void dashboard_series_name(struct strbuf *out, const struct history_series *s);

/* The change points of history ordered newest first (by the commit that
 * starts the new level, then by series): entries of {series, change}
 * indices. Shared by the index, the regressions page and the feed. */
struct dashboard_change_ref {
	size_t series, change;
};
size_t dashboard_changes_newest_first(const struct history *history,
				      struct dashboard_change_ref **out);

/* The commit that starts the new level of a change point. */
const struct git_meta *
dashboard_change_commit(const struct history *history,
			const struct dashboard_change_ref *ref);

#endif
