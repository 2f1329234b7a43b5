#include "reporters/report.h"

#include "reporters/escape.h"

#include "reporters/charts.h"
#include "harness/error.h"

#include <string.h>
#include <strings.h>

typedef void (*render_fn)(const struct report_model *model,
			  struct strbuf *out);

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

int report_write_all(const struct report_model *model, const char *dir,
		     unsigned mask, struct strbuf *written)
{
	int error;

	if ((error = mkdir_p(dir)) < 0)
		return error;
	for (size_t i = 0; i < FORMATS_NR; i++) {
		if (!formats[i].render || !(mask & formats[i].flag))
			continue;
		error = write_report(model, dir, &formats[i], written);
		if (error < 0)
			return error;
	}
	if (mask & REPORT_CHARTS) {
		error = charts_write(model, dir, written);
		if (error == BG_ENOTFOUND) {
			bg_warn("gnuplot not found: charts skipped "
				"(install gnuplot-nox)");
			error = BG_OK;
		}
	}
	return error;
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
