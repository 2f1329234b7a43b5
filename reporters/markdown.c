/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GitHub-flavoured Markdown: the pull-request comment and the CI step
 * summary. In order: the marker the comment upserter looks for, the
 * verdict, the commits compared, the failed and skipped cases (each
 * once), the regressions and improvements, the
 * variants against original, everything else collapsed in <details>, and
 * the candidate's profiles (links to flame graphs beside its result file),
 * collapsed too.
 *
 * The marker is "<!-- benchgate:" + escape_html_comment(suite) + " -->",
 * the suite cut to HEAD_TEXT_MAX bytes (with an ellipsis) like every name
 * in the head.
 *
 * A comment holds at most 65,536 characters, so the document is kept under
 * MARKDOWN_BUDGET bytes (bytes >= characters): rows are dropped from the end
 * of the collapsed section first (its least interesting verdicts are last),
 * then of the variant table, then of the change table, and a note says how
 * many and where the full report is.
 */
#include "reporters/report.h"

#include "reporters/escape.h"
#include "harness/util/format.h"
#include "harness/util/alloc.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MARKDOWN_BUDGET 60000

/* Room kept for the omission note when rows are dropped. */
#define OMISSION_NOTE_ROOM 200

/* A note longer than this is cut in the table (the JSON has it whole). */
#define NOTE_MAX 300

/* Names in the head are cut to this, so no name can push the head alone
 * past the budget. */
#define HEAD_TEXT_MAX 200

/* The rows of one table, rendered, and how many of them are shown. */
struct table {
	char **rows;
	size_t nr, alloc;
	size_t shown;
};

static void table_add(struct table *table, struct strbuf *row)
{
	ALLOC_GROW(table->rows, table->nr + 1, table->alloc);
	table->rows[table->nr++] = strbuf_detach(row, NULL);
	table->shown = table->nr;
}

static void table_release(struct table *table)
{
	for (size_t i = 0; i < table->nr; i++)
		free(table->rows[i]);
	free(table->rows);
}

/* Hides rows from the end until `bytes` are saved; returns what is still
 * to save. */
static size_t table_shrink(struct table *table, size_t bytes)
{
	while (bytes && table->shown) {
		size_t len = strlen(table->rows[--table->shown]);

		bytes = len < bytes ? bytes - len : 0;
	}
	return bytes;
}

static void add_table(struct strbuf *out, const char *header,
		      const struct table *table)
{
	if (!table->shown)
		return;
	strbuf_addf(out, "%s\n", header);
	for (size_t i = 0; i < table->shown; i++)
		strbuf_addstr(out, table->rows[i]);
	strbuf_addch(out, '\n');
}

/* Cells */

static void add_cell(struct strbuf *row, const char *text)
{
	strbuf_addstr(row, " ");
	escape_markdown(row, text);
	strbuf_addstr(row, " |");
}

/* A cell this file wrote from numbers alone ("+6.5% [+4.8%, +8.1%]"),
 * which needs no escaping, and reads better in the raw Markdown without.
 * A value with a unit is not one: the unit is user input. */
static void add_own_cell(struct strbuf *row, const char *text)
{
	strbuf_addf(row, " %s |", text);
}

static void add_case_cell(struct strbuf *row,
			  const struct metric_comparison *mc,
			  const struct comparison *c)
{
	const char *parts[] = { mc->suite, mc->benchmark, mc->variant,
				mc->device };
	size_t first = c->suite && mc->suite && !strcmp(c->suite, mc->suite);

	strbuf_addstr(row, " ");
	for (size_t i = first; i < 4; i++) {
		if (i > first)
			strbuf_addstr(row, " / ");
		escape_markdown(row, parts[i]);
	}
	strbuf_addstr(row, " |");
}

/* A side's value as the change's estimator sees it (the centre). */
static void add_value_cell(struct strbuf *row,
			   const struct metric_comparison *mc, double centre,
			   bool present)
{
	struct strbuf text = STRBUF_INIT;

	if (!present || isnan(centre)) {
		add_own_cell(row, "-");
		return;
	}
	format_quantity(&text, centre, mc->unit);
	add_cell(row, text.buf);
	strbuf_release(&text);
}

static void add_p_cell(struct strbuf *row, const struct metric_comparison *mc)
{
	struct strbuf text = STRBUF_INIT;
	bool tested = mc->has_baseline && mc->has_candidate && !mc->exact;

	format_p_value(&text, tested ? mc->p_adjusted : NAN);
	add_own_cell(row, text.buf);
	strbuf_release(&text);
}

static void add_note_cell(struct strbuf *row, const char *note)
{
	strbuf_addstr(row, " ");
	report_add_cut(row, note, NOTE_MAX, escape_markdown);
	strbuf_addstr(row, " |");
}

/* Tables */

#define CHANGES_HEADER                                                \
	"| Case | Metric | Baseline | Candidate | Change [interval] " \
	"| p (adj.) |\n|---|---|--:|--:|--:|--:|"

static void add_change_row(struct table *table,
			   const struct metric_comparison *mc,
			   const struct report_item *item,
			   const struct comparison *c)
{
	struct strbuf row = STRBUF_INIT;

	strbuf_addch(&row, '|');
	add_case_cell(&row, mc, c);
	add_cell(&row, mc->metric);
	add_value_cell(&row, mc, mc->centre_baseline, mc->has_baseline);
	add_value_cell(&row, mc, mc->centre_candidate, mc->has_candidate);
	add_own_cell(&row, item->change);
	add_p_cell(&row, mc);
	strbuf_addch(&row, '\n');
	table_add(table, &row);
}

/* Failed and skipped cases, each failed case once (not once per
 * metric) with the last lines of its stderr and its log (relative to the
 * candidate's result file), each reason to skip once with its cases. */
#define PROBLEMS_HEADER                                              \
	"| Case | Verdict | Why, and the last lines of its stderr | Log " \
	"|\n|---|---|---|---|"

/* Cases a shared reason to skip names; the rest are counted. */
#define SKIPPED_NAMES_MAX 6

static void add_problem_rows(struct table *table,
			     const struct report_model *model)
{
	const struct comparison *c = model->comparison;
	struct strbuf row = STRBUF_INIT, why = STRBUF_INIT;

	for (size_t i = 0; i < c->nr; i++) {
		const struct metric_comparison *mc = &c->items[i];
		size_t why_len;
		const char *tail;

		if (mc->verdict != VERDICT_FAILED || !report_case_starts(c, i))
			continue;
		tail = report_note_tail(mc->note, &why_len, REPORT_TAIL_LINES);
		strbuf_reset(&why);
		strbuf_add(&why, mc->note ? mc->note : "", why_len);
		strbuf_addch(&row, '|');
		add_case_cell(&row, mc, c);
		add_own_cell(&row, "failed");
		strbuf_addstr(&row, " ");
		report_add_cut(&row, why.buf, NOTE_MAX, escape_markdown);
		if (*tail) {
			strbuf_addstr(&row, "<br>");
			report_add_cut(&row, tail, NOTE_MAX, escape_markdown);
		}
		strbuf_addstr(&row, " |");
		add_cell(&row, mc->log ? mc->log : "");
		strbuf_addch(&row, '\n');
		table_add(table, &row);
	}
	for (size_t g = 0; g < model->skips_nr; g++) {
		strbuf_addstr(&row, "| ");
		report_add_count(&row, model->skips[g].cases_nr, "case",
				 "cases");
		strbuf_addstr(&row, ": ");
		report_add_skipped_cases(&row, model, g, SKIPPED_NAMES_MAX,
					 escape_markdown);
		strbuf_addstr(&row, " | skipped |");
		add_note_cell(&row, model->skips[g].reason);
		strbuf_addstr(&row, " |\n");
		table_add(table, &row);
	}
	strbuf_release(&row);
	strbuf_release(&why);
}

#define OTHERS_HEADER                                       \
	"| Case | Metric | Verdict | Baseline | Candidate " \
	"| Change [interval] | p (adj.) | Note |\n"         \
	"|---|---|---|--:|--:|--:|--:|---|"

static void add_other_row(struct table *table,
			  const struct metric_comparison *mc,
			  const struct report_item *item,
			  const struct comparison *c)
{
	struct strbuf row = STRBUF_INIT;

	strbuf_addch(&row, '|');
	add_case_cell(&row, mc, c);
	add_cell(&row, mc->metric);
	add_cell(&row, report_verdict_text(mc));
	add_value_cell(&row, mc, mc->centre_baseline, mc->has_baseline);
	add_value_cell(&row, mc, mc->centre_candidate, mc->has_candidate);
	add_own_cell(&row, item->change);
	add_p_cell(&row, mc);
	add_note_cell(&row, mc->note);
	strbuf_addch(&row, '\n');
	table_add(table, &row);
}

#define PROFILES_HEADER "| Case | Profile | Note |\n|---|---|---|"

/* A link where report.h can make one, else the path as text: a PR comment
 * is not beside the store, the step summary's artifact may be. */
static void add_profile_row(struct table *table,
			    const struct report_model *model,
			    const struct result_case *rcase)
{
	struct strbuf row = STRBUF_INIT, url = STRBUF_INIT;

	strbuf_addstr(&row, "| ");
	escape_markdown(&row, rcase->benchmark);
	strbuf_addstr(&row, " / ");
	escape_markdown(&row, rcase->variant);
	strbuf_addstr(&row, " / ");
	escape_markdown(&row, rcase->device);
	strbuf_addstr(&row, " | ");
	for (size_t i = 0; i < rcase->artifacts_nr; i++) {
		const struct result_artifact *artifact = &rcase->artifacts[i];

		if (i)
			strbuf_addstr(&row, " \u00b7 ");
		strbuf_reset(&url);
		if (report_artifact_url(&url, model, artifact->path)) {
			strbuf_addch(&row, '[');
			escape_markdown(&row,
					report_artifact_label(artifact->kind));
			strbuf_addf(&row, "](%s)", url.buf);
		} else {
			escape_markdown(&row,
					report_artifact_label(artifact->kind));
			strbuf_addstr(&row, ": ");
			escape_markdown(&row, artifact->path);
		}
	}
	strbuf_addstr(&row, " |");
	add_note_cell(&row, rcase->profile_note);
	strbuf_addch(&row, '\n');
	table_add(table, &row);
	strbuf_release(&url);
}

#define VARIANTS_HEADER                                                      \
	"| Benchmark / device | Variant | Speed-up, baseline \u2192 candidate " \
	"| Candidate [interval] | Size ratio | Accuracy \u0394 |\n"        \
	"|---|---|--:|--:|--:|--:|"

static void add_variant_row(struct table *table,
			    const struct variant_comparison *vc,
			    const struct report_variant *derived)
{
	struct strbuf row = STRBUF_INIT, text = STRBUF_INIT;

	strbuf_addstr(&row, "| ");
	escape_markdown(&row, vc->benchmark);
	strbuf_addstr(&row, " / ");
	escape_markdown(&row, vc->device);
	strbuf_addstr(&row, " |");
	strbuf_addf(&text, "%s vs %s", vc->variant, vc->against);
	add_cell(&row, text.buf);

	/* "15.3× → 3.95× (latency)", then the candidate's interval */
	strbuf_addf(&row, " %s (", derived->speedup_move);
	escape_markdown(&row, vc->speed_metric);
	strbuf_addstr(&row, ") |");
	add_own_cell(&row, derived->speedup);
	add_own_cell(&row, derived->size);
	add_own_cell(&row, derived->accuracy);
	strbuf_addch(&row, '\n');
	table_add(table, &row);
	strbuf_release(&text);
}

/* The head */

/* "2 regressions, 1 improvement, 14 unchanged, 0 failed", then the other
 * verdicts that occur. */
static void add_verdict_line(struct strbuf *out, const struct comparison *c)
{
	strbuf_addf(out, "### %s benchgate: ",
		    c->overall == OVERALL_PASS ? "\u2705" : "\u274c");
	report_add_counts(out, c);
	strbuf_addch(out, '\n');
}

/* "[abc123def456](https://github.com/o/r/commit/<full>)" when it can be
 * linked, else the commit as text. */
static void add_commit(struct strbuf *out, const char *commit,
		       const char *repo_url)
{
	struct strbuf url = STRBUF_INIT;

	if (!report_is_full_commit(commit))
		escape_markdown(out, commit);
	else if (!report_commit_url(&url, commit, repo_url))
		strbuf_addf(out, "`%.12s`", commit);
	else
		strbuf_addf(out, "[`%.12s`](%s)", commit, url.buf);
	strbuf_release(&url);
}

static void add_side_note(struct strbuf *out, const char *source,
			  const char *machine)
{
	strbuf_addstr(out, " (");
	if (source) {
		report_add_cut(out, source, HEAD_TEXT_MAX, escape_markdown);
		strbuf_addstr(out, ", ");
	}
	strbuf_addstr(out, "machine ");
	escape_markdown(out, machine);
	strbuf_addch(out, ')');
}

static void add_commits_line(struct strbuf *out,
			     const struct report_model *model)
{
	const struct comparison *c = model->comparison;

	if (model->title) {
		strbuf_addstr(out, "**");
		report_add_cut(out, model->title, HEAD_TEXT_MAX,
			       escape_markdown);
		strbuf_addstr(out, "** \u00b7 ");
	}
	strbuf_addstr(out, "Suite ");
	report_add_cut(out, c->suite, HEAD_TEXT_MAX, escape_markdown);
	if (!strcmp(c->baseline.commit, "none")) {
		strbuf_addstr(out, " \u00b7 no baseline yet");
	} else {
		strbuf_addstr(out, " \u00b7 baseline ");
		add_commit(out, c->baseline.commit, model->repo_url);
		add_side_note(out, c->baseline.source, c->baseline.machine);
	}
	strbuf_addstr(out, " \u2192 candidate ");
	add_commit(out, c->candidate.commit, model->repo_url);
	if (model->candidate && model->candidate->git.dirty)
		strbuf_addstr(out, " with uncommitted changes");
	add_side_note(out, NULL, c->candidate.machine);
	strbuf_addstr(out, "\n\n");
}

/* "17 other results: 14 unchanged, 2 new, 1 failed" */
static void add_others_summary(struct strbuf *out, const struct comparison *c,
			       const enum verdict *order, size_t order_nr,
			       size_t total)
{
	const char *separator = ": ";

	report_add_count(out, total, "other result", "other results");
	for (size_t i = 0; i < order_nr; i++) {
		if (!c->counts[order[i]])
			continue;
		strbuf_addf(out, "%s%zu %s", separator, c->counts[order[i]],
			    verdict_name(order[i]));
		separator = ", ";
	}
}

/* The document */

/* Which cases the charts beside this report leave out, when the bound
 * left some out. */
static void add_charts_note(struct strbuf *out,
			    const struct report_model *model)
{
	struct strbuf note = STRBUF_INIT;

	if (report_add_charts_note(&note, model))
		strbuf_addf(out, "_%s._\n\n", note.buf);
	strbuf_release(&note);
}

/* How the changes and the values beside them were estimated. */
static void add_methods_note(struct strbuf *out,
			     const struct report_model *model)
{
	struct strbuf note = STRBUF_INIT;

	if (report_add_methods_note(&note, model->comparison)) {
		strbuf_addch(out, '_');
		escape_markdown(out, note.buf);
		strbuf_addstr(out, "._\n\n");
	}
	strbuf_release(&note);
}

/* The collapsed section, most telling first, so the size limit drops
 * unchanged rows before failures. */
static const enum verdict others_order[] = {
	VERDICT_INCONCLUSIVE,
	VERDICT_MISSING,
	VERDICT_NEW,
	VERDICT_UNCHANGED,
};
#define OTHERS_ORDER_NR (sizeof(others_order) / sizeof(others_order[0]))

static void render(struct strbuf *out, const struct report_model *model,
		   const struct table *problems, const struct table *changes,
		   const struct table *variants, const struct table *others,
		   const struct table *profiles, size_t omitted)
{
	const struct comparison *c = model->comparison;

	strbuf_addstr(out, "<!-- benchgate:");
	report_add_cut(out, c->suite, HEAD_TEXT_MAX, escape_html_comment);
	strbuf_addstr(out, " -->\n");
	add_verdict_line(out, c);
	strbuf_addch(out, '\n');
	add_commits_line(out, model);

	if (problems->nr) {
		strbuf_addstr(out, "#### Failed and skipped cases\n\n");
		add_table(out, PROBLEMS_HEADER, problems);
	}

	strbuf_addstr(out, "#### Regressions and improvements\n\n");
	if (changes->nr)
		add_table(out, CHANGES_HEADER, changes);
	else
		strbuf_addstr(out, "None beyond the threshold.\n\n");

	if (variants->nr) {
		strbuf_addstr(out, "#### Variants against ");
		report_add_cut(out, c->variants[0].against, HEAD_TEXT_MAX,
			       escape_markdown);
		strbuf_addstr(out, "\n\n");
		add_table(out, VARIANTS_HEADER, variants);
	}
	add_methods_note(out, model);
	add_charts_note(out, model);

	if (others->nr) {
		/* GitHub renders Markdown inside <details> only after a
		 * blank line. */
		strbuf_addstr(out, "<details><summary>");
		add_others_summary(out, c, others_order, OTHERS_ORDER_NR,
				   others->nr);
		strbuf_addstr(out, "</summary>\n\n");
		add_table(out, OTHERS_HEADER, others);
		strbuf_addstr(out, "</details>\n\n");
	}

	if (profiles->nr) {
		strbuf_addstr(out, "<details><summary>Profiles: ");
		report_add_count(out, profiles->nr, "case", "cases");
		strbuf_addstr(out, "</summary>\n\n");
		add_table(out, PROFILES_HEADER, profiles);
		strbuf_addstr(out, "</details>\n\n");
	}

	if (omitted)
		strbuf_addf(out,
			    "_\u2026 %zu more rows omitted (comment size "
			    "limit); see the HTML/JSON report "
			    "artifact_\n",
			    omitted);
}

static size_t hidden(const struct table *table)
{
	return table->nr - table->shown;
}

void report_markdown(const struct report_model *model, struct strbuf *out)
{
	const struct comparison *c = model->comparison;
	struct table changes = { 0 }, variants = { 0 }, others = { 0 };
	struct table profiles = { 0 }, problems = { 0 };
	struct strbuf document = STRBUF_INIT;
	size_t omitted = 0;

	assert(model->built);
	for (size_t i = 0; i < c->nr; i++)
		if (c->items[i].verdict == VERDICT_REGRESSION)
			add_change_row(&changes, &c->items[i], &model->items[i],
				       c);
	for (size_t i = 0; i < c->nr; i++)
		if (c->items[i].verdict == VERDICT_IMPROVEMENT)
			add_change_row(&changes, &c->items[i], &model->items[i],
				       c);
	for (size_t i = 0; i < c->variants_nr; i++)
		add_variant_row(&variants, &c->variants[i],
				&model->variants[i]);
	/* failed and skipped cases are listed on their own, once each */
	for (size_t v = 0; v < OTHERS_ORDER_NR; v++)
		for (size_t i = 0; i < c->nr; i++)
			if (c->items[i].verdict == others_order[v])
				add_other_row(&others, &c->items[i],
					      &model->items[i], c);
	for (size_t i = 0; model->candidate && i < model->candidate->cases_nr;
	     i++) {
		const struct result_case *rcase = &model->candidate->cases[i];

		if (rcase->artifacts_nr || rcase->profile_note)
			add_profile_row(&profiles, model, rcase);
	}

	add_problem_rows(&problems, model);

	render(&document, model, &problems, &changes, &variants, &others,
	       &profiles, 0);
	if (document.len > MARKDOWN_BUDGET) {
		size_t excess =
			document.len - MARKDOWN_BUDGET + OMISSION_NOTE_ROOM;

		excess = table_shrink(&others, excess);
		excess = table_shrink(&profiles, excess);
		excess = table_shrink(&variants, excess);
		excess = table_shrink(&changes, excess);
		table_shrink(&problems, excess);
		omitted = hidden(&others) + hidden(&profiles) +
			  hidden(&variants) + hidden(&changes) +
			  hidden(&problems);
		strbuf_reset(&document);
		render(&document, model, &problems, &changes, &variants,
		       &others, &profiles, omitted);
	}
	strbuf_add(out, document.buf, document.len);
	strbuf_release(&document);
	table_release(&changes);
	table_release(&variants);
	table_release(&others);
	table_release(&profiles);
	table_release(&problems);
}
