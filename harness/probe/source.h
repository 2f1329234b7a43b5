/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SOURCE_H
#define BENCHGATE_SOURCE_H

/*
 * Where a metric's values come from ("from" in a suite, DESIGN.md). The
 * harness-measured sources are the probe layer's: rusage is read by the
 * runner when a run is reaped, the others are sampled while it runs
 * (sampler.h, which owns the table of their fields that the suite loader
 * checks "field" against). The benchmark's own sources are read by the
 * collectors (harness/run/collectors.h).
 */
enum metric_source {
	SOURCE_WALL,   /* harness: monotonic wall time of the run, seconds */
	SOURCE_RUSAGE, /* harness: field utime | stime (s) | maxrss (bytes) */
	SOURCE_PERF,   /* harness: field instructions | cycles */
	SOURCE_NVML,   /* harness: NVIDIA GPU field */
	SOURCE_ROCM,   /* harness: AMD GPU field */
	SOURCE_RAPL,   /* harness: CPU package energy */
	SOURCE_SYSTEM, /* harness: machine CPU utilisation */
	SOURCE_CALLGRIND, /* harness: instructions under valgrind, in a
			     run of its own (callgrind.h) */
	SOURCE_METRICS,	  /* benchmark: the metrics file, by key */
	SOURCE_STDOUT,	  /* benchmark: regex with one capture group */
	SOURCE_STDERR,
	SOURCE_FILE, /* benchmark: a JSON file and a key path */
	SOURCE_COMMAND, /* an extractor command run after each measured
			   run, its stdout read as a metrics file */
	/* benchmark: a peer tool's result document (harness/bridge/), in
	 * the order of enum bridge_format: path template, key (the peer's
	 * benchmark; default its only one), field (the peer's metric;
	 * default its main one) */
	SOURCE_GBENCH,
	SOURCE_HYPERFINE,
	SOURCE_PYTEST_BENCHMARK,
	SOURCE_GAB_SMALLER,
	SOURCE_GAB_BIGGER,
	SOURCE_OPTIMUM,
};

#define METRIC_SOURCES_NR (SOURCE_OPTIMUM + 1)

/* The source's name in a suite: "rusage", "nvml", "gbench", ... */
const char *metric_source_name(enum metric_source source);

#endif
