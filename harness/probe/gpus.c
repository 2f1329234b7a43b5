/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/gpus.h"

#include "harness/probe/nvml.h"
#include "harness/probe/rocm.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <stdlib.h>

struct gpus {
	enum gpu_vendor vendor;
	struct nvml *nvml;
	struct rocm *rocm;
};

int gpus_open(struct gpus **out, enum gpu_vendor vendor, struct strbuf *why)
{
	struct gpus *gpus = xcalloc(1, sizeof(*gpus));
	int error;

	*out = NULL;
	gpus->vendor = vendor;
	if (vendor == GPU_AMD) {
		error = rocm_open(&gpus->rocm, why);
	} else {
		error = nvml_open(&gpus->nvml, why);
	}
	if (error < 0) {
		gpus_close(gpus);
		return error;
	}
	*out = gpus;
	return BG_OK;
}

void gpus_close(struct gpus *gpus)
{
	if (!gpus)
		return;
	nvml_close(gpus->nvml);
	rocm_close(gpus->rocm);
	free(gpus);
}

enum gpu_vendor gpus_vendor(const struct gpus *gpus)
{
	return gpus->vendor;
}

const char *gpus_library_name(enum gpu_vendor vendor)
{
	return vendor == GPU_AMD ? "ROCm SMI" : "NVML";
}

size_t gpus_count(const struct gpus *gpus)
{
	return gpus->rocm ? rocm_count(gpus->rocm) : nvml_count(gpus->nvml);
}

const struct gpu_desc *gpus_desc(const struct gpus *gpus, size_t index)
{
	return gpus->rocm ? rocm_gpu(gpus->rocm, index)
			  : nvml_gpu(gpus->nvml, index);
}

const char *gpus_driver_version(const struct gpus *gpus)
{
	return gpus->rocm ? rocm_driver_version(gpus->rocm)
			  : nvml_driver_version(gpus->nvml);
}

void gpus_read(struct gpus *gpus, size_t index, struct gpu_reading *out)
{
	if (gpus->rocm)
		rocm_read(gpus->rocm, index, out);
	else
		nvml_read(gpus->nvml, index, out);
}

bool gpus_process_memory(struct gpus *gpus, const size_t *selected,
			 size_t selected_nr, const pid_t *pids, size_t nr,
			 uint64_t *bytes)
{
	*bytes = 0;
	/* KFD counts a process's VRAM over every GPU it uses, which are
	 * the visible ones; NVML lists processes per GPU */
	if (gpus->rocm)
		return rocm_process_memory(gpus->rocm, pids, nr, bytes);
	for (size_t i = 0; i < selected_nr; i++) {
		uint64_t on_gpu;

		if (!nvml_process_memory(gpus->nvml, selected[i], pids, nr,
					 &on_gpu))
			return false;
		*bytes += on_gpu;
	}
	return true;
}

const char *gpus_why(const struct gpus *gpus, const char *quantity)
{
	return gpus->rocm ? rocm_why(gpus->rocm, quantity)
			  : nvml_why(gpus->nvml, quantity);
}

size_t gpus_select_visible(const struct gpus *gpus,
			   const struct gpu_visible *visible, size_t *selected,
			   size_t max)
{
	size_t nr = gpus_count(gpus);
	const char **uuids = xcalloc(nr + 1, sizeof(*uuids));
	size_t count;

	for (size_t i = 0; i < nr; i++)
		uuids[i] = gpus_desc(gpus, i)->uuid;
	count = gpu_select_vendor_visible(gpus->vendor, visible, uuids, nr,
					  selected, max);
	free(uuids);
	return count;
}
