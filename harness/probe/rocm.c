/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/rocm.h"

#include "harness/probe/sysfs.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few ROCm SMI types benchgate needs, as rocm_smi.h (5.x) declares
 * them; declared here so that building benchgate needs no ROCm. */
typedef int rsmi_status;

#define RSMI_STATUS_SUCCESS	  0
#define RSMI_STATUS_NOT_SUPPORTED 2
#define RSMI_STATUS_NOT_FOUND	  10
/* ours, never ROCm SMI's: the library lacks the function */
#define RSMI_ABSENT (-1)
#define RSMI_MEM_TYPE_VRAM 0
#define RSMI_SW_COMP_DRIVER 0

struct rsmi_process_info {
	uint32_t process_id;
	uint32_t pasid;
	uint64_t vram_usage; /* bytes, on every GPU */
	uint64_t sdma_usage;
	uint32_t cu_occupancy;
};

struct rocm_api {
	rsmi_status (*init)(uint64_t flags);
	rsmi_status (*shut_down)(void);
	rsmi_status (*device_count)(uint32_t *count);
	rsmi_status (*memory_total)(uint32_t index, int type, uint64_t *total);
	rsmi_status (*memory_usage)(uint32_t index, int type, uint64_t *used);
	/* optional */
	rsmi_status (*status_string)(rsmi_status status, const char **text);
	rsmi_status (*device_name)(uint32_t index, char *name, size_t length);
	rsmi_status (*device_id)(uint32_t index, uint16_t *id);
	rsmi_status (*unique_id)(uint32_t index, uint64_t *id);
	rsmi_status (*pci_id)(uint32_t index, uint64_t *bdfid);
	rsmi_status (*busy_percent)(uint32_t index, uint32_t *percent);
	rsmi_status (*power_average)(uint32_t index, uint32_t sensor,
				     uint64_t *microwatts);
	rsmi_status (*energy_count)(uint32_t index, uint64_t *count,
				    float *resolution_uj, uint64_t *timestamp);
	rsmi_status (*version_string)(int component, char *text,
				      uint32_t length);
	rsmi_status (*process_by_pid)(uint32_t pid,
				      struct rsmi_process_info *info);
};

struct rocm {
	void *library;
	struct rocm_api api;
	bool initialised;
	struct gpu_desc *gpus;
	const char **uuids; /* gpus[i].uuid, for gpu_select_visible() */
	size_t nr;
	char driver[96];
	const char *why[GPU_QUANTITY_NR];
	char why_text[GPU_QUANTITY_NR][96];
};

static const char *default_library = "librocm_smi64.so.1";
static const char *const fallback_libraries[] = {
	"librocm_smi64.so.1",
	"/opt/rocm/lib/librocm_smi64.so.1",
	"/usr/lib/librocm_smi64.so.1", /* Debian's, outside the loader's path */
};

#define LOAD(rocm, field, symbol)                                \
	load_symbol((rocm)->library, symbol, &(rocm)->api.field, \
		    sizeof((rocm)->api.field))

/* dlsym() returns a data pointer that POSIX guarantees holds a function's
 * address; memcpy says so without a cast ISO C leaves undefined. */
static bool load_symbol(void *library, const char *symbol, void *slot,
			size_t size)
{
	void *address = dlsym(library, symbol);

	memcpy(slot, &address, size);
	return address != NULL;
}

static const char *error_text(const struct rocm *rocm, rsmi_status status)
{
	const char *text = NULL;

	if (status == RSMI_ABSENT)
		return "not in this version of the library";
	if (rocm->api.status_string &&
	    rocm->api.status_string(status, &text) != RSMI_STATUS_SUCCESS)
		text = NULL;
	return text && *text ? text : "unknown error";
}

/*
 * Whether sysfs shows an AMD GPU driven by amdgpu, with a KFD topology:
 * what ROCm SMI needs to start. Checked first because the library prints
 * its failures to stderr and may abort on a tree it does not expect.
 */
static bool amd_gpu_in_sysfs(struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT;
	DIR *dir;
	struct dirent *entry;
	char vendor[32];
	bool found = false;

	sysfs_path(&path, "class/drm");
	dir = opendir(path.buf);
	while (dir && !found && (entry = readdir(dir))) {
		if (strncmp(entry->d_name, "card", 4) ||
		    strchr(entry->d_name, '-'))
			continue;
		strbuf_reset(&path);
		sysfs_path(&path, "class/drm/");
		strbuf_addf(&path, "%s/device/vendor", entry->d_name);
		found = sysfs_read_text(path.buf, vendor, sizeof(vendor)) > 0 &&
			strtoul(vendor, NULL, 16) == 0x1002;
	}
	if (dir)
		closedir(dir);
	strbuf_reset(&path);
	sysfs_path(&path, "class/kfd/kfd/topology/nodes");
	if (!found) {
		strbuf_addstr(why, "no AMD GPU in /sys/class/drm");
	} else if (!(dir = opendir(path.buf))) {
		strbuf_addstr(why, "an AMD GPU but no KFD topology in "
				   "/sys/class/kfd (amdgpu without compute "
				   "support)");
		found = false;
	} else {
		closedir(dir);
	}
	strbuf_release(&path);
	return found;
}

static bool missing_symbol(struct strbuf *why, const char *path,
			   const char *symbol)
{
	strbuf_addf(why, "'%s' has no %s(): not ROCm SMI", path, symbol);
	return false;
}

static int load_library(struct rocm *rocm, struct strbuf *why)
{
	const char *path = getenv("BENCHGATE_ROCM_LIBRARY");
	const char *error = NULL;

	if (path && *path) {
		rocm->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		error = rocm->library ? NULL : dlerror();
	} else {
		path = default_library;
		for (size_t i = 0; !rocm->library &&
				   i < sizeof(fallback_libraries) /
					       sizeof(*fallback_libraries);
		     i++) {
			rocm->library = dlopen(fallback_libraries[i],
					       RTLD_NOW | RTLD_LOCAL);
			if (!rocm->library && i == 0)
				error = dlerror();
		}
	}
	if (!rocm->library) {
		strbuf_addf(why, "cannot load '%s': %s", path,
			    error ? error : "unknown error");
		if (path == default_library)
			strbuf_addstr(why, " (ROCm SMI is not installed here: "
					   "Debian's librocm-smi64-1)");
		return BG_ENOTFOUND;
	}
#define REQUIRE(field, symbol) \
	(LOAD(rocm, field, symbol) || missing_symbol(why, path, symbol))
	if (!(REQUIRE(init, "rsmi_init") &&
	      REQUIRE(shut_down, "rsmi_shut_down") &&
	      REQUIRE(device_count, "rsmi_num_monitor_devices") &&
	      REQUIRE(memory_total, "rsmi_dev_memory_total_get") &&
	      REQUIRE(memory_usage, "rsmi_dev_memory_usage_get")))
		return BG_ENOTFOUND;
#undef REQUIRE
	LOAD(rocm, status_string, "rsmi_status_string");
	LOAD(rocm, device_name, "rsmi_dev_name_get");
	LOAD(rocm, device_id, "rsmi_dev_id_get");
	LOAD(rocm, unique_id, "rsmi_dev_unique_id_get");
	LOAD(rocm, pci_id, "rsmi_dev_pci_id_get");
	LOAD(rocm, busy_percent, "rsmi_dev_busy_percent_get");
	LOAD(rocm, power_average, "rsmi_dev_power_ave_get");
	LOAD(rocm, energy_count, "rsmi_dev_energy_count_get");
	LOAD(rocm, version_string, "rsmi_version_str_get");
	LOAD(rocm, process_by_pid, "rsmi_compute_process_info_by_pid_get");
	return BG_OK;
}

static void describe_gpu(struct rocm *rocm, size_t index)
{
	struct gpu_desc *gpu = &rocm->gpus[index];
	uint32_t i = (uint32_t)index;
	uint64_t id = 0;

	uint16_t device = 0;

	/* the name comes from the PCI ID database (hwdata's pci.ids);
	 * without it ROCm SMI gives a number, and the result would not say
	 * whose GPU it was */
	if (!rocm->api.device_name ||
	    rocm->api.device_name(i, gpu->name, sizeof(gpu->name)) !=
		    RSMI_STATUS_SUCCESS ||
	    !gpu->name[0] || !strncmp(gpu->name, "0x", 2)) {
		if (rocm->api.device_id &&
		    rocm->api.device_id(i, &device) == RSMI_STATUS_SUCCESS)
			snprintf(gpu->name, sizeof(gpu->name),
				 "AMD GPU 0x%04x", device);
		else
			snprintf(gpu->name, sizeof(gpu->name), "AMD GPU");
	}
	gpu->name[sizeof(gpu->name) - 1] = '\0';
	if (rocm->api.unique_id &&
	    rocm->api.unique_id(i, &id) == RSMI_STATUS_SUCCESS && id)
		snprintf(gpu->uuid, sizeof(gpu->uuid), "GPU-%016llx",
			 (unsigned long long)id);
	else if (rocm->api.pci_id &&
		 rocm->api.pci_id(i, &id) == RSMI_STATUS_SUCCESS)
		/* the bdfid: domain << 32 | bus << 8 | device << 3 | function */
		snprintf(gpu->uuid, sizeof(gpu->uuid),
			 "PCI-%04llx:%02llx:%02llx.%llx",
			 (unsigned long long)(id >> 32),
			 (unsigned long long)((id >> 8) & 0xff),
			 (unsigned long long)((id >> 3) & 0x1f),
			 (unsigned long long)(id & 0x7));
	rocm->uuids[index] = gpu->uuid;
	if (rocm->api.memory_total(i, RSMI_MEM_TYPE_VRAM, &id) ==
	    RSMI_STATUS_SUCCESS)
		gpu->memory_bytes = id;
}

int rocm_open(struct rocm **out, struct strbuf *why)
{
	struct rocm *rocm = xcalloc(1, sizeof(*rocm));
	uint32_t count = 0;
	rsmi_status rc;
	int error = BG_ENOTFOUND;

	*out = NULL;
	if (!getenv("BENCHGATE_ROCM_LIBRARY") && !amd_gpu_in_sysfs(why))
		goto done;
	if ((error = load_library(rocm, why)) < 0)
		goto done;
	error = BG_ENOTFOUND;
	if ((rc = rocm->api.init(0)) != RSMI_STATUS_SUCCESS) {
		strbuf_addf(why, "rsmi_init() failed: %s (ROCm SMI status %d)",
			    error_text(rocm, rc), rc);
		goto done;
	}
	rocm->initialised = true;
	if ((rc = rocm->api.device_count(&count)) != RSMI_STATUS_SUCCESS) {
		strbuf_addf(why,
			    "rsmi_num_monitor_devices() failed: %s (ROCm SMI "
			    "status %d)",
			    error_text(rocm, rc), rc);
		goto done;
	}
	rocm->nr = count;
	rocm->gpus = xcalloc(count + 1, sizeof(*rocm->gpus));
	rocm->uuids = xcalloc(count + 1, sizeof(*rocm->uuids));
	for (size_t i = 0; i < count; i++)
		describe_gpu(rocm, i);
	if (!rocm->api.version_string ||
	    rocm->api.version_string(RSMI_SW_COMP_DRIVER, rocm->driver,
				     sizeof(rocm->driver)) !=
		    RSMI_STATUS_SUCCESS)
		rocm->driver[0] = '\0';
	rocm->driver[sizeof(rocm->driver) - 1] = '\0';
	*out = rocm;
	rocm = NULL;
	error = BG_OK;
done:
	rocm_close(rocm);
	return error;
}

void rocm_close(struct rocm *rocm)
{
	if (!rocm)
		return;
	if (rocm->initialised)
		rocm->api.shut_down();
	if (rocm->library)
		dlclose(rocm->library);
	free(rocm->gpus);
	free(rocm->uuids);
	free(rocm);
}

size_t rocm_count(const struct rocm *rocm)
{
	return rocm->nr;
}

const struct gpu_desc *rocm_gpu(const struct rocm *rocm, size_t index)
{
	return index < rocm->nr ? &rocm->gpus[index] : NULL;
}

const char *rocm_driver_version(const struct rocm *rocm)
{
	return rocm->driver;
}

/* Keeps the first reason a quantity was refused; later ones are alike. */
static bool answered(struct rocm *rocm, enum gpu_quantity quantity,
		     rsmi_status rc)
{
	if (rc == RSMI_STATUS_SUCCESS)
		return true;
	if (!rocm->why[quantity]) {
		snprintf(rocm->why_text[quantity],
			 sizeof(rocm->why_text[quantity]), "ROCm SMI: %s",
			 error_text(rocm, rc));
		rocm->why[quantity] = rocm->why_text[quantity];
	}
	return false;
}

#define CALL(rocm, field, ...) \
	((rocm)->api.field ? (rocm)->api.field(__VA_ARGS__) : RSMI_ABSENT)

/* The VRAM the processes `pids` hold; a process KFD does not know (not
 * using a GPU) holds none. */
static rsmi_status read_process_memory(struct rocm *rocm, const pid_t *pids,
				       size_t nr, uint64_t *bytes)
{
	*bytes = 0;
	if (!rocm->api.process_by_pid)
		return RSMI_ABSENT;
	for (size_t i = 0; i < nr; i++) {
		struct rsmi_process_info info = { 0 };
		rsmi_status rc =
			rocm->api.process_by_pid((uint32_t)pids[i], &info);

		if (rc == RSMI_STATUS_SUCCESS)
			*bytes += info.vram_usage;
		else if (rc != RSMI_STATUS_NOT_FOUND)
			return rc;
	}
	return RSMI_STATUS_SUCCESS;
}

bool rocm_process_memory(struct rocm *rocm, const pid_t *pids, size_t nr,
			 uint64_t *bytes)
{
	return answered(rocm, GPU_PROCESS_MEMORY,
			read_process_memory(rocm, pids, nr, bytes));
}

void rocm_read(struct rocm *rocm, size_t index, struct gpu_reading *out)
{
	uint32_t i = (uint32_t)index, busy = 0;
	uint64_t used = 0, microwatts = 0, count = 0, timestamp = 0;
	float resolution = 0;

	memset(out, 0, sizeof(*out));
	if (index >= rocm->nr) {
		for (int q = 0; q < GPU_QUANTITY_NR; q++)
			answered(rocm, (enum gpu_quantity)q,
				 RSMI_STATUS_NOT_SUPPORTED);
		return;
	}
	if (answered(rocm, GPU_UTILIZATION,
		     CALL(rocm, busy_percent, i, &busy))) {
		out->has_utilization = true;
		out->utilization = busy;
	}
	if (answered(rocm, GPU_MEMORY,
		     rocm->api.memory_usage(i, RSMI_MEM_TYPE_VRAM, &used))) {
		out->has_memory = true;
		out->memory_used = used;
	}
	if (answered(rocm, GPU_POWER,
		     CALL(rocm, power_average, i, 0, &microwatts))) {
		out->has_power = true;
		out->power_w = (double)microwatts / 1e6;
	}
	if (answered(rocm, GPU_ENERGY,
		     CALL(rocm, energy_count, i, &count, &resolution,
			  &timestamp))) {
		out->has_energy = true;
		/* the counter ticks in units of `resolution` microjoules */
		out->energy_mj = (uint64_t)((double)count *
					    (double)resolution / 1000.0);
	}
}

const char *rocm_why(const struct rocm *rocm, const char *quantity)
{
	enum gpu_quantity q = gpu_quantity_find(quantity);

	return q < GPU_QUANTITY_NR ? rocm->why[q] : NULL;
}

size_t rocm_select_visible(const struct rocm *rocm, const char *rocr,
			   const char *hip, size_t *selected, size_t max)
{
	struct gpu_visible visible = { .hip = hip, .rocr = rocr };

	return gpu_select_vendor_visible(GPU_AMD, &visible, rocm->uuids,
					 rocm->nr, selected, max);
}
