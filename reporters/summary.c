/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/summary.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/format.h"
#include "harness/util/terminal.h"
#include "harness/util/utf8.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

/* When the machine was busy while the measurement ran: what else ran. */
static void add_load_warning(struct strbuf *text, const struct result *result)
{
	const struct machine_load *load = &result->load;

	if (machine_load_quiet(load))
		return;
	strbuf_addf(text,
		    "the machine was not quiet when the measurement ran: "
		    "%.2f cores busy (load %.2f %.2f %.2f)",
		    load->cpu_busy,
		    load->loadavg[0], load->loadavg[1], load->loadavg[2]);
	for (size_t i = 0; i < load->busy_nr; i++) {
		strbuf_addf(text, "%spid %d ", i ? ", " : ": ",
			    load->busy[i].pid);
		/* bg_warn() escapes what it prints */
		strbuf_addstr(text, load->busy[i].command
					    ? load->busy[i].command
					    : "?");
		strbuf_addf(text, " at %.0f%% of a core",
			    load->busy[i].cpu * 100);
	}
	strbuf_addstr(text, "; its numbers may be off, and the result "
			    "should not become a baseline");
}

/* Failed and skipped cases */

/* Under a failed case: the last lines of its stderr, then its log. */
static void add_failure_detail(struct strbuf *text, const char *note,
			       const char *log)
{
	size_t why_len;
	const char *tail = report_note_tail(note, &why_len, REPORT_TAIL_LINES);

	for (const char *line = tail; *line;) {
		struct strbuf one = STRBUF_INIT;
		size_t len = strcspn(line, "\n");

		strbuf_add(&one, line, len);
		strbuf_addstr(text, "      | ");
		terminal_escape(text, one.buf);
		strbuf_addch(text, '\n');
		strbuf_release(&one);
		line += len + (line[len] == '\n');
	}
	if (log) {
		strbuf_addstr(text, "      log: ");
		terminal_escape(text, log);
		strbuf_addch(text, '\n');
	}
}

/* "  bad/original/cpu  failed: <why>", then the detail. */
static void add_failed_case(struct strbuf *text, const char *case_id,
			    const char *status, const char *note,
			    const char *log, bool color)
{
	strbuf_addf(text, "  %-36s %s%s%s: ", case_id, paint(color, RED),
		    status, paint(color, RESET));
	add_first_line(text, note ? note : "no reason given");
	strbuf_addch(text, '\n');
	add_failure_detail(text, note, log);
}

/* Each failed case once, not once per metric. */
static void add_failed_cases(struct strbuf *text,
			     const struct comparison *comparison, bool color)
{
	struct strbuf id = STRBUF_INIT, log = STRBUF_INIT;

	for (size_t i = 0; i < comparison->nr; i++) {
		const struct metric_comparison *mc = &comparison->items[i];

		if (mc->verdict != VERDICT_FAILED ||
		    !report_case_starts(comparison, i))
			continue;
		strbuf_reset(&id);
		strbuf_reset(&log);
		add_case_id(&id, mc->benchmark, mc->variant, mc->device);
		add_failed_case(text, id.buf, "failed", mc->note,
				report_log_path(&log, comparison, mc) ? log.buf
								      : NULL,
				color);
	}
	strbuf_release(&id);
	strbuf_release(&log);
}

/* The cases listed with a shared reason, the rest counted. */
#define SKIPPED_NAMES_MAX 3

/* "skipped 4 cases (a, b, c and 1 more): <reason>" for each of groups:
 * entry i (a case) is in group group_of[i] (SIZE_MAX: none), named
 * names[i] (escaped), skipped for reasons[i]. */
static void add_skip_lines(struct strbuf *text, size_t groups,
			   const size_t *group_of, char *const *names,
			   const char *const *reasons, size_t nr, bool color)
{
	size_t *counts = xcalloc(groups + 1, sizeof(*counts));
	struct strbuf *listed = xcalloc(groups + 1, sizeof(*listed));
	const char **reason = xcalloc(groups + 1, sizeof(*reason));

	for (size_t g = 0; g < groups; g++)
		strbuf_init(&listed[g], 0);
	for (size_t i = 0; i < nr; i++) {
		size_t g = group_of[i];

		if (g == SIZE_MAX || counts[g]++ >= SKIPPED_NAMES_MAX)
			continue;
		strbuf_addstr(&listed[g], counts[g] > 1 ? ", " : "");
		strbuf_addstr(&listed[g], names[i]);
		reason[g] = reasons[i];
	}
	for (size_t g = 0; g < groups; g++) {
		strbuf_addf(text, "  %sskipped%s ", paint(color, YELLOW),
			    paint(color, RESET));
		report_add_count(text, counts[g], "case", "cases");
		strbuf_addf(text, " (%s", listed[g].buf);
		if (counts[g] > SKIPPED_NAMES_MAX)
			strbuf_addf(text, " and %zu more",
				    counts[g] - SKIPPED_NAMES_MAX);
		strbuf_addstr(text, "): ");
		add_first_line(text, reason[g] ? reason[g] : "");
		strbuf_addch(text, '\n');
		strbuf_release(&listed[g]);
	}
	free(counts);
	free(listed);
	free(reason);
}

/* Each reason to skip a case of the comparison once. */
static void add_skipped_cases(struct strbuf *text,
			      const struct report_model *model, bool color)
{
	const struct comparison *c = model->comparison;
	size_t *group_of = xcalloc(c->nr + 1, sizeof(*group_of));
	char **names = xcalloc(c->nr + 1, sizeof(*names));
	const char **reasons = xcalloc(c->nr + 1, sizeof(*reasons));

	for (size_t i = 0; i < c->nr; i++) {
		const struct metric_comparison *mc = &c->items[i];
		struct strbuf id = STRBUF_INIT;

		group_of[i] = SIZE_MAX;
		if (!model->items[i].skip || !report_case_starts(c, i))
			continue;
		group_of[i] = model->items[i].skip - 1;
		add_case_id(&id, mc->benchmark, mc->variant, mc->device);
		names[i] = strbuf_detach(&id, NULL);
		reasons[i] = mc->note;
	}
	add_skip_lines(text, model->skips_nr, group_of, names, reasons, c->nr,
		       color);
	for (size_t i = 0; i < c->nr; i++)
		free(names[i]);
	free(names);
	free(reasons);
	free(group_of);
}

/* Appends the log of a failed case of the result at result_path. */
static const char *case_log(struct strbuf *out, const struct result_case *c,
			    const char *result_path)
{
	const char *slash = result_path && c->log && c->log[0] != '/'
				    ? strrchr(result_path, '/')
				    : NULL;

	if (!c->log)
		return NULL;
	if (slash)
		strbuf_add(out, result_path, (size_t)(slash - result_path + 1));
	strbuf_addstr(out, c->log);
	return out->buf;
}

/* The result's skipped cases, each reason once with its cases. */
static void add_skipped_result_cases(struct strbuf *text,
				     const struct result *result, bool color)
{
	size_t nr = result->cases_nr, groups;
	const char **reasons = xcalloc(nr + 1, sizeof(*reasons));
	size_t *group_of = xcalloc(nr + 1, sizeof(*group_of));
	char **names = xcalloc(nr + 1, sizeof(*names));

	for (size_t i = 0; i < nr; i++) {
		const struct result_case *c = &result->cases[i];
		struct strbuf id = STRBUF_INIT;

		if (c->status != CASE_SKIPPED)
			continue;
		reasons[i] = c->reason ? c->reason : "";
		add_case_id(&id, c->benchmark, c->variant, c->device);
		names[i] = strbuf_detach(&id, NULL);
	}
	groups = report_group_texts(reasons, nr, group_of);
	add_skip_lines(text, groups, group_of, names, reasons, nr, color);
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(reasons);
	free(group_of);
}

/* The result table of a built model's candidate; the failed and skipped
 * cases too when `problems`. */
static void print_result(FILE *to, const struct report_model *model,
			 const char *result_path, bool color, bool problems)
{
	const struct result *result = model->candidate;
	struct strbuf text = STRBUF_INIT, id = STRBUF_INIT, log = STRBUF_INIT;

	assert(model->built && result);
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
		/* skipped cases are said below, each reason once */
		if (problems && c->status != CASE_OK &&
		    c->status != CASE_SKIPPED) {
			strbuf_reset(&log);
			add_failed_case(&text, id.buf,
					case_status_name(c->status), c->reason,
					case_log(&log, c, result_path), color);
		}
		if (c->status != CASE_OK)
			continue;
		for (size_t j = 0; j < c->metrics_nr; j++)
			add_metric_row(&text, j ? "" : id.buf, &c->metrics[j],
				       &model->cases[i].metrics[j]);
	}
	if (problems)
		add_skipped_result_cases(&text, result, color);
	write_text(to, &text, color);
	strbuf_release(&text);
	strbuf_release(&id);
	strbuf_release(&log);
}

void summary_print_result(FILE *to, const struct result *result, bool color)
{
	struct report_model model = { .candidate = result };

	report_model_build(&model);
	print_result(to, &model, NULL, color, true);
	report_model_release(&model);
}

void summary_print_result_at(FILE *to, const struct report_model *model,
			     const char *result_path, bool color)
{
	print_result(to, model, result_path, color, true);
}

void summary_print_measures(FILE *to, const struct report_model *model,
			    bool color)
{
	print_result(to, model, NULL, color, false);
}

void summary_warn_load(const struct result *result)
{
	struct strbuf text = STRBUF_INIT;

	add_load_warning(&text, result);
	if (text.len)
		bg_warn("%s", text.buf);
	strbuf_release(&text);
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

/* The change column is the relative change, or for an exact metric the
 * difference ("-0.30 pts", "+61.7 KiB") as the reports show it, without
 * its tolerance, for the width. */
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
	format_quantity(&quantity, mc->centre_baseline, mc->unit);
	terminal_escape(&base, quantity.buf);
	strbuf_reset(&quantity);
	format_quantity(&quantity, mc->centre_candidate, mc->unit);
	terminal_escape(&cand, quantity.buf);
	if (!mc->exact && item->compared)
		format_p_value(&p, mc->p_adjusted);
	strbuf_addf(text, "  %-44s %12s %12s %-26s %8s %s%s%s", id.buf,
		    base.buf, cand.buf,
		    mc->exact && item->compared ? item->difference
						: item->relative,
		    p.buf,
		    paint(color, compare_item_gated(mc)
					 ? verdict_color(mc->verdict)
					 : ""),
		    report_verdict_text(mc), paint(color, RESET));
	if (mc->note && (mc->verdict == VERDICT_FAILED ||
			 mc->verdict == VERDICT_SKIPPED ||
			 mc->verdict == VERDICT_INCONCLUSIVE || mc->one_value)) {
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
	size_t undecided = 0;

	if (!comparison->counts[VERDICT_INCONCLUSIVE])
		return;
	for (size_t i = 0; i < comparison->nr; i++) {
		const struct metric_comparison *mc = &comparison->items[i];

		/* more runs would not decide these: their note says what
		 * would */
		if (mc->verdict != VERDICT_INCONCLUSIVE ||
		    mc->session_unbounded)
			continue;
		undecided++;
		fewest = fmin(fewest,
			      fmin(mc->n_eff_baseline, mc->n_eff_candidate));
		dependent |=
			mc->n_eff_baseline < (double)mc->n_tested_baseline ||
			mc->n_eff_candidate < (double)mc->n_tested_candidate;
	}
	if (!undecided)
		return;
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

/* Appends s padded to width columns, on the left when `right`: the
 * model's texts hold × and →, one column and two or three bytes each,
 * where printf's widths count bytes. */
static void add_padded(struct strbuf *out, const char *s, size_t width,
		       bool right)
{
	size_t columns = 0, len;
	uint32_t cp;

	for (const char *p = s; *p; p += len) {
		len = utf8_decode(p, &cp);
		columns++;
	}
	for (size_t i = columns; right && i < width; i++)
		strbuf_addch(out, ' ');
	strbuf_addstr(out, s);
	for (size_t i = columns; !right && i < width; i++)
		strbuf_addch(out, ' ');
}

/* The reports' texts (report.h), so a speed-up or an accuracy reads the
 * same here: "15.3× → 3.95×", "+0.05 pts → -0.75 pts". */
static void add_variants(struct strbuf *text, const struct report_model *model)
{
	const struct comparison *comparison = model->comparison;
	struct strbuf id = STRBUF_INIT;

	if (!comparison->variants_nr)
		return;
	/* one reference per result: the first row names it for all */
	strbuf_addstr(&id, "variant vs ");
	terminal_escape(&id, comparison->variants[0].against);
	strbuf_addstr(text, "\n  ");
	add_padded(text, id.buf, 36, false);
	strbuf_addf(text, " %16s %22s %17s %22s\n", "speed-up",
		    "candidate [interval]", "size", "accuracy");
	for (size_t i = 0; i < comparison->variants_nr; i++) {
		const struct variant_comparison *vc = &comparison->variants[i];
		const struct report_variant *texts = &model->variants[i];

		strbuf_reset(&id);
		add_case_id(&id, vc->benchmark, vc->variant, vc->device);
		strbuf_addstr(text, "  ");
		add_padded(text, id.buf, 36, false);
		strbuf_addch(text, ' ');
		add_padded(text, texts->speedup_move, 16, true);
		strbuf_addch(text, ' ');
		add_padded(text, texts->speedup, 22, true);
		strbuf_addch(text, ' ');
		add_padded(text, texts->size, 17, true);
		strbuf_addch(text, ' ');
		add_padded(text, texts->accuracy, 22, true);
		strbuf_addch(text, '\n');
	}
	strbuf_release(&id);
}

void summary_print_variants(FILE *to, const struct report_model *model,
			    bool color)
{
	struct strbuf text = STRBUF_INIT;

	assert(model->built);
	add_variants(&text, model);
	write_text(to, &text, color);
	strbuf_release(&text);
}

/* "PASS: 0 regressions, ..." and its newline. */
static void add_verdict_line(struct strbuf *text,
			     const struct comparison *comparison, bool color)
{
	const size_t *n = comparison->counts;

	strbuf_addf(
		text,
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
}

void summary_print_verdict(FILE *to, const struct comparison *comparison,
			   bool color)
{
	struct strbuf text = STRBUF_INIT;

	add_verdict_line(&text, comparison, color);
	terminal_write(to, text.buf, color ? TERMINAL_COLOR : 0);
	strbuf_release(&text);
}

void summary_print_comparison(FILE *to, const struct report_model *model,
			      bool color, bool all)
{
	static const enum verdict order[] = {
		VERDICT_REGRESSION,   VERDICT_FAILED,	 VERDICT_IMPROVEMENT,
		VERDICT_INCONCLUSIVE, VERDICT_SKIPPED,	 VERDICT_MISSING,
		VERDICT_NEW,	      VERDICT_UNCHANGED,
	};
	const struct comparison *comparison = model->comparison;
	struct strbuf text = STRBUF_INIT, rows = STRBUF_INIT;
	size_t hidden = 0;

	assert(model->built);
	add_verdict_line(&text, comparison, color);
	strbuf_addstr(&text, "  baseline ");
	add_commit(&text, comparison->baseline.commit);
	strbuf_addstr(&text, " (");
	terminal_escape(&text, comparison->baseline.source
				       ? comparison->baseline.source
				       : "file");
	strbuf_addstr(&text, ") vs candidate ");
	add_commit(&text, comparison->candidate.commit);
	strbuf_addch(&text, '\n');
	for (size_t o = 0; o < sizeof(order) / sizeof(*order); o++) {
		bool quiet = order[o] == VERDICT_UNCHANGED ||
			     order[o] == VERDICT_NEW;

		for (size_t i = 0; i < comparison->nr; i++) {
			const struct metric_comparison *mc =
				&comparison->items[i];

			/* failed and skipped cases are said once, below */
			if (mc->verdict != order[o] ||
			    mc->verdict == VERDICT_FAILED ||
			    mc->verdict == VERDICT_SKIPPED)
				continue;
			if (quiet && !all)
				hidden++;
			else
				add_comparison_row(&rows, mc, &model->items[i],
						   color);
		}
	}
	/* a PASS with nothing to list shows no empty table */
	if (rows.len)
		strbuf_addf(&text, "  %-44s %12s %12s %-26s %8s %s\n%s",
			    "case metric", "baseline", "candidate",
			    "change [interval]", "p", "verdict", rows.buf);
	add_failed_cases(&text, comparison, color);
	add_skipped_cases(&text, model, color);
	if (hidden)
		strbuf_addf(&text,
			    "  ... and %zu unchanged or new (--json or a "
			    "report lists them)\n",
			    hidden);
	add_inconclusive_hint(&text, comparison);
	if (rows.len) {
		struct strbuf methods = STRBUF_INIT;

		if (report_add_methods_note(&methods, comparison))
			strbuf_addf(&text, "  note: %s\n", methods.buf);
		strbuf_release(&methods);
	}
	add_variants(&text, model);
	write_text(to, &text, color);
	strbuf_release(&text);
	strbuf_release(&rows);
}
