/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/machine.h"

#include "harness/util/alloc.h"
#include "harness/probe/devices.h"
#include "harness/util/error.h"
#include "harness/util/hash.h"
#include "harness/util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define GIB ((uint64_t)1 << 30)

/* Architecture for the CPUs that name no model (arm64). */
static char *cpu_model(const struct devices *devices, const char *arch)
{
	return xstrdup(devices->cpu.model ? devices->cpu.model : arch);
}

/* PRETTY_NAME of os-release(5): a shell-like assignment, maybe quoted. */
static char *os_pretty_name(void)
{
	static const char key[] = "PRETTY_NAME=";
	struct strbuf text = STRBUF_INIT, name = STRBUF_INIT;
	const char *line, *p;
	char quote = 0;

	if (strbuf_read_file(&text, "/etc/os-release") < 0 &&
	    strbuf_read_file(&text, "/usr/lib/os-release") < 0) {
		bg_error_clear();
		goto done;
	}
	for (line = text.buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, sizeof(key) - 1))
			break;
	}
	if (!line)
		goto done;
	p = line + sizeof(key) - 1;
	if (*p == '"' || *p == '\'')
		quote = *p++;
	for (; *p && *p != '\n' && *p != quote; p++) {
		if (*p == '\\' && quote == '"' && p[1] && p[1] != '\n')
			p++;
		strbuf_addch(&name, *p);
	}
done:
	strbuf_release(&text);
	if (!name.len) {
		strbuf_release(&name);
		return NULL;
	}
	return strbuf_detach(&name, NULL);
}

static char *os_description(const struct utsname *uts)
{
	struct strbuf os = STRBUF_INIT;
	char *pretty = os_pretty_name();

	if (pretty)
		strbuf_addf(&os, "%s, ", pretty);
	strbuf_addf(&os, "%s %s %s", uts->sysname, uts->release, uts->machine);
	free(pretty);
	return strbuf_detach(&os, NULL);
}

static uint64_t physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long page_size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || page_size <= 0)
		return 0;
	return (uint64_t)pages * (uint64_t)page_size;
}

/* The GPUs benchgate's benchmarks see (CUDA_VISIBLE_DEVICES) and the
 * IPUs, by model name only: a replaced card of the same model, or a CI
 * runner given other cards of it, keeps its history. */
static void add_accelerators(struct machine_info *machine,
			     const struct devices *devices)
{
	for (size_t i = 0; i < devices->gpus_nr; i++) {
		if (!devices->gpus[i].visible)
			continue;
		machine->gpus =
			xrealloc(machine->gpus, (machine->gpus_nr + 2) *
							sizeof(*machine->gpus));
		machine->gpus[machine->gpus_nr++] =
			xstrdup(devices->gpus[i].name);
		machine->gpus[machine->gpus_nr] = NULL;
	}
	for (size_t i = 0; i < devices->ipus_nr; i++) {
		machine->ipus =
			xrealloc(machine->ipus, (machine->ipus_nr + 2) *
							sizeof(*machine->ipus));
		machine->ipus[machine->ipus_nr++] = xstrdup(devices->ipus[i]);
		machine->ipus[machine->ipus_nr] = NULL;
	}
}

static void add_joined(struct strbuf *key, char *const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		strbuf_addf(key, "%s%s", i ? "," : "", names[i]);
}

static int compute_id(struct machine_info *machine, const char *platform)
{
	struct strbuf key = STRBUF_INIT;
	char digest[65];
	int error = BG_OK;

	strbuf_addf(
		&key, "%s|%d|%llu|%s|", machine->cpu ? machine->cpu : "",
		machine->cores,
		(unsigned long long)((machine->memory_bytes + GIB / 2) / GIB),
		platform);
	add_joined(&key, machine->gpus, machine->gpus_nr);
	strbuf_addch(&key, '|');
	add_joined(&key, machine->ipus, machine->ipus_nr);
	/* the first 8 bytes of the digest: 16 hex digits */
	if ((error = hash_sha256_hex(key.buf, key.len, digest)) < 0)
		goto done;
	snprintf(machine->id, sizeof(machine->id), "%.16s", digest);
done:
	strbuf_release(&key);
	return error;
}

int machine_describe_from(struct machine_info *out,
			  const struct devices *devices)
{
	const char *override = getenv("BENCHGATE_MACHINE_ID");
	struct strbuf platform = STRBUF_INIT;
	struct utsname uts;
	long cores;
	int error;

	memset(out, 0, sizeof(*out));
	if (uname(&uts) < 0)
		memset(&uts, 0, sizeof(uts));
	out->hostname = uts.nodename[0] ? xstrdup(uts.nodename) : NULL;
	out->os = os_description(&uts);
	out->cpu = cpu_model(devices, uts.machine);
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	out->cores = cores > 0 ? (int)cores : 0;
	out->memory_bytes = physical_memory();
	out->gpus = xcalloc(1, sizeof(*out->gpus));
	out->ipus = xcalloc(1, sizeof(*out->ipus));
	add_accelerators(out, devices);

	/* Set but empty is unset: CI templates expand a missing variable to
	 * an empty string. */
	if (override && *override) {
		if (!result_machine_id_valid(override)) {
			error = bg_input_error(
				"BENCHGATE_MACHINE_ID: '%s' is not a valid "
				"machine id: expected 1 to %zu characters of "
				"[A-Za-z0-9._-], not starting with '.'",
				override, MACHINE_ID_MAX);
			goto done;
		}
		memcpy(out->id, override, strlen(override) + 1);
		error = BG_OK;
		goto done;
	}
	strbuf_addf(&platform, "%s %s", uts.sysname, uts.machine);
	error = compute_id(out, platform.buf);
done:
	if (error < 0)
		machine_info_release(out);
	strbuf_release(&platform);
	return error;
}

int machine_describe(struct machine_info *out)
{
	struct devices *devices;
	int error;

	devices_probe(&devices);
	error = machine_describe_from(out, devices);
	devices_free(devices);
	return error;
}
