/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_BISECT_PRINT_H
#define BENCHGATE_APP_BISECT_PRINT_H

#include "harness/app/bisect.h"

/* `benchgate bisect` as a whole: bisect_run(), then its outcome printed
 * through the reporters' view of it (reporters/bisect_view.h).
 * OUTCOME_PASS (outcome.h) or the errors of bisect_run(). */
int app_bisect(const struct bisect_options *opts);

#endif
