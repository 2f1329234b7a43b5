/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CSV (RFC 4180, CRLF line ends): a header, then one row per case and
 * metric. Names and notes go through escape_csv(), which also defuses
 * spreadsheet formulas; numbers are written by this file, with an empty
 * field for an unknown one (NaN, or a p-value that was never computed).
 * `threshold` is the one the verdict used: the relative threshold, or the
 * absolute tolerance of an exact metric.
 */
#include "reporters/report.h"

#include "reporters/escape.h"

#include <math.h>

static const char *const columns[] = {
	"suite",
	"benchmark",
	"variant",
	"device",
	"metric",
	"unit",
	"better",
	"baseline_n",
	"baseline_median",
	"baseline_ci_low",
	"baseline_ci_high",
	"candidate_n",
	"candidate_median",
	"candidate_ci_low",
	"candidate_ci_high",
	"change",
	"change_ci_low",
	"change_ci_high",
	"p_value",
	"p_adjusted",
	"threshold",
	"verdict",
	"note",
};

static void add_side(struct strbuf *out, const struct stats_summary *side)
{
	strbuf_addf(out, ",%zu", side->n);
	escape_csv_number(out, side->median);
	escape_csv_number(out, side->ci_low);
	escape_csv_number(out, side->ci_high);
}

static void add_row(struct strbuf *out, const struct metric_comparison *mc)
{
	bool tested = mc->has_baseline && mc->has_candidate && !mc->exact;

	escape_csv(out, mc->suite);
	escape_csv_field(out, mc->benchmark);
	escape_csv_field(out, mc->variant);
	escape_csv_field(out, mc->device);
	escape_csv_field(out, mc->metric);
	escape_csv_field(out, mc->unit);
	escape_csv_field(out, better_names[mc->better]);
	add_side(out, &mc->baseline);
	add_side(out, &mc->candidate);
	escape_csv_number(out, mc->change);
	escape_csv_number(out, mc->change_low);
	escape_csv_number(out, mc->change_high);
	escape_csv_number(out, tested ? mc->p_value : NAN);
	escape_csv_number(out, tested ? mc->p_adjusted : NAN);
	escape_csv_number(out, mc->exact ? mc->tolerance : mc->threshold);
	escape_csv_field(out, verdict_name(mc->verdict));
	escape_csv_field(out, mc->note);
	strbuf_addstr(out, "\r\n");
}

void report_csv(const struct report_model *model, struct strbuf *out)
{
	const struct comparison *c = model->comparison;

	for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		strbuf_addf(out, "%s%s", i ? "," : "", columns[i]);
	strbuf_addstr(out, "\r\n");
	for (size_t i = 0; i < c->nr; i++)
		add_row(out, &c->items[i]);
}
