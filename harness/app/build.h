/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_APP_BUILD_H
#define BENCHGATE_APP_BUILD_H

#include "harness/util/strbuf.h"

/*
 * The build of a tree before it is measured (`bisect --build`, `check
 * --against --build`): the command run by /bin/sh -c with the tree as its
 * working directory, its output captured, killed with its process group
 * once it takes longer than its timeout.
 */

/* A build that hangs must not stall the command: 30 minutes. */
#define BUILD_TIMEOUT_DEFAULT_S 1800

/*
 * Runs `command` in `dir` with a limit of timeout_s seconds (0: none). 0
 * when it built; 1 when it failed, and then why says how ("the build
 * exited with status 2: " and the last lines of its output); < 0 when
 * the harness could not run it.
 */
int build_run(const char *command, const char *dir, int timeout_s,
	      struct strbuf *why);

#endif
