/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/app/import.h"

#include <limits.h>

static struct {
	struct cli_common common;
	struct app_import_request req;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.req.store),
	CLI_OPT_JSON(args.req.json, "result"),
	CLI_OPT_STRING("format", "FMT", &args.req.format,
		       "the format of the files: gbench, hyperfine, "
		       "pytest-benchmark, customSmallerIsBetter, "
		       "customBiggerIsBetter, optimum"),
	CLI_OPT_STRING("suite", "S", &args.req.suite,
		       "the suite the result is of (default: the format's "
		       "name)"),
	CLI_COMMON_OPTS(args.common),
};

static int run(int argc, char **argv)
{
	CLI_PARSE_OR_RETURN(&cli_cmd_import, &args.common, argc, argv);
	args.req.files = args.common.args;
	args.req.files_nr = (size_t)args.common.args_nr;
	args.req.quiet = args.common.quiet;
	args.req.color = args.common.color;
	return app_import(&args.req);
}

const struct cli_command cli_cmd_import = {
	.name = "import",
	.usage = "--format FMT FILE... [options]",
	.summary = "store a peer tool's results (Google Benchmark, hyperfine, ...)",
	.help = "FMT: gbench (Google Benchmark's JSON), hyperfine "
		"(--export-json), pytest-benchmark\n(--benchmark-json, or a "
		"saved run), customSmallerIsBetter or customBiggerIsBetter\n"
		"(github-action-benchmark's arrays), optimum "
		"(optimum-benchmark's benchmark_report.json,\nor its "
		"benchmark.json: each phase, such as prefill or decode, is a "
		"benchmark).\nThe benchmarks of every FILE become the cases "
		"of one result of suite --suite\n(default: FMT), stored "
		"under <store>/<commit>/<machine>/ as `run` stores its\nown, "
		"for compare, check and history. Each metric keeps how many "
		"independent\nvalues it holds: a peer's summary is one, and "
		"the gate judges it as one\n(README \"Bridges\"). Exit "
		"status 3 when the tool reports a benchmark as failed.",
	.options = options,
	.min_args = 1,
	.max_args = INT_MAX,
	.run = run,
};
