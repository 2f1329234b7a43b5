/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_GPUS_H
#define BENCHGATE_GPUS_H

#include "harness/probe/gpu.h"
#include "harness/util/strbuf.h"

/*
 * The GPUs of one vendor, through that vendor's library (nvml.h, rocm.h):
 * what the sampler and `benchgate devices` use, so that neither needs to
 * know which library answers.
 */

struct gpus;

/*
 * Opens `vendor`'s library. BG_OK and *out (the caller's; gpus_close()
 * it); or BG_ENOTFOUND, nothing in *out and the reason appended to `why`
 * ("no AMD GPU in /sys/class/drm"): a machine without that vendor's GPU
 * is normal.
 */
int gpus_open(struct gpus **out, enum gpu_vendor vendor, struct strbuf *why);

/* Closes the library. NULL-safe. */
void gpus_close(struct gpus *gpus);

enum gpu_vendor gpus_vendor(const struct gpus *gpus);

/* "NVML", "ROCm SMI": how the GPUs were found, for messages. */
const char *gpus_library_name(enum gpu_vendor vendor);

/* How many GPUs the library sees, each one (borrowed), and the driver's
 * version ("" when unknown). */
size_t gpus_count(const struct gpus *gpus);
const struct gpu_desc *gpus_desc(const struct gpus *gpus, size_t index);
const char *gpus_driver_version(const struct gpus *gpus);

/* Reads GPU `index` now (nvml_read(), rocm_read()). Does not allocate. */
void gpus_read(struct gpus *gpus, size_t index, struct gpu_reading *out);

/* The memory that the processes `pids` (the benchmark's process tree)
 * hold on the GPUs `selected`, into *bytes; false when the library cannot
 * tell (gpus_why(gpus, "process_memory")). */
bool gpus_process_memory(struct gpus *gpus, const size_t *selected,
			 size_t selected_nr, const pid_t *pids, size_t nr,
			 uint64_t *bytes);

/* Why `quantity` was missing from a reading; NULL when it never was. */
const char *gpus_why(const struct gpus *gpus, const char *quantity);

/* The GPUs a benchmark with `visible` sees, as its runtime selects them:
 * up to `max` indices into `selected`; returns how many. */
size_t gpus_select_visible(const struct gpus *gpus,
			   const struct gpu_visible *visible, size_t *selected,
			   size_t max);

#endif
