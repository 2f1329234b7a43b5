/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/terminal.h"
#include "harness/gate/compare.h"
#include "harness/gate/attribution.h"
#include "harness/gate/history.h"
#include "harness/git/gitinfo.h"
#include "harness/store/store.h"
#include "harness/util/process.h"
#include "harness/run/session.h"
#include "harness/run/stacks.h"
#include "reporters/flamegraph.h"
#include "reporters/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Summaries duplicate the specs' on purpose: `benchgate --help` must not
 * have to parse every command to list them. */
static const struct command commands[] = {
	{ "run", cmd_run, "run a suite, store a result file, print a summary" },
	{ "compare", cmd_compare, "compare two result files (or revisions)" },
	{ "check", cmd_check,
	  "run + find the baseline + compare + report; the CI gate" },
	{ "report", cmd_report,
	  "write JUnit, Markdown, HTML, JSON, CSV, OpenMetrics and charts" },
	{ "baseline", cmd_baseline,
	  "save a result as the committed baseline of its suite" },
	{ "comment", cmd_comment,
	  "create or update the pull/merge request comment with a report" },
	{ "sync", cmd_sync,
	  "fetch, merge and push the results branch of a git:BRANCH store" },
	{ "merge", cmd_merge,
	  "combine the shard results of one run (--shard I/N) into one" },
	{ "validate", cmd_validate,
	  "check a suite file and print its expanded plan without running it" },
	{ "devices", cmd_devices,
	  "list the CPU, GPUs and IPUs found here, and what can be sampled" },
	{ "history", cmd_history,
	  "the series of every metric along a branch, with change points" },
	{ "bisect", cmd_bisect,
	  "measure commits between a good and a bad one: the first bad one" },
	{ "import", cmd_import,
	  "store a peer tool's results (Google Benchmark, hyperfine, ...)" },
	{ "export", cmd_export,
	  "send a result or comparison to an experiment tracker (MLflow)" },
	{ "publish", cmd_publish,
	  "write the static dashboard of a branch's history (site, feed)" },
};

/* The full option table; a command accepts the subset its spec names. */
enum option_id {
	O_STORE = 256,
	O_RUNS,
	O_WARMUP,
	O_FILTER,
	O_VARIANT,
	O_DEVICE,
	O_SHARD,
	O_ORDER,
	O_BUILD_DIR,
	O_BASELINE,
	O_BRANCH,
	O_THRESHOLD,
	O_CONFIDENCE,
	O_REPORT,
	O_JSON,
	O_OUT,
	O_FORMAT,
	O_TO,
	O_SUITE,
	O_METRIC,
	O_FORCE,
	O_QUIET,
	O_NO_COLOR,
	O_HELP,
	O_VERSION,
	O_PROVIDER,
	O_BODY,
	O_REPO,
	O_PR,
	O_API_URL,
	O_MARKER,
	O_DRY_RUN,
	O_REMOTE,
	O_REQUIRE_DEVICES,
	O_SAMPLE_INTERVAL,
	O_PROFILE,
	O_NO_WAIT,
	O_BASELINE_TREE,
	O_BENCHMARK,
	O_MACHINE,
	O_SINCE,
	O_CSV,
	O_CHARTS,
	O_MLFLOW,
	O_EXPERIMENT,
	O_ALERT,
	O_PUBLISHED,
	O_GOOD,
	O_BAD,
	O_BUILD,
};

struct option_doc {
	struct option option;
	unsigned flag; /* 0: accepted by every command */
	const char *arg;
	const char *help;
};

static const struct option_doc option_docs[] = {
	{ { "store", required_argument, NULL, O_STORE },
	  OPT_STORE,
	  "DIR|git:BRANCH",
	  "result store, a directory or a branch (default "
	  ".benchgate/results at the repository root)" },
	{ { "runs", required_argument, NULL, O_RUNS },
	  OPT_RUNS,
	  "N|auto",
	  "measured runs per case (overrides the suite)" },
	{ { "warmup", required_argument, NULL, O_WARMUP },
	  OPT_WARMUP,
	  "N",
	  "discarded warmup runs per case (overrides the suite)" },
	{ { "filter", required_argument, NULL, O_FILTER },
	  OPT_SELECT,
	  "GLOB",
	  "only cases whose benchmark/variant/device matches GLOB" },
	{ { "variant", required_argument, NULL, O_VARIANT },
	  OPT_SELECT | OPT_SERIES,
	  "V",
	  "only variant V" },
	{ { "device", required_argument, NULL, O_DEVICE },
	  OPT_SELECT | OPT_SERIES,
	  "D",
	  "only device D" },
	{ { "shard", required_argument, NULL, O_SHARD },
	  OPT_SELECT,
	  "I/N",
	  "only the I-th of N disjoint shards of the cases (1-based)" },
	{ { "order", required_argument, NULL, O_ORDER },
	  OPT_ORDER,
	  "interleaved|sequential",
	  "interleave runs across cases, alternating the order every "
	  "round (default), or not" },
	{ { "build-dir", required_argument, NULL, O_BUILD_DIR },
	  OPT_BUILD_DIR,
	  "DIR",
	  "value of ${build_dir} (default $BENCHGATE_BUILD_DIR or build)" },
	{ { "baseline", required_argument, NULL, O_BASELINE },
	  OPT_BASELINE,
	  "auto|REF|FILE",
	  "what to compare against (default auto)" },
	{ { "baseline-tree", required_argument, NULL, O_BASELINE_TREE },
	  OPT_BASELINE_TREE,
	  "DIR",
	  "measure the baseline in this session from DIR, a work tree of "
	  "the baseline commit with its build: every case also runs as the "
	  "suite there says, interleaved with the candidate's runs" },
	{ { "branch", required_argument, NULL, O_BRANCH },
	  OPT_BASELINE,
	  "B",
	  "the target branch of --baseline auto: compare against its merge "
	  "base (default: the default branch)" },
	{ { "branch", required_argument, NULL, O_BRANCH },
	  OPT_REMOTE,
	  "B",
	  "the results branch to sync, the B of --store git:B (default "
	  "benchgate-results)" },
	{ { "branch", required_argument, NULL, O_BRANCH },
	  OPT_SERIES,
	  "B",
	  "the branch whose first parents are walked (default: the default "
	  "branch)" },
	{ { "remote", required_argument, NULL, O_REMOTE },
	  OPT_REMOTE,
	  "NAME",
	  "the remote to sync with (default origin)" },
	{ { "threshold", required_argument, NULL, O_THRESHOLD },
	  OPT_GATE,
	  "PCT",
	  "minimum practical change, such as 3%" },
	{ { "confidence", required_argument, NULL, O_CONFIDENCE },
	  OPT_GATE,
	  "P",
	  "confidence level of the tests, such as 0.99" },
	{ { "report", required_argument, NULL, O_REPORT },
	  OPT_REPORT,
	  "DIR",
	  "write the reports into DIR" },
	{ { "json", required_argument, NULL, O_JSON },
	  OPT_JSON,
	  "FILE",
	  "also write the JSON document to FILE" },
	{ { "out", required_argument, NULL, O_OUT },
	  OPT_OUT,
	  "DIR",
	  "write the reports into DIR (created if missing)" },
	{ { "out", required_argument, NULL, O_OUT },
	  OPT_PUBLISH,
	  "DIR",
	  "the site's directory: pages that did not change are kept" },
	{ { "out", required_argument, NULL, O_OUT },
	  OPT_OUT_FILE,
	  "FILE",
	  "write the merged result to FILE instead of the store" },
	{ { "format", required_argument, NULL, O_FORMAT },
	  OPT_FORMAT,
	  "LIST",
	  "comma-separated formats: junit, markdown, html, json, csv, "
	  "openmetrics, charts (default all)" },
	{ { "format", required_argument, NULL, O_FORMAT },
	  OPT_IMPORT,
	  "FMT",
	  "the format of the files: gbench, hyperfine, pytest-benchmark, "
	  "customSmallerIsBetter, customBiggerIsBetter" },
	{ { "charts", required_argument, NULL, O_CHARTS },
	  OPT_REPORT | OPT_FORMAT,
	  "N|all",
	  "chart at most N cases, regressions and the largest changes "
	  "first (default 50)" },
	{ { "to", required_argument, NULL, O_TO },
	  OPT_TO,
	  "FILE",
	  "destination file" },
	{ { "suite", required_argument, NULL, O_SUITE },
	  OPT_HISTORY,
	  "S",
	  "only suite S" },
	{ { "suite", required_argument, NULL, O_SUITE },
	  OPT_COMPARE_SUITE,
	  "S",
	  "the suite whose stored results BASE and CAND name, when they are "
	  "revisions" },
	{ { "suite", required_argument, NULL, O_SUITE },
	  OPT_IMPORT,
	  "S",
	  "the suite the result is of (default: the format's name)" },
	{ { "metric", required_argument, NULL, O_METRIC },
	  OPT_HISTORY,
	  "M",
	  "only metric M" },
	{ { "benchmark", required_argument, NULL, O_BENCHMARK },
	  OPT_SERIES,
	  "B",
	  "only benchmark B" },
	{ { "machine", required_argument, NULL, O_MACHINE },
	  OPT_SERIES,
	  "ID",
	  "only the results of machine ID" },
	{ { "since", required_argument, NULL, O_SINCE },
	  OPT_SERIES,
	  "DATE|REV",
	  "only commits from DATE (YYYY-MM-DD) or from revision REV on" },
	{ { "csv", no_argument, NULL, O_CSV },
	  OPT_CSV,
	  NULL,
	  "print CSV, one row per point, instead of the view" },
	{ { "alert", no_argument, NULL, O_ALERT },
	  OPT_ALERT,
	  NULL,
	  "exit 1 naming each worse-direction change point that the site "
	  "of --published does not have yet" },
	{ { "published", required_argument, NULL, O_PUBLISHED },
	  OPT_ALERT,
	  "DIR",
	  "the directory `benchgate publish --out` wrote (for --alert)" },
	{ { "good", required_argument, NULL, O_GOOD },
	  OPT_BISECT,
	  "REV",
	  "a commit without the regression (bisect)" },
	{ { "bad", required_argument, NULL, O_BAD },
	  OPT_BISECT,
	  "REV",
	  "a later commit with it, --good on its first-parent history" },
	{ { "build", required_argument, NULL, O_BUILD },
	  OPT_BISECT,
	  "CMD",
	  "the build command, run by /bin/sh in each commit's checkout "
	  "(failure: the commit is skipped)" },
	{ { "mlflow", required_argument, NULL, O_MLFLOW },
	  OPT_EXPORT,
	  "URI",
	  "the MLflow tracking server, such as http://mlflow:5000" },
	{ { "experiment", required_argument, NULL, O_EXPERIMENT },
	  OPT_EXPORT,
	  "NAME",
	  "the MLflow experiment (default $MLFLOW_EXPERIMENT_NAME, else the "
	  "suite's name)" },
	{ { "force", no_argument, NULL, O_FORCE },
	  OPT_FORCE,
	  NULL,
	  "replace an existing file" },
	{ { "provider", required_argument, NULL, O_PROVIDER },
	  OPT_COMMENT,
	  "github|gitlab",
	  "where to comment (default: detected from the CI)" },
	{ { "body", required_argument, NULL, O_BODY },
	  OPT_COMMENT,
	  "FILE",
	  "the Markdown to post, such as report.md" },
	{ { "repo", required_argument, NULL, O_REPO },
	  OPT_COMMENT,
	  "REPO",
	  "OWNER/NAME or GitLab project (default: the CI's)" },
	{ { "pr", required_argument, NULL, O_PR },
	  OPT_COMMENT,
	  "N",
	  "pull/merge request number (default: the CI's)" },
	{ { "api-url", required_argument, NULL, O_API_URL },
	  OPT_COMMENT,
	  "URL",
	  "API base URL (default: the CI's, else public)" },
	{ { "marker", required_argument, NULL, O_MARKER },
	  OPT_COMMENT,
	  "NAME",
	  "one comment per NAME (default: the body's marker)" },
	{ { "dry-run", no_argument, NULL, O_DRY_RUN },
	  OPT_COMMENT,
	  NULL,
	  "print what would be sent; send nothing" },
	{ { "require-devices", no_argument, NULL, O_REQUIRE_DEVICES },
	  OPT_DEVICES,
	  NULL,
	  "a case whose device is absent fails (exit 3) "
	  "instead of being skipped" },
	{ { "sample-interval", required_argument, NULL, O_SAMPLE_INTERVAL },
	  OPT_DEVICES,
	  "MS",
	  "milliseconds between readings of the nvml, rapl "
	  "and system metrics during a run (default 100)" },
	{ { "profile", no_argument, NULL, O_PROFILE },
	  OPT_PROFILE,
	  NULL,
	  "one more run per case under a profiler (perf flame graph, Poplar "
	  "reports, $BENCHGATE_PROFILE_DIR), never a sample" },
	{ { "no-wait", no_argument, NULL, O_NO_WAIT },
	  OPT_NO_WAIT,
	  NULL,
	  "fail (exit 2) instead of waiting when another benchgate holds "
	  "the machine lock ($BENCHGATE_LOCK, default "
	  "/tmp/benchgate.lock)" },
	{ { "quiet", no_argument, NULL, O_QUIET },
	  0,
	  NULL,
	  "print only errors and the verdict" },
	{ { "no-color", no_argument, NULL, O_NO_COLOR },
	  0,
	  NULL,
	  "no colours (also when NO_COLOR is set)" },
	{ { "help", no_argument, NULL, O_HELP }, 0, NULL, "show this help" },
	{ { "version", no_argument, NULL, O_VERSION },
	  0,
	  NULL,
	  "print the version" },
};
#define OPTION_COUNT (sizeof(option_docs) / sizeof(*option_docs))

/* Whether the command takes the option as doc describes it. */
static bool accepts(const struct cli_command_spec *spec,
		    const struct option_doc *doc)
{
	return !doc->flag || (doc->flag & spec->options);
}

/* Whether an option of the same name that the command takes comes before
 * docs[i]: one name may mean different things to different commands (an
 * entry each), but a command takes it in one meaning. */
static bool named_before(const struct option_doc *doc, size_t i,
			 const struct cli_command_spec *spec)
{
	while (i--)
		if (accepts(spec, &option_docs[i]) &&
		    !strcmp(option_docs[i].option.name, doc->option.name))
			return true;
	return false;
}

static void print_command_help(const struct cli_command_spec *spec)
{
	printf("usage: benchgate %s %s\n\n%s\n", spec->name, spec->usage,
	       spec->summary);
	if (spec->help)
		printf("\n%s\n", spec->help);
	printf("\noptions:\n");
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const struct option_doc *doc = &option_docs[i];
		char left[64];

		if (!accepts(spec, doc) || named_before(doc, i, spec))
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", doc->option.name,
			 doc->arg ? " " : "", doc->arg ? doc->arg : "");
		printf("  %-28s %s\n", left, doc->help);
	}
}

static int parse_whole_number(const char *option, const char *text, int min,
			      int *out)
{
	char *end;
	long value = strtol(text, &end, 10);

	if (end == text || *end || value < min || value > 1000000)
		return bg_input_error("--%s: expected a whole number of at "
				      "least %d, found '%s'",
				      option, min, text);
	*out = (int)value;
	return BG_OK;
}

static int parse_percentage(const char *text, double *out)
{
	char *end;
	double value = strtod(text, &end);

	if (end == text || (*end && strcmp(end, "%")) || !(value >= 0) ||
	    value >= 100)
		return bg_input_error("--threshold: expected a percentage such "
				      "as 3%%, found '%s'",
				      text);
	*out = value / 100;
	return BG_OK;
}

static int parse_confidence(const char *text, double *out)
{
	char *end;
	double value = strtod(text, &end);

	if (end == text || *end || !(value >= 0.5 && value < 1))
		return bg_input_error("--confidence: expected a level from 0.5 "
				      "to below 1 such as 0.99, found '%s'",
				      text);
	*out = value;
	return BG_OK;
}

static int parse_interval(const char *text, double *seconds)
{
	int ms = 0;
	int error = parse_whole_number("sample-interval", text, 1, &ms);

	*seconds = ms / 1000.0;
	return error;
}

/* "all" for every case, else a whole number of cases. */
static int parse_chart_cases(const char *text, size_t *out)
{
	int n = 0;
	int error;

	if (!strcmp(text, "all")) {
		*out = SIZE_MAX;
		return BG_OK;
	}
	if ((error = parse_whole_number("charts", text, 1, &n)) < 0)
		return bg_input_error("--charts: expected a whole number of "
				      "at least 1 or 'all', found '%s'",
				      text);
	*out = (size_t)n;
	return BG_OK;
}

static int apply_option(struct cli_options *opts, int id, const char *arg)
{
	switch (id) {
	case O_STORE:
		opts->store = arg;
		break;
	case O_RUNS:
		if (!strcmp(arg, "auto")) {
			opts->runs_auto = true;
			return BG_OK;
		}
		return parse_whole_number("runs", arg, 1, &opts->runs);
	case O_WARMUP:
		return parse_whole_number("warmup", arg, 0, &opts->warmup);
	case O_FILTER:
		opts->filter.glob = arg;
		break;
	case O_VARIANT:
		opts->filter.variant = arg;
		break;
	case O_DEVICE:
		opts->filter.device = arg;
		break;
	case O_SHARD:
		return plan_parse_shard(&opts->filter, arg);
	case O_ORDER:
		if (strcmp(arg, "interleaved") && strcmp(arg, "sequential"))
			return bg_input_error(
				"--order: expected interleaved or "
				"sequential, found '%s'",
				arg);
		opts->sequential = !strcmp(arg, "sequential");
		break;
	case O_BUILD_DIR:
		opts->build_dir = arg;
		break;
	case O_BASELINE:
		opts->baseline = arg;
		break;
	case O_BASELINE_TREE:
		opts->baseline_tree = arg;
		break;
	case O_BRANCH:
		opts->branch = arg;
		break;
	case O_REMOTE:
		opts->remote = arg;
		break;
	case O_THRESHOLD:
		return parse_percentage(arg, &opts->threshold);
	case O_CONFIDENCE:
		return parse_confidence(arg, &opts->confidence);
	case O_REPORT:
		opts->report_dir = arg;
		break;
	case O_JSON:
		opts->json_path = arg;
		break;
	case O_OUT:
		opts->out_dir = arg;
		break;
	case O_FORMAT:
		opts->formats = arg;
		break;
	case O_CHARTS:
		return parse_chart_cases(arg, &opts->chart_cases);
	case O_TO:
		opts->to = arg;
		break;
	case O_SUITE:
		opts->suite = arg;
		break;
	case O_METRIC:
		opts->metric = arg;
		break;
	case O_BENCHMARK:
		opts->benchmark = arg;
		break;
	case O_MACHINE:
		opts->machine = arg;
		break;
	case O_SINCE:
		opts->since = arg;
		break;
	case O_CSV:
		opts->csv = true;
		break;
	case O_MLFLOW:
		opts->mlflow = arg;
		break;
	case O_EXPERIMENT:
		opts->experiment = arg;
		break;
	case O_ALERT:
		opts->alert = true;
		break;
	case O_PUBLISHED:
		opts->published = arg;
		break;
	case O_GOOD:
		opts->good = arg;
		break;
	case O_BAD:
		opts->bad = arg;
		break;
	case O_BUILD:
		opts->build = arg;
		break;
	case O_FORCE:
		opts->force = true;
		break;
	case O_PROVIDER:
		opts->provider = arg;
		break;
	case O_BODY:
		opts->body = arg;
		break;
	case O_REPO:
		opts->repo = arg;
		break;
	case O_PR:
		opts->pr = arg;
		break;
	case O_API_URL:
		opts->api_url = arg;
		break;
	case O_MARKER:
		opts->marker = arg;
		break;
	case O_DRY_RUN:
		opts->dry_run = true;
		break;
	case O_REQUIRE_DEVICES:
		opts->require_devices = true;
		break;
	case O_PROFILE:
		opts->profile = true;
		break;
	case O_NO_WAIT:
		opts->no_wait = true;
		break;
	case O_SAMPLE_INTERVAL:
		return parse_interval(arg, &opts->sample_interval_s);
	case O_QUIET:
		opts->quiet = true;
		break;
	case O_NO_COLOR:
		opts->color = false;
		break;
	}
	return BG_OK;
}

static void options_init(struct cli_options *opts)
{
	const char *no_color = getenv("NO_COLOR");

	memset(opts, 0, sizeof(*opts));
	opts->runs = -1;
	opts->warmup = -1;
	opts->threshold = -1;
	opts->confidence = -1;
	opts->baseline = "auto";
	opts->build_dir = getenv("BENCHGATE_BUILD_DIR");
	if (!opts->build_dir || !*opts->build_dir)
		opts->build_dir = "build";
	opts->color = isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

/* Options that are gone, and what took their place: a CI script written
 * for an older benchgate learns what to write instead. */
static const struct {
	const char *option;
	const char *replacement;
} replaced_options[] = {
	{ "--baseline-build",
	  "--baseline-tree DIR (DIR: a work tree of the baseline commit with "
	  "its build; README \"Baselines\")" },
};

/* The replacement of an option that is gone ("--opt" or "--opt=value"),
 * or NULL. */
static const char *replacement_of(const char *option)
{
	for (size_t i = 0;
	     i < sizeof(replaced_options) / sizeof(replaced_options[0]); i++) {
		size_t len = strlen(replaced_options[i].option);

		if (!strncmp(option, replaced_options[i].option, len) &&
		    (!option[len] || option[len] == '='))
			return replaced_options[i].replacement;
	}
	return NULL;
}

int cli_parse(struct cli_options *opts, const struct cli_command_spec *spec,
	      int argc, char **argv)
{
	struct option longopts[OPTION_COUNT + 1];
	size_t nr = 0;
	int id;

	options_init(opts);
	/* only the command's own: any other is unknown to getopt, which then
	 * names it, never the value after it */
	for (size_t i = 0; i < OPTION_COUNT; i++)
		if (accepts(spec, &option_docs[i]) &&
		    !named_before(&option_docs[i], i, spec))
			longopts[nr++] = option_docs[i].option;
	memset(&longopts[nr], 0, sizeof(*longopts));
	optind = 1;
	opterr = 0;
	/* GNU argument permutation: options may follow the suite path, as
	 * users type them. */
	while ((id = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		const struct option_doc *doc = NULL;
		int error;

		for (size_t i = 0; i < OPTION_COUNT && !doc; i++)
			if (option_docs[i].option.val == id &&
			    accepts(spec, &option_docs[i]))
				doc = &option_docs[i];
		if (id == '?' || id == ':' || !doc) {
			const char *bad = argv[optind - 1];

			if (replacement_of(bad))
				return bg_input_error("%s: '%s' was replaced "
						      "by %s",
						      spec->name, bad,
						      replacement_of(bad));
			return bg_input_error("%s: %s '%s' (see 'benchgate %s "
					      "--help')",
					      spec->name,
					      id == ':' ? "missing value for"
							: "unknown option",
					      bad, spec->name);
		}
		if (id == O_HELP) {
			print_command_help(spec);
			return 1;
		}
		if (id == O_VERSION) {
			printf("benchgate %s\n", BENCHGATE_VERSION);
			return 1;
		}
		if ((error = apply_option(opts, id, optarg)) < 0)
			return error;
	}
	opts->args = argv + optind;
	opts->args_nr = argc - optind;
	if (opts->args_nr < spec->min_args || opts->args_nr > spec->max_args)
		return bg_input_error("usage: benchgate %s %s", spec->name,
				      spec->usage);
	opts->progress = !opts->quiet && isatty(STDERR_FILENO);
	return 0;
}

void cli_session_options(struct session_options *out,
			 const struct cli_options *opts)
{
	*out = (struct session_options){
		.suite_path = opts->args[0],
		.filter = &opts->filter,
		.build_dir = opts->build_dir,
		.store_spec = opts->store,
		.runs = opts->runs,
		.runs_auto = opts->runs_auto,
		.warmup = opts->warmup,
		.sequential = opts->sequential,
		.progress = opts->progress,
		.require_devices = opts->require_devices,
		.sample_interval_s = opts->sample_interval_s,
		.profile = opts->profile,
		.no_wait = opts->no_wait,
		.baseline_tree = opts->baseline_tree,
	};
}

/* The run layer reads a profile's stacks, the reporters draw them
 * (report.h): handed over in the order they are drawn in. */
static int read_folded_stacks(struct flamegraph_stacks *out, const char *path)
{
	struct stacks stacks = STACKS_INIT;
	struct strbuf text = STRBUF_INIT;
	const struct stack **sorted = NULL;
	int error;

	if ((error = strbuf_read_file(&text, path)) < 0 ||
	    (error = stacks_parse_folded(&stacks, text.buf, text.len)) < 0)
		goto done;
	sorted = stacks_sorted(&stacks);
	for (size_t i = 0; i < stacks.nr; i++)
		flamegraph_stacks_add(out, sorted[i]->frames, sorted[i]->count);
done:
	free(sorted);
	stacks_release(&stacks);
	strbuf_release(&text);
	return error;
}

void cli_draw_profiles(struct session *session)
{
	struct strbuf sampling = STRBUF_INIT;

	if (profiler_describe_perf(session->profiler, &sampling) < 0)
		goto done;
	report_draw_flamegraphs(session->result, session->result_dir,
				sampling.buf, read_folded_stacks);
	/* the baseline tree's profiles lie beside the candidate's */
	if (session->baseline)
		report_draw_flamegraphs(session->baseline, session->result_dir,
					sampling.buf, read_folded_stacks);
done:
	strbuf_release(&sampling);
}

int cli_open_store(struct store **out, const struct cli_options *opts)
{
	struct strbuf spec = STRBUF_INIT;
	int error;

	if (opts->store)
		strbuf_addstr(&spec, opts->store);
	else
		store_default_spec(&spec, NULL);
	error = store_open(out, spec.buf);
	strbuf_release(&spec);
	return error;
}

int cli_build_history(struct history *out, struct store **store,
		      const struct cli_options *opts)
{
	int error;

	if ((error = cli_open_store(store, opts)) < 0 ||
	    (error = history_build(out, *store,
				   &(struct history_request){
					   .branch = opts->branch,
					   .since = opts->since,
					   .suite = opts->suite,
					   .benchmark = opts->benchmark,
					   .variant = opts->filter.variant,
					   .device = opts->filter.device,
					   .metric = opts->metric,
					   .machine = opts->machine,
				   })) < 0)
		return error;
	return attribution_find(out, NULL);
}

int cli_write_outputs(const struct cli_options *opts,
		      const struct report_model *model)
{
	struct strbuf text = STRBUF_INIT;
	int error = BG_OK;

	if (opts->json_path) {
		comparison_to_json(model->comparison, &text);
		error = write_file_atomic(opts->json_path, text.buf, text.len);
	}
	if (!error && opts->report_dir) {
		struct report_model bounded = *model;

		bounded.chart_cases = opts->chart_cases;
		strbuf_reset(&text);
		error = report_write_all(&bounded, opts->report_dir,
					 REPORT_ALL, &text);
		if (!error && !opts->quiet)
			terminal_print_line(stdout, "reports in %s",
					    opts->report_dir);
	}
	strbuf_release(&text);
	return error;
}

int cli_outcome_of(const struct comparison *comparison)
{
	switch (comparison->overall) {
	case OVERALL_FAILED:
		return OUTCOME_CASE_FAILED;
	case OVERALL_REGRESSION:
		return OUTCOME_REGRESSION;
	case OVERALL_PASS:
		break;
	}
	return OUTCOME_PASS;
}

int cli_outcome_of_session(const struct session *session)
{
	return session_failed(session) ? OUTCOME_CASE_FAILED : OUTCOME_PASS;
}

int cli_outcome_after_measuring(const struct session *session, int writing,
				int outcome)
{
	bool unstored = session->unstored.len > 0;

	if (writing < 0)
		terminal_print_error(bg_error_last());
	if (unstored)
		terminal_print_error(session->unstored.buf);
	if (outcome < 0 || (!unstored && writing >= 0))
		return outcome;
	return OUTCOME_NOT_SAVED;
}

static void print_usage(FILE *to)
{
	fprintf(to, "usage: benchgate COMMAND [options]\n\n"
		    "CI regression benchmarking: run suites, store results "
		    "by commit and machine,\ncompare against a baseline, and "
		    "fail the build on a real regression.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		fprintf(to, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(to, "\n'benchgate COMMAND --help' shows a command's options.\n"
		    "exit status: 0 pass, 1 regression, 2 usage or input "
		    "error (nothing run), 3 a benchmark case failed,\n"
		    "4 measured but the result not stored (kept in the file "
		    "named) or an output not written\n");
}

static int exit_status(int outcome)
{
	if (outcome >= 0)
		return outcome;
	terminal_print_error(bg_error_last());
	return EXIT_INPUT;
}

int cli_main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	int status;

	if (!name || !strcmp(name, "--help") || !strcmp(name, "-h") ||
	    !strcmp(name, "help")) {
		print_usage(name ? stdout : stderr);
		return name ? EXIT_PASS : EXIT_INPUT;
	}
	if (!strcmp(name, "--version")) {
		printf("benchgate %s\n", BENCHGATE_VERSION);
		return EXIT_PASS;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++) {
		if (strcmp(commands[i].name, name))
			continue;
		gitinfo_libgit2_init();
		process_forward_termination();
		status = exit_status(commands[i].run(argc - 1, argv + 1));
		/* said why above; now end as the signal would have */
		process_end_if_interrupted();
		return status;
	}
	bg_error("unknown command '%s' (see 'benchgate --help')", name);
	terminal_print_error(bg_error_last());
	return EXIT_INPUT;
}
