/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BISECT_VIEW_H
#define BENCHGATE_BISECT_VIEW_H

#include "reporters/report.h"

/*
 * What `benchgate bisect` prints of its outcome (harness/app/bisect.h,
 * reached through reporters/report.h): the first bad commit with its
 * subject, author and time (or the commits one of which it is, when
 * skipped ones leave it open), the metrics bisected with their levels at
 * the ends, then each commit tested, oldest first, with its mark and what
 * the measurement said. Names, subjects and reasons are escaped for a
 * terminal (terminal_escape()); print it with terminal_write().
 */
void bisect_view_terminal(struct strbuf *out, const struct bisect *bisect);

#endif
