/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_DEVICES_H
#define BENCHGATE_DEVICES_H

#include "harness/probe/gpu.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The devices of this machine that benchmarks run on, found by probes
 * that never fail: what a probe cannot find is recorded with the reason,
 * so that `benchgate devices` can explain it and a case whose device is
 * absent is skipped with that reason (or fails, under --require-devices).
 *
 * - cpu: the model (/proc/cpuinfo), logical CPUs, physical cores and
 *   packages (sysfs topology), SMT (sysfs smt/control), and cpu0's
 *   frequency governor where cpufreq is exposed. Always present.
 * - gpu: NVIDIA GPUs through NVML (nvml.h): name, UUID, memory. A
 *   benchmark sees the GPUs its CUDA_VISIBLE_DEVICES selects.
 * - ipu: Graphcore IPUs through the Poplar SDK's tools: the single IPUs
 *   `gc-info --list-devices` lists (multi-IPU groupings are not counted),
 *   else the count in `gc-monitor`'s header; without the tools, IPUs over
 *   fabric when an IPUOF_* variable is set (count unknown), else the
 *   /dev/ipuN of PCIe cards. POPLAR_SDK_ENABLED alone (the SDK without
 *   hardware, such as for the IPU model) is no IPU, but is named in the
 *   reason.
 *
 * The sysfs and procfs roots are movable for tests (sysfs.h).
 */

struct cpu_info {
	char *model;	/* NULL when /proc/cpuinfo names none */
	int logical;	/* online logical CPUs */
	int cores;	/* physical cores; 0: topology unknown */
	int packages;	/* sockets; 0: unknown */
	char *smt;	/* smt/control: "on", "off", "forceoff",
				   "notsupported", ...; NULL: unknown */
	char *governor; /* cpu0's scaling_governor; NULL: see why */
	char *governor_why;
};

struct gpu_device {
	enum gpu_vendor vendor;
	char *name;
	char *uuid;
	uint64_t memory_bytes;
	/* selected by benchgate's own CUDA_, HIP_, ROCR_VISIBLE_DEVICES */
	bool visible;
};

struct devices {
	struct cpu_info cpu;
	/* every GPU NVML sees, in NVML's order, then every GPU ROCm SMI
	 * sees, in its order */
	struct gpu_device *gpus;
	size_t gpus_nr;
	/* per vendor: the driver's version (NULL when unknown) and why its
	 * library gave nothing (NULL when it ran) */
	char *gpu_driver[GPU_VENDOR_NR];
	char *gpu_why[GPU_VENDOR_NR];
	/* benchgate's own CUDA_, HIP_, ROCR_VISIBLE_DEVICES; NULL: unset */
	char *cuda_visible, *hip_visible, *rocr_visible;
	/* single IPUs ("Graphcore IPU (Fabric)") */
	char **ipus;
	size_t ipus_nr;
	bool ipus_counted; /* false: present, count unknown (IPUOF) */
	char *ipu_source;  /* how they were found */
	char *ipu_why;	   /* why there are none */
};

/*
 * Probes every device kind into *out (the caller's; devices_free() it).
 * Runs gc-info or gc-monitor when they are on PATH (10 s at most each).
 * Never fails: what cannot be probed is in the *_why fields.
 */
void devices_probe(struct devices **out);

void devices_free(struct devices *devices);

/*
 * Whether `device` (a suite's device name) is present for a benchmark
 * whose GPU visibility variables are `visible`: "cpu" always; "gpu" when
 * it sees a GPU of any vendor; "cuda" an NVIDIA one; "rocm" an AMD one;
 * "ipu" when there is one.
 * A name the suite declares ("declared_devices", harness/suite/suite.h) is taken as
 * present: the benchmark itself knows best.
 * When absent, appends the reason to `reason`: "device 'gpu' is not
 * present: cannot load 'libnvidia-ml.so.1': ...".
 *
 * BENCHGATE_DEVICES="cpu,gpu" overrides the probes (for tests, and for
 * runners whose devices the probes cannot see): exactly the devices it
 * lists are present.
 */
bool devices_has(const struct devices *devices, const char *device,
		 const struct gpu_visible *visible, struct strbuf *reason);

/* The listing of `benchgate devices`: one block per kind, saying what was
 * found and how, or why nothing was. */
void devices_describe(const struct devices *devices, struct strbuf *out);

#endif
