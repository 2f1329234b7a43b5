/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_CALLGRIND_H
#define BENCHGATE_CALLGRIND_H

#include "harness/model/result.h"
#include "harness/suite/suite.h"

#include <stdbool.h>

/*
 * The `callgrind` metric source: the instructions a benchmark executes,
 * counted by valgrind's callgrind tool in a run of its own.
 *
 *     { "name": "instructions", "from": "callgrind" }
 *
 * An instruction count does not depend on the machine's load, frequency or
 * neighbours, so two runs of the same build give the same number, and a
 * gate on it works on shared CI runners where timings are too noisy to.
 * It is also a different quantity from time: it misses cache misses,
 * memory stalls and I/O waits. Under valgrind a program runs 20 to 100
 * times slower, so the source is opt-in per metric, and each case is
 * counted once per `benchgate run` (one sample), after its measured runs,
 * with a timeout CALLGRIND_TIMEOUT_FACTOR times the benchmark's.
 * To gate on it, declare it exact with a small absolute tolerance
 * ("exact": true, "tolerance": 100000 for a count of some 10^8; the
 * environment's size moves the start-up by a few instructions): with one
 * sample a side, the statistical comparison of a non-exact metric can
 * never call a change significant, only report it.
 *
 * Child processes are followed (--trace-children=yes) and their counts
 * added, so a shell benchmark counts its shell as well. The count includes
 * the dynamic loader and the C library's start-up. The raw output stays
 * beside the result (artifact "callgrind") for callgrind_annotate or
 * KCachegrind. When valgrind is not installed the metric is left out with
 * one warning; a benchmark that fails under valgrind fails its case.
 */

#define CALLGRIND_TIMEOUT_FACTOR 50

/* How many argv entries a callgrind run puts before the command's. */
#define CALLGRIND_PREFIX_MAX 8

struct callgrind_run {
	char *dir;	  /* where the output files go */
	char *stem;	  /* their names: "<stem>.<pid>" */
	char *out_option; /* "--callgrind-out-file=<dir>/<stem>.%p" */
	const char *prefix[CALLGRIND_PREFIX_MAX]; /* NULL-terminated */
};

/* Whether any metric of benchmark comes from callgrind. */
bool callgrind_wanted(const struct benchmark *benchmark);

/* Sets run up to write "<dir>/<stem>.<pid>" files (dir must exist). */
void callgrind_prepare(struct callgrind_run *run, const char *dir,
		       const char *stem);

/*
 * After a successful run: sums the instruction totals of its output files
 * and appends the sum as one sample to every callgrind metric of benchmark
 * in rcase (unit "instructions" unless the suite says otherwise). A file's
 * total is the count of event "Ir" on its "totals:" line, else on its
 * "summary:" line, at the position of Ir in its "events:" line. With
 * keep, the output is renamed "<dir>/callgrind.out" (or kept as
 * "<stem>.<pid>" files when several processes ran) and listed as
 * "callgrind" artifacts relative to base; without, it is removed.
 * BG_ERROR when no output file was found or one cannot be read,
 * BG_EINPUT naming the file when one has no total; the output is then
 * removed.
 */
int callgrind_finish(struct callgrind_run *run,
		     const struct benchmark *benchmark,
		     struct result_case *rcase, bool keep, const char *base);

void callgrind_run_release(struct callgrind_run *run);

#endif
