#include "reporters/report.h"

#include "reporters/escape.h"

#include "reporters/charts.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef void (*render_fn)(const struct report_model *model, struct strbuf *out);

static void render_json(const struct report_model *model, struct strbuf *out)
{
	comparison_to_json(model->comparison, out);
}

/* In the order they are written: the machine-readable documents first, so
 * a failure further on still leaves them. Charts, which run gnuplot, come
 * last and are not in this table. */
static const struct format {
	const char *name;
	enum report_format flag;
	const char *file;
	render_fn render;
} formats[] = {
	{ "json", REPORT_JSON, "comparison.json", render_json },
	{ "csv", REPORT_CSV, "comparison.csv", report_csv },
	{ "junit", REPORT_JUNIT, "junit.xml", report_junit },
	{ "markdown", REPORT_MARKDOWN, "report.md", report_markdown },
	{ "html", REPORT_HTML, "report.html", report_html },
	{ "openmetrics", REPORT_OPENMETRICS, "metrics.txt",
	  report_openmetrics },
	{ "charts", REPORT_CHARTS, NULL, NULL },
	{ "all", REPORT_ALL, NULL, NULL },
};
#define FORMATS_NR (sizeof(formats) / sizeof(formats[0]))

int report_parse_formats(const char *list, unsigned *mask)
{
	const char *p = list ? list : "";

	*mask = 0;
	for (;;) {
		size_t len = strcspn(p, ","), i;

		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		for (i = 0; i < FORMATS_NR; i++)
			if (strlen(formats[i].name) == len &&
			    !strncmp(formats[i].name, p, len))
				break;
		if (i == FORMATS_NR)
			return bg_input_error(
				"unknown report format '%.*s' (expected junit, "
				"markdown, html, json, csv, openmetrics, "
				"charts or all)",
				(int)len, p);
		*mask |= formats[i].flag;
		p += strcspn(p, ",");
		if (!*p)
			return BG_OK;
		p++;
	}
}

static int write_report(const struct report_model *model, const char *dir,
			const struct format *format, struct strbuf *written)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	int error;

	strbuf_addf(&path, "%s/%s", dir, format->file);
	format->render(model, &text);
	if ((error = write_file_atomic(path.buf, text.buf, text.len)) < 0)
		goto done;
	if (written)
		strbuf_addf(written, "%s\n", path.buf);
done:
	strbuf_release(&path);
	strbuf_release(&text);
	return error;
}

/* The directory `to` relative to the directory `from`, both resolved. */
static void add_relative_dir(struct strbuf *out, const char *from,
			     const char *to)
{
	size_t start = out->len;

	for (;;) {
		size_t from_len, to_len;

		from += strspn(from, "/");
		to += strspn(to, "/");
		from_len = strcspn(from, "/");
		to_len = strcspn(to, "/");
		if (!from_len || from_len != to_len || memcmp(from, to, to_len))
			break;
		from += from_len;
		to += to_len;
	}
	while (*(from += strspn(from, "/"))) {
		strbuf_addstr(out, "../");
		from += strcspn(from, "/");
	}
	strbuf_addstr(out, to);
	while (out->len > start && out->buf[out->len - 1] == '/')
		strbuf_setlen(out, out->len - 1);
	if (out->len == start)
		strbuf_addch(out, '.');
}

/* Where the candidate's artifacts are seen from the report directory, so
 * its links work wherever the two are opened from, as long as they keep
 * their places. */
static void derive_artifact_base(struct strbuf *out, const char *result_path,
				 const char *report_dir)
{
	const char *slash = strrchr(result_path, '/');
	char *result_dir =
		slash ? xstrndup(result_path, (size_t)(slash - result_path + 1))
		      : xstrdup(".");
	char from[PATH_MAX], to[PATH_MAX];

	if (realpath(report_dir, from) && realpath(result_dir, to))
		add_relative_dir(out, from, to);
	free(result_dir);
}

int report_write_all(const struct report_model *model, const char *dir,
		     unsigned mask, struct strbuf *written)
{
	struct report_model local = *model;
	struct strbuf base = STRBUF_INIT;
	int error;

	if ((error = mkdir_p(dir)) < 0)
		goto done;
	if (!local.artifact_base && local.candidate &&
	    local.comparison->candidate.path) {
		derive_artifact_base(&base, local.comparison->candidate.path,
				     dir);
		local.artifact_base = base.len ? base.buf : NULL;
	}
	for (size_t i = 0; i < FORMATS_NR; i++) {
		if (!formats[i].render || !(mask & formats[i].flag))
			continue;
		error = write_report(&local, dir, &formats[i], written);
		if (error < 0)
			goto done;
	}
	if (mask & REPORT_CHARTS) {
		error = charts_write(&local, dir, written);
		if (error == BG_ENOTFOUND) {
			bg_warn("gnuplot not found: charts skipped "
				"(install gnuplot-nox)");
			error = BG_OK;
		}
	}
done:
	strbuf_release(&base);
	return error;
}

static const struct {
	const char *kind;
	const char *label;
} artifact_labels[] = {
	{ "flamegraph", "flame graph" },    { "folded", "folded stacks" },
	{ "profile", "profile directory" }, { "perf", "perf.data" },
	{ "poplar", "Poplar reports" },	    { "callgrind", "callgrind output" },
};

const char *report_artifact_label(const char *kind)
{
	for (size_t i = 0;
	     i < sizeof(artifact_labels) / sizeof(*artifact_labels); i++)
		if (!strcmp(artifact_labels[i].kind, kind))
			return artifact_labels[i].label;
	return kind;
}

bool report_artifact_url(struct strbuf *out, const struct report_model *model,
			 const char *path)
{
	if (!path || !*path)
		return false;
	/* "//host/x" would leave the machine: one slash is a local path */
	while (path[0] == '/' && path[1] == '/')
		path++;
	if (path[0] != '/') {
		if (!model->artifact_base)
			return false;
		escape_url(out, model->artifact_base);
		strbuf_addch(out, '/');
	}
	escape_url(out, path);
	return true;
}

bool report_has_profiles(const struct report_model *model)
{
	const struct result *candidate = model->candidate;

	for (size_t i = 0; candidate && i < candidate->cases_nr; i++)
		if (candidate->cases[i].artifacts_nr ||
		    candidate->cases[i].profile_note)
			return true;
	return false;
}

bool report_is_full_commit(const char *commit)
{
	size_t i = 0;

	while (commit && commit[i] && strchr("0123456789abcdef", commit[i]))
		i++;
	return i == 40 && !commit[i];
}

bool report_commit_url(struct strbuf *out, const char *commit,
		       const char *repo_url)
{
	struct strbuf url = STRBUF_INIT;

	if (!report_is_full_commit(commit) || !repo_url ||
	    (strncasecmp(repo_url, "https://", 8) &&
	     strncasecmp(repo_url, "http://", 7)))
		return false;
	strbuf_addstr(&url, repo_url);
	strbuf_rtrim(&url);
	while (url.len && url.buf[url.len - 1] == '/')
		strbuf_setlen(&url, url.len - 1);
	escape_url(out, url.buf);
	strbuf_addf(out, "/commit/%s", commit);
	strbuf_release(&url);
	return true;
}

void report_add_cut(struct strbuf *out, const char *text, size_t max,
		    void (*escape)(struct strbuf *, const char *))
{
	struct strbuf cut = STRBUF_INIT;
	const char *whole = text ? text : "";
	size_t keep = utf8_prefix_len(whole, max);

	strbuf_add(&cut, whole, keep);
	if (whole[keep])
		strbuf_addstr(&cut, "\u2026");
	escape(out, cut.buf);
	strbuf_release(&cut);
}

void report_add_count(struct strbuf *out, size_t n, const char *singular,
		      const char *plural)
{
	strbuf_addf(out, "%zu %s", n, n == 1 ? singular : plural);
}

void report_add_counts(struct strbuf *out, const struct comparison *c)
{
	static const enum verdict others[] = {
		VERDICT_INCONCLUSIVE,
		VERDICT_NEW,
		VERDICT_MISSING,
		VERDICT_SKIPPED,
	};
	const size_t *n = c->counts;

	if (n[VERDICT_REGRESSION])
		report_add_count(out, n[VERDICT_REGRESSION], "regression",
				 "regressions");
	else
		strbuf_addstr(out, "no regression");
	strbuf_addstr(out, ", ");
	report_add_count(out, n[VERDICT_IMPROVEMENT], "improvement",
			 "improvements");
	strbuf_addf(out, ", %zu unchanged, %zu failed", n[VERDICT_UNCHANGED],
		    n[VERDICT_FAILED]);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (n[others[i]])
			strbuf_addf(out, ", %zu %s", n[others[i]],
				    verdict_name(others[i]));
}
