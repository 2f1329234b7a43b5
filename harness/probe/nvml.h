#ifndef BENCHGATE_NVML_H
#define BENCHGATE_NVML_H

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

/* What NVML says about one GPU when it is opened. */
struct nvml_gpu {
	char name[96];	       /* "NVIDIA A100-SXM4-40GB" */
	char uuid[96];	       /* "GPU-8d2e..." */
	uint64_t memory_bytes; /* total device memory */
};

/* One reading of one GPU. A quantity the GPU does not report is false in
 * the matching has_ flag. */
struct nvml_reading {
	bool has_utilization, has_memory, has_power, has_energy;
	unsigned utilization; /* percent of time a kernel ran, recently */
	uint64_t memory_used; /* bytes, by every process on the GPU */
	double power_w;	      /* board power draw */
	uint64_t energy_mj;   /* since the driver loaded (Volta and later) */
};

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
const struct nvml_gpu *nvml_gpu(const struct nvml *nvml, size_t index);

/* The driver's version ("535.104.05"), or "" when NVML does not say. */
const char *nvml_driver_version(const struct nvml *nvml);

/*
 * Reads GPU `index` now. Each quantity is asked separately and left out
 * (has_ false) when NVML refuses it; the first refusal of each kind is
 * kept, for nvml_why(). Does not allocate.
 */
void nvml_read(struct nvml *nvml, size_t index, struct nvml_reading *out);

/* Why `quantity` ("utilization", "memory", "power", "energy") was missing
 * from a reading ("NVML: Not Supported"); NULL when it never was.
 * Borrowed from nvml. */
const char *nvml_why(const struct nvml *nvml, const char *quantity);

/*
 * Which GPUs a CUDA program sees under CUDA_VISIBLE_DEVICES = `visible`
 * (NULL: unset, every GPU), as the CUDA runtime reads it: a comma-separated
 * list of indices or of "GPU-" UUIDs (a unique prefix is enough), in the
 * program's order; the list ends at the first entry that names no GPU
 * (so "-1" and "" hide every GPU), and a repeated GPU is listed once.
 * MIG instances ("MIG-...") cannot be told apart through NVML here and
 * end the list too.
 *
 * Writes up to `max` indices into `selected` and returns how many.
 */
size_t nvml_select_visible(const char *visible, const char *const *uuids,
			   size_t nr, size_t *selected, size_t max);

#endif
