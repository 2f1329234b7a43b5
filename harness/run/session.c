#include "harness/run/session.h"

#include "harness/util/alloc.h"
#include "harness/run/devices.h"
#include "harness/util/error.h"
#include "harness/util/isotime.h"
#include "harness/store/gitinfo.h"
#include "harness/run/machine.h"
#include "harness/gate/stats.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the runner's hooks need; the runner has one payload for both. */
struct hooks {
	const struct session_options *opts;
	struct devices *devices; /* probed at the first case */
	struct strbuf reason;
};

static const char *skip_absent_device(const struct plan_case *pcase,
				      void *payload)
{
	struct hooks *hooks = payload;

	if (!hooks->devices)
		devices_probe(&hooks->devices);
	strbuf_reset(&hooks->reason);
	if (devices_has(hooks->devices, pcase->device,
			devices_cuda_visible(pcase->benchmark), &hooks->reason))
		return NULL;
	return hooks->reason.buf;
}

static bool case_done(const struct result_case *rcase,
		      const struct benchmark *benchmark, void *payload)
{
	struct hooks *hooks = payload;
	runner_case_done_fn done = hooks->opts->case_done
					   ? hooks->opts->case_done
					   : session_precise_enough;

	return done(rcase, benchmark, hooks->opts->payload);
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

bool session_precise_enough(const struct result_case *rcase,
			    const struct benchmark *benchmark, void *payload)
{
	const struct suite_settings *settings = &benchmark->settings;

	(void)payload;
	for (size_t i = 0; i < rcase->metrics_nr; i++) {
		const struct metric_samples *m = &rcase->metrics[i];
		struct stats_interval ci;
		double median;

		if (m->exact || m->nr < 2)
			continue;
		median = stats_median(m->samples, m->nr);
		if (stats_bootstrap_median_ci(m->samples, m->nr,
					      settings->confidence, 1000, m->nr,
					      &ci) < 0 ||
		    !(median != 0) ||
		    (ci.high - ci.low) / 2 > settings->precision * fabs(median))
			return false;
	}
	return true;
}

/* The command line's --runs auto turns adaptive sampling on for every
 * benchmark of the suite, with its own min/max/precision. */
static void apply_runs_auto(struct suite *suite)
{
	for (size_t i = 0; i < suite->benchmarks_nr; i++)
		suite->benchmarks[i].settings.runs_auto = true;
}

static int describe(struct result *result, const struct suite *suite)
{
	struct strbuf now = STRBUF_INIT;
	int error;

	result->suite = xstrdup(suite->name);
	memcpy(result->suite_sha256, suite->sha256, sizeof(suite->sha256));
	result->harness_version = xstrdup(BENCHGATE_VERSION);
	if ((error = gitinfo_read(&result->git, NULL)) < 0 ||
	    (error = machine_describe(&result->machine)) < 0)
		return error;
	iso8601_now(&now);
	result->started_at = strbuf_detach(&now, NULL);
	return BG_OK;
}

/*
 * benchgate-launch (launcher.h): $BENCHGATE_LAUNCHER, else the one beside
 * the running benchgate; made absolute, as the runs start in the suite's
 * directory. NULL when there is none, with a warning, as maxrss then
 * includes benchgate's own memory.
 */
static char *find_launcher(void)
{
	const char *override = getenv("BENCHGATE_LAUNCHER");
	struct strbuf path = STRBUF_INIT;
	char self[PATH_MAX], *slash, *found = NULL;
	ssize_t len;

	if (override && *override) {
		strbuf_addstr(&path, override);
	} else {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[len > 0 ? len : 0] = '\0';
		if ((slash = strrchr(self, '/')))
			strbuf_add(&path, self, (size_t)(slash - self) + 1);
		strbuf_addstr(&path, "benchgate-launch");
	}
	if (access(path.buf, X_OK) < 0 || !(found = realpath(path.buf, NULL)))
		bg_warn("cannot use the launcher '%s': %s; rusage maxrss "
			"includes benchgate's own memory",
			path.buf, strerror(errno));
	strbuf_release(&path);
	return found;
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

int session_run(struct session **out, const struct session_options *opts)
{
	struct session *session = xcalloc(1, sizeof(*session));
	struct runner_options runner = RUNNER_OPTIONS_INIT;
	struct strbuf spec = STRBUF_INIT, now = STRBUF_INIT;
	struct hooks hooks = { opts, NULL, STRBUF_INIT };
	struct store_slot *slot = NULL;
	struct profiler *profiler = NULL;
	char *launcher = NULL;
	int error;

	*out = session;
	strbuf_init(&session->result_path, 0);
	strbuf_init(&session->artifact_dir, 0);
	session->result = result_new();
	if ((error = suite_load(&session->suite, opts->suite_path)) < 0 ||
	    (error = plan_build(&session->plan, session->suite, opts->filter,
				opts->build_dir)) < 0)
		goto done;
	if (opts->baseline_build_dir)
		plan_add_baseline(session->plan, opts->baseline_build_dir);
	if (opts->runs_auto)
		apply_runs_auto(session->suite);
	if (opts->store_spec)
		strbuf_addstr(&spec, opts->store_spec);
	else
		store_default_spec(&spec, NULL);
	if ((error = store_open(&session->store, spec.buf)) < 0 ||
	    (error = describe(session->result, session->suite)) < 0)
		goto done;
	if (opts->before_run &&
	    (error = opts->before_run(session->result, session->store,
				      session->suite, opts->payload)) < 0)
		goto done;
	if ((error = store_reserve(session->store, session->result, &slot)) < 0)
		goto done;

	runner.log_dir = slot->log_dir;
	runner.log_base = slot->dir;
	runner.order = opts->sequential ? RUNNER_SEQUENTIAL
					: RUNNER_INTERLEAVED;
	runner.warmup = opts->warmup;
	runner.runs = opts->runs_auto ? -1 : opts->runs;
	runner.progress = opts->progress;
	runner.sample_interval_s = opts->sample_interval_s;
	/* beside the result like its logs, so they move together */
	strbuf_addf(&session->artifact_dir, "%s/artifacts/%s", slot->dir,
		    slot->name);
	runner.artifact_dir = session->artifact_dir.buf;
	runner.profile = opts->profile;
	/* here, not in the runner: after_run asks it how stacks were taken */
	profiler_new(&profiler);
	runner.profiler = profiler;
	runner.case_done = case_done;
	runner.skip = skip_absent_device;
	runner.payload = &hooks;
	if (runner_wants_launcher(session->plan))
		runner.launcher = launcher = find_launcher();
	if ((error = runner_run(session->result, session->plan, &runner)) < 0)
		goto done;
	if (opts->after_run &&
	    (error = opts->after_run(session->result, slot->dir, profiler,
				     opts->payload)) < 0)
		goto done;
	if (opts->require_devices)
		fail_skipped_cases(session->result);
	iso8601_now(&now);
	session->result->finished_at = strbuf_detach(&now, NULL);
	if (opts->baseline_build_dir && (error = split_baseline(session)) < 0)
		goto done;
	error = store_write(session->store, session->result, slot,
			    &session->result_path);
done:
	free(launcher);
	profiler_free(profiler);
	devices_free(hooks.devices);
	strbuf_release(&hooks.reason);
	store_slot_free(slot);
	strbuf_release(&spec);
	strbuf_release(&now);
	return error;
}

void session_free(struct session *session)
{
	if (!session)
		return;
	result_free(session->result);
	result_free(session->baseline);
	plan_free(session->plan);
	suite_free(session->suite);
	store_free(session->store);
	strbuf_release(&session->result_path);
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
