/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SESSION_H
#define BENCHGATE_SESSION_H

#include "harness/suite/plan.h"
#include "harness/run/profile.h"
#include "harness/model/result.h"
#include "harness/run/runner.h"
#include "harness/store/store.h"
#include "harness/suite/suite.h"

#include <stdbool.h>

/*
 * One `benchgate run`, from the suite file to the stored result, in steps
 * that the caller drives, so that each layer above does its part between
 * two of them without the session calling up to it:
 *
 *     session_prepare()   load and plan the suite, describe the commit and
 *                         the machine, open the store: nothing runs, and
 *                         nothing is written (check resolves its baseline
 *                         here, so the new result cannot be its own)
 *     session_start()     take the machine lock (lock.h; held until
 *                         session_finish()), record how quiet the machine
 *                         is (quiet.h), claim the result's place in the
 *                         store (the logs land beside it while it runs),
 *                         set up the runner
 *     session_step()      one run at a time; an adaptive case asks whether
 *                         it has enough samples (the gate answers, check.h)
 *     session_finish()    the runs outside the measurement, the end time;
 *                         the result is complete but not stored (the
 *                         use case draws the flame graphs here)
 *     session_store()     store it; or, when the store refuses it,
 *     session_keep()      write it where it can be, so that measurements
 *                         that took minutes are never thrown away
 *
 * `run` and `check` both go through here (check.h: check_measure()).
 */

struct session_options {
	const char *suite_path;
	const struct plan_filter *filter;
	const char *build_dir;
	const char *store_spec; /* NULL: store_default_spec() */
	int runs;		/* -1: the suite's */
	bool runs_auto;		/* --runs auto */
	/* check: a benchmark whose suite sets no "runs" (in "defaults" or
	 * its own settings) samples adaptively ("runs": "auto") unless
	 * --runs N is given. */
	bool auto_unless_set;
	int warmup;		/* -1: the suite's */
	bool sequential;
	bool progress;
	/* --require-devices: a case whose device is absent fails instead
	 * of being skipped. */
	bool require_devices;
	/* Seconds between readings of the sampled sources (sampler.h);
	 * 0: SAMPLER_INTERVAL_DEFAULT. */
	double sample_interval_s;
	/* --profile: a profiling run per case (profile.h) */
	bool profile;
	/* --no-wait: session_start() fails when another process holds the
	 * machine lock (lock.h) instead of waiting for it. */
	bool no_wait;
	/* check --baseline-tree: a work tree of the baseline commit with
	 * its build. Every case also runs as the suite file at the same
	 * place in that tree says (the same path relative to the
	 * repository root as suite_path), in that suite's directory, with
	 * the build directory at the same place in that tree as build_dir
	 * (plan_add_baseline()); those cases end up in session->baseline,
	 * not in the stored result. NULL: none. */
	const char *baseline_tree;
	/* The commit baseline_tree holds when it is no work tree of its
	 * own (check --against checks it out without a .git); NULL: the
	 * commit is read from the tree. */
	const struct git_meta *baseline_commit;
	/* The root of the work tree the suite is in, for one that has no
	 * .git (bisect's checkouts, checkout.h): where the baseline tree's
	 * suite and build directory are found from. NULL: git finds it. */
	const char *work_tree;
};

struct session {
	struct suite *suite;
	struct plan *plan;
	struct store *store;
	struct result *result;
	/* The baseline tree's cases, measured in this session with the
	 * same metadata but the tree's commit (opts.baseline_tree), split
	 * off the result by session_finish(); NULL without one. */
	struct result *baseline;
	/* The baseline tree's suite and the commit checked out there
	 * (commit "unknown" outside a repository), set by
	 * session_prepare(); NULL and empty without a tree. */
	struct suite *baseline_suite;
	struct git_meta baseline_git;
	/* The directory the result's relative log and artifact paths are
	 * relative to: the one the result file goes into (session_start()
	 * claims it; "" before). */
	const char *result_dir;
	/* Where the result was stored, or kept by session_keep() when the
	 * store refused it; "" before, or when it is nowhere. */
	struct strbuf result_path;
	/* Why the result is not in the store, for the user: the store's
	 * error (session_store()), then where session_keep() put it
	 * instead and where its logs are, one sentence a line; "" while
	 * nothing went wrong. */
	struct strbuf unstored;
	/* "<result dir>/artifacts/<result name>": profiles and callgrind
	 * output, one directory per case, when any case left some. */
	struct strbuf artifact_dir;
	/* What the profiling runs recorded with: the flame graphs' caption
	 * (profiler_describe_perf()). Set by session_start(). */
	struct profiler *profiler;

	struct session_state *state; /* the steps' own (session.c) */
};

/*
 * Loads and plans the suite (with the baseline tree's twins), opens the
 * store and describes the commit and the machine into session->result,
 * into *out (free with session_free(), also after an error: what was built
 * so far is there). Nothing runs and nothing is written. opts and what it
 * points to are borrowed until session_free(). BG_EINPUT for bad suites
 * and options (a baseline tree that is no directory, a suite outside any
 * git work tree or a build directory outside the suite's work tree, so
 * that their places in the tree are unknown, the tree's suite missing or
 * bad), BG_ERROR when the harness cannot run.
 */
int session_prepare(struct session **out, const struct session_options *opts);

/*
 * Takes the machine lock, waiting for it unless opts.no_wait, records the
 * start time and the machine's load (result->load), claims the result's
 * place in the store and sets up the runner (runner.h: runner_new()), the
 * profiler and the launcher; runs nothing. Errors of machine_lock_take()
 * (BG_EINPUT when the lock is held and opts.no_wait), store_reserve() and
 * runner_new().
 */
int session_start(struct session *session);

/*
 * The next run: runner_step() of the session's runner, whose *asking index
 * is also the case's place in session->plan->cases and, until
 * session_finish(), in session->result->cases. A case whose device is
 * absent was skipped (or, with require_devices, will be failed).
 */
int session_step(struct session *session, size_t *asking);

/* The case at index has enough samples (runner_stop_case()). */
void session_stop_case(struct session *session, size_t index);

/*
 * Once session_step() returned 0: the callgrind and profiling runs, the
 * machine lock released, the --require-devices failures, the result's end
 * time, and the baseline twins' cases moved from the result into
 * session->baseline, which takes session->baseline_git. The result is
 * then complete, not yet stored.
 */
int session_finish(struct session *session);

/*
 * Stores the result in the place session_start() claimed, its path into
 * session->result_path. Errors of store_write(), whose message also goes
 * into session->unstored; the result is then still whole in
 * session->result, for session_keep().
 */
int session_store(struct session *session);

/*
 * For a result session_store() could not store: writes it to the first
 * place that takes it, so that the measurements survive a full disk or a
 * store that broke during the run, puts the file's path into
 * session->result_path and says in session->unstored where it is:
 *
 *   1. `path` when not NULL (run --json), replaced atomically;
 *   2. the current directory, as a new file "benchgate-unstored-<suite>-
 *      <timestamp>[-N].json" (store_write_aside()), where a CI job's
 *      artifacts are collected from;
 *   3. the same in $TMPDIR, or /tmp when it is unset.
 *
 * The file is a result like a stored one (`benchgate merge FILE --store
 * S` stores it later), except that its log and artifact paths are made
 * absolute, or dropped where the store removed the file: a git store
 * removes a failed write's scratch, logs included. A failed case's reason
 * ends with the last lines of its output (runner.h), so those stay in
 * the result either way; session->unstored says which is the case.
 * BG_ERROR when no place took it, the message naming each place and why;
 * the measurements are then lost.
 */
int session_keep(struct session *session, const char *path);

void session_free(struct session *session);

/* Whether any case failed or timed out. */
bool session_failed(const struct session *session);

#endif
