/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_INIT_H
#define BENCHGATE_INIT_H

#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * `benchgate init`: a first suite that runs at once, for a newcomer to
 * edit rather than write from the reference.
 *
 * INIT_PYTHON writes the suite benchgate.json, a benchmark bench.py that
 * times a stand-in function and reports its latencies, and benchgate.py,
 * the metrics helper (python/benchgate.py, compiled into the binary), so
 * the directory needs nothing else: not benchgate's sources, not a git
 * repository. INIT_COMMAND writes only the suite, timing a shell command
 * line. The suite carries comments (suites are read as JSONC) and a
 * "$schema" for editors.
 */

enum init_kind { INIT_PYTHON, INIT_COMMAND };

struct init_options {
	enum init_kind kind;
	const char *command; /* INIT_COMMAND: the shell command line */
	bool force;	     /* replace files that exist */
};

/* The name of the suite file init writes, which run, check and validate
 * read when no SUITE is given. */
#define INIT_SUITE_FILE "benchgate.json"

/*
 * Writes the files into dir (which must exist). Without opts->force, a
 * file that exists is an input error naming it, and nothing is written.
 * Appends to *written the names written, separated by ", ". BG_OK, BG_EINPUT, or
 * BG_ERROR when a file cannot be written.
 */
int init_write(const char *dir, const struct init_options *opts,
	       struct strbuf *written);

#endif
