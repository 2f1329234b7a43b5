/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OpenMetrics text (https://openmetrics.io), the format of GitLab's metrics
 * report (artifacts:reports:metrics), which shows in a merge request the
 * values that changed against the target branch's report. Every family is
 * a gauge with its samples together, as the format requires; a case and
 * metric is a label set; a value that is unknown (NaN) is left out rather
 * than written as NaN, so GitLab does not report it as changed on every
 * pipeline. The document ends with "# EOF".
 */
#include "reporters/report.h"

#include "reporters/escape.h"

#include <math.h>
#include <stdint.h>

/* The verdict as a number, for the benchgate_verdict family: 0 is fine,
 * positive is worse, so a chart of it reads the way a reader expects. */
static const struct {
	enum verdict verdict;
	int code;
} verdict_codes[] = {
	{ VERDICT_IMPROVEMENT, -1 }, { VERDICT_UNCHANGED, 0 },
	{ VERDICT_NEW, 0 },	     { VERDICT_SKIPPED, 0 },
	{ VERDICT_INCONCLUSIVE, 1 }, { VERDICT_MISSING, 2 },
	{ VERDICT_REGRESSION, 3 },   { VERDICT_FAILED, 4 },
};

static int verdict_code(enum verdict verdict)
{
	for (size_t i = 0; i < sizeof(verdict_codes) / sizeof(*verdict_codes);
	     i++)
		if (verdict_codes[i].verdict == verdict)
			return verdict_codes[i].code;
	return 0;
}

/* A metric name: [a-zA-Z_:][a-zA-Z0-9_:]*; anything else becomes '_'. */
static void add_name(struct strbuf *out, const char *name)
{
	const char *p = name ? name : "";

	if (!*p || (*p >= '0' && *p <= '9'))
		strbuf_addch(out, '_');
	for (; *p; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == ':';

		strbuf_addch(out, ok ? c : '_');
	}
}

/*
 * A label value between double quotes: backslash, double quote and newline
 * are the escapes the format has (\\ \" \n); everything else is literal
 * UTF-8, with invalid bytes replaced so the document stays valid UTF-8.
 */
static void add_label_value(struct strbuf *out, const char *value)
{
	const char *p = value ? value : "";

	while (*p) {
		uint32_t cp;
		size_t len = utf8_decode(p, &cp);

		if (cp == '\\')
			strbuf_addstr(out, "\\\\");
		else if (cp == '"')
			strbuf_addstr(out, "\\\"");
		else if (cp == '\n')
			strbuf_addstr(out, "\\n");
		else if (cp == UTF8_REPLACEMENT && len == 1)
			utf8_encode(out, cp);
		else
			strbuf_add(out, p, len);
		p += len;
	}
}

static void add_label(struct strbuf *out, bool *first, const char *name,
		      const char *value)
{
	if (!value || !*value) /* an empty value means no label */
		return;
	strbuf_addstr(out, *first ? "{" : ",");
	*first = false;
	strbuf_addf(out, "%s=\"", name);
	add_label_value(out, value);
	strbuf_addch(out, '"');
}

static void add_family(struct strbuf *out, const char *name, const char *help)
{
	strbuf_addstr(out, "# TYPE ");
	add_name(out, name);
	strbuf_addstr(out, " gauge\n# HELP ");
	add_name(out, name);
	strbuf_addch(out, ' ');
	add_label_value(out, help); /* HELP has the escapes of a label */
	strbuf_addch(out, '\n');
}

static void add_value(struct strbuf *out, double value)
{
	/* 12 digits, as the CSV: enough for any measurement, and 1.71 stays
	 * "1.71" in GitLab's widget instead of 1.7099999999999999. */
	strbuf_addf(out, " %.12g\n", value);
}

static void add_case_labels(struct strbuf *out, const struct comparison *c,
			    const struct metric_comparison *mc)
{
	bool first = true;

	add_label(out, &first, "suite", mc->suite ? mc->suite : c->suite);
	add_label(out, &first, "benchmark", mc->benchmark);
	add_label(out, &first, "variant", mc->variant);
	add_label(out, &first, "device", mc->device);
	add_label(out, &first, "metric", mc->metric);
	add_label(out, &first, "unit", mc->unit);
	if (!first)
		strbuf_addch(out, '}');
}

enum statistic {
	CANDIDATE_MEDIAN,
	BASELINE_MEDIAN,
	CHANGE,
	VERDICT
};

static const struct {
	enum statistic statistic;
	const char *name;
	const char *help;
} case_families[] = {
	{ CANDIDATE_MEDIAN, "benchgate_median",
	  "Median of this run's samples, in the metric's unit." },
	{ BASELINE_MEDIAN, "benchgate_baseline_median",
	  "Median of the baseline's samples, in the metric's unit." },
	{ CHANGE, "benchgate_change",
	  "Relative change against the baseline (0.065 is +6.5%), or the "
	  "absolute difference for exact metrics." },
	{ VERDICT, "benchgate_verdict",
	  "-1 improvement, 0 unchanged, new or skipped, 1 inconclusive, "
	  "2 missing, 3 regression, 4 failed." },
};

/* Whether mc has this statistic, and its value. */
static bool case_value(const struct metric_comparison *mc,
		       enum statistic statistic, double *value)
{
	switch (statistic) {
	case CANDIDATE_MEDIAN:
		*value = mc->candidate.median;
		return mc->has_candidate && mc->candidate.n;
	case BASELINE_MEDIAN:
		*value = mc->baseline.median;
		return mc->has_baseline && mc->baseline.n;
	case CHANGE:
		*value = mc->exact ? mc->candidate.median - mc->baseline.median
				   : mc->change;
		return mc->has_baseline && mc->has_candidate &&
		       mc->baseline.n && mc->candidate.n;
	case VERDICT:
		*value = verdict_code(mc->verdict);
		return true;
	}
	return false;
}

static void add_case_family(struct strbuf *out, const struct comparison *c,
			    size_t family)
{
	enum statistic statistic = case_families[family].statistic;

	add_family(out, case_families[family].name, case_families[family].help);
	for (size_t i = 0; i < c->nr; i++) {
		double value;

		if (!case_value(&c->items[i], statistic, &value) ||
		    !isfinite(value))
			continue;
		add_name(out, case_families[family].name);
		add_case_labels(out, c, &c->items[i]);
		add_value(out, value);
	}
}

static void add_speedups(struct strbuf *out, const struct comparison *c)
{
	add_family(out, "benchgate_speedup",
		   "Speed-up of a variant against \"original\" in this run "
		   "(time of original / time of the variant).");
	for (size_t i = 0; i < c->variants_nr; i++) {
		const struct variant_comparison *vc = &c->variants[i];
		bool first = true;

		if (!isfinite(vc->speedup))
			continue;
		add_name(out, "benchgate_speedup");
		add_label(out, &first, "suite", c->suite);
		add_label(out, &first, "benchmark", vc->benchmark);
		add_label(out, &first, "variant", vc->variant);
		add_label(out, &first, "device", vc->device);
		add_label(out, &first, "against", vc->against);
		if (!first)
			strbuf_addch(out, '}');
		add_value(out, vc->speedup);
	}
}

/* One line per verdict, zeros included, so the label sets are the same in
 * every pipeline and GitLab shows a count that moved as changed. */
static void add_counts(struct strbuf *out, const struct comparison *c)
{
	add_family(out, "benchgate_metrics",
		   "Number of compared case metrics with each verdict.");
	for (int v = 0; v < VERDICT_COUNT; v++) {
		bool first = true;

		add_name(out, "benchgate_metrics");
		add_label(out, &first, "suite", c->suite);
		add_label(out, &first, "verdict", verdict_name(v));
		strbuf_addch(out, '}');
		add_value(out, (double)c->counts[v]);
	}
}

void report_openmetrics(const struct report_model *model, struct strbuf *out)
{
	const struct comparison *c = model->comparison;

	for (size_t f = 0; f < sizeof(case_families) / sizeof(*case_families);
	     f++)
		add_case_family(out, c, f);
	add_speedups(out, c);
	add_counts(out, c);
	strbuf_addstr(out, "# EOF\n");
}
