/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_NVML_H
#define BENCHGATE_NVML_H

#include "harness/probe/gpu.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * NVIDIA GPUs through NVML, the library behind nvidia-smi.
 *
 * The library is loaded with dlopen() when asked for, never linked: the
 * same benchgate binary runs on machines without a driver and says why
 * there is no GPU instead of failing to start. It is "libnvidia-ml.so.1"
 * (installed by the driver) unless BENCHGATE_NVML_LIBRARY names another
 * file, which is how the tests load a fake one (tests/fakenvml).
 *
 * GPUs are numbered as NVML numbers them (PCI bus order), which is CUDA's
 * order when CUDA_DEVICE_ORDER=PCI_BUS_ID; UUIDs name a GPU whatever the
 * order. NVML is thread-safe: one thread may sample while another waits.
 */

struct nvml;

/*
 * Loads the library, initialises NVML and describes every GPU. On success
 * *out is the caller's (nvml_close() it). When the library cannot be
 * loaded, lacks a function benchgate needs, or NVML does not start (no
 * driver, no permission), returns BG_ENOTFOUND and appends the reason to
 * `why` ("cannot load 'libnvidia-ml.so.1': ... (no NVIDIA driver here)");
 * nothing is recorded with bg_error: a machine without a GPU is normal.
 */
int nvml_open(struct nvml **out, struct strbuf *why);

/* Shuts NVML down and unloads the library. NULL-safe. */
void nvml_close(struct nvml *nvml);

/* How many GPUs NVML sees, and each one (borrowed from nvml). */
size_t nvml_count(const struct nvml *nvml);
const struct gpu_desc *nvml_gpu(const struct nvml *nvml, size_t index);

/* The driver's version ("535.104.05"), or "" when NVML does not say. */
const char *nvml_driver_version(const struct nvml *nvml);

/*
 * Reads GPU `index` now. Each quantity is asked separately and left out
 * (has_ false) when NVML refuses it; the first refusal of each kind is
 * kept, for nvml_why(). Does not allocate.
 */
void nvml_read(struct nvml *nvml, size_t index, struct gpu_reading *out);

/*
 * The memory that the processes `pids` (the benchmark's process tree)
 * hold on GPU `index`, from NVML's list of compute processes, into
 * *bytes; false when NVML cannot tell (nvml_why(nvml, "process_memory")
 * says why). Does not allocate.
 *
 * NVML names processes by the host's PIDs: in a container with a PID
 * namespace of its own no PID matches and the figure is 0.
 */
bool nvml_process_memory(struct nvml *nvml, size_t index, const pid_t *pids,
			 size_t nr, uint64_t *bytes);

/* Why `quantity` (gpu.h's quantity names) was missing
 * from a reading ("NVML: Not Supported"); NULL when it never was.
 * Borrowed from nvml. */
const char *nvml_why(const struct nvml *nvml, const char *quantity);

#endif
