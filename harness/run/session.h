#ifndef BENCHGATE_SESSION_H
#define BENCHGATE_SESSION_H

#include "harness/run/plan.h"
#include "harness/run/profile.h"
#include "harness/store/result.h"
#include "harness/run/runner.h"
#include "harness/store/store.h"
#include "harness/run/suite.h"

#include <stdbool.h>

/*
 * One `benchgate run`, from the suite file to the stored result: load and
 * plan the suite, describe the commit and the machine, claim a place in the
 * store (so logs land beside the result while it runs), run, and store.
 * `run` and `check` both go through here.
 */

struct session_options {
	const char *suite_path;
	const struct plan_filter *filter;
	const char *build_dir;
	const char *store_spec; /* NULL: store_default_spec() */
	int runs;		/* -1: the suite's */
	bool runs_auto;		/* --runs auto */
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
	/* check --baseline-build: every case also runs from this build,
	 * next to the candidate's runs (plan_add_baseline()); those cases
	 * end up in session->baseline, not in the stored result. NULL:
	 * none. */
	const char *baseline_build_dir;
	/* Adaptive sampling policy (runner.h); NULL: the precision target
	 * alone (session_precise_enough). */
	runner_case_done_fn case_done;
	void *payload;
	/* Called after the suite and result metadata are ready and before
	 * anything runs (check resolves its baseline here, so that the new
	 * result can never be its own baseline). May be NULL. */
	int (*before_run)(const struct result *result, struct store *store,
			  const struct suite *suite, void *payload);
	/* Called once every case has run and before the result is stored,
	 * with the directory its artifact paths are relative to and the
	 * profiler the profiling runs recorded with (profile.h): the command
	 * layer turns what the runs recorded into what readers open (flame
	 * graphs, cmd_run.c) and lists it in the cases' artifacts, so that
	 * the harness never calls a reporter. An error stops the session
	 * before anything is stored. May be NULL. */
	int (*after_run)(struct result *result, const char *result_dir,
			 const struct profiler *profiler, void *payload);
};

struct session {
	struct suite *suite;
	struct plan *plan;
	struct store *store;
	struct result *result;
	/* The baseline build's cases, measured in this session with the
	 * same metadata (opts.baseline_build_dir); NULL without one. */
	struct result *baseline;
	struct strbuf result_path; /* where the result was stored */
	/* "<result dir>/artifacts/<result name>": profiles and callgrind
	 * output, one directory per case, when any case left some. */
	struct strbuf artifact_dir;
};

/*
 * Runs a session into *out (free with session_free(), also after an
 * error: what was built so far is there). BG_EINPUT for bad suites and
 * options, BG_ERROR when the harness cannot run or store; failing
 * benchmarks are not errors (see session_failed()).
 */
int session_run(struct session **out, const struct session_options *opts);

void session_free(struct session *session);

/* Whether any case failed or timed out. */
bool session_failed(const struct session *session);

/* The default adaptive policy: every non-exact metric's median known to
 * within the benchmark's `precision` (half-width of the bootstrap interval
 * at the benchmark's confidence, relative to the median). */
bool session_precise_enough(const struct result_case *rcase,
			    const struct benchmark *benchmark, void *payload);

#endif
