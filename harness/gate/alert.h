/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_ALERT_H
#define BENCHGATE_ALERT_H

#include "harness/gate/history.h"
#include "harness/gate/published.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * `benchgate history --alert --published DIR`: the regressions of a
 * branch's history that its published dashboard does not show yet, for
 * the nightly job that opens an issue. The dashboard's state file
 * (DIR/benchgate-state.json, published.h) lists the change points
 * it was published with.
 *
 * A change point is "already published" when the state lists one of the
 * same series (suite, machine, benchmark, variant, device, metric) and
 * direction whose commit lies in its commit range (from the first commit
 * after the point before it to its own commit) widened by ALERT_MARGIN
 * first-parent commits each way: a detector may place a step one or two
 * commits later once the nights after it are in, and the regression is
 * still the one the team was told of. The state remembers every change
 * point it was ever published with, also one that a later night's
 * history no longer shows (publish keeps it, "present": false), so a
 * change point that vanishes for a night and returns is not new.
 *
 * reporters/history_view.h shows them.
 *
 * Without a state file (the first nightly, or a site wiped) there is
 * nothing to compare with, and alerting on every regression of the
 * branch's past would drown the one of last night: only regressions whose
 * commit is among the newest ALERT_FIRST_RUN_COMMITS first-parent commits
 * are new then.
 */

#define ALERT_MARGIN 5
#define ALERT_FIRST_RUN_COMMITS 10

/*
 * Finds the worse-direction change points of history that the state in
 * published_dir does not list (above) into *out (zeroed by the caller;
 * release with alerts_release()). A missing directory or state file is
 * the first run. BG_EINPUT naming the file, line and column for a state
 * file that is not one; BG_ERROR when it cannot be read.
 */
int alert_find(struct alerts *out, const struct history *history,
	       const char *published_dir);

void alerts_release(struct alerts *alerts);

/* The series' key in a state file's terms: suite, machine, benchmark,
 * variant, device and metric, each on a line. */
void alert_series_key(struct strbuf *out, const struct history_series *s);

/*
 * The change points a publish of history records (published.h) appended
 * to next: every change point of history, then each of previous (the
 * state of the publish before, NULL for none) that history no longer
 * shows, with present false: a change point of the same series and
 * direction stands for it when the state's commit lies in its commit
 * range widened by ALERT_MARGIN commits each way (above).
 */
void alert_points_to_publish(struct published_state *next,
			     const struct history *history,
			     const struct published_state *previous);

#endif
