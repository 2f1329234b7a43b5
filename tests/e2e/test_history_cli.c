/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate history` over a repository whose main branch has
 * a planted 20 % slowdown, with the same results in a directory store and
 * in a git:BRANCH store. Checks the --json document's schema and values,
 * the CSV, the terminal view and the errors for bad input.
 */
#include "harness/util/error.h"
#include "harness/util/format.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN(out, ...)                    \
	test_benchgate((out), dir, NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

#define COMMITS 26
/* The first commit at the new level, and the two unmeasured before it. */
#define STEP	14
#define HOSTILE 5 /* the commit whose subject is CSV-hostile */

static const char hostile_subject[] = "=cmd|' /C calc'!A0, \"quoted\"";

static char *dir;
static git_oid commits[COMMITS], side;

/* Commit i's latency: 10 ms, 12 ms (+20 %) from STEP on, moved by -0.6 %
 * to +0.6 % in a fixed pattern, as real histories wander. */
static double level_at(size_t i)
{
	return (i < STEP ? 10 : 12) *
	       (1 + 0.003 * (double)((int)(i * 7 % 5) - 2));
}

/* The median of its samples (the middle one, store_at()). */
static double median_at(size_t i)
{
	return level_at(i) + 2 * 0.01;
}

/* One result at commit (testutil's history fixture, on machine "box"). */
static void store_at(struct store *store, const git_oid *commit, double level)
{
	test_store_series_at(store, commit, "box", level);
}

/* main: c0 .. c25 and a side branch merged in at c8 whose own commit has
 * a result that history must not show; results everywhere but c12 and
 * c13, latency level_at(); the same
 * results in .benchgate/results and git:bench-results. */
static void setup(void)
{
	static const char *const specs[] = { ".benchgate/results",
					     "git:bench-results" };
	git_repository *repo;
	git_oid parents[2];
	char message[64];

	dir = test_tmpdir();
	repo = test_git_init(dir);
	for (size_t i = 0; i < COMMITS; i++) {
		snprintf(message, sizeof(message), "c%zu", i);
		if (i == 8) {
			test_git_commit(repo, "refs/heads/side", "side", 1,
					&commits[7], &side);
			parents[0] = commits[7];
			parents[1] = side;
		} else if (i) {
			parents[0] = commits[i - 1];
		}
		test_git_commit(repo, "refs/heads/main",
				i == HOSTILE ? hostile_subject : message,
				i == 8 ? 2
				: i    ? 1
				       : 0,
				parents, &commits[i]);
	}
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	git_repository_free(repo);
	/* The git store is the repository's of the current directory. */
	cr_assert_eq(chdir(dir), 0);
	for (size_t s = 0; s < 2; s++) {
		struct store *store = NULL;

		cr_assert_eq(store_open(&store, specs[s]), BG_OK, "%s",
			     bg_error_last());
		for (size_t i = 0; i < COMMITS; i++)
			if (i != 12 && i != 13)
				store_at(store, &commits[i], level_at(i));
		/* Off the first-parent line: never a point. */
		store_at(store, &side, 50);
		store_free(store);
	}
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(history_cli, .init = setup, .fini = teardown, .timeout = 120);

static cJSON *load_json(const char *name)
{
	char path[4096];
	char *text;
	cJSON *root;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = test_read_file(path);
	cr_assert_not_null(text, "no %s", path);
	root = cJSON_Parse(text);
	cr_assert_not_null(root, "%s is not JSON: %s", name, text);
	free(text);
	return root;
}

/* The object's keys, in order, are exactly `keys` (NULL-terminated). */
static void assert_keys(const cJSON *object, const char *const *keys)
{
	const cJSON *item = object->child;

	for (; *keys; keys++, item = item->next) {
		cr_assert_not_null(item, "missing key '%s'", *keys);
		cr_assert_str_eq(item->string, *keys);
	}
	cr_assert_null(item, "unexpected key '%s'", item ? item->string : "");
}

static const cJSON *get(const cJSON *object, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);

	cr_assert_not_null(item, "no '%s'", key);
	return item;
}

static const char *str(const cJSON *object, const char *key)
{
	const cJSON *item = get(object, key);

	cr_assert(cJSON_IsString(item), "'%s' is not a string", key);
	return item->valuestring;
}

static double num(const cJSON *object, const char *key)
{
	const cJSON *item = get(object, key);

	cr_assert(cJSON_IsNumber(item), "'%s' is not a number", key);
	return item->valuedouble;
}

static const char *hex(size_t i)
{
	return test_oid_hex(&commits[i], 1);
}

static void check_document(const cJSON *root)
{
	static const char *const top[] = { "benchgate_history", "branch",
					   "series", "incidents", NULL };
	static const char *const series_keys[] = {
		"suite",   "benchmark",	    "variant", "device",
		"machine", "metric",	    "unit",    "better",
		"points",  "change_points", NULL
	};
	static const char *const point_keys[] = {
		"commit", "commit_time", "subject", "n", "median", "ci", NULL
	};
	static const char *const change_keys[] = {
		"commit",    "index",	  "before", "after", "change",
		"change_ci", "direction", "range",  "resolved_by",
		"author",    "incident",  NULL
	};
	static const char *const incident_keys[] = {
		"commit", "commit_time",   "subject",	  "author",
		"range",  "range_commits", "regressions", "moves",
		NULL
	};
	const cJSON *series, *latency, *points, *p, *changes, *cp, *range;
	const cJSON *incidents, *incident, *moves;

	assert_keys(root, top);
	cr_assert_eq(num(root, "benchgate_history"), 1);
	cr_assert_str_eq(str(root, "branch"), "main");
	series = get(root, "series");
	cr_assert_eq(cJSON_GetArraySize(series), 2, "latency, throughput");
	latency = cJSON_GetArrayItem(series, 0);
	assert_keys(latency, series_keys);
	cr_assert_str_eq(str(latency, "suite"), "s");
	cr_assert_str_eq(str(latency, "benchmark"), "b");
	cr_assert_str_eq(str(latency, "variant"), "original");
	cr_assert_str_eq(str(latency, "device"), "cpu");
	cr_assert_str_eq(str(latency, "machine"), "box");
	cr_assert_str_eq(str(latency, "metric"), "latency");
	cr_assert_str_eq(str(latency, "unit"), "ms");
	cr_assert_str_eq(str(latency, "better"), "lower");

	points = get(latency, "points");
	cr_assert_eq(cJSON_GetArraySize(points), COMMITS - 2,
		     "c12 and c13 are gaps");
	p = cJSON_GetArrayItem(points, 0);
	assert_keys(p, point_keys);
	cr_assert_str_eq(str(p, "commit"), hex(0), "oldest first");
	/* testutil's fixed commit time, as `git log --format=%%cI`. */
	cr_assert_str_eq(str(p, "commit_time"), "2026-01-01T00:00:00+00:00");
	cr_assert_str_eq(str(p, "subject"), "c0");
	cr_assert_eq(num(p, "n"), 5);
	cr_assert_float_eq(num(p, "median"), median_at(0), 1e-9);
	cr_assert_eq(cJSON_GetArraySize(get(p, "ci")), 2);
	cr_assert_leq(cJSON_GetArrayItem(get(p, "ci"), 0)->valuedouble,
		      median_at(0));
	cr_assert_geq(cJSON_GetArrayItem(get(p, "ci"), 1)->valuedouble,
		      median_at(0));
	cr_assert_str_eq(str(cJSON_GetArrayItem(points, 12), "commit"),
			 hex(STEP));

	changes = get(latency, "change_points");
	cr_assert_eq(cJSON_GetArraySize(changes), 1, "the planted step");
	cp = cJSON_GetArrayItem(changes, 0);
	assert_keys(cp, change_keys);
	cr_assert_str_eq(str(cp, "commit"), hex(STEP));
	cr_assert_eq(num(cp, "index"), 12);
	cr_assert_float_eq(num(cp, "before"), 10.02, 0.1);
	cr_assert_float_eq(num(cp, "after"), 12.02, 0.1);
	cr_assert_float_eq(num(cp, "change"), 0.2, 0.02);
	cr_assert_eq(cJSON_GetArraySize(get(cp, "change_ci")), 2);
	cr_assert_str_eq(str(cp, "direction"), "regression");
	range = get(cp, "range");
	cr_assert_eq(cJSON_GetArraySize(range), 2);
	cr_assert_str_eq(cJSON_GetArrayItem(range, 0)->valuestring, hex(12),
			 "the first unmeasured commit");
	cr_assert_str_eq(cJSON_GetArrayItem(range, 1)->valuestring, hex(STEP));

	cr_assert_str_eq(str(cJSON_GetArrayItem(series, 1), "better"),
			 "higher");
	cr_assert_str_eq(
		str(cJSON_GetArrayItem(get(cJSON_GetArrayItem(series, 1),
					   "change_points"),
				       0),
		    "direction"),
		"regression", "less throughput is worse too");

	/* latency and throughput moved at the same commit: one incident,
	 * whose range is what the gap left open */
	cr_assert_str_eq(str(cp, "author"), "Test <test@example.invalid>",
			 "testutil.c signs every commit so");
	cr_assert_eq(num(cp, "incident"), 0);
	incidents = get(root, "incidents");
	cr_assert_eq(cJSON_GetArraySize(incidents), 1, "one cause");
	incident = cJSON_GetArrayItem(incidents, 0);
	assert_keys(incident, incident_keys);
	cr_assert_str_eq(str(incident, "commit"), hex(STEP));
	cr_assert_str_eq(str(incident, "author"),
			 "Test <test@example.invalid>");
	cr_assert_str_eq(
		cJSON_GetArrayItem(get(incident, "range"), 0)->valuestring,
		hex(12));
	cr_assert_eq(num(incident, "range_commits"), STEP - 12 + 1);
	cr_assert_eq(num(incident, "regressions"), 2);
	moves = get(incident, "moves");
	cr_assert_eq(cJSON_GetArraySize(moves), 2);
	cr_assert_str_eq(str(cJSON_GetArrayItem(moves, 0), "metric"),
			 "latency");
	cr_assert_eq(num(cJSON_GetArrayItem(moves, 1), "series"), 1);
	cr_assert_str_eq(str(cJSON_GetArrayItem(moves, 1), "metric"),
			 "throughput");
}

Test(history_cli, json_of_a_directory_store)
{
	struct test_output out;
	cJSON *root;

	RUN(&out, "history", "--json", "h.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	root = load_json("h.json");
	check_document(root);
	cJSON_Delete(root);
}

Test(history_cli, json_of_a_git_store_is_the_same_document)
{
	struct test_output out;
	char *from_dir, *from_git, path[4096];
	cJSON *root;

	RUN(&out, "history", "--json", "dir.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_str_empty(out.out.buf, "--quiet prints nothing");
	test_output_release(&out);
	RUN(&out, "history", "--store", "git:bench-results", "--json",
	    "git.json", "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	root = load_json("git.json");
	check_document(root);
	cJSON_Delete(root);
	snprintf(path, sizeof(path), "%s/dir.json", dir);
	from_dir = test_read_file(path);
	snprintf(path, sizeof(path), "%s/git.json", dir);
	from_git = test_read_file(path);
	cr_assert_str_eq(from_git, from_dir);
	free(from_dir);
	free(from_git);
	/* --store is what is read: another branch has nothing. */
	RUN(&out, "history", "--store", "git:nothing-here");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, ", 0 series,"), "%s", out.out.buf);
	test_output_release(&out);
}

Test(history_cli, csv_has_a_row_per_point_and_escapes_subjects)
{
	struct test_output out;
	struct strbuf row = STRBUF_INIT;
	const char *line;
	size_t rows = 0;

	RUN(&out, "history", "--csv", "--metric", "latency");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(!strncmp(out.out.buf,
			   "suite,benchmark,variant,device,machine,metric,"
			   "unit,better,commit,commit_time,subject,n,median,"
			   "ci_low,ci_high,change_point\r\n",
			   strlen("suite,benchmark,variant,device,machine,"
				  "metric,unit,better,commit,commit_time,"
				  "subject,n,median,ci_low,ci_high,"
				  "change_point\r\n")),
		  "%s", out.out.buf);
	for (line = strstr(out.out.buf, "\r\n"); line && line[2];
	     line = strstr(line + 2, "\r\n"))
		rows++;
	cr_assert_eq(rows, COMMITS - 2, "one row per point");
	/* RFC 4180: quoted for the comma and quotes, quotes doubled; a
	 * leading = defused with ' (escape.h). */
	strbuf_addf(&row,
		    "s,b,original,cpu,box,latency,ms,lower,%s,"
		    "2026-01-01T00:00:00+00:00,"
		    "\"'=cmd|' /C calc'!A0, \"\"quoted\"\"\",5,%.12g,",
		    hex(HOSTILE), median_at(HOSTILE));
	cr_assert(strstr(out.out.buf, row.buf), "no row\n%s\nin\n%s", row.buf,
		  out.out.buf);
	strbuf_reset(&row);
	strbuf_addf(&row, ",%s,2026-01-01T00:00:00+00:00,c%d,5,%.12g,",
		    hex(STEP), STEP, median_at(STEP));
	cr_assert(strstr(out.out.buf, row.buf), "%s", out.out.buf);
	cr_assert(strstr(strstr(out.out.buf, row.buf), ",1\r\n") ==
			  strchr(strstr(out.out.buf, row.buf), '\r') - 2,
		  "the step's row is marked as a change point");
	strbuf_release(&row);
	test_output_release(&out);
}

Test(history_cli, terminal_view_sparkline_and_change_points)
{
	struct strbuf line = STRBUF_INIT;
	struct test_output out;
	char at[64];

	RUN(&out, "history", "--metric", "latency");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "history of main: 26 first-parent "
				      "commits, 1 series, 1 change point "
				      "(1 in the worse direction)\n"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "s on machine box\n"), "%s", out.out.buf);
	/* 12 low points, a gap for c12-c13, the change mark, 12 high (the
	 * 0.6 % wobble stays within the lowest and the highest bar), then
	 * the newest median as the reports write it. */
	strbuf_addstr(&line, "  b/original/cpu latency  "
			     "\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581"
			     "\u2581\u2581\u2581\u2581 |"
			     "\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588"
			     "\u2588\u2588\u2588\u2588  ");
	format_quantity(&line, median_at(COMMITS - 1), "ms");
	strbuf_addstr(&line, " (24 points)\n");
	cr_assert(strstr(out.out.buf, line.buf), "%s\nin\n%s", line.buf,
		  out.out.buf);
	strbuf_release(&line);
	snprintf(at, sizeof(at), "regression at %.12s: +", hex(STEP));
	cr_assert(strstr(out.out.buf, at), "%s", out.out.buf);
	snprintf(at, sizeof(at), "bisect %.12s..%.12s (3 commits): \"c14\"",
		 test_oid_hex(&commits[12], 1),
		 test_oid_hex(&commits[STEP], 2));
	cr_assert(strstr(out.out.buf, at), "%s", out.out.buf);
	/* the incident: who to ask, what to bisect, what moved */
	strbuf_addf(&line,
		    "regression at %.12s by Test <test@example.invalid>: "
		    "\"c14\"\n"
		    "  one of 3 commits: benchgate bisect SUITE --good %.12s "
		    "--bad %.12s\n"
		    "  1 series moved (1 in the worse direction):\n"
		    "    s on box: b/original/cpu latency +",
		    hex(STEP), test_oid_hex(&commits[11], 2), hex(STEP));
	cr_assert(strstr(out.out.buf, line.buf), "%s\nin\n%s", line.buf,
		  out.out.buf);
	strbuf_release(&line);
	cr_assert_null(strchr(out.out.buf, '\033'), "no colour off a TTY");
	test_output_release(&out);
}

/* Runs benchgate with a terminal as its stdout and stderr (forkpty), with
 * NO_COLOR set to no_color (NULL: unset), and appends what it wrote. */
static void run_on_tty(struct strbuf *out, const char *no_color,
		       const char *const *args)
{
	const char *argv[16] = { BENCHGATE_BIN };
	char buf[4096];
	ssize_t n;
	int master, status;
	pid_t pid;

	for (size_t i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert_neq(pid, -1);
	if (!pid) {
		if (chdir(dir) < 0)
			_exit(127);
		if (no_color)
			setenv("NO_COLOR", no_color, 1);
		else
			unsetenv("NO_COLOR");
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	/* Linux answers EIO once the child side is closed. */
	while ((n = read(master, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, (size_t)n);
	close(master);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s",
		  out->buf);
}

Test(history_cli, colour_only_on_a_terminal_without_no_color)
{
	const char *const args[] = { "history", "--metric", "latency", NULL };
	const char *const plain[] = { "history", "--metric", "latency",
				      "--no-color", NULL };
	struct strbuf out = STRBUF_INIT;

	run_on_tty(&out, NULL, args);
	cr_assert(strstr(out.buf, "\033[31mregression\033[0m at "), "%s",
		  out.buf);
	cr_assert(strstr(out.buf, "\033[31m|\033[0m"), "the mark is red");
	strbuf_reset(&out);
	run_on_tty(&out, "1", args);
	cr_assert_null(strchr(out.buf, '\033'), "NO_COLOR: %s", out.buf);
	strbuf_reset(&out);
	run_on_tty(&out, NULL, plain);
	cr_assert_null(strchr(out.buf, '\033'), "--no-color: %s", out.buf);
	strbuf_release(&out);
}

Test(history_cli, bad_input_exits_2_naming_it)
{
	static const char *const cases[][3] = {
		{ "--branch", "nope", "--branch: no branch 'nope'" },
		{ "--since", "2026-02-30",
		  "--since: '2026-02-30' is not a "
		  "valid date" },
		{ "--since", "no-such-rev",
		  "--since: 'no-such-rev' is neither "
		  "a date" },
		{ "--since", "side",
		  "'side' is not on the first-parent "
		  "history of main" },
		{ "--machine", "../x", "machine" },
	};
	struct test_output out;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		RUN(&out, "history", cases[i][0], cases[i][1]);
		cr_assert_eq(out.exit_code, 2, "%s %s: %s%s", cases[i][0],
			     cases[i][1], out.out.buf, out.err.buf);
		cr_assert(strstr(out.err.buf, cases[i][2]), "%s", out.err.buf);
		test_output_release(&out);
	}
	RUN(&out, "history", "extra");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "usage: benchgate history"), "%s",
		  out.err.buf);
	test_output_release(&out);
}

Test(history_cli, listed_by_help)
{
	struct test_output out;

	RUN(&out, "--help");
	cr_assert_eq(out.exit_code, 0);
	cr_assert(strstr(out.out.buf, "\n  history    the series of every "
				      "metric along a branch"),
		  "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, "history", "--help");
	cr_assert_eq(out.exit_code, 0);
	cr_assert(strstr(out.out.buf, "--since DATE|REV"), "%s", out.out.buf);
	test_output_release(&out);
}
