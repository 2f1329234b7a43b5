/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/bisect.h"

#include "harness/app/build.h"
#include "harness/app/check.h"
#include "harness/gate/stats.h"
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
					     "skipped", "undecided" };

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
	/* the ends as measured side by side: bad the candidate, good its
	 * baseline twin */
	struct result *good, *bad;
	/* the ends' checkouts, built, kept for the whole search: every
	 * commit tested is measured beside each */
	struct strbuf good_tree, bad_tree;
	double confidence; /* the gate's, at which a commit is classified */
	int first_rounds, cap; /* rounds of a commit's first batch, at most */
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
	c->p_value = NAN;
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

/* The commit at index, looked up. */
static int commit_at(struct bisector *b, size_t index, git_commit **out)
{
	const struct bisect_commit *c = &b->out->commits[index];
	git_oid oid;

	if (git_oid_fromstr(&oid, c->git.commit) < 0 ||
	    git_commit_lookup(out, b->repo, &oid) < 0)
		return bg_error("cannot read commit %s: %s", c->git.commit,
				gitref_message());
	return BG_OK;
}

/* A result labelled as commits[index] (the checkouts have no .git). */
static int label(struct bisector *b, size_t index, struct result *result)
{
	git_commit *commit = NULL;
	int error;

	if ((error = commit_at(b, index, &commit)) < 0)
		return error;
	git_meta_release(&result->git);
	gitinfo_read_commit(&result->git, commit);
	git_commit_free(commit);
	return BG_OK;
}

/* A failed case of either side, into why; false when none failed. */
static bool add_failure(struct strbuf *why, const struct result *result,
			const struct result *baseline)
{
	size_t len = why->len;

	add_failed_case(why, result);
	if (why->len == len && baseline)
		add_failed_case(why, baseline);
	return why->len > len;
}

/*
 * Measures commits[cand] (checked out and built in cand_tree) beside
 * commits[base] (in base_tree), interleaved as `check --baseline-tree`
 * does, `rounds` runs each (< 0: as the session options say), into *cand
 * and *base, and stores the candidate's result (and the baseline's, when
 * store_base). 0 measured; 1 it cannot
 * be (why says so: the suite is missing or bad, a case failed; *failed
 * the side whose case failed, when one did); < 0 the harness failed.
 */
static int measure_pair(struct bisector *b, size_t cand, const char *cand_tree,
			size_t base, const char *base_tree, int rounds,
			bool store_base, struct result **cand_out,
			struct result **base_out, struct strbuf *why)
{
	struct bisect_commit *c = &b->out->commits[cand];
	struct session_options sopts = b->opts->session;
	struct strbuf suite_path = STRBUF_INIT, build_dir = STRBUF_INIT;
	struct session *session = NULL;
	int error;

	strbuf_addf(&suite_path, "%s%s", cand_tree, b->suite_place.buf);
	strbuf_addf(&build_dir, "%s%s", cand_tree, b->build_place.buf);
	sopts.suite_path = suite_path.buf;
	sopts.build_dir = build_dir.buf;
	sopts.baseline_tree = base_tree;
	sopts.work_tree = cand_tree;
	if (rounds > 0) {
		sopts.runs = rounds;
		sopts.runs_auto = false;
	}
	if ((error = session_prepare(&session, &sopts)) < 0) {
		if (error == BG_EINPUT) {
			strbuf_addstr(why, bg_error_last());
			bg_error_clear();
			error = 1;
		}
		goto done;
	}
	if ((error = label(b, cand, session->result)) < 0)
		goto done;
	if (b->out->metrics_nr)
		plan_retain(session->plan, bisected_case, b->out);
	if ((error = check_measure(session, NULL)) < 0 ||
	    (session->baseline &&
	     (error = label(b, base, session->baseline)) < 0))
		goto done;
	if (session_store(session) < 0 && session_keep(session, NULL) < 0)
		bg_warn("%s", session->unstored.buf);
	else if (session->unstored.len)
		bg_warn("%s", session->unstored.buf);
	bg_error_clear();
	free(c->result_path);
	c->result_path = xstrdup(session->result_path.buf);
	if (session->baseline && store_base) {
		struct bisect_commit *bc = &b->out->commits[base];
		struct strbuf path = STRBUF_INIT;

		if (store_write(session->store, session->baseline, NULL,
				&path) < 0)
			bg_warn("%s", bg_error_last());
		bg_error_clear();
		free(bc->result_path);
		bc->result_path = strbuf_detach(&path, NULL);
	}
	if (!session->baseline) {
		strbuf_addstr(why, "the other commit's suite has none of the "
				   "cases");
		error = 1;
		goto done;
	}
	if (add_failure(why, session->result, session->baseline)) {
		error = 1;
		goto done;
	}
	/* stored with their own suite's settings, judged with the current
	 * suite's, as every commit of the range is */
	suite_stamp_result(b->suite, session->result);
	suite_stamp_result(b->suite, session->baseline);
	*cand_out = session->result;
	*base_out = session->baseline;
	session->result = session->baseline = NULL;
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

/* Checks out and builds commits[index] into *tree (the caller removes
 * it): 0 built, 1 it cannot be (why says why), < 0 failed. */
static int prepare(struct bisector *b, size_t index, struct strbuf *tree,
		   struct strbuf *why)
{
	struct bisect_commit *c = &b->out->commits[index];
	git_commit *commit = NULL;
	int error, built;

	progress(b, "%.12s \"%s\": checking out, building", c->git.commit,
		 c->git.subject ? c->git.subject : "");
	if ((error = commit_at(b, index, &commit)) < 0 ||
	    (error = stop_if_interrupted()) < 0 ||
	    (error = checkout_commit(b->area, b->repo, commit, c->git.commit,
				     tree)) < 0 ||
	    (error = built = build_run(b->opts->build_command, tree->buf,
				       b->opts->build_timeout_s, why)) < 0 ||
	    (error = stop_if_interrupted()) < 0)
		goto done;
	error = built;
done:
	git_commit_free(commit);
	return error;
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

/* The rounds of pairs measured so far at a commit being classified. */
struct rounds {
	double *votes; /* per round: sum over the metrics, below */
	size_t nr;
	double **vs_good, **to_bad; /* per metric, per round: log ratios */
};

static void rounds_release(struct rounds *r, size_t metrics_nr)
{
	for (size_t m = 0; m < metrics_nr; m++) {
		free(r->vs_good[m]);
		free(r->to_bad[m]);
	}
	free(r->vs_good);
	free(r->to_bad);
	free(r->votes);
}

/*
 * Adds the rounds of one batch: at_vs_good the commit measured beside
 * good (its baseline), bad_vs_at bad measured beside it. Round i's vote
 * is the sum over the metrics bisected of s_m (log(at_i / good_i) -
 * log(bad_i / at_i)), s_m the sign of the metric's regression: above 0
 * where the commit's level is nearer bad's, below where it is nearer
 * good's. Each log ratio compares runs made next to each other, so what
 * the machine did meanwhile reaches both. false (why says which) when a
 * metric has no pairs.
 */
static bool add_rounds(struct bisector *b, struct rounds *r,
		       const struct result *good, const struct result *at,
		       const struct result *at_beside_bad,
		       const struct result *bad, struct strbuf *why)
{
	size_t metrics_nr = b->out->metrics_nr, k = SIZE_MAX;
	double **a = xcalloc(metrics_nr, sizeof(*a));
	double **d = xcalloc(metrics_nr, sizeof(*d));
	bool ok = true;

	for (size_t m = 0; m < metrics_nr; m++) {
		const struct bisect_metric *bm = &b->out->metrics[m];
		size_t na = compare_run_log_ratios(
			result_find_case(good, bm->benchmark, bm->variant,
					 bm->device),
			result_find_case(at, bm->benchmark, bm->variant,
					 bm->device),
			bm->metric, &a[m]);
		size_t nd = compare_run_log_ratios(
			result_find_case(at_beside_bad, bm->benchmark,
					 bm->variant, bm->device),
			result_find_case(bad, bm->benchmark, bm->variant,
					 bm->device),
			bm->metric, &d[m]);

		k = na < k ? na : k;
		k = nd < k ? nd : k;
		if (!na || !nd) {
			strbuf_addf(why, "%s/%s/%s %s not measured in pairs",
				    bm->benchmark, bm->variant, bm->device,
				    bm->metric);
			ok = false;
			break;
		}
	}
	if (ok) {
		r->votes = xrealloc(r->votes, (r->nr + k) * sizeof(*r->votes));
		for (size_t m = 0; m < metrics_nr; m++) {
			double sign = b->out->metrics[m].change < 0 ? -1 : 1;

			r->vs_good[m] = xrealloc(r->vs_good[m],
						 (r->nr + k) * sizeof(double));
			r->to_bad[m] = xrealloc(r->to_bad[m],
						(r->nr + k) * sizeof(double));
			for (size_t i = 0; i < k; i++) {
				r->vs_good[m][r->nr + i] = a[m][i];
				r->to_bad[m][r->nr + i] = d[m][i];
				r->votes[r->nr + i] =
					(m ? r->votes[r->nr + i] : 0) +
					sign * (a[m][i] - d[m][i]);
			}
		}
		r->nr += k;
	}
	for (size_t m = 0; m < metrics_nr; m++) {
		free(a[m]);
		free(d[m]);
	}
	free(a);
	free(d);
	return ok;
}

/* "+0.4% against good, +19.6% on to bad": each the median of the
 * rounds' ratios. */
static void describe_rounds(struct bisector *b, const struct rounds *r,
			    struct strbuf *why)
{
	for (size_t m = 0; m < b->out->metrics_nr; m++) {
		const struct bisect_metric *bm = &b->out->metrics[m];

		if (m)
			strbuf_addstr(why, "; ");
		strbuf_addf(why, "%s/%s/%s %s ", bm->benchmark, bm->variant,
			    bm->device, bm->metric);
		format_change(why, expm1(stats_median(r->vs_good[m], r->nr)));
		strbuf_addstr(why, " against good, ");
		format_change(why, expm1(stats_median(r->to_bad[m], r->nr)));
		strbuf_addstr(why, " on to bad");
	}
	strbuf_addf(why, " (%zu rounds beside each end)", r->nr);
}

/*
 * Classifies commits[index], checked out and built in tree: batches of
 * rounds, each the commit measured beside good and then bad measured
 * beside it (two interleaved sessions), until Wilcoxon's signed-rank test
 * of the rounds' votes (add_rounds()) rejects "as near good as bad" at
 * the gate's confidence, or the rounds reach the cap (undecided). 0 and
 * *mark; 1 it cannot be measured (why); < 0 failed.
 */
static int classify(struct bisector *b, size_t index, const char *tree,
		    enum bisect_mark *mark, struct strbuf *why)
{
	struct bisect_commit *c = &b->out->commits[index];
	size_t bad_at = b->out->nr - 1;
	struct rounds r = { 0 };
	int rounds = b->first_rounds, error = BG_OK;

	r.vs_good = xcalloc(b->out->metrics_nr, sizeof(*r.vs_good));
	r.to_bad = xcalloc(b->out->metrics_nr, sizeof(*r.to_bad));
	*mark = BISECT_UNDECIDED;
	for (;;) {
		struct result *at = NULL, *good = NULL, *bad = NULL,
			      *at2 = NULL;
		struct stats_signed_rank rank;

		progress(b, "%.12s: %d rounds beside good, then beside bad",
			 c->git.commit, rounds);
		if ((error = measure_pair(b, index, tree, 0,
					  b->good_tree.buf, rounds, false, &at,
					  &good, why)) == 0 &&
		    (error = measure_pair(b, bad_at, b->bad_tree.buf, index,
					  tree, rounds, false, &bad, &at2,
					  why)) == 0 &&
		    !add_rounds(b, &r, good, at, at2, bad, why))
			error = 1;
		result_free(at);
		result_free(good);
		result_free(bad);
		result_free(at2);
		if (error)
			break;
		if (stats_signed_rank_can_reject(r.nr, b->confidence) &&
		    !stats_signed_rank(r.votes, r.nr, b->confidence, &rank) &&
		    (rank.low > 0 || rank.high < 0)) {
			*mark = rank.low > 0 ? BISECT_BAD : BISECT_GOOD;
			c->p_value = rank.p_value;
			break;
		}
		if (r.nr >= (size_t)b->cap) {
			if (!stats_signed_rank(r.votes, r.nr, b->confidence,
					       &rank))
				c->p_value = rank.p_value;
			break;
		}
		rounds = BISECT_BATCH_ROUNDS;
		if ((size_t)rounds > (size_t)b->cap - r.nr)
			rounds = (int)((size_t)b->cap - r.nr);
	}
	if (!error) {
		describe_rounds(b, &r, why);
		if (*mark == BISECT_UNDECIDED)
			strbuf_addf(why, ": neither end's level at confidence "
					 "%g %% (p = %.2g, at the cap of %d "
					 "rounds)",
				    100 * b->confidence, c->p_value, b->cap);
		else
			strbuf_addf(why, ": nearer %s, p = %.2g",
				    *mark == BISECT_BAD ? "bad" : "good",
				    c->p_value);
		b->out->measured++;
	}
	rounds_release(&r, b->out->metrics_nr);
	return error;
}

static int test_commit(size_t index, enum bisect_mark *mark, void *payload)
{
	struct bisector *b = payload;
	struct bisect_commit *c = &b->out->commits[index];
	struct strbuf why = STRBUF_INIT, tree = STRBUF_INIT;
	int error;

	if ((error = prepare(b, index, &tree, &why)) == 0)
		error = classify(b, index, tree.buf, mark, &why);
	if (tree.len)
		remove_tree(tree.buf);
	if (error > 0)
		*mark = BISECT_SKIPPED;
	if (error >= 0) {
		c->mark = *mark;
		c->why = strbuf_detach(&why, NULL);
		progress(b, "%.12s is %s: %s", c->git.commit,
			 bisect_mark_name(c->mark), c->why);
		error = BG_OK;
	}
	strbuf_release(&why);
	strbuf_release(&tree);
	return error;
}

/* An end must build: without it there is nothing to compare with. */
static int prepare_end(struct bisector *b, size_t index, const char *option,
		       struct strbuf *tree)
{
	struct strbuf why = STRBUF_INIT;
	int error = prepare(b, index, tree, &why);

	if (error > 0)
		error = bg_input_error("--%s %.12s cannot be measured: %s",
				       option,
				       b->out->commits[index].git.commit,
				       why.buf);
	strbuf_release(&why);
	return error;
}

/* The ends, built and measured side by side (bad the candidate, good its
 * baseline twin), so that their comparison is paired. */
static int measure_ends(struct bisector *b)
{
	struct bisect *out = b->out;
	struct strbuf why = STRBUF_INIT;
	int error;

	if ((error = prepare_end(b, out->nr - 1, "bad", &b->bad_tree)) < 0 ||
	    (error = prepare_end(b, 0, "good", &b->good_tree)) < 0)
		goto done;
	progress(b, "the ends: measured side by side");
	error = measure_pair(b, out->nr - 1, b->bad_tree.buf, 0,
			     b->good_tree.buf, -1, true, &b->bad, &b->good,
			     &why);
	if (error > 0) {
		error = bg_input_error("--good %.12s and --bad %.12s cannot "
				       "be measured: %s",
				       out->commits[0].git.commit,
				       out->commits[out->nr - 1].git.commit,
				       why.buf);
		goto done;
	}
	if (error < 0)
		goto done;
	out->measured += 2;
	for (size_t i = 0; i < 2; i++) {
		struct bisect_commit *c = &out->commits[i ? out->nr - 1 : 0];

		c->mark = i ? BISECT_BAD : BISECT_GOOD;
		c->why = xstrdup("the end given");
	}
done:
	strbuf_release(&why);
	return error;
}

/* The rounds of a commit's first batch: the fewest with which the
 * signed-rank test can reach the gate's confidence; its cap: the largest
 * max_runs of the bisected benchmarks (the suite's adaptive cap). */
static void set_rounds(struct bisector *b)
{
	b->first_rounds = 2;
	while (!stats_signed_rank_can_reject((size_t)b->first_rounds,
					     b->confidence))
		b->first_rounds++;
	b->cap = 0;
	for (size_t i = 0; i < b->suite->benchmarks_nr; i++) {
		const struct benchmark *bench = &b->suite->benchmarks[i];

		for (size_t m = 0; m < b->out->metrics_nr; m++)
			if (!strcmp(bench->name, b->out->metrics[m].benchmark) &&
			    bench->settings.max_runs > b->cap)
				b->cap = bench->settings.max_runs;
	}
	if (b->cap < b->first_rounds)
		b->cap = b->first_rounds;
}

/* What the answer rests on, in words (bisect.verdict). */
static void conclude(struct bisector *b)
{
	struct bisect *out = b->out;
	const struct bisect_commit *first = &out->commits[out->first];
	const struct bisect_commit *parent = &out->commits[out->first - 1];
	struct strbuf text = STRBUF_INIT;

	if (out->first != out->last)
		return;
	if (out->nr == 2) {
		out->verdict = xstrdup("the two ends given are adjacent");
		return;
	}
	strbuf_addf(&text, "%.12s is ", first->git.commit);
	if (out->first == out->nr - 1)
		strbuf_addstr(&text, "the bad end given");
	else
		strbuf_addf(&text, "bad (p = %.2g)", first->p_value);
	strbuf_addf(&text, " and its parent %.12s ", parent->git.commit);
	if (out->first == 1)
		strbuf_addstr(&text, "the good end given");
	else
		strbuf_addf(&text, "good (p = %.2g)", parent->p_value);
	strbuf_addf(&text, ", each at the gate's confidence of %g %%, its "
			   "rounds measured beside both ends",
		    100 * b->confidence);
	out->verdict = strbuf_detach(&text, NULL);
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
	strbuf_init(&b.good_tree, 0);
	strbuf_init(&b.bad_tree, 0);
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
	b.compare.baseline_measured = true;
	b.confidence = opts->confidence > 0 ? opts->confidence
					    : b.suite->defaults.confidence;
	progress(&b, "%zu commits from good %.12s to bad %.12s", b.out->nr,
		 b.out->commits[0].git.commit,
		 b.out->commits[b.out->nr - 1].git.commit);
	if ((error = measure_ends(&b)) < 0 ||
	    (error = find_regressions(&b)) < 0)
		goto done;
	set_rounds(&b);
	error = bisect_search(b.out->nr, test_commit, &b, &b.out->first,
			      &b.out->last);
	if (!error)
		conclude(&b);
done:
	process_catch_interrupts(false);
	if (b.good_tree.len)
		remove_tree(b.good_tree.buf);
	if (b.bad_tree.len)
		remove_tree(b.bad_tree.buf);
	checkout_area_free(b.area);
	git_repository_free(b.repo);
	suite_free(b.suite);
	result_free(b.good);
	result_free(b.bad);
	strbuf_release(&b.suite_place);
	strbuf_release(&b.build_place);
	strbuf_release(&b.good_tree);
	strbuf_release(&b.bad_tree);
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
	free(bisect->verdict);
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
