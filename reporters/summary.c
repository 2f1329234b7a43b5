#include "reporters/summary.h"

#include "harness/util/format.h"

#include <math.h>
#include <string.h>

#define RED    "\033[31m"
#define GREEN  "\033[32m"
#define YELLOW "\033[33m"
#define BOLD   "\033[1m"
#define RESET  "\033[0m"

static const char *paint(bool color, const char *code)
{
	return color ? code : "";
}

static void print_metric_row(FILE *to, const char *case_id,
			     const struct metric_samples *m,
			     const struct report_measure *measure)
{
	struct strbuf median = STRBUF_INIT;

	format_quantity(&median, measure->median, m->unit);
	fprintf(to, "  %-36s %-16s %18s", case_id, m->name, median.buf);
	if (m->exact || m->nr < 2)
		fprintf(to, " %9s", "");
	else
		fprintf(to, " %8.1f%%", measure->spread * 100);
	fprintf(to, " %5zu\n", m->nr);
	strbuf_release(&median);
}

void summary_print_result(FILE *to, const struct result *result, bool color)
{
	struct report_model model = { .candidate = result };

	report_model_build(&model);
	fprintf(to, "%s%s%s at %.12s%s%s%s on machine %s\n", paint(color, BOLD),
		result->suite, paint(color, RESET), result->git.commit,
		result->git.branch ? " (" : "",
		result->git.branch ? result->git.branch : "",
		result->git.branch ? (result->git.dirty ? ", dirty)" : ")")
				   : (result->git.dirty ? " (dirty)" : ""),
		result->machine.id);
	fprintf(to, "  %-36s %-16s %18s %9s %5s\n", "case", "metric", "median",
		"spread", "n");
	for (size_t i = 0; i < result->cases_nr; i++) {
		const struct result_case *c = &result->cases[i];
		char id[256];

		snprintf(id, sizeof(id), "%s/%s/%s", c->benchmark, c->variant,
			 c->device);
		if (c->status != CASE_OK) {
			const char *reason = c->reason ? c->reason : "";
			int first_line = (int)strcspn(reason, "\n");

			fprintf(to, "  %-36s %s%s%s: %.*s\n", id,
				paint(color,
				      c->status == CASE_SKIPPED ? YELLOW : RED),
				case_status_name(c->status),
				paint(color, RESET), first_line, reason);
			continue;
		}
		for (size_t j = 0; j < c->metrics_nr; j++)
			print_metric_row(to, j ? "" : id, &c->metrics[j],
					 &model.cases[i].metrics[j]);
	}
	report_model_release(&model);
}

static const char *verdict_color(enum verdict verdict)
{
	switch (verdict) {
	case VERDICT_REGRESSION:
	case VERDICT_FAILED:
		return RED;
	case VERDICT_IMPROVEMENT:
		return GREEN;
	case VERDICT_INCONCLUSIVE:
	case VERDICT_SKIPPED:
	case VERDICT_MISSING:
		return YELLOW;
	default:
		return "";
	}
}

/* The change column is item->relative for exact metrics too, where the
 * reports show the difference against the tolerance. */
static void print_comparison_row(FILE *to, const struct metric_comparison *mc,
				 const struct report_item *item, bool color)
{
	struct strbuf base = STRBUF_INIT, cand = STRBUF_INIT;
	struct strbuf p = STRBUF_INIT;
	char id[256];

	snprintf(id, sizeof(id), "%s/%s/%s %s", mc->benchmark, mc->variant,
		 mc->device, mc->metric);
	format_quantity(&base, mc->baseline.median, mc->unit);
	format_quantity(&cand, mc->candidate.median, mc->unit);
	if (!mc->exact && item->compared)
		format_p_value(&p, mc->p_adjusted);
	fprintf(to, "  %-44s %12s %12s %-26s %8s %s%s%s", id, base.buf,
		cand.buf, item->relative, p.buf,
		paint(color, verdict_color(mc->verdict)),
		verdict_name(mc->verdict), paint(color, RESET));
	if (mc->note &&
	    (mc->verdict == VERDICT_FAILED || mc->verdict == VERDICT_SKIPPED))
		fprintf(to, ": %.*s", (int)strcspn(mc->note, "\n"), mc->note);
	fputc('\n', to);
	strbuf_release(&base);
	strbuf_release(&cand);
	strbuf_release(&p);
}

/* Inconclusive means "more runs would decide"; say so, and when the runs
 * of those metrics drift, say how few independent values they counted as:
 * that, not the run count, is what kept them from deciding. */
static void print_inconclusive_hint(FILE *to,
				    const struct comparison *comparison)
{
	double fewest = INFINITY;
	bool dependent = false;

	if (!comparison->counts[VERDICT_INCONCLUSIVE])
		return;
	for (size_t i = 0; i < comparison->nr; i++) {
		const struct metric_comparison *mc = &comparison->items[i];

		if (mc->verdict != VERDICT_INCONCLUSIVE)
			continue;
		fewest = fmin(fewest,
			      fmin(mc->n_eff_baseline, mc->n_eff_candidate));
		dependent |=
			mc->n_eff_baseline < (double)mc->n_tested_baseline ||
			mc->n_eff_candidate < (double)mc->n_tested_candidate;
	}
	fprintf(to, "  note: inconclusive changes need more runs to decide "
		    "(--runs auto samples until they are)");
	if (dependent)
		fprintf(to,
			"; their runs drift from one to the next, so they "
			"count as no more than %.1f independent values a side",
			fewest);
	fputc('\n', to);
}

/* ASCII and fixed decimals, unlike the reports' "2.7× [2.55×, 2.86×]"
 * (report.h): printf pads by bytes, and a × is two. */
static void print_variants(FILE *to, const struct comparison *comparison)
{
	if (!comparison->variants_nr)
		return;
	fprintf(to, "\n  %-40s %22s %10s %14s\n", "variant vs original",
		"speed-up [interval]", "size", "accuracy");
	for (size_t i = 0; i < comparison->variants_nr; i++) {
		const struct variant_comparison *vc = &comparison->variants[i];
		char id[256], speed[64], size[32], acc[32];

		snprintf(id, sizeof(id), "%s/%s/%s", vc->benchmark, vc->variant,
			 vc->device);
		snprintf(speed, sizeof(speed), "%.2fx [%.2f, %.2f]",
			 vc->speedup, vc->speedup_low, vc->speedup_high);
		if (isnan(vc->size_ratio))
			snprintf(size, sizeof(size), "-");
		else
			snprintf(size, sizeof(size), "%.2fx", vc->size_ratio);
		if (isnan(vc->accuracy_delta))
			snprintf(acc, sizeof(acc), "-");
		else
			snprintf(acc, sizeof(acc), "%+.2f pts",
				 vc->accuracy_delta * 100);
		fprintf(to, "  %-40s %22s %10s %14s\n", id, speed, size, acc);
	}
}

void summary_print_comparison(FILE *to, const struct comparison *comparison,
			      bool color, bool all)
{
	static const enum verdict order[] = {
		VERDICT_REGRESSION,   VERDICT_FAILED,	 VERDICT_IMPROVEMENT,
		VERDICT_INCONCLUSIVE, VERDICT_SKIPPED,	 VERDICT_MISSING,
		VERDICT_NEW,	      VERDICT_UNCHANGED,
	};
	struct report_model model = { .comparison = comparison };
	const size_t *n = comparison->counts;
	size_t hidden = 0;

	report_model_build(&model);
	fprintf(to,
		"%s%s%s: %zu regression%s, %zu improvement%s, %zu "
		"unchanged, %zu inconclusive, %zu failed, %zu new\n",
		paint(color, comparison->overall == OVERALL_PASS ? GREEN : RED),
		comparison->overall == OVERALL_PASS	    ? "PASS"
		: comparison->overall == OVERALL_REGRESSION ? "REGRESSION"
							    : "FAILED",
		paint(color, RESET), n[VERDICT_REGRESSION],
		n[VERDICT_REGRESSION] == 1 ? "" : "s", n[VERDICT_IMPROVEMENT],
		n[VERDICT_IMPROVEMENT] == 1 ? "" : "s", n[VERDICT_UNCHANGED],
		n[VERDICT_INCONCLUSIVE], n[VERDICT_FAILED], n[VERDICT_NEW]);
	fprintf(to, "  baseline %.12s (%s) vs candidate %.12s\n",
		comparison->baseline.commit,
		comparison->baseline.source ? comparison->baseline.source
					    : "file",
		comparison->candidate.commit);
	fprintf(to, "  %-44s %12s %12s %-26s %8s %s\n", "case metric",
		"baseline", "candidate", "change [interval]", "p", "verdict");
	for (size_t o = 0; o < sizeof(order) / sizeof(*order); o++) {
		bool quiet = order[o] == VERDICT_UNCHANGED ||
			     order[o] == VERDICT_NEW;

		for (size_t i = 0; i < comparison->nr; i++) {
			const struct metric_comparison *mc =
				&comparison->items[i];

			if (mc->verdict != order[o])
				continue;
			if (quiet && !all)
				hidden++;
			else
				print_comparison_row(to, mc, &model.items[i],
						     color);
		}
	}
	if (hidden)
		fprintf(to,
			"  ... and %zu unchanged or new (--json or a report "
			"lists them)\n",
			hidden);
	print_inconclusive_hint(to, comparison);
	print_variants(to, comparison);
	report_model_release(&model);
}
