/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/outputs.h"

#include "harness/gate/compare.h"
#include "harness/run/session.h"
#include "harness/run/stacks.h"
#include "harness/store/store.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/terminal.h"
#include "reporters/flamegraph.h"
#include "reporters/report.h"

#include <stdio.h>
#include <stdlib.h>

int app_store_open(struct store **out, const char *spec)
{
	struct strbuf text = STRBUF_INIT;
	int error;

	if (spec)
		strbuf_addstr(&text, spec);
	else
		store_default_spec(&text, NULL);
	error = store_open(out, text.buf);
	strbuf_release(&text);
	return error;
}

int app_write_outputs(const struct report_model *model, const char *json_path,
		      const char *report_dir, size_t chart_cases, bool quiet)
{
	struct strbuf text = STRBUF_INIT;
	int error = BG_OK;

	if (json_path) {
		comparison_to_json(model->comparison, &text);
		error = write_file_atomic(json_path, text.buf, text.len);
	}
	if (!error && report_dir) {
		struct report_model bounded = *model;

		bounded.chart_cases = chart_cases;
		strbuf_reset(&text);
		error = report_write_all(&bounded, report_dir, REPORT_ALL,
					 &text);
		if (!error && !quiet)
			terminal_print_line(stdout, "reports in %s",
					    report_dir);
	}
	strbuf_release(&text);
	return error;
}

/* The run layer reads a profile's stacks, the reporters draw them: handed
 * over in the order they are drawn in. */
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

void app_draw_profiles(struct session *session)
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
