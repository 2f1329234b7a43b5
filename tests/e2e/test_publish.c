/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate publish` and `benchgate history --alert` over a
 * repository whose main branch has a planted 20 % slowdown (as
 * test_history_cli.c), with a second machine whose results stopped
 * earlier: publishing, republishing after one new commit (only what
 * changed is written, the rest keeps its mtime), alerting against the
 * published state, and the site in headless Chromium.
 */
#include "harness/util/error.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define RUN(out, ...)                    \
	test_benchgate((out), dir, NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

#define COMMITS 26
#define STEP	14 /* the first commit at 12 ms; c12, c13 unmeasured */
#define NIGHTS  8 /* at the second step's level */
#define HOSTILE "<script>alert(1)</script>&\"'"

static char *dir;
static git_repository *repo;
static git_oid commits[COMMITS + 32];
static size_t commits_nr;

/* Commit i's latency on "box": 10 ms, 12 ms from STEP on, wandering by
 * 0.6 % (test_history_cli.c). */
static double level_at(size_t i)
{
	return (i < STEP ? 10 : 12) *
	       (1 + 0.003 * (double)((int)(i * 7 % 5) - 2));
}

static void store_spec(const char *spec, size_t i, const char *machine,
		       double level)
{
	struct store *store = NULL;

	cr_assert_eq(store_open(&store, spec), BG_OK, "%s", bg_error_last());
	test_store_series_at(store, &commits[i], machine, level);
	store_free(store);
}

/* Appends commit commits_nr to main, subject `subject`. */
static void add_commit(const char *subject)
{
	size_t i = commits_nr++;

	test_git_commit(repo, "refs/heads/main", subject, i ? 1 : 0,
			i ? &commits[i - 1] : NULL, &commits[i]);
}

/* main: c0 .. c25, the subject of c14 hostile HTML; "box" measured all
 * but c12 and c13, "old" only c0 .. c9, in .benchgate/results and in
 * git:bench-results; origin is a GitHub remote. */
static void setup(void)
{
	git_remote *origin = NULL;
	char message[64];

	dir = test_tmpdir();
	repo = test_git_init(dir);
	commits_nr = 0;
	for (size_t i = 0; i < COMMITS; i++) {
		snprintf(message, sizeof(message), "c%zu", i);
		add_commit(i == STEP ? "c14 " HOSTILE : message);
	}
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	cr_assert_eq(git_remote_create(&origin, repo, "origin",
				       "git@github.com:o/r.git"),
		     0);
	git_remote_free(origin);
	cr_assert_eq(chdir(dir), 0);
	for (size_t i = 0; i < COMMITS; i++) {
		if (i == 12 || i == 13)
			continue;
		store_spec(".benchgate/results", i, "box", level_at(i));
		store_spec("git:bench-results", i, "box", level_at(i));
		if (i < 10)
			store_spec(".benchgate/results", i, "old", 20);
	}
}

static void teardown(void)
{
	git_repository_free(repo);
	test_rmtree(dir);
	free(dir);
}

TestSuite(publish, .init = setup, .fini = teardown, .timeout = 300);

static char *site_file(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/site/%s", dir, name);
	return test_read_file(path);
}

static const char *hex(size_t i)
{
	return test_oid_hex(&commits[i], 1);
}

static void publish(struct test_output *out, const char *expect)
{
	RUN(out, "publish", "--out", "site");
	cr_assert_eq(out->exit_code, 0, "%s%s", out->out.buf, out->err.buf);
	if (expect)
		cr_assert(strstr(out->out.buf, expect), "expected '%s' in %s",
			  expect, out->out.buf);
}

Test(publish, writes_the_site_its_state_and_leaves_user_files)
{
	struct test_output out;
	struct strbuf link = STRBUF_INIT, tree = STRBUF_INIT;
	char *index, *state, *feed, *cname, *regressions, path[4096];
	cJSON *root, *changes, *cp;

	snprintf(path, sizeof(path), "%s/site", dir);
	free(test_write_file(path, "CNAME", "bench.example.org\n"));
	/* 3 series pages would be wrong: box and old, latency and
	 * throughput: 4 pages, 4 charts of 3 files, index, regressions,
	 * feed; and the report of each of the 34 runs (24 of box, 10 of
	 * old; they kept no log). */
	publish(&out, "published 4 series of main into site: 53 files "
		      "written, 0 kept, 0 removed (4 charts drawn)\n");
	test_output_release(&out);

	test_list_tree(&tree, path);
	cr_assert(strstr(tree.buf, "CNAME"), "%s", tree.buf);
	index = site_file("index.html");
	cr_assert_not_null(index);
	cr_assert(strstr(index, "Content-Security-Policy"));
	strbuf_addf(&link, "<a href=\"https://github.com/o/r/commit/%s\">",
		    hex(STEP));
	cr_assert(strstr(index, link.buf), "no commit link in\n%s", index);
	cr_assert(strstr(index, "<svg class=\"spark\""));
	cr_assert(strstr(index, "c14 &lt;script&gt;alert(1)&lt;/script&gt;"
				"&amp;&quot;&#39;"),
		  "the subject escaped");
	cr_assert_null(strstr(index, "<script"));
	cname = site_file("CNAME");
	cr_assert_str_eq(cname, "bench.example.org\n");

	regressions = site_file("regressions.html");
	cr_assert(strstr(regressions, "<small>by Test &lt;test@example.invalid"
				      "&gt;</small>"),
		  "the author, as attribution read it: %s", regressions);
	free(regressions);
	feed = site_file("feed.xml");
	cr_assert(strstr(feed, "<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
	cr_assert(strstr(feed, "<title>Regression +"), "%s", feed);
	cr_assert_null(strstr(feed, "<script"));

	state = site_file("benchgate-state.json");
	root = cJSON_Parse(state);
	cr_assert_not_null(root, "%s", state);
	cr_assert_eq(cJSON_GetObjectItem(root, "benchgate_dashboard")->valueint,
		     1);
	cr_assert_str_eq(cJSON_GetObjectItem(root, "tip")->valuestring,
			 hex(COMMITS - 1));
	cr_assert_not_null(cJSON_GetObjectItem(
		cJSON_GetObjectItem(root, "files"), "index.html"));
	cr_assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "files"),
					   "CNAME"));
	changes = cJSON_GetObjectItem(root, "change_points");
	cr_assert_eq(cJSON_GetArraySize(changes), 2, "latency, throughput");
	cp = cJSON_GetArrayItem(changes, 0);
	cr_assert_str_eq(cJSON_GetObjectItem(cp, "commit")->valuestring,
			 hex(STEP));
	cr_assert_str_eq(cJSON_GetObjectItem(cp, "direction")->valuestring,
			 "regression");
	cr_assert_str_eq(cJSON_GetObjectItem(cp, "machine")->valuestring,
			 "box");
	cJSON_Delete(root);
	free(index);
	free(state);
	free(feed);
	free(cname);
	strbuf_release(&link);
	strbuf_release(&tree);
}

/* Sets every file of the site to an old mtime, so a rewrite shows. */
static void age_site(void)
{
	struct strbuf tree = STRBUF_INIT;
	struct timeval old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char site[4096];

	snprintf(site, sizeof(site), "%s/site", dir);
	test_list_tree(&tree, site);
	for (char *name = strtok(tree.buf, " "); name;
	     name = strtok(NULL, " ")) {
		char path[8192];

		snprintf(path, sizeof(path), "%s/%s", site, name);
		utimes(path, old);
	}
	strbuf_release(&tree);
}

static bool rewritten(const char *name)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/site/%s", dir, name);
	cr_assert_eq(stat(path, &st), 0, "no %s", path);
	return st.st_mtime != 1000000000;
}

/* The file under site/dir whose name contains part. */
static void find_file(struct strbuf *out, const char *subdir, const char *part,
		      const char *ext)
{
	struct strbuf tree = STRBUF_INIT;
	char path[4096];

	snprintf(path, sizeof(path), "%s/site/%s", dir, subdir);
	test_list_tree(&tree, path);
	for (char *name = strtok(tree.buf, " "); name;
	     name = strtok(NULL, " "))
		if (strstr(name, part) && strstr(name, ext)) {
			strbuf_addf(out, "%s/%s", subdir, name);
			break;
		}
	cr_assert(out->len, "no %s*%s in site/%s", part, ext, subdir);
	strbuf_release(&tree);
}

Test(publish, the_charts_mark_the_change_points)
{
	struct strbuf svg = STRBUF_INIT;
	struct test_output out;
	char *text;

	publish(&out, NULL);
	test_output_release(&out);
	find_file(&svg, "charts", "box_b_original_cpu_latency", ".svg");
	text = site_file(svg.buf);
	cr_assert_not_null(text);
	/* The key of the marks, and the band of the levels. */
	cr_assert(strstr(text, "regression"), "no mark in %s", svg.buf);
	cr_assert(strstr(text, "level \u00b1 robust SD"), "%s", svg.buf);
	free(text);
	strbuf_reset(&svg);
	find_file(&svg, "charts", "old_b_original_cpu_latency", ".svg");
	text = site_file(svg.buf);
	cr_assert_null(strstr(text, "regression"), "old has no change point");
	free(text);
	strbuf_release(&svg);
}

Test(publish, republishing_after_one_commit_rewrites_only_what_changed)
{
	struct strbuf old_page = STRBUF_INIT, old_svg = STRBUF_INIT;
	struct strbuf new_page = STRBUF_INIT, new_svg = STRBUF_INIT;
	struct test_output out;

	publish(&out, NULL);
	test_output_release(&out);
	age_site();
	publish(&out, ": 0 files written, 53 kept, 0 removed (0 charts "
		      "drawn)\n");
	test_output_release(&out);

	add_commit("c26");
	store_spec(".benchgate/results", COMMITS, "box", 12.0);
	/* "old" measured nothing new: its 2 pages and 2 charts (8 files)
	 * stay; box's 2 pages and 2 charts (8) and the index are written.
	 * The regressions page and the feed show the change points' levels
	 * to 3 digits, which a night at the level does not move: kept. The
	 * new run's report is written, the 34 others kept. */
	publish(&out, ": 10 files written, 44 kept, 0 removed (2 charts "
		      "drawn)\n");
	test_output_release(&out);
	find_file(&old_page, "series", "old_b_original_cpu_latency", ".html");
	find_file(&old_svg, "charts", "old_b_original_cpu_latency", ".svg");
	find_file(&new_page, "series", "box_b_original_cpu_latency", ".html");
	find_file(&new_svg, "charts", "box_b_original_cpu_latency", ".svg");
	cr_assert_not(rewritten(old_page.buf));
	cr_assert_not(rewritten(old_svg.buf));
	cr_assert(rewritten(new_page.buf));
	cr_assert(rewritten(new_svg.buf));
	cr_assert(rewritten("index.html"));
	cr_assert_not(rewritten("regressions.html"));
	cr_assert_not(rewritten("feed.xml"));
	cr_assert(rewritten("benchgate-state.json"));
	strbuf_release(&old_page);
	strbuf_release(&old_svg);
	strbuf_release(&new_page);
	strbuf_release(&new_svg);
}

Test(publish, a_series_gone_takes_its_files_and_only_those)
{
	struct test_output out;
	char path[4096];

	publish(&out, NULL);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/site/series", dir);
	free(test_write_file(path, "mine.html", "kept"));
	RUN(&out, "publish", "--out", "site", "--machine", "box");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "removed"), "%s", out.out.buf);
	/* old's 2 pages and 2 charts, and the reports of its 10 runs */
	cr_assert(strstr(out.out.buf, ", 18 removed"), "%s", out.out.buf);
	test_output_release(&out);
	free(test_read_file(path));
	snprintf(path, sizeof(path), "%s/site/series/mine.html", dir);
	cr_assert_not_null(test_read_file(path), "a user's file removed");
}

Test(publish, a_state_naming_paths_outside_the_site_removes_nothing)
{
	struct test_output out;
	char path[4096], *kept;

	snprintf(path, sizeof(path), "%s/site", dir);
	free(test_write_file(dir, "victim.txt", "mine"));
	free(test_write_file(path, "notes.txt", "mine"));
	free(test_write_file(path, "benchgate-state.json",
			     "{\"benchgate_dashboard\": 1, \"files\": {"
			     "\"../victim.txt\": \"0123456789abcdef\", "
			     "\"notes.txt\": \"0123456789abcdef\", "
			     "\"series/../notes.txt\": \"0123456789abcdef\", "
			     "\"/etc/hostname\": \"0123456789abcdef\"}, "
			     "\"change_points\": []}"));
	publish(&out, ", 0 removed (");
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/victim.txt", dir);
	kept = test_read_file(path);
	cr_assert_str_eq(kept, "mine");
	free(kept);
	snprintf(path, sizeof(path), "%s/site/notes.txt", dir);
	kept = test_read_file(path);
	cr_assert_str_eq(kept, "mine", "a file the state names but publish "
				       "never writes is not publish's");
	free(kept);
}

Test(publish, without_gnuplot_pages_are_written_and_charts_drawn_later)
{
	const char *const no_gnuplot[] = { "BENCHGATE_GNUPLOT=/nonexistent",
					   NULL };
	struct strbuf svg = STRBUF_INIT;
	struct test_output out;

	publish(&out, "(4 charts drawn)");
	test_output_release(&out);
	add_commit("c26");
	store_spec(".benchgate/results", COMMITS, "box", 12.0);
	test_benchgate(&out, dir, no_gnuplot,
		       (const char *const[]){ "publish", "--out", "site",
					      NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "gnuplot not found: charts skipped"),
		  "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, ", 0 removed (0 charts drawn)"), "%s",
		  out.out.buf);
	test_output_release(&out);
	/* The out-of-date chart stays, and the next publish redraws it. */
	find_file(&svg, "charts", "box_b_original_cpu_latency", ".svg");
	publish(&out, ", 0 removed (2 charts drawn)");
	test_output_release(&out);
	strbuf_release(&svg);
}

/* gnuplot draws on a thread of its own while the pages are written: its
 * failure still names the script and what gnuplot said, and the state is
 * not written, so the next publish draws the charts again. */
Test(publish, a_failing_gnuplot_names_the_script_and_leaves_no_state)
{
	char *fake = test_write_file(dir, "fake-gnuplot",
				     "#!/bin/sh\n"
				     "[ \"$1\" = --version ] && exit 0\n"
				     "echo 'line 3: bad plot' >&2\n"
				     "exit 1\n");
	char env[4096], path[4096];
	const char *const failing[] = { env, NULL };
	struct test_output out;

	chmod(fake, 0755);
	snprintf(env, sizeof(env), "BENCHGATE_GNUPLOT=%s", fake);
	test_benchgate(&out, dir, failing,
		       (const char *const[]){ "publish", "--out", "site",
					      NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "gnuplot failed on '"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, ".gp' or a script after it: exited "
				      "with status 1: line 3: bad plot"),
		  "%s", out.err.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/site/benchgate-state.json", dir);
	cr_assert(access(path, F_OK) != 0, "no state after a failed publish");
	publish(&out, "(4 charts drawn)");
	test_output_release(&out);
	free(fake);
}

/* The previous site (a gh-pages checkout, a CI cache) may hold links a
 * pull request planted: a series/ that is a link is refused, nothing is
 * written or removed where it leads, even a file the state names. */
Test(publish, a_symlinked_series_dir_is_refused_and_its_target_untouched)
{
	char site[4096], outside[4096], link_path[8192], *kept;
	struct strbuf tree = STRBUF_INIT;
	struct test_output out;

	snprintf(site, sizeof(site), "%s/site", dir);
	snprintf(outside, sizeof(outside), "%s/outside", dir);
	free(test_write_file(outside, "victim.html", "mine"));
	free(test_write_file(site, "benchgate-state.json",
			     "{\"benchgate_dashboard\": 1, \"files\": {"
			     "\"series/victim.html\": \"0123456789abcdef\"}, "
			     "\"change_points\": []}"));
	snprintf(link_path, sizeof(link_path), "%s/series", site);
	cr_assert_eq(symlink(outside, link_path), 0);
	RUN(&out, "publish", "--out", "site");
	cr_assert_neq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "symbolic link"), "%s", out.err.buf);
	test_output_release(&out);
	test_list_tree(&tree, outside);
	cr_assert_str_eq(tree.buf, "victim.html", "written through the link: %s",
			 tree.buf);
	snprintf(link_path, sizeof(link_path), "%s/victim.html", outside);
	kept = test_read_file(link_path);
	cr_assert_str_eq(kept, "mine");
	free(kept);
	strbuf_release(&tree);
}

/* A chart's SVG that is a link is replaced by the chart, never written
 * through (gnuplot opens the name it is given); a page that is a link is
 * replaced too; a file the state names that is no longer what publish
 * wrote is left alone. */
Test(publish, a_symlinked_chart_or_page_is_replaced_not_written_through)
{
	char site[4096], target[4096], path[8192], page_target[4096], *kept;
	struct strbuf svg = STRBUF_INIT;
	struct test_output out;
	struct stat st;

	snprintf(site, sizeof(site), "%s/site", dir);
	publish(&out, "(4 charts drawn)");
	test_output_release(&out);
	find_file(&svg, "charts", "box_b_original_cpu_latency", ".svg");
	snprintf(target, sizeof(target), "%s/target.svg", dir);
	snprintf(page_target, sizeof(page_target), "%s/target.html", dir);
	free(test_write_file(dir, "target.svg", "mine"));
	free(test_write_file(dir, "target.html", "mine"));
	snprintf(path, sizeof(path), "%s/%s", site, svg.buf);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/index.html", site);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(symlink(page_target, path), 0);
	publish(&out, "(1 chart drawn)");
	test_output_release(&out);
	kept = test_read_file(target);
	cr_assert_str_eq(kept, "mine", "gnuplot wrote through the link");
	free(kept);
	kept = test_read_file(page_target);
	cr_assert_str_eq(kept, "mine", "a page written through the link");
	free(kept);
	snprintf(path, sizeof(path), "%s/%s", site, svg.buf);
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode), "the chart is not a file of its own");
	strbuf_release(&svg);
}

/* gnuplot exits 0 on a full disk with its SVG cut short: publish checks
 * what it drew, fails naming the chart, records no broken file in a
 * state, and the next publish draws it whole. */
Test(publish, an_incomplete_chart_is_not_recorded_and_redrawn_later)
{
	char *fake = test_write_file(
		dir, "short-gnuplot",
		"#!/bin/sh\n"
		"[ \"$1\" = --version ] && exit 0\n"
		"for gp in \"$@\"; do\n"
		"  printf '<?xml version=\"1.0\"?>\\n<svg width=\"600\"' "
		"> \"${gp%.gp}.svg\"\n"
		"done\n"
		"exit 0\n");
	char env[4096], path[4096], *state, *text;
	const char *const short_env[] = { env, NULL };
	struct strbuf svg = STRBUF_INIT;
	struct test_output out;

	chmod(fake, 0755);
	snprintf(env, sizeof(env), "BENCHGATE_GNUPLOT=%s", fake);
	test_benchgate(&out, dir, short_env,
		       (const char *const[]){ "publish", "--out", "site",
					      NULL });
	cr_assert_neq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "incomplete chart"), "%s",
		  out.err.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/site/benchgate-state.json", dir);
	if (access(path, F_OK) == 0) {
		state = test_read_file(path);
		cr_assert_null(strstr(state, ".svg"), "%s", state);
		free(state);
	}
	publish(&out, "(4 charts drawn)");
	test_output_release(&out);
	find_file(&svg, "charts", "box_b_original_cpu_latency", ".svg");
	text = site_file(svg.buf);
	cr_assert(strstr(text, "</svg>"), "%s", text);
	free(text);
	strbuf_release(&svg);
	free(fake);
}

Test(publish, a_git_store_publishes_the_same_pages)
{
	struct test_output out;
	char *from_dir, *from_git;

	RUN(&out, "publish", "--out", "site", "--machine", "box");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	from_dir = site_file("index.html");
	RUN(&out, "publish", "--out", "site", "--machine", "box", "--store",
	    "git:bench-results");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, ": 0 files written"), "%s", out.out.buf);
	test_output_release(&out);
	from_git = site_file("index.html");
	cr_assert_str_eq(from_git, from_dir);
	free(from_dir);
	free(from_git);
}

Test(publish, bad_input_exits_2)
{
	struct test_output out;
	char path[4096];

	RUN(&out, "publish");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--out DIR is required"), "%s",
		  out.err.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/site", dir);
	free(test_write_file(path, "benchgate-state.json",
			     "{\"benchgate_dashboard\": 1,\n \"files\": "
			     "{\"index.html\": 7}}"));
	RUN(&out, "publish", "--out", "site");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "benchgate-state.json:2:26: "
				      "files.index.html: expected a hash"),
		  "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, "publish", "--help");
	cr_assert_eq(out.exit_code, 0);
	cr_assert(strstr(out.out.buf, "--out DIR"), "%s", out.out.buf);
	cr_assert_null(strstr(out.out.buf, "--format"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, "--help");
	cr_assert(strstr(out.out.buf, "\n  publish "), "%s", out.out.buf);
	test_output_release(&out);
}

/* Alerts */

static void alert(struct test_output *out, const char *published,
		  int status)
{
	RUN(out, "history", "--alert", "--published", published);
	cr_assert_eq(out->exit_code, status, "%s%s", out->out.buf,
		     out->err.buf);
}

Test(publish, alert_names_a_regression_the_site_does_not_show)
{
	struct test_output out;
	struct strbuf line = STRBUF_INIT;
	char *state, path[4096];

	/* The first run: the step at c14 is older than the newest 10. */
	alert(&out, "site", 0);
	cr_assert(strstr(out.out.buf, "no new regression on main among the "
				      "newest 10 commits"),
		  "%s", out.out.buf);
	test_output_release(&out);

	publish(&out, NULL);
	test_output_release(&out);
	alert(&out, "site", 0);
	cr_assert(strstr(out.out.buf, "since the published state"), "%s",
		  out.out.buf);
	test_output_release(&out);

	/* A state published before the step knew none of it. */
	state = site_file("benchgate-state.json");
	snprintf(path, sizeof(path), "%s/before", dir);
	*strstr(state, "\"change_points\"") = '\0';
	strcat(state, "\"change_points\": []}");
	free(test_write_file(path, "benchgate-state.json", state));
	free(state);
	alert(&out, "before", 1);
	/* The series, then its change point as `history` shows one. */
	strbuf_addf(&line, "new regression in s on box: b/original/cpu "
			   "latency\n      regression at %.12s: +20.",
		    hex(STEP));
	cr_assert(strstr(out.out.buf, line.buf), "%s", out.out.buf);
	strbuf_reset(&line);
	strbuf_addf(&line, ", bisect %.12s..%.12s (3 commits): \"c14 " HOSTILE
			   "\"\n",
		    test_oid_hex(&commits[12], 2), hex(STEP));
	cr_assert(strstr(out.out.buf, line.buf), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "new regression in s on box: "
				      "b/original/cpu throughput\n      "
				      "regression at "),
		  "%s", out.out.buf);
	cr_assert_null(strstr(out.out.buf, " on old:"), "%s", out.out.buf);
	test_output_release(&out);
	strbuf_release(&line);
}

Test(publish, alert_on_a_new_step_then_quiet_once_published)
{
	struct test_output out;
	char message[32];

	publish(&out, NULL);
	test_output_release(&out);
	/* Ten more nights at 12 ms, then eight 25 % slower still: a second
	 * step, a plateau apart from the first (the detector's shortest
	 * window is 16 points; changepoint.h). */
	for (size_t i = 0; i < 10 + NIGHTS; i++) {
		snprintf(message, sizeof(message), "%s %zu",
			 i < 10 ? "same" : "slow", i < 10 ? i : i - 10);
		add_commit(message);
		store_spec(".benchgate/results", commits_nr - 1, "box",
			   (i < 10 ? 12 : 15) *
				   (1 + 0.003 * (double)((int)(i * 7 % 5) - 2)));
	}
	alert(&out, "site", 1);
	cr_assert(strstr(out.out.buf, "\"slow 0\""), "%s", out.out.buf);
	cr_assert_null(strstr(out.out.buf, "c14"), "the old step was told");
	test_output_release(&out);
	/* A site never published: the new step is among the newest 10. */
	alert(&out, "nowhere", 1);
	test_output_release(&out);
	publish(&out, NULL);
	test_output_release(&out);
	alert(&out, "site", 0);
	test_output_release(&out);
}

/* history --issue: the body the nightly jobs post as an issue, the alert
 * through the forge's neutraliser (body_fence()): a commit subject with a
 * mention, an image (a beacon), HTML and a run of backticks stays inside
 * a fence longer than that run, so none of it goes live. */
Test(publish, alert_issue_body_is_fenced_by_benchgate)
{
	struct test_output out;
	char message[160], path[4096], *body;

	publish(&out, NULL);
	test_output_release(&out);
	for (size_t i = 0; i < 10 + NIGHTS; i++) {
		if (i == 10)
			snprintf(message, sizeof(message),
				 "slow ```` @all ![b](http://beacon.invalid/"
				 "b.png) <img src=x>");
		else
			snprintf(message, sizeof(message), "%s %zu",
				 i < 10 ? "same" : "slow", i);
		add_commit(message);
		store_spec(".benchgate/results", commits_nr - 1, "box",
			   (i < 10 ? 12 : 15) *
				   (1 + 0.003 * (double)((int)(i * 7 % 5) - 2)));
	}
	RUN(&out, "history", "--alert", "--published", "site", "--issue",
	    "issue.md");
	cr_assert_eq(out.exit_code, 1, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/issue.md", dir);
	body = test_read_file(path);
	cr_assert_not_null(body, "no issue body");
	cr_assert(!strncmp(body,
			   "The nightly benchmarks found new regressions:\n\n"
			   "`````text\n",
			   strlen("The nightly benchmarks found new "
				  "regressions:\n\n`````text\n")),
		  "%s", body);
	cr_assert(strstr(body, "\"slow ```` @all ![b](http://beacon.invalid/"
			       "b.png) <img src=x>\""),
		  "%s", body);
	cr_assert(strlen(body) > 6 &&
			  !strcmp(body + strlen(body) - 6, "`````\n") &&
			  body[strlen(body) - 7] == '\n',
		  "the fence is not closed last: %s", body);
	free(body);
	/* no regression: no issue, and --issue belongs to --alert */
	RUN(&out, "history", "--issue", "x.md");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "--issue FILE writes the issue of "
				      "--alert"),
		  "%s", out.err.buf);
	test_output_release(&out);
}

Test(publish, alert_input_errors_exit_2)
{
	struct test_output out;
	char path[4096];

	RUN(&out, "history", "--alert");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--alert and --published DIR go "
				      "together"),
		  "%s", out.err.buf);
	test_output_release(&out);
	snprintf(path, sizeof(path), "%s/bad", dir);
	free(test_write_file(path, "benchgate-state.json",
			     "{\"benchgate_dashboard\": 1, \"files\": {},\n"
			     " \"change_points\": [{\"suite\": \"s\"}]}"));
	alert(&out, "bad", 2);
	cr_assert(strstr(out.err.buf, "benchgate-state.json:2:20: "
				      "change_points[0]: missing required "
				      "key 'machine'"),
		  "%s", out.err.buf);
	test_output_release(&out);
}

/* In a real browser */

static void load_site_page(const char *page, struct strbuf *dom)
{
	struct strbuf problems = STRBUF_INIT, path = STRBUF_INIT;
	char scratch[4096];

	snprintf(scratch, sizeof(scratch), "%s/browser", dir);
	cr_assert_eq(mkdir(scratch, 0777), 0);
	strbuf_addf(&path, "%s/site/%s", dir, page);
	test_browser_load(scratch, path.buf, dom, &problems);
	cr_assert_eq(problems.len, 0, "%s misbehaved:\n%s", page,
		     problems.buf);
	test_rmtree(scratch);
	strbuf_release(&problems);
	strbuf_release(&path);
}

Test(publish, the_site_renders_offline_with_its_change_points_visible)
{
	struct strbuf dom = STRBUF_INIT, page = STRBUF_INIT, row = STRBUF_INIT;
	struct test_output out;

	publish(&out, NULL);
	test_output_release(&out);

	load_site_page("index.html", &dom);
	strbuf_addf(&row, "<code title=\"%s\">%.12s</code>", hex(STEP),
		    hex(STEP));
	cr_assert(strstr(dom.buf, "<h2 id=\"latest\">Latest change points"),
		  "%s", dom.buf);
	cr_assert(strstr(dom.buf, "<tr class=\"change\">"), "%s", dom.buf);
	cr_assert(strstr(dom.buf, row.buf), "%s", dom.buf);
	cr_assert(strstr(dom.buf, "<circle class=\"regression\""));
	cr_assert_null(strstr(dom.buf, "<script"), "a subject became markup");

	strbuf_reset(&dom);
	find_file(&page, "series", "box_b_original_cpu_latency", ".html");
	load_site_page(page.buf, &dom);
	cr_assert(strstr(dom.buf, "<img class=\"chart\" src=\"../charts/"),
		  "%s", dom.buf);
	cr_assert(strstr(dom.buf, "<h2>Change points</h2>"));
	cr_assert(strstr(dom.buf, row.buf), "%s", dom.buf);
	cr_assert(strstr(dom.buf, "<span class=\"regression\">+20."), "%s",
		  dom.buf);
	strbuf_release(&dom);
	strbuf_release(&page);
	strbuf_release(&row);
}
