/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_COLLECTORS_H
#define BENCHGATE_COLLECTORS_H

#include "harness/suite/plan.h"
#include "harness/util/process.h"
#include "harness/model/result.h"
#include "harness/suite/suite.h"

/*
 * Turning one finished run into metric samples, per the benchmark's
 * `struct metric_spec`s (DESIGN.md, "Suite file" and "Metrics file
 * protocol"):
 *
 * - wall: the run's monotonic wall time, seconds.
 * - rusage: field utime or stime (seconds) or maxrss (bytes) of the child
 *   and its reaped descendants.
 * - metrics: the file at $BENCHGATE_METRICS_FILE, looked up by the spec's
 *   key, of at most COLLECT_FILE_MAX bytes (a larger one fails the run,
 *   with the file's path and size: parsed, it would take about 13 times
 *   its size in memory). It holds either one JSON object, whose values are numbers or
 *   arrays of numbers (every element a sample), with nested objects
 *   addressed by dotted keys ("stats.p50"; a member whose own name has a
 *   dot is found too); or lines "name value [unit]", where a name may
 *   repeat (one sample per line), '#' starts a comment line and blank
 *   lines are ignored. Any other line is an error.
 * - stdout / stderr: a POSIX extended regex whose first capture group is
 *   the value, matched against each line of the stream ('^' and '$' match
 *   at its ends, '.' and '[^...]' never reach past it, as with
 *   REG_NEWLINE). EVERY match is a sample, in order, like the elements of
 *   an array in the metrics file: a benchmark that prints one line per
 *   iteration reports all of them. No match is an error. The lines are
 *   matched as the output is read (collectors_watch()), so ALL of the
 *   output counts, not only the head and tail that the capture keeps
 *   (process.h), and no match can join bytes from the two sides of its
 *   cut. Memory stays bounded: one incomplete line per stream is kept, of
 *   at most COLLECT_LINE_MAX bytes; a longer line fails the stream's regex
 *   metrics ("line 3 of stdout is longer than 1 MiB ...") rather than
 *   lose a value in it or make one up from its pieces. A regex with a
 *   newline in it could never match a line, and is refused by
 *   collectors_new().
 * - file: a JSON file (path template expanded for the case and run,
 *   relative to the suite's directory) and a dotted key, as for metrics,
 *   and bounded by COLLECT_FILE_MAX as well.
 *   The file is read as it is after the run: a benchmark that does not
 *   rewrite it reports its previous values.
 * - perf, nvml, rapl, system: the run's value of the field, as the
 *   sampler given with collectors_set_sampler() measured it (sampler.h).
 *   A value the sampler does not have (the source cannot work here, or
 *   did not give that field in this run) leaves the metric out of this
 *   run with a warning, once per reason and collectors object; the run
 *   does not fail. Without a sampler, these metrics are always left out.
 *
 * - per (any source but callgrind, with "per": COUNT): the values of the
 *   metric's own source, each divided by the value of metric COUNT of the
 *   same benchmark in the same run, the number of samples (inference
 *   items) the run processed: energy per sample, time per sample. A source
 *   with several values per run (an array, a regex matching several
 *   lines) has each divided by the one count. The count must be one
 *   positive finite value per run, else the run fails ("metric
 *   'energy_per_sample': count metric 'samples' is 0 in this run;
 *   expected a positive number of samples"); it is checked even when the
 *   metric's own source is left out here, so that a broken count fails
 *   on every machine alike. A missing count fails as any missing metric
 *   does. When the source is left out, so is the per metric, as above;
 *   when the count's source leaves it out, the per metric is left out too.
 *   The unit stays the source's ("J" for energy): the name says per what.
 *
 * Every value must be a finite number. The unit is the declared one (or,
 * for wall and rusage, the implied one suite.c fills in), else the unit of
 * the first metrics line that gave the value, else none.
 */

/* The longest line a stdout or stderr regex is matched against. */
#define COLLECT_LINE_MAX ((size_t)1 << 20)

/* The largest metrics file (and `file` source) that is read: 16 MiB, some
 * two million samples, where a metric needs a few bytes. */
#define COLLECT_FILE_MAX ((size_t)16 << 20)

struct collectors;

/* What a collector may look at after one run. All borrowed. */
struct collect_run {
	const struct plan *plan;
	const struct plan_case *pcase;
	int run; /* the ${run} the command was given */
	const struct process_outcome *outcome;
	const char *metrics_path; /* $BENCHGATE_METRICS_FILE of the run */
	const char *run_dir;	  /* $BENCHGATE_RUN_DIR of the run; NULL:
				   * none, and no extractor can run */
};

/*
 * Prepares the collectors for every benchmark of suite (the regexes are
 * compiled once here, not per run). The suite is borrowed and must outlive
 * the collectors. BG_EINPUT, naming benchmark and metric, when a regex does
 * not compile (suite_load() has rejected those already). Free with
 * collectors_free().
 */
int collectors_new(struct collectors **out, const struct suite *suite);

/* Prepares the collectors for every benchmark of one more suite, as
 * collectors_new() does: check --baseline-tree runs the baseline tree's
 * suite beside the candidate's. Borrowed like the first; its errors. */
int collectors_add_suite(struct collectors *collectors,
			 const struct suite *suite);

void collectors_free(struct collectors *collectors);

struct sampler;

/* The sampler whose last run the sampled sources read (borrowed; it must
 * outlive the collectors, or be replaced); NULL: none. */
void collectors_set_sampler(struct collectors *collectors,
			    const struct sampler *sampler);

/*
 * Watches the run about to be made of benchmark for its stdout and stderr
 * regex metrics: sets options->observer (process.h), so that process_run()
 * hands every line to the regexes as it is read, and the samples wait in
 * the collectors for collectors_collect(). Call it before each run that
 * will be collected; it discards what an earlier watch gathered, so a
 * warmup run may be watched (and then run exactly as the measured ones)
 * without being collected. options->observer is left alone when the
 * benchmark has no regex metric. The collectors must outlive the run.
 */
void collectors_watch(struct collectors *collectors,
		      const struct benchmark *benchmark,
		      struct process_options *options);

/*
 * Collects every metric of run->pcase's benchmark from the finished run and
 * appends the samples to rcase: each metric is created on first use with
 * its unit, better, exact and tolerance, and its `runs` counts this run.
 *
 * The stdout and stderr samples are those of the last collectors_watch(),
 * which must have been for this benchmark (an assert) when it has regex
 * metrics; they are taken, and a second collect finds none.
 *
 * All or nothing: when any metric cannot be collected, rcase is left
 * unchanged and BG_ERROR is returned with the reason, meant to become the
 * case's failure reason, in bg_error_last():
 *   "metric 'latency': key 'latency_ms' missing from the metrics file"
 *   "metric 'x': value 'nan' is not a finite number"
 */
int collectors_collect(struct collectors *collectors, struct result_case *rcase,
		       const struct collect_run *run);

#endif
