/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the dashboard `benchgate publish` writes, browsed in
 * headless Chromium over the DevTools protocol (tests/e2e/browse_page.py):
 * the index grouped by suite, benchmark and variant; a series page whose
 * chart shows a point's commit under the pointer and zooms to a dragged
 * x-range, its script allowed by the page's CSP hash and nothing fetched;
 * hostile text (a commit subject with </script>, quotes and U+2028, a
 * unit and a suite name with markup) shown as text, never run; a point
 * measured on a busy machine marked on both.
 */
#include "harness/model/result.h"
#include "harness/store/store.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COMMITS 30
#define STEP	20 /* +20 % from this commit on */
#define BUSY	8  /* measured while 1.5 cores were busy */
#define HOSTILE_SUBJECT                                                      \
	"c20 </script><script>alert(1)</script>\"' \xe2\x80\xa8 <img src=x " \
	"onerror=alert(2)>"
#define HOSTILE_SUITE "s</script><b>\"'"
#define HOSTILE_UNIT  "ms</script><i>"

static char *dir;
static git_repository *repo;
static git_oid commits[COMMITS];

/* One result at commit i: benchmarks "b" (variants "original" and
 * "fast") and "c", metric latency in the hostile unit at level. */
static void store_at(struct store *store, size_t i, double level)
{
	static const char *const cases[][2] = { { "b", "original" },
						{ "b", "fast" },
						{ "c", "original" } };
	struct result *r = result_new();

	r->suite = xstrdup(HOSTILE_SUITE);
	r->started_at = xstrdup("2026-01-01T00:00:00Z");
	git_oid_tostr(r->git.commit, sizeof(r->git.commit), &commits[i]);
	snprintf(r->machine.id, sizeof(r->machine.id), "box");
	if (i == BUSY) {
		/* the night the CI runner was shared */
		r->load.observed = true;
		r->load.cpu_busy = 1.5;
	}
	for (size_t k = 0; k < 3; k++) {
		struct result_case *c =
			result_add_case(r, cases[k][0], cases[k][1], "cpu");
		struct metric_samples *latency =
			result_case_metric(c, "latency");
		double at = level * (1 + 0.5 * (double)k);

		latency->unit = xstrdup(HOSTILE_UNIT);
		for (int s = 0; s < 5; s++)
			metric_samples_push(latency, at * (1 + 0.001 * s));
	}
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
}

static void setup(void)
{
	struct store *store = NULL;
	char message[64];

	dir = test_tmpdir();
	repo = test_git_init(dir);
	for (size_t i = 0; i < COMMITS; i++) {
		snprintf(message, sizeof(message), "c%zu", i);
		test_git_commit(repo, "refs/heads/main",
				i == STEP ? HOSTILE_SUBJECT : message,
				i ? 1 : 0, i ? &commits[i - 1] : NULL,
				&commits[i]);
	}
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(store_open(&store, ".benchgate/results"), BG_OK, "%s",
		     bg_error_last());
	for (size_t i = 0; i < COMMITS; i++)
		store_at(store, i,
			 (i < STEP ? 10 : 12) *
				 (1 + 0.003 * (double)((int)(i * 7 % 5) - 2)));
	store_free(store);
}

static void teardown(void)
{
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

TestSuite(dashboard_browse, .init = setup, .fini = teardown, .timeout = 300);

static void publish(void)
{
	struct test_output out;

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "publish", "--out", "site",
					      NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

/* The absolute path of the series page whose name starts with prefix. */
static void series_page(struct strbuf *out, const char *prefix)
{
	struct strbuf series = STRBUF_INIT;
	struct dirent *entry;
	DIR *d;

	strbuf_addf(&series, "%s/site/series", dir);
	d = opendir(series.buf);
	cr_assert_not_null(d, "no %s", series.buf);
	while ((entry = readdir(d)))
		if (!strncmp(entry->d_name, prefix, strlen(prefix)))
			strbuf_addf(out, "%s/%s", series.buf, entry->d_name);
	closedir(d);
	cr_assert(out->len, "no series page %s* in %s", prefix, series.buf);
	strbuf_release(&series);
}

static const char *short_hex(size_t i)
{
	static char hex[13];

	snprintf(hex, sizeof(hex), "%.12s", test_oid_hex(&commits[i], 0));
	return hex;
}

static void assert_no_problem(const char *lines, const char *page)
{
	cr_assert_null(strstr(lines, "problem:"), "%s misbehaved:\n%s", page,
		       lines);
}

Test(dashboard_browse, the_index_groups_by_suite_benchmark_and_variant)
{
	struct strbuf path = STRBUF_INIT, seen = STRBUF_INIT;
	char *index;
	const char *b, *c, *original, *fast;

	publish();
	strbuf_addf(&path, "%s/site/index.html", dir);
	index = test_read_file(path.buf);
	cr_assert_not_null(index);
	/* suite heading, then a folding section per benchmark in order,
	 * its variants as headings: "fast" sorts before "original" */
	cr_assert(strstr(index, "<h2>s&lt;/script&gt;&lt;b&gt;&quot;&#39; "
				"<small>on machine box</small></h2>"),
		  "%s", index);
	b = strstr(index, "<details class=\"benchmark\" open><summary>b ");
	c = strstr(index, "<details class=\"benchmark\" open><summary>c ");
	cr_assert(b && c && b < c, "%s", index);
	fast = strstr(b, "<tr class=\"variant\"><th colspan=\"6\">fast</th>");
	original = strstr(b, "<tr class=\"variant\"><th colspan=\"6\">"
			     "original</th>");
	cr_assert(fast && original && fast < original && original < c, "%s",
		  index);
	cr_assert(strstr(index, "<th>Change vs previous point</th>"));
	/* each sparkline on its own scale, its range written beneath: b's
	 * fast variant runs at 1.5 times b's original */
	cr_assert(strstr(b, "</svg><small>9.96 ms&lt;/script&gt;&lt;i&gt; "
			    "\xe2\x80\x93 "),
		  "%s", b);
	cr_assert(strstr(b, "</svg><small>14.9 ms&lt;/script&gt;&lt;i&gt; "
			    "\xe2\x80\x93 "),
		  "%s", b);
	/* the busy night: a hollow dot on each sparkline, at point 8 of 30 */
	cr_assert(strstr(b, "<circle class=\"busy\" cx=\"45.0\""), "%s", b);
	cr_assert_null(strstr(index, "<script"), "markup got through:\n%s",
		       index);

	test_browser_drive(dir, path.buf,
			   (const char *const[]){ "count", "details.benchmark",
						  "count", "tr.variant",
						  "count", "script", NULL },
			   &seen);
	cr_assert(strstr(seen.buf, "count details.benchmark: 2\n"), "%s",
		  seen.buf);
	cr_assert(strstr(seen.buf, "count tr.variant: 3\n"), "%s", seen.buf);
	cr_assert(strstr(seen.buf, "count script: 0\n"), "%s", seen.buf);
	assert_no_problem(seen.buf, path.buf);
	free(index);
	strbuf_release(&path);
	strbuf_release(&seen);
}

Test(dashboard_browse, hovering_a_point_shows_its_commit_and_a_drag_zooms)
{
	struct strbuf page = STRBUF_INIT, seen = STRBUF_INIT;
	struct strbuf expect = STRBUF_INIT;
	char *html;

	publish();
	series_page(&page, "box_b_original_cpu_latency-");
	html = test_read_file(page.buf);
	/* the script is allowed by its hash, and nothing else is */
	cr_assert(strstr(html, "; script-src 'sha256-"), "%s", html);
	cr_assert_null(strstr(html, "unsafe-eval"));
	cr_assert_null(strstr(html, "script-src 'unsafe-inline'"));

	test_browser_drive(
		dir, page.buf,
		(const char *const[]){
			"text", "#range",
			/* the 6th point: commit 5 */
			"hover", "#points g.pt:nth-child(6) circle", "text",
			"#tip .commit", "text", "#tip .value",
			/* from commit 10 to 15 */
			"drag", "#points g.pt:nth-child(11) circle",
			"#points g.pt:nth-child(16) circle", "text", "#range",
			"shown", "#points g.pt",
			/* the hostile subject, as text */
			"hover", "#points g.pt:nth-child(11) circle", "click",
			"button[data-last=\"0\"]", "text", "#range", "hover",
			"#points g.pt:nth-child(21) circle", "text",
			"#tip .subject", "text", "#tip .commit", "count",
			"script", "count", "img", "count", "g.pt.busy", "hover",
			"#points g.pt.busy circle", "text", "#tip .busy", NULL },
		&seen);
	cr_assert(strstr(seen.buf, "text #range: 30 of 30 points shown\n"),
		  "%s", seen.buf);
	strbuf_addf(&expect, "text #tip .commit: %s\n", short_hex(5));
	cr_assert(strstr(seen.buf, expect.buf), "%s", seen.buf);
	cr_assert(strstr(seen.buf, "text #tip .value: 9.96 ms</script><i>\n"),
		  "%s", seen.buf);
	cr_assert(strstr(seen.buf, "text #range: 6 of 30 points shown\n"), "%s",
		  seen.buf);
	cr_assert(strstr(seen.buf, "shown #points g.pt: 6\n"), "%s", seen.buf);
	cr_assert(strstr(seen.buf, "text #tip .subject: c20 </script>"
				   "<script>alert(1)</script>\"'"),
		  "%s", seen.buf);
	strbuf_reset(&expect);
	strbuf_addf(&expect, "text #tip .commit: %s\n", short_hex(STEP));
	cr_assert(strstr(seen.buf, expect.buf), "%s", seen.buf);
	/* the page's one script; the hostile <img> stayed text */
	cr_assert(strstr(seen.buf, "count script: 1\n"), "%s", seen.buf);
	cr_assert(strstr(seen.buf, "count img: 1\n"), "%s", seen.buf);
	cr_assert(strstr(seen.buf, "count g.pt.busy: 1\n"), "%s", seen.buf);
	cr_assert(strstr(seen.buf, "text #tip .busy: measured on a busy "
				   "machine: other processes kept 1.5 cores "
				   "busy\n"),
		  "%s", seen.buf);
	assert_no_problem(seen.buf, page.buf);
	free(html);
	strbuf_release(&page);
	strbuf_release(&seen);
	strbuf_release(&expect);
}
