#include "harness/session.h"

#include "harness/alloc.h"
#include "harness/devices.h"
#include "harness/error.h"
#include "harness/gitinfo.h"
#include "harness/machine.h"
#include "harness/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_absent_device(const struct plan_case *pcase,
				      void *payload)
{
	const char *reason;

	(void)payload;
	return devices_present(pcase->device, &reason) ? NULL : reason;
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
					      settings->confidence, 1000,
					      m->nr, &ci) < 0 ||
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

int session_run(struct session **out, const struct session_options *opts)
{
	struct session *session = xcalloc(1, sizeof(*session));
	struct runner_options runner = RUNNER_OPTIONS_INIT;
	struct strbuf spec = STRBUF_INIT, now = STRBUF_INIT;
	struct store_slot *slot = NULL;
	int error;

	*out = session;
	strbuf_init(&session->result_path, 0);
	session->result = result_new();
	if ((error = suite_load(&session->suite, opts->suite_path)) < 0 ||
	    (error = plan_build(&session->plan, session->suite, opts->filter,
				opts->build_dir)) < 0)
		goto done;
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
	runner.order = opts->sequential ? RUNNER_SEQUENTIAL : RUNNER_INTERLEAVED;
	runner.warmup = opts->warmup;
	runner.runs = opts->runs_auto ? -1 : opts->runs;
	runner.progress = opts->progress;
	runner.case_done = opts->case_done ? opts->case_done :
					     session_precise_enough;
	runner.skip = skip_absent_device;
	runner.payload = opts->payload;
	if ((error = runner_run(session->result, session->plan, &runner)) < 0)
		goto done;
	iso8601_now(&now);
	session->result->finished_at = strbuf_detach(&now, NULL);
	error = store_write(session->store, session->result, slot,
			   &session->result_path);
done:
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
	plan_free(session->plan);
	suite_free(session->suite);
	store_free(session->store);
	strbuf_release(&session->result_path);
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
