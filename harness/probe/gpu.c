/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/gpu.h"

#include "harness/util/alloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const vendor_names[GPU_VENDOR_NR] = {
	[GPU_NVIDIA] = "nvidia",
	[GPU_AMD] = "amd",
};

static const char *const quantity_names[GPU_QUANTITY_NR] = {
	[GPU_UTILIZATION] = "utilization",
	[GPU_MEMORY] = "memory",
	[GPU_PROCESS_MEMORY] = "process_memory",
	[GPU_POWER] = "power",
	[GPU_ENERGY] = "energy",
};

const char *gpu_vendor_name(enum gpu_vendor vendor)
{
	return vendor < GPU_VENDOR_NR ? vendor_names[vendor] : "unknown";
}

const char *gpu_quantity_name(enum gpu_quantity quantity)
{
	return quantity < GPU_QUANTITY_NR ? quantity_names[quantity] : "";
}

enum gpu_quantity gpu_quantity_find(const char *name)
{
	for (int q = 0; q < GPU_QUANTITY_NR; q++)
		if (!strcmp(quantity_names[q], name))
			return (enum gpu_quantity)q;
	return GPU_QUANTITY_NR;
}

/* The GPU an entry of CUDA_VISIBLE_DEVICES names, or -1. */
static long visible_entry(const char *entry, size_t len,
			  const char *const *uuids, size_t nr)
{
	long found = -1;
	size_t i;

	while (len && isspace((unsigned char)*entry))
		entry++, len--;
	while (len && isspace((unsigned char)entry[len - 1]))
		len--;
	if (!len)
		return -1;
	if (strspn(entry, "0123456789") >= len) {
		unsigned long index = strtoul(entry, NULL, 10);

		return len < 10 && index < nr ? (long)index : -1;
	}
	if (strncmp(entry, "GPU-", 4))
		return -1;
	for (i = 0; i < nr; i++) {
		if (!uuids[i] || strncmp(uuids[i], entry, len))
			continue;
		/* a prefix must name one GPU, as CUDA requires */
		if (found >= 0)
			return -1;
		found = (long)i;
	}
	return found;
}

size_t gpu_select_visible(const char *visible, const char *const *uuids,
			   size_t nr, size_t *selected, size_t max)
{
	size_t count = 0;
	const char *p = visible;

	if (!visible) {
		for (size_t i = 0; i < nr && count < max; i++)
			selected[count++] = i;
		return count;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		long index = visible_entry(p, len, uuids, nr);
		bool repeated = false;

		if (index < 0)
			break;
		for (size_t i = 0; i < count; i++)
			repeated |= selected[i] == (size_t)index;
		if (!repeated && count < max)
			selected[count++] = (size_t)index;
		if (!comma)
			break;
		p = comma + 1;
	}
	return count;
}

size_t gpu_select_vendor_visible(enum gpu_vendor vendor,
				 const struct gpu_visible *visible,
				 const char *const *uuids, size_t nr,
				 size_t *selected, size_t max)
{
	size_t *first, count, left;
	const char **left_uuids;

	if (vendor != GPU_AMD)
		return gpu_select_visible(visible->cuda, uuids, nr, selected,
					  max);
	first = xcalloc(nr + 1, sizeof(*first));
	left_uuids = xcalloc(nr + 1, sizeof(*left_uuids));
	left = gpu_select_visible(visible->rocr, uuids, nr, first, nr);
	for (size_t i = 0; i < left; i++)
		left_uuids[i] = uuids[first[i]];
	count = gpu_select_visible(visible->hip ? visible->hip : visible->cuda,
				   left_uuids, left, selected, max);
	for (size_t i = 0; i < count; i++)
		selected[i] = first[selected[i]];
	free(first);
	free(left_uuids);
	return count;
}
