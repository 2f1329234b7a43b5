/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A stand-in for libnvidia-ml.so.1, so that the NVML paths of benchgate run
 * on machines without a GPU: BENCHGATE_NVML_LIBRARY points the loader here.
 * It exports the NVML functions benchgate calls, with the same signatures,
 * and answers from the script file named by FAKE_NVML_SCRIPT, read at
 * nvmlInit_v2():
 *
 *     # comment
 *     init 9                      what nvmlInit_v2 returns (default 0)
 *     driver 550.54.15
 *     gpu UUID MEMORY_MIB USED_MIB UTIL_PERCENT POWER ENERGY NAME...
 *
 *     process PID GPU_INDEX USED_MIB
 *
 * one "gpu" line per GPU, in NVML order, and one "process" line per
 * compute process NVML lists on a GPU (USED_MIB "-": NVML cannot tell). POWER is milliwatts, or "-" for a
 * GPU that does not report power (NVML_ERROR_NOT_SUPPORTED). ENERGY is
 * "counter" for a GPU with an energy counter (Volta and later), which then
 * grows by POWER over the time since nvmlInit_v2, from 1000 J; or "none".
 * Without a script NVML starts and sees no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_MAX_GPUS 8

#define NVML_SUCCESS		     0
#define NVML_ERROR_UNINITIALIZED     1
#define NVML_ERROR_INVALID_ARGUMENT  2
#define NVML_ERROR_NOT_SUPPORTED     3
#define NVML_ERROR_INSUFFICIENT_SIZE 7

typedef int nvmlReturn_t;

struct fake_gpu {
	char uuid[96];
	char name[96];
	unsigned long long memory, used;
	unsigned int utilization;
	long power_mw; /* < 0: not supported */
	int has_energy;
};

typedef struct fake_gpu *nvmlDevice_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;

struct fake_process {
	unsigned int pid, gpu;
	unsigned long long used; /* ~0: not available */
};

#define FAKE_MAX_PROCESSES 16

static struct fake_gpu gpus[FAKE_MAX_GPUS];
static struct fake_process processes[FAKE_MAX_PROCESSES];
static unsigned int processes_nr;
static unsigned int gpus_nr;
static char driver[64] = "fake";
static int initialised;
static double started;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void parse_gpu(const char *line)
{
	struct fake_gpu *gpu = &gpus[gpus_nr];
	char power[32], energy[32];
	int name_at = 0;

	if (gpus_nr == FAKE_MAX_GPUS ||
	    sscanf(line, "gpu %95s %llu %llu %u %31s %31s %n", gpu->uuid,
		   &gpu->memory, &gpu->used, &gpu->utilization, power, energy,
		   &name_at) < 6 ||
	    !name_at)
		return;
	snprintf(gpu->name, sizeof(gpu->name), "%s", line + name_at);
	gpu->name[strcspn(gpu->name, "\n")] = '\0';
	gpu->memory <<= 20;
	gpu->used <<= 20;
	gpu->power_mw = strcmp(power, "-") ? atol(power) : -1;
	gpu->has_energy = !strcmp(energy, "counter");
	gpus_nr++;
}

static void parse_process(const char *line)
{
	struct fake_process *process = &processes[processes_nr];
	char used[32];

	if (processes_nr == FAKE_MAX_PROCESSES ||
	    sscanf(line, "process %u %u %31s", &process->pid, &process->gpu,
		   used) != 3)
		return;
	process->used = strcmp(used, "-") ? strtoull(used, NULL, 10) << 20
					  : ~0ULL;
	processes_nr++;
}

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInit_v2(void)
{
	const char *path = getenv("FAKE_NVML_SCRIPT");
	nvmlReturn_t result = NVML_SUCCESS;
	char line[512];
	FILE *script;

	gpus_nr = 0;
	processes_nr = 0;
	if (path && (script = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), script)) {
			if (!strncmp(line, "init ", 5))
				result = atoi(line + 5);
			else if (!strncmp(line, "driver ", 7))
				sscanf(line + 7, "%63s", driver);
			else if (!strncmp(line, "gpu ", 4))
				parse_gpu(line);
			else if (!strncmp(line, "process ", 8))
				parse_process(line);
		}
		fclose(script);
	}
	initialised = result == NVML_SUCCESS;
	started = now_s();
	return result;
}

nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlShutdown(void)
{
	if (!initialised)
		return NVML_ERROR_UNINITIALIZED;
	initialised = 0;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result);
const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case 0:
		return "Success";
	case 1:
		return "Uninitialized";
	case 2:
		return "Invalid Argument";
	case 3:
		return "Not Supported";
	case 4:
		return "Insufficient Permissions";
	case 9:
		return "Driver Not Loaded";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	if (strlen(driver) >= length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(version, driver, strlen(driver) + 1);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!initialised)
		return NVML_ERROR_UNINITIALIZED;
	*count = gpus_nr;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
					   nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
					   nvmlDevice_t *device)
{
	if (!initialised)
		return NVML_ERROR_UNINITIALIZED;
	if (index >= gpus_nr)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &gpus[index];
	return NVML_SUCCESS;
}

static nvmlReturn_t copy_text(char *out, unsigned int length, const char *text)
{
	if (strlen(text) >= length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(out, text, strlen(text) + 1);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
			       unsigned int length);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
			       unsigned int length)
{
	return copy_text(name, length, device->name);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
			       unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
			       unsigned int length)
{
	return copy_text(uuid, length, device->uuid);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	memory->total = device->memory;
	memory->used = device->used;
	memory->free = device->memory - device->used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
					   nvmlUtilization_t *utilization);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
					   nvmlUtilization_t *utilization)
{
	utilization->gpu = device->utilization;
	utilization->memory = device->utilization / 2;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device,
				     unsigned int *milliwatts);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device,
				     unsigned int *milliwatts)
{
	if (device->power_mw < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*milliwatts = (unsigned int)device->power_mw;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
						 unsigned long long *energy);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device,
						 unsigned long long *energy)
{
	double power_w = device->power_mw > 0 ? device->power_mw / 1000.0 : 0;

	if (!device->has_energy)
		return NVML_ERROR_NOT_SUPPORTED;
	/* millijoules: 1000 J at init, then the board's power over time */
	*energy =
		(unsigned long long)(1e6 + power_w * (now_s() - started) * 1e3);
	return NVML_SUCCESS;
}

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
						     unsigned int *count,
						     nvmlProcessInfo_t *infos);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
						     unsigned int *count,
						     nvmlProcessInfo_t *infos)
{
	unsigned int index = (unsigned int)(device - gpus), found = 0;

	for (unsigned int i = 0; i < processes_nr; i++) {
		if (processes[i].gpu != index)
			continue;
		if (found < *count)
			infos[found] = (nvmlProcessInfo_t){
				.pid = processes[i].pid,
				.usedGpuMemory = processes[i].used,
				.gpuInstanceId = ~0u,
				.computeInstanceId = ~0u,
			};
		found++;
	}
	if (found > *count) {
		*count = found;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = found;
	return NVML_SUCCESS;
}
