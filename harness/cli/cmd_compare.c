#include "harness/cli/cli.h"

#include "harness/util/alloc.h"
#include "harness/gate/baseline.h"
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/run/machine.h"
#include "reporters/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct cli_command_spec spec = {
	.name = "compare",
	.usage = "BASE CAND [options]",
	.summary = "Compare two result files (or the stored results of two "
		   "revisions).",
	.help = "BASE and CAND are result files, or revisions (\"main\", "
		"\"HEAD~1\", a commit) whose\nnearest stored result for this "
		"machine is used; revisions need --suite.\nExit status 1 on a "
		"regression, 3 when a case failed, 0 otherwise.",
	.options = OPT_STORE | OPT_GATE | OPT_JSON | OPT_HISTORY,
	.min_args = 2,
	.max_args = 2,
};

/* A side is a file when one exists at that path, else a revision. */
static int load_side(const struct cli_options *opts, struct store *store,
		     const char *arg, struct baseline *side)
{
	struct machine_info machine = { 0 };
	struct baseline_request req = { .spec = arg, .suite = opts->suite };
	struct stat st;
	int error;

	if (stat(arg, &st) != 0 && !opts->suite)
		return bg_input_error(
			"compare: '%s' is not a file; give --suite "
			"to look a revision up in the store",
			arg);
	if ((error = machine_describe(&machine)) < 0)
		return error;
	req.machine = machine.id;
	error = baseline_resolve(side, store, &req);
	if (!error && (!side->result || (strcmp(side->source, "ref") &&
					 strcmp(side->source, "file"))))
		error = bg_input_error(
			"compare: no stored result of suite '%s' "
			"for this machine at or below '%s'",
			opts->suite ? opts->suite : "?", arg);
	machine_info_release(&machine);
	return error;
}

int cmd_compare(int argc, char **argv)
{
	struct baseline base = { 0 }, cand = { 0 };
	struct compare_options compare_opts;
	struct comparison *comparison = NULL;
	struct store *store = NULL;
	struct strbuf spec_dir = STRBUF_INIT, json = STRBUF_INIT;
	struct cli_options opts;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (opts.store)
		strbuf_addstr(&spec_dir, opts.store);
	else
		store_default_spec(&spec_dir, NULL);
	if ((error = store_open(&store, spec_dir.buf)) < 0 ||
	    (error = load_side(&opts, store, opts.args[0], &base)) < 0 ||
	    (error = load_side(&opts, store, opts.args[1], &cand)) < 0)
		goto done;
	compare_options_init(&compare_opts);
	compare_opts.threshold = opts.threshold;
	compare_opts.confidence = opts.confidence;
	if ((error = compare_results(&comparison, base.result, cand.result,
				     &compare_opts)) < 0)
		goto done;
	comparison->baseline.source = xstrdup(base.source);
	comparison->baseline.path = xstrdup(base.path);
	comparison->candidate.path = xstrdup(cand.path);
	summary_print_comparison(stdout, comparison, opts.color, !opts.quiet);
	if (opts.json_path) {
		comparison_to_json(comparison, &json);
		error = write_file_atomic(opts.json_path, json.buf, json.len);
	}
	if (!error)
		error = comparison->overall == OVERALL_FAILED
				? OUTCOME_CASE_FAILED
			: comparison->overall == OVERALL_REGRESSION
				? OUTCOME_REGRESSION
				: OUTCOME_PASS;
done:
	comparison_free(comparison);
	baseline_release(&base);
	baseline_release(&cand);
	store_free(store);
	strbuf_release(&spec_dir);
	strbuf_release(&json);
	return error;
}
