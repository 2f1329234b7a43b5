/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_ATTRIBUTION_H
#define BENCHGATE_ATTRIBUTION_H

#include "harness/gate/history.h"

#include <git2.h>

/*
 * Attribution: which commit to blame for the change points of a history
 * (history.h), one incident per cause rather than one alert per series.
 *
 * A change point says that its series' new level began somewhere in its
 * range, the commits from the first one after the point before it to the
 * point's own commit (history_change.range_first): one commit when the
 * series was measured at every commit, several across a gap. The change
 * points of every suite, machine, case and metric whose ranges share a
 * commit are taken as one cause:
 *
 * - regressions first, narrowest range first (then oldest): each joins
 *   the first incident, in the order they were made, whose range meets its
 *   own, and the incident's range becomes the commits both hold, so a
 *   series measured at every commit narrows what a sparse one leaves open;
 *   a regression that meets none starts an incident;
 * - improvements then join an incident they meet in the same way (a
 *   commit that makes one case faster and another slower is one change),
 *   but start none: an incident is a regression to look into.
 *
 * Only the ranges decide: change points of one cause that the detection
 * placed a commit apart in series measured at every commit make two
 * incidents. Deterministic; O(change points x incidents).
 */

/*
 * Groups the change points of history (as history_build() leaves them:
 * series in order, changes in index order) into history->incidents,
 * ordered by range_last, oldest first (replacing any there), and sets each
 * change's `incident` (an index into them, or HISTORY_NO_INCIDENT for an
 * improvement that met no regression). Reads no git.
 */
void attribution_group(struct history *history);

/*
 * Fills history->authors[i] ("Name <email>", as git log's "%an <%ae>")
 * for every commit i that a change point or an incident names, from repo;
 * the others stay NULL. BG_ERROR naming the commit when repo cannot read
 * one.
 */
int attribution_read_authors(struct history *history, git_repository *repo);

/*
 * Both, for a history that history_build() made from repo (repo_open(),
 * opened once by the command for the walk and the authors alike), as
 * `history` does before it shows it. BG_ERROR when repo cannot be read.
 */
int attribution_find(struct history *history, git_repository *repo);

#endif
