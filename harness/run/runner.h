/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_RUNNER_H
#define BENCHGATE_RUNNER_H

#include "harness/suite/plan.h"
#include "harness/run/profile.h"
#include "harness/model/result.h"
#include "harness/suite/suite.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Running a plan: every case's warmup and measured runs, one child at a
 * time (process.h), each measured run turned into samples (collectors.h),
 * everything recorded in a struct result.
 *
 * Each run gets, on top of the benchmark's settings.env, the variables of
 * the metrics file protocol (DESIGN.md): BENCHGATE_METRICS_FILE (a fresh
 * path in a private temporary directory, removed after the run),
 * BENCHGATE_SUITE, BENCHGATE_BENCHMARK, BENCHGATE_VARIANT, BENCHGATE_DEVICE,
 * BENCHGATE_RUN (0-based; warmup runs count on their own) and, during
 * warmup runs only, BENCHGATE_WARMUP=1. The child runs in the suite's
 * directory with the benchmark's timeout.
 *
 * Measured runs of a benchmark with perf, nvml, rapl or system metrics are
 * watched by one sampler (sampler.h), started right before the child is
 * spawned and stopped right after it is reaped; warmup runs are not.
 *
 * After every measured run of every case, the runs that are not
 * measurements, each case that succeeded in turn: one under valgrind when
 * the benchmark has callgrind metrics (callgrind.h), then one profiling run
 * when asked for (profile.h). They are logged like the others, get
 * BENCHGATE_RUN one past the last measured run, and add no timing sample.
 * A failure under valgrind fails the case; a failed profile does not.
 *
 * A case fails at its first failing run, warmup or measured, and runs no
 * more; every other case still runs. The reason names what happened and
 * which run, then the last lines of the output:
 *   "exited with status 3 (measured run 2)\nlast lines of stderr:\n..."
 * with status `failed` for a spawn error, a non-zero exit, a signal or a
 * metric that cannot be collected, `timeout` for a timeout. Samples of the
 * runs before the failure stay in the case.
 */

enum runner_order {
	/* All warmups of each case first; then measured round r of every
	 * case, then round r + 1 in the opposite order: slow drift of the
	 * machine (heat, other load) spreads over every case instead of
	 * biasing the last ones. */
	RUNNER_INTERLEAVED = 0,
	/* Each case to its end before the next one starts. */
	RUNNER_SEQUENTIAL,
};

/*
 * Asked once per case before anything runs: NULL to run it, or the reason
 * (borrowed; copied) to record it as `skipped`, e.g. "device 'gpu' is not
 * present".
 */
typedef const char *(*runner_skip_fn)(const struct plan_case *pcase,
				      void *payload);

/* One log file per case, with the output of its every run, capped. */
#define RUNNER_LOG_CAP_DEFAULT ((size_t)1024 * 1024)

struct runner_options {
	/* Absolute directory for the case logs (created); NULL: no logs.
	 * A case's log is named from its id with '/' as "__":
	 * "infer-batch32__original__cpu.log". */
	const char *log_dir;
	/* result_case.log is the log path relative to this directory when
	 * the log is inside it, else absolute. NULL: absolute. It stays
	 * NULL for a case that never ran. */
	const char *log_base;
	/* Bytes of output per case log; 0: RUNNER_LOG_CAP_DEFAULT. Output
	 * past it is counted in "[... N bytes dropped]" notes; the per-run
	 * headers are always written. */
	size_t log_cap;
	/* Bytes kept of each stream per run for the regex metrics and the
	 * failure reason; 0: PROCESS_CAPTURE_CAP_DEFAULT. */
	size_t capture_cap;
	enum runner_order order;
	/* Overrides of the benchmarks' settings; -1: use the settings.
	 * A fixed `runs` also turns adaptive sampling off. */
	int warmup;
	int runs;
	/* Seconds from SIGTERM to SIGKILL on timeout; 0: process.h default. */
	double grace_s;
	/* One line on stderr, rewritten with '\r': "case 2/8 run 3/12
	 * elapsed 12s ETA 30s". Set it only when stderr is a terminal. */
	bool progress;
	runner_skip_fn skip;
	void *payload; /* passed to skip */
	/* Seconds between readings of the sources that are sampled while a
	 * measured run goes on (sampler.h); 0: SAMPLER_INTERVAL_DEFAULT. */
	double sample_interval_s;
	/* Absolute directory for what profiling and callgrind runs leave,
	 * a subdirectory per case named like its log without ".log"
	 * (created when needed); artifact paths in the result are relative
	 * to log_base like the logs. NULL: no profiling runs, and callgrind
	 * output is not kept. */
	const char *artifact_dir;
	/* --profile: a profiling run for every case whose benchmark does
	 * not say "profile": false. */
	bool profile;
	/* Absolute path of benchgate-launch (process.h): the warmup and
	 * measured runs of cases whose benchmark has an rusage maxrss metric
	 * go through it, so that the value is the benchmark's own. NULL:
	 * every run is spawned directly. */
	const char *launcher;
	/* What the profiling runs record with (profile.h), borrowed: the
	 * caller keeps it past the run to ask how the profiles were taken.
	 * NULL: no profiling runs. */
	struct profiler *profiler;
};

#define RUNNER_OPTIONS_INIT                                                   \
	{                                                                     \
		NULL, NULL, 0, 0, RUNNER_INTERLEAVED, -1, -1, 0, false, NULL, \
			NULL, 0, NULL, false, NULL, NULL                      \
	}

/*
 * A run of a plan in progress. The caller drives it one run at a time
 * (runner_step()), so that whoever decides when an adaptive case has
 * enough samples (the gate, which compares them) does it between two
 * runs without the runner calling up to it:
 *
 *     runner_new(&runner, result, plan, &options);
 *     while ((ran = runner_step(runner, &asking)) > 0)
 *             if (asking != RUNNER_NO_CASE && enough(asking))
 *                     runner_stop_case(runner, asking);
 *     if (ran == 0)
 *             runner_finish(runner);
 *     runner_free(runner);
 */
struct runner;

/*
 * Sets up a run of plan into *out (free with runner_free(), also after an
 * error): appends one result_case per plan case, in plan order, to result
 * (its other fields are the caller's to fill), records the cases
 * options->skip skips, creates the log and temporary directories and
 * opens the sampler. Runs nothing. result, plan and options are borrowed
 * until runner_free(). BG_EINPUT when a metric regex does not compile;
 * BG_ERROR when the harness cannot run (no log or temporary directory).
 */
int runner_new(struct runner **out, struct result *result,
	       const struct plan *plan, const struct runner_options *options);

/* runner_step()'s *asking when no case asks. */
#define RUNNER_NO_CASE ((size_t)-1)

/*
 * Makes the next run of the plan, warmup or measured, in options->order:
 * 1 after a run, 0 when no run is left (nothing ran). Failures of the
 * benchmarks are in their cases, not in the return code; BG_ERROR when
 * the harness itself cannot go on (no pipes): the samples so far stay.
 *
 * Adaptive sampling ("runs": "auto"): when the run was a measured run of
 * a case whose benchmark has settings.runs_auto, from its min_runs-th on
 * and before max_runs, *asking is the case's index (in plan order, which
 * is its place in result->cases; result_case.runs counts its measured
 * runs so far). The case runs again in its next turn unless the caller
 * stops it (runner_stop_case()) before the next step: it then has enough
 * samples. A caller that never stops one gets max_runs. Otherwise
 * *asking is RUNNER_NO_CASE.
 */
int runner_step(struct runner *runner, size_t *asking);

/* The case at index (plan order) runs no more: what it measured stays. */
void runner_stop_case(struct runner *runner, size_t index);

/*
 * Once runner_step() returned 0: the runs outside the measurement (the
 * callgrind and profiling runs, described above). BG_ERROR only when the
 * harness failed.
 */
int runner_finish(struct runner *runner);

/* Removes the temporary directory and frees the runner; NULL-safe. The
 * result keeps every case. */
void runner_free(struct runner *runner);

/* Whether a case of plan would use runner_options.launcher. */
bool runner_wants_launcher(const struct plan *plan);

#endif
