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

static const struct cli_command_spec spec = {
	.name = "import",
	.usage = "--format FMT FILE... [options]",
	.summary = "Store a peer tool's results as a result of this commit "
		   "and machine.",
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
	.options = OPT_STORE | OPT_JSON | OPT_IMPORT,
	.min_args = 1,
	.max_args = INT_MAX,
};

static bool any_failed(const struct result *result)
{
	for (size_t i = 0; i < result->cases_nr; i++)
		if (result->cases[i].status != CASE_OK)
			return true;
	return false;
}

int cmd_import(int argc, char **argv)
{
	struct strbuf path = STRBUF_INIT, json = STRBUF_INIT;
	struct result *result = NULL;
	struct store *store = NULL;
	struct cli_options opts;
	enum bridge_format format;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (!opts.formats) {
		error = bg_input_error("import: --format FMT is required (see "
				       "'benchgate import --help')");
		goto done;
	}
	if ((error = bridge_format_parse(opts.formats, &format)) < 0 ||
	    (error = import_files(&result, format, opts.args,
				  (size_t)opts.args_nr,
				  opts.suite ? opts.suite
					     : bridge_format_names[format])) <
		    0 ||
	    (error = cli_open_store(&store, &opts)) < 0 ||
	    (error = store_write(store, result, NULL, &path)) < 0)
		goto done;
	if (opts.json_path) {
		result_to_json(result, &json);
		if ((error = write_file_atomic(opts.json_path, json.buf,
					       json.len)) < 0)
			goto done;
	}
	if (!opts.quiet)
		summary_print_result(stdout, result, opts.color);
	terminal_print_line(stdout, "stored %s", path.buf);
	error = any_failed(result) ? OUTCOME_CASE_FAILED : OUTCOME_PASS;
done:
	result_free(result);
	store_free(store);
	strbuf_release(&path);
	strbuf_release(&json);
	return error;
}
