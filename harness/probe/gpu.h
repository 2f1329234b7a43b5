/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_GPU_H
#define BENCHGATE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What benchgate reads of a GPU, whichever vendor's library answers:
 * NVML for NVIDIA (nvml.h), ROCm SMI for AMD (rocm.h). Both fill these
 * types, so the sampler and `benchgate devices` treat them alike.
 */

enum gpu_vendor {
	GPU_NVIDIA,
	GPU_AMD,
	GPU_VENDOR_NR
};

/* "nvidia", "amd": the name a result records. */
const char *gpu_vendor_name(enum gpu_vendor vendor);

/* What a library says about one GPU when it is opened. */
struct gpu_desc {
	char name[96];	       /* "NVIDIA A100-SXM4-40GB", "AMD Instinct MI210" */
	char uuid[96];	       /* "GPU-8d2e..." */
	uint64_t memory_bytes; /* total device memory */
};

/* One reading of one GPU. A quantity the GPU does not report is false in
 * the matching has_ flag. */
struct gpu_reading {
	bool has_utilization, has_memory, has_power, has_energy;
	unsigned utilization; /* percent of time a kernel ran, recently */
	uint64_t memory_used; /* bytes, by every process on the GPU */
	double power_w;	      /* board power draw */
	uint64_t energy_mj;   /* a counter since some start, millijoules */
};

/* The quantities a reading may lack, for *_why(): "utilization",
 * "memory", "process_memory", "power", "energy". */
enum gpu_quantity {
	GPU_UTILIZATION,
	GPU_MEMORY,
	GPU_PROCESS_MEMORY,
	GPU_POWER,
	GPU_ENERGY,
	GPU_QUANTITY_NR
};

const char *gpu_quantity_name(enum gpu_quantity quantity);

/* The quantity named `name`, or GPU_QUANTITY_NR. */
enum gpu_quantity gpu_quantity_find(const char *name);

/* The variables that hide GPUs from a benchmark, as its environment sets
 * them (NULL: unset): CUDA_VISIBLE_DEVICES for CUDA (and HIP, when
 * HIP_VISIBLE_DEVICES is unset), HIP_VISIBLE_DEVICES and
 * ROCR_VISIBLE_DEVICES for ROCm. Borrowed strings. */
struct gpu_visible {
	const char *cuda, *hip, *rocr;
};

/*
 * Which GPUs a program sees under a CUDA_VISIBLE_DEVICES-style list
 * `visible` (NULL: unset, every GPU), as the CUDA runtime reads it: a
 * comma-separated list of indices or of "GPU-" uuids (a unique prefix is
 * enough), in the program's order; the list ends at the first entry that
 * names no GPU (so "-1" and "" hide every GPU), and a repeated GPU is
 * listed once. `uuids[i]` is GPU i's (NULL: none).
 *
 * Writes up to `max` indices into `selected` and returns how many.
 */
size_t gpu_select_visible(const char *visible, const char *const *uuids,
			  size_t nr, size_t *selected, size_t max);

/*
 * Which of `vendor`'s GPUs a program sees under `visible`: for NVIDIA,
 * CUDA_VISIBLE_DEVICES; for AMD, ROCR_VISIBLE_DEVICES selects among all
 * GPUs, then HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES when it is
 * unset, as HIP reads it) among those, renumbered from 0, as the ROCm
 * runtimes do. Otherwise as gpu_select_visible().
 */
size_t gpu_select_vendor_visible(enum gpu_vendor vendor,
				 const struct gpu_visible *visible,
				 const char *const *uuids, size_t nr,
				 size_t *selected, size_t max);

#endif
