/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/escape.h"
#include "reporters/report.h"

#include "harness/util/alloc.h"
#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(reporters);

#define XMLLINT	    "/usr/bin/xmllint"
#define CMARK_GFM   "/usr/bin/cmark-gfm"
#define CSV_COLUMNS 23
#define BASE_SHA    "0123456789abcdef0123456789abcdef01234567"
#define CAND_SHA    "89abcdef0123456789abcdef0123456789abcdef"

/* Names a result file or an import can carry, whatever the suite loader
 * allows: markup, CDATA ends, table and shell syntax, a spreadsheet formula
 * (the classic DDE payload) and bytes that are not UTF-8. */
#define HOSTILE_BENCHMARK "<script>alert(1)</script>]]>\"|\n$(rm -rf /)`"
#define HOSTILE_VARIANT	  "=cmd|' /C calc'!A0"
#define HOSTILE_DEVICE	  "cpu`\xff\xfe"
#define HOSTILE_METRIC	  "]]>\"|\nlat`ency"
#define HOSTILE_NOTE	  "<script>alert(1)</script>\n]]>\n$(rm -rf /)|`\xff\xfe"
#define FFFD		  "\xef\xbf\xbd" /* U+FFFD in UTF-8 */
#define HOSTILE_SUITE	  "s--><script>alert(1)</script>"

/* Building comparisons */

/* Deterministic "noise": the pattern of tests/test_compare.c, a robust CV
 * of about 1 %. */
static const double jitter[10] = { -0.012, 0.004, 0.009,  -0.003, 0.001,
				   -0.007, 0.013, -0.001, 0.006,  -0.010 };

static struct result *new_result(const char *suite, const char *commit)
{
	struct result *r = result_new();

	r->suite = xstrdup(suite);
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	return r;
}

static struct result_case *get_case(struct result *r, const char *benchmark,
				    const char *variant, const char *device)
{
	struct result_case *c = result_find_case(r, benchmark, variant, device);

	return c ? c : result_add_case(r, benchmark, variant, device);
}

/* `runs` samples around level; spread scales the jitter (negative: the
 * pattern reversed, so a candidate is no copy of its baseline). */
static struct metric_samples *add_metric(struct result_case *c,
					 const char *metric, const char *unit,
					 enum better better, double level,
					 double spread, int runs)
{
	struct metric_samples *m = result_case_metric(c, metric);

	free(m->unit);
	m->unit = xstrdup(unit);
	m->better = better;
	for (int i = 0; i < runs; i++)
		metric_samples_push(m, level * (1 + spread * jitter[i % 10]));
	m->runs = (size_t)runs;
	return m;
}

static void add_exact(struct result_case *c, const char *metric,
		      enum better better, double value)
{
	struct metric_samples *m = result_case_metric(c, metric);

	m->exact = true;
	m->tolerance = 0.002;
	m->better = better;
	metric_samples_push(m, value);
	m->runs = 1;
}

static struct comparison *compare(const struct result *base,
				  const struct result *cand)
{
	struct compare_options opts;
	struct comparison *c = NULL;

	compare_options_init(&opts);
	cr_assert_eq(compare_results(&c, base, cand, &opts), BG_OK);
	free(c->baseline.source);
	c->baseline.source = xstrdup("auto");
	return c;
}

/* Every verdict but inconclusive, and two variants against original:
 * - infer/original/cpu latency 10 -> 11 ms: regression;
 * - infer/original/cpu throughput 100 -> 110 /s: improvement;
 * - infer/original/cpu accuracy 0.940 -> 0.9395 (tolerance 0.002) and
 *   infer/quantized/cpu latency: unchanged;
 * - infer/pruned/cpu crashed: failed; infer/distilled/cpu: new;
 * - infer/original/gpu: skipped; legacy/original/cpu: missing. */
static struct comparison *sample_comparison(void)
{
	struct result *base = new_result("mlp", BASE_SHA);
	struct result *cand = new_result("mlp", CAND_SHA);
	struct result_case *c;
	struct comparison *cmp;

	c = get_case(base, "infer", "original", "cpu");
	add_metric(c, "latency", "ms", BETTER_LOWER, 10, 1, 10);
	add_metric(c, "throughput", "samples/s", BETTER_HIGHER, 100, 1, 10);
	add_exact(c, "accuracy", BETTER_HIGHER, 0.940);
	c = get_case(cand, "infer", "original", "cpu");
	add_metric(c, "latency", "ms", BETTER_LOWER, 11, -1, 10);
	add_metric(c, "throughput", "samples/s", BETTER_HIGHER, 110, -1, 10);
	add_exact(c, "accuracy", BETTER_HIGHER, 0.9395);

	add_metric(get_case(base, "infer", "quantized", "cpu"), "latency", "ms",
		   BETTER_LOWER, 4, 1, 10);
	add_metric(get_case(cand, "infer", "quantized", "cpu"), "latency", "ms",
		   BETTER_LOWER, 4, -1, 10);
	add_metric(get_case(cand, "infer", "distilled", "cpu"), "latency", "ms",
		   BETTER_LOWER, 6, 1, 10);

	add_metric(get_case(base, "infer", "pruned", "cpu"), "latency", "ms",
		   BETTER_LOWER, 7, 1, 10);
	result_case_fail(get_case(cand, "infer", "pruned", "cpu"), CASE_FAILED,
			 "killed by signal 11 (run 3)\nlast lines of stderr:\n"
			 "Segmentation fault");
	result_case_fail(get_case(cand, "infer", "original", "gpu"),
			 CASE_SKIPPED, "device 'gpu' not present");
	add_metric(get_case(base, "legacy", "original", "cpu"), "latency", "ms",
		   BETTER_LOWER, 3, 1, 10);

	cmp = compare(base, cand);
	result_free(base);
	result_free(cand);
	return cmp;
}

/* Every name, unit and note hostile, in a regression, a failure, a skip,
 * and the variant table. */
static struct comparison *hostile_comparison(void)
{
	struct result *base = new_result(HOSTILE_SUITE, "a");
	struct result *cand = new_result(HOSTILE_SUITE, "b");
	struct comparison *cmp;

	for (int side = 0; side < 2; side++) {
		struct result *r = side ? cand : base;
		double level = side ? 11 : 10, spread = side ? -1 : 1;
		struct result_case *c;

		c = get_case(r, HOSTILE_BENCHMARK, "original", HOSTILE_DEVICE);
		add_metric(c, "latency", "ms", BETTER_LOWER, level, spread, 10);
		add_metric(c, HOSTILE_METRIC, "ms<script>", BETTER_LOWER, level,
			   spread, 10);
		c = get_case(r, HOSTILE_BENCHMARK, HOSTILE_VARIANT,
			     HOSTILE_DEVICE);
		add_metric(c, "latency", "ms", BETTER_LOWER, 4, spread, 10);
		add_metric(c, HOSTILE_METRIC, HOSTILE_NOTE, BETTER_LOWER, 4,
			   spread, 10);
	}
	result_case_fail(get_case(cand, HOSTILE_BENCHMARK, HOSTILE_METRIC,
				  "cpu"),
			 CASE_FAILED, HOSTILE_NOTE);
	result_case_fail(get_case(cand, HOSTILE_BENCHMARK, HOSTILE_METRIC,
				  "gpu"),
			 CASE_SKIPPED, HOSTILE_NOTE);
	cmp = compare(base, cand);
	result_free(base);
	result_free(cand);
	return cmp;
}

/* n cases of which the first `regressions` regress. Those get 30 runs:
 * with 10, the smallest Mann-Whitney p-value (1.1e-5) would not survive
 * the Benjamini-Hochberg adjustment over thousands of metrics. */
static struct comparison *large_comparison(size_t n, size_t regressions)
{
	struct result *base = new_result("big", "a");
	struct result *cand = new_result("big", "b");
	struct comparison *cmp;
	char name[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "bench-%04zu", i);
		int runs = i < regressions ? 30 : 10;

		add_metric(get_case(base, name, "original", "cpu"), "latency",
			   "ms", BETTER_LOWER, 10, 1, runs);
		add_metric(get_case(cand, name, "original", "cpu"), "latency",
			   "ms", BETTER_LOWER, i < regressions ? 13 : 10, -1,
			   runs);
	}
	cmp = compare(base, cand);
	result_free(base);
	result_free(cand);
	return cmp;
}

/* Text helpers */

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* The attribute `name` of the first element that starts with `open`. */
static char *xml_attr(const char *xml, const char *open, const char *name)
{
	const char *element = strstr(xml, open), *value, *end;
	struct strbuf key = STRBUF_INIT;
	char *copy;

	cr_assert_not_null(element, "no %s in\n%s", open, xml);
	strbuf_addf(&key, " %s=\"", name);
	value = strstr(element, key.buf);
	cr_assert(value && value < strchr(element, '>'), "no %s on %s", name,
		  open);
	value += key.len;
	end = strchr(value, '"');
	copy = xstrndup(value, (size_t)(end - value));
	strbuf_release(&key);
	return copy;
}

static void assert_attr(const char *xml, const char *open, const char *name,
			const char *expected)
{
	char *value = xml_attr(xml, open, name);

	cr_assert_str_eq(value, expected, "%s of %s", name, open);
	free(value);
}

/* Writes text to a fresh directory as name; returns the path. */
static char *write_temp(const char *name, const struct strbuf *text)
{
	char *dir = test_tmpdir(), *path;
	struct strbuf full = STRBUF_INIT;

	strbuf_addf(&full, "%s/%s", dir, name);
	cr_assert_eq(write_file_atomic(full.buf, text->buf, text->len), BG_OK);
	path = strbuf_detach(&full, NULL);
	free(dir);
	return path;
}

static void remove_temp(char *path)
{
	char *slash = strrchr(path, '/');

	unlink(path);
	*slash = '\0';
	rmdir(path);
	free(path);
}

static void assert_valid_junit_file(const char *path)
{
	const char *argv[] = { XMLLINT,	   "--noout",
			       "--schema", TEST_FIXTURE_DIR "/junit.xsd",
			       path,	   NULL };
	struct test_output out;

	cr_assert_eq(access(XMLLINT, X_OK), 0,
		     "xmllint is needed: install libxml2-utils");
	test_run(&out, NULL, NULL, argv);
	cr_assert_eq(out.exit_code, 0, "junit.xml does not validate:\n%s",
		     out.err.buf);
	test_output_release(&out);
}

static void assert_valid_junit(const struct strbuf *xml)
{
	char *path = write_temp("junit.xml", xml);

	assert_valid_junit_file(path);
	remove_temp(path);
}

/* The HTML cmark-gfm makes of the Markdown, as GitHub would (--unsafe lets
 * raw HTML through, so any that the reporter leaked would show). */
static void render_markdown(const struct strbuf *markdown, struct strbuf *html)
{
	char *path = write_temp("report.md", markdown);
	const char *argv[] = {
		CMARK_GFM, "-e", "table", "--unsafe", path, NULL
	};
	struct test_output out;

	cr_assert_eq(access(CMARK_GFM, X_OK), 0,
		     "cmark-gfm is needed: install cmark-gfm");
	test_run(&out, NULL, NULL, argv);
	cr_assert_eq(out.exit_code, 0, "cmark-gfm: %s", out.err.buf);
	strbuf_add(html, out.out.buf, out.out.len);
	test_output_release(&out);
	remove_temp(path);
}

/* Rows (<tr>) of the i-th <table> of html, header row included; asserts
 * that every row has as many cells as the header. */
static size_t table_rows(const char *html, size_t index)
{
	const char *table = html, *end;
	size_t rows = 0, columns = 0;

	for (size_t i = 0; i <= index; i++) {
		table = strstr(table, "<table>");
		cr_assert_not_null(table, "no table %zu", index);
		table++;
	}
	end = strstr(table, "</table>");
	for (const char *row = table; (row = strstr(row, "<tr>")) && row < end;
	     row++) {
		const char *row_end = strstr(row, "</tr>");
		size_t cells = 0;

		for (const char *cell = row; cell < row_end; cell++)
			if (!strncmp(cell, "<td", 3) ||
			    !strncmp(cell, "<th", 3))
				cells++;
		if (!rows)
			columns = cells;
		cr_assert_eq(cells, columns, "row %zu of table %zu", rows,
			     index);
		rows++;
	}
	return rows;
}

/* Every line of a Markdown table has as many unescaped pipes as its
 * header: no name split a row or added a cell. */
static void assert_markdown_rows_intact(const char *markdown)
{
	size_t expected = 0;

	for (const char *line = markdown; *line;) {
		size_t len = strcspn(line, "\n"), pipes = 0;

		for (size_t i = 0; *line == '|' && i < len; i++) {
			size_t backslashes = 0;

			while (backslashes < i &&
			       line[i - 1 - backslashes] == '\\')
				backslashes++;
			if (line[i] == '|' && backslashes % 2 == 0)
				pipes++;
		}
		if (!pipes)
			expected = 0;
		else if (!expected)
			expected = pipes;
		cr_assert_eq(pipes, expected ? expected : pipes,
			     "a table line lost or gained cells: %.*s",
			     (int)len, line);
		line += len + (line[len] == '\n');
	}
}

/* RFC 4180, for reading the CSV back: the field count of each row into
 * fields[], the fields of row `keep` into kept (NUL-separated). */
static size_t parse_csv(const char *text, size_t *fields, size_t max_rows,
			size_t keep, struct strbuf *kept)
{
	size_t rows = 0, n = 1;
	const char *p = text;

	while (*p) {
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				if (rows == keep)
					strbuf_addch(kept, *p);
			}
			cr_assert_eq(*p, '"', "unterminated quoted field");
			p++;
			cr_assert(!*p || *p == ',' || *p == '\r',
				  "text after a closing quote");
		}
		for (; *p && *p != ',' && *p != '\r' && *p != '\n'; p++) {
			cr_assert_neq(*p, '"', "a quote in an unquoted field");
			if (rows == keep)
				strbuf_addch(kept, *p);
		}
		if (*p == ',') {
			n++;
			p++;
			if (rows == keep)
				strbuf_addch(kept, '\0');
			continue;
		}
		cr_assert(!*p || (p[0] == '\r' && p[1] == '\n'),
			  "a row must end with CRLF");
		cr_assert_lt(rows, max_rows);
		fields[rows++] = n;
		n = 1;
		p += *p ? 2 : 0;
	}
	return rows;
}

/* The index-th field of a row kept by parse_csv(). */
static const char *csv_field(const struct strbuf *kept, size_t index)
{
	const char *field = kept->buf;

	for (size_t i = 0; i < index; i++)
		field += strlen(field) + 1;
	return field;
}

/* Escaping */

static char *escaped(void (*escape)(struct strbuf *, const char *),
		     const char *s)
{
	struct strbuf out = STRBUF_INIT;

	escape(&out, s);
	return strbuf_detach(&out, NULL);
}

#define assert_escapes(escape, in, expected)                              \
	do {                                                              \
		char *got_ = escaped(escape, in);                         \
		cr_assert_str_eq(got_, expected, #escape "(\"%s\")", in); \
		free(got_);                                               \
	} while (0)

Test(reporters, utf8_decoding_replaces_each_bad_byte_and_resyncs)
{
	/* Overlong '/', a surrogate, above U+10FFFF, truncated: the cases
	 * of the Unicode Standard's table 3-7 of well-formed sequences. */
	assert_escapes(escape_utf8,
		       "a\xc0\xaf"
		       "b",
		       "a" FFFD FFFD "b");
	assert_escapes(escape_utf8, "\xed\xa0\x80", FFFD FFFD FFFD);
	assert_escapes(escape_utf8,
		       "\xf4\x90\x80\x80"
		       "x",
		       FFFD FFFD FFFD FFFD "x");
	assert_escapes(escape_utf8, "\xe2\x82", FFFD FFFD);
	assert_escapes(escape_utf8, "\xc2\xb5s \xf0\x9f\x98\x80",
		       "\xc2\xb5s \xf0\x9f\x98\x80");
	cr_assert_eq(utf8_prefix_len("a\xc2\xb5"
				     "b",
				     2),
		     1, "never cut inside a character");
	cr_assert_eq(utf8_prefix_len("a\xc2\xb5"
				     "b",
				     3),
		     3);
}

Test(reporters, xml_escaping_keeps_documents_well_formed)
{
	char *null_in;

	assert_escapes(escape_xml_text, "a<b>&\"'",
		       "a&lt;b&gt;&amp;&quot;&#39;");
	assert_escapes(escape_xml_text, "]]>", "]]&gt;");
	assert_escapes(escape_xml_text, "t\tn\nr\r", "t\tn\nr&#13;");
	assert_escapes(escape_xml_attr, "t\tn\nr\r", "t&#9;n&#10;r&#13;");
	/* XML 1.0 section 2.2: no C0 controls but tab, newline, CR. */
	assert_escapes(escape_xml_text, "\x01\x1b[0m\x7f",
		       FFFD FFFD "[0m" FFFD);
	assert_escapes(escape_xml_text, "\xef\xbf\xbe", FFFD);
	assert_escapes(escape_html, "<a href=\"x\">",
		       "&lt;a href=&quot;x&quot;&gt;");
	null_in = escaped(escape_xml_text, NULL);
	cr_assert_str_eq(null_in, "", "NULL reads as empty");
	free(null_in);
}

Test(reporters, markdown_escaping_is_inert)
{
	assert_escapes(escape_markdown, "a|b", "a\\|b");
	assert_escapes(escape_markdown, "<script>&", "&lt;script&gt;&amp;");
	assert_escapes(escape_markdown, "l1\nl2\r\nl3", "l1<br>l2<br>l3");
	assert_escapes(escape_markdown, "`*_[x](y)~!$\\",
		       "\\`\\*\\_\\[x\\](y)\\~\\!\\$\\\\");
	assert_escapes(escape_markdown, "# h", "\\# h");
	assert_escapes(escape_markdown, "-O2", "\\-O2");
	assert_escapes(escape_markdown, "infer-batch32", "infer-batch32");
	/* U+202E RIGHT-TO-LEFT OVERRIDE would reverse what follows. */
	assert_escapes(escape_markdown,
		       "a\xe2\x80\xae"
		       "b",
		       "a" FFFD "b");
}

Test(reporters, csv_escaping_quotes_and_defuses_formulas)
{
	assert_escapes(escape_csv, "plain", "plain");
	assert_escapes(escape_csv, "a,b", "\"a,b\"");
	assert_escapes(escape_csv, "say \"hi\"\n", "\"say \"\"hi\"\"\n\"");
	/* OWASP "CSV Injection": = + - @ tab CR start a formula. */
	assert_escapes(escape_csv, "=1+1", "'=1+1");
	assert_escapes(escape_csv, "-O2", "'-O2");
	assert_escapes(escape_csv, "@SUM(A1)", "'@SUM(A1)");
	assert_escapes(escape_csv, "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0");
	assert_escapes(escape_csv, "=a,b", "\"'=a,b\"");
	assert_escapes(escape_csv, "", "");
}

Test(reporters, gnuplot_strings_cannot_break_out)
{
	assert_escapes(escape_gnuplot, "it's", "'it''s'");
	assert_escapes(escape_gnuplot, "a\nset output '/etc/x'",
		       "'a set output ''/etc/x'''");
	assert_escapes(escape_gnuplot, "`id` @m", "'`id` @m'");
	assert_escapes(escape_gnuplot, "\xff", "'" FFFD "'");
}

Test(reporters, file_names_are_slugs_that_stay_distinct)
{
	char *a = escaped(escape_filename, "a/b");
	char *b = escaped(escape_filename, "a:b");
	char *long_name = xcalloc(1, 301), *slug;

	assert_escapes(escape_filename, "infer-batch32.v2", "infer-batch32.v2");
	cr_assert_eq(strncmp(a, "a_b-", 4), 0, "%s", a);
	cr_assert_str_neq(a, b, "a hash keeps replaced names apart");
	memset(long_name, 'x', 300);
	slug = escaped(escape_filename, long_name);
	cr_assert_eq(strlen(slug), ESCAPE_FILENAME_MAX);
	free(slug);
	slug = escaped(escape_filename, "../..\xff");
	cr_assert_eq(slug[0], '_', "no leading dot: %s", slug);
	cr_assert_null(strchr(slug, '/'));
	free(slug);
	slug = escaped(escape_filename, "");
	cr_assert_eq(slug[0], '_');
	free(slug);
	free(long_name);
	free(a);
	free(b);
}

Test(reporters, comment_marker_and_urls_cannot_close_their_context)
{
	assert_escapes(escape_html_comment, "mlp-variants", "mlp-variants");
	assert_escapes(escape_html_comment, "a-->b", "a-%2D%3Eb");
	assert_escapes(escape_html_comment, "x--!><", "x-%2D%21%3E%3C");
	assert_escapes(escape_url, "https://h/o/r", "https://h/o/r");
	assert_escapes(escape_url, "https://h/a b)\"<",
		       "https://h/a%20b%29%22%3C");
	assert_escapes(escape_url, "%41%zz", "%41%25zz");
}

/* Renders model as report_write_all() does: its numbers derived first. */
static void render(void (*reporter)(const struct report_model *,
				    struct strbuf *),
		   struct report_model *model, struct strbuf *out)
{
	report_model_build(model);
	reporter(model, out);
	report_model_release(model);
}

/* JUnit */

Test(reporters, junit_validates_and_counts_the_verdicts)
{
	struct comparison *c = sample_comparison();
	struct report_model model = { .comparison = c };
	struct strbuf xml = STRBUF_INIT;
	char *message;

	cr_assert_eq(c->counts[VERDICT_REGRESSION], 1);
	cr_assert_eq(c->counts[VERDICT_FAILED], 1);
	render(report_junit, &model, &xml);
	assert_valid_junit(&xml);
	assert_attr(xml.buf, "<testsuite ", "name", "mlp");
	assert_attr(xml.buf, "<testsuite ", "tests", "8");
	assert_attr(xml.buf, "<testsuite ", "failures", "1");
	assert_attr(xml.buf, "<testsuite ", "errors", "1");
	assert_attr(xml.buf, "<testsuite ", "skipped", "2");
	cr_assert_eq(count(xml.buf, "<testcase "), c->nr);
	cr_assert_eq(count(xml.buf, "<failure "), 1);
	cr_assert_eq(count(xml.buf, "<error "), 1);
	cr_assert_eq(count(xml.buf, "<skipped "), 2);
	cr_assert(strstr(xml.buf, "classname=\"mlp.infer.original.cpu\""));

	/* "latency +10.0% [+x%, +y%] > threshold 3%" */
	message = xml_attr(xml.buf, "<failure ", "message");
	cr_assert_eq(strncmp(message, "latency +", 9), 0, "%s", message);
	cr_assert(strstr(message, "% [+"), "%s", message);
	cr_assert(strstr(message, "%] &gt; threshold 3%"), "%s", message);
	free(message);
	assert_attr(xml.buf, "<failure ", "type", "regression");
	message = xml_attr(xml.buf, "<error ", "message");
	cr_assert_str_eq(message, "killed by signal 11 (run 3)");
	free(message);
	cr_assert(strstr(xml.buf, "Segmentation fault</error>"),
		  "the error holds the output tail");
	/* A reason to skip is said once, as a property of the suite. */
	cr_assert(strstr(xml.buf, "message=\"skipped: reason 1 (the "
				  "testsuite&#39;s property skipped.reason.1)"),
		  "%s", xml.buf);
	cr_assert(strstr(xml.buf, "name=\"skipped.reason.1\" value=\"device "
				  "&#39;gpu&#39; not present\""));
	cr_assert_eq(count(xml.buf, "not present"), 1, "%s", xml.buf);
	cr_assert(strstr(xml.buf, "name=\"infer.original.cpu.latency."
				  "baseline_median\" value=\"10"));
	strbuf_release(&xml);
	comparison_free(c);
}

Test(reporters, junit_times_the_suite_from_the_result)
{
	struct comparison *c = sample_comparison();
	struct result *cand = result_new();
	struct report_model model = { .comparison = c, .candidate = cand };
	struct strbuf xml = STRBUF_INIT;

	cand->started_at = xstrdup("2026-11-22T07:34:22Z");
	cand->finished_at = xstrdup("2026-11-22T07:35:02Z");
	render(report_junit, &model, &xml);
	assert_valid_junit(&xml);
	assert_attr(xml.buf, "<testsuite ", "timestamp",
		    "2026-11-22T07:34:22Z");
	assert_attr(xml.buf, "<testsuite ", "time", "40");

	/* Not a time: left out rather than breaking the schema. */
	free(cand->started_at);
	cand->started_at = xstrdup("yesterday\"><x>");
	strbuf_reset(&xml);
	render(report_junit, &model, &xml);
	assert_valid_junit(&xml);
	cr_assert_null(strstr(xml.buf, "timestamp="));
	strbuf_release(&xml);
	result_free(cand);
	comparison_free(c);
}

Test(reporters, the_schema_rejects_what_ci_readers_reject)
{
	/* A testcase without a classname, and one with two outcomes. */
	static const char *const broken[] = {
		"<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" "
		"errors=\"0\"><testcase name=\"t\"/></testsuite></testsuites>",
		"<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"1\" "
		"errors=\"1\"><testcase name=\"t\" classname=\"c\"><failure/>"
		"<error/></testcase></testsuite></testsuites>",
	};

	for (size_t i = 0; i < 2; i++) {
		struct strbuf xml = STRBUF_INIT;
		const char *argv[] = {
			XMLLINT,    "--noout",
			"--schema", TEST_FIXTURE_DIR "/junit.xsd",
			NULL,	    NULL
		};
		struct test_output out;

		strbuf_addstr(&xml, broken[i]);
		argv[4] = write_temp("junit.xml", &xml);
		test_run(&out, NULL, NULL, argv);
		cr_assert_neq(out.exit_code, 0, "document %zu passed", i);
		test_output_release(&out);
		remove_temp((char *)argv[4]);
		strbuf_release(&xml);
	}
}

/* Markdown */

Test(reporters, markdown_leads_with_the_verdict_and_renders_tables)
{
	struct comparison *c = sample_comparison();
	struct report_model model = { .comparison = c,
				      .repo_url = "https://github.com/o/r" };
	struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;
	const char *verdict = "### \u274c benchgate: 1 regression, "
			      "1 improvement, 2 unchanged, 1 failed, 1 new, "
			      "1 missing, 1 skipped\n";
	const char *second;

	render(report_markdown, &model, &md);
	cr_assert_eq(strncmp(md.buf, "<!-- benchgate:mlp -->\n", 23), 0,
		     "the upserter's marker first:\n%s", md.buf);
	second = md.buf + 23;
	cr_assert_eq(strncmp(second, verdict, strlen(verdict)), 0, "%s",
		     md.buf);
	cr_assert(strstr(md.buf, "[`0123456789ab`](https://github.com/o/r/"
				 "commit/" BASE_SHA ")"),
		  "%s", md.buf);
	cr_assert(strstr(md.buf, "(auto, machine m1)"));
	cr_assert(strstr(md.buf, "10.0 ms"), "%s", md.buf);
	cr_assert(strstr(md.buf, "% [+"), "%s", md.buf);
	cr_assert_lt(strstr(md.buf, "| latency |"),
		     strstr(md.buf, "| throughput |"), "regressions first");
	assert_markdown_rows_intact(md.buf);

	render_markdown(&md, &html);
	cr_assert_eq(count(html.buf, "<table>"), 4, "%s", html.buf);
	/* the failed case and the reason to skip, each once, not once per
	 * metric */
	cr_assert_eq(table_rows(html.buf, 0), 1 + 2, "failed, skipped");
	cr_assert_eq(count(md.buf, "not present"), 1, "%s", md.buf);
	cr_assert_eq(table_rows(html.buf, 1), 1 + 2, "regression, improvement");
	cr_assert_eq(table_rows(html.buf, 2), 1 + 2, "quantized, distilled");
	cr_assert_eq(table_rows(html.buf, 3),
		     1 + c->nr - 2 - c->counts[VERDICT_FAILED] -
			     c->counts[VERDICT_SKIPPED],
		     "the rest");
	cr_assert_lt(strstr(html.buf, "<details><summary>"),
		     strstr(html.buf, "<table>\n<thead>\n<tr>\n<th>Case</th>\n"
				      "<th>Metric</th>\n<th>Verdict</th>"),
		     "the rest is collapsed");
	cr_assert(strstr(html.buf, "Segmentation fault"), "notes are shown");
	cr_assert_null(strstr(md.buf, "omitted"));
	strbuf_release(&html);
	strbuf_release(&md);
	comparison_free(c);
}

Test(reporters, markdown_passes_says_so)
{
	struct result *cand = new_result("mlp", "b");
	struct comparison *c;
	struct report_model model = { 0 };
	struct strbuf md = STRBUF_INIT;

	add_metric(get_case(cand, "infer", "original", "cpu"), "latency", "ms",
		   BETTER_LOWER, 10, 1, 10);
	c = compare(NULL, cand);
	model.comparison = c;
	render(report_markdown, &model, &md);
	cr_assert(strstr(md.buf, "\n### \u2705 benchgate: no regression, "
				 "0 improvements, 0 unchanged, 0 failed, "
				 "1 new\n"),
		  "%s", md.buf);
	cr_assert(strstr(md.buf, "no baseline yet"));
	strbuf_release(&md);
	comparison_free(c);
	result_free(cand);
}

Test(reporters, markdown_fits_a_github_comment, .timeout = 120)
{
	struct comparison *c = large_comparison(3000, 2);
	struct report_model model = { .comparison = c };
	struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;

	render(report_markdown, &model, &md);
	cr_assert_lt(md.len, 65536, "GitHub's comment limit");
	cr_assert(strstr(md.buf, "more rows omitted (comment size limit); "
				 "see the HTML/JSON report artifact"));
	cr_assert(strstr(md.buf, "2 regressions"));
	render_markdown(&md, &html);
	cr_assert_eq(table_rows(html.buf, 0), 1 + 2,
		     "the regressions survive the cut");
	cr_assert(strstr(html.buf, "<details>"));
	strbuf_release(&html);
	strbuf_release(&md);
	comparison_free(c);

	/* Rows of the main table go too when nothing else is left. */
	c = large_comparison(1000, 1000);
	model.comparison = c;
	render(report_markdown, &model, &md);
	cr_assert_lt(md.len, 65536);
	cr_assert(strstr(md.buf, "1000 regressions"));
	cr_assert(strstr(md.buf, "more rows omitted"));
	strbuf_release(&md);
	comparison_free(c);
}

/* CSV */

Test(reporters, csv_has_a_row_per_case_and_metric)
{
	struct comparison *c = sample_comparison();
	struct report_model model = { .comparison = c };
	struct strbuf csv = STRBUF_INIT, header = STRBUF_INIT;
	size_t fields[64];
	size_t rows;

	report_csv(&model, &csv);
	rows = parse_csv(csv.buf, fields, 64, 0, &header);
	cr_assert_eq(rows, 1 + c->nr);
	for (size_t i = 0; i < rows; i++)
		cr_assert_eq(fields[i], CSV_COLUMNS, "row %zu", i);
	cr_assert_str_eq(csv_field(&header, 0), "suite");
	cr_assert_str_eq(csv_field(&header, 22), "note");
	cr_assert(strstr(csv.buf, "\"killed by signal 11 (run 3)\nlast lines"),
		  "a multi-line note is quoted");
	cr_assert(strstr(csv.buf, ",regression,\r\n"));
	cr_assert(
		strstr(csv.buf, "mlp,infer,original,cpu,latency,ms,lower,10,"));
	strbuf_release(&header);
	strbuf_release(&csv);
	comparison_free(c);
}

/* Hostile names */

Test(reporters, hostile_names_stay_inert_in_junit)
{
	struct comparison *c = hostile_comparison();
	struct report_model model = { .comparison = c };
	struct strbuf xml = STRBUF_INIT;

	render(report_junit, &model, &xml);
	assert_valid_junit(&xml);
	cr_assert_null(strstr(xml.buf, "<script"));
	cr_assert_null(strstr(xml.buf, "]]>"));
	cr_assert_null(strstr(xml.buf, "\xff"));
	cr_assert_eq(count(xml.buf, "<testcase "), c->nr);
	strbuf_release(&xml);
	comparison_free(c);
}

Test(reporters, hostile_names_stay_inert_in_markdown)
{
	struct comparison *c = hostile_comparison();
	struct report_model model = { .comparison = c,
				      .title = "<script>x</script>" };
	struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;
	size_t line_end;

	render(report_markdown, &model, &md);
	line_end = strcspn(md.buf, "\n");
	cr_assert_eq(count(md.buf, "-->"), 1, "only the marker closes");
	cr_assert_eq(strncmp(md.buf + line_end - 4, " -->", 4), 0);
	cr_assert_null(strstr(md.buf, "\xff"));
	assert_markdown_rows_intact(md.buf);

	render_markdown(&md, &html);
	cr_assert_null(strstr(html.buf, "<script"), "%s", html.buf);
	cr_assert_eq(count(html.buf, "<table>"), 4, "%s", html.buf);
	cr_assert_eq(table_rows(html.buf, 0), 1 + 2, "%s", html.buf);
	cr_assert_eq(table_rows(html.buf, 1), 1 + 2, "%s", html.buf);
	cr_assert_eq(table_rows(html.buf, 2), 1 + 1, "%s", html.buf);
	cr_assert_eq(table_rows(html.buf, 3),
		     1 + c->nr - 2 - c->counts[VERDICT_FAILED] -
			     c->counts[VERDICT_SKIPPED],
		     "%s", html.buf);
	cr_assert(strstr(html.buf, "&lt;script&gt;alert(1)&lt;/script&gt;"),
		  "shown as text");
	cr_assert(strstr(html.buf, "]]&gt;&quot;|<br>lat`ency"),
		  "pipe, newline and backtick kept as text:\n%s", html.buf);
	cr_assert(strstr(html.buf, "$(rm -rf /)"));
	strbuf_release(&html);
	strbuf_release(&md);
	comparison_free(c);
}

Test(reporters, hostile_names_keep_csv_columns)
{
	struct comparison *c = hostile_comparison();
	struct report_model model = { .comparison = c };
	struct strbuf csv = STRBUF_INIT, row = STRBUF_INIT;
	size_t fields[64];
	size_t rows, variant_row = 0;

	report_csv(&model, &csv);
	cr_assert_null(strstr(csv.buf, "\xff"));
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->items[i].variant, HOSTILE_VARIANT))
			variant_row = i + 1;
	cr_assert(variant_row);
	rows = parse_csv(csv.buf, fields, 64, variant_row, &row);
	cr_assert_eq(rows, 1 + c->nr);
	for (size_t i = 0; i < rows; i++)
		cr_assert_eq(fields[i], CSV_COLUMNS, "row %zu", i);
	cr_assert_str_eq(csv_field(&row, 1), HOSTILE_BENCHMARK,
			 "the name reads back");
	cr_assert_str_eq(csv_field(&row, 2), "'" HOSTILE_VARIANT,
			 "the formula is defused");
	cr_assert_str_eq(csv_field(&row, 3), "cpu`" FFFD FFFD);
	strbuf_release(&row);
	strbuf_release(&csv);
	comparison_free(c);
}

/* Writing every format */

Test(reporters, format_names_parse)
{
	unsigned mask;

	cr_assert_eq(report_parse_formats("junit,markdown", &mask), BG_OK);
	cr_assert_eq(mask, REPORT_JUNIT | REPORT_MARKDOWN);
	cr_assert_eq(report_parse_formats(" csv , charts", &mask), BG_OK);
	cr_assert_eq(mask, REPORT_CSV | REPORT_CHARTS);
	cr_assert_eq(report_parse_formats("openmetrics", &mask), BG_OK);
	cr_assert_eq(mask, REPORT_OPENMETRICS);
	cr_assert_eq(report_parse_formats("all", &mask), BG_OK);
	cr_assert_eq(mask, REPORT_ALL);
	cr_assert_eq(report_parse_formats("junit,pdf", &mask), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "'pdf'"), "%s", bg_error_last());
	cr_assert_eq(report_parse_formats("junit,,csv", &mask), BG_EINPUT);
	cr_assert_eq(report_parse_formats("", &mask), BG_EINPUT);
}

static void assert_written(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text;

	strbuf_addf(&path, "%s/%s", dir, name);
	text = test_read_file(path.buf);
	cr_assert_not_null(text, "%s was not written", path.buf);
	cr_assert_gt(strlen(text), 0, "%s is empty", path.buf);
	free(text);
	strbuf_release(&path);
}

Test(reporters, write_all_writes_every_format_for_hostile_names, .timeout = 300)
{
	struct comparison *c = hostile_comparison();
	struct report_model model = { .comparison = c };
	struct strbuf written = STRBUF_INIT, path = STRBUF_INIT;
	char *dir = test_tmpdir(), *html;

	strbuf_addf(&path, "%s/out/reports", dir);
	cr_assert_eq(report_write_all(&model, path.buf, REPORT_ALL, &written),
		     BG_OK, "%s", bg_error_last());
	assert_written(path.buf, "junit.xml");
	assert_written(path.buf, "report.md");
	assert_written(path.buf, "report.html");
	assert_written(path.buf, "comparison.json");
	assert_written(path.buf, "comparison.csv");
	assert_written(path.buf, "metrics.txt");
	cr_assert(strstr(written.buf, "/junit.xml\n"));
	cr_assert(strstr(written.buf, "/comparison.csv\n"));
	strbuf_addstr(&path, "/junit.xml");
	assert_valid_junit_file(path.buf);
	strbuf_setlen(&path, path.len - strlen("/junit.xml"));
	strbuf_addstr(&path, "/report.html");
	html = test_read_file(path.buf);
	cr_assert_null(strstr(html, "<script>alert"), "no script from names");
	free(html);
	free(dir);
	strbuf_release(&path);
	strbuf_release(&written);
	comparison_free(c);
}

Test(reporters, without_gnuplot_every_other_report_is_written,
     .init = cr_redirect_stderr)
{
	struct comparison *c = sample_comparison();
	struct report_model model = { .comparison = c };
	char *dir = test_tmpdir();

	setenv("BENCHGATE_GNUPLOT", "/nonexistent/gnuplot", 1);
	cr_assert_eq(report_write_all(&model, dir, REPORT_ALL, NULL), BG_OK,
		     "%s", bg_error_last());
	assert_written(dir, "junit.xml");
	assert_written(dir, "report.md");
	assert_written(dir, "report.html");
	assert_written(dir, "comparison.json");
	assert_written(dir, "comparison.csv");
	assert_written(dir, "metrics.txt");
	fflush(stderr);
	cr_assert_stderr_eq_str("benchgate: warning: gnuplot not found: "
				"charts skipped (install gnuplot-nox)\n");
	test_rmtree(dir);
	free(dir);
	comparison_free(c);
}
