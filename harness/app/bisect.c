/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/bisect.h"

#include "harness/app/build.h"
#include "harness/app/check.h"
#include "harness/git/repo.h"
#include "harness/util/process.h"
#include "harness/git/checkout.h"
#include "harness/git/gitinfo.h"
#include "harness/git/gitref.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/format.h"
#include "harness/util/terminal.h"

#include <git2.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bisect_mark_name(enum bisect_mark mark)
{
	static const char *const names[] = { "untested", "good", "bad",
					     "skipped" };

	return names[mark];
}

/* The untested, unskipped commit of (lo, hi) nearest the middle. */
static bool next_to_test(const bool *skipped, size_t lo, size_t hi,
			 size_t *out)
{
	size_t middle = lo + (hi - lo) / 2;

	for (size_t distance = 0; distance < hi - lo; distance++) {
		if (middle >= lo + 1 + distance &&
		    !skipped[middle - distance]) {
			*out = middle - distance;
			return true;
		}
		if (middle + distance < hi && distance &&
		    !skipped[middle + distance]) {
			*out = middle + distance;
			return true;
		}
	}
	return false;
}

int bisect_search(size_t nr, bisect_test_fn test, void *payload,
		  size_t *first, size_t *last)
{
	bool *skipped = xcalloc(nr, sizeof(*skipped));
	size_t lo = 0, hi = nr - 1, at;
	int error = BG_OK;

	while (hi - lo > 1 && next_to_test(skipped, lo, hi, &at)) {
		enum bisect_mark mark = BISECT_SKIPPED;

		if ((error = test(at, &mark, payload)) < 0)
			break;
		if (mark == BISECT_GOOD)
			lo = at;
		else if (mark == BISECT_BAD)
			hi = at;
		else
			skipped[at] = true;
	}
	*first = lo + 1;
	*last = hi;
	free(skipped);
	return error;
}

/* What a bisect needs while it runs. */
struct bisector {
	const struct bisect_options *opts;
	struct bisect *out;
	git_repository *repo;
	struct checkout_area *area;
	struct strbuf suite_place; /* "/<suite path from the root>" */
	struct strbuf build_place; /* "/<build dir from the root>" */
	struct suite *suite;	   /* the current one: the gate's settings */
	struct compare_options compare;
	struct result *good, *bad;
};

static void progress(const struct bisector *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct bisector *b, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list args;

	if (b->opts->quiet)
		return;
	va_start(args, fmt);
	strbuf_vaddf(&line, fmt, args);
	va_end(args);
	terminal_print_line(stderr, "bisect: %s", line.buf);
	strbuf_release(&line);
}

static int lookup_commit(git_commit **out, git_repository *repo,
			 const char *option, const char *spec)
{
	git_object *object = NULL;
	int error = BG_OK;

	if (git_revparse_single(&object, repo, spec) < 0 ||
	    git_object_peel((git_object **)out, object, GIT_OBJECT_COMMIT) < 0)
		error = bg_input_error("--%s: '%s' names no commit of the "
				       "repository: %s",
				       option, spec, gitref_message());
	git_object_free(object);
	return error;
}

static void add_commit(struct bisect *bisect, git_commit *commit)
{
	const git_signature *author = git_commit_author(commit);
	struct bisect_commit *c;
	struct strbuf ident = STRBUF_INIT;

	bisect->commits = xrealloc(bisect->commits, (bisect->nr + 1) *
							    sizeof(*c));
	c = &bisect->commits[bisect->nr++];
	memset(c, 0, sizeof(*c));
	git_meta_release(&c->git);
	gitinfo_read_commit(&c->git, commit);
	strbuf_addf(&ident, "%s <%s>", author->name, author->email);
	c->author = strbuf_detach(&ident, NULL);
}

static int not_on_history(const struct bisect_options *opts)
{
	return bg_input_error("--good: '%s' is not on the first-parent "
			      "history of --bad '%s'",
			      opts->good, opts->bad);
}

/* The first parents from bad back to good, into out->commits good
 * first. */
static int find_range(struct bisector *b)
{
	const struct bisect_options *opts = b->opts;
	git_commit *good = NULL, *commit = NULL, *parent = NULL;
	struct bisect *out = b->out;
	int error;

	if ((error = lookup_commit(&good, b->repo, "good", opts->good)) < 0 ||
	    (error = lookup_commit(&commit, b->repo, "bad", opts->bad)) < 0)
		goto done;
	/* not an ancestor at all: said without walking to the root */
	if (!git_oid_equal(git_commit_id(commit), git_commit_id(good)) &&
	    git_graph_descendant_of(b->repo, git_commit_id(commit),
				    git_commit_id(good)) != 1) {
		error = not_on_history(opts);
		goto done;
	}
	while (!git_oid_equal(git_commit_id(commit), git_commit_id(good))) {
		add_commit(out, commit);
		if (git_commit_parentcount(commit) == 0 ||
		    git_commit_parent(&parent, commit, 0) < 0) {
			error = not_on_history(opts);
			goto done;
		}
		git_commit_free(commit);
		commit = parent;
		parent = NULL;
	}
	add_commit(out, good);
	if (out->nr < 2) {
		error = bg_input_error("--good and --bad name the same commit "
				       "%.12s: nothing to bisect",
				       out->commits[0].git.commit);
		goto done;
	}
	for (size_t i = 0, j = out->nr; i < --j; i++) {
		struct bisect_commit swap = out->commits[i];

		out->commits[i] = out->commits[j];
		out->commits[j] = swap;
	}
done:
	git_commit_free(good);
	git_commit_free(commit);
	return error;
}

/* Only the cases of the metrics bisected. */
static bool bisected_case(const struct plan_case *pcase, void *payload)
{
	const struct bisect *bisect = payload;

	for (size_t i = 0; i < bisect->metrics_nr; i++) {
		const struct bisect_metric *m = &bisect->metrics[i];

		if (!strcmp(m->benchmark, pcase->benchmark->name) &&
		    !strcmp(m->variant, pcase->variant->name) &&
		    !strcmp(m->device, pcase->device))
			return true;
	}
	return false;
}

/* "case nap/default/cpu failed: exited with status 1" */
static void add_failed_case(struct strbuf *why, const struct result *result)
{
	for (size_t i = 0; i < result->cases_nr; i++) {
		const struct result_case *rcase = &result->cases[i];
		const char *reason = rcase->reason ? rcase->reason : "";

		if (rcase->status != CASE_FAILED &&
		    rcase->status != CASE_TIMEOUT)
			continue;
		strbuf_addf(why, "case %s/%s/%s failed: %.*s", rcase->benchmark,
			    rcase->variant, rcase->device,
			    (int)strcspn(reason, "\n"), reason);
		return;
	}
}

/*
 * Measures the suite of the checkout `tree` of commits[index] into
 * *result and stores it. 0 measured; 1 it cannot be (why says so: the
 * suite is missing or bad, a case failed); < 0 the harness failed.
 */
static int measure(struct bisector *b, size_t index, git_commit *commit,
		   const char *tree, struct result **result, struct strbuf *why)
{
	struct bisect_commit *c = &b->out->commits[index];
	struct session_options sopts = b->opts->session;
	struct strbuf suite_path = STRBUF_INIT, build_dir = STRBUF_INIT;
	struct session *session = NULL;
	int error;

	strbuf_addf(&suite_path, "%s%s", tree, b->suite_place.buf);
	strbuf_addf(&build_dir, "%s%s", tree, b->build_place.buf);
	sopts.suite_path = suite_path.buf;
	sopts.build_dir = build_dir.buf;
	if ((error = session_prepare(&session, &sopts)) < 0) {
		if (error == BG_EINPUT) {
			strbuf_addstr(why, bg_error_last());
			bg_error_clear();
			error = 1;
		}
		goto done;
	}
	/* the checkout has no .git: the result is labelled here */
	git_meta_release(&session->result->git);
	gitinfo_read_commit(&session->result->git, commit);
	if (b->good && b->bad)
		plan_retain(session->plan, bisected_case, b->out);
	if ((error = check_measure(session, NULL)) < 0)
		goto done;
	if (session_store(session) < 0 && session_keep(session, NULL) < 0)
		bg_warn("%s", session->unstored.buf);
	else if (session->unstored.len)
		bg_warn("%s", session->unstored.buf);
	bg_error_clear();
	c->result_path = xstrdup(session->result_path.buf);
	if (session_failed(session)) {
		add_failed_case(why, session->result);
		error = 1;
		goto done;
	}
	/* stored with its own suite's settings, judged with the current
	 * suite's, as every commit of the range is */
	suite_stamp_result(b->suite, session->result);
	*result = session->result;
	session->result = NULL;
done:
	session_free(session);
	strbuf_release(&suite_path);
	strbuf_release(&build_dir);
	return error;
}

/*
 * Ctrl-C (SIGINT, SIGTERM, SIGHUP) is caught between measurements and
 * while a commit builds, as the session catches it while it measures
 * (process.h): it kills what runs, and bisect stops at its next step, so
 * that the checkouts are removed on the way out; benchgate then ends by
 * the signal (cli.c).
 */
static int stop_if_interrupted(void)
{
	int sig = process_interrupted();

	process_catch_interrupts(true);
	if (!sig)
		return BG_OK;
	return bg_error("interrupted by %s: bisect stopped, its checkouts "
			"removed",
			strsignal(sig));
}

/* Checks out, builds and measures commits[index]: 0 measured, 1 skipped
 * (why says why), < 0 failed. */
static int try_commit(struct bisector *b, size_t index, struct result **result,
		      struct strbuf *why)
{
	struct bisect_commit *c = &b->out->commits[index];
	struct strbuf tree = STRBUF_INIT;
	git_commit *commit = NULL;
	git_oid oid;
	int error, built;

	progress(b, "%.12s \"%s\": checking out, building, measuring",
		 c->git.commit, c->git.subject ? c->git.subject : "");
	if (git_oid_fromstr(&oid, c->git.commit) < 0 ||
	    git_commit_lookup(&commit, b->repo, &oid) < 0) {
		error = bg_error("cannot read commit %s: %s", c->git.commit,
				 gitref_message());
		goto done;
	}
	if ((error = stop_if_interrupted()) < 0 ||
	    (error = checkout_commit(b->area, b->repo, commit, c->git.commit,
				     &tree)) < 0 ||
	    (error = built = build_run(b->opts->build_command, tree.buf,
					       b->opts->build_timeout_s, why)) < 0 ||
	    (error = stop_if_interrupted()) < 0 || (error = built) > 0 ||
	    (error = measure(b, index, commit, tree.buf, result, why)) != 0)
		goto done;
	b->out->measured++;
done:
	if (tree.len)
		remove_tree(tree.buf);
	git_commit_free(commit);
	strbuf_release(&tree);
	return error;
}

static const struct metric_comparison *
find_item(const struct comparison *comparison, const struct bisect_metric *m)
{
	for (size_t i = 0; comparison && i < comparison->nr; i++) {
		const struct metric_comparison *mc = &comparison->items[i];

		if (mc->has_baseline && mc->has_candidate &&
		    !strcmp(mc->benchmark, m->benchmark) &&
		    !strcmp(mc->variant, m->variant) &&
		    !strcmp(mc->device, m->device) &&
		    !strcmp(mc->metric, m->metric))
			return mc;
	}
	return NULL;
}

/* The metrics that regressed from good to bad. */
static int find_regressions(struct bisector *b)
{
	struct comparison *ends = NULL;
	struct bisect *out = b->out;
	size_t inconclusive = 0;
	int error;

	if ((error = compare_results(&ends, b->good, b->bad, &b->compare)) < 0)
		return error;
	for (size_t i = 0; i < ends->nr; i++) {
		const struct metric_comparison *mc = &ends->items[i];
		struct bisect_metric *m;

		inconclusive += mc->verdict == VERDICT_INCONCLUSIVE;
		if (mc->verdict != VERDICT_REGRESSION)
			continue;
		out->metrics = xrealloc(out->metrics, (out->metrics_nr + 1) *
							      sizeof(*m));
		m = &out->metrics[out->metrics_nr++];
		*m = (struct bisect_metric){
			.benchmark = xstrdup(mc->benchmark),
			.variant = xstrdup(mc->variant),
			.device = xstrdup(mc->device),
			.metric = xstrdup(mc->metric),
			.unit = mc->unit ? xstrdup(mc->unit) : NULL,
			.good = mc->baseline.median,
			.bad = mc->candidate.median,
			.change = mc->change,
		};
	}
	comparison_free(ends);
	if (!out->metrics_nr)
		return bg_input_error(
			"no metric regressed from --good %.12s to --bad %.12s "
			"as measured now: nothing to bisect%s",
			out->commits[0].git.commit,
			out->commits[out->nr - 1].git.commit,
			inconclusive ? " (some changes were inconclusive: "
				       "more runs, --runs N or --runs auto, "
				       "may decide them)"
				     : "");
	return BG_OK;
}

/* One metric's say on a measured commit: the end its level is nearer to,
 * by ratio, from the gate's estimates of the change against good and on
 * to bad. Not from the verdicts: with the step far beyond the noise, a
 * commit measured beside a noisy end can "regress" against both. */
static enum bisect_mark judge_metric(const struct metric_comparison *vs_good,
				     const struct metric_comparison *to_bad)
{
	return fabs(log1p(vs_good->change)) > fabs(log1p(to_bad->change))
		       ? BISECT_BAD
		       : BISECT_GOOD;
}

/* "+312.5% against good (regression)" */
static void add_change(struct strbuf *why, const struct metric_comparison *mc,
		       const char *against)
{
	format_change(why, mc->change);
	strbuf_addf(why, " %s (%s)", against, verdict_name(mc->verdict));
}

/*
 * A measured commit's mark: each metric bisected votes (judge_metric())
 * with the weight of its regression from good to bad, |log(bad / good)|,
 * so that a metric that moved by a few per cent between the ends (perhaps
 * the machine, between sessions) does not outvote one that doubled; bad
 * when the bad votes weigh more.
 */
static int judge(struct bisector *b, const struct result *measured,
		 enum bisect_mark *mark, struct strbuf *why)
{
	struct comparison *vs_good = NULL, *to_bad = NULL;
	double bad_weight = 0, good_weight = 0;
	int error;

	*mark = BISECT_GOOD;
	if ((error = compare_results(&vs_good, b->good, measured,
				     &b->compare)) < 0 ||
	    (error = compare_results(&to_bad, measured, b->bad, &b->compare)) <
		    0)
		goto done;
	for (size_t i = 0; i < b->out->metrics_nr; i++) {
		const struct bisect_metric *m = &b->out->metrics[i];
		const struct metric_comparison *g = find_item(vs_good, m);
		const struct metric_comparison *d = find_item(to_bad, m);
		double weight = fabs(log1p(m->change));

		if (why->len)
			strbuf_addstr(why, "; ");
		strbuf_addf(why, "%s/%s/%s %s ", m->benchmark, m->variant,
			    m->device, m->metric);
		if (!g || !d) {
			strbuf_addstr(why, "not measured");
			*mark = BISECT_SKIPPED;
			continue;
		}
		add_change(why, g, "against good");
		strbuf_addstr(why, ", ");
		add_change(why, d, "on to bad");
		if (judge_metric(g, d) == BISECT_BAD)
			bad_weight += isfinite(weight) ? weight : 0;
		else
			good_weight += isfinite(weight) ? weight : 0;
	}
	if (*mark != BISECT_SKIPPED)
		*mark = bad_weight > good_weight ? BISECT_BAD : BISECT_GOOD;
done:
	comparison_free(vs_good);
	comparison_free(to_bad);
	return error;
}

static int test_commit(size_t index, enum bisect_mark *mark, void *payload)
{
	struct bisector *b = payload;
	struct bisect_commit *c = &b->out->commits[index];
	struct strbuf why = STRBUF_INIT;
	struct result *measured = NULL;
	int error;

	error = try_commit(b, index, &measured, &why);
	if (error == 0)
		error = judge(b, measured, mark, &why);
	else if (error > 0)
		*mark = BISECT_SKIPPED;
	if (error >= 0) {
		c->mark = *mark;
		c->why = strbuf_detach(&why, NULL);
		progress(b, "%.12s is %s: %s", c->git.commit,
			 bisect_mark_name(c->mark), c->why);
		error = BG_OK;
	}
	result_free(measured);
	strbuf_release(&why);
	return error;
}

/* An end must measure: without it there is nothing to compare with. */
static int measure_end(struct bisector *b, size_t index, const char *option,
		       struct result **out)
{
	struct bisect_commit *c = &b->out->commits[index];
	struct strbuf why = STRBUF_INIT;
	int error = try_commit(b, index, out, &why);

	if (error > 0)
		error = bg_input_error("--%s %.12s cannot be measured: %s",
				       option, c->git.commit, why.buf);
	if (error == BG_OK) {
		c->mark = index ? BISECT_BAD : BISECT_GOOD;
		c->why = xstrdup("the end given");
		progress(b, "%.12s measured as the %s end", c->git.commit,
			 option);
	}
	strbuf_release(&why);
	return error;
}

/* Where the suite and the build directory are in every checkout. */
static int find_places(struct bisector *b)
{
	const struct session_options *s = &b->opts->session;
	struct strbuf why = STRBUF_INIT;
	int error = BG_OK;

	/* the message is copied: bg_input_error() reuses its buffer */
	if (checkout_place(&b->suite_place, s->suite_path, "") < 0) {
		strbuf_addstr(&why, bg_error_last());
		error = bg_input_error("bisect: the suite %s, so its place in "
				       "the commits is unknown",
				       why.buf);
	} else if (checkout_place(&b->build_place, s->build_dir, "") < 0) {
		strbuf_addstr(&why, bg_error_last());
		error = bg_input_error("bisect: the build directory %s, so "
				       "its place in the commits is unknown; "
				       "build inside the work tree",
				       why.buf);
	}
	strbuf_release(&why);
	return error;
}

static int open_repository(struct bisector *b)
{
	char *suite = xstrdup(b->opts->session.suite_path);
	int error = BG_OK;

	if (repo_open(&b->repo, dirname(suite)) < 0)
		error = bg_input_error("bisect: the suite '%s' is not in a "
				       "git repository",
				       b->opts->session.suite_path);
	free(suite);
	return error;
}

int bisect_run(struct bisect **out, const struct bisect_options *opts)
{
	struct bisector b = { .opts = opts };
	int error;

	*out = b.out = xcalloc(1, sizeof(**out));
	strbuf_init(&b.suite_place, 0);
	strbuf_init(&b.build_place, 0);
	/* the suite here gives the gate's settings, and bad input shows
	 * before anything is built */
	if ((error = suite_load(&b.suite, opts->session.suite_path)) < 0 ||
	    (error = open_repository(&b)) < 0 ||
	    (error = find_places(&b)) < 0 || (error = find_range(&b)) < 0 ||
	    (error = checkout_area_new(&b.area, "bisect")) < 0)
		goto done;
	compare_options_init(&b.compare);
	b.compare.threshold = opts->threshold;
	b.compare.confidence = opts->confidence;
	progress(&b, "%zu commits from good %.12s to bad %.12s", b.out->nr,
		 b.out->commits[0].git.commit,
		 b.out->commits[b.out->nr - 1].git.commit);
	if ((error = measure_end(&b, b.out->nr - 1, "bad", &b.bad)) < 0 ||
	    (error = measure_end(&b, 0, "good", &b.good)) < 0 ||
	    (error = find_regressions(&b)) < 0)
		goto done;
	error = bisect_search(b.out->nr, test_commit, &b, &b.out->first,
			      &b.out->last);
done:
	process_catch_interrupts(false);
	checkout_area_free(b.area);
	git_repository_free(b.repo);
	suite_free(b.suite);
	result_free(b.good);
	result_free(b.bad);
	strbuf_release(&b.suite_place);
	strbuf_release(&b.build_place);
	return error;
}

void bisect_free(struct bisect *bisect)
{
	if (!bisect)
		return;
	for (size_t i = 0; i < bisect->nr; i++) {
		struct bisect_commit *c = &bisect->commits[i];

		git_meta_release(&c->git);
		free(c->author);
		free(c->why);
		free(c->result_path);
	}
	for (size_t i = 0; i < bisect->metrics_nr; i++) {
		struct bisect_metric *m = &bisect->metrics[i];

		free(m->benchmark);
		free(m->variant);
		free(m->device);
		free(m->metric);
		free(m->unit);
	}
	free(bisect->commits);
	free(bisect->metrics);
	free(bisect);
}
