#include "harness/cli/cli.h"

#include "harness/util/alloc.h"
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/store/result.h"
#include "harness/util/strbuf.h"
#include "reporters/report.h"

#include <stdio.h>
#include <string.h>

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
	.options = OPT_OUT,
	.min_args = 1,
	.max_args = 1,
};

/* A comparison document names itself; anything else must be a result. */
static bool is_comparison(const struct strbuf *text)
{
	return strstr(text->buf, "\"benchgate_comparison\"") != NULL;
}

int cmd_report(int argc, char **argv)
{
	struct report_model model = { 0 };
	struct comparison *comparison = NULL;
	struct compare_options compare_opts;
	struct result *result = NULL;
	struct strbuf text = STRBUF_INIT, written = STRBUF_INIT;
	struct cli_options opts;
	unsigned formats = REPORT_ALL;
	const char *input;
	int error;

	if ((error = cli_parse(&opts, &spec, argc, argv)) != 0)
		return error > 0 ? OUTCOME_PASS : error;
	input = opts.args[0];
	if (!opts.out_dir)
		return bg_input_error("report: --out DIR is required");
	if (opts.formats &&
	    (error = report_parse_formats(opts.formats, &formats)) < 0)
		return error;
	if ((error = strbuf_read_file(&text, input)) < 0)
		goto done;
	if (is_comparison(&text)) {
		error = comparison_parse(&comparison, text.buf, text.len,
					 input);
	} else if ((error = result_parse(&result, text.buf, text.len, input)) ==
		   BG_OK) {
		compare_options_init(&compare_opts);
		error = compare_results(&comparison, NULL, result,
					&compare_opts);
		/* the base of the result's artifact links (report.h) */
		if (!error)
			comparison->candidate.path = xstrdup(input);
	}
	if (error < 0)
		goto done;
	model.comparison = comparison;
	model.candidate = result;
	if ((error = report_write_all(&model, opts.out_dir, formats,
				      &written)) == BG_OK &&
	    !opts.quiet)
		fputs(written.buf, stdout);
done:
	comparison_free(comparison);
	result_free(result);
	strbuf_release(&text);
	strbuf_release(&written);
	return error < 0 ? error : OUTCOME_PASS;
}
