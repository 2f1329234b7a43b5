/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/terminal.h"
#include "harness/app/import.h"
#include "harness/store/store.h"
#include "reporters/summary.h"

#include <limits.h>
#include <stdio.h>

static struct {
	struct cli_common common;
	const char *store, *json, *format, *suite;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STORE(args.store),
	CLI_OPT_STRING("json", "FILE", &args.json,
		       "also write the result document to FILE"),
	CLI_OPT_STRING("format", "FMT", &args.format,
		       "the format of the files: gbench, hyperfine, "
		       "pytest-benchmark, customSmallerIsBetter, "
		       "customBiggerIsBetter"),
	CLI_OPT_STRING("suite", "S", &args.suite,
		       "the suite the result is of (default: the format's "
		       "name)"),
	CLI_COMMON_OPTS(args.common),
};


static bool any_failed(const struct result *result)
{
	for (size_t i = 0; i < result->cases_nr; i++)
		if (result->cases[i].status != CASE_OK)
			return true;
	return false;
}

static int run(int argc, char **argv)
{
	struct strbuf path = STRBUF_INIT, json = STRBUF_INIT;
	struct result *result = NULL;
	struct store *store = NULL;
	enum bridge_format format;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_import, &args.common, argc, argv);
	if (!args.format) {
		error = bg_input_error("import: --format FMT is required (see "
				       "'benchgate import --help')");
		goto done;
	}
	if ((error = bridge_format_parse(args.format, &format)) < 0 ||
	    (error = import_files(&result, format, args.common.args,
				  (size_t)args.common.args_nr,
				  args.suite ? args.suite
					     : bridge_format_names[format])) <
		    0 ||
	    (error = cli_open_store(&store, args.store)) < 0 ||
	    (error = store_write(store, result, NULL, &path)) < 0)
		goto done;
	if (args.json) {
		result_to_json(result, &json);
		if ((error = write_file_atomic(args.json, json.buf,
					       json.len)) < 0)
			goto done;
	}
	if (!args.common.quiet)
		summary_print_result(stdout, result, args.common.color);
	terminal_print_line(stdout, "stored %s", path.buf);
	error = any_failed(result) ? OUTCOME_CASE_FAILED : OUTCOME_PASS;
done:
	result_free(result);
	store_free(store);
	strbuf_release(&path);
	strbuf_release(&json);
	return error;
}

const struct cli_command cli_cmd_import = {
	.name = "import",
	.usage = "--format FMT FILE... [options]",
	.summary = "store a peer tool's results (Google Benchmark, hyperfine, ...)",
	.help = "FMT: gbench (Google Benchmark's JSON), hyperfine "
		"(--export-json), pytest-benchmark\n(--benchmark-json, or a "
		"saved run), customSmallerIsBetter or customBiggerIsBetter\n"
		"(github-action-benchmark's arrays). The benchmarks of every "
		"FILE become the cases\nof one result of suite --suite "
		"(default: FMT), stored under\n<store>/<commit>/<machine>/ "
		"as `run` stores its own, for compare, check and\nhistory. "
		"Each metric keeps how many independent values it holds: a "
		"peer's\nsummary is one, and the gate judges it as one "
		"(README \"Bridges\").\nExit status 3 when the tool reports "
		"a benchmark as failed.",
	.options = options,
	.min_args = 1,
	.max_args = INT_MAX,
	.run = run,
};
