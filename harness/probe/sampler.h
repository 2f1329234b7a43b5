/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SAMPLER_H
#define BENCHGATE_SAMPLER_H

#include "harness/probe/gpu.h"
#include "harness/probe/source.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Watching the machine while a measured run goes on: the harness-measured
 * sources of DESIGN.md that the run's exit status and rusage cannot give.
 * Each field below is one sample per measured run, named in a suite as
 * { "from": SOURCE, "field": FIELD }:
 *
 *   nvml    utilization_mean, utilization_peak   %  GPU busy time
 *   rocm    memory_peak                          B  the benchmark's GPU memory
 *           device_memory_peak                   B  device memory used
 *           power_mean, power_peak               W  board power
 *           energy                               J  energy of the run
 *   rapl    energy                               J  CPU packages
 *           power_mean                           W
 *   system  cpu_utilization_mean, _peak          %  the whole machine
 *           load                                    1-minute load average
 *           disk_free                            B  least free space seen
 *   perf    instructions, cycles, task_clock (s)    the benchmark's tree
 *
 * nvml reads NVIDIA GPUs (nvml.h), rocm AMD GPUs (rocm.h), with the same
 * fields. Their values cover the GPUs the benchmark sees
 * (CUDA_VISIBLE_DEVICES; ROCR_ and HIP_VISIBLE_DEVICES on AMD):
 * utilisation is averaged and peaked over GPUs and readings, memory and
 * power are summed over GPUs before the peak is taken, and energy is the
 * GPUs' energy counters' difference where every GPU has one (Volta and
 * later), else board power integrated over the readings (trapezoids).
 * memory_peak is what the benchmark's processes (benchgate's descendants,
 * proctree.h) hold on those GPUs, as the driver accounts per process;
 * device_memory_peak is the devices' whole use.
 * RAPL energy is the packages' counters' difference, wraps included.
 * Mean utilisation and power are over the whole run: the CPU mean is the
 * /proc/stat difference from start to stop, the peaks are the busiest
 * interval. Device memory and utilisation are device-wide and machine-wide:
 * they include other processes, which a benchmark runner should not have.
 * perf: see perfevent.h.
 *
 * A sampling thread reads nvml, rapl and system every interval (default
 * SAMPLER_INTERVAL_DEFAULT) while a run goes on; the first and the last
 * readings are taken by the caller in sampler_start() and sampler_stop(),
 * outside the measured window, so even a run shorter than the interval
 * gets its values. Between start and stop the caller's thread does
 * nothing for the sampler, and the sampling thread does no allocation:
 * it reads a few small files (and NVML) into fixed buffers and sleeps.
 *
 * A source that cannot work here (no NVML, no readable RAPL counters,
 * no hardware counters) is found out once, at sampler_new(); its fields
 * then answer BG_ENOTFOUND with the reason, and the run goes on.
 */

#define SAMPLER_INTERVAL_DEFAULT 0.1

/* The bit of a source in the `sources` masks below. */
#define SAMPLER_SOURCE(source) (1u << (source))

/* The sources this module measures. */
#define SAMPLER_SOURCES                                              \
	(SAMPLER_SOURCE(SOURCE_NVML) | SAMPLER_SOURCE(SOURCE_ROCM) | \
	 SAMPLER_SOURCE(SOURCE_RAPL) | SAMPLER_SOURCE(SOURCE_SYSTEM) |  \
	 SAMPLER_SOURCE(SOURCE_PERF))

/* One field of a sampled source: its name in a suite ("field"), its unit
 * (NULL: a count), and whether it is undirected: more or less of it is
 * neither better nor worse (a slower benchmark keeps a GPU busier), so the
 * gate leaves it alone unless the suite says "gate": true. */
struct sampler_field {
	enum metric_source source;
	const char *name;
	const char *unit;
	bool undirected;
};

/* The fields above, each source's together and in the order listed: the
 * one table of sampled fields, which the suite loader checks a metric's
 * "field" against and sampler_value() answers for. Static; *nr gets how
 * many. */
const struct sampler_field *sampler_fields(size_t *nr);

struct sampler;

/*
 * Opens what the sources in `sources` need (others are ignored) and starts
 * the sampling thread, which reads every `interval_s` seconds (<= 0:
 * SAMPLER_INTERVAL_DEFAULT). Call it on the thread that will start the
 * benchmarks, as perf counters follow that thread's children.
 *
 * BG_ERROR only when the thread cannot be created; sources that do not
 * work here are not errors (sampler_value() says why). The caller owns
 * *out and frees it with sampler_free().
 */
int sampler_new(struct sampler **out, unsigned sources, double interval_s);

/* Stops the thread and closes everything. NULL-safe. */
void sampler_free(struct sampler *sampler);

/*
 * Begins watching one run of the sources in `sources` (those not opened
 * at sampler_new() are ignored): takes the first readings and wakes the
 * sampling thread. `visible` is the run's GPU visibility variables
 * (copied; NULL: all unset) and `workdir` the directory whose free disk
 * space counts (borrowed until sampler_stop()). Call right before
 * starting the run.
 */
void sampler_start(struct sampler *sampler, unsigned sources,
		   const struct gpu_visible *visible, const char *workdir);

/* Ends the run begun by sampler_start(): waits for the sampling thread to
 * be idle, takes the last readings and computes every field. Call right
 * after the run's process has been reaped. */
void sampler_stop(struct sampler *sampler);

/*
 * The value of `field` of `source` over the last run: BG_OK and *value;
 * or BG_ENOTFOUND and *why (borrowed from the sampler, valid until the
 * next sampler_stop()) when the source does not work here, did not give
 * the field in that run, or has no such field.
 */
int sampler_value(const struct sampler *sampler, enum metric_source source,
		  const char *field, double *value, const char **why);

/*
 * Appends one line per source of SAMPLER_SOURCES, with the fields that
 * work here and, for the others, why not, for `benchgate devices`:
 * "  perf    task_clock; not here (instructions, cycles): hardware
 * counters are not available here: ...".
 */
void sampler_describe(const struct sampler *sampler, struct strbuf *out);

#endif
