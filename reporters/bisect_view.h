/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BISECT_VIEW_H
#define BENCHGATE_BISECT_VIEW_H

#include "harness/util/strbuf.h"

#include <stddef.h>

/*
 * What `benchgate bisect` prints of its outcome: the first bad commit with
 * its subject, author and time (or the commits one of which it is, when
 * skipped ones leave it open), the metrics bisected with their levels at
 * the ends, then each commit tested, oldest first, with its mark and what
 * the measurement said. The bisect use case (harness/app/bisect.h) fills
 * the view; every string is borrowed from it. Names, subjects and reasons
 * are escaped for a terminal (terminal_escape()); print it with
 * terminal_write().
 */

struct bisect_view_commit {
	const char *commit, *subject, *author, *commit_time; /* may be NULL
							       * but commit */
	const char *mark; /* "good", "bad", "skipped", "undecided"; NULL:
			   * untested */
	const char *why;  /* what the measurement said; may be NULL */
};

struct bisect_view_metric {
	const char *benchmark, *variant, *device, *metric, *unit;
	double good, bad; /* medians at the ends */
	double change;	  /* bad against good */
};

struct bisect_view {
	const struct bisect_view_commit *commits; /* good .. bad */
	size_t nr;
	const struct bisect_view_metric *metrics;
	size_t metrics_nr;
	/* the first bad commit is commits[first] when first == last, else
	 * one of commits[first .. last] */
	size_t first, last;
	size_t measured; /* commits measured, the ends included */
	/* What naming one commit rests on (its confidence), printed under
	 * it; NULL: nothing. */
	const char *verdict;
};

void bisect_view_terminal(struct strbuf *out, const struct bisect_view *view);

#endif
