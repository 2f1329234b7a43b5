/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/model/result.h"
#include "reporters/report.h"

#include <stdio.h>

static const struct cli_command_spec spec = {
	.name = "report",
	.usage = "RESULT|COMPARISON --out DIR [--format LIST]",
	.summary = "Write reports for a result file or a comparison document.",
	.help = "INPUT is a result file (every metric is reported as \"new\", "
		"with the variant\ncomparison) or a comparison written by check "
		"or compare --json. LIST is a\ncomma-separated subset of junit, "
		"markdown, html, json, csv, openmetrics, charts\n(default all). "
		"Files: junit.xml report.md report.html comparison.json\n"
		"comparison.csv metrics.txt charts/.",
	.options = OPT_OUT | OPT_FORMAT,
	.min_args = 1,
	.max_args = 1,
};

int cmd_report(int argc, char **argv)
{
	struct report_model model = { 0 };
	struct comparison *comparison = NULL;
	struct result *result = NULL;
	struct strbuf written = STRBUF_INIT;
	struct cli_options opts;
	unsigned formats = REPORT_ALL;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	if (!opts.out_dir)
		return bg_input_error("report: --out DIR is required");
	if (opts.formats &&
	    (error = report_parse_formats(opts.formats, &formats)) < 0)
		return error;
	if ((error = comparison_read(&comparison, &result, opts.args[0])) < 0)
		goto done;
	model.comparison = comparison;
	model.candidate = result;
	model.chart_cases = opts.chart_cases;
	if ((error = report_write_all(&model, opts.out_dir, formats,
				      &written)) == BG_OK &&
	    !opts.quiet)
		terminal_write(stdout, written.buf, 0);
done:
	comparison_free(comparison);
	result_free(result);
	strbuf_release(&written);
	return error < 0 ? error : OUTCOME_PASS;
}
