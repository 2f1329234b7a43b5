/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate publish` publishes the log and the report of the
 * run behind each point (harness/app/run_pages.h), from a directory store
 * and a git store: the series page links them, the log is escaped in a
 * page of the site, a log that is a symbolic link is not followed, and a
 * republish keeps the pages without making them again.
 */
#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECRET "do-not-publish-7f3a"

static char *dir;
static git_repository *repo;

/* A suite whose benchmark prints markup to its log. */
static const char suite[] =
	"{ \"benchgate\": 1, \"suite\": \"logs\", \"defaults\": { "
	"\"warmup\": 0, \"runs\": 2 },\n"
	"  \"benchmarks\": [{ \"name\": \"nap\", \"command\": [\"sh\", "
	"\"-c\", \"echo '</pre><script>alert(1)</script>'\"],\n"
	"    \"metrics\": [{ \"name\": \"wall_time\", \"from\": \"wall\" "
	"}] }] }\n";

static void setup(void)
{
	dir = test_tmpdir();
	repo = test_git_init(dir);
	free(test_write_file(dir, "suite.json", suite));
	free(test_write_file(dir, "secret.txt", SECRET "\n"));
	cr_assert_eq(chdir(dir), 0);
}

static void teardown(void)
{
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

TestSuite(dashboard_runs, .init = setup, .fini = teardown, .timeout = 300);

static void bg(const char *const *args, const char *expect)
{
	struct test_output out;

	test_benchgate(&out, dir, NULL, args);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	if (expect)
		cr_assert(strstr(out.out.buf, expect), "expected '%s' in %s",
			  expect, out.out.buf);
	test_output_release(&out);
}

/* Three commits, each measured into store. */
static void measure(const char *store)
{
	git_oid commits[3];

	for (size_t i = 0; i < 3; i++) {
		char message[16];

		snprintf(message, sizeof(message), "c%zu", i);
		test_git_commit(repo, "refs/heads/main", message, i ? 1 : 0,
				i ? &commits[i - 1] : NULL, &commits[i]);
		cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"),
			     0);
		bg((const char *const[]){ "run", "suite.json", "--store", store,
					  "--quiet", NULL },
		   NULL);
	}
}

/* The names in site/sub, sorted by readdir order, space-separated. */
static size_t list_dir(struct strbuf *out, const char *sub)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *entry;
	size_t nr = 0;
	DIR *d;

	strbuf_addf(&path, "%s/site/%s", dir, sub);
	d = opendir(path.buf);
	cr_assert_not_null(d, "no %s", path.buf);
	while ((entry = readdir(d)))
		if (entry->d_name[0] != '.') {
			strbuf_addf(out, "%s ", entry->d_name);
			nr++;
		}
	closedir(d);
	strbuf_release(&path);
	return nr;
}

static char *site_file(const char *sub, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text;

	strbuf_addf(&path, "%s/site/%s/%.*s", dir, sub,
		    (int)strcspn(name, " "), name);
	text = test_read_file(path.buf);
	cr_assert_not_null(text, "no %s", path.buf);
	strbuf_release(&path);
	return text;
}

static void assert_pages(void)
{
	struct strbuf logs = STRBUF_INIT, reports = STRBUF_INIT;
	struct strbuf series = STRBUF_INIT, link = STRBUF_INIT;
	struct strbuf seen = STRBUF_INIT;
	char *log, *page;

	cr_assert_eq(list_dir(&logs, "logs"), 3, "%s", logs.buf);
	cr_assert_eq(list_dir(&reports, "reports"), 3, "%s", reports.buf);
	cr_assert_eq(list_dir(&series, "series"), 1, "%s", series.buf);
	log = site_file("logs", logs.buf);
	cr_assert(strstr(log, "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/"
			      "script&gt;"),
		  "%s", log);
	cr_assert_null(strstr(log, "<script>alert"), "%s", log);
	cr_assert(strstr(log, "script-src") == NULL, "%s", log);
	page = site_file("series", series.buf);
	strbuf_addf(&link, "<a href=\"../logs/%.*s\">log</a>",
		    (int)strcspn(logs.buf, " "), logs.buf);
	cr_assert(strstr(page, link.buf), "no %s in\n%s", link.buf, page);
	cr_assert(strstr(page, "\">report</a>"), "%s", page);
	cr_assert(strstr(page, " data-log=\"../logs/"), "%s", page);
	/* the log page in a browser: nothing runs, nothing is fetched */
	strbuf_reset(&link);
	strbuf_addf(&link, "%s/site/logs/%.*s", dir, (int)strcspn(logs.buf, " "),
		    logs.buf);
	test_browser_drive(dir, link.buf,
			   (const char *const[]){ "count", "script", "text",
						  "pre.log", NULL },
			   &seen);
	cr_assert(strstr(seen.buf, "count script: 0\n"), "%s", seen.buf);
	cr_assert(strstr(seen.buf, "</pre><script>alert(1)</script>"), "%s",
		  seen.buf);
	cr_assert_null(strstr(seen.buf, "problem:"), "%s", seen.buf);
	free(log);
	free(page);
	strbuf_release(&logs);
	strbuf_release(&reports);
	strbuf_release(&series);
	strbuf_release(&link);
	strbuf_release(&seen);
}

Test(dashboard_runs, each_point_links_its_log_and_report)
{
	struct test_output out;
	char *report;
	struct strbuf reports = STRBUF_INIT;

	measure(".benchgate/results");
	bg((const char *const[]){ "publish", "--out", "site", NULL },
	   "13 files written, 0 kept");
	assert_pages();
	list_dir(&reports, "reports");
	report = site_file("reports", reports.buf);
	cr_assert(strstr(report, "nap/default/cpu") ||
			  strstr(report, "nap"),
		  "%s", report);
	free(report);
	/* made once: a republish loads no result and reads no log (a log
	 * edited in the store since stays as published) */
	test_run(&out, dir, NULL,
		 (const char *const[]){
			 "/bin/sh", "-c",
			 "for f in .benchgate/results/*/*/*/logs/*/*.log; do "
			 "echo edited-later >>\"$f\"; done",
			 NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	bg((const char *const[]){ "publish", "--out", "site", NULL },
	   "0 files written, 13 kept");
	strbuf_release(&reports);
}

Test(dashboard_runs, a_git_store_publishes_its_logs_too)
{
	measure("git:bench");
	bg((const char *const[]){ "publish", "--out", "site", "--store",
				  "git:bench", NULL },
	   "13 files written");
	assert_pages();
}

/* A log in the store replaced by a link to a file outside it: the page
 * of that run has no log, and the file's content is nowhere. */
Test(dashboard_runs, a_log_that_is_a_link_is_not_followed)
{
	struct strbuf logs = STRBUF_INIT, found = STRBUF_INIT;
	struct test_output out;
	const char *argv[] = { "/bin/sh", "-c",
			       "for f in .benchgate/results/*/*/*/logs/*/*.log; "
			       "do ln -sf \"$PWD/secret.txt\" \"$f\"; done; "
			       "grep -rl " SECRET " site || true",
			       NULL };

	measure(".benchgate/results");
	test_run(&out, dir, NULL, argv);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	bg((const char *const[]){ "publish", "--out", "site", NULL },
	   "published");
	cr_assert_eq(list_dir(&logs, "logs"), 0, "%s", logs.buf);
	test_run(&out, dir, NULL, argv);
	cr_assert_eq(out.out.len, 0, "the secret was published: %s",
		     out.out.buf);
	test_output_release(&out);
	strbuf_release(&logs);
	strbuf_release(&found);
}
