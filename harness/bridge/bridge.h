/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_BRIDGE_H
#define BENCHGATE_BRIDGE_H

#include "harness/bridge/doc.h"
#include "harness/model/result.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Bridges: the result documents of peer tools, read into benchgate's
 * terms (docs/how-to/import.md). `benchgate import` turns a document into a
 * stored result; a suite's metric of source "gbench", "hyperfine",
 * "pytest-benchmark", "customSmallerIsBetter", "customBiggerIsBetter" or
 * "optimum" reads one after each run (collectors.h).
 *
 * A document becomes a list of (benchmark, metric) series, each knowing
 * how many independent values it holds: the repetitions, runs or rounds
 * the peer measured one by one count one each, while a summary the peer
 * computed (a mean, a median) is one value however many runs it came
 * from. The gate treats a series as that many values, never more
 * (compare.h).
 *
 *  - gbench (Google Benchmark --benchmark_format=json or --benchmark_out):
 *    the "iteration" entries of a benchmark (run_name) are its samples,
 *    its aggregates (mean, median, stddev, cv, BigO) are ignored; only
 *    when it has no iteration entry (--benchmark_report_aggregates_only)
 *    its median aggregate, else its mean, is one value. Metrics real_time
 *    and cpu_time in the entries' time_unit (ns, us, ms, s; one unit per
 *    benchmark, the first entry's, others converted), and each counter
 *    (any other number of an entry): "*_per_second" ones higher-better
 *    in "/s", the others recorded but not gated (a counter says nothing
 *    of its direction). An entry with error_occurred fails its benchmark.
 *  - hyperfine (--export-json): per command, "times" are the samples of
 *    metric time (s), "memory_usage_byte" of metric memory (B), one
 *    value per run each; "user" and "system" are means, one value each,
 *    recorded but not gated. A run with a non-zero exit code (or none,
 *    when a signal killed it) fails the command's benchmark.
 *  - pytest-benchmark (--benchmark-json, or a --benchmark-save file):
 *    per benchmark, stats.data (present in --benchmark-json output and in
 *    saves made with --benchmark-save-data) are the samples of metric
 *    time (s); without them, the median of stats is one value, and the
 *    document's note says the gate can judge it only as one value. The
 *    benchmark is named by "name", or by "fullname" where two share a
 *    name.
 *  - customSmallerIsBetter / customBiggerIsBetter (github-action-benchmark):
 *    an array of {"name", "unit", "value"}; each value is one value of
 *    metric "value" of benchmark "name", lower / higher better.
 *  - optimum (optimum-benchmark's benchmark_report.json, or the "report"
 *    of its benchmark.json): an object of phases ("load_model", "prefill",
 *    "decode", "per_token", "forward", ...), each a benchmark named by
 *    the phase. latency.values are the samples of metric latency (in
 *    latency.unit, "s"); without them its mean is one value. Each of
 *    the rest is one value, gated: throughput and efficiency (higher
 *    better, in their units), and lower better memory's max_ram,
 *    max_global_vram, max_process_vram, max_reserved and max_allocated
 *    (MB) and energy's cpu, ram, gpu and total as energy_cpu, ...,
 *    energy_total (kWh). A measurement the tool did not track is null
 *    and gives no metric.
 *
 * Errors are input errors with the document's position ("out.json:12:7:
 * benchmarks[3].real_time: expected a number, found a string", jsonread.h).
 * Keys the bridge does not use are ignored: peers add keys over releases.
 */

/* "gbench", "hyperfine", "pytest-benchmark", "customSmallerIsBetter",
 * "customBiggerIsBetter", "optimum" by value, then NULL: the --format
 * names of `import`, and the names of the suite's metric sources. */
extern const char *const bridge_format_names[];

/* The format of that name into *out; BG_EINPUT listing the names. */
int bridge_format_parse(const char *name, enum bridge_format *out);

/*
 * Reads len bytes of text (no NUL needed after them) as a document of
 * `format`, named path in messages, into *doc (bridge_doc_release() it,
 * also after an error). BG_EINPUT with the position and what was expected
 * when the text is not such a document, or holds no benchmark.
 */
int bridge_parse(struct bridge_doc *doc, enum bridge_format format,
		 const char *text, size_t len, const char *path);

/*
 * The series of `metric` (NULL: the format's main one: real_time, time,
 * time, value, value, latency) of `benchmark` (the peer's name as
 * written, or as bridge_name() maps it; NULL: the document's only
 * benchmark) into *out, borrowed from doc. BG_ERROR naming what the
 * document holds when there is no such series, or with the peer's
 * reason when the benchmark failed.
 */
int bridge_find(const struct bridge_doc *doc, const char *benchmark,
		const char *metric, const struct bridge_series **out);

/* Appends a peer's name in benchgate's name alphabet (name.h): every run of
 * other bytes becomes one '_', none at either end ("BM_sum/1000" ->
 * "BM_sum_1000", "sleep 0.1" -> "sleep_0.1"). "_" for a name of none. */
void bridge_name(struct strbuf *out, const char *peer);

/*
 * Adds the doc's benchmarks to result as cases (variant "original",
 * device "cpu"), one metric per series with its samples, runs and
 * independent count, benchmark and metric named by bridge_name(); a
 * failure becomes a failed case. `path` names the document in messages.
 * BG_EINPUT when a case is already in result (two peer names mapping to
 * one, or a benchmark in two imported files) or two metrics of a
 * benchmark map to one name; result is then left as it was.
 */
int bridge_add_to_result(const struct bridge_doc *doc, struct result *result,
			 const char *path);

#endif
