/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: every reporter (reporters/report.h) on what the
 * comparison reader accepts, as `benchgate report FILE` renders it: the
 * report model is built from the parsed comparison, then JUnit, Markdown,
 * HTML, CSV, OpenMetrics, the JSON document, the gnuplot charts' scripts
 * and data, the GitHub annotations and the terminal summary are each
 * rendered into memory. Nothing may crash, leak or do anything undefined,
 * and no user text may break out of an annotation into a workflow command
 * of its own.
 */
#include "harness/gate/compare.h"
#include "harness/util/strbuf.h"
#include "reporters/report.h"
#include "reporters/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef void (*render_fn)(const struct report_model *, struct strbuf *);

/* Every line of the annotations is one command benchgate wrote:
 * report_github_annotations() escapes CR and LF in what it quotes. */
static void check_annotations(const struct strbuf *text)
{
	for (const char *line = text->buf; *line;) {
		const char *end = strchr(line, '\n');

		FUZZ_CHECK(!strncmp(line, "::error ", 8) ||
			   !strncmp(line, "::warning ", 10) ||
			   !strncmp(line, "::notice ", 9));
		FUZZ_CHECK(end && !memchr(line, '\r', (size_t)(end - line)));
		line = end + 1;
	}
}

static void render_summary(const struct report_model *model)
{
	char *text = NULL;
	size_t len = 0;
	FILE *to = open_memstream(&text, &len);

	FUZZ_CHECK(to);
	summary_print_comparison(to, model, true, true);
	summary_print_comparison(to, model, false, false);
	fclose(to);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const render_fn renderers[] = {
		report_junit, report_markdown,	  report_html,
		report_csv,   report_openmetrics,
	};
	struct comparison *comparison = NULL;
	struct report_model model = { 0 };
	struct charts charts = CHARTS_INIT;
	struct strbuf out = STRBUF_INIT;

	if (comparison_parse(&comparison, (const char *)data, size,
			     "fuzz.json") < 0)
		return 0;
	model.comparison = comparison;
	model.repo_url = "https://github.com/o/r";
	report_model_build(&model);
	for (size_t i = 0; i < sizeof(renderers) / sizeof(*renderers); i++) {
		renderers[i](&model, &out);
		strbuf_reset(&out);
	}
	comparison_to_json(comparison, &out);
	strbuf_reset(&out);
	charts_render(&charts, &model);
	report_github_annotations(&model, &out);
	check_annotations(&out);
	render_summary(&model);
	charts_release(&charts);
	report_model_release(&model);
	comparison_free(comparison);
	strbuf_release(&out);
	return 0;
}
