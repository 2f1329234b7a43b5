/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/terminal.h"
#include "harness/model/result.h"
#include "reporters/report.h"

#include <stdio.h>

static struct {
	struct cli_common common;
	const char *out, *formats;
	size_t chart_cases;
} args;

static const struct cli_opt options[] = {
	CLI_OPT_STRING("out", "DIR", &args.out,
		       "write the reports into DIR (created if missing)"),
	CLI_OPT_STRING("format", "LIST", &args.formats,
		       "comma-separated formats: junit, markdown, html, json, "
		       "csv, openmetrics, charts (default all)"),
	CLI_OPT_CHARTS(args.chart_cases),
	CLI_COMMON_OPTS(args.common),
};


static int run(int argc, char **argv)
{
	struct report_model model = { 0 };
	struct comparison *comparison = NULL;
	struct result *result = NULL;
	struct strbuf written = STRBUF_INIT;
	unsigned formats = REPORT_ALL;
	int error;

	CLI_PARSE_OR_RETURN(&cli_cmd_report, &args.common, argc, argv);
	if (!args.out)
		return bg_input_error("report: --out DIR is required");
	if (args.formats &&
	    (error = report_parse_formats(args.formats, &formats)) < 0)
		return error;
	if ((error = comparison_read(&comparison, &result, args.common.args[0])) < 0)
		goto done;
	model.comparison = comparison;
	model.candidate = result;
	model.chart_cases = args.chart_cases;
	if ((error = report_write_all(&model, args.out, formats,
				      &written)) == BG_OK &&
	    !args.common.quiet)
		terminal_write(stdout, written.buf, 0);
done:
	comparison_free(comparison);
	result_free(result);
	strbuf_release(&written);
	return error < 0 ? error : OUTCOME_PASS;
}

const struct cli_command cli_cmd_report = {
	.name = "report",
	.usage = "RESULT|COMPARISON --out DIR [--format LIST]",
	.summary = "write JUnit, Markdown, HTML, JSON, CSV, OpenMetrics and charts",
	.help = "INPUT is a result file (every metric is reported as \"new\", "
		"with the variant\ncomparison) or a comparison written by check "
		"or compare --json. LIST is a\ncomma-separated subset of junit, "
		"markdown, html, json, csv, openmetrics, charts\n(default all). "
		"Files: junit.xml report.md report.html comparison.json\n"
		"comparison.csv metrics.txt charts/.",
	.options = options,
	.min_args = 1,
	.max_args = 1,
	.run = run,
};
