/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/rapl.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/probe/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rapl_domain {
	char *name;
	char *energy_path;
	uint64_t range_uj; /* the counter wraps here; 0: unknown */
	uint64_t last_uj;
};

struct rapl {
	struct rapl_domain *domains;
	size_t nr, alloc;
	uint64_t *readings; /* scratch for one reading of every domain */
};

/* "intel-rapl:0" is a package zone; "intel-rapl:0:1" one of its parts. */
static bool is_top_zone(const char *entry)
{
	const char *colon = strchr(entry, ':');

	return !strncmp(entry, "intel-rapl:", 11) && colon && colon[1] &&
	       !strchr(colon + 1, ':');
}

static int compare_domains(const void *a, const void *b)
{
	const struct rapl_domain *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Adds the zone when it is a package; BG_ENOTFOUND when its counter
 * cannot be read (the reason in why). */
static int add_zone(struct rapl *rapl, const char *dir, const char *entry,
		    struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT;
	struct rapl_domain *domain;
	char name[64];
	uint64_t value;
	int error = BG_OK;

	strbuf_addf(&path, "%s/%s/name", dir, entry);
	if (sysfs_read_text(path.buf, name, sizeof(name)) < 0 ||
	    strncmp(name, "package", 7))
		goto done;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s/energy_uj", dir, entry);
	if (sysfs_read_u64(path.buf, &value) < 0) {
		strbuf_addf(why, "cannot read '%s': %s", path.buf,
			    strerror(errno));
		if (errno == EACCES || errno == EPERM)
			strbuf_addstr(why, " (only root may read RAPL "
					   "counters since Linux 5.10)");
		error = BG_ENOTFOUND;
		goto done;
	}
	ALLOC_GROW(rapl->domains, rapl->nr + 1, rapl->alloc);
	domain = &rapl->domains[rapl->nr++];
	domain->name = xstrdup(name);
	domain->energy_path = xstrdup(path.buf);
	domain->last_uj = value;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s/max_energy_range_uj", dir, entry);
	if (sysfs_read_u64(path.buf, &domain->range_uj) < 0)
		domain->range_uj = 0;
done:
	strbuf_release(&path);
	return error;
}

int rapl_open(struct rapl **out, struct strbuf *why)
{
	struct rapl *rapl = xcalloc(1, sizeof(*rapl));
	struct strbuf dir = STRBUF_INIT;
	struct dirent *entry;
	DIR *listing;
	int error = BG_OK;

	*out = NULL;
	sysfs_path(&dir, "class/powercap");
	if (!(listing = opendir(dir.buf))) {
		strbuf_addf(why,
			    "no '%s': %s (a kernel without powercap, or "
			    "a virtual machine)",
			    dir.buf, strerror(errno));
		error = BG_ENOTFOUND;
		goto done;
	}
	while (!error && (entry = readdir(listing)))
		if (is_top_zone(entry->d_name))
			error = add_zone(rapl, dir.buf, entry->d_name, why);
	closedir(listing);
	if (!error && !rapl->nr) {
		strbuf_addf(why, "no RAPL package domain in '%s'", dir.buf);
		error = BG_ENOTFOUND;
	}
	if (error)
		goto done;
	qsort(rapl->domains, rapl->nr, sizeof(*rapl->domains), compare_domains);
	rapl->readings = xcalloc(rapl->nr, sizeof(*rapl->readings));
	*out = rapl;
	rapl = NULL;
done:
	rapl_close(rapl);
	strbuf_release(&dir);
	return error;
}

void rapl_close(struct rapl *rapl)
{
	if (!rapl)
		return;
	for (size_t i = 0; i < rapl->nr; i++) {
		free(rapl->domains[i].name);
		free(rapl->domains[i].energy_path);
	}
	free(rapl->domains);
	free(rapl->readings);
	free(rapl);
}

static int read_all(struct rapl *rapl)
{
	for (size_t i = 0; i < rapl->nr; i++)
		if (sysfs_read_u64(rapl->domains[i].energy_path,
				   &rapl->readings[i]) < 0)
			return -1;
	return 0;
}

int rapl_begin(struct rapl *rapl)
{
	if (read_all(rapl) < 0)
		return -1;
	for (size_t i = 0; i < rapl->nr; i++)
		rapl->domains[i].last_uj = rapl->readings[i];
	return 0;
}

int rapl_advance(struct rapl *rapl, double *joules)
{
	uint64_t total_uj = 0;

	if (read_all(rapl) < 0)
		return -1;
	for (size_t i = 0; i < rapl->nr; i++) {
		struct rapl_domain *domain = &rapl->domains[i];
		uint64_t now = rapl->readings[i];

		if (now >= domain->last_uj)
			total_uj += now - domain->last_uj;
		else if (domain->range_uj > domain->last_uj)
			/* wrapped once: to the top of the range, then on */
			total_uj += domain->range_uj - domain->last_uj + now;
		domain->last_uj = now;
	}
	*joules += (double)total_uj / 1e6;
	return 0;
}
