#include "harness/shards.h"

#include "harness/alloc.h"
#include "harness/error.h"
#include "harness/strbuf.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds since the epoch of an ISO 8601 time with 'Z' or an offset;
 * false when it is not one. Results may come from imports with offsets,
 * so the strings themselves do not order. */
static bool iso_seconds(const char *iso, double *out)
{
	int year, month, day, hour, minute, second, consumed = 0;
	const char *rest;
	double fraction = 0;
	long offset = 0;
	struct tm tm;

	if (!iso || sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month,
			   &day, &hour, &minute, &second, &consumed) != 6 ||
	    !consumed)
		return false;
	rest = iso + consumed;
	if (*rest == '.') {
		char *end;

		fraction = strtod(rest, &end);
		rest = end;
	}
	if (*rest == '+' || *rest == '-') {
		int zone_hours = 0, zone_minutes = 0;

		if (sscanf(rest + 1, "%2d:%2d", &zone_hours, &zone_minutes) != 2 &&
		    sscanf(rest + 1, "%2d%2d", &zone_hours, &zone_minutes) != 2)
			return false;
		offset = (zone_hours * 60L + zone_minutes) * 60;
		if (*rest == '-')
			offset = -offset;
	} else if (*rest != 'Z') {
		return false;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year - 1900;
	tm.tm_mon = month - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = minute;
	tm.tm_sec = second;
	*out = (double)(timegm(&tm) - offset) + fraction;
	return true;
}

/* Replaces *time with candidate when candidate is earlier (later when
 * `latest`); a time that does not parse never wins over one that does. */
static void keep_extreme(char **time, const char *candidate, bool latest)
{
	double current, other;

	if (!candidate || !iso_seconds(candidate, &other))
		return;
	if (*time && iso_seconds(*time, &current) &&
	    (latest ? other <= current : other >= current))
		return;
	free(*time);
	*time = xstrdup(candidate);
}

static int mismatch(const char *what, const char *first_path,
		    const char *first, const char *path, const char *value)
{
	return bg_input_error("'%s' has %s '%s' but '%s' has '%s': shards of "
			      "one run share the suite, its sha256, the "
			      "commit and the machine", path, what, value,
			      first_path, first);
}

static int check_same_run(const struct result *first, const char *first_path,
			  const struct result *r, const char *path)
{
	if (strcmp(first->suite, r->suite))
		return mismatch("suite", first_path, first->suite, path,
				r->suite);
	if (strcmp(first->suite_sha256, r->suite_sha256))
		return mismatch("suite_sha256", first_path,
				first->suite_sha256, path, r->suite_sha256);
	if (strcmp(first->git.commit, r->git.commit))
		return mismatch("commit", first_path, first->git.commit, path,
				r->git.commit);
	if (strcmp(first->machine.id, r->machine.id))
		return mismatch("machine", first_path, first->machine.id, path,
				r->machine.id);
	return BG_OK;
}

/* The absolute directory of a file, or false when it cannot be known. */
static bool directory_of(const char *path, struct strbuf *out)
{
	const char *slash = strrchr(path, '/');
	char resolved[PATH_MAX];
	struct strbuf dir = STRBUF_INIT;
	bool ok;

	if (slash == path)
		strbuf_addch(&dir, '/');
	else if (slash)
		strbuf_add(&dir, path, (size_t)(slash - path));
	else
		strbuf_addch(&dir, '.');
	ok = realpath(dir.buf, resolved) != NULL;
	if (ok)
		strbuf_addstr(out, resolved);
	strbuf_release(&dir);
	return ok;
}

static void rebase_logs(struct result *r, const char *path,
			const char *out_dir)
{
	struct strbuf from = STRBUF_INIT, absolute = STRBUF_INIT;
	char to[PATH_MAX];

	if (!realpath(out_dir, to) || !directory_of(path, &from) ||
	    !strcmp(from.buf, to))
		goto done;
	for (size_t i = 0; i < r->cases_nr; i++) {
		char *log = r->cases[i].log;

		if (!log || log[0] == '/')
			continue;
		strbuf_reset(&absolute);
		strbuf_addf(&absolute, "%s/%s", from.buf, log);
		/* A log that is not there (a copy made with `run --json`,
		 * whose logs are beside the stored result) is left as is. */
		if (access(absolute.buf, F_OK) < 0)
			continue;
		free(log);
		r->cases[i].log = strbuf_detach(&absolute, NULL);
	}
done:
	strbuf_release(&from);
	strbuf_release(&absolute);
}

/* Moves the cases of `from` to the end of `into`, refusing a duplicate. */
static int take_cases(struct result *into, const char *const *owners,
		      struct result *from, const char *path)
{
	for (size_t i = 0; i < from->cases_nr; i++) {
		struct result_case *c = &from->cases[i];

		for (size_t j = 0; j < into->cases_nr; j++) {
			const struct result_case *seen = &into->cases[j];

			if (!strcmp(seen->benchmark, c->benchmark) &&
			    !strcmp(seen->variant, c->variant) &&
			    !strcmp(seen->device, c->device))
				return bg_input_error(
					"case '%s/%s/%s' is in both '%s' and "
					"'%s': shards do not overlap",
					c->benchmark, c->variant, c->device,
					owners[j], path);
		}
	}
	for (size_t i = 0; i < from->cases_nr; i++) {
		ALLOC_GROW(into->cases, into->cases_nr + 1, into->cases_alloc);
		into->cases[into->cases_nr++] = from->cases[i];
	}
	/* The strings now belong to `into`. */
	from->cases_nr = 0;
	return BG_OK;
}

int shards_merge(struct result **out, const char *const *paths, size_t nr,
		 const char *out_dir)
{
	struct result *merged = NULL, *shard = NULL;
	const char **owners = NULL;
	size_t owners_alloc = 0;
	int error = BG_OK;

	*out = NULL;
	for (size_t i = 0; i < nr; i++) {
		size_t before;

		if ((error = result_load(&shard, paths[i])) < 0)
			goto done;
		if (out_dir)
			rebase_logs(shard, paths[i], out_dir);
		if (!merged) {
			merged = shard;
			shard = NULL;
			ALLOC_GROW(owners, merged->cases_nr, owners_alloc);
			for (size_t j = 0; j < merged->cases_nr; j++)
				owners[j] = paths[0];
			continue;
		}
		if ((error = check_same_run(merged, paths[0], shard,
					    paths[i])) < 0)
			goto done;
		before = merged->cases_nr;
		if ((error = take_cases(merged, owners, shard, paths[i])) < 0)
			goto done;
		ALLOC_GROW(owners, merged->cases_nr, owners_alloc);
		for (size_t j = before; j < merged->cases_nr; j++)
			owners[j] = paths[i];
		keep_extreme(&merged->started_at, shard->started_at, false);
		keep_extreme(&merged->finished_at, shard->finished_at, true);
		merged->git.dirty = merged->git.dirty || shard->git.dirty;
		result_free(shard);
		shard = NULL;
	}
	*out = merged;
	merged = NULL;
done:
	result_free(shard);
	result_free(merged);
	free(owners);
	return error;
}
