#include "reporters/summary.h"

#include "harness/util/format.h"
#include "harness/util/terminal.h"

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

/* Appends "benchmark/variant/device", escaped for the terminal. */
static void add_case_id(struct strbuf *out, const char *benchmark,
			const char *variant, const char *device)
{
	terminal_escape(out, benchmark);
	strbuf_addch(out, '/');
	terminal_escape(out, variant);
	strbuf_addch(out, '/');
	terminal_escape(out, device);
}

/* Appends a commit id cut to 12 characters, escaped for the terminal. */
static void add_commit(struct strbuf *out, const char *commit)
{
	struct strbuf abbrev = STRBUF_INIT;

	strbuf_addf(&abbrev, "%.12s", commit);
	terminal_escape(out, abbrev.buf);
	strbuf_release(&abbrev);
}

/* Appends the first line of text, escaped for the terminal. */
static void add_first_line(struct strbuf *out, const char *text)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_add(&line, text, strcspn(text, "\n"));
	terminal_escape(out, line.buf);
	strbuf_release(&line);
}

/* Writes the composed text: every user string in it is escaped already,
 * and the guard keeps a line from reading as a workflow command. */
static void write_text(FILE *to, const struct strbuf *text, bool color)
{
	terminal_write(to, text->buf, color ? TERMINAL_COLOR : 0);
}

static void add_metric_row(struct strbuf *text, const char *case_id,
			   const struct metric_samples *m,
			   const struct report_measure *measure)
{
	struct strbuf median = STRBUF_INIT, quantity = STRBUF_INIT,
		      name = STRBUF_INIT;

	format_quantity(&quantity, measure->median, m->unit);
	terminal_escape(&median, quantity.buf);
	terminal_escape(&name, m->name);
	strbuf_addf(text, "  %-36s %-16s %18s", case_id, name.buf, median.buf);
	if (m->exact || m->nr < 2)
		strbuf_addf(text, " %9s", "");
	else
		strbuf_addf(text, " %8.1f%%", measure->spread * 100);
	strbuf_addf(text, " %5zu\n", m->nr);
	strbuf_release(&median);
	strbuf_release(&quantity);
	strbuf_release(&name);
}

void summary_print_result(FILE *to, const struct result *result, bool color)
{
	struct report_model model = { .candidate = result };
	struct strbuf text = STRBUF_INIT, id = STRBUF_INIT;

	report_model_build(&model);
	strbuf_addstr(&text, paint(color, BOLD));
	terminal_escape(&text, result->suite);
	strbuf_addf(&text, "%s at ", paint(color, RESET));
	add_commit(&text, result->git.commit);
	if (result->git.branch) {
		strbuf_addstr(&text, " (");
		terminal_escape(&text, result->git.branch);
		strbuf_addstr(&text, result->git.dirty ? ", dirty)" : ")");
	} else if (result->git.dirty) {
		strbuf_addstr(&text, " (dirty)");
	}
	strbuf_addstr(&text, " on machine ");
	terminal_escape(&text, result->machine.id);
	strbuf_addf(&text, "\n  %-36s %-16s %18s %9s %5s\n", "case", "metric",
		    "median", "spread", "n");
	for (size_t i = 0; i < result->cases_nr; i++) {
		const struct result_case *c = &result->cases[i];

		strbuf_reset(&id);
		add_case_id(&id, c->benchmark, c->variant, c->device);
		if (c->status != CASE_OK) {
			strbuf_addf(&text, "  %-36s %s%s%s: ", id.buf,
				    paint(color, c->status == CASE_SKIPPED
							 ? YELLOW
							 : RED),
				    case_status_name(c->status),
				    paint(color, RESET));
			add_first_line(&text, c->reason ? c->reason : "");
			strbuf_addch(&text, '\n');
			continue;
		}
		for (size_t j = 0; j < c->metrics_nr; j++)
			add_metric_row(&text, j ? "" : id.buf, &c->metrics[j],
				       &model.cases[i].metrics[j]);
	}
	write_text(to, &text, color);
	report_model_release(&model);
	strbuf_release(&text);
	strbuf_release(&id);
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
static void add_comparison_row(struct strbuf *text,
			       const struct metric_comparison *mc,
			       const struct report_item *item, bool color)
{
	struct strbuf id = STRBUF_INIT, quantity = STRBUF_INIT;
	struct strbuf base = STRBUF_INIT, cand = STRBUF_INIT;
	struct strbuf p = STRBUF_INIT;

	add_case_id(&id, mc->benchmark, mc->variant, mc->device);
	strbuf_addch(&id, ' ');
	terminal_escape(&id, mc->metric);
	format_quantity(&quantity, mc->baseline.median, mc->unit);
	terminal_escape(&base, quantity.buf);
	strbuf_reset(&quantity);
	format_quantity(&quantity, mc->candidate.median, mc->unit);
	terminal_escape(&cand, quantity.buf);
	if (!mc->exact && item->compared)
		format_p_value(&p, mc->p_adjusted);
	strbuf_addf(text, "  %-44s %12s %12s %-26s %8s %s%s%s", id.buf,
		    base.buf, cand.buf, item->relative, p.buf,
		    paint(color, compare_item_gated(mc)
					 ? verdict_color(mc->verdict)
					 : ""),
		    report_verdict_text(mc), paint(color, RESET));
	if (mc->note && (mc->verdict == VERDICT_FAILED ||
			 mc->verdict == VERDICT_SKIPPED || mc->one_value)) {
		strbuf_addstr(text, ": ");
		add_first_line(text, mc->note);
	}
	strbuf_addch(text, '\n');
	strbuf_release(&id);
	strbuf_release(&quantity);
	strbuf_release(&base);
	strbuf_release(&cand);
	strbuf_release(&p);
}

/* Inconclusive means "more runs would decide"; say so, and when the runs
 * of those metrics drift, say how few independent values they counted as:
 * that, not the run count, is what kept them from deciding. */
static void add_inconclusive_hint(struct strbuf *text,
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
	strbuf_addstr(text, "  note: inconclusive changes need more runs to "
			    "decide (--runs auto samples until they are; "
			    "an imported result, more runs of its tool)");
	if (dependent)
		strbuf_addf(text,
			    "; their runs drift from one to the next, so they "
			    "count as no more than %.1f independent values a "
			    "side",
			    fewest);
	strbuf_addch(text, '\n');
}

/* ASCII and fixed decimals, unlike the reports' "2.7× [2.55×, 2.86×]"
 * (report.h): printf pads by bytes, and a × is two. */
static void add_variants(struct strbuf *text,
			 const struct comparison *comparison)
{
	struct strbuf id = STRBUF_INIT;

	if (!comparison->variants_nr)
		return;
	strbuf_addf(text, "\n  %-40s %22s %10s %14s\n", "variant vs original",
		    "speed-up [interval]", "size", "accuracy");
	for (size_t i = 0; i < comparison->variants_nr; i++) {
		const struct variant_comparison *vc = &comparison->variants[i];
		char speed[64], size[32], acc[32];

		strbuf_reset(&id);
		add_case_id(&id, vc->benchmark, vc->variant, vc->device);
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
		strbuf_addf(text, "  %-40s %22s %10s %14s\n", id.buf, speed,
			    size, acc);
	}
	strbuf_release(&id);
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
	struct strbuf text = STRBUF_INIT;
	const size_t *n = comparison->counts;
	size_t hidden = 0;

	report_model_build(&model);
	strbuf_addf(
		&text,
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
	strbuf_addstr(&text, "  baseline ");
	add_commit(&text, comparison->baseline.commit);
	strbuf_addstr(&text, " (");
	terminal_escape(&text, comparison->baseline.source
				       ? comparison->baseline.source
				       : "file");
	strbuf_addstr(&text, ") vs candidate ");
	add_commit(&text, comparison->candidate.commit);
	strbuf_addf(&text, "\n  %-44s %12s %12s %-26s %8s %s\n", "case metric",
		    "baseline", "candidate", "change [interval]", "p",
		    "verdict");
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
				add_comparison_row(&text, mc, &model.items[i],
						   color);
		}
	}
	if (hidden)
		strbuf_addf(&text,
			    "  ... and %zu unchanged or new (--json or a "
			    "report lists them)\n",
			    hidden);
	add_inconclusive_hint(&text, comparison);
	add_variants(&text, comparison);
	write_text(to, &text, color);
	report_model_release(&model);
	strbuf_release(&text);
}
