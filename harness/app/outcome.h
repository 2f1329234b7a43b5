/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_OUTCOME_H
#define BENCHGATE_APP_OUTCOME_H

/*
 * What a use case ends with, besides a negative BG_* error: the command
 * layer turns it into the exit status (harness/cli/cli.c, the one place).
 */
enum app_outcome {
	OUTCOME_PASS = 0,
	OUTCOME_REGRESSION = 1,	 /* the gate failed */
	OUTCOME_CASE_FAILED = 3, /* a benchmark case broke */
	/* the benchmarks ran, but the result is not in the store (it was
	 * kept elsewhere, session_keep()) or an output asked for was not
	 * written */
	OUTCOME_NOT_SAVED = 4,
};

struct comparison;
struct session;

/* A comparison's outcome (check, compare) from its overall verdict; a
 * session's (run) from its cases. */
int app_outcome_of(const struct comparison *comparison);
int app_outcome_of_session(const struct session *session);

/*
 * The outcome of a use case that measured (run, check), once it wrote what
 * it was asked to: `outcome` (the verdict's or the cases', or a negative
 * error), unless the result is not in the store (session->unstored) or
 * `writing` (the writing of --json or --report) failed with the message
 * just recorded. Each of those is then printed as an error, and the
 * outcome is OUTCOME_NOT_SAVED, which outranks the verdict and failed
 * cases (docs "Exit codes"): a script that tolerates exit 1 must not
 * swallow a result that never reached the store, and the verdict is
 * printed and in the reports anyway. A negative outcome stays (its own
 * message printed by the command layer), after the unstored story.
 */
int app_outcome_after_measuring(const struct session *session, int writing,
				int outcome);

#endif
