/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GitHub Actions workflow commands: a line "::error title=T::MESSAGE" on
 * stdout becomes an annotation on the run and the pull request's checks.
 * The runner decodes %25 %0D %0A in the message, and also %3A %2C in
 * property values, where ':' and ',' are separators
 * (https://docs.github.com/actions/reference/workflow-commands-for-github-actions).
 * Names are user text, so a name holding "\n::add-mask::" or "%0A" must
 * come out as literal text, never as a second command; and an ESC or a
 * bidirectional override in one must not reach the log, which renders
 * ANSI sequences.
 */
#include "reporters/report.h"

#include "harness/util/format.h"
#include "harness/util/terminal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Text as the runner decodes it: control characters, overrides and bytes
 * that are no UTF-8 shown as \xNN (terminal.h), then GitHub's escapes for
 * data (% CR LF; none of the latter two is left) and, in a property, for
 * its separators ':' and ','. */
static void add_escaped(struct strbuf *out, const char *s, bool property)
{
	struct strbuf text = STRBUF_INIT;

	terminal_escape(&text, s);
	for (const char *p = text.buf; *p; p++) {
		if (*p == '%')
			strbuf_addstr(out, "%25");
		else if (*p == '\r')
			strbuf_addstr(out, "%0D");
		else if (*p == '\n')
			strbuf_addstr(out, "%0A");
		else if (property && *p == ':')
			strbuf_addstr(out, "%3A");
		else if (property && *p == ',')
			strbuf_addstr(out, "%2C");
		else
			strbuf_addch(out, *p);
	}
	strbuf_release(&text);
}

/* "infer-batch32/quantized/cpu latency +6.5% (1.70 ms -> 1.81 ms,
 * threshold 3%, p 0.0004)"; exact metrics give the absolute difference
 * and the tolerance instead. */
static void add_message(struct strbuf *out, const struct metric_comparison *mc,
			const struct report_item *item)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text, "%s/%s/%s %s ", mc->benchmark ? mc->benchmark : "",
		    mc->variant ? mc->variant : "",
		    mc->device ? mc->device : "", mc->metric ? mc->metric : "");
	if (mc->exact)
		strbuf_addstr(&text, item->difference);
	else
		format_change(&text, mc->change);
	strbuf_addstr(&text, " (");
	format_quantity(&text, mc->centre_baseline, mc->unit);
	strbuf_addstr(&text, " -> ");
	format_quantity(&text, mc->centre_candidate, mc->unit);
	if (mc->exact) {
		strbuf_addf(&text, ", tolerance %g)", mc->tolerance);
	} else {
		strbuf_addf(&text, ", threshold %.3g%%", mc->threshold * 100);
		if (isfinite(mc->p_adjusted)) {
			strbuf_addstr(&text, ", p ");
			format_p_value(&text, mc->p_adjusted);
		}
		strbuf_addch(&text, ')');
	}
	add_escaped(out, text.buf, false);
	strbuf_release(&text);
}

void report_github_annotations(const struct report_model *model,
			       struct strbuf *out)
{
	const struct comparison *comparison = model->comparison;

	assert(model->built);
	for (size_t i = 0; i < comparison->nr; i++) {
		const struct metric_comparison *mc = &comparison->items[i];

		if (mc->verdict != VERDICT_REGRESSION ||
		    !compare_item_gated(mc))
			continue;
		strbuf_addstr(out, "::error title=");
		add_escaped(out, "benchgate regression", true);
		strbuf_addstr(out, "::");
		add_message(out, mc, &model->items[i]);
		strbuf_addch(out, '\n');
	}
}

void report_annotate_ci(FILE *to, const struct report_model *model)
{
	const char *actions = getenv("GITHUB_ACTIONS");
	struct strbuf text = STRBUF_INIT;

	if (!actions || strcmp(actions, "true"))
		return;
	report_github_annotations(model, &text);
	fwrite(text.buf, 1, text.len, to);
	fflush(to);
	strbuf_release(&text);
}
