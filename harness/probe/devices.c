/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/devices.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/format.h"
#include "harness/probe/gpus.h"
#include "harness/util/process.h"
#include "harness/probe/sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* gc-info and gc-monitor answer at once; a hung one must not hang us. */
#define TOOL_TIMEOUT_S 10.0

static char *format_string(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *format_string(const char *fmt, ...)
{
	struct strbuf text = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	return strbuf_detach(&text, NULL);
}

/* --- cpu --- */

/* Trims the value and collapses runs of blanks: some CPUs pad their model
 * name ("Intel(R) Xeon(R) CPU           E5-2680"). */
static char *clean_value(const char *value)
{
	struct strbuf clean = STRBUF_INIT;
	bool blank = false;

	for (; *value; value++) {
		if (isspace((unsigned char)*value)) {
			blank = clean.len > 0;
			continue;
		}
		if (blank)
			strbuf_addch(&clean, ' ');
		blank = false;
		strbuf_addch(&clean, *value);
	}
	if (!clean.len) {
		strbuf_release(&clean);
		return NULL;
	}
	return strbuf_detach(&clean, NULL);
}

/* The value of the first line "key<blanks>: value" of a /proc file. */
static char *proc_field(const char *text, const char *key)
{
	size_t key_len = strlen(key);
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		const char *p = line + key_len;

		if (!end)
			end = line + strlen(line);
		if (!strncmp(line, key, key_len) &&
		    (*p == ' ' || *p == '\t' || *p == ':')) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == ':') {
				char *raw =
					xstrndup(p + 1, (size_t)(end - p - 1));
				char *value = clean_value(raw);

				free(raw);
				if (value)
					return value;
			}
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

/* The CPU model of /proc/cpuinfo ("model name" on x86, "cpu model" on
 * MIPS, "cpu" on POWER), blanks collapsed; NULL when there is none (arm64
 * names no model). The caller frees it. */
static char *cpu_model(void)
{
	static const char *const keys[] = { "model name", "cpu model", "cpu" };
	struct strbuf path = STRBUF_INIT, cpuinfo = STRBUF_INIT;
	char *model = NULL;

	procfs_path(&path, "cpuinfo");
	if (strbuf_read_file(&cpuinfo, path.buf) < 0)
		bg_error_clear();
	for (size_t i = 0; !model && i < sizeof(keys) / sizeof(*keys); i++)
		model = proc_field(cpuinfo.buf, keys[i]);
	strbuf_release(&cpuinfo);
	strbuf_release(&path);
	return model;
}

/* The sysfs file's text, or NULL. */
static char *read_sysfs_text(const char *relative)
{
	struct strbuf path = STRBUF_INIT;
	char text[256];
	int len;

	sysfs_path(&path, relative);
	len = sysfs_read_text(path.buf, text, sizeof(text));
	strbuf_release(&path);
	return len > 0 ? xstrdup(text) : NULL;
}

/*
 * Calls visit(cpu) for each CPU of a sysfs CPU list ("0-3,8-11"); returns
 * how many, or -1 when the list cannot be parsed.
 */
static int for_each_listed_cpu(const char *list,
			       void (*visit)(long cpu, void *payload),
			       void *payload)
{
	const char *p = list;
	int count = 0;

	while (*p) {
		char *end;
		long first = strtol(p, &end, 10), last = first;

		if (end == p || first < 0)
			return -1;
		p = end;
		if (*p == '-') {
			last = strtol(p + 1, &end, 10);
			if (end == p + 1 || last < first)
				return -1;
			p = end;
		}
		for (long cpu = first; cpu <= last; cpu++, count++)
			if (visit)
				visit(cpu, payload);
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return count;
}

struct topology {
	long (*cores)[2]; /* distinct (package, core) pairs */
	size_t nr, alloc;
	long *packages;
	size_t packages_nr, packages_alloc;
	bool unknown;
};

static bool topology_id(long cpu, const char *name, long *out)
{
	struct strbuf path = STRBUF_INIT;
	char *text, *end = NULL;
	bool ok;

	strbuf_addf(&path, "devices/system/cpu/cpu%ld/topology/%s", cpu, name);
	text = read_sysfs_text(path.buf);
	if (text)
		*out = strtol(text, &end, 10);
	ok = end && end != text && !*end;
	strbuf_release(&path);
	free(text);
	return ok;
}

static void visit_cpu(long cpu, void *payload)
{
	struct topology *topology = payload;
	long package = 0, core = 0;
	size_t i;

	if (!topology_id(cpu, "physical_package_id", &package) ||
	    !topology_id(cpu, "core_id", &core)) {
		topology->unknown = true;
		return;
	}
	for (i = 0; i < topology->nr; i++)
		if (topology->cores[i][0] == package &&
		    topology->cores[i][1] == core)
			break;
	if (i == topology->nr) {
		ALLOC_GROW(topology->cores, topology->nr + 1, topology->alloc);
		topology->cores[topology->nr][0] = package;
		topology->cores[topology->nr++][1] = core;
	}
	for (i = 0; i < topology->packages_nr; i++)
		if (topology->packages[i] == package)
			break;
	if (i == topology->packages_nr) {
		ALLOC_GROW(topology->packages, topology->packages_nr + 1,
			   topology->packages_alloc);
		topology->packages[topology->packages_nr++] = package;
	}
}

static void probe_cpu(struct cpu_info *cpu)
{
	struct topology topology;
	struct strbuf path = STRBUF_INIT;
	char *online = read_sysfs_text("devices/system/cpu/online");
	long logical = -1;

	memset(&topology, 0, sizeof(topology));
	cpu->model = cpu_model();
	if (online)
		logical = for_each_listed_cpu(online, visit_cpu, &topology);
	if (logical < 0) {
		logical = sysconf(_SC_NPROCESSORS_ONLN);
		topology.unknown = true;
	}
	cpu->logical = logical > 0 ? (int)logical : 0;
	if (!topology.unknown) {
		cpu->cores = (int)topology.nr;
		cpu->packages = (int)topology.packages_nr;
	}
	cpu->smt = read_sysfs_text("devices/system/cpu/smt/control");
	cpu->governor = read_sysfs_text("devices/system/cpu/cpu0/cpufreq/"
					"scaling_governor");
	if (!cpu->governor) {
		sysfs_path(&path, "devices/system/cpu/cpu0/cpufreq");
		cpu->governor_why =
			access(path.buf, F_OK)
				? format_string(
					  "no '%s': the kernel or the hypervisor "
					  "exposes no frequency scaling",
					  path.buf)
				: format_string(
					  "'%s/scaling_governor' cannot be read",
					  path.buf);
	}
	free(topology.cores);
	free(topology.packages);
	free(online);
	strbuf_release(&path);
}

/* --- gpu --- */

static void probe_vendor(struct devices *devices, enum gpu_vendor vendor)
{
	const struct gpu_visible visible = { .cuda = devices->cuda_visible,
					     .hip = devices->hip_visible,
					     .rocr = devices->rocr_visible };
	struct strbuf why = STRBUF_INIT;
	struct gpus *gpus = NULL;
	const char **uuids = NULL;
	size_t *selected = NULL, nr, count, first = devices->gpus_nr;

	if (gpus_open(&gpus, vendor, &why) < 0) {
		devices->gpu_why[vendor] = strbuf_detach(&why, NULL);
		return;
	}
	nr = gpus_count(gpus);
	devices->gpus = xrealloc(devices->gpus, (first + nr + 1) *
							sizeof(*devices->gpus));
	uuids = xcalloc(nr + 1, sizeof(*uuids));
	selected = xcalloc(nr + 1, sizeof(*selected));
	for (size_t i = 0; i < nr; i++) {
		const struct gpu_desc *desc = gpus_desc(gpus, i);
		struct gpu_device *gpu = &devices->gpus[first + i];

		*gpu = (struct gpu_device){
			.vendor = vendor,
			.name = xstrdup(desc->name),
			.uuid = xstrdup(desc->uuid),
			.memory_bytes = desc->memory_bytes,
		};
		uuids[i] = gpu->uuid;
	}
	devices->gpus_nr += nr;
	count = gpu_select_vendor_visible(vendor, &visible, uuids, nr,
					  selected, nr);
	for (size_t i = 0; i < count; i++)
		devices->gpus[first + selected[i]].visible = true;
	if (*gpus_driver_version(gpus))
		devices->gpu_driver[vendor] =
			xstrdup(gpus_driver_version(gpus));
	free(uuids);
	free(selected);
	gpus_close(gpus);
	strbuf_release(&why);
}

static void probe_gpus(struct devices *devices)
{
	devices->cuda_visible = xstrdup(getenv("CUDA_VISIBLE_DEVICES"));
	devices->hip_visible = xstrdup(getenv("HIP_VISIBLE_DEVICES"));
	devices->rocr_visible = xstrdup(getenv("ROCR_VISIBLE_DEVICES"));
	for (int v = 0; v < GPU_VENDOR_NR; v++)
		probe_vendor(devices, (enum gpu_vendor)v);
}

/* --- ipu --- */

/* The full path of a program on PATH, or NULL (free it). */
static char *find_program(const char *name)
{
	const char *path = getenv("PATH");
	struct strbuf candidate = STRBUF_INIT;

	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);

		strbuf_reset(&candidate);
		strbuf_addf(&candidate, "%.*s/%s", (int)len, path, name);
		if (len && access(candidate.buf, X_OK) == 0)
			return strbuf_detach(&candidate, NULL);
		path = colon ? colon + 1 : NULL;
	}
	strbuf_release(&candidate);
	return NULL;
}

static void add_ipu(struct devices *devices, const char *name)
{
	devices->ipus = xrealloc(devices->ipus, (devices->ipus_nr + 2) *
							sizeof(*devices->ipus));
	devices->ipus[devices->ipus_nr++] = xstrdup(name);
	devices->ipus[devices->ipus_nr] = NULL;
}

/* Runs a tool; on failure *why says so and NULL is returned. */
static char *run_tool(const char *program, const char *argument,
		      struct strbuf *why)
{
	const char *argv[] = { program, argument, NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	char *text = NULL;

	process_outcome_init(&outcome);
	options.argv = argv;
	options.timeout_s = TOOL_TIMEOUT_S;
	if (process_run(&outcome, &options) < 0) {
		strbuf_addf(why, "cannot run '%s %s': %s", program, argument,
			    bg_error_last());
		bg_error_clear();
	} else if (process_outcome_failed(&outcome)) {
		const char *err = outcome.err.text.buf;

		strbuf_addf(why, "'%s %s' failed: ", program, argument);
		process_outcome_describe(&outcome, why);
		if (*err)
			strbuf_addf(why, ": %.*s", (int)strcspn(err, "\n"),
				    err);
	} else {
		text = strbuf_detach(&outcome.out.text, NULL);
	}
	process_outcome_release(&outcome);
	return text;
}

/* gc-info --list-devices: "-+- Id: [0], target: [Fabric], ..." per
 * device; "target: [Multi IPU]" groups single IPUs listed already. */
static void parse_gc_info(struct devices *devices, const char *text)
{
	for (const char *line = text; *line;) {
		const char *end = line + strcspn(line, "\n");
		const char *p = line + strspn(line, " \t");
		const char *target = strstr(p, "target: [");

		if (!strncmp(p, "-+- Id:", 7) && target && target < end) {
			size_t len;

			target += strlen("target: [");
			len = strcspn(target, "]\n");
			if (len != strlen("Multi IPU") ||
			    strncmp(target, "Multi IPU", len)) {
				char *name =
					format_string("Graphcore IPU (%.*s)",
						      (int)len, target);

				add_ipu(devices, name);
				free(name);
			}
		}
		line = *end ? end + 1 : end;
	}
}

/* gc-monitor's header: "Partition: p1 [active] has 8 reconfigurable
 * IPUs"; -1 when it says no number. */
static long parse_gc_monitor(const char *text)
{
	for (const char *has = strstr(text, " has "); has;
	     has = strstr(has + 1, " has ")) {
		char *end;
		long count = strtol(has + 5, &end, 10);
		const char *ipus = strstr(end, "IPU");

		if (end != has + 5 && ipus &&
		    (size_t)(ipus - end) < strcspn(end, "\n"))
			return count;
	}
	return -1;
}

static const char *ipuof_variable(void)
{
	for (char **env = environ; env && *env; env++)
		if (!strncmp(*env, "IPUOF_", 6))
			return *env;
	return NULL;
}

static int count_dev_ipus(void)
{
	DIR *dev = opendir("/dev");
	struct dirent *entry;
	int count = 0;

	if (!dev)
		return 0;
	while ((entry = readdir(dev)))
		if (!strncmp(entry->d_name, "ipu", 3) && entry->d_name[3] &&
		    strspn(entry->d_name + 3, "0123456789") ==
			    strlen(entry->d_name + 3))
			count++;
	closedir(dev);
	return count;
}

static void probe_ipus(struct devices *devices)
{
	struct strbuf why = STRBUF_INIT;
	char *gc_info = find_program("gc-info");
	char *gc_monitor = gc_info ? NULL : find_program("gc-monitor");
	const char *sdk = getenv("POPLAR_SDK_ENABLED");
	const char *ipuof = ipuof_variable();
	char *text = NULL;
	int dev_ipus;

	devices->ipus = xcalloc(1, sizeof(*devices->ipus));
	devices->ipus_counted = true;
	if (gc_info) {
		if ((text = run_tool(gc_info, "--list-devices", &why))) {
			parse_gc_info(devices, text);
			devices->ipu_source =
				format_string("%s --list-devices", gc_info);
			if (!devices->ipus_nr)
				strbuf_addf(&why,
					    "'%s --list-devices' lists "
					    "no IPU",
					    gc_info);
		}
	} else if (gc_monitor) {
		if ((text = run_tool(gc_monitor, "--all-partitions", &why))) {
			long count = parse_gc_monitor(text);

			for (long i = 0; i < count; i++)
				add_ipu(devices, "Graphcore IPU");
			devices->ipu_source = xstrdup(gc_monitor);
			if (count < 0)
				strbuf_addf(&why,
					    "'%s' does not say how many "
					    "IPUs there are",
					    gc_monitor);
			else if (!count)
				strbuf_addf(&why, "'%s' finds no IPU",
					    gc_monitor);
		}
	} else if (ipuof) {
		/* IPUs over fabric are reached through the V-IPU server;
		 * only the tools could count them */
		add_ipu(devices, "Graphcore IPU over fabric");
		devices->ipus_counted = false;
		devices->ipu_source = format_string("%.*s in the environment",
						    (int)strcspn(ipuof, "="),
						    ipuof);
	} else if ((dev_ipus = count_dev_ipus()) > 0) {
		for (int i = 0; i < dev_ipus; i++)
			add_ipu(devices, "Graphcore IPU (PCIe)");
		devices->ipu_source = xstrdup("/dev/ipu*");
	} else {
		strbuf_addstr(&why, "no Poplar SDK or IPU driver here: "
				    "gc-info and gc-monitor are not on PATH, "
				    "no IPUOF_* variable is set, there is no "
				    "/dev/ipu0");
		if (sdk && *sdk)
			strbuf_addf(&why,
				    ", and POPLAR_SDK_ENABLED ('%s') "
				    "alone does not make an IPU",
				    sdk);
	}
	if (why.len)
		devices->ipu_why = strbuf_detach(&why, NULL);
	strbuf_release(&why);
	free(text);
	free(gc_info);
	free(gc_monitor);
}

/* --- the whole --- */

void devices_probe(struct devices **out)
{
	struct devices *devices = xcalloc(1, sizeof(*devices));

	probe_cpu(&devices->cpu);
	probe_gpus(devices);
	probe_ipus(devices);
	*out = devices;
}

void devices_free(struct devices *devices)
{
	if (!devices)
		return;
	free(devices->cpu.model);
	free(devices->cpu.smt);
	free(devices->cpu.governor);
	free(devices->cpu.governor_why);
	for (size_t i = 0; i < devices->gpus_nr; i++) {
		free(devices->gpus[i].name);
		free(devices->gpus[i].uuid);
	}
	free(devices->gpus);
	for (int v = 0; v < GPU_VENDOR_NR; v++) {
		free(devices->gpu_driver[v]);
		free(devices->gpu_why[v]);
	}
	free(devices->cuda_visible);
	free(devices->hip_visible);
	free(devices->rocr_visible);
	for (size_t i = 0; i < devices->ipus_nr; i++)
		free(devices->ipus[i]);
	free(devices->ipus);
	free(devices->ipu_source);
	free(devices->ipu_why);
	free(devices);
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

/* How many GPUs of `vendor` a benchmark with `visible` sees. */
static size_t visible_gpus(const struct devices *devices,
			   enum gpu_vendor vendor,
			   const struct gpu_visible *visible)
{
	const char **uuids = xcalloc(devices->gpus_nr + 1, sizeof(*uuids));
	size_t *selected = xcalloc(devices->gpus_nr + 1, sizeof(*selected));
	size_t nr = 0, count;

	for (size_t i = 0; i < devices->gpus_nr; i++)
		if (devices->gpus[i].vendor == vendor)
			uuids[nr++] = devices->gpus[i].uuid;
	count = gpu_select_vendor_visible(vendor, visible, uuids, nr, selected,
					  nr);
	free(uuids);
	free(selected);
	return count;
}

/* Why `vendor` gives the benchmark no GPU, appended to reason. */
static void explain_no_gpu(const struct devices *devices,
			   enum gpu_vendor vendor,
			   const struct gpu_visible *visible,
			   struct strbuf *reason)
{
	size_t nr = 0;

	for (size_t i = 0; i < devices->gpus_nr; i++)
		nr += devices->gpus[i].vendor == vendor;
	if (devices->gpu_why[vendor])
		strbuf_addstr(reason, devices->gpu_why[vendor]);
	else if (!nr)
		strbuf_addf(reason, "%s sees no GPU",
			    gpus_library_name(vendor));
	else if (vendor == GPU_AMD)
		strbuf_addf(reason,
			    "ROCR_VISIBLE_DEVICES='%s', HIP_VISIBLE_DEVICES='%s' "
			    "hide all %zu AMD GPUs",
			    visible->rocr ? visible->rocr : "",
			    visible->hip    ? visible->hip
			    : visible->cuda ? visible->cuda
					    : "",
			    nr);
	else
		strbuf_addf(reason, "CUDA_VISIBLE_DEVICES='%s' hides all %zu GPUs",
			    visible->cuda ? visible->cuda : "", nr);
}

bool devices_has(const struct devices *devices, const char *device,
		 const struct gpu_visible *visible, struct strbuf *reason)
{
	const char *forced = getenv("BENCHGATE_DEVICES");
	bool any = !strcmp(device, "gpu");

	if (forced && *forced) {
		if (listed(forced, device))
			return true;
		strbuf_addf(reason,
			    "device '%s' is not in BENCHGATE_DEVICES "
			    "('%s')",
			    device, forced);
		return false;
	}
	if (any || !strcmp(device, "cuda") || !strcmp(device, "rocm")) {
		bool nvidia = any || !strcmp(device, "cuda");
		bool amd = any || !strcmp(device, "rocm");

		if ((nvidia && visible_gpus(devices, GPU_NVIDIA, visible)) ||
		    (amd && visible_gpus(devices, GPU_AMD, visible)))
			return true;
		strbuf_addf(reason, "device '%s' is not present: ", device);
		if (nvidia)
			explain_no_gpu(devices, GPU_NVIDIA, visible, reason);
		if (nvidia && amd)
			strbuf_addstr(reason, "; ");
		if (amd)
			explain_no_gpu(devices, GPU_AMD, visible, reason);
		return false;
	}
	if (!strcmp(device, "ipu")) {
		if (devices->ipus_nr)
			return true;
		strbuf_addf(reason, "device 'ipu' is not present: %s",
			    devices->ipu_why ? devices->ipu_why : "no IPU");
		return false;
	}
	return true;
}

/* --- `benchgate devices` --- */

#define INDENT "      "

static void describe_cpu(const struct cpu_info *cpu, struct strbuf *out)
{
	strbuf_addf(out, "cpu   %s\n" INDENT,
		    cpu->model ? cpu->model : "(no model in /proc/cpuinfo)");
	if (cpu->cores)
		strbuf_addf(out, "%d core%s, ", cpu->cores,
			    cpu->cores == 1 ? "" : "s");
	strbuf_addf(out, "%d logical CPU%s", cpu->logical,
		    cpu->logical == 1 ? "" : "s");
	if (cpu->packages)
		strbuf_addf(out, ", %d package%s", cpu->packages,
			    cpu->packages == 1 ? "" : "s");
	if (!cpu->smt)
		strbuf_addstr(out, "; SMT unknown (no smt/control in sysfs)");
	else if (!strcmp(cpu->smt, "on") && cpu->cores)
		strbuf_addf(out, "; SMT on (%d threads per core)",
			    cpu->logical / cpu->cores);
	else if (!strcmp(cpu->smt, "notsupported"))
		strbuf_addstr(out, "; SMT not supported");
	else if (!strcmp(cpu->smt, "notimplemented"))
		strbuf_addstr(out, "; SMT control not implemented");
	else
		strbuf_addf(out, "; SMT %s", cpu->smt);
	strbuf_addstr(out, "\n" INDENT "frequency governor: ");
	if (cpu->governor)
		strbuf_addf(out, "%s (cpu0)\n", cpu->governor);
	else
		strbuf_addf(out, "not readable: %s\n", cpu->governor_why);
}

static void describe_vendor(const struct devices *devices,
			    enum gpu_vendor vendor, struct strbuf *out)
{
	struct strbuf memory = STRBUF_INIT;
	const char *library = gpus_library_name(vendor);
	const char *hidden_by = vendor == GPU_AMD ? "ROCR_/HIP_VISIBLE_DEVICES"
						  : "CUDA_VISIBLE_DEVICES";
	size_t nr = 0, index = 0;

	for (size_t i = 0; i < devices->gpus_nr; i++)
		nr += devices->gpus[i].vendor == vendor;
	if (devices->gpu_why[vendor]) {
		strbuf_addf(out, "gpu   none through %s: %s\n", library,
			    devices->gpu_why[vendor]);
		return;
	}
	if (!nr) {
		strbuf_addf(out, "gpu   none: %s runs but sees no GPU\n",
			    library);
		return;
	}
	strbuf_addf(out, "gpu   %zu GPU%s through %s", nr, nr == 1 ? "" : "s",
		    library);
	if (devices->gpu_driver[vendor])
		strbuf_addf(out, " (driver %s)", devices->gpu_driver[vendor]);
	if (vendor == GPU_NVIDIA && devices->cuda_visible)
		strbuf_addf(out, ", CUDA_VISIBLE_DEVICES='%s'",
			    devices->cuda_visible);
	if (vendor == GPU_AMD && devices->rocr_visible)
		strbuf_addf(out, ", ROCR_VISIBLE_DEVICES='%s'",
			    devices->rocr_visible);
	if (vendor == GPU_AMD && devices->hip_visible)
		strbuf_addf(out, ", HIP_VISIBLE_DEVICES='%s'",
			    devices->hip_visible);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < devices->gpus_nr; i++) {
		const struct gpu_device *gpu = &devices->gpus[i];

		if (gpu->vendor != vendor)
			continue;
		strbuf_reset(&memory);
		format_quantity(&memory, (double)gpu->memory_bytes, "B");
		strbuf_addf(out, INDENT "%zu  %s  %s  %s", index++, gpu->name,
			    gpu->uuid, memory.buf);
		if (!gpu->visible)
			strbuf_addf(out, "  (hidden by %s)", hidden_by);
		strbuf_addch(out, '\n');
	}
	strbuf_release(&memory);
}

/* Each vendor whose library ran, or, when none did, why each did not. */
static void describe_gpus(const struct devices *devices, struct strbuf *out)
{
	bool any = false;

	for (int v = 0; v < GPU_VENDOR_NR; v++)
		any |= !devices->gpu_why[v];
	for (int v = 0; v < GPU_VENDOR_NR; v++)
		if (!any || !devices->gpu_why[v])
			describe_vendor(devices, (enum gpu_vendor)v, out);
}

static void describe_ipus(const struct devices *devices, struct strbuf *out)
{
	if (!devices->ipus_nr) {
		strbuf_addf(out, "ipu   none: %s\n", devices->ipu_why);
		return;
	}
	if (!devices->ipus_counted) {
		strbuf_addf(out,
			    "ipu   IPUs over fabric (%s); how many, only "
			    "gc-info could tell\n",
			    devices->ipu_source);
		return;
	}
	strbuf_addf(out, "ipu   %zu IPU%s through %s\n", devices->ipus_nr,
		    devices->ipus_nr == 1 ? "" : "s", devices->ipu_source);
	for (size_t i = 0; i < devices->ipus_nr; i++)
		strbuf_addf(out, INDENT "%zu  %s\n", i, devices->ipus[i]);
}

void devices_describe(const struct devices *devices, struct strbuf *out)
{
	describe_cpu(&devices->cpu, out);
	describe_gpus(devices, out);
	describe_ipus(devices, out);
}
