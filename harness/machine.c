#include "harness/machine.h"

#include "harness/alloc.h"
#include "harness/error.h"
#include "harness/strbuf.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define GIB ((uint64_t)1 << 30)

bool machine_id_valid(const char *id)
{
	size_t len = strlen(id);

	/* A leading '.' would make "." or ".." or a hidden store file. */
	if (!len || len > MACHINE_ID_MAX || id[0] == '.')
		return false;
	return strspn(id, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

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
				char *raw = xstrndup(p + 1,
						      (size_t)(end - p - 1));
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

static char *cpu_model(const char *arch)
{
	/* x86 says "model name", MIPS "cpu model", POWER "cpu"; arm64 names
	 * no model at all and gets the architecture. */
	static const char *const keys[] = { "model name", "cpu model", "cpu" };
	struct strbuf cpuinfo = STRBUF_INIT;
	char *model = NULL;
	size_t i;

	if (strbuf_read_file(&cpuinfo, "/proc/cpuinfo") < 0)
		bg_error_clear();
	for (i = 0; !model && i < sizeof(keys) / sizeof(*keys); i++)
		model = proc_field(cpuinfo.buf, keys[i]);
	strbuf_release(&cpuinfo);
	return model ? model : xstrdup(arch);
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

/* TODO(accelerator probes): the devices issue fills gpus and ipus here
 * (NVML, PoplarSDK); machine_describe() hashes whatever this leaves. */
static void probe_accelerators(struct machine_info *machine)
{
	(void)machine;
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
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int digest_len = 0;
	int error = BG_OK;
	size_t i;

	strbuf_addf(&key, "%s|%d|%llu|%s|",
		    machine->cpu ? machine->cpu : "", machine->cores,
		    (unsigned long long)((machine->memory_bytes + GIB / 2) /
					 GIB),
		    platform);
	add_joined(&key, machine->gpus, machine->gpus_nr);
	strbuf_addch(&key, '|');
	add_joined(&key, machine->ipus, machine->ipus_nr);
	if (!EVP_Digest(key.buf, key.len, digest, &digest_len, EVP_sha256(),
			NULL) || digest_len < 8) {
		error = bg_error("cannot compute the machine id: SHA-256 "
				 "failed in OpenSSL");
		goto done;
	}
	for (i = 0; i < 8; i++)
		snprintf(machine->id + 2 * i, 3, "%02x", digest[i]);
done:
	strbuf_release(&key);
	return error;
}

int machine_describe(struct machine_info *out)
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
	out->cpu = cpu_model(uts.machine);
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	out->cores = cores > 0 ? (int)cores : 0;
	out->memory_bytes = physical_memory();
	out->gpus = xcalloc(1, sizeof(*out->gpus));
	out->ipus = xcalloc(1, sizeof(*out->ipus));
	probe_accelerators(out);

	/* Set but empty is unset: CI templates expand a missing variable to
	 * an empty string. */
	if (override && *override) {
		if (!machine_id_valid(override)) {
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
