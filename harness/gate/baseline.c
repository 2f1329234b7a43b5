/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/baseline.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/git/gitref.h"
#include "harness/git/gitinfo.h"
#include "harness/git/repo.h"
#include "harness/gate/stats.h"
#include "harness/probe/machine.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void set_found(struct baseline *out, const char *source,
		      struct result *result, const char *path,
		      struct strbuf *note)
{
	out->result = result;
	out->source = xstrdup(source);
	out->path = xstrdup(path);
	out->note = strbuf_detach(note, NULL);
}

static void add_history(struct baseline *out, struct result *result)
{
	out->history = xrealloc(out->history,
				(out->history_nr + 1) * sizeof(*out->history));
	out->history[out->history_nr++] = result;
}

/* Whether any case of the result was measured: one whose every case failed
 * or was skipped has nothing to compare with, and as a baseline would make
 * every metric of the candidate "new", passing whatever it measured. */
static bool measured_anything(const struct result *r)
{
	for (size_t i = 0; i < r->cases_nr; i++)
		if (r->cases[i].status == CASE_OK)
			return true;
	return false;
}

/*
 * Walks first parents from `from`, newest first, looking for results of the
 * suite and machine that measured something (a run whose cases all failed
 * is passed over, with a warning). The first found becomes the baseline;
 * it and the later ones make the history.
 */
static int walk_first_parents(struct baseline *out, struct store *store,
			      git_repository *repo, const git_oid *from,
			      const struct baseline_request *req,
			      const char *source, const char *from_name)
{
	struct store_query query = { .machine = req->machine,
				     .suite = req->suite };
	git_revwalk *walk = NULL;
	size_t distance = 0;
	git_oid oid;
	int error = BG_OK;

	if (repo_walk_first_parents(&walk, repo, from) < 0) {
		error = bg_error("cannot walk history from %s: %s", from_name,
				 gitref_message());
		goto done;
	}
	while (distance < BASELINE_MAX_WALK &&
	       out->history_nr < BASELINE_HISTORY &&
	       git_revwalk_next(&oid, walk) == 0) {
		struct strbuf path = STRBUF_INIT;
		char hex[GIT_OID_HEXSZ + 1];
		struct result *found = NULL;

		git_oid_tostr(hex, sizeof(hex), &oid);
		query.commit = hex;
		if (store_latest(store, &query, &found, &path) == BG_OK &&
		    !measured_anything(found)) {
			bg_warn("%s: no case of it was measured; looking "
				"further back for a baseline",
				path.buf);
			result_free(found);
		} else if (found) {
			if (!out->result) {
				struct strbuf note = STRBUF_INIT;

				strbuf_addf(&note,
					    "%s at %.12s, %zu first-parent "
					    "commit%s below %s",
					    source, hex, distance,
					    distance == 1 ? "" : "s",
					    from_name);
				set_found(out, source, found, path.buf, &note);
			}
			add_history(out, found);
		}
		strbuf_release(&path);
		distance++;
	}
	/* A shallow clone simply ends the walk early: not an error. */
done:
	git_revwalk_free(walk);
	return error;
}

static int not_a_revision(const struct baseline_request *req)
{
	return bg_input_error("%s: '%s' is neither a result file nor a "
			      "revision of the repository",
			      req->spec_name ? req->spec_name : "--baseline",
			      req->spec);
}

/*
 * Where the baseline's history starts, into *start, and how it was found,
 * into from_name: for "auto" the merge base of HEAD and the target branch
 * (the target's tip when a shallow clone does not reach the fork point;
 * HEAD when there is no target branch), else the commit the revspec
 * names. BG_ENOTFOUND for an unborn HEAD; BG_EINPUT for a bad revspec.
 */
static int start_commit(git_repository *repo,
			const struct baseline_request *req, git_oid *start,
			struct strbuf *from_name)
{
	struct strbuf branch = STRBUF_INIT;
	git_object *target = NULL, *head = NULL, *object = NULL;
	int error = BG_OK;

	if (req->spec && strcmp(req->spec, "auto")) {
		if (git_revparse_single(&object, repo, req->spec) < 0 ||
		    git_object_peel(&head, object, GIT_OBJECT_COMMIT) < 0) {
			error = not_a_revision(req);
			goto done;
		}
		git_oid_cpy(start, git_object_id(head));
		strbuf_addstr(from_name, req->spec);
		goto done;
	}
	if (git_revparse_single(&head, repo, "HEAD") < 0) {
		error = BG_ENOTFOUND;
		goto done;
	}
	error = repo_default_branch(repo, req->branch, &target, &branch);
	if (error == BG_ENOTFOUND) {
		git_oid_cpy(start, git_object_id(head));
		strbuf_addstr(from_name, "HEAD");
		error = BG_OK;
	} else if (error == BG_OK &&
		   git_merge_base(start, repo, git_object_id(head),
				  git_object_id(target)) < 0) {
		git_oid_cpy(start, git_object_id(target));
		strbuf_addf(from_name, "%s (no merge base with HEAD)",
			    branch.buf);
	} else if (error == BG_OK) {
		strbuf_addf(from_name, "the merge base with %s", branch.buf);
	}
done:
	git_object_free(object);
	git_object_free(head);
	git_object_free(target);
	strbuf_release(&branch);
	return error;
}

static int resolve_history(struct baseline *out, struct store *store,
			   git_repository *repo,
			   const struct baseline_request *req)
{
	struct strbuf from_name = STRBUF_INIT;
	bool automatic = !req->spec || !strcmp(req->spec, "auto");
	git_oid start;
	int error;

	if (!repo)
		return automatic ? BG_OK : not_a_revision(req);
	error = start_commit(repo, req, &start, &from_name);
	if (error == BG_OK && store)
		error = walk_first_parents(out, store, repo, &start, req,
					   automatic ? "auto" : "ref",
					   from_name.buf);
	else if (error == BG_ENOTFOUND)
		error = BG_OK; /* unborn: nothing to walk */
	strbuf_release(&from_name);
	return error;
}

static int resolve_committed(struct baseline *out, const char *root,
			     const struct baseline_request *req)
{
	struct strbuf path = STRBUF_INIT, note = STRBUF_INIT;
	struct result *result = NULL;
	struct stat st;
	int error = BG_OK;

	strbuf_addf(&path, "%s/baselines/%s/%s.json", root, req->suite,
		    req->machine);
	if (stat(path.buf, &st) == 0) {
		if ((error = result_load(&result, path.buf)) == BG_OK) {
			strbuf_addf(&note, "committed baseline %s", path.buf);
			set_found(out, "baselines", result, path.buf, &note);
		}
	}
	strbuf_release(&path);
	strbuf_release(&note);
	return error;
}

int baseline_resolve(struct baseline *out, struct store *store,
		     const struct baseline_request *req)
{
	const char *spec = req->spec ? req->spec : "auto";
	const char *start = req->start_dir ? req->start_dir : ".";
	struct strbuf root = STRBUF_INIT;
	git_repository *repo = NULL;
	struct stat st;
	int error = BG_OK;

	memset(out, 0, sizeof(*out));
	repo_libgit2_init();
	if (strcmp(spec, "auto") && stat(spec, &st) == 0 &&
	    S_ISREG(st.st_mode)) {
		struct strbuf note = STRBUF_INIT;
		struct result *result = NULL;

		if ((error = result_load(&result, spec)) < 0)
			return error;
		strbuf_addf(&note, "file %s", spec);
		set_found(out, "file", result, spec, &note);
		return BG_OK;
	}
	if (repo_open(&repo, start) < 0)
		repo = NULL;
	error = resolve_history(out, store, repo, req);
	if (error < 0 || out->result)
		goto done;
	if (gitinfo_repo_root(start, &root) < 0) {
		strbuf_reset(&root);
		strbuf_addstr(&root, start);
	}
	while (root.len > 1 && root.buf[root.len - 1] == '/')
		strbuf_setlen(&root, root.len - 1);
	if ((error = resolve_committed(out, root.buf, req)) < 0 || out->result)
		goto done;
	out->source = xstrdup("none");
	out->note = xstrdup(repo ? "no result for this suite and machine on "
				   "the target branch's history, and no "
				   "committed baseline"
				 : "not in a git repository and no committed "
				   "baseline");
done:
	git_repository_free(repo);
	strbuf_release(&root);
	return error;
}

int baseline_resolve_side(struct baseline *out, struct store *store,
			  const char *spec, const char *spec_name,
			  const char *suite)
{
	struct machine_info machine = { 0 };
	struct baseline_request req = { .spec = spec,
					.suite = suite,
					.spec_name = spec_name };
	struct stat st;
	bool exists = stat(spec, &st) == 0;
	int error;

	memset(out, 0, sizeof(*out));
	if (!exists && !suite)
		return bg_input_error("compare: %s '%s' is not a file; give "
				      "--suite to look a revision up in the "
				      "store",
				      spec_name, spec);
	/* A file says where it was measured; only a revision is looked up
	 * by this machine, whose id takes probing its accelerators. */
	if (!exists || !S_ISREG(st.st_mode) || !strcmp(spec, "auto")) {
		if ((error = machine_describe(&machine)) < 0)
			return error;
		req.machine = machine.id;
	}
	error = baseline_resolve(out, store, &req);
	if (!error && (!out->result || (strcmp(out->source, "ref") &&
					strcmp(out->source, "file"))))
		error = bg_input_error("compare: %s: no stored result of suite "
				       "'%s' for this machine at or below '%s'",
				       spec_name, suite ? suite : "?", spec);
	machine_info_release(&machine);
	return error;
}

void baseline_release(struct baseline *baseline)
{
	bool result_in_history = false;

	for (size_t i = 0; i < baseline->history_nr; i++) {
		result_in_history |= baseline->history[i] == baseline->result;
		result_free(baseline->history[i]);
	}
	if (!result_in_history)
		result_free(baseline->result);
	free(baseline->history);
	free(baseline->source);
	free(baseline->path);
	free(baseline->note);
	memset(baseline, 0, sizeof(*baseline));
}

double baseline_noise(const char *benchmark, const char *variant,
		      const char *device, const char *metric, void *payload)
{
	const struct baseline *baseline = payload;
	double medians[BASELINE_HISTORY];
	size_t n = 0;

	for (size_t i = 0; i < baseline->history_nr && n < BASELINE_HISTORY;
	     i++) {
		const struct result_case *c = result_find_case(
			baseline->history[i], benchmark, variant, device);
		const struct metric_samples *m =
			c && c->status == CASE_OK
				? result_case_find_metric(c, metric)
				: NULL;

		if (m && m->nr)
			medians[n++] = stats_median(m->samples, m->nr);
	}
	return n >= 5 ? stats_robust_cv(medians, n) : 0;
}

int baseline_save(const char *result_path, const char *to,
		  const char *start_dir, bool force, struct strbuf *path_out)
{
	struct strbuf text = STRBUF_INIT, dest = STRBUF_INIT;
	struct result *result = NULL;
	struct stat st;
	char *slash;
	int error;

	if ((error = strbuf_read_file(&text, result_path)) < 0 ||
	    (error = result_parse(&result, text.buf, text.len, result_path)) <
		    0)
		goto done;
	if (to) {
		strbuf_addstr(&dest, to);
	} else {
		if (gitinfo_repo_root(start_dir ? start_dir : ".", &dest) < 0) {
			strbuf_reset(&dest);
			strbuf_addstr(&dest, start_dir ? start_dir : ".");
		}
		while (dest.len > 1 && dest.buf[dest.len - 1] == '/')
			strbuf_setlen(&dest, dest.len - 1);
		strbuf_addf(&dest, "/baselines/%s/%s.json", result->suite,
			    result->machine.id);
	}
	if (!force && stat(dest.buf, &st) == 0) {
		error = bg_input_error("'%s' already exists; pass --force to "
				       "replace this baseline",
				       dest.buf);
		goto done;
	}
	if ((slash = strrchr(dest.buf, '/')) && slash != dest.buf) {
		*slash = '\0';
		error = mkdir_p(dest.buf);
		*slash = '/';
		if (error < 0)
			goto done;
	}
	if ((error = write_file_atomic(dest.buf, text.buf, text.len)) ==
		    BG_OK &&
	    path_out)
		strbuf_addstr(path_out, dest.buf);
done:
	result_free(result);
	strbuf_release(&text);
	strbuf_release(&dest);
	return error;
}
