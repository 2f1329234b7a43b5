#include "harness/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static bool program_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char candidate[4096];

	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)len, path,
			 name);
		if (len && access(candidate, X_OK) == 0)
			return true;
		path = colon ? colon + 1 : NULL;
	}
	return false;
}

static bool listed(const char *list, const char *device)
{
	size_t len = strlen(device);

	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == len && !strncmp(p, device, n))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

bool devices_present(const char *device, const char **reason)
{
	static char why[256];
	const char *forced = getenv("BENCHGATE_DEVICES");

	*reason = NULL;
	if (forced && *forced) {
		if (listed(forced, device))
			return true;
		snprintf(why, sizeof(why), "device '%s' is not in "
			 "BENCHGATE_DEVICES", device);
		*reason = why;
		return false;
	}
	if (!strcmp(device, "cpu"))
		return true;
	if (!strcmp(device, "gpu") || !strcmp(device, "cuda")) {
		if (path_exists("/proc/driver/nvidia/gpus") ||
		    path_exists("/dev/nvidiactl"))
			return true;
		snprintf(why, sizeof(why), "device '%s' is not present: no "
			 "NVIDIA driver (/proc/driver/nvidia, /dev/nvidiactl)",
			 device);
		*reason = why;
		return false;
	}
	if (!strcmp(device, "ipu")) {
		if (program_on_path("gc-info") || path_exists("/dev/ipu0") ||
		    getenv("IPUOF_CONFIG_PATH"))
			return true;
		*reason = "device 'ipu' is not present: no Poplar SDK (gc-info "
			  "not on PATH, no /dev/ipu0, no IPUOF_CONFIG_PATH)";
		return false;
	}
	return true;
}
