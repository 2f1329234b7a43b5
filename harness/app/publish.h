/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_PUBLISH_H
#define BENCHGATE_APP_PUBLISH_H

#include "harness/gate/history.h"
#include "reporters/dashboard.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Writing a dashboard (dashboard.h) into a directory, incrementally: the
 * site's state file remembers a content hash of every file benchgate
 * wrote there, so a republish after one new commit writes only the files
 * whose content changed and runs gnuplot only on the charts whose script
 * or data changed; the others are not touched (their mtimes stay, and a
 * static host uploads nothing for them). Files of the directory that
 * benchgate did not write (a CNAME, a README, a .nojekyll) are never
 * removed or overwritten unless the site has a file of that name; a file
 * benchgate wrote on an earlier publish and no longer makes (a series
 * filtered out) is removed. The pages of runs (logs/, reports/) are made
 * once and kept (dashboard_file.keep).
 *
 * The state file, DIR/benchgate-state.json, is harness/gate/published.h's:
 * the hash of every file written and the change points of the history
 * published (the alerts' memory, alert.h).
 */

struct publish_counts {
	size_t written, kept; /* files of the site, charts' SVGs included */
	size_t removed;	      /* files of an earlier publish gone now */
	size_t charts_drawn;  /* SVGs gnuplot drew this time */
	bool charts_skipped;  /* gnuplot could not be run: no SVG drawn */
};

/*
 * Writes site, the dashboard of history, into dir (created if missing)
 * as above, each file atomically and the state file last, so a publish
 * cut short leaves the old state and the next one redoes what it missed.
 * Without gnuplot the pages are still written and counts->charts_skipped
 * says so; an SVG of an earlier publish stays, out of date, until a
 * publish with gnuplot redraws it. BG_EINPUT naming the file, line and column when dir holds a
 * state file that is not one; BG_ERROR when a file cannot be written or
 * gnuplot fails.
 */
int publish_site(struct publish_counts *counts, const char *dir,
		 const struct dashboard *site, const struct history *history);

/*
 * What an earlier publish of dir wrote, from its state file: for the pages
 * that cost a stored result's loading to make and never change (a run's
 * log and report), which a republish keeps (dashboard_file.keep) instead
 * of making again. An empty list when dir or its state file is missing;
 * errors as publish_site()'s for a state file that is not one. Free with
 * publish_previous_free() (NULL-safe).
 */
struct publish_previous;
int publish_previous_read(struct publish_previous **out, const char *dir);
bool publish_previous_has(const struct publish_previous *previous,
			  const char *path);
void publish_previous_free(struct publish_previous *previous);

#endif
