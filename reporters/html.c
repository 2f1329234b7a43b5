/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTML report: one self-contained file that opens from a CI artifact,
 * on a laptop or a phone, with no network. Styles, charts (inline SVG drawn
 * here) and a small table sorter are inline; the Content-Security-Policy
 * forbids every load, so nothing user-provided could fetch anything even
 * if it escaped its escaping. The only URLs are commit links, only http(s)
 * ones, and links to profiles, only relative or absolute local paths.
 *
 * In order: the verdict banner, the commits compared, failures, the
 * regressions and improvements (each with a bar of its change and interval
 * against the threshold band), the variants against original (speed-up
 * bars), the profiles of the candidate's cases (links to flame graphs and
 * profile directories beside its result file), then every result and the
 * machine in a <details>.
 */
#include "reporters/report.h"

#include "harness/util/format.h"
#include "harness/util/utf8.h"
#include "reporters/escape.h"
#include "reporters/svg_inline.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <strings.h>

/* Notes hold log tails: the JSON report has them whole. */
#define NOTE_MAX 2000

/* The cases a shared reason to skip names; the rest are counted. */
#define SKIPPED_NAMES_MAX 6

/* Width in pixels of the change and speed-up bars. */
#define BAR_WIDTH  220
#define BAR_HEIGHT 22

static const char html_style[] =
	":root{color-scheme:light}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0 auto;max-width:1280px;padding:1rem;"
	"font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,"
	"sans-serif;color:#1a1a1a;background:#fff}\n"
	"h1{font-size:1.35rem;margin:1rem 0 .25rem}\n"
	"h2{font-size:1.15rem;margin:1.75rem 0 .5rem;"
	"border-bottom:1px solid #ccc;padding-bottom:.2rem}\n"
	".banner{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1rem;"
	"padding:.8rem 1rem;border:3px solid;border-radius:6px;"
	"font-size:1.1rem}\n"
	".banner strong{font-size:1.5rem;letter-spacing:.04em}\n"
	".models{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}\n"
	".models caption{text-align:left;font-weight:600;padding:.2rem 0}\n"
	".banner .icon{font-size:1.6rem;line-height:1}\n"
	".overall-pass{background:#e7f4ea;border-color:#1e7b34;color:#0c4a1c}\n"
	".overall-regression{background:#fdeceb;border-color:#b3261e;"
	"color:#6e120d;border-style:double;border-width:6px}\n"
	".overall-failed{background:#fff1e0;border-color:#9a4d00;"
	"color:#5a2d00;border-style:dashed}\n"
	"dl.sides{display:grid;grid-template-columns:max-content 1fr;"
	"gap:.2rem .8rem;margin:.5rem 0}\n"
	"dl.sides dt{font-weight:600}dl.sides dd{margin:0;"
	"overflow-wrap:anywhere}\n"
	"code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,"
	"monospace}\n"
	".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;"
	"margin:.25rem 0 1rem;border:1px solid #ddd;border-radius:4px}\n"
	"table{border-collapse:collapse;width:100%;"
	"font-variant-numeric:tabular-nums}\n"
	"th,td{padding:.35rem .55rem;border-bottom:1px solid #e2e2e2;"
	"text-align:left;vertical-align:middle}\n"
	"thead th{background:#f3f3f3;position:sticky;"
	"top:0}\n"
	"th.sortable{cursor:pointer;user-select:none}\n"
	"th.sortable::after{content:' \\2195';color:#888}\n"
	"th[aria-sort=ascending]::after{content:' \\25B2';color:#000}\n"
	"th[aria-sort=descending]::after{content:' \\25BC';color:#000}\n"
	"td.num{text-align:right;white-space:nowrap}\n"
	/* an interval may break before its bracket: the tables fit 1280 px */
	"td.change{white-space:normal;min-width:13ch}\n"
	"td.name{min-width:14ch;max-width:32ch;overflow-wrap:break-word}\n"
	"td.note{min-width:12ch;max-width:60ch;white-space:pre-wrap;"
	"overflow-wrap:anywhere;font-size:.85em}\n"
	"td.verdict{white-space:nowrap;font-weight:600}\n"
	".v-regression,.v-failed{color:#a1221b}\n"
	".v-improvement{color:#1d6b30}\n"
	".v-inconclusive,.v-missing,.v-skipped{color:#7a5200}\n"
	".v-unchanged,.v-new{color:#444}\n"
	"svg.bar{display:block}\n"
	"svg .band{fill:#e2e2e2}\n"
	"svg .axis{stroke:#666;stroke-width:1}\n"
	"svg .one{stroke:#666;stroke-width:1;stroke-dasharray:3 2}\n"
	"svg .ci{stroke:#333;stroke-width:3}\n"
	"svg .ci.unbounded{stroke-dasharray:4 3}\n"
	"svg .beyond{fill:#333}\n"
	"svg .mark{stroke:#000;stroke-width:1.2}\n"
	"svg .m-regression{fill:#b3261e}\n"
	"svg .m-improvement{fill:#fff;stroke:#1d6b30;stroke-width:2.2}\n"
	"svg .m-other{fill:#888}\n"
	"svg .faster{fill:#3b6fb6}\n"
	"svg .was{stroke:#b3261e;stroke-width:3}\n"
	"svg .slower{fill:#fff;stroke:#c05a00;stroke-width:1.5;"
	"stroke-dasharray:4 2}\n"
	".figures{display:grid;gap:1rem;margin:.5rem 0 1rem;"
	"grid-template-columns:repeat(auto-fill,minmax(min(100%,480px),1fr))}\n"
	"figure{margin:0;padding:.5rem;border:1px solid #ddd;"
	"border-radius:4px;min-width:0}\n"
	"figcaption{color:#555;font-size:.85rem;overflow-wrap:anywhere}\n"
	"svg.chart{display:block;width:100%;height:auto}\n"
	"pre.tail{margin:.3rem 0 0;white-space:pre-wrap;"
	"overflow-wrap:anywhere;font-size:.95em}\n"
	"p.hint,footer{color:#555;font-size:.85rem}\n"
	"details{margin:1.5rem 0}\n"
	"summary{cursor:pointer;font-weight:600;font-size:1.05rem}\n"
	"@media (max-width:640px){body{padding:.5rem;font-size:14px}"
	".banner{font-size:1rem}.banner strong{font-size:1.2rem}"
	"dl.sides{grid-template-columns:1fr}}\n"
	"@media print{.scroll{overflow:visible}thead th{position:static}}\n";

/* Sorts a table by the clicked header: numbers by their data-sort value,
 * text by locale; clicking again reverses. Rows without a number sort
 * last either way. */
static const char html_script[] =
	"(function () {\n"
	"  function key(cell) {\n"
	"    var v = cell ? cell.getAttribute('data-sort') : null;\n"
	"    if (v !== null && v !== '' && isFinite(v)) return [0, +v];\n"
	"    if (v === '') return [1, 0];\n"
	"    return [0, cell ? cell.textContent.trim().toLowerCase() : ''];\n"
	"  }\n"
	"  function compare(a, b) {\n"
	"    if (a[0] !== b[0]) return a[0] - b[0];\n"
	"    if (typeof a[1] === 'number' && typeof b[1] === 'number')\n"
	"      return a[1] - b[1];\n"
	"    return String(a[1]).localeCompare(String(b[1]));\n"
	"  }\n"
	"  function sort(table, th, column) {\n"
	"    var body = table.tBodies[0];\n"
	"    var rows = Array.prototype.slice.call(body.rows);\n"
	"    var up = th.getAttribute('aria-sort') !== 'ascending';\n"
	"    var heads = table.tHead.rows[0].cells;\n"
	"    Array.prototype.forEach.call(heads, function (h) {\n"
	"      h.removeAttribute('aria-sort');\n"
	"    });\n"
	"    th.setAttribute('aria-sort', up ? 'ascending' : 'descending');\n"
	"    rows.sort(function (a, b) {\n"
	"      var ka = key(a.cells[column]), kb = key(b.cells[column]);\n"
	"      if (ka[0] !== kb[0]) return ka[0] - kb[0];\n"
	"      return up ? compare(ka, kb) : compare(kb, ka);\n"
	"    });\n"
	"    rows.forEach(function (row) { body.appendChild(row); });\n"
	"  }\n"
	"  var tables = document.querySelectorAll('table.sortable');\n"
	"  Array.prototype.forEach.call(tables, function (table) {\n"
	"    var heads = table.tHead.rows[0].cells;\n"
	"    Array.prototype.forEach.call(heads, function (th, column) {\n"
	"      th.className += ' sortable';\n"
	"      th.tabIndex = 0;\n"
	"      th.addEventListener('click', function () {\n"
	"        sort(table, th, column);\n"
	"      });\n"
	"      th.addEventListener('keydown', function (e) {\n"
	"        if (e.key === 'Enter' || e.key === ' ') {\n"
	"          e.preventDefault();\n"
	"          sort(table, th, column);\n"
	"        }\n"
	"      });\n"
	"    });\n"
	"  });\n"
	"})();\n";

/* Words and icons: the verdict must read without colour */

static const char *verdict_icon(enum verdict verdict)
{
	static const char *const icons[] = {
		[VERDICT_REGRESSION] = "\u2717",  /* ✗ */
		[VERDICT_IMPROVEMENT] = "\u2713", /* ✓ */
		[VERDICT_UNCHANGED] = "=",
		[VERDICT_INCONCLUSIVE] = "?",
		[VERDICT_NEW] = "+",
		[VERDICT_MISSING] = "\u2212", /* − */
		[VERDICT_FAILED] = "\u26a0",  /* ⚠ */
		[VERDICT_SKIPPED] = "\u21b7", /* ↷ */
	};

	return icons[verdict];
}

/* A number for a data-sort attribute; empty for none, so it sorts last. */
static void add_sort_key(struct strbuf *out, double value)
{
	if (isfinite(value))
		strbuf_addf(out, " data-sort=\"%.9g\"", value);
	else
		strbuf_addstr(out, " data-sort=\"\"");
}

/* Cells */

static void add_text_cell(struct strbuf *out, const char *class,
			  const char *text)
{
	strbuf_addf(out, "<td class=\"%s\">", class);
	escape_html(out, text);
	strbuf_addstr(out, "</td>");
}

static void add_verdict_cell(struct strbuf *out,
			     const struct metric_comparison *mc)
{
	enum verdict verdict = mc->verdict;

	strbuf_addf(out,
		    "<td class=\"verdict v-%s\" data-sort=\"%d\">"
		    "<span aria-hidden=\"true\">%s</span> %s</td>",
		    verdict_name(verdict), (int)verdict, verdict_icon(verdict),
		    report_verdict_text(mc));
}

/* A side's value as the change's estimator sees it (the centre). */
static void add_value_cell(struct strbuf *out,
			   const struct metric_comparison *mc, double centre,
			   bool present)
{
	struct strbuf text = STRBUF_INIT;
	double value = present ? centre : NAN;

	format_quantity(&text, value, mc->unit);
	strbuf_addstr(out, "<td class=\"num\"");
	add_sort_key(out, value);
	strbuf_addch(out, '>');
	escape_html(out, text.buf);
	strbuf_addstr(out, "</td>");
	strbuf_release(&text);
}

static void add_change_cell(struct strbuf *out,
			    const struct metric_comparison *mc,
			    const struct report_item *item)
{
	strbuf_addstr(out, "<td class=\"num change\"");
	add_sort_key(out, item->compared ? mc->change : NAN);
	strbuf_addch(out, '>');
	strbuf_addstr(out, item->change);
	strbuf_addstr(out, "</td>");
}

static void add_p_cell(struct strbuf *out, const struct metric_comparison *mc,
		       const struct report_item *item)
{
	double p = item->compared && !mc->exact ? mc->p_adjusted : NAN;

	strbuf_addstr(out, "<td class=\"num\"");
	add_sort_key(out, p);
	strbuf_addch(out, '>');
	format_p_value(out, p);
	strbuf_addstr(out, "</td>");
}

static void add_threshold_cell(struct strbuf *out,
			       const struct metric_comparison *mc,
			       const struct report_item *item)
{
	double threshold = item->threshold;

	strbuf_addstr(out, "<td class=\"num\"");
	add_sort_key(out, threshold);
	strbuf_addch(out, '>');
	/* an exact metric's tolerance in its own terms, as in the change */
	strbuf_addstr(out, mc->exact || isfinite(threshold) ? item->limit
							     : "-");
	strbuf_addstr(out, "</td>");
}

/* Inline charts */

/* The half-width, as a relative change, of the common scale of the change
 * bars: every row of a table on one scale, so the bars compare. The scale
 * fits the changes and thresholds shown, not their intervals: one wide
 * interval (a few drifting runs bound nothing better than [-73 %,
 * +1532 %]) would make every change a dot at the centre. An interval
 * that runs past the scale ends in an arrowhead at the edge. */
static double change_scale(const struct report_model *model,
			   const enum verdict *verdicts, size_t verdicts_nr)
{
	const struct comparison *c = model->comparison;
	double scale = 0.05;

	for (size_t i = 0; i < c->nr; i++) {
		const struct metric_comparison *mc = &c->items[i];
		double values[] = { mc->change, model->items[i].threshold };
		bool listed = false;

		for (size_t v = 0; v < verdicts_nr; v++)
			listed |= mc->verdict == verdicts[v];
		if (!listed || !model->items[i].compared)
			continue;
		for (size_t v = 0; v < 2; v++)
			if (isfinite(values[v]) && fabs(values[v]) > scale)
				scale = fabs(values[v]);
	}
	/* Past +-1000 % the bars say nothing more. */
	return fmin(scale * 1.1, 10.0);
}

static double change_x(double change, double scale)
{
	double half = BAR_WIDTH / 2.0 - 6, x;

	if (isnan(change))
		return BAR_WIDTH / 2.0;
	x = BAR_WIDTH / 2.0 + change / scale * half;
	return fmin(fmax(x, 2), BAR_WIDTH - 2);
}

/* An arrowhead at the edge of a change bar, pointing out (side -1 left,
 * +1 right): the interval goes on past the scale. */
static void add_beyond(struct strbuf *out, int side)
{
	double tip = side < 0 ? 1 : BAR_WIDTH - 1;

	strbuf_addf(out,
		    "<path class=\"beyond\" d=\"M%.1f %d l%d -5 l0 10 z\"/>",
		    tip, BAR_HEIGHT / 2, side < 0 ? 7 : -7);
}

/*
 * The change as a point on a line, its interval as a thick bar and the
 * threshold as a grey band around zero: a regression is a filled diamond
 * to the worse side of the band, an improvement an open circle. An
 * interval that runs past the scale ends in an arrowhead at the edge; an
 * unbounded one (no test could bound it) is dashed and says so.
 */
static void add_change_bar(struct strbuf *out,
			   const struct metric_comparison *mc,
			   const struct report_item *item, double scale)
{
	double threshold = item->threshold;
	double x = change_x(mc->change, scale);
	const char *mark = mc->verdict == VERDICT_REGRESSION ? "m-regression"
			   : mc->verdict == VERDICT_IMPROVEMENT
				   ? "m-improvement"
				   : "m-other";
	struct strbuf label = STRBUF_INIT;

	bool unbounded = item->compared && !mc->exact &&
			 (isinf(mc->change_low) || isinf(mc->change_high));

	strbuf_addstr(&label, "change ");
	strbuf_addstr(&label, item->change);
	if (unbounded)
		strbuf_addstr(&label, "; interval unbounded");
	if (isfinite(threshold))
		strbuf_addf(&label, "; threshold \u00b1%.1f%%",
			    threshold * 100);
	strbuf_addf(out,
		    "<svg class=\"bar\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		    BAR_WIDTH, BAR_HEIGHT, BAR_WIDTH, BAR_HEIGHT);
	escape_html(out, label.buf);
	strbuf_addstr(out, "\"><title>");
	escape_html(out, label.buf);
	strbuf_addstr(out, "</title>");
	if (isfinite(threshold))
		strbuf_addf(out,
			    "<rect class=\"band\" x=\"%.1f\" y=\"2\" "
			    "width=\"%.1f\" height=\"%d\"/>",
			    change_x(-threshold, scale),
			    change_x(threshold, scale) -
				    change_x(-threshold, scale),
			    BAR_HEIGHT - 4);
	strbuf_addf(out,
		    "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" "
		    "y1=\"0\" y2=\"%d\"/>",
		    BAR_WIDTH / 2.0, BAR_WIDTH / 2.0, BAR_HEIGHT);
	if (item->compared && !isnan(mc->change_low) &&
	    !isnan(mc->change_high)) {
		strbuf_addf(out,
			    "<line class=\"ci%s\" x1=\"%.1f\" x2=\"%.1f\" "
			    "y1=\"%d\" y2=\"%d\"/>",
			    unbounded ? " unbounded" : "",
			    change_x(mc->change_low, scale),
			    change_x(mc->change_high, scale), BAR_HEIGHT / 2,
			    BAR_HEIGHT / 2);
		if (mc->change_low < -scale)
			add_beyond(out, -1);
		if (mc->change_high > scale)
			add_beyond(out, 1);
	}
	if (item->compared && !isnan(mc->change)) {
		if (mc->verdict == VERDICT_REGRESSION)
			strbuf_addf(out,
				    "<path class=\"mark %s\" d=\"M%.1f "
				    "%d l6 6 l-6 6 l-6 -6 z\"/>",
				    mark, x, BAR_HEIGHT / 2 - 6);
		else
			strbuf_addf(out,
				    "<circle class=\"mark %s\" "
				    "cx=\"%.1f\" cy=\"%d\" r=\"5\"/>",
				    mark, x, BAR_HEIGHT / 2);
	}
	strbuf_addstr(out, "</svg>");
	strbuf_release(&label);
}

static double speedup_scale(const struct comparison *c)
{
	double scale = 1;

	for (size_t i = 0; i < c->variants_nr; i++) {
		const struct variant_comparison *vc = &c->variants[i];

		if (isfinite(vc->speedup))
			scale = fmax(scale, vc->speedup);
		if (isfinite(vc->speedup_high))
			scale = fmax(scale, vc->speedup_high);
		if (isfinite(vc->baseline_speedup))
			scale = fmax(scale, vc->baseline_speedup);
	}
	return fmin(scale * 1.1, 1000);
}

static double speedup_x(double speedup, double scale)
{
	double x = 4 + speedup / scale * (BAR_WIDTH - 8);

	return isnan(x) ? 4 : fmin(fmax(x, 4), BAR_WIDTH - 2);
}

/* A bar from zero to the speed-up, its interval as a whisker, and a
 * dashed line at 1x, the speed of original. Slower than original is an
 * open dashed bar. */
static void add_speedup_bar(struct strbuf *out,
			    const struct variant_comparison *vc,
			    const struct report_variant *text, double scale)
{
	double x0 = speedup_x(0, scale), x = speedup_x(vc->speedup, scale);
	double one = speedup_x(1, scale);

	strbuf_addf(out,
		    "<svg class=\"bar\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\""
		    "speed-up %s against 1\u00d7\"><title>speed-up %s against "
		    "1\u00d7</title>",
		    BAR_WIDTH, BAR_HEIGHT, BAR_WIDTH, BAR_HEIGHT, text->speedup_move,
		    text->speedup_move);
	if (isfinite(vc->speedup))
		strbuf_addf(out,
			    "<rect class=\"%s\" x=\"%.1f\" y=\"5\" "
			    "width=\"%.1f\" height=\"%d\"/>",
			    vc->speedup >= 1 ? "faster" : "slower", x0, x - x0,
			    BAR_HEIGHT - 10);
	if (isfinite(vc->speedup_low) && isfinite(vc->speedup_high))
		strbuf_addf(out,
			    "<line class=\"ci\" x1=\"%.1f\" x2=\"%.1f\" "
			    "y1=\"%d\" y2=\"%d\"/>",
			    speedup_x(vc->speedup_low, scale),
			    speedup_x(vc->speedup_high, scale), BAR_HEIGHT / 2,
			    BAR_HEIGHT / 2);
	/* where the variant was: a tick at the baseline's speed-up */
	if (isfinite(vc->baseline_speedup))
		strbuf_addf(out,
			    "<line class=\"was\" x1=\"%.1f\" x2=\"%.1f\" "
			    "y1=\"1\" y2=\"%d\"/>",
			    speedup_x(vc->baseline_speedup, scale),
			    speedup_x(vc->baseline_speedup, scale),
			    BAR_HEIGHT - 1);
	strbuf_addf(out,
		    "<line class=\"one\" x1=\"%.1f\" x2=\"%.1f\" "
		    "y1=\"0\" y2=\"%d\"/><line class=\"axis\" x1=\"%.1f\" "
		    "x2=\"%.1f\" y1=\"0\" y2=\"%d\"/></svg>",
		    one, one, BAR_HEIGHT, x0, x0, BAR_HEIGHT);
}

/* The head: verdict and commits */

/* The commit, linked to repo_url's commit page when both are fit for a
 * link; a link opens nothing by itself, so the CSP still holds. */
static void add_commit(struct strbuf *out, const char *commit,
		       const char *repo_url)
{
	struct strbuf href = STRBUF_INIT;

	if (!report_is_full_commit(commit)) {
		strbuf_addstr(out, "<code>");
		escape_html(out, commit);
		strbuf_addstr(out, "</code>");
	} else if (!report_commit_url(&href, commit, repo_url)) {
		strbuf_addf(out, "<code title=\"%s\">%.12s</code>", commit,
			    commit);
	} else {
		strbuf_addstr(out, "<a href=\"");
		escape_html(out, href.buf);
		strbuf_addf(out,
			    "\" rel=\"noopener noreferrer\" title=\"%s\">"
			    "<code>%.12s</code></a>",
			    commit, commit);
	}
	strbuf_release(&href);
}

static void add_banner(struct strbuf *out, const struct comparison *c)
{
	static const char *const icons[] = {
		[OVERALL_PASS] = "\u2713",
		[OVERALL_REGRESSION] = "\u2717",
		[OVERALL_FAILED] = "\u26a0",
	};
	struct strbuf upper = STRBUF_INIT;

	for (const char *p = overall_name(c->overall); *p; p++)
		strbuf_addch(&upper, *p - ('a' <= *p && *p <= 'z' ? 32 : 0));
	strbuf_addf(out,
		    "<header class=\"banner overall-%s\" role=\"status\">"
		    "<span class=\"icon\" aria-hidden=\"true\">%s</span>"
		    "<strong id=\"verdict\">%s</strong><span>",
		    overall_name(c->overall), icons[c->overall], upper.buf);
	report_add_counts(out, c);
	if (!strcmp(c->baseline.commit, "none"))
		strbuf_addstr(out, " \u2014 no baseline yet");
	strbuf_addstr(out, "</span></header>\n");
	strbuf_release(&upper);
}

/* "abc123… — subject (branch)" and the machine, for one side. */
static void add_side(struct strbuf *out, const char *name,
		     const struct comparison_side *side,
		     const struct result *result, const char *repo_url)
{
	strbuf_addf(out, "<dt>%s</dt><dd>", name);
	add_commit(out, side->commit, repo_url);
	if (result && result->git.subject) {
		strbuf_addstr(out, " \u2014 ");
		report_add_cut(out, result->git.subject, 200, escape_html);
	}
	if (result && result->git.branch) {
		strbuf_addstr(out, " (");
		report_add_cut(out, result->git.branch, 200, escape_html);
		strbuf_addch(out, ')');
	}
	if (result && result->git.dirty)
		strbuf_addstr(out, " with uncommitted changes");
	strbuf_addstr(out, " \u00b7 machine <code>");
	escape_html(out, side->machine);
	strbuf_addstr(out, "</code>");
	if (side->source) {
		strbuf_addstr(out, " \u00b7 ");
		report_add_cut(out, side->source, 200, escape_html);
	}
	strbuf_addstr(out, "</dd>");
}

static void add_sides(struct strbuf *out, const struct report_model *model)
{
	const struct comparison *c = model->comparison;

	strbuf_addstr(out, "<dl class=\"sides\"><dt>Suite</dt><dd>");
	report_add_cut(out, c->suite, 200, escape_html);
	strbuf_addf(out, " \u00b7 confidence %g%%</dd>", c->confidence * 100);
	if (strcmp(c->baseline.commit, "none") != 0)
		add_side(out, "Baseline", &c->baseline, model->baseline,
			 model->repo_url);
	else
		strbuf_addstr(out, "<dt>Baseline</dt><dd>none yet: every "
				   "metric is new</dd>");
	add_side(out, "Candidate", &c->candidate, model->candidate,
		 model->repo_url);
	strbuf_addstr(out, "</dl>\n");
}

/* Tables */

static void table_begin(struct strbuf *out, const char *id,
			const char *const *headers)
{
	strbuf_addf(out,
		    "<div class=\"scroll\"><table class=\"sortable\" "
		    "id=\"%s\"><thead><tr>",
		    id);
	for (; *headers; headers++)
		strbuf_addf(out, "<th scope=\"col\">%s</th>", *headers);
	strbuf_addstr(out, "</tr></thead><tbody>\n");
}

static void table_end(struct strbuf *out)
{
	strbuf_addstr(out, "</tbody></table></div>\n");
}

/* "bench / variant / device" in one cell: one column per name would
 * not fit a phone. */
static void add_names_cell(struct strbuf *out, const char *const *names)
{
	strbuf_addstr(out, "<td class=\"name\">");
	for (size_t i = 0; names[i]; i++) {
		if (i)
			strbuf_addstr(out, " / ");
		escape_html(out, names[i]);
	}
	strbuf_addstr(out, "</td>");
}

static void add_case_cells(struct strbuf *out,
			   const struct metric_comparison *mc)
{
	const char *names[] = { mc->benchmark, mc->variant, mc->device, NULL };

	add_names_cell(out, names);
	add_text_cell(out, "name", mc->metric);
}

static size_t count_verdicts(const struct comparison *c,
			     const enum verdict *verdicts, size_t nr)
{
	size_t count = 0;

	for (size_t v = 0; v < nr; v++)
		count += c->counts[verdicts[v]];
	return count;
}

/* A failed case's log, linked when the report knows where the result
 * file is from here. */
static void add_log_cell(struct strbuf *out, const struct report_model *model,
			 const struct metric_comparison *mc)
{
	struct strbuf url = STRBUF_INIT;

	strbuf_addstr(out, "<td class=\"name\">");
	if (mc->log && report_artifact_url(&url, model, mc->log)) {
		strbuf_addstr(out, "<a href=\"");
		escape_html(out, url.buf);
		strbuf_addstr(out, "\"><code>");
		escape_html(out, mc->log);
		strbuf_addstr(out, "</code></a>");
	} else if (mc->log) {
		strbuf_addstr(out, "<code>");
		escape_html(out, mc->log);
		strbuf_addstr(out, "</code>");
	}
	strbuf_addstr(out, "</td>");
	strbuf_release(&url);
}

/* Each failed case once (not once per metric): why, the last lines of
 * its stderr, and its log. */
static void add_failures(struct strbuf *out, const struct report_model *model)
{
	static const char *const headers[] = {
		"Case", "Why, and the last lines of its stderr", "Log", NULL
	};
	const struct comparison *c = model->comparison;

	if (!c->counts[VERDICT_FAILED])
		return;
	strbuf_addstr(out, "<h2>Failed cases</h2>\n");
	table_begin(out, "failures", headers);
	for (size_t i = 0; i < c->nr; i++) {
		const struct metric_comparison *mc = &c->items[i];
		const char *names[] = { mc->benchmark, mc->variant, mc->device,
					NULL };
		struct strbuf why = STRBUF_INIT;
		size_t why_len;
		const char *tail;

		if (mc->verdict != VERDICT_FAILED || !report_case_starts(c, i))
			continue;
		tail = report_note_tail(mc->note, &why_len, REPORT_TAIL_LINES);
		strbuf_add(&why, mc->note ? mc->note : "", why_len);
		strbuf_addstr(out, "<tr>");
		add_names_cell(out, names);
		strbuf_addstr(out, "<td class=\"note\">");
		report_add_cut(out, why.buf, NOTE_MAX, escape_html);
		if (*tail) {
			strbuf_addstr(out, "<pre class=\"tail\">");
			report_add_cut(out, tail, NOTE_MAX, escape_html);
			strbuf_addstr(out, "</pre>");
		}
		strbuf_addstr(out, "</td>");
		add_log_cell(out, model, mc);
		strbuf_addstr(out, "</tr>\n");
		strbuf_release(&why);
	}
	table_end(out);
}

/* Each reason to skip once, with the cases it covers. */
static void add_skips(struct strbuf *out, const struct report_model *model)
{
	static const char *const headers[] = { "Reason", "Why", "Cases",
					       NULL };

	if (!model->skips_nr)
		return;
	strbuf_addstr(out, "<h2>Skipped cases</h2>\n");
	table_begin(out, "skipped", headers);
	for (size_t g = 0; g < model->skips_nr; g++) {
		strbuf_addf(out,
			    "<tr><td class=\"num\" data-sort=\"%zu\">%zu</td>"
			    "<td class=\"note\">",
			    g + 1, g + 1);
		report_add_cut(out, model->skips[g].reason, NOTE_MAX,
			       escape_html);
		strbuf_addf(out, "</td><td class=\"note\" data-sort=\"%zu\">",
			    model->skips[g].cases_nr);
		report_add_count(out, model->skips[g].cases_nr, "case",
				 "cases");
		strbuf_addstr(out, ": ");
		report_add_skipped_cases(out, model, g, SKIPPED_NAMES_MAX,
					 escape_html);
		strbuf_addstr(out, "</td></tr>\n");
	}
	table_end(out);
}

/* The note of a row of every result: a failure's first line (its tail
 * is in the failed cases), a skip's reason by its number there. */
static void add_row_note(struct strbuf *out, const struct report_model *model,
			 size_t i)
{
	const struct metric_comparison *mc = &model->comparison->items[i];
	size_t why_len;

	strbuf_addstr(out, "<td class=\"note\">");
	if (model->items[i].skip) {
		strbuf_addf(out, "skipped cases, reason %zu",
			    model->items[i].skip);
	} else if (mc->verdict == VERDICT_FAILED) {
		struct strbuf why = STRBUF_INIT;

		report_note_tail(mc->note, &why_len, 0);
		strbuf_add(&why, mc->note ? mc->note : "", why_len);
		report_add_cut(out, why.buf, NOTE_MAX, escape_html);
		strbuf_release(&why);
	} else {
		report_add_cut(out, mc->note, NOTE_MAX, escape_html);
	}
	strbuf_addstr(out, "</td>");
}

/* The cells every results table starts with: verdict, case, both values,
 * the change and, when scale > 0, its bar (empty when there is nothing to
 * compare). */
static void add_row_head(struct strbuf *out, const struct metric_comparison *mc,
			 const struct report_item *item, double scale)
{
	strbuf_addstr(out, "<tr>");
	add_verdict_cell(out, mc);
	add_case_cells(out, mc);
	add_value_cell(out, mc, mc->centre_baseline, mc->has_baseline);
	add_value_cell(out, mc, mc->centre_candidate, mc->has_candidate);
	add_change_cell(out, mc, item);
	if (scale <= 0)
		return;
	strbuf_addstr(out, "<td");
	add_sort_key(out, item->compared ? mc->change : NAN);
	strbuf_addch(out, '>');
	if (item->compared)
		add_change_bar(out, mc, item, scale);
	strbuf_addstr(out, "</td>");
}

/* Regressions first, then improvements: what the gate decided on. */
static const enum verdict changed[] = { VERDICT_REGRESSION,
					VERDICT_IMPROVEMENT };
#define CHANGED_NR (sizeof(changed) / sizeof(changed[0]))

static void add_changes(struct strbuf *out, const struct report_model *model)
{
	const struct comparison *c = model->comparison;
	static const char *const headers[] = { "Verdict",
					       "Case",
					       "Metric",
					       "Baseline",
					       "Candidate",
					       "Change [interval]",
					       "Change against threshold",
					       "p (adj.)",
					       NULL };
	double scale = change_scale(model, changed, CHANGED_NR);

	strbuf_addstr(out, "<h2>Regressions and improvements</h2>\n");
	if (!count_verdicts(c, changed, CHANGED_NR)) {
		strbuf_addstr(out, "<p>None beyond the threshold.</p>\n");
		return;
	}
	strbuf_addf(out,
		    "<p class=\"hint\">Medians; the interval is at %g%% "
		    "confidence. Each bar runs from ",
		    c->confidence * 100);
	format_change(out, -scale);
	strbuf_addstr(out, " to ");
	format_change(out, scale);
	strbuf_addstr(out, ": the grey band is the threshold, the line the "
			   "interval (an arrowhead where it runs on past the "
			   "edge, dashed where it is unbounded), the diamond a "
			   "regression, the open circle an improvement. Click "
			   "a column header to sort.</p>\n");
	table_begin(out, "changes", headers);
	for (size_t v = 0; v < CHANGED_NR; v++)
		for (size_t i = 0; i < c->nr; i++) {
			const struct metric_comparison *mc = &c->items[i];

			if (mc->verdict != changed[v])
				continue;
			add_row_head(out, mc, &model->items[i], scale);
			add_p_cell(out, mc, &model->items[i]);
			strbuf_addstr(out, "</tr>\n");
		}
	table_end(out);
}

/* A text the model derived from numbers ("0.25× → 0.26×"), sorted by
 * the candidate's value. */
static void add_move_cell(struct strbuf *out, double value, const char *text)
{
	strbuf_addstr(out, "<td class=\"num\"");
	add_sort_key(out, value);
	strbuf_addch(out, '>');
	strbuf_addstr(out, text);
	strbuf_addstr(out, "</td>");
}

static void add_variants(struct strbuf *out, const struct report_model *model)
{
	const struct comparison *c = model->comparison;
	static const char *const headers[] = {
		"Benchmark / device",
		"Variant",
		"Speed-up, baseline \u2192 candidate",
		"Speed-up",
		"Size ratio",
		"Accuracy \u0394",
		NULL
	};
	double scale = speedup_scale(c);

	if (!c->variants_nr)
		return;
	strbuf_addstr(out, "<h2>Variants against ");
	escape_html(out, c->variants[0].against);
	strbuf_addstr(out, "</h2>\n<p class=\"hint\">Each variant where it "
			   "was in the baseline \u2192 where it is in the "
			   "candidate, against the same reference. The bar is "
			   "the candidate's speed-up and its interval, the "
			   "dashed line 1\u00d7, the red tick the "
			   "baseline's.</p>\n");
	table_begin(out, "variants", headers);
	for (size_t i = 0; i < c->variants_nr; i++) {
		const struct variant_comparison *vc = &c->variants[i];

		const char *pair[] = { vc->benchmark, vc->device, NULL };

		strbuf_addstr(out, "<tr>");
		add_names_cell(out, pair);
		strbuf_addstr(out, "<td class=\"name\">");
		escape_html(out, vc->variant);
		strbuf_addstr(out, " <small>vs ");
		escape_html(out, vc->against);
		strbuf_addstr(out, "</small></td>");
		/* "10.0× → 3.57×", then what it is of and the interval */
		strbuf_addstr(out, "<td class=\"num\"");
		add_sort_key(out, vc->speedup);
		strbuf_addf(out, "><strong>%s</strong><br><small>",
			    model->variants[i].speedup_move);
		escape_html(out, vc->speed_metric);
		strbuf_addf(out, ", %s</small></td>",
			    model->variants[i].speedup);
		strbuf_addstr(out, "<td");
		add_sort_key(out, vc->speedup);
		strbuf_addch(out, '>');
		add_speedup_bar(out, vc, &model->variants[i], scale);
		strbuf_addstr(out, "</td>");
		add_move_cell(out, vc->size_ratio, model->variants[i].size);
		add_move_cell(out, vc->accuracy_delta,
			      model->variants[i].accuracy);
		strbuf_addstr(out, "</tr>\n");
	}
	table_end(out);
}

/* Charts */

/* Whether a chart is of one of kinds and was drawn. */
static bool shown_chart(const struct chart *chart, const char *const *kinds)
{
	bool wanted = false;

	for (const char *const *k = kinds; *k; k++)
		wanted |= chart->kind && !strcmp(chart->kind, *k);
	return wanted && chart->svg;
}

/* Above this many, the charts of the changes start folded away: the
 * variants' story comes after them. */
#define CHANGE_CHARTS_OPEN 4

/* The charts of the given kinds that were drawn, inlined in the order
 * they were drawn; in a <details> under `summary` when it is given. */
static void add_figures(struct strbuf *out, const struct report_model *model,
			const char *const *kinds, const char *summary)
{
	const struct charts *charts = model->charts;
	struct strbuf prefix = STRBUF_INIT;
	size_t nr = 0;
	bool any = false;

	for (size_t i = 0; charts && i < charts->nr; i++)
		nr += shown_chart(&charts->items[i], kinds);
	for (size_t i = 0; nr && i < charts->nr; i++) {
		const struct chart *chart = &charts->items[i];
		size_t start = out->len;

		if (!shown_chart(chart, kinds))
			continue;
		if (!any && summary)
			strbuf_addf(out,
				    "<details class=\"charts\"%s><summary>%s "
				    "(%zu)</summary>\n",
				    nr <= CHANGE_CHARTS_OPEN ? " open" : "",
				    summary, nr);
		if (!any)
			strbuf_addstr(out, "<div class=\"figures\">\n");
		strbuf_addf(out, "<figure data-kind=\"%s\">", chart->kind);
		strbuf_reset(&prefix);
		strbuf_addf(&prefix, "c%zu-", i);
		if (!svg_inline(out, chart->svg, prefix.buf, "chart",
				chart->caption ? chart->caption : "")) {
			strbuf_setlen(out, start);
			continue;
		}
		strbuf_addstr(out, "<figcaption>");
		escape_html(out, chart->caption ? chart->caption : "");
		strbuf_addstr(out, "</figcaption></figure>\n");
		any = true;
	}
	if (any)
		strbuf_addstr(out, summary ? "</div></details>\n" : "</div>\n");
	strbuf_release(&prefix);
}

/* Every result, the most telling verdicts first. */
static const enum verdict everything[] = {
	VERDICT_REGRESSION,   VERDICT_FAILED,	 VERDICT_IMPROVEMENT,
	VERDICT_INCONCLUSIVE, VERDICT_MISSING,	 VERDICT_SKIPPED,
	VERDICT_NEW,	      VERDICT_UNCHANGED,
};
#define EVERYTHING_NR (sizeof(everything) / sizeof(everything[0]))

static void add_all_results(struct strbuf *out,
			    const struct report_model *model)
{
	const struct comparison *c = model->comparison;
	static const char *const headers[] = { "Verdict",
					       "Case",
					       "Metric",
					       "Baseline",
					       "Candidate",
					       "Change [interval]",
					       "Threshold",
					       "p (adj.)",
					       "n (base, cand.)",
					       "Note",
					       NULL };
	strbuf_addf(out,
		    "<details id=\"all\"><summary>All %zu results"
		    "</summary>\n",
		    c->nr);
	table_begin(out, "results", headers);
	for (size_t v = 0; v < EVERYTHING_NR; v++)
		for (size_t i = 0; i < c->nr; i++) {
			const struct metric_comparison *mc = &c->items[i];

			if (mc->verdict != everything[v])
				continue;
			/* no bars: the table must fit a laptop's window,
			 * and the changes table above has them */
			add_row_head(out, mc, &model->items[i], 0);
			add_threshold_cell(out, mc, &model->items[i]);
			add_p_cell(out, mc, &model->items[i]);
			strbuf_addf(out,
				    "<td class=\"num\" data-sort=\"%zu\">"
				    "%zu, %zu</td>",
				    mc->candidate.n, mc->baseline.n,
				    mc->candidate.n);
			add_row_note(out, model, i);
			strbuf_addstr(out, "</tr>\n");
		}
	table_end(out);
	strbuf_addstr(out, "</details>\n");
}

/* Links into the store, relative to this file (report.h): they work while
 * the report and the results keep their places, as in a CI artifact that
 * holds both. */
static void add_artifact_links(struct strbuf *out,
			       const struct report_model *model,
			       const struct result_case *rcase)
{
	struct strbuf url = STRBUF_INIT;

	strbuf_addstr(out, "<td>");
	for (size_t i = 0; i < rcase->artifacts_nr; i++) {
		const struct result_artifact *artifact = &rcase->artifacts[i];

		if (i)
			strbuf_addstr(out, " \u00b7 ");
		strbuf_reset(&url);
		if (report_artifact_url(&url, model, artifact->path)) {
			strbuf_addstr(out, "<a href=\"");
			escape_html(out, url.buf);
			strbuf_addstr(out, "\">");
			escape_html(out, report_artifact_label(artifact->kind));
			strbuf_addstr(out, "</a>");
		} else {
			escape_html(out, report_artifact_label(artifact->kind));
			strbuf_addstr(out, " <code>");
			escape_html(out, artifact->path);
			strbuf_addstr(out, "</code>");
		}
	}
	strbuf_addstr(out, "</td>");
	strbuf_release(&url);
}

static void add_profiles(struct strbuf *out, const struct report_model *model)
{
	static const char *const headers[] = { "Case", "Profile", "Note",
					       NULL };
	const struct result *candidate = model->candidate;

	if (!report_has_profiles(model))
		return;
	strbuf_addstr(out, "<h2>Profiles</h2>\n");
	table_begin(out, "profiles", headers);
	for (size_t i = 0; i < candidate->cases_nr; i++) {
		const struct result_case *rcase = &candidate->cases[i];
		const char *names[] = { rcase->benchmark, rcase->variant,
					rcase->device, NULL };

		if (!rcase->artifacts_nr && !rcase->profile_note)
			continue;
		strbuf_addstr(out, "<tr>");
		add_names_cell(out, names);
		add_artifact_links(out, model, rcase);
		strbuf_addstr(out, "<td class=\"note\">");
		report_add_cut(out, rcase->profile_note, NOTE_MAX, escape_html);
		strbuf_addstr(out, "</td></tr>\n");
	}
	table_end(out);
}

/* The most layers shown of one model; the result keeps them all. */
#define MODEL_ROWS_MAX 200

static void add_model_table(struct strbuf *out,
			    const struct result_case *rcase)
{
	const struct model_summary *summary = rcase->model;
	size_t shown = summary->layers_nr < MODEL_ROWS_MAX ? summary->layers_nr
							    : MODEL_ROWS_MAX;

	strbuf_addstr(out, "<table class=\"model\"><caption>");
	escape_html(out, rcase->variant);
	strbuf_addstr(out, " · ");
	escape_html(out, rcase->device);
	strbuf_addf(out,
		    ": %" PRIu64 " parameters, %" PRIu64 " trainable, %" PRIu64
		    " non-zero</caption>\n<thead><tr><th>Layer</th>"
		    "<th>Type</th><th>Output shape</th><th>Parameters</th>"
		    "</tr></thead><tbody>\n",
		    summary->params, summary->trainable, summary->nonzero);
	for (size_t i = 0; i < shown; i++) {
		const struct model_layer *layer = &summary->layers[i];

		strbuf_addstr(out, "<tr><td>");
		escape_html(out, layer->name);
		strbuf_addstr(out, "</td><td>");
		escape_html(out, layer->type);
		strbuf_addstr(out, "</td><td>");
		escape_html(out, layer->output_shape);
		strbuf_addf(out, "</td><td class=\"num\">%" PRIu64 "</td></tr>\n",
			    layer->params);
	}
	if (shown < summary->layers_nr)
		strbuf_addf(out,
			    "<tr><td colspan=\"4\">and %zu more layers (in the "
			    "result)</td></tr>\n",
			    summary->layers_nr - shown);
	strbuf_addstr(out, "</tbody></table>\n");
}

/* Each benchmark's models, its variants side by side. */
static void add_models(struct strbuf *out, const struct report_model *model)
{
	const struct result *candidate = model->candidate;
	bool any = false;

	for (size_t i = 0; candidate && i < candidate->cases_nr; i++)
		any |= candidate->cases[i].model != NULL;
	if (!any)
		return;
	strbuf_addstr(out, "<h2>Models</h2>\n");
	for (size_t i = 0; i < candidate->cases_nr; i++) {
		const char *benchmark = candidate->cases[i].benchmark;
		bool first = true;

		/* each benchmark once, where its first case with a model is */
		for (size_t j = 0; j < i && first; j++)
			first = !candidate->cases[j].model ||
				strcmp(candidate->cases[j].benchmark, benchmark);
		if (!first || !candidate->cases[i].model)
			continue;
		strbuf_addstr(out, "<h3>");
		escape_html(out, benchmark);
		strbuf_addstr(out, "</h3>\n<div class=\"models\">\n");
		for (size_t j = i; j < candidate->cases_nr; j++)
			if (candidate->cases[j].model &&
			    !strcmp(candidate->cases[j].benchmark, benchmark))
				add_model_table(out, &candidate->cases[j]);
		strbuf_addstr(out, "</div>\n");
	}
}

static void add_machine(struct strbuf *out, const struct result *result)
{
	const struct machine_info *m;

	if (!result)
		return;
	m = &result->machine;
	strbuf_addstr(out,
		      "<details id=\"machine\"><summary>Candidate "
		      "machine</summary><dl class=\"sides\"><dt>Id</dt><dd>"
		      "<code>");
	escape_html(out, m->id);
	strbuf_addstr(out, "</code></dd><dt>Host</dt><dd>");
	report_add_cut(out, m->hostname, 200, escape_html);
	strbuf_addstr(out, "</dd><dt>OS</dt><dd>");
	report_add_cut(out, m->os, 200, escape_html);
	strbuf_addstr(out, "</dd><dt>CPU</dt><dd>");
	report_add_cut(out, m->cpu, 200, escape_html);
	strbuf_addf(out, " (%d cores)</dd>", m->cores);
	for (size_t i = 0; i < m->gpus_nr; i++) {
		strbuf_addstr(out, "<dt>GPU</dt><dd>");
		report_add_cut(out, m->gpus[i], 200, escape_html);
		strbuf_addstr(out, "</dd>");
	}
	for (size_t i = 0; i < m->ipus_nr; i++) {
		strbuf_addstr(out, "<dt>IPU</dt><dd>");
		report_add_cut(out, m->ipus[i], 200, escape_html);
		strbuf_addstr(out, "</dd>");
	}
	if (result->harness_version) {
		strbuf_addstr(out, "<dt>benchgate</dt><dd>");
		report_add_cut(out, result->harness_version, 100, escape_html);
		strbuf_addstr(out, "</dd>");
	}
	strbuf_addstr(out, "</dl></details>\n");
}

/* The document */

static void add_head(struct strbuf *out, const struct report_model *model)
{
	const struct comparison *c = model->comparison;

	/* The policy comes first: it binds only what follows it. */
	strbuf_addstr(out,
		      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		      "<meta charset=\"utf-8\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" "
		      "content=\"default-src 'none'; "
		      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
		      "img-src data:\">\n"
		      "<meta name=\"referrer\" content=\"no-referrer\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, "
		      "initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"benchgate\">\n"
		      "<title>");
	strbuf_addf(out, "benchgate: %s \u2014 ", overall_name(c->overall));
	report_add_cut(out, model->title ? model->title : c->suite, 200,
		       escape_html);
	strbuf_addf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		    html_style);
}

/* Which cases the charts beside this report leave out, when the bound
 * left some out. */
static void add_charts_note(struct strbuf *out,
			    const struct report_model *model)
{
	struct strbuf note = STRBUF_INIT;

	if (report_add_charts_note(&note, model)) {
		strbuf_addstr(out, "<p class=\"hint\">");
		escape_html(out, note.buf);
		strbuf_addstr(out, ".</p>\n");
	}
	strbuf_release(&note);
}

/* How the changes and the values beside them were estimated. */
static void add_methods_note(struct strbuf *out,
			     const struct report_model *model)
{
	struct strbuf note = STRBUF_INIT;

	if (report_add_methods_note(&note, model->comparison)) {
		strbuf_addstr(out, "<p class=\"hint\">");
		escape_html(out, note.buf);
		strbuf_addstr(out, ".</p>\n");
	}
	strbuf_release(&note);
}

void report_html(const struct report_model *model, struct strbuf *out)
{
	const struct comparison *c = model->comparison;

	assert(model->built);
	add_head(out, model);
	add_banner(out, c);
	strbuf_addstr(out, "<main>\n<h1>");
	if (model->title)
		report_add_cut(out, model->title, 200, escape_html);
	else
		strbuf_addstr(out, "Benchmark comparison");
	strbuf_addstr(out, "</h1>\n");
	add_sides(out, model);
	add_failures(out, model);
	add_skips(out, model);
	add_changes(out, model);
	add_variants(out, model);
	add_figures(out, model,
		    (const char *const[]){ "tradeoff", "variants", NULL }, NULL);
	add_figures(out, model,
		    (const char *const[]){ "distribution", "history", NULL },
		    "Charts of the changes: samples and history");
	add_methods_note(out, model);
	add_charts_note(out, model);
	add_profiles(out, model);
	add_models(out, model);
	add_all_results(out, model);
	add_machine(out, model->candidate);
	strbuf_addf(out,
		    "</main>\n<footer>Written by benchgate %s. "
		    "Self-contained: no script, style, font or image is "
		    "loaded from anywhere.</footer>\n<script>\n%s</script>\n"
		    "</body>\n</html>\n",
		    BENCHGATE_VERSION, html_script);
}
