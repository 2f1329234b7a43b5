/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/store/shards.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/isotime.h"
#include "harness/util/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Replaces *time with candidate when candidate is earlier (later when
 * `latest`); a time that does not parse never wins over one that does. */
static void keep_extreme(char **time, const char *candidate, bool latest)
{
	double current, other;

	if (!iso8601_parse(candidate, &other))
		return;
	if (*time && iso8601_parse(*time, &current) &&
	    (latest ? other <= current : other >= current))
		return;
	free(*time);
	*time = xstrdup(candidate);
}

static int mismatch(const char *what, const char *first_path, const char *first,
		    const char *path, const char *value)
{
	return bg_input_error("'%s' has %s '%s' but '%s' has '%s': shards of "
			      "one run share the suite, its sha256, the "
			      "commit and the machine",
			      path, what, value, first_path, first);
}

static int check_same_run(const struct result *first, const char *first_path,
			  const struct result *r, const char *path)
{
	if (strcmp(first->suite, r->suite))
		return mismatch("suite", first_path, first->suite, path,
				r->suite);
	if (strcmp(first->suite_sha256, r->suite_sha256))
		return mismatch("suite_sha256", first_path, first->suite_sha256,
				path, r->suite_sha256);
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

/* Files a shard names that are not beside it: counted per shard, so that
 * one warning says what is lost. */
struct missing_files {
	const char *shard;
	size_t nr;
	char *first;
};

static void missing_add(struct missing_files *missing, const char *path)
{
	if (!missing->nr++)
		missing->first = xstrdup(path);
}

static void missing_report(struct missing_files *missing)
{
	if (missing->nr)
		bg_warn("merge: %zu log%s or artifact%s named by '%s' (first "
			"'%s') %s not beside it: not carried, the merged "
			"result's path%s to %s point%s at nothing (merge the "
			"stored shard files, not `run --json` copies)",
			missing->nr, missing->nr == 1 ? "" : "s",
			missing->nr == 1 ? "" : "s", missing->shard,
			missing->first, missing->nr == 1 ? "is" : "are",
			missing->nr == 1 ? "" : "s",
			missing->nr == 1 ? "it" : "them",
			missing->nr == 1 ? "s" : "");
	free(missing->first);
	memset(missing, 0, sizeof(*missing));
}

/* A relative path of a shard's case made absolute, when it is there. */
static void rebase_path(char **path, const char *from,
			struct missing_files *missing)
{
	struct strbuf absolute = STRBUF_INIT;

	if (!*path || (*path)[0] == '/')
		return;
	strbuf_addf(&absolute, "%s/%s", from, *path);
	if (access(absolute.buf, F_OK) < 0) {
		missing_add(missing, *path);
		strbuf_release(&absolute);
		return;
	}
	free(*path);
	*path = strbuf_detach(&absolute, NULL);
}

static void rebase_files(struct result *r, const char *path,
			 const char *out_dir)
{
	struct missing_files missing = { path, 0, NULL };
	struct strbuf from = STRBUF_INIT;
	char to[PATH_MAX];

	if (!realpath(out_dir, to) || !directory_of(path, &from) ||
	    !strcmp(from.buf, to))
		goto done;
	for (size_t i = 0; i < r->cases_nr; i++) {
		struct result_case *rcase = &r->cases[i];

		rebase_path(&rcase->log, from.buf, &missing);
		for (size_t j = 0; j < rcase->artifacts_nr; j++)
			rebase_path(&rcase->artifacts[j].path, from.buf,
				    &missing);
	}
done:
	missing_report(&missing);
	strbuf_release(&from);
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

/* The merge of shards_merge_into(), into *out (free with result_free());
 * with out_dir, relative paths rebased to resolve from there. With
 * origins, *origins receives for each case of *out the path of its shard
 * (borrowed from paths; free() the array). */
static int shards_merge(struct result **out, const char *const *paths,
			size_t nr, const char *out_dir, const char ***origins)
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
			rebase_files(shard, paths[i], out_dir);
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
	if (origins) {
		*origins = owners;
		owners = NULL;
	}
done:
	result_free(shard);
	result_free(merged);
	free(owners);
	return error;
}

/*
 * Copies the file or directory tree src to dst. What dst already holds is
 * kept: artifacts nest (a profile run's directory is listed after the
 * files in it), so an existing file in a fresh slot is one copied already.
 */
static int copy_tree(const char *src, const char *dst)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	char buf[65536];
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int in = -1, out = -1, error = BG_OK;
	ssize_t got;

	if (lstat(src, &st) < 0) {
		error = bg_error("cannot read '%s': %s", src, strerror(errno));
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		if ((mkdir(dst, 0777) < 0 && errno != EEXIST) ||
		    !(d = opendir(src))) {
			error = bg_error("cannot copy '%s' to '%s': %s", src,
					 dst, strerror(errno));
			goto done;
		}
		while (!error && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			strbuf_reset(&from);
			strbuf_reset(&to);
			strbuf_addf(&from, "%s/%s", src, de->d_name);
			strbuf_addf(&to, "%s/%s", dst, de->d_name);
			error = copy_tree(from.buf, to.buf);
		}
		goto done;
	}
	if (!S_ISREG(st.st_mode))
		goto done; /* links and devices are nobody's results */
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		   st.st_mode & 0777);
	if (out < 0 && errno == EEXIST)
		goto done;
	if (out < 0 || (in = open(src, O_RDONLY | O_CLOEXEC)) < 0) {
		error = bg_error("cannot copy '%s' to '%s': %s", src, dst,
				 strerror(errno));
		goto done;
	}
	while ((got = read(in, buf, sizeof(buf))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || write_in_full(out, buf, (size_t)got) < 0) {
			error = bg_error("cannot copy '%s' to '%s': %s", src,
					 dst, strerror(errno));
			goto done;
		}
	}
done:
	if (d)
		closedir(d);
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !error)
		error = bg_error("cannot write '%s': %s", dst, strerror(errno));
	/* never a half-copied file left behind as if it were the shard's */
	if (out >= 0 && error)
		unlink(dst);
	strbuf_release(&from);
	strbuf_release(&to);
	return error;
}

/*
 * Copies the file at `*path`, relative to the shard directory `from`, to
 * "<area>/<slot name>/<rest>" beside the slot, where rest is the path
 * without its "<area>/<shard's name>/", and points *path there.
 */
static int carry_path(char **path, const char *area, const char *from,
		      const struct store_slot *slot,
		      struct missing_files *missing)
{
	struct strbuf src = STRBUF_INIT, rel = STRBUF_INIT;
	struct strbuf dst = STRBUF_INIT;
	size_t area_len = strlen(area);
	const char *rest = *path, *slash;
	int error = BG_OK;

	if (!*path || (*path)[0] == '/')
		return BG_OK; /* absolute: resolves from anywhere */
	strbuf_addf(&src, "%s/%s", from, *path);
	if (access(src.buf, F_OK) < 0) {
		missing_add(missing, *path);
		goto done;
	}
	if (!strncmp(rest, area, area_len) && rest[area_len] == '/' &&
	    (slash = strchr(rest + area_len + 1, '/')))
		rest = slash + 1;
	strbuf_addf(&rel, "%s/%s/%s", area, slot->name, rest);
	strbuf_addf(&dst, "%s/%s", slot->dir, rel.buf);
	strbuf_setlen(&dst, (size_t)(strrchr(dst.buf, '/') - dst.buf));
	if ((error = mkdir_p(dst.buf)) < 0)
		goto done;
	strbuf_reset(&dst);
	strbuf_addf(&dst, "%s/%s", slot->dir, rel.buf);
	if ((error = copy_tree(src.buf, dst.buf)) < 0)
		goto done;
	free(*path);
	*path = strbuf_detach(&rel, NULL);
done:
	strbuf_release(&src);
	strbuf_release(&rel);
	strbuf_release(&dst);
	return error;
}

/* The copy of shards_merge_into(): the files that the cases of merged
 * (from shards_merge() with out_dir NULL) name, origins from that call,
 * into slot, reserved for merged in the store it will be written to. */
static int shards_carry_files(struct result *merged, const char *const *origins,
			      const struct store_slot *slot)
{
	struct missing_files missing = { NULL, 0, NULL };
	struct strbuf from = STRBUF_INIT;
	int error = BG_OK;

	for (size_t i = 0; i < merged->cases_nr && !error; i++) {
		struct result_case *rcase = &merged->cases[i];

		/* Cases come in runs of one shard (shards_merge()). */
		if (missing.shard != origins[i]) {
			missing_report(&missing);
			missing.shard = origins[i];
			strbuf_reset(&from);
			if (!directory_of(origins[i], &from)) {
				error = bg_error("cannot find the directory "
						 "of '%s': %s",
						 origins[i], strerror(errno));
				break;
			}
		}
		error = carry_path(&rcase->log, "logs", from.buf, slot,
				   &missing);
		for (size_t j = 0; j < rcase->artifacts_nr && !error; j++)
			error = carry_path(&rcase->artifacts[j].path,
					   "artifacts", from.buf, slot,
					   &missing);
	}
	missing_report(&missing);
	strbuf_release(&from);
	return error;
}

/* The directory of a file's path, for rebasing: "." for a bare name. */
static void parent_of(const char *path, struct strbuf *out)
{
	const char *slash = strrchr(path, '/');

	if (slash == path)
		strbuf_addch(out, '/');
	else if (slash)
		strbuf_add(out, path, (size_t)(slash - path));
	else
		strbuf_addch(out, '.');
}

int shards_merge_into(const char *const *paths, size_t nr, const char *out_file,
		      const char *store_spec, struct strbuf *where,
		      size_t *cases_nr)
{
	struct strbuf out_dir = STRBUF_INIT, text = STRBUF_INIT;
	struct store *store = NULL;
	struct store_slot *slot = NULL;
	struct result *merged = NULL;
	const char **origins = NULL;
	int error;

	if (out_file)
		parent_of(out_file, &out_dir);
	if ((error = shards_merge(&merged, paths, nr,
				  out_file ? out_dir.buf : NULL, &origins)) < 0)
		goto done;
	*cases_nr = merged->cases_nr;
	if (out_file) {
		if ((error = result_to_json_checked(merged, &text,
						    out_file)) == BG_OK &&
		    (error = write_file_atomic(out_file, text.buf, text.len)) ==
			    BG_OK)
			strbuf_addstr(where, out_file);
		goto done;
	}
	if (store_spec)
		strbuf_addstr(&text, store_spec);
	else
		store_default_spec(&text, NULL);
	/* a slot, so that the shards' files go in beside the result */
	if ((error = store_open(&store, text.buf)) < 0 ||
	    (error = store_reserve(store, merged, &slot)) < 0 ||
	    (error = shards_carry_files(merged, origins, slot)) < 0)
		goto done;
	error = store_write(store, merged, slot, where);
done:
	result_free(merged);
	free(origins);
	store_slot_free(slot);
	store_free(store);
	strbuf_release(&out_dir);
	strbuf_release(&text);
	return error;
}
