/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Documentation that cannot rot: the manual's runnable blocks run against
 * the built binary, its links lead somewhere, and its table of
 * environment variables lists every one the source reads.
 *
 * A block is runnable when the line right before its opening fence is a
 * marker (docs/development.md, "Runnable blocks"):
 *
 *	<!-- run -->             a ```sh block: runs as one bash script,
 *	                         which must exit 0
 *	<!-- run exit=N -->      ... must exit N
 *	<!-- run in=repo -->     ... in the source tree, not a scratch one
 *	<!-- file: NAME -->      any block: its text is written to NAME
 *
 * A marked block whose first line starts with "$ " is a transcript: each
 * "$ " line is a command, and the lines after it are output that the
 * command must print (stdout and stderr together), in that order, other
 * lines allowed between them. Before comparing, numbers and hexadecimal
 * ids become '#' and runs of spaces one, so a transcript copied from a
 * real run matches a later one; "..." in an expected line matches any
 * text. The exit status in the marker is the last command's; the others
 * must exit 0.
 *
 * The blocks of one page run in order in one scratch directory, a fresh
 * git repository (branch master, one empty commit), with the build
 * directory first on PATH.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(docs, .init = test_dir_setup, .fini = test_dir_teardown);

/* The pages: README.md and every page of docs/, relative to the source. */
static void pages(glob_t *found)
{
	static const char *const patterns[] = { "/README.md", "/docs/*.md",
						"/docs/*/*.md",
						"/docs/*/*/*.md" };

	for (size_t i = 0; i < sizeof(patterns) / sizeof(*patterns); i++) {
		struct strbuf pattern = STRBUF_INIT;

		strbuf_addf(&pattern, "%s%s", BENCHGATE_SOURCE_DIR,
			    patterns[i]);
		glob(pattern.buf, i ? GLOB_APPEND : 0, NULL, found);
		strbuf_release(&pattern);
	}
	cr_assert_geq(found->gl_pathc, 20, "found %zu pages",
		      found->gl_pathc);
}

static const char *relative(const char *path)
{
	return path + strlen(BENCHGATE_SOURCE_DIR) + 1;
}

/* Lines */

/* The end of the line at p: its '\n', or the string's end. */
static const char *line_end(const char *p, int newline)
{
	const char *end = strchr(p, newline);

	return end ? end : p + strlen(p);
}

static void regex_replace(struct strbuf *text, const char *pattern,
			  const char *with)
{
	struct strbuf out = STRBUF_INIT;
	regmatch_t match;
	const char *p = text->buf;
	regex_t re;

	cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED), 0);
	/* the patterns never match empty text */
	while (*p && regexec(&re, p, 1, &match,
			     p == text->buf ? 0 : REG_NOTBOL) == 0) {
		strbuf_add(&out, p, (size_t)match.rm_so);
		strbuf_addstr(&out, with);
		p += match.rm_eo;
	}
	strbuf_addstr(&out, p);
	regfree(&re);
	strbuf_release(text);
	*text = out;
}

/* A line as transcripts compare it: ids and numbers '#', one space
 * between words, none at the ends. */
static char *normalise(const char *line)
{
	struct strbuf text = STRBUF_INIT;
	size_t start = 0;

	strbuf_addstr(&text, line);
	/* a run of hexadecimal digits and dots holding a digit: a number
	 * (0.0002441, 1.2e-07), a commit or machine id, a timestamp */
	regex_replace(&text, "[0-9a-f.]*[0-9][0-9a-f.]*([-+][0-9]+)?", "#");
	regex_replace(&text, "[ \t]+", " ");
	strbuf_rtrim(&text);
	while (start < text.len && text.buf[start] == ' ')
		start++;
	{
		char *out = strdup(text.buf + start);

		strbuf_release(&text);
		return out;
	}
}

/* Whether actual matches expected, "..." in expected matching any text. */
static bool line_matches(const char *expected, const char *actual)
{
	const char *dots = strstr(expected, "...");
	size_t head;

	if (!dots)
		return !strcmp(expected, actual);
	head = (size_t)(dots - expected);
	if (strncmp(expected, actual, head))
		return false;
	for (const char *p = actual + head;; p++) {
		if (line_matches(dots + 3, p))
			return true;
		if (!*p)
			return false;
	}
}

/* NULL when every expected line (one a '\n') is in output in order, else
 * the first that is not. */
static char *missing_line(const char *expected, const char *output)
{
	const char *at = output;
	char *lines = strdup(expected), *save = NULL, *missing = NULL;

	for (char *line = strtok_r(lines, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *want = normalise(line);
		bool found = false;

		while (*at && !found) {
			const char *end = line_end(at, '\n');
			char *got_raw = strndup(at, (size_t)(end - at));
			char *got = normalise(got_raw);

			found = line_matches(want, got);
			free(got_raw);
			free(got);
			at = *end ? end + 1 : end;
		}
		if (!found && *want) {
			missing = strdup(line);
			free(want);
			break;
		}
		free(want);
	}
	free(lines);
	return missing;
}

Test(docs, transcripts_match_as_promised)
{
	char *missing;

	cr_assert_null(missing_line("REGRESSION: 1 regression\n"
				    "  a 0.0223 s +191.5% 0.0002441 regression\n"
				    "stored .../x-20261128T021906Z.json\n",
				    "baseline: auto at 6bb8b25c3b16\n"
				    "warning: busy\n"
				    "REGRESSION: 2 regression\n"
				    "  a     0.03 s   +50.0%  1.2e-07 regression\n"
				    "stored /tmp/q/.b/x-20261201T000000Z.json\n"));
	missing = missing_line("PASS: 0 regressions\n", "REGRESSION: 1\n");
	cr_assert_str_eq(missing, "PASS: 0 regressions");
	free(missing);
	/* order counts */
	missing = missing_line("b\na\n", "a\nb\n");
	cr_assert_str_eq(missing, "a");
	free(missing);
}

/* Runnable blocks */

struct block {
	const char *page; /* relative to the source */
	int line;	  /* of the opening fence */
	char *marker;	  /* "run exit=1", "file: x.json" */
	char *text;
};

struct runner {
	char *dir; /* the page's scratch directory */
	struct strbuf problems;
	size_t runs, files, transcripts;
};

static const char *marker_value(const char *marker, const char *key)
{
	const char *p = strstr(marker, key);

	return p ? p + strlen(key) : NULL;
}

/* Runs script with bash in dir; stdout and stderr together in *out. */
static int run_script(const char *dir, const char *script,
		      struct strbuf *out)
{
	struct strbuf path = STRBUF_INIT, home = STRBUF_INIT;
	struct strbuf wrapped = STRBUF_INIT;
	struct test_output output;
	const char *env[] = { NULL,
			      "GIT_AUTHOR_NAME=Docs Test",
			      "GIT_AUTHOR_EMAIL=docs@example.invalid",
			      "GIT_COMMITTER_NAME=Docs Test",
			      "GIT_COMMITTER_EMAIL=docs@example.invalid",
			      "NO_COLOR=1",
			      NULL };
	int code;

	strbuf_addf(&path, "PATH=%s:%s", BENCHGATE_BUILD_DIR, getenv("PATH"));
	env[0] = path.buf;
	strbuf_addf(&wrapped, "exec 2>&1\n%s", script);
	test_run(&output, dir, env,
		 (const char *[]){ "/bin/bash", "-e", "-o", "pipefail", "-c",
				   wrapped.buf, NULL });
	code = output.exit_code;
	strbuf_add(out, output.out.buf, output.out.len);
	test_output_release(&output);
	strbuf_release(&path);
	strbuf_release(&home);
	strbuf_release(&wrapped);
	return code;
}

/* Records what went wrong with a block, and the output it had. */
static void problem(struct runner *r, const struct block *b,
		    const char *what, const char *output)
{
	strbuf_addf(&r->problems, "%s:%d: %s\n--- output ---\n%s"
				  "--------------\n",
		    b->page, b->line, what, output);
}

static void run_transcript(struct runner *r, const struct block *b,
			   const char *dir, int expect)
{
	char *text = strdup(b->text), *p = text;

	r->transcripts++;
	while (p && *p) {
		char *command, *expected, *next, *missing;
		struct strbuf out = STRBUF_INIT;
		int code;

		cr_assert(!strncmp(p, "$ ", 2), "%s:%d: a transcript line "
						"before the first '$ '",
			  b->page, b->line);
		command = p + 2;
		expected = strchr(command, '\n');
		if (expected)
			*expected++ = '\0';
		for (next = expected; next && *next && strncmp(next, "$ ", 2);
		     next = strchr(next, '\n'), next = next ? next + 1 : NULL)
			;
		if (next && *next)
			next[-1] = '\0';
		if (expected == next)
			expected = NULL; /* the next command follows at once */
		code = run_script(dir, command, &out);
		if (code != ((next && *next) ? 0 : expect)) {
			struct strbuf what = STRBUF_INIT;

			strbuf_addf(&what, "'%s' exited %d, expected %d",
				    command, code,
				    (next && *next) ? 0 : expect);
			problem(r, b, what.buf, out.buf);
			strbuf_release(&what);
		} else if (expected &&
			   (missing = missing_line(expected, out.buf))) {
			struct strbuf what = STRBUF_INIT;

			strbuf_addf(&what, "'%s' did not print '%s'", command,
				    missing);
			problem(r, b, what.buf, out.buf);
			strbuf_release(&what);
			free(missing);
		}
		strbuf_release(&out);
		p = next;
	}
	free(text);
}

static void run_block(struct runner *r, const struct block *b)
{
	const char *name = marker_value(b->marker, "file: ");
	const char *exit = marker_value(b->marker, "exit=");
	const char *dir = strstr(b->marker, "in=repo") ? BENCHGATE_SOURCE_DIR
						       : r->dir;
	int expect = exit ? atoi(exit) : 0;
	struct strbuf out = STRBUF_INIT;
	int code;

	if (name) {
		char *file = strndup(name, strcspn(name, " "));

		free(test_write_file(r->dir, file, b->text));
		free(file);
		r->files++;
		return;
	}
	cr_assert(!strncmp(b->marker, "run", 3), "%s:%d: unknown marker '%s'",
		  b->page, b->line, b->marker);
	r->runs++;
	if (!strncmp(b->text, "$ ", 2)) {
		run_transcript(r, b, dir, expect);
		return;
	}
	code = run_script(dir, b->text, &out);
	if (code != expect) {
		struct strbuf what = STRBUF_INIT;

		strbuf_addf(&what, "the block exited %d, expected %d", code,
			    expect);
		problem(r, b, what.buf, out.buf);
		strbuf_release(&what);
	}
	strbuf_release(&out);
}

/* Runs the block between body and close, which the marker line at
 * previous marks; the page's scratch repository is made first. */
static void run_marked(struct runner *r, struct block *b, const char *previous,
		       const char *body, const char *close, bool *started)
{
	const char *marker_end = strstr(previous, " -->");

	cr_assert_not_null(marker_end, "%s:%d: marker", b->page, b->line - 1);
	b->marker = strndup(previous + 5, (size_t)(marker_end - previous - 5));
	b->text = strndup(body, (size_t)(close - body) + 1);
	if (!*started) {
		struct strbuf dir = STRBUF_INIT, out = STRBUF_INIT;

		strbuf_addf(&dir, "%s/%s", test_dir, b->page);
		free(r->dir);
		r->dir = strbuf_detach(&dir, NULL);
		free(test_write_file(r->dir, ".keep", ""));
		cr_assert_eq(run_script(r->dir,
					"rm .keep && git init -q -b master && "
					"git commit -q --allow-empty -m start",
					&out),
			     0, "%s", out.buf);
		strbuf_release(&out);
		*started = true;
	}
	run_block(r, b);
	free(b->marker);
	free(b->text);
}

/* Runs the marked blocks of one page in a fresh scratch repository. */
static void run_page(struct runner *r, const char *path)
{
	char *text = test_read_file(path);
	const char *p = text, *previous = NULL;
	int line = 1;
	bool started = false;

	cr_assert_not_null(text);
	while (*p) {
		const char *end = line_end(p, '\n');

		if (!strncmp(p, "```", 3)) {
			const char *body = *end ? end + 1 : end;
			const char *close = strstr(body, "\n```");
			struct block b = { .page = relative(path),
					   .line = line };

			cr_assert_not_null(close, "%s:%d: open block", b.page,
					   line);
			if (previous && !strncmp(previous, "<!-- ", 5))
				run_marked(r, &b, previous, body, close,
					   &started);
			/* on past the closing fence's line */
			p = line_end(close + 1, '\n');
			for (const char *q = end; q < p; q++)
				line += *q == '\n';
			if (*p) {
				p++;
				line++;
			}
			previous = NULL;
			continue;
		}
		previous = p;
		line++;
		p = *end ? end + 1 : end;
	}
	free(text);
}

Test(docs, every_runnable_block_runs_as_shown)
{
	struct runner r = { 0 };
	glob_t found = { 0 };

	strbuf_init(&r.problems, 0);
	pages(&found);
	for (size_t i = 0; i < found.gl_pathc; i++)
		run_page(&r, found.gl_pathv[i]);
	globfree(&found);
	fprintf(stderr,
		"docs: %zu runnable blocks (%zu transcripts), %zu files\n",
		r.runs, r.transcripts, r.files);
	cr_assert_str_empty(r.problems.buf, "%s", r.problems.buf);
	cr_assert_geq(r.runs, 12, "only %zu runnable blocks", r.runs);
	cr_assert_geq(r.transcripts, 3, "only %zu transcripts",
		      r.transcripts);
	strbuf_release(&r.problems);
	free(r.dir);
}

/* Links */

/* GitHub's anchor of a heading: lower case, punctuation dropped but '-'
 * and '_', spaces '-'. */
static void slug(struct strbuf *out, const char *heading, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)heading[i];

		if (c == ' ')
			strbuf_addch(out, '-');
		else if (isalnum(c) || c == '-' || c == '_' || c >= 0x80)
			strbuf_addch(out, (char)tolower(c));
	}
}

/* Whether the page at path has a heading whose anchor is anchor. */
static bool has_anchor(const char *path, const char *anchor)
{
	char *text = test_read_file(path);
	bool found = false, fence = false;

	if (!text)
		return false;
	for (const char *p = text; *p && !found;) {
		const char *end = line_end(p, '\n');

		if (!strncmp(p, "```", 3))
			fence = !fence;
		else if (!fence && *p == '#') {
			struct strbuf s = STRBUF_INIT;
			const char *h = p;

			while (*h == '#')
				h++;
			while (*h == ' ')
				h++;
			slug(&s, h, (size_t)(end - h));
			found = !strcmp(s.buf, anchor);
			strbuf_release(&s);
		}
		p = *end ? end + 1 : end;
	}
	free(text);
	return found;
}

Test(docs, every_link_leads_somewhere)
{
	struct strbuf problems = STRBUF_INIT;
	glob_t found = { 0 };
	size_t links = 0;
	regex_t re;

	cr_assert_eq(regcomp(&re, "\\]\\(([^)# ]*)(#[^) ]*)?\\)",
			     REG_EXTENDED),
		     0);
	pages(&found);
	for (size_t i = 0; i < found.gl_pathc; i++) {
		char *text = test_read_file(found.gl_pathv[i]);
		char *dir = strdup(found.gl_pathv[i]);
		regmatch_t m[3];
		bool fence = false;

		*strrchr(dir, '/') = '\0';
		for (const char *p = text; *p;) {
			const char *end = line_end(p, '\n');
			char *line = strndup(p, (size_t)(end - p));
			const char *q = line;

			if (!strncmp(line, "```", 3))
				fence = !fence;
			while (!fence && regexec(&re, q, 3, m, 0) == 0) {
				char *target = strndup(q + m[1].rm_so,
						       (size_t)(m[1].rm_eo -
								m[1].rm_so));
				char *anchor = m[2].rm_so >= 0
						       ? strndup(q + m[2].rm_so + 1,
								 (size_t)(m[2].rm_eo -
									  m[2].rm_so - 1))
						       : NULL;
				struct strbuf path = STRBUF_INIT;
				struct stat st;

				q += m[0].rm_eo;
				if (strchr(target, ':')) {
					free(target);
					free(anchor);
					continue; /* https:, mailto: */
				}
				links++;
				if (*target)
					strbuf_addf(&path, "%s/%s", dir, target);
				else
					strbuf_addstr(&path, found.gl_pathv[i]);
				if (stat(path.buf, &st) < 0)
					strbuf_addf(&problems,
						    "%s: '%s' does not exist\n",
						    relative(found.gl_pathv[i]),
						    target);
				else if (anchor && S_ISREG(st.st_mode) &&
					 strstr(path.buf, ".md") &&
					 !has_anchor(path.buf, anchor))
					strbuf_addf(&problems,
						    "%s: '%s' has no heading "
						    "'#%s'\n",
						    relative(found.gl_pathv[i]),
						    *target ? target : "this page",
						    anchor);
				strbuf_release(&path);
				free(target);
				free(anchor);
			}
			free(line);
			p = *end ? end + 1 : end;
		}
		free(dir);
		free(text);
	}
	globfree(&found);
	regfree(&re);
	cr_assert_geq(links, 100, "found only %zu links", links);
	cr_assert_str_empty(problems.buf, "%s", problems.buf);
	strbuf_release(&problems);
}

/* Environment variables */

Test(docs, every_environment_variable_the_source_reads_is_listed)
{
	char *table = test_read_file(BENCHGATE_SOURCE_DIR
				     "/docs/reference/environment.md");
	struct strbuf problems = STRBUF_INIT;
	glob_t found = { 0 };
	size_t names = 0;
	regex_t re;

	cr_assert_not_null(table);
	cr_assert_eq(regcomp(&re, "\"(BENCHGATE_[A-Z0-9_]+)[=\"]",
			     REG_EXTENDED),
		     0);
	glob(BENCHGATE_SOURCE_DIR "/harness/*/*.c", 0, NULL, &found);
	glob(BENCHGATE_SOURCE_DIR "/reporters/*.c", GLOB_APPEND, NULL, &found);
	for (size_t i = 0; i < found.gl_pathc; i++) {
		char *text = test_read_file(found.gl_pathv[i]);
		regmatch_t m[2];

		for (const char *q = text; regexec(&re, q, 2, m, 0) == 0;
		     q += m[0].rm_eo) {
			struct strbuf quoted = STRBUF_INIT;

			strbuf_addch(&quoted, '`');
			strbuf_add(&quoted, q + m[1].rm_so,
				   (size_t)(m[1].rm_eo - m[1].rm_so));
			strbuf_addch(&quoted, '`');
			names++;
			if (!strstr(table, quoted.buf))
				strbuf_addf(&problems, "%s: %s\n",
					    relative(found.gl_pathv[i]),
					    quoted.buf);
			strbuf_release(&quoted);
		}
		free(text);
	}
	globfree(&found);
	regfree(&re);
	free(table);
	cr_assert_geq(names, 15, "found only %zu names", names);
	cr_assert_str_empty(problems.buf,
			    "docs/reference/environment.md lacks:\n%s",
			    problems.buf);
	strbuf_release(&problems);
}
