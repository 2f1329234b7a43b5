/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_EXTRACTOR_H
#define BENCHGATE_EXTRACTOR_H

#include "harness/suite/plan.h"
#include "harness/util/process.h"
#include "harness/util/strbuf.h"

/*
 * The `command` metric source: an extractor, a post-processing command run
 * after each measured run to turn what the run left behind (a profile, a
 * framework's log) into metrics. It runs with the case's working
 * directory, its argv templates expanded as the benchmark's command is,
 * and these in its environment besides the benchmark's own:
 *
 *   BENCHGATE_RUN_DIR       the run's scratch directory, which the
 *                           benchmark got too and may have written into
 *   BENCHGATE_RUN_LOG       a file holding the run's stdout, then stderr
 *   BENCHGATE_METRICS_FILE  the run's metrics file (may not exist)
 *   BENCHGATE_BENCHMARK, _VARIANT, _DEVICE, _RUN  the case and run
 *
 * Its stdout is read whole as a metrics file (collectors.h). It must exit
 * 0 within EXTRACTOR_TIMEOUT_S and print at most max_output bytes; else
 * the run fails with the reason and the last lines of its stderr.
 */

#define EXTRACTOR_TIMEOUT_S 120.0

struct extractor_run {
	const struct plan *plan;
	const struct plan_case *pcase;
	int run;
	const char *const *argv_templates; /* NULL-terminated */
	const char *run_dir;
	const char *metrics_path;
	const struct process_outcome *outcome; /* the run's, for its log */
	size_t max_output;
};

/* Runs the extractor and appends its stdout to output. BG_ERROR with the
 * reason ("extractor 'pva.py' exited with status 1: ...") when it fails,
 * BG_EINPUT when a template does not expand. */
int extractor_run(const struct extractor_run *req, struct strbuf *output);

#endif
