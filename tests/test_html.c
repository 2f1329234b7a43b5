/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/report.h"

#include "harness/gate/compare.h"
#include "harness/util/error.h"
#include "harness/util/process.h"
#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

TestSuite(html);

/* The same fixed noise pattern as test_compare.c (robust CV about 1 %). */
static const double jitter[10] = { -0.012, 0.004, 0.009,  -0.003, 0.001,
				   -0.007, 0.013, -0.001, 0.006,  -0.010 };

#define BASE_COMMIT "a11ce0b0a11ce0b0a11ce0b0a11ce0b0a11ce0b0"
#define CAND_COMMIT "c0ffee1c0ffee1c0ffee1c0ffee1c0ffee1c0ffe"

/* Every kind of string an attacker controls, at once: markup, attribute
 * breakout, a CDATA end, invalid UTF-8. */
#define HOSTILE \
	"<script>alert(1)</script>\"'><img src=x onerror=alert(1)>]]>\xff"

struct names {
	const char *suite, *benchmark, *variant, *device, *metric, *unit;
	const char *note;
};

static const struct names plain = {
	"mlp-variants", "infer", "quantized",	       "cpu",
	"latency",	"ms",	 "killed by signal 11"
};
static const struct names hostile = { HOSTILE, HOSTILE, HOSTILE, HOSTILE,
				      HOSTILE, HOSTILE, HOSTILE };

static void fill(struct metric_samples *m, const char *unit, double level,
		 int shift)
{
	m->unit = strdup(unit);
	for (int i = 0; i < 10; i++)
		metric_samples_push(m, level * (1 + jitter[(i + shift) % 10]));
	m->runs = 10;
}

/* original at 10 ms, the named variant 12 % slower on the candidate (a
 * regression) and 2.5x faster than original, a "pruned" variant 15 %
 * faster (an improvement), and a "broken" variant that crashed. */
static struct result *make_result(const struct names *n, const char *commit,
				  bool candidate)
{
	struct result *r = result_new();
	struct result_case *c;

	r->suite = strdup(n->suite);
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	r->git.subject = strdup(n->note);
	c = result_add_case(r, n->benchmark, "original", n->device);
	fill(result_case_metric(c, n->metric), n->unit, 10, candidate ? 5 : 0);
	c = result_add_case(r, n->benchmark, n->variant, n->device);
	fill(result_case_metric(c, n->metric), n->unit,
	     candidate ? 4.0 * 1.12 : 4.0, candidate ? 7 : 0);
	c = result_add_case(r, n->benchmark, "pruned", n->device);
	fill(result_case_metric(c, n->metric), n->unit,
	     candidate ? 6.0 * 0.85 : 6.0, candidate ? 3 : 0);
	c = result_add_case(r, n->benchmark, "broken", n->device);
	if (candidate)
		result_case_fail(c, CASE_FAILED, n->note);
	else
		fill(result_case_metric(c, n->metric), n->unit, 5, 0);
	return r;
}

struct fixture {
	struct result *baseline, *candidate;
	struct comparison *comparison;
	struct report_model model;
	struct strbuf html;
};

static void fixture_init(struct fixture *f, const struct names *n,
			 bool with_baseline, const char *repo_url)
{
	struct compare_options opts;

	memset(f, 0, sizeof(*f));
	strbuf_init(&f->html, 0);
	f->baseline = with_baseline ? make_result(n, BASE_COMMIT, false) : NULL;
	f->candidate = make_result(n, CAND_COMMIT, true);
	compare_options_init(&opts);
	cr_assert_eq(compare_results(&f->comparison, f->baseline, f->candidate,
				     &opts),
		     BG_OK);
	f->comparison->baseline.source =
		strdup(with_baseline ? n->note : "none");
	f->model.comparison = f->comparison;
	f->model.baseline = f->baseline;
	f->model.candidate = f->candidate;
	f->model.repo_url = repo_url;
	f->model.title = n == &hostile ? HOSTILE : NULL;
	report_model_build(&f->model);
	report_html(&f->model, &f->html);
	report_model_release(&f->model);
}

static void fixture_release(struct fixture *f)
{
	comparison_free(f->comparison);
	result_free(f->baseline);
	result_free(f->candidate);
	strbuf_release(&f->html);
}

static size_t count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static const char *find(const char *haystack, const char *needle)
{
	const char *at = strstr(haystack, needle);

	cr_assert_not_null(at, "no \"%s\" in the report", needle);
	return at;
}

/* Checking markup without a parser */

/* Well-formed UTF-8 (RFC 3629): no stray or missing continuation bytes,
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool valid_utf8(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	while (*s) {
		size_t len = *s < 0x80		   ? 1
			     : (*s & 0xe0) == 0xc0 ? 2
			     : (*s & 0xf0) == 0xe0 ? 3
			     : (*s & 0xf8) == 0xf0 ? 4
						   : 0;
		unsigned long cp = len == 1   ? *s
				   : len == 2 ? *s & 0x1f
				   : len == 3 ? *s & 0x0f
					      : *s & 0x07;
		static const unsigned long least[] = { 0, 0, 0x80, 0x800,
						       0x10000 };

		if (!len)
			return false;
		for (size_t i = 1; i < len; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if (cp < least[len] || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		s += len;
	}
	return true;
}

/* Calls check(tag name, attribute name, value) for every attribute of
 * every tag. Every '<' in the report starts a tag (user text has them
 * escaped, and the style and script hold none), so a scan is enough. */
static void each_attribute(const char *html,
			   void (*check)(const char *tag, const char *name,
					 const char *value))
{
	char tag[32], name[64];
	struct strbuf value = STRBUF_INIT;

	for (const char *p = html; (p = strchr(p, '<'));) {
		size_t len = 0;

		for (p++; *p && !isspace((unsigned char)*p) && *p != '>' &&
			  len + 1 < sizeof(tag);
		     p++)
			tag[len++] = (char)tolower((unsigned char)*p);
		tag[len] = '\0';
		while (*p && *p != '>') {
			while (isspace((unsigned char)*p) || *p == '/')
				p++;
			len = 0;
			while (*p && !isspace((unsigned char)*p) &&
			       !strchr("=>/", *p) && len + 1 < sizeof(name))
				name[len++] =
					(char)tolower((unsigned char)*p++);
			name[len] = '\0';
			strbuf_reset(&value);
			if (*p == '=') {
				char quote = *++p;
				const char *end;

				cr_assert(quote == '"' || quote == '\'',
					  "unquoted attribute %s in <%s>", name,
					  tag);
				end = strchr(p + 1, quote);
				cr_assert_not_null(end);
				strbuf_add(&value, p + 1,
					   (size_t)(end - p - 1));
				p = end + 1;
			}
			if (len)
				check(tag, name, value.buf);
		}
	}
	strbuf_release(&value);
}

static void attribute_is_inert(const char *tag, const char *name,
			       const char *value)
{
	cr_assert(strncmp(name, "on", 2), "event handler %s=\"%s\" on <%s>",
		  name, value, tag);
	cr_assert(strcmp(tag, "img") && strcmp(tag, "iframe") &&
			  strcmp(tag, "object") && strcmp(tag, "embed") &&
			  strcmp(tag, "link") && strcmp(tag, "base"),
		  "a <%s> in the report", tag);
	/* The only URLs are commit links; nothing is loaded from one. */
	if (strstr(value, "://") || !strcmp(name, "src") ||
	    !strcmp(name, "srcset") || !strcmp(name, "xlink:href"))
		cr_assert(!strcmp(tag, "a") && !strcmp(name, "href") &&
				  (!strncmp(value, "https://", 8) ||
				   !strncmp(value, "http://", 7)),
			  "<%s %s=\"%s\">", tag, name, value);
}

static void assert_self_contained(const char *html)
{
	each_attribute(html, attribute_is_inert);
	cr_assert_null(strstr(html, "url("), "a CSS url() can load");
	cr_assert_null(strstr(html, "@import"));
	cr_assert_eq(count(html, "<script"), 1, "one script, the sorter");
	cr_assert(strstr(html, "<script>\n"), "no src on it");
}

/* The document */

Test(html, verdict_commits_and_tables_come_in_order)
{
	struct fixture f;
	const char *banner, *changes, *variants, *details;

	fixture_init(&f, &plain, true, "https://github.com/o/r/");
	find(f.html.buf, "<!DOCTYPE html>");
	find(f.html.buf,
	     "<meta name=\"viewport\" content=\"width=device-width");
	banner = find(f.html.buf, "<strong id=\"verdict\">FAILED</strong>");
	find(f.html.buf, "1 regression, 1 improvement");
	find(f.html.buf,
	     "<a href=\"https://github.com/o/r/commit/" BASE_COMMIT "\"");
	find(f.html.buf,
	     "<a href=\"https://github.com/o/r/commit/" CAND_COMMIT "\"");
	changes = find(f.html.buf, "<h2>Regressions and improvements</h2>");
	variants = find(f.html.buf, "<h2>Variants against original</h2>");
	details = find(f.html.buf, "<details id=\"all\">");
	cr_assert(banner < changes && changes < variants && variants < details);
	/* Regressions lead the table; a failure has its own section. */
	cr_assert_lt(find(changes, "v-regression"),
		     find(changes, "v-improvement"));
	find(f.html.buf, "<h2>Failed cases</h2>");
	find(f.html.buf, "killed by signal 11");
	/* Every table scrolls sideways on a phone, and sorts. */
	cr_assert_eq(count(f.html.buf, "<div class=\"scroll\"><table "
				       "class=\"sortable\""),
		     count(f.html.buf, "<table"));
	/* Bars are inline SVG: one per changed metric, one per variant;
	 * the table of all results has none, so it fits a laptop. */
	cr_assert_geq(count(f.html.buf, "<svg class=\"bar\""), 2 + 2);
	cr_assert_eq(count(details, "<svg class=\"bar\""), 0);
	assert_self_contained(f.html.buf);
	fixture_release(&f);
}

Test(html, content_security_policy_forbids_every_load)
{
	struct fixture f;
	const char *csp, *style;

	fixture_init(&f, &plain, true, NULL);
	csp = find(f.html.buf, "<meta http-equiv=\"Content-Security-Policy\" "
			       "content=\"default-src 'none'; style-src "
			       "'unsafe-inline'; script-src 'unsafe-inline'; "
			       "img-src data:\">");
	style = find(f.html.buf, "<style>");
	cr_assert_lt(csp, style, "the policy binds only what follows it");
	/* Without a repository URL nothing is linked at all. */
	cr_assert_null(strstr(f.html.buf, "<a "));
	cr_assert_null(strstr(f.html.buf, "://"));
	fixture_release(&f);
}

Test(html, hostile_names_come_out_inert)
{
	struct fixture f;

	fixture_init(&f, &hostile, true,
		     "https://example.com/o/r\"onmouseover=\"alert(1)");
	cr_assert_null(strstr(f.html.buf, "<script>alert"));
	cr_assert_null(strstr(f.html.buf, "<img"));
	cr_assert_null(strstr(f.html.buf, "]]>"));
	cr_assert(valid_utf8(f.html.buf), "invalid UTF-8 passed through");
	/* The names are there, as text. */
	find(f.html.buf, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;"
			 "&gt;&lt;img src=x onerror=alert(1)&gt;]]&gt;"
			 "\xef\xbf\xbd");
	/* The quote in the URL is percent-encoded: still one attribute. */
	find(f.html.buf, "href=\"https://example.com/o/r%22onmouseover=%22");
	assert_self_contained(f.html.buf);
	fixture_release(&f);
}

Test(html, only_web_urls_are_linked)
{
	struct fixture f;

	fixture_init(&f, &plain, true, "javascript:alert(1)//");
	cr_assert_null(strstr(f.html.buf, "<a "));
	cr_assert_null(strstr(f.html.buf, "javascript:"));
	find(f.html.buf, "<code title=\"" CAND_COMMIT "\">c0ffee1c0ffe</code>");
	fixture_release(&f);
}

Test(html, without_a_baseline_every_metric_is_new)
{
	struct fixture f;

	fixture_init(&f, &plain, false, NULL);
	find(f.html.buf, "no baseline yet");
	find(f.html.buf, "None beyond the threshold.");
	/* The crashed variant still fails the run without a baseline. */
	find(f.html.buf, "<strong id=\"verdict\">FAILED</strong>");
	find(f.html.buf, "v-new");
	fixture_release(&f);
}

/* In a real browser */

static char *write_page(const char *dir, const char *html)
{
	return test_write_file(dir, "report.html", html);
}

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 |
	       (unsigned long)p[2] << 8 | p[3];
}

Test(html, renders_in_a_real_browser_without_network_or_errors, .timeout = 300)
{
	struct strbuf dom = STRBUF_INIT, problems = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf profile = STRBUF_INIT, shot = STRBUF_INIT;
	struct strbuf shot_arg = STRBUF_INIT;
	struct strbuf png = STRBUF_INIT;
	char *dir = test_tmpdir(), *path;
	const char *extra[] = { NULL /* screenshot */,
				"--window-size=1280,2000", NULL };
	struct fixture f;

	fixture_init(&f, &hostile, true, "https://github.com/o/r");
	path = write_page(dir, f.html.buf);

	test_browser_load(dir, path, &dom, &problems);
	cr_assert_eq(problems.len, 0, "the page misbehaved:\n%s", problems.buf);
	/* It loaded and rendered: the verdict is in the DOM, the sorter ran
	 * (it marks the headers), and no hostile name became an element. */
	find(dom.buf, "id=\"verdict\">FAILED</strong>");
	find(dom.buf, "class=\" sortable\" tabindex=\"0\"");
	cr_assert_null(strstr(dom.buf, "<img"));
	cr_assert_eq(count(dom.buf, "<script"), 1);

	strbuf_addf(&profile, "%s/profile-shot", dir);
	strbuf_addf(&shot, "%s/shot.png", dir);
	strbuf_addf(&shot_arg, "--screenshot=%s", shot.buf);
	extra[0] = shot_arg.buf;
	test_browser_run(path, profile.buf, extra, &out, &err);
	cr_assert_eq(strbuf_read_file(&png, shot.buf), BG_OK,
		     "no screenshot at %s:\n%s", shot.buf, err.buf);
	cr_assert_gt(png.len, 24);
	cr_assert_eq(memcmp(png.buf, "\x89PNG\r\n\x1a\n", 8), 0, "not a PNG");
	cr_assert_eq(be32((const unsigned char *)png.buf + 16), 1280);
	cr_assert_eq(be32((const unsigned char *)png.buf + 20), 2000);
	/* A blank page compresses to a few kB; a rendered report, text and
	 * tables, takes far more. */
	cr_assert_gt(png.len, 30000, "screenshot of %zu bytes: blank?",
		     png.len);

	fixture_release(&f);
	strbuf_release(&dom);
	strbuf_release(&problems);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&profile);
	strbuf_release(&shot);
	strbuf_release(&shot_arg);
	strbuf_release(&png);
	test_rmtree(dir);
	free(path);
	free(dir);
}

/* The negative controls: the checker above must see a page that loads
 * something, or it proves nothing. */
Test(html, browser_check_catches_an_external_image, .timeout = 300)
{
	struct strbuf dom = STRBUF_INIT, problems = STRBUF_INIT;
	char *dir = test_tmpdir(), *path;

	/* Port 9 (discard) on loopback: refused at once, never leaves the
	 * machine. */
	path = write_page(dir, "<!DOCTYPE html><html><head><meta "
			       "charset=\"utf-8\"><title>t</title></head>"
			       "<body><p>VERDICT</p><img src=\"http://"
			       "127.0.0.1:9/x.png\"></body></html>\n");
	test_browser_load(dir, path, &dom, &problems);
	find(dom.buf, "VERDICT");
	find(problems.buf, "request: http://127.0.0.1:9/x.png");
	strbuf_release(&dom);
	strbuf_release(&problems);
	test_rmtree(dir);
	free(path);
	free(dir);
}

Test(html, browser_check_catches_a_blocked_load, .timeout = 300)
{
	struct strbuf dom = STRBUF_INIT, problems = STRBUF_INIT;
	char *dir = test_tmpdir(), *path;

	path = write_page(dir, "<!DOCTYPE html><html><head><meta "
			       "charset=\"utf-8\"><meta http-equiv=\""
			       "Content-Security-Policy\" content=\""
			       "default-src 'none'; img-src data:\">"
			       "<title>t</title></head><body><p>VERDICT</p>"
			       "<img src=\"http://127.0.0.1:9/x.png\">"
			       "</body></html>\n");
	test_browser_load(dir, path, &dom, &problems);
	find(dom.buf, "VERDICT");
	find(problems.buf, "Content Security Policy");
	strbuf_release(&dom);
	strbuf_release(&problems);
	test_rmtree(dir);
	free(path);
	free(dir);
}

/* Issue 27, "numbers that agree": a regression of +12 % [-73 %, +1532 %]
 * against a 3 % threshold (the interval few drifting runs give) and a
 * change whose interval no test could bound. */
static struct metric_comparison wide_item(const char *benchmark, double low,
					  double high)
{
	struct metric_comparison mc;

	memset(&mc, 0, sizeof(mc));
	mc.suite = (char *)"s";
	mc.benchmark = (char *)benchmark;
	mc.variant = (char *)"v";
	mc.device = (char *)"cpu";
	mc.metric = (char *)"latency";
	mc.unit = (char *)"ms";
	mc.has_baseline = mc.has_candidate = true;
	mc.baseline.n = mc.candidate.n = 10;
	mc.baseline.median = mc.centre_baseline = 1.00;
	mc.candidate.median = mc.centre_candidate = 1.12;
	mc.change = 0.12;
	mc.change_low = low;
	mc.change_high = high;
	mc.threshold = 0.03;
	mc.p_value = mc.p_adjusted = 0.0004;
	mc.verdict = VERDICT_REGRESSION;
	return mc;
}

/* The change bars are scaled to the changes and thresholds shown, so a
 * 12 % regression is not a dot on a ±1700 % scale; an interval past the
 * scale ends in an arrowhead, an unbounded one is dashed and says so. */
Test(html, change_bars_fit_the_changes_not_their_intervals)
{
	struct metric_comparison items[2];
	struct comparison c;
	struct report_model model = { 0 };
	struct strbuf out = STRBUF_INIT;
	const char *changes;

	items[0] = wide_item("wide", -0.73, 15.32);
	items[1] = wide_item("unbounded", -1.0, INFINITY);
	memset(&c, 0, sizeof(c));
	c.items = items;
	c.nr = 2;
	c.confidence = 0.99;
	c.counts[VERDICT_REGRESSION] = 2;
	c.overall = OVERALL_REGRESSION;
	model.comparison = &c;
	report_model_build(&model);
	report_html(&model, &out);
	changes = strstr(out.buf, "<h2>Regressions and improvements</h2>");
	cr_assert_not_null(changes);
	/* 12 % and 1.1 of room: the bars run from -13.2 % to +13.2 % */
	cr_assert(strstr(changes, "Each bar runs from -13.2% to +13.2%"),
		  "%.600s", changes);
	/* both ends of both intervals run past the scale */
	cr_assert_eq(count(changes, "class=\"beyond\""), 4, "%s", changes);
	cr_assert_eq(count(changes, "class=\"ci unbounded\""), 1);
	cr_assert(strstr(changes, "interval unbounded"));
	report_model_release(&model);
	strbuf_release(&out);
}
