#include "harness/cli/cli.h"

#include "harness/util/alloc.h"
#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/run/session.h"
#include "reporters/summary.h"
#include "reporters/report.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const struct cli_command_spec spec = {
	.name = "check",
	.usage = "SUITE [options]",
	.summary = "Run a suite, find its baseline, compare, report, and gate.",
	.help = "The baseline (--baseline auto) is the nearest stored result "
		"for this suite and\nmachine on the first-parent history of the "
		"merge base of HEAD and the target\nbranch (--branch, default "
		"origin/HEAD, main or master), else\nbaselines/<suite>/<machine>"
		".json, else none (every metric \"new\", exit 0).\nWith --runs "
		"auto a case stops sampling once its comparison is decided.\n"
		"With --baseline-build DIR the baseline is measured here "
		"instead: every case also\nruns from DIR (a build of the "
		"baseline commit), next to the candidate's runs\nin every "
		"round, so drift of the machine during the job reaches both "
		"sides alike;\n--baseline (auto or a revision) then only "
		"names the commit DIR was built from.\n"
		"Exit status 1 on a regression, 3 when a case failed, 2 on bad "
		"input.",
	.options = OPT_STORE | OPT_RUNS | OPT_WARMUP | OPT_SELECT | OPT_ORDER |
		   OPT_BUILD_DIR | OPT_BASELINE | OPT_GATE | OPT_REPORT |
		   OPT_JSON | OPT_PROFILE | OPT_DEVICES | OPT_BASELINE_BUILD,
	.min_args = 1,
	.max_args = 1,
};

struct check {
	const struct cli_options *opts;
	struct baseline baseline;
	char build_commit[41]; /* --baseline-build: the commit it stands for */
};

/*
 * --baseline-build: the baseline is measured in the session, so nothing is
 * looked up in the store; only the commit the build stands for (for the
 * reports) is found in git, and not finding it is no error. Nor is there
 * a history: between-session noise is what measuring both sides together
 * takes out, so the threshold is the configured minimum effect.
 */
static int describe_build(struct check *check,
			  const struct baseline_request *req)
{
	const struct cli_options *opts = check->opts;
	struct strbuf note = STRBUF_INIT, from = STRBUF_INIT;
	struct stat st;
	int error;

	if (opts->sequential)
		return bg_input_error("--baseline-build measures both builds "
				      "in alternating rounds; it cannot be "
				      "combined with --order sequential");
	if (stat(opts->baseline, &st) == 0 && S_ISREG(st.st_mode))
		return bg_input_error("--baseline-build: --baseline '%s' is a "
				      "file; with a build it names the build's "
				      "commit (auto or a revision)",
				      opts->baseline);
	if (stat(opts->baseline_build, &st) < 0 || !S_ISDIR(st.st_mode))
		return bg_input_error("--baseline-build: '%s' is not a "
				      "directory",
				      opts->baseline_build);
	error = baseline_commit(req, check->build_commit, &from);
	if (error == BG_ENOTFOUND) {
		snprintf(check->build_commit, sizeof(check->build_commit),
			 "unknown");
		strbuf_addf(&note,
			    "build %s measured in this session, "
			    "interleaved with the candidate (commit unknown: "
			    "%s)",
			    opts->baseline_build, bg_error_last());
		bg_error_clear();
		error = BG_OK;
	} else if (!error) {
		strbuf_addf(&note,
			    "build %s measured in this session, "
			    "interleaved with the candidate, as %.12s (%s)",
			    opts->baseline_build, check->build_commit,
			    from.buf);
	}
	check->baseline.source = xstrdup("build");
	check->baseline.path = xstrdup(opts->baseline_build);
	check->baseline.note = strbuf_detach(&note, NULL);
	strbuf_release(&from);
	return error;
}

/* Resolved before the run, so the new result cannot be its own baseline. */
static int resolve_baseline(const struct result *result, struct store *store,
			    const struct suite *suite, void *payload)
{
	struct check *check = payload;
	struct baseline_request req = {
		.spec = check->opts->baseline,
		.branch = check->opts->branch,
		.suite = suite->name,
		.machine = result->machine.id,
	};

	if (check->opts->baseline_build)
		return describe_build(check, &req);
	return baseline_resolve(&check->baseline, store, &req);
}

/* The baseline measured in the session becomes the check's, labelled with
 * the commit it stands for rather than the candidate's. */
static void take_measured_baseline(struct check *check, struct session *session)
{
	struct result *measured = session->baseline;

	session->baseline = NULL;
	git_meta_release(&measured->git);
	memcpy(measured->git.commit, check->build_commit,
	       sizeof(measured->git.commit));
	check->baseline.result = measured;
}

/* Adaptive sampling in check: enough once the comparison with the
 * baseline is decided either way, or once the medians are precise. */
static bool case_done(const struct result_case *rcase,
		      const struct benchmark *benchmark, void *payload)
{
	struct check *check = payload;
	const struct cli_options *opts = check->opts;
	const struct result_case *base =
		check->baseline.result
			? result_find_case(check->baseline.result,
					   rcase->benchmark, rcase->variant,
					   rcase->device)
			: NULL;
	double threshold = opts->threshold >= 0 ? opts->threshold
						: benchmark->settings.threshold;
	double confidence = opts->confidence >= 0
				    ? opts->confidence
				    : benchmark->settings.confidence;

	return compare_case_decided(base, rcase, threshold, confidence) ||
	       session_precise_enough(rcase, benchmark, NULL);
}

static int write_outputs(const struct cli_options *opts,
			 const struct session *session,
			 const struct check *check,
			 const struct comparison *comparison)
{
	struct report_model model = {
		.comparison = comparison,
		.baseline = check->baseline.result,
		.candidate = session->result,
		.history = check->baseline.history,
		.history_nr = check->baseline.history_nr,
	};
	struct strbuf text = STRBUF_INIT;
	int error = BG_OK;

	if (opts->json_path) {
		comparison_to_json(comparison, &text);
		error = write_file_atomic(opts->json_path, text.buf, text.len);
	}
	if (!error && opts->report_dir) {
		strbuf_reset(&text);
		error = report_write_all(&model, opts->report_dir, REPORT_ALL,
					 &text);
		if (!error && !opts->quiet)
			printf("reports in %s\n", opts->report_dir);
	}
	strbuf_release(&text);
	return error;
}

int cmd_check(int argc, char **argv)
{
	struct check check = { 0 };
	struct session_options session_opts;
	struct compare_options compare_opts;
	struct comparison *comparison = NULL;
	struct session *session = NULL;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	check.opts = &opts;
	cli_session_options(&session_opts, &opts);
	session_opts.before_run = resolve_baseline;
	session_opts.case_done = case_done;
	session_opts.payload = &check;
	if ((error = session_run(&session, &session_opts)) < 0)
		goto done;
	if (session->baseline)
		take_measured_baseline(&check, session);
	if (!opts.quiet)
		printf("baseline: %s\n", check.baseline.note);
	compare_options_init(&compare_opts);
	compare_opts.threshold = opts.threshold;
	compare_opts.confidence = opts.confidence;
	compare_opts.suite = session->suite;
	compare_opts.noise = baseline_noise;
	compare_opts.noise_payload = &check.baseline;
	compare_opts.baseline_measured = opts.baseline_build != NULL;
	if ((error = compare_results(&comparison, check.baseline.result,
				     session->result, &compare_opts)) < 0)
		goto done;
	comparison->baseline.source = xstrdup(check.baseline.source);
	comparison->baseline.path = xstrdup(check.baseline.path);
	comparison->candidate.path = xstrdup(session->result_path.buf);
	/* Without a baseline every metric is "new": the measurements
	 * themselves are the news. */
	if (!check.baseline.result && !opts.quiet)
		summary_print_result(stdout, session->result, opts.color);
	summary_print_comparison(stdout, comparison, opts.color, false);
	report_annotate_ci(stdout, comparison);
	if (!opts.quiet)
		printf("stored %s\n", session->result_path.buf);
	if ((error = write_outputs(&opts, session, &check, comparison)) < 0)
		goto done;
	error = comparison->overall == OVERALL_FAILED ? OUTCOME_CASE_FAILED
		: comparison->overall == OVERALL_REGRESSION ? OUTCOME_REGRESSION
							    : OUTCOME_PASS;
done:
	comparison_free(comparison);
	baseline_release(&check.baseline);
	session_free(session);
	return error;
}
