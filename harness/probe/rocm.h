/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_ROCM_H
#define BENCHGATE_ROCM_H

#include "harness/probe/gpu.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * AMD GPUs through ROCm SMI, the library behind rocm-smi.
 *
 * As NVML, the library is loaded with dlopen() when asked for, never
 * linked: the benchgate binary and package do not require ROCm. It is
 * "librocm_smi64.so.1" (Debian's librocm-smi64-1, or ROCm's own in
 * /opt/rocm/lib) unless BENCHGATE_ROCM_LIBRARY names another file.
 *
 * ROCm SMI reads the amdgpu driver's files under /sys/class/drm and the
 * KFD topology under /sys/class/kfd; its version 5.2 prints to stderr and
 * can abort on an unexpected tree. So the library is loaded only when
 * sysfs shows an AMD GPU (a /sys/class/drm/cardN/device/vendor of 0x1002)
 * and a KFD topology; elsewhere rocm_open() says why without loading it.
 *
 * GPUs are numbered as ROCm SMI numbers them (its device index, in card
 * order), which is HIP's order. A GPU's uuid is "GPU-" and its unique id
 * in hex where the driver reports one (as rocm-smi --showuniqueid), else
 * its PCI address.
 */

struct rocm;

/*
 * Checks sysfs, loads the library, initialises ROCm SMI and describes
 * every GPU. On success *out is the caller's (rocm_close() it). When there
 * is no AMD GPU, the library cannot be loaded or lacks a function, or
 * rsmi_init() fails, returns BG_ENOTFOUND and appends the reason to `why`;
 * nothing is recorded with bg_error: a machine without one is normal.
 */
int rocm_open(struct rocm **out, struct strbuf *why);

/* Shuts ROCm SMI down and unloads the library. NULL-safe. */
void rocm_close(struct rocm *rocm);

/* How many GPUs ROCm SMI sees, and each one (borrowed from rocm). */
size_t rocm_count(const struct rocm *rocm);
const struct gpu_desc *rocm_gpu(const struct rocm *rocm, size_t index);

/* The amdgpu driver's version, or "" when ROCm SMI does not say. */
const char *rocm_driver_version(const struct rocm *rocm);

/*
 * Reads GPU `index` now. Each quantity is asked separately and left out
 * (has_ false) when ROCm SMI refuses it; the first refusal of each kind
 * is kept for rocm_why(). Does not allocate.
 */
void rocm_read(struct rocm *rocm, size_t index, struct gpu_reading *out);

/*
 * The VRAM that the processes `pids` (the benchmark's process tree) hold
 * on every GPU together, as KFD accounts it, into *bytes; false when ROCm
 * SMI cannot tell (rocm_why(rocm, "process_memory") says why).
 */
bool rocm_process_memory(struct rocm *rocm, const pid_t *pids, size_t nr,
			 uint64_t *bytes);

/* Why `quantity` (gpu.h's quantity names) was missing from a reading;
 * NULL when it never was. Borrowed from rocm. */
const char *rocm_why(const struct rocm *rocm, const char *quantity);

/*
 * Which GPUs a HIP program sees: ROCR_VISIBLE_DEVICES (`rocr`) selects
 * among all GPUs, then HIP_VISIBLE_DEVICES (`hip`) among those; NULL is
 * unset. Each is a comma-separated list of indices or of "GPU-" uuids,
 * read as CUDA_VISIBLE_DEVICES is (gpu_select_visible()).
 *
 * Writes up to `max` indices into `selected` and returns how many.
 */
size_t rocm_select_visible(const struct rocm *rocm, const char *rocr,
			   const char *hip, size_t *selected, size_t max);

#endif
