/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/session.h"

#include "harness/util/alloc.h"
#include "harness/probe/devices.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/isotime.h"
#include "harness/git/gitinfo.h"
#include "harness/run/lock.h"
#include "harness/probe/machine.h"
#include "harness/util/process.h"
#include "harness/run/quiet.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct session_state {
	struct session_options opts;
	struct store_slot *slot;
	struct runner_options runner_opts;
	struct runner *runner;
	char *launcher;
	/* probed once, as the session is prepared: for the machine's
	 * description and for each case's device */
	struct devices *devices;
	struct machine_lock *lock; /* held from start to finish */
	struct quiet_watch *quiet; /* from start to finish */
	struct strbuf skip_reason;
};

static const char *skip_absent_device(const struct plan_case *pcase,
				      void *payload)
{
	struct session_state *state = payload;
	struct gpu_visible visible;

	strbuf_reset(&state->skip_reason);
	suite_gpu_visible(pcase->benchmark, &visible);
	if (devices_has(state->devices, pcase->device, &visible,
			&state->skip_reason))
		return NULL;
	return state->skip_reason.buf;
}

/* --require-devices, for hardware runners that must not silently skip:
 * the runner skips only through skip_absent_device(), so every skipped
 * case lacks its device and fails instead. */
static void fail_skipped_cases(struct result *result)
{
	for (size_t i = 0; i < result->cases_nr; i++) {
		struct result_case *rcase = &result->cases[i];
		struct strbuf reason = STRBUF_INIT;

		if (rcase->status != CASE_SKIPPED)
			continue;
		strbuf_addf(&reason, "%s (required by --require-devices)",
			    rcase->reason ? rcase->reason : "");
		free(rcase->reason);
		rcase->reason = strbuf_detach(&reason, NULL);
		rcase->status = CASE_FAILED;
	}
}

/* The command line's --runs auto turns adaptive sampling on for every
 * benchmark of the suite, with its own min/max/precision. */
static void apply_runs_auto(struct suite *suite)
{
	for (size_t i = 0; i < suite->benchmarks_nr; i++)
		suite->benchmarks[i].settings.runs_auto = true;
}

/* --runs auto for every benchmark; check's default for those whose suite
 * sets no "runs" (opts->auto_unless_set), unless --runs N. */
static void apply_sampling(struct suite *suite,
			   const struct session_options *opts)
{
	if (opts->runs_auto)
		apply_runs_auto(suite);
	else if (opts->auto_unless_set && opts->runs < 0)
		for (size_t i = 0; i < suite->benchmarks_nr; i++)
			if (!suite->benchmarks[i].settings.runs_given)
				suite->benchmarks[i].settings.runs_auto = true;
}

static int describe(struct result *result, const struct suite *suite,
		    const struct devices *devices)
{
	struct strbuf now = STRBUF_INIT;
	int error;

	result->suite = xstrdup(suite->name);
	memcpy(result->suite_sha256, suite->sha256, sizeof(suite->sha256));
	result->harness_version = xstrdup(BENCHGATE_VERSION);
	if (suite->reference)
		result->reference = xstrdup(suite->reference);
	suite_stamp_result(suite, result);
	if ((error = gitinfo_read(&result->git, NULL)) < 0 ||
	    (error = machine_describe_from(&result->machine, devices)) < 0)
		return error;
	iso8601_now(&now);
	result->started_at = strbuf_detach(&now, NULL);
	return BG_OK;
}

/*
 * benchgate-launch (launcher.h): $BENCHGATE_LAUNCHER, else found relative
 * to the running benchgate: ../libexec/benchgate/ in an installed tree,
 * beside it in the build tree; made absolute, as the runs start in the
 * suite's directory. None is an error naming where it looked: without it,
 * maxrss would silently include benchgate's own memory.
 */
static int find_launcher(char **out)
{
	static const char *const beside_self[] = {
		"../libexec/benchgate/benchgate-launch",
		"benchgate-launch",
	};
	const char *override = getenv("BENCHGATE_LAUNCHER");
	struct strbuf path = STRBUF_INIT, looked = STRBUF_INIT;
	char self[PATH_MAX], *slash;
	size_t dir_len = 0;
	ssize_t len;
	int error = BG_OK;

	*out = NULL;
	if (override && *override) {
		if (access(override, X_OK) == 0 &&
		    (*out = realpath(override, NULL)))
			goto done;
		error = bg_error("cannot use the launcher '%s' "
				 "($BENCHGATE_LAUNCHER): %s",
				 override, strerror(errno));
		goto done;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = '\0';
	if ((slash = strrchr(self, '/')))
		dir_len = (size_t)(slash - self) + 1;
	for (size_t i = 0; i < sizeof(beside_self) / sizeof(*beside_self);
	     i++) {
		strbuf_reset(&path);
		strbuf_add(&path, self, dir_len);
		strbuf_addstr(&path, beside_self[i]);
		if (access(path.buf, X_OK) == 0 &&
		    (*out = realpath(path.buf, NULL)))
			goto done;
		strbuf_addf(&looked, "%s'%s'", looked.len ? ", " : "",
			    path.buf);
	}
	error = bg_error("the launcher benchgate-launch, which measures "
			 "peak_rss without benchgate's own memory, is not "
			 "installed: looked for %s (or set "
			 "$BENCHGATE_LAUNCHER)",
			 looked.buf);
done:
	strbuf_release(&path);
	strbuf_release(&looked);
	return error;
}

/* The baseline twins' cases (plan_add_baseline()) leave the result for
 * session->baseline, so that the stored result is the candidate's alone. */
static int split_baseline(struct session *session)
{
	const struct plan *plan = session->plan;
	bool *take = xcalloc(plan->nr, sizeof(*take));
	int error;

	/* The runner adds one case per plan case, in plan order. */
	assert(session->result->cases_nr == plan->nr);
	for (size_t i = 0; i < plan->nr; i++)
		take[i] = plan->cases[i].baseline;
	error = result_split(session->result, take, &session->baseline);
	free(take);
	return error;
}

/*
 * Appends to out the place in `tree` of `path`, a file or directory of the
 * work tree `root` (both absolute, resolved): "<tree>/<path less root>".
 * BG_ENOTFOUND when path is not inside root.
 */
static int place_in_tree(struct strbuf *out, const char *root,
			 const char *path, const char *tree)
{
	size_t len = strlen(root);

	if (strncmp(path, root, len) || (path[len] && path[len] != '/'))
		return BG_ENOTFOUND;
	strbuf_addf(out, "%s%s", tree, path + len);
	return BG_OK;
}

/*
 * check --baseline-tree: the baseline side is the suite as it is in the
 * tree, found at the same place relative to the repository root as the
 * candidate's, and so is its build directory, so that the code the
 * benchmarks import, run or load comes from that side.
 */
static int plan_baseline_tree(struct session *session)
{
	const struct session_options *opts = &session->state->opts;
	const char *tree = opts->baseline_tree;
	struct strbuf found = STRBUF_INIT, suite_path = STRBUF_INIT;
	struct strbuf build_dir = STRBUF_INIT, why = STRBUF_INIT;
	char *root = NULL, *suite_file = NULL, *tree_dir = NULL;
	struct stat st;
	int error;

	if (stat(tree, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    !(tree_dir = realpath(tree, NULL))) {
		error = bg_input_error("--baseline-tree: '%s' is not a "
				       "directory",
				       tree);
		goto done;
	}
	if (opts->work_tree)
		strbuf_addstr(&found, opts->work_tree);
	if ((!opts->work_tree &&
	     gitinfo_repo_root(session->suite->dir, &found) < 0) ||
	    !(root = realpath(found.buf, NULL)) ||
	    !(suite_file = realpath(opts->suite_path, NULL)) ||
	    place_in_tree(&suite_path, root, suite_file, tree_dir) < 0) {
		bg_error_clear();
		error = bg_input_error("--baseline-tree: the suite '%s' is "
				       "not in a git work tree, so its place "
				       "in '%s' is unknown",
				       opts->suite_path, tree);
		goto done;
	}
	if (place_in_tree(&build_dir, root, session->plan->build_dir,
			  tree_dir) < 0) {
		error = bg_input_error("--baseline-tree: the build directory "
				       "'%s' is outside the work tree '%s', "
				       "so its place in '%s' is unknown; "
				       "build inside the work tree",
				       session->plan->build_dir, root, tree);
		goto done;
	}
	if ((error = suite_load(&session->baseline_suite, suite_path.buf)) <
	    0) {
		strbuf_addstr(&why, bg_error_last());
		error = bg_input_error("--baseline-tree: %s", why.buf);
		goto done;
	}
	apply_sampling(session->baseline_suite, opts);
	if (opts->baseline_commit)
		git_meta_copy(&session->baseline_git, opts->baseline_commit);
	else if ((error = gitinfo_read(&session->baseline_git, tree_dir)) < 0)
		goto done;
	plan_add_baseline(session->plan, session->baseline_suite, opts->filter,
			  build_dir.buf);
done:
	free(root);
	free(suite_file);
	free(tree_dir);
	strbuf_release(&found);
	strbuf_release(&suite_path);
	strbuf_release(&build_dir);
	strbuf_release(&why);
	return error;
}

int session_prepare(struct session **out, const struct session_options *opts)
{
	struct session *session = xcalloc(1, sizeof(*session));
	struct strbuf spec = STRBUF_INIT;
	int error;

	*out = session;
	session->state = xcalloc(1, sizeof(*session->state));
	session->state->opts = *opts;
	strbuf_init(&session->state->skip_reason, 0);
	strbuf_init(&session->result_path, 0);
	strbuf_init(&session->unstored, 0);
	strbuf_init(&session->artifact_dir, 0);
	session->result_dir = "";
	session->result = result_new();
	if ((error = suite_load(&session->suite, opts->suite_path)) < 0 ||
	    (error = plan_build(&session->plan, session->suite, opts->filter,
				opts->build_dir)) < 0)
		goto done;
	apply_sampling(session->suite, opts);
	if (opts->baseline_tree && (error = plan_baseline_tree(session)) < 0)
		goto done;
	if (opts->store_spec)
		strbuf_addstr(&spec, opts->store_spec);
	else
		store_default_spec(&spec, NULL);
	if ((error = store_open(&session->store, spec.buf)) < 0)
		goto done;
	devices_probe(&session->state->devices);
	error = describe(session->result, session->suite,
			 session->state->devices);
done:
	strbuf_release(&spec);
	return error;
}

int session_start(struct session *session)
{
	struct session_state *state = session->state;
	const struct session_options *opts = &state->opts;
	struct runner_options *runner = &state->runner_opts;
	struct store_slot *slot;
	struct strbuf now = STRBUF_INIT;
	int error;

	/* before waiting for the machine: a missing launcher is known now */
	if (runner_wants_launcher(session->plan) &&
	    (error = find_launcher(&state->launcher)) < 0)
		return error;
	if ((error = machine_lock_take(&state->lock, !opts->no_wait,
				       stderr)) < 0)
		return error;
	/* the measurement starts now, however long it waited */
	iso8601_now(&now);
	free(session->result->started_at);
	session->result->started_at = strbuf_detach(&now, NULL);
	state->quiet = quiet_begin();
	if ((error = store_reserve(session->store, session->result,
				   &state->slot)) < 0)
		return error;
	process_catch_interrupts(true);
	slot = state->slot;
	session->result_dir = slot->dir;
	*runner = (struct runner_options)RUNNER_OPTIONS_INIT;
	runner->log_dir = slot->log_dir;
	runner->log_base = slot->dir;
	runner->order = opts->sequential ? RUNNER_SEQUENTIAL
					 : RUNNER_INTERLEAVED;
	runner->warmup = opts->warmup;
	runner->runs = opts->runs_auto ? -1 : opts->runs;
	runner->progress = opts->progress;
	runner->sample_interval_s = opts->sample_interval_s;
	/* beside the result like its logs, so they move together */
	strbuf_addf(&session->artifact_dir, "%s/artifacts/%s", slot->dir,
		    slot->name);
	runner->artifact_dir = session->artifact_dir.buf;
	runner->profile = opts->profile;
	/* here, not in the runner: the flame graphs' caption asks it how
	 * the stacks were taken, after the runs */
	profiler_new(&session->profiler);
	runner->profiler = session->profiler;
	runner->skip = skip_absent_device;
	runner->payload = state;
	runner->launcher = state->launcher;
	return runner_new(&state->runner, session->result, session->plan,
			  runner);
}

/* After Ctrl-C: the runner's scratch, the lock, the slot and its logs
 * go, and nothing is stored. */
static int session_abandon(struct session *session)
{
	struct session_state *state = session->state;
	int sig = process_interrupted();

	runner_finish(state->runner);
	runner_free(state->runner);
	state->runner = NULL;
	quiet_watch_free(state->quiet);
	state->quiet = NULL;
	machine_lock_release(state->lock);
	state->lock = NULL;
	if (session->artifact_dir.len) {
		char *slash = strrchr(session->artifact_dir.buf, '/');

		remove_tree(session->artifact_dir.buf);
		/* artifacts/, when this run made it */
		if (slash) {
			*slash = '\0';
			rmdir(session->artifact_dir.buf);
			*slash = '/';
		}
	}
	store_slot_abandon(state->slot);
	state->slot = NULL;
	session->result_dir = NULL;
	process_catch_interrupts(false);
	return bg_error("interrupted by %s: the run stopped, nothing was "
			"stored, and the store is as it was",
			strsignal(sig));
}

int session_step(struct session *session, size_t *asking)
{
	if (process_interrupted())
		return session_abandon(session);
	return runner_step(session->state->runner, asking);
}

void session_stop_case(struct session *session, size_t index)
{
	runner_stop_case(session->state->runner, index);
}

int session_finish(struct session *session)
{
	struct session_state *state = session->state;
	struct strbuf now = STRBUF_INIT;
	int error;

	if (process_interrupted())
		return session_abandon(session);
	process_catch_interrupts(false);
	/* done with the runner: its temporary files go now */
	error = runner_finish(state->runner);
	runner_free(state->runner);
	state->runner = NULL;
	/* the window is the measurement, before the baseline's copy */
	quiet_end(state->quiet, &session->result->load);
	state->quiet = NULL;
	machine_lock_release(state->lock);
	state->lock = NULL;
	if (error < 0)
		return error;
	if (state->opts.require_devices)
		fail_skipped_cases(session->result);
	iso8601_now(&now);
	session->result->finished_at = strbuf_detach(&now, NULL);
	if (state->opts.baseline_tree &&
	    (error = split_baseline(session)) == BG_OK) {
		/* the tree's commit, not the candidate's */
		git_meta_release(&session->baseline->git);
		session->baseline->git = session->baseline_git;
		memset(&session->baseline_git, 0,
		       sizeof(session->baseline_git));
	}
	return error;
}

int session_store(struct session *session)
{
	int error = store_write(session->store, session->result,
				session->state->slot, &session->result_path);

	if (error < 0)
		strbuf_addf(&session->unstored,
			    "cannot store the result in '%s': %s\n",
			    store_location(session->store), bg_error_last());
	return error;
}

/* "<from>/<path>" when that is there, else NULL: the path of a file of a
 * result that leaves the directory its paths are relative to. */
static char *absolute_if_there(const char *path, const char *from)
{
	struct strbuf absolute = STRBUF_INIT;

	if (path[0] == '/')
		strbuf_addstr(&absolute, path);
	else
		strbuf_addf(&absolute, "%s/%s", from, path);
	if (access(absolute.buf, F_OK) == 0)
		return strbuf_detach(&absolute, NULL);
	strbuf_release(&absolute);
	return NULL;
}

/* The result's logs and artifacts made absolute, or dropped where their
 * file is gone; the number of logs left. */
static size_t detach_paths(struct result *result, const char *from)
{
	size_t logs = 0;

	for (size_t i = 0; i < result->cases_nr; i++) {
		struct result_case *rcase = &result->cases[i];
		size_t kept = 0;
		char *moved;

		if (rcase->log) {
			moved = absolute_if_there(rcase->log, from);
			free(rcase->log);
			rcase->log = moved;
			logs += moved != NULL;
		}
		for (size_t j = 0; j < rcase->artifacts_nr; j++) {
			struct result_artifact *artifact = &rcase->artifacts[j];

			moved = absolute_if_there(artifact->path, from);
			free(artifact->path);
			artifact->path = moved;
			if (!moved) {
				free(artifact->kind);
				continue;
			}
			rcase->artifacts[kept++] = *artifact;
		}
		rcase->artifacts_nr = kept;
	}
	return logs;
}

/* One place session_keep() tries: 0 when it took the result. */
static int keep_in(struct session *session, const char *path, const char *dir,
		   const struct strbuf *json, struct strbuf *refused)
{
	int error;

	strbuf_reset(&session->result_path);
	if (path) {
		error = write_file_atomic(path, json->buf, json->len);
		if (!error)
			strbuf_addstr(&session->result_path, path);
	} else {
		error = store_write_aside(session->result, dir,
					  &session->result_path);
	}
	if (error < 0)
		strbuf_addf(refused, "%s'%s' (%s)", refused->len ? ", " : "",
			    path ? path : dir, bg_error_last());
	return error;
}

int session_keep(struct session *session, const char *path)
{
	struct strbuf json = STRBUF_INIT, refused = STRBUF_INIT;
	const char *tmpdir = getenv("TMPDIR");
	char *cwd = getcwd(NULL, 0);
	size_t logs;
	int error;

	logs = detach_paths(session->result, session->result_dir);
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	result_to_json(session->result, &json);
	error = BG_ERROR;
	if (path)
		error = keep_in(session, path, NULL, &json, &refused);
	if (error < 0)
		error = keep_in(session, NULL, cwd ? cwd : ".", &json,
				&refused);
	if (error < 0 && (!cwd || strcmp(cwd, tmpdir)))
		error = keep_in(session, NULL, tmpdir, &json, &refused);
	if (error < 0) {
		error = bg_error("nor could the result be written to %s: "
				 "its measurements are lost",
				 refused.buf);
		strbuf_addf(&session->unstored, "%s\n", bg_error_last());
		goto done;
	}
	if (refused.len)
		strbuf_addf(&session->unstored, "nor could it go to %s\n",
			    refused.buf);
	strbuf_addf(&session->unstored,
		    "the result is in '%s' instead; 'benchgate merge %s "
		    "--store %s' stores it later\n",
		    session->result_path.buf, session->result_path.buf,
		    store_location(session->store));
	if (logs)
		strbuf_addf(&session->unstored, "its case logs are in '%s'\n",
			    session->state->slot->log_dir);
	else
		strbuf_addstr(&session->unstored,
			      "its case logs are gone, but each failed case's "
			      "reason in that file ends with the last lines "
			      "of its output\n");
done:
	free(cwd);
	strbuf_release(&json);
	strbuf_release(&refused);
	return error;
}

void session_free(struct session *session)
{
	struct session_state *state;

	if (!session)
		return;
	state = session->state;
	runner_free(state->runner);
	machine_lock_release(state->lock);
	quiet_watch_free(state->quiet);
	free(state->launcher);
	devices_free(state->devices);
	strbuf_release(&state->skip_reason);
	store_slot_free(state->slot);
	free(state);
	profiler_free(session->profiler);
	result_free(session->result);
	result_free(session->baseline);
	plan_free(session->plan);
	suite_free(session->baseline_suite);
	git_meta_release(&session->baseline_git);
	suite_free(session->suite);
	store_free(session->store);
	strbuf_release(&session->result_path);
	strbuf_release(&session->unstored);
	strbuf_release(&session->artifact_dir);
	free(session);
}

bool session_failed(const struct session *session)
{
	for (size_t i = 0; i < session->result->cases_nr; i++) {
		enum case_status status = session->result->cases[i].status;

		if (status == CASE_FAILED || status == CASE_TIMEOUT)
			return true;
	}
	return false;
}
