#ifndef BENCHGATE_REPORT_H
#define BENCHGATE_REPORT_H

#include "harness/gate/compare.h"
#include "harness/store/result.h"
#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * The one model every reporter reads. It is built from a comparison (a
 * single result without a baseline is a comparison whose metrics are all
 * `new`, from compare_results(NULL, result)), plus the raw results when they
 * are at hand, for the charts of sample distributions and history.
 *
 * Reporters only read the model; every string in it is user-controlled
 * (suite, benchmark, variant, metric names, notes, log tails, commit
 * subjects) and each reporter escapes it for its own format (escape.h).
 */
struct report_model {
	const struct comparison *comparison; /* required */
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
};

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
 * stable names above, each file atomically. Charts need gnuplot: without
 * it every other report is still written and one warning says charts were
 * skipped. Appends the paths written, one per line, to written (may be
 * NULL). BG_ERROR when a file cannot be written.
 */
int report_write_all(const struct report_model *model, const char *dir,
		     unsigned mask, struct strbuf *written);

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

/* "1 case", "3 cases". */
void report_add_count(struct strbuf *out, size_t n, const char *singular,
		      const char *plural);

/* "2 regressions, 1 improvement, 14 unchanged, 0 failed", then the other
 * verdicts that occur ("3 new"): the verdict line of every report. Only
 * numbers and verdict names, safe in any format. */
void report_add_counts(struct strbuf *out, const struct comparison *c);

/* Each reporter renders into a buffer (the caller writes the file). */
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
void report_github_annotations(const struct comparison *comparison,
			       struct strbuf *out);

/* Prints report_github_annotations() to `to` when the environment has
 * GITHUB_ACTIONS=true (the runner sets it), nothing otherwise. */
void report_annotate_ci(FILE *to, const struct comparison *comparison);

#endif
