/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_FEED_H
#define BENCHGATE_FEED_H

#include "reporters/dashboard_series.h"

/* The entries the feed lists at most, newest first. */
#define FEED_ENTRIES 100

/*
 * The Atom feed (RFC 4287) of a dashboard, feed.xml: the change points of
 * history, newest first, at most FEED_ENTRIES; each entry links its
 * series page (dashboard_series_name()) and, with repo_url (the
 * repository's web address, may be NULL), its commit on the forge.
 */
void feed_render(struct strbuf *out, const struct history *history,
		 const char *repo_url);

#endif
