/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/nvml.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few NVML types benchgate needs, as nvml.h declares them; declared
 * here so that building benchgate needs no CUDA toolkit. */
typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;

#define NVML_SUCCESS		 0
#define NVML_ERROR_NOT_SUPPORTED 3
/* ours, never NVML's: the library lacks the function */
#define NVML_ABSENT (-1)

struct nvml_memory {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
};

struct nvml_utilization {
	unsigned int gpu;
	unsigned int memory;
};

/* nvmlProcessInfo_t of NVML 11.x and later (the _v2 and _v3 calls) */
struct nvml_process_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id;
	unsigned int compute_instance_id;
};

#define NVML_ERROR_INSUFFICIENT_SIZE 7
/* usedGpuMemory when the driver cannot tell (Windows WDDM, no permission) */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
/* processes read per GPU; more than a benchmark plausibly runs there */
#define NVML_PROCESSES_MAX 256

struct nvml_api {
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	nvml_return (*device_count)(unsigned int *count);
	nvml_return (*device_handle)(unsigned int index, nvml_device *device);
	nvml_return (*device_name)(nvml_device device, char *name,
				   unsigned int length);
	nvml_return (*device_uuid)(nvml_device device, char *uuid,
				   unsigned int length);
	nvml_return (*memory_info)(nvml_device device,
				   struct nvml_memory *memory);
	/* optional: an older or smaller NVML may lack these */
	const char *(*error_string)(nvml_return result);
	nvml_return (*utilization)(nvml_device device,
				   struct nvml_utilization *utilization);
	nvml_return (*power_usage)(nvml_device device,
				   unsigned int *milliwatts);
	nvml_return (*total_energy)(nvml_device device,
				    unsigned long long *millijoules);
	nvml_return (*driver_version)(char *version, unsigned int length);
	nvml_return (*compute_processes)(nvml_device device,
					 unsigned int *count,
					 struct nvml_process_info *infos);
};

struct nvml {
	void *library;
	struct nvml_api api;
	bool initialised;
	nvml_device *devices;
	struct gpu_desc *gpus;
	size_t nr;
	char driver[96];
	const char *why[GPU_QUANTITY_NR];
	char why_text[GPU_QUANTITY_NR][96];
	struct nvml_process_info processes[NVML_PROCESSES_MAX];
};

static const char *default_library = "libnvidia-ml.so.1";

/* dlsym() returns a data pointer; POSIX guarantees that it holds a
 * function's address, and memcpy says so without a cast between the two
 * kinds of pointer that ISO C leaves undefined. */
#define LOAD(nvml, field, symbol)                                \
	load_symbol((nvml)->library, symbol, &(nvml)->api.field, \
		    sizeof((nvml)->api.field))

static bool load_symbol(void *library, const char *symbol, void *slot,
			size_t size)
{
	void *address = dlsym(library, symbol);

	memcpy(slot, &address, size);
	return address != NULL;
}

static const char *error_text(const struct nvml *nvml, nvml_return result)
{
	const char *text =
		nvml->api.error_string ? nvml->api.error_string(result) : NULL;

	return text && *text ? text : "unknown error";
}

static void add_failure(struct strbuf *why, const struct nvml *nvml,
			const char *call, nvml_return result)
{
	strbuf_addf(why, "%s() failed: %s (NVML error %d)", call,
		    error_text(nvml, result), result);
}

static bool missing_symbol(struct strbuf *why, const char *path,
			   const char *symbol)
{
	strbuf_addf(why,
		    "'%s' has no %s(): not NVML, or an NVML older than "
		    "driver 325",
		    path, symbol);
	return false;
}

static int load_library(struct nvml *nvml, struct strbuf *why)
{
	const char *path = getenv("BENCHGATE_NVML_LIBRARY");

	if (!path || !*path)
		path = default_library;
	nvml->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!nvml->library) {
		const char *error = dlerror();

		strbuf_addf(why, "cannot load '%s': %s", path,
			    error ? error : "unknown error");
		if (path == default_library)
			strbuf_addstr(why, " (no NVIDIA driver is installed "
					   "here)");
		return BG_ENOTFOUND;
	}
#define REQUIRE(field, symbol) \
	(LOAD(nvml, field, symbol) || missing_symbol(why, path, symbol))
	if (!(REQUIRE(init, "nvmlInit_v2") &&
	      REQUIRE(shutdown, "nvmlShutdown") &&
	      REQUIRE(device_count, "nvmlDeviceGetCount_v2") &&
	      REQUIRE(device_handle, "nvmlDeviceGetHandleByIndex_v2") &&
	      REQUIRE(device_name, "nvmlDeviceGetName") &&
	      REQUIRE(device_uuid, "nvmlDeviceGetUUID") &&
	      REQUIRE(memory_info, "nvmlDeviceGetMemoryInfo")))
		return BG_ENOTFOUND;
#undef REQUIRE
	LOAD(nvml, error_string, "nvmlErrorString");
	LOAD(nvml, utilization, "nvmlDeviceGetUtilizationRates");
	LOAD(nvml, power_usage, "nvmlDeviceGetPowerUsage");
	LOAD(nvml, total_energy, "nvmlDeviceGetTotalEnergyConsumption");
	LOAD(nvml, driver_version, "nvmlSystemGetDriverVersion");
	if (!LOAD(nvml, compute_processes,
		  "nvmlDeviceGetComputeRunningProcesses_v3"))
		LOAD(nvml, compute_processes,
		     "nvmlDeviceGetComputeRunningProcesses_v2");
	return BG_OK;
}

static void describe_gpu(struct nvml *nvml, size_t index)
{
	struct gpu_desc *gpu = &nvml->gpus[index];
	struct nvml_memory memory;
	nvml_return rc;

	rc = nvml->api.device_handle((unsigned int)index,
				     &nvml->devices[index]);
	if (rc != NVML_SUCCESS) {
		nvml->devices[index] = NULL;
		snprintf(gpu->name, sizeof(gpu->name), "unavailable GPU (%s)",
			 error_text(nvml, rc));
		return;
	}
	if (nvml->api.device_name(nvml->devices[index], gpu->name,
				  sizeof(gpu->name)) != NVML_SUCCESS)
		snprintf(gpu->name, sizeof(gpu->name), "NVIDIA GPU");
	if (nvml->api.device_uuid(nvml->devices[index], gpu->uuid,
				  sizeof(gpu->uuid)) != NVML_SUCCESS)
		gpu->uuid[0] = '\0';
	/* a library may not terminate a name that fills the buffer */
	gpu->name[sizeof(gpu->name) - 1] = '\0';
	gpu->uuid[sizeof(gpu->uuid) - 1] = '\0';
	if (nvml->api.memory_info(nvml->devices[index], &memory) ==
	    NVML_SUCCESS)
		gpu->memory_bytes = memory.total;
}

int nvml_open(struct nvml **out, struct strbuf *why)
{
	struct nvml *nvml = xcalloc(1, sizeof(*nvml));
	unsigned int count = 0;
	nvml_return rc;
	int error;

	*out = NULL;
	if ((error = load_library(nvml, why)) < 0)
		goto done;
	if ((rc = nvml->api.init()) != NVML_SUCCESS) {
		add_failure(why, nvml, "nvmlInit_v2", rc);
		error = BG_ENOTFOUND;
		goto done;
	}
	nvml->initialised = true;
	if ((rc = nvml->api.device_count(&count)) != NVML_SUCCESS) {
		add_failure(why, nvml, "nvmlDeviceGetCount_v2", rc);
		error = BG_ENOTFOUND;
		goto done;
	}
	nvml->nr = count;
	nvml->devices = xcalloc(count + 1, sizeof(*nvml->devices));
	nvml->gpus = xcalloc(count + 1, sizeof(*nvml->gpus));
	for (size_t i = 0; i < count; i++)
		describe_gpu(nvml, i);
	if (nvml->api.driver_version &&
	    nvml->api.driver_version(nvml->driver, sizeof(nvml->driver)) !=
		    NVML_SUCCESS)
		nvml->driver[0] = '\0';
	nvml->driver[sizeof(nvml->driver) - 1] = '\0';
	*out = nvml;
	nvml = NULL;
done:
	nvml_close(nvml);
	return error;
}

void nvml_close(struct nvml *nvml)
{
	if (!nvml)
		return;
	if (nvml->initialised)
		nvml->api.shutdown();
	if (nvml->library)
		dlclose(nvml->library);
	free(nvml->devices);
	free(nvml->gpus);
	free(nvml);
}

size_t nvml_count(const struct nvml *nvml)
{
	return nvml->nr;
}

const struct gpu_desc *nvml_gpu(const struct nvml *nvml, size_t index)
{
	return index < nvml->nr ? &nvml->gpus[index] : NULL;
}

const char *nvml_driver_version(const struct nvml *nvml)
{
	return nvml->driver;
}

/* Keeps the first reason a quantity was refused; later ones are alike. */
static bool answered(struct nvml *nvml, enum gpu_quantity quantity,
		     nvml_return rc)
{
	if (rc == NVML_SUCCESS)
		return true;
	if (!nvml->why[quantity]) {
		snprintf(nvml->why_text[quantity],
			 sizeof(nvml->why_text[quantity]), "NVML: %s",
			 rc == NVML_ABSENT ? "not in this version of the "
					     "library"
					   : error_text(nvml, rc));
		nvml->why[quantity] = nvml->why_text[quantity];
	}
	return false;
}

bool nvml_process_memory(struct nvml *nvml, size_t index, const pid_t *pids,
			 size_t nr, uint64_t *bytes)
{
	nvml_device device = index < nvml->nr ? nvml->devices[index] : NULL;
	unsigned int count = NVML_PROCESSES_MAX;
	nvml_return rc = !device ? NVML_ERROR_NOT_SUPPORTED
			 : nvml->api.compute_processes
				 ? nvml->api.compute_processes(
					   device, &count, nvml->processes)
				 : NVML_ABSENT;

	if (!answered(nvml, GPU_PROCESS_MEMORY, rc))
		return false;
	*bytes = 0;
	for (unsigned int i = 0; i < count && i < NVML_PROCESSES_MAX; i++) {
		const struct nvml_process_info *info = &nvml->processes[i];

		for (size_t p = 0; p < nr; p++) {
			if ((pid_t)info->pid != pids[p])
				continue;
			if (info->used_gpu_memory == NVML_VALUE_NOT_AVAILABLE)
				return answered(nvml, GPU_PROCESS_MEMORY,
						NVML_ERROR_NOT_SUPPORTED);
			*bytes += info->used_gpu_memory;
		}
	}
	return true;
}

void nvml_read(struct nvml *nvml, size_t index, struct gpu_reading *out)
{
	nvml_device device = index < nvml->nr ? nvml->devices[index] : NULL;
	struct nvml_utilization utilization;
	struct nvml_memory memory;
	unsigned long long energy;
	unsigned int milliwatts;
	nvml_return missing = NVML_ABSENT;

	memset(out, 0, sizeof(*out));
	if (!device) {
		/* describe_gpu() could not get a handle */
		for (int q = 0; q < GPU_QUANTITY_NR; q++)
			answered(nvml, (enum gpu_quantity)q,
				 NVML_ERROR_NOT_SUPPORTED);
		return;
	}
	if (answered(nvml, GPU_UTILIZATION,
		     nvml->api.utilization
			     ? nvml->api.utilization(device, &utilization)
			     : missing)) {
		out->has_utilization = true;
		out->utilization = utilization.gpu;
	}
	if (answered(nvml, GPU_MEMORY, nvml->api.memory_info(device, &memory))) {
		out->has_memory = true;
		out->memory_used = memory.used;
	}
	if (answered(nvml, GPU_POWER,
		     nvml->api.power_usage
			     ? nvml->api.power_usage(device, &milliwatts)
			     : missing)) {
		out->has_power = true;
		out->power_w = milliwatts / 1000.0;
	}
	if (answered(nvml, GPU_ENERGY,
		     nvml->api.total_energy
			     ? nvml->api.total_energy(device, &energy)
			     : missing)) {
		out->has_energy = true;
		out->energy_mj = energy;
	}
}

const char *nvml_why(const struct nvml *nvml, const char *quantity)
{
	enum gpu_quantity q = gpu_quantity_find(quantity);

	return q < GPU_QUANTITY_NR ? nvml->why[q] : NULL;
}
