/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_REPORT_H
#define BENCHGATE_REPORT_H

/* The report model reads the model's data only: the gate makes the
 * comparison, the history and its alerts, and no renderer sees how. */
#include "harness/model/comparison.h"
/* A branch's history is the other model: reporters/history_view.h shows
 * it, with the regressions a published dashboard lacks (`history
 * --alert`). */
#include "harness/model/history_series.h"
#include "harness/model/result.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The one model every reporter reads. The caller sets its inputs: a
 * comparison (a single result without a baseline is a comparison whose
 * metrics are all `new`, from compare_results(NULL, result)), plus the raw
 * results when they are at hand, for the charts of sample distributions and
 * history. report_model_build() then derives, once, every number and text
 * the reports show beyond the comparison's own (the change texts, the
 * speed-up texts, the history points and noise bands, the box plots); the
 * reporters only format what the model holds, so a change reads the same
 * in every report and no reporter computes statistics.
 *
 * Every string in it is user-controlled (suite, benchmark, variant, metric
 * names, notes, log tails, commit subjects) but the derived texts, which
 * hold only numbers; each reporter escapes for its own format (escape.h).
 */

/* One commit of a metric's history: the median of its samples and the
 * interval of that median at the model's confidence. */
struct report_point {
	const char *commit; /* borrowed from the history's result */
	double median, ci_low, ci_high;
};

/* A box plot of a side's samples. */
struct report_box {
	double q1, min, max, q3, median;
};

/* The finite samples of one side of an item (NaN has no place in a sort or
 * a plot) and their box plot. */
struct report_samples {
	double *values;
	size_t nr;
	struct report_box box;
};

/* What the model derives for comparison->items[i]: model->items[i]. */
struct report_item {
	/* Both sides were measured: there is a change to show. */
	bool compared;
	/* The relative change and, when it says something (both ends finite
	 * and apart), its interval: "+6.5% [+4.8%, +8.1%]"; "-5.3%" for an
	 * exact metric, whose interval is a point; "-" when there is none.
	 * The terminal and the charts show it. */
	char *relative;
	bool has_interval; /* `relative` holds an interval */
	/* The candidate's median minus the baseline's, "-0.0005", which
	 * exact metrics compare against an absolute tolerance; "-" when a
	 * side is missing. */
	char *difference;
	/* The change as a table shows it: `relative`, or for an exact metric
	 * `difference` and its tolerance, "-0.0005 (tolerance 0.002)"; "-"
	 * when a side is missing. */
	char *change;
	/* The threshold as a relative change: an exact metric's tolerance
	 * against the baseline's level; NAN when that level is zero. */
	double threshold;
	/* The threshold as a table shows it: "±3.0%", or an exact metric's
	 * tolerance in its own terms, "±0.20 pts", "±0 B"; "-" for none. */
	char *limit;

	/* With model->history: the case and metric in each result of the
	 * history that measured them, oldest first, the candidate left
	 * out. */
	struct report_point *history;
	size_t history_nr;
	/* From 3 commits on: their medians' median and robust spread
	 * (scaled MAD), the noise a change has to stand out from. */
	bool has_band;
	double band_center, band_spread;

	/* With model->baseline and model->candidate, when both measured the
	 * case and metric (nr 0 otherwise). */
	struct report_samples baseline_samples, candidate_samples;

	/* Its case is one of those that get charts (model->chart_cases). */
	bool charted;

	/* A skipped item's reason, 1 + its index in model->skips; 0 for
	 * an item that was not skipped. */
	size_t skip;
};

/* What the model derives for comparison->variants[i]. */
struct report_variant {
	/* The variant's speed-up over the one it is compared against
	 * (vc->against) and its interval, "2.7× [2.55×, 2.86×]", each
	 * number "-" when it is not finite. */
	char *speedup;
	/* Where the variant was in the baseline and where it is, each
	 * number as util/format.h writes it, the baseline's left out when
	 * it lacks one: the speed-up "15.3× → 3.95×", the size ratio
	 * "0.25× → 0.26×", the accuracy difference "+0.05 pts → -0.75 pts"
	 * (percentage points). Every report shows these texts. */
	char *speedup_move, *size, *accuracy;
};

/* One metric of a candidate's case as measured, model->cases[i].metrics[j]
 * for candidate->cases[i].metrics[j]: what the terminal's result table
 * shows. */
struct report_measure {
	double median; /* NAN without samples */
	double spread; /* robust CV; NAN without samples */
};

struct report_case {
	struct report_measure *metrics;
};

struct report_model {
	/* Inputs, set by the caller and borrowed: they must outlive the
	 * model. */
	const struct comparison *comparison; /* required by the reporters */
	const struct result *baseline;	     /* optional: raw samples */
	const struct result *candidate;	     /* optional */
	struct result *const *history;	     /* optional, newest first */
	size_t history_nr;
	const char *repo_url; /* optional: links commits,
						* e.g. https://github.com/o/r */
	const char *title;    /* optional heading */
	/* Optional: what makes the candidate's artifact paths (relative to
	 * its result file) links from where the report is: the result
	 * file's directory, relative to the report's ("../store/<commit>/
	 * <machine>"). report_write_all() derives it from
	 * comparison->candidate.path when NULL. */
	const char *artifact_base;
	/* Optional: at most this many cases get charts; 0 means
	 * REPORT_CHART_CASES_DEFAULT, SIZE_MAX every case. */
	size_t chart_cases;
	/* Optional: the drawn charts (chart.svg set) that the HTML report
	 * embeds; report_write_all() sets it when it draws charts. */
	const struct charts *charts;

	/* Derived by report_model_build(); read-only to the reporters. */
	bool built;
	/* The comparison's confidence, or 0.99 when it is not in (0, 1): the
	 * level of the history's intervals and the charts' labels. */
	double confidence;
	struct report_item *items;	 /* comparison->nr of them */
	struct report_variant *variants; /* comparison->variants_nr */
	struct report_case *cases;	 /* candidate->cases_nr */
	/* The cases (benchmark, variant, device) of the comparison, and how
	 * many of them get charts: those with a regression first, then
	 * those with the largest |change| of any metric, then the rest in
	 * the comparison's order, up to the bound (chart_cases). Their
	 * items are `charted`. */
	size_t cases_nr, charted_cases_nr;
	/* The distinct reasons why cases were skipped, in the order they
	 * first appear: a report says each once, with the cases it
	 * covers, not once per case and metric (a device's absence can
	 * take a long line). */
	struct report_skip *skips;
	size_t skips_nr;
};

/* One reason to skip, model->skips[i]. */
struct report_skip {
	const char *reason; /* borrowed from the comparison */
	size_t first;	    /* the index of its first item */
	size_t cases_nr;    /* the cases (not items) it covers */
};

/*
 * The cases that get charts unless the caller says otherwise. Each chart
 * is four files and a gnuplot run of tens of milliseconds: a suite of
 * 10,000 cases made 40,400 chart files (538 MB) in 417 s. Fifty cases are
 * more than a reader opens one by one, and cover most suites whole.
 */
#define REPORT_CHART_CASES_DEFAULT 50

/* Derives the model's numbers from its inputs (see above); every reporter
 * but CSV and OpenMetrics needs them. Release with report_model_release().
 * comparison may be NULL when only the candidate's measures are wanted
 * (the terminal's result table). The work is O(n log n) in the cases and
 * metrics of the comparison and the results (plus the samples): finding
 * each item's case in a result by scanning was quadratic. */
void report_model_build(struct report_model *model);

/* Frees what report_model_build() derived; the inputs stay. */
void report_model_release(struct report_model *model);

/* Output formats; `benchgate report --format` takes their names. */
enum report_format {
	REPORT_JUNIT = 1 << 0,	     /* junit.xml */
	REPORT_MARKDOWN = 1 << 1,    /* report.md */
	REPORT_HTML = 1 << 2,	     /* report.html */
	REPORT_JSON = 1 << 3,	     /* comparison.json */
	REPORT_CSV = 1 << 4,	     /* comparison.csv */
	REPORT_CHARTS = 1 << 5,	     /* charts/ */
	REPORT_OPENMETRICS = 1 << 6, /* metrics.txt (GitLab metrics report) */
	REPORT_ALL = (1 << 7) - 1,
};

/* Parses "junit,markdown,html" into a mask; BG_EINPUT names a bad one. */
int report_parse_formats(const char *list, unsigned *mask);

/*
 * Writes every format in mask into dir (created if missing) under the
 * stable names above, each file atomically. Charts are drawn by gnuplot,
 * run as an external program ($BENCHGATE_GNUPLOT, else gnuplot on PATH),
 * from the scripts and data of charts_render() in <dir>/charts/, into an
 * SVG and a PNG each: without gnuplot every other report is still written
 * and one warning says charts were skipped. When the bound leaves cases
 * without charts, one warning says so (report_add_charts_note()). Appends
 * the paths written (of the charts, the images), one per line, to written
 * (may be NULL).
 * BG_ERROR when a file cannot be written or gnuplot fails, with its stderr
 * in the message. Builds the model first (report_model_build()) unless
 * model->built.
 */
int report_write_all(const struct report_model *model, const char *dir,
		     unsigned mask, struct strbuf *written);

/*
 * Charts for gnuplot (charts.c): for each chart a script (.gp) and its
 * data (.dat). report_write_all() writes them into charts/ and runs
 * gnuplot there; they stay beside the SVG and PNG, so a user can restyle a
 * chart and run gnuplot again. Only text is made here, from the numbers of
 * a built model, and the same model always gives the same bytes.
 *
 *   charts/history-<benchmark>-<variant>-<device>-<metric>.{svg,png}
 *   charts/variants-<benchmark>-<device>-<metric>.{svg,png}
 *   charts/tradeoff-<benchmark>-<device>.{svg,png}
 *   charts/distribution-<benchmark>-<variant>-<device>-<metric>.{svg,png}
 */

/* One chart: <stem>.gp draws <stem>.dat into <stem>.svg and <stem>.png,
 * naming the files relative to charts/. */
struct chart {
	struct strbuf stem; /* unique among the charts of a model */
	struct strbuf gp;
	struct strbuf dat;
	/* For a report that shows the chart (HTML): what it is, "history",
	 * "variants", "tradeoff" or "distribution" (static; NULL for other
	 * charts), and its title in plain text (user names unescaped, cut as
	 * in the chart); NULL for none. */
	const char *kind;
	char *caption;
	/* Its SVG once drawn (report_write_all()); NULL before. */
	char *svg;
};

#define CHART_INIT                                                      \
	{                                                               \
		STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, NULL, NULL, NULL \
	}

struct charts {
	struct chart *items;
	size_t nr, alloc;
};

#define CHARTS_INIT        \
	{                  \
		NULL, 0, 0 \
	}

/* Appends every chart of a built model to charts, in the order they are
 * drawn: history, variants side by side, accuracy against latency, the
 * sample distributions of regressions. A model with too little to show
 * (no history, a single variant) gives fewer charts or none. Only charted
 * items (report_item.charted) have history and distribution charts, and
 * a variants or tradeoff chart is drawn when one of its variants is
 * charted, so a charted case brings at most three charts per metric and
 * one tradeoff chart. O(n log n) in the items. */
void charts_render(struct charts *charts, const struct report_model *model);

/* Frees the charts and leaves none. */
void charts_release(struct charts *charts);

/*
 * The dashboard's chart of one series of a branch's history (`benchgate
 * publish`): each point's median and interval over the commits, the band
 * of each level (report_series_levels()) and a mark at each change point,
 * red for a regression, green for an improvement; the x axis is the
 * commit, labelled with short ids. Fills chart (empty, CHART_INIT-like)
 * under `stem`: an SVG only (the site shows no PNG), and the script starts
 * with `reset`, so several scripts can share one gnuplot process
 * (gnuplot_run(), gnuplot.h). The same series always gives the same bytes.
 */
struct report_level;
void charts_series(struct chart *chart, const char *stem,
		   const struct history *history,
		   const struct history_series *series,
		   const struct report_level *levels);

/* A level of a history series: the points [first, end) between two
 * change points (or an end), their medians' median and robust spread
 * (the scaled MAD: the noise a change had to stand out from; 0 below 3
 * points). */
struct report_level {
	size_t first, end;
	double center, spread;
};

/* The series' levels into levels[0 .. series->changes_nr] (the caller
 * allocates changes_nr + 1 of them): the model of the dashboard's noise
 * bands. O(n log n) in the points. */
void report_series_levels(const struct history_series *series,
			  struct report_level *levels);

/* Helpers every reporter shares. */

/* Whether commit is a full 40-hex id (so it can be linked). */
bool report_is_full_commit(const char *commit);

/* Appends "<repo_url>/commit/<commit>", URL-escaped, and returns true when
 * commit is a full id and repo_url an http(s) URL; else appends nothing
 * and returns false. The caller escapes the URL for its format. */
bool report_commit_url(struct strbuf *out, const char *commit,
		       const char *repo_url);

/* The words a report shows for an artifact kind (result.h): "flame graph"
 * for "flamegraph", ...; an unknown kind is shown as it is. */
const char *report_artifact_label(const char *kind);

/* Appends the URL of an artifact path of the candidate (escape_url()'d):
 * model->artifact_base + "/" + path, or the path when it is absolute.
 * Returns false, appending nothing, when neither applies. The caller
 * escapes the URL for its format. */
bool report_artifact_url(struct strbuf *out, const struct report_model *model,
			 const char *path);

/* Whether the candidate has a case with artifacts or a profile note. */
bool report_has_profiles(const struct report_model *model);

/* Appends text cut to at most max bytes (between UTF-8 characters, with an
 * ellipsis when cut) through the format's escape function. */
void report_add_cut(struct strbuf *out, const char *text, size_t max,
		    void (*escape)(struct strbuf *, const char *));

/* How the changes shown were estimated: "changes and the values beside
 * them: <method> (N metrics); <method> (M)", each method the gate used
 * once (metric_comparison.method, the gate's fixed words: safe in any
 * format), and true; nothing and false when no metric was tested. */
bool report_add_methods_note(struct strbuf *out,
			     const struct comparison *comparison);

/* When the bound left cases of a built model without charts, appends
 * "450 of 500 cases have no chart: ..." (why, and the option that
 * changes it; numbers and fixed words only, safe in any format) and
 * returns true; else appends nothing and returns false. */
bool report_add_charts_note(struct strbuf *out,
			    const struct report_model *model);

/* Whether comparison item i is the first of its case's run of items of
 * one verdict (metric_comparison_same_case()): a failed or skipped case
 * has one item per metric, one after another, and the reports show such a
 * case once, at its first item. */
bool report_case_starts(const struct comparison *c, size_t i);

/* A failed case's note is why it failed, a first line such as "exited
 * with status 1 (warmup run 1/1)", then maybe "last lines of stderr:"
 * and that tail. Sets *why (length *why_len) to the first line and
 * returns the tail, cut to its last max_lines lines; "" when it has
 * none. */
const char *report_note_tail(const char *note, size_t *why_len,
			     size_t max_lines);

/* Groups equal texts, so that what many share is said once: sets
 * group_of[i] to the group of texts[i], the groups numbered in the order
 * they first appear (SIZE_MAX for a NULL text), and returns how many
 * there are. O(n log n). */
size_t report_group_texts(const char *const *texts, size_t nr,
			  size_t *group_of);

/* The lines of a failed case's stderr tail the reports show. */
#define REPORT_TAIL_LINES 8

/* Appends where a failed case's log is, as seen from where the
 * comparison's candidate result file is (its directory joined with the
 * item's relative log path) and returns true; false, appending
 * nothing, when the item has no log. */
bool report_log_path(struct strbuf *out, const struct comparison *c,
		     const struct metric_comparison *mc);

/* Appends the cases skipped for model->skips[skip], each name passed
 * through escape: "a / b / cpu, a / c / cpu and 3 more" (at most max
 * named). */
void report_add_skipped_cases(struct strbuf *out,
			      const struct report_model *model, size_t skip,
			      size_t max,
			      void (*escape)(struct strbuf *, const char *));

/* "1 case", "3 cases". */
void report_add_count(struct strbuf *out, size_t n, const char *singular,
		      const char *plural);

/* "2 regressions, 1 improvement, 14 unchanged, 0 failed", then the other
 * verdicts that occur ("3 new"): the verdict line of every report. Only
 * numbers and verdict names, safe in any format. */
void report_add_counts(struct strbuf *out, const struct comparison *c);

/* The verdict as a report shows it: its name, or for a metric with gate:
 * false (compare_item_gated()) "regression, not gated", ...: never a
 * failure. Fixed words only, safe in any format. */
const char *report_verdict_text(const struct metric_comparison *mc);

/* Each reporter renders a built model into a buffer (the caller writes the
 * file); CSV and OpenMetrics read only the comparison and take an unbuilt
 * one too. */
void report_junit(const struct report_model *model, struct strbuf *out);
void report_markdown(const struct report_model *model, struct strbuf *out);
void report_html(const struct report_model *model, struct strbuf *out);
void report_csv(const struct report_model *model, struct strbuf *out);

/* OpenMetrics text, one gauge family per statistic (median, baseline
 * median, change, verdict as a number, speed-up, verdict counts), a label
 * set per case and metric, ending "# EOF": GitLab's metrics report. */
void report_openmetrics(const struct report_model *model, struct strbuf *out);

/*
 * GitHub Actions annotations: appends to out one workflow command
 * "::error title=benchgate regression::<benchmark>/<variant>/<device>
 * <metric> +6.5% (...)" per regression, its user text escaped as the runner
 * requires (%25 %0D %0A, and %3A %2C in properties), so no name can inject
 * another command.
 */
void report_github_annotations(const struct report_model *model,
			       struct strbuf *out);

/* Prints report_github_annotations() to `to` when the environment has
 * GITHUB_ACTIONS=true (the runner sets it), nothing otherwise. */
void report_annotate_ci(FILE *to, const struct report_model *model);

#endif
