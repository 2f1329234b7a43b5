/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/check.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/gate/stats.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct check_state {
	struct check_options opts;
	struct compare_options compare;
};

/*
 * --baseline-tree: the baseline is measured in the session, so nothing is
 * looked up in the store; the commit it stands for is the tree's own.
 * Nor is there a history: between-session noise is what measuring both
 * sides together takes out, so the threshold is the configured minimum
 * effect.
 */
static int describe_tree(struct check *check)
{
	const struct check_options *opts = &check->state->opts;
	const struct session *session = check->session;
	const char *tree = opts->session.baseline_tree;
	const struct git_meta *git = &session->baseline_git;
	struct strbuf note = STRBUF_INIT;

	if (opts->session.sequential)
		return bg_input_error("--baseline-tree measures both sides "
				      "in alternating rounds; it cannot be "
				      "combined with --order sequential");
	if (strcmp(opts->baseline, "auto"))
		return bg_input_error("--baseline-tree: the baseline is the "
				      "commit checked out in '%s'; it cannot "
				      "be combined with --baseline '%s'",
				      tree, opts->baseline);
	if (opts->baseline_what)
		strbuf_addstr(&note, opts->baseline_what);
	else
		strbuf_addf(&note, "tree %s", tree);
	strbuf_addstr(&note, " measured in this session, interleaved with "
			     "the candidate, ");
	if (strcmp(git->commit, "unknown"))
		strbuf_addf(&note, "at %.12s%s%s%s", git->commit,
			    git->subject ? " (\"" : "",
			    git->subject ? git->subject : "",
			    git->subject ? "\")" : "");
	else
		strbuf_addstr(&note, "commit unknown");
	check->baseline.source = xstrdup("tree");
	check->baseline.path = xstrdup(tree);
	check->baseline.note = strbuf_detach(&note, NULL);
	return BG_OK;
}

/* Between preparing and measuring: the new result is not in the store. */
static int resolve_baseline(struct check *check)
{
	const struct check_options *opts = &check->state->opts;
	const struct session *session = check->session;
	struct baseline_request req = {
		.spec = opts->baseline,
		.branch = opts->branch,
		.suite = session->suite->name,
		.machine = session->result->machine.id,
	};

	if (opts->session.baseline_tree)
		return describe_tree(check);
	return baseline_resolve(&check->baseline, session->store, &req);
}

/* Once, for adaptive sampling and the comparison alike: the settings the
 * runner records in each case (result.h), the command line's overrides. */
static void resolve_gates(struct check *check)
{
	struct check_state *state = check->state;

	compare_options_init(&state->compare);
	state->compare.threshold = state->opts.threshold;
	state->compare.confidence = state->opts.confidence;
	state->compare.noise = baseline_noise;
	state->compare.noise_payload = &check->baseline;
	state->compare.baseline_measured =
		state->opts.session.baseline_tree != NULL;
}

/* Every non-exact metric's median known to within `precision` of it. */
static bool precise_enough(const struct result_case *rcase,
			   const struct suite_settings *settings)
{
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

/* The baseline twin of the candidate case at index, or the candidate of
 * the twin at index (plan_add_baseline() puts each twin right before its
 * candidate); RUNNER_NO_CASE when it has none. */
static size_t partner_of(const struct plan *plan, size_t index)
{
	if (plan->cases[index].baseline)
		return index + 1 < plan->nr && !plan->cases[index + 1].baseline
			       ? index + 1
			       : RUNNER_NO_CASE;
	return index > 0 && plan->cases[index - 1].baseline ? index - 1
							    : RUNNER_NO_CASE;
}

/*
 * Whether the adaptive case at index (plan order) has enough samples. A
 * case measured beside its baseline twin (--baseline-tree) has once the
 * pairs of runs so far decide it: the twin and its candidate then stop
 * together, so that every run keeps its partner. Without a twin, once the
 * comparison with the stored baseline decides it, or its medians are
 * precise (no baseline, or one that will not decide).
 */
static bool has_enough(const struct session *session, const struct check *check,
		       size_t index)
{
	const struct result_case *rcase = &session->result->cases[index];
	const struct benchmark *benchmark =
		session->plan->cases[index].benchmark;
	size_t partner = partner_of(session->plan, index);
	const struct result_case *base;

	if (check && partner != RUNNER_NO_CASE) {
		size_t cand = session->plan->cases[index].baseline ? partner
								   : index;
		const struct result_case *ccase = &session->result->cases[cand];

		/* the second of a round asks with the pair complete */
		if (session->result->cases[cand - 1].runs != ccase->runs)
			return false;
		return compare_case_decided(
			&session->result->cases[cand - 1], ccase,
			compare_threshold(&check->state->compare, ccase),
			compare_confidence(&check->state->compare, ccase),
			true, NULL);
	}
	base = check && check->baseline.result
		       ? result_find_case(check->baseline.result,
					  rcase->benchmark, rcase->variant,
					  rcase->device)
		       : NULL;
	if (base && compare_case_decided(
			    base, rcase,
			    compare_threshold(&check->state->compare, rcase),
			    compare_confidence(&check->state->compare, rcase),
			    false, &check->state->compare))
		return true;
	return precise_enough(rcase, &benchmark->settings);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int check_budget_from_env(int *budget_s)
{
	const char *text = getenv("BENCHGATE_BUDGET");
	char *end;
	long value;

	*budget_s = CHECK_BUDGET_DEFAULT;
	if (!text || !*text)
		return BG_OK;
	value = strtol(text, &end, 10);
	if (*end || end == text || value < 0 || value > INT_MAX)
		return bg_input_error("BENCHGATE_BUDGET: expected a whole "
				      "number of seconds (0: none), found "
				      "'%s'",
				      text);
	*budget_s = (int)value;
	return BG_OK;
}

/* Whether the time budget is spent (said once on stderr). */
static bool budget_spent(const struct check *check, double start,
			 bool *said)
{
	int budget = check ? check->state->opts.budget_s : 0;

	if (!(budget > 0) || now_s() - start < budget)
		return false;
	if (!*said)
		bg_warn("check: the time budget of %d s is spent: adaptive "
			"cases stop at the runs they have (--budget S or "
			"BENCHGATE_BUDGET sets it; 0: none)",
			budget);
	*said = true;
	return true;
}

int check_measure(struct session *session, const struct check *check)
{
	size_t asking;
	int ran, error;
	double start;
	bool said = false;

	if ((error = session_start(session)) < 0)
		return error;
	start = now_s();
	while ((ran = session_step(session, &asking)) > 0) {
		size_t partner;

		if (asking == RUNNER_NO_CASE ||
		    (!budget_spent(check, start, &said) &&
		     !has_enough(session, check, asking)))
			continue;
		session_stop_case(session, asking);
		if (check && (partner = partner_of(session->plan, asking)) !=
				     RUNNER_NO_CASE)
			session_stop_case(session, partner);
	}
	return ran < 0 ? ran : session_finish(session);
}

int check_run(struct check **out, const struct check_options *opts)
{
	struct check *check = xcalloc(1, sizeof(*check));
	int error;

	*out = check;
	check->state = xcalloc(1, sizeof(*check->state));
	check->state->opts = *opts;
	if ((error = session_prepare(&check->session,
				     &check->state->opts.session)) < 0 ||
	    (error = resolve_baseline(check)) < 0)
		return error;
	resolve_gates(check);
	return check_measure(check->session, check);
}

int check_conclude(struct check *check)
{
	struct session *session = check->session;
	struct comparison *comparison;
	int error;

	/* the gate decides on the measurements wherever they end up; what
	 * was not stored is the command layer's to report (session.h) */
	if (session_store(session) < 0)
		session_keep(session, NULL);
	bg_error_clear();
	/* the baseline measured in the session, labelled with the tree's
	 * commit (session_finish()), becomes the check's */
	if (session->baseline) {
		check->baseline.result = session->baseline;
		session->baseline = NULL;
	}
	if ((error = compare_results(&check->comparison, check->baseline.result,
				     session->result, &check->state->compare)) <
	    0)
		return error;
	comparison = check->comparison;
	comparison->baseline.source = xstrdup(check->baseline.source);
	comparison->baseline.path = xstrdup(check->baseline.path);
	comparison->candidate.path = xstrdup(session->result_path.buf);
	return BG_OK;
}

void check_free(struct check *check)
{
	if (!check)
		return;
	comparison_free(check->comparison);
	baseline_release(&check->baseline);
	session_free(check->session);
	free(check->state);
	free(check);
}
