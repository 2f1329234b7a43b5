/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/outcome.h"

#include "harness/gate/compare.h"
#include "harness/run/session.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"

int app_outcome_of(const struct comparison *comparison)
{
	switch (comparison->overall) {
	case OVERALL_FAILED:
		return OUTCOME_CASE_FAILED;
	case OVERALL_REGRESSION:
		return OUTCOME_REGRESSION;
	case OVERALL_PASS:
		break;
	}
	return OUTCOME_PASS;
}

int app_outcome_of_session(const struct session *session)
{
	return session_failed(session) ? OUTCOME_CASE_FAILED : OUTCOME_PASS;
}

int app_outcome_after_measuring(const struct session *session, int writing,
				int outcome)
{
	bool unstored = session->unstored.len > 0;

	if (writing < 0)
		terminal_print_error(bg_error_last());
	if (unstored)
		terminal_print_error(session->unstored.buf);
	if (outcome < 0 || (!unstored && writing >= 0))
		return outcome;
	return OUTCOME_NOT_SAVED;
}
