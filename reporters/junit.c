/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JUnit XML, in the structure of the Jenkins junit-10 schema that GitLab,
 * GitHub test reporters and Jenkins read (tests/fixtures/junit.xsd):
 * a <testsuite> per suite, a <testcase> per case and metric.
 *
 * That schema allows <properties> only on a testsuite (which is why pytest
 * refuses record_property under its xunit2 family), so the figures of each
 * testcase are suite properties named
 * "<benchmark>.<variant>.<device>.<metric>.<figure>", and a readable copy
 * is the testcase's <system-out>.
 *
 * Verdicts: regression -> <failure>, failed -> <error> with the note (which
 * carries the tail of the output), skipped and missing -> <skipped>
 * (nothing was measured on the candidate); the rest pass.
 */
#include "reporters/report.h"

#include "reporters/escape.h"
#include "harness/util/format.h"
#include "harness/util/isotime.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void add_attr(struct strbuf *out, const char *name, const char *value)
{
	strbuf_addf(out, " %s=\"", name);
	escape_xml_attr(out, value);
	strbuf_addch(out, '"');
}

static void add_number(struct strbuf *out, double value)
{
	if (isfinite(value))
		strbuf_addf(out, "%.10g", value);
}

static void add_property(struct strbuf *out, const char *prefix,
			 const char *name, const char *value)
{
	struct strbuf full = STRBUF_INIT;

	strbuf_addf(&full, "%s%s%s", prefix, *prefix ? "." : "", name);
	strbuf_addstr(out, "      <property");
	add_attr(out, "name", full.buf);
	add_attr(out, "value", value ? value : "");
	strbuf_addstr(out, "/>\n");
	strbuf_release(&full);
}

static void add_number_property(struct strbuf *out, const char *prefix,
				const char *name, double value)
{
	struct strbuf text = STRBUF_INIT;

	add_number(&text, value);
	add_property(out, prefix, name, text.buf);
	strbuf_release(&text);
}

static void add_case_id(struct strbuf *out, const struct metric_comparison *mc,
			bool with_suite)
{
	if (with_suite)
		strbuf_addf(out, "%s.", mc->suite);
	strbuf_addf(out, "%s.%s.%s", mc->benchmark, mc->variant, mc->device);
}

static void add_case_properties(struct strbuf *out,
				const struct metric_comparison *mc)
{
	struct strbuf prefix = STRBUF_INIT;

	add_case_id(&prefix, mc, false);
	strbuf_addf(&prefix, ".%s", mc->metric);
	add_property(out, prefix.buf, "unit", mc->unit);
	add_number_property(out, prefix.buf, "baseline_median",
			    mc->baseline.median);
	add_number_property(out, prefix.buf, "candidate_median",
			    mc->candidate.median);
	add_number_property(out, prefix.buf, "change", mc->change);
	add_number_property(out, prefix.buf, "change_low", mc->change_low);
	add_number_property(out, prefix.buf, "change_high", mc->change_high);
	if (mc->has_baseline && mc->has_candidate && !mc->exact) {
		add_number_property(out, prefix.buf, "p_value", mc->p_value);
		add_number_property(out, prefix.buf, "p_adjusted",
				    mc->p_adjusted);
	}
	add_number_property(out, prefix.buf,
			    mc->exact ? "tolerance" : "threshold",
			    mc->exact ? mc->tolerance : mc->threshold);
	add_property(out, prefix.buf, "verdict", verdict_name(mc->verdict));
	strbuf_release(&prefix);
}

/* "+6.5% [+4.8%, +8.1%]", or "-0.0100" for an exact metric: the tolerance
 * follows in words. */
static void add_change(struct strbuf *out, const struct metric_comparison *mc,
		       const struct report_item *item)
{
	strbuf_addstr(out, mc->exact ? item->difference : item->relative);
}

/* The one-line reason a regression fails:
 * "latency +6.5% [+4.8%, +8.1%] > threshold 3%". */
static void add_failure_message(struct strbuf *out,
				const struct metric_comparison *mc,
				const struct report_item *item)
{
	strbuf_addf(out, "%s ", mc->metric);
	add_change(out, mc, item);
	if (mc->exact)
		strbuf_addf(out, " beyond tolerance %g", mc->tolerance);
	else
		strbuf_addf(out, " %s threshold %.3g%%",
			    mc->change > 0 ? ">" : "<",
			    (mc->change > 0 ? 100 : -100) * mc->threshold);
}

static void add_side(struct strbuf *out, const char *label,
		     const struct metric_comparison *mc,
		     const struct stats_summary *side, bool present)
{
	strbuf_addf(out, "%-10s ", label);
	if (!present) {
		strbuf_addstr(out, "none\n");
		return;
	}
	format_quantity(out, side->median, mc->unit);
	strbuf_addf(out, " (median of %zu", side->n);
	if (!mc->exact && side->n > 1) {
		strbuf_addstr(out, ", interval ");
		format_quantity(out, side->ci_low, mc->unit);
		strbuf_addstr(out, " to ");
		format_quantity(out, side->ci_high, mc->unit);
	}
	strbuf_addstr(out, ")\n");
}

/* What a human reads in the CI's test view, unescaped. */
static void add_readable(struct strbuf *out, const struct metric_comparison *mc,
			 const struct report_item *item)
{
	strbuf_addf(out, "%s/%s/%s %s: %s\n", mc->benchmark, mc->variant,
		    mc->device, mc->metric, verdict_name(mc->verdict));
	if (mc->has_baseline || mc->has_candidate) {
		add_side(out, "baseline", mc, &mc->baseline, mc->has_baseline);
		add_side(out, "candidate", mc, &mc->candidate,
			 mc->has_candidate);
	}
	if (mc->has_baseline && mc->has_candidate) {
		strbuf_addf(out, "%-10s ", "change");
		add_change(out, mc, item);
		if (mc->exact)
			strbuf_addf(out, ", tolerance %g\n", mc->tolerance);
		else
			strbuf_addf(out, ", threshold %.3g%%\n",
				    100 * mc->threshold);
	}
	if (mc->has_baseline && mc->has_candidate && !mc->exact) {
		strbuf_addf(out, "%-10s ", "p-value");
		format_p_value(out, mc->p_value);
		strbuf_addstr(out, " (adjusted ");
		format_p_value(out, mc->p_adjusted);
		strbuf_addstr(out, ")\n");
	}
	/* A failure's note is the body of its <error> already, a skip's
	 * reason a property. */
	if (mc->note && mc->verdict != VERDICT_FAILED && !item->skip)
		strbuf_addf(out, "note: %s\n", mc->note);
}

/* The first line of a note, for a message attribute. */
static void add_first_line(struct strbuf *out, const char *note)
{
	const char *text = note ? note : "";

	strbuf_add(out, text, strcspn(text, "\n"));
}

/*
 * A failed case is an error on the testcase of each of its metrics; the
 * first carries why, the last lines of its stderr and its log, the others
 * point there. A skipped one names its reason by number: the reasons are
 * the suite's properties skipped.reason.N, each said once.
 */
static void add_outcome(struct strbuf *out, const struct metric_comparison *mc,
			const struct report_item *item, bool case_first)
{
	struct strbuf message = STRBUF_INIT, text = STRBUF_INIT;
	const char *element = NULL, *type = NULL;
	const char *body = NULL;

	switch (mc->verdict) {
	case VERDICT_REGRESSION:
		if (!compare_item_gated(mc))
			goto done; /* information, never a failure */
		element = "failure", type = "regression";
		add_failure_message(&message, mc, item);
		break;
	case VERDICT_FAILED:
		element = "error", type = "failed";
		add_first_line(&message, mc->note ? mc->note : "case failed");
		if (case_first) {
			strbuf_addstr(&text, mc->note ? mc->note : "");
			if (mc->log)
				strbuf_addf(&text, "\nlog: %s", mc->log);
		} else {
			strbuf_addstr(&text, "the case failed: its first "
					     "metric's testcase has why");
		}
		body = text.buf;
		break;
	case VERDICT_SKIPPED:
		element = "skipped";
		if (item->skip)
			strbuf_addf(&message,
				    "skipped: reason %zu (the testsuite's "
				    "property skipped.reason.%zu)",
				    item->skip, item->skip);
		else
			add_first_line(&message, mc->note);
		break;
	case VERDICT_MISSING:
		element = "skipped";
		strbuf_addf(&message, "%s: ", verdict_name(mc->verdict));
		add_first_line(&message, mc->note);
		break;
	default:
		goto done;
	}
	strbuf_addf(out, "      <%s", element);
	add_attr(out, "message", message.buf);
	if (type)
		add_attr(out, "type", type);
	if (body) {
		strbuf_addch(out, '>');
		escape_xml_text(out, body);
		strbuf_addf(out, "</%s>\n", element);
	} else {
		strbuf_addstr(out, "/>\n");
	}
done:
	strbuf_release(&message);
	strbuf_release(&text);
}

static void add_testcase(struct strbuf *out, const struct metric_comparison *mc,
			 const struct report_item *item, bool case_first)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addstr(out, "    <testcase");
	add_attr(out, "name", mc->metric);
	add_case_id(&text, mc, true);
	add_attr(out, "classname", text.buf);
	strbuf_addstr(out, ">\n");
	add_outcome(out, mc, item, case_first);
	strbuf_reset(&text);
	add_readable(&text, mc, item);
	strbuf_addstr(out, "      <system-out>");
	escape_xml_text(out, text.buf);
	strbuf_addstr(out, "</system-out>\n    </testcase>\n");
	strbuf_release(&text);
}

/* Seconds since the epoch of an ISO 8601 time, "2026-11-22T07:34:22Z";
 * -1 for anything else, which then stays out of the XML (the schema wants
 * an xs:dateTime there). */
static double parse_utc(const char *text)
{
	double seconds;

	return iso8601_parse(text, &seconds) ? seconds : -1;
}

static void add_suite_timing(struct strbuf *out, const struct result *cand)
{
	double started, finished;

	if (!cand)
		return;
	started = parse_utc(cand->started_at);
	finished = parse_utc(cand->finished_at);
	if (started >= 0 && finished >= started)
		strbuf_addf(out, " time=\"%.0f\"", finished - started);
	if (started >= 0)
		add_attr(out, "timestamp", cand->started_at);
}

static void add_run_properties(struct strbuf *out, const struct comparison *c)
{
	struct strbuf text = STRBUF_INIT;

	add_property(out, "", "baseline.commit", c->baseline.commit);
	add_property(out, "", "baseline.machine", c->baseline.machine);
	add_property(out, "", "baseline.source", c->baseline.source);
	add_property(out, "", "candidate.commit", c->candidate.commit);
	add_property(out, "", "candidate.machine", c->candidate.machine);
	strbuf_addf(&text, "%g", c->confidence);
	add_property(out, "", "confidence", text.buf);
	add_property(out, "", "verdict", overall_name(c->overall));
	strbuf_release(&text);
}

/* Each reason to skip once: "skipped.reason.1". */
static void add_skip_properties(struct strbuf *out,
				const struct report_model *model)
{
	struct strbuf name = STRBUF_INIT;

	for (size_t g = 0; g < model->skips_nr; g++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "skipped.reason.%zu", g + 1);
		add_property(out, "", name.buf, model->skips[g].reason);
	}
	strbuf_release(&name);
}

static bool in_suite(const struct metric_comparison *mc, const char *suite)
{
	return !strcmp(mc->suite ? mc->suite : "", suite);
}

static void add_count(struct strbuf *out, const char *name, size_t count)
{
	char number[32];

	snprintf(number, sizeof(number), "%zu", count);
	add_attr(out, name, number);
}

static void add_testsuite(struct strbuf *out, const struct report_model *model,
			  const char *suite)
{
	const struct comparison *c = model->comparison;
	size_t counts[VERDICT_COUNT] = { 0 }, tests = 0;

	for (size_t i = 0; i < c->nr; i++)
		if (in_suite(&c->items[i], suite)) {
			counts[c->items[i].verdict] +=
				compare_item_gated(&c->items[i]);
			tests++;
		}
	strbuf_addstr(out, "  <testsuite");
	add_attr(out, "name", suite);
	add_count(out, "tests", tests);
	add_count(out, "failures", counts[VERDICT_REGRESSION]);
	add_count(out, "errors", counts[VERDICT_FAILED]);
	add_count(out, "skipped",
		  counts[VERDICT_SKIPPED] + counts[VERDICT_MISSING]);
	add_suite_timing(out, model->candidate);
	strbuf_addstr(out, ">\n    <properties>\n");
	add_run_properties(out, c);
	add_skip_properties(out, model);
	for (size_t i = 0; i < c->nr; i++)
		if (in_suite(&c->items[i], suite))
			add_case_properties(out, &c->items[i]);
	strbuf_addstr(out, "    </properties>\n");
	for (size_t i = 0; i < c->nr; i++)
		if (in_suite(&c->items[i], suite))
			add_testcase(out, &c->items[i], &model->items[i],
				     report_case_starts(c, i));
	strbuf_addstr(out, "  </testsuite>\n");
}

void report_junit(const struct report_model *model, struct strbuf *out)
{
	const struct comparison *c = model->comparison;

	assert(model->built);
	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_addstr(out, "<testsuites name=\"benchgate\"");
	add_count(out, "tests", c->nr);
	add_count(out, "failures", c->counts[VERDICT_REGRESSION]);
	add_count(out, "errors", c->counts[VERDICT_FAILED]);
	strbuf_addstr(out, ">\n");
	/* Each suite where its first item is; a comparison without items
	 * still shows its suite, with no tests. */
	if (!c->nr)
		add_testsuite(out, model, c->suite ? c->suite : "");
	for (size_t i = 0; i < c->nr; i++) {
		const char *suite = c->items[i].suite ? c->items[i].suite : "";
		size_t j = 0;

		while (j < i && !in_suite(&c->items[j], suite))
			j++;
		if (j == i)
			add_testsuite(out, model, suite);
	}
	strbuf_addstr(out, "</testsuites>\n");
}
