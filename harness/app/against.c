/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/against.h"

#include "harness/app/build.h"
#include "harness/app/outcome.h"
#include "harness/git/gitinfo.h"
#include "harness/git/repo.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/process.h"
#include "harness/util/terminal.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void against_init(struct against *against)
{
	memset(against, 0, sizeof(*against));
	strbuf_init(&against->tree, 0);
	strbuf_init(&against->what, 0);
	git_meta_release(&against->base);
}

static void progress(const struct against_options *opts, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct against_options *opts, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list args;

	if (opts->quiet)
		return;
	va_start(args, fmt);
	strbuf_vaddf(&line, fmt, args);
	va_end(args);
	terminal_print_line(stderr, "check: %s", line.buf);
	strbuf_release(&line);
}

static int refuse_combinations(const struct check_options *check)
{
	if (check->session.baseline_tree)
		return bg_input_error("--against makes the baseline tree "
				      "itself; it cannot be combined with "
				      "--baseline-tree");
	if (check->baseline && strcmp(check->baseline, "auto"))
		return bg_input_error("--against: the baseline is the merge "
				      "base, measured here; it cannot be "
				      "combined with --baseline '%s'",
				      check->baseline);
	if (check->session.sequential)
		return bg_input_error("--against measures both sides in "
				      "alternating rounds; it cannot be "
				      "combined with --order sequential");
	return BG_OK;
}

/* A signal caught so far ends the check here (the tree is removed on the
 * way out, then benchgate ends by the signal, cli.c). */
static int stop_if_interrupted(void)
{
	int sig = process_interrupted();

	if (!sig)
		return BG_OK;
	return bg_error("interrupted by %s: check stopped, its scratch tree "
			"removed",
			strsignal(sig));
}

/* 0 built, or OUTCOME_CASE_FAILED with the failure printed; < 0 errors. */
static int build(const struct against_options *opts, const char *dir,
		 const char *which)
{
	struct strbuf why = STRBUF_INIT, message = STRBUF_INIT;
	int error;

	progress(opts, "building %s: %s", which, opts->build_command);
	error = build_run(opts->build_command, dir, opts->build_timeout_s,
			  &why);
	if (error == 0 || error < 0)
		goto done;
	if ((error = stop_if_interrupted()) < 0)
		goto done;
	strbuf_addf(&message,
		    "%s cannot be built, so it cannot be measured (broken, "
		    "not slower): %s",
		    which, why.buf);
	terminal_print_error(message.buf);
	error = OUTCOME_CASE_FAILED;
done:
	strbuf_release(&why);
	strbuf_release(&message);
	return error ? error : stop_if_interrupted();
}

/* The merge base of HEAD and opts->ref, read into against->base, checked
 * out; its name into `which`. */
static int check_out(struct against *against,
		     const struct against_options *opts, const char *suite_dir,
		     struct strbuf *which)
{
	struct strbuf name = STRBUF_INIT;
	git_repository *repo = NULL;
	git_commit *base = NULL;
	int error;

	if (repo_open(&repo, suite_dir) < 0) {
		error = bg_input_error("--against: the suite's directory '%s' "
				       "is not in a git repository",
				       suite_dir);
		goto done;
	}
	if ((error = repo_merge_base(&base, &name, repo, opts->ref)) < 0)
		goto done;
	gitinfo_read_commit(&against->base, base);
	strbuf_addf(which, "the merge base %.12s of HEAD and %s",
		    against->base.commit, name.buf);
	strbuf_addf(&against->what,
		    "--against %s: the merge base with %s, checked out%s "
		    "here, and",
		    opts->ref, name.buf,
		    opts->build_command ? " and built" : "");
	progress(opts, "comparing with %s (\"%s\")", which->buf,
		 against->base.subject ? against->base.subject : "");
	if ((error = checkout_area_new(&against->area, "against")) < 0 ||
	    (error = stop_if_interrupted()) < 0)
		goto done;
	error = checkout_commit(against->area, repo, base, "base",
				&against->tree);
done:
	git_commit_free(base);
	git_repository_free(repo);
	strbuf_release(&name);
	return error;
}

/* Whether the merge base has the suite, at the same place. */
static bool suite_in_tree(const struct against *against,
			  const char *suite_path)
{
	struct strbuf place = STRBUF_INIT;
	struct stat st;
	bool found = checkout_place(&place, suite_path, against->tree.buf) ==
			     BG_OK &&
		     stat(place.buf, &st) == 0 && S_ISREG(st.st_mode);

	bg_error_clear();
	strbuf_release(&place);
	return found;
}

int against_prepare(struct against *against,
		    const struct against_options *opts,
		    struct check_options *check)
{
	char *suite = xstrdup(check->session.suite_path);
	const char *suite_dir = dirname(suite);
	struct strbuf root = STRBUF_INIT, which = STRBUF_INIT;
	int error;

	if ((error = refuse_combinations(check)) < 0)
		goto done;
	if (gitinfo_repo_root(suite_dir, &root) < 0) {
		error = bg_input_error("--against: the suite '%s' is not in "
				       "a git work tree",
				       check->session.suite_path);
		goto done;
	}
	/* from here on the tree exists or is being made: an interrupt
	 * stops at the next step, so that it is removed */
	process_catch_interrupts(true);
	if ((error = check_out(against, opts, suite_dir, &which)) < 0)
		goto done;
	if (!suite_in_tree(against, check->session.suite_path)) {
		/* a suite the branch adds: nothing there to measure */
		bg_warn("the suite '%s' is not in %s: compared with the "
			"stored results instead (--baseline %s)",
			check->session.suite_path, which.buf,
			check->baseline ? check->baseline : "auto");
		against_remove_tree(against);
		process_catch_interrupts(true);
	} else if (opts->build_command &&
		   (error = build(opts, against->tree.buf, which.buf)) != 0) {
		goto done;
	}
	if (opts->build_command &&
	    (error = build(opts, root.buf, "the current tree")) != 0)
		goto done;
	if (!against->area)
		goto done;
	check->session.baseline_tree = against->tree.buf;
	check->session.baseline_commit = &against->base;
	check->baseline_what = against->what.buf;
done:
	free(suite);
	strbuf_release(&root);
	strbuf_release(&which);
	return error;
}

void against_remove_tree(struct against *against)
{
	/* the area holds the tree: removing it removes both */
	checkout_area_free(against->area);
	against->area = NULL;
	process_catch_interrupts(false);
}

void against_release(struct against *against)
{
	against_remove_tree(against);
	strbuf_release(&against->tree);
	strbuf_release(&against->what);
	git_meta_release(&against->base);
}
