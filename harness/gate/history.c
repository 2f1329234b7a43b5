/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/history.h"

#include "harness/gate/baseline.h"
#include "harness/gate/history_index.h"
#include "harness/git/gitinfo.h"
#include "harness/git/repo.h"
#include "harness/git/gitref.h"
#include "harness/util/alloc.h"
#include "harness/util/hash.h"
#include "harness/util/error.h"
#include "harness/util/isotime.h"

#include <git2.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Threads that find change points: no more than a history of 100 series
 * on a CI machine can use. */
#define DETECT_THREADS_MAX 8

/* Where the walk stops: a commit made before a date, or a revision. */
struct since {
	bool by_date, by_commit, reached;
	double seconds;
	git_oid commit;
};

/*
 * What only building needs, beside out->series[i]: the series' key (ids
 * of the history index: suite, machine, benchmark, variant, device,
 * metric), and each point's own variance until its change points are
 * found.
 */
#define SERIES_KEY_NR 6

struct series_build {
	uint32_t key[SERIES_KEY_NR];
	double *variances; /* per point, in walk order */
	size_t variances_alloc;
};

struct builder {
	struct history *out;
	const struct history_request *req;
	struct history_index *index; /* the summaries of the results */
	struct series_build *builds; /* parallel to out->series */
	size_t builds_alloc;
	size_t *slots; /* open addressing: series index + 1, 0 empty */
	size_t slots_nr;
};

static size_t key_slot(const uint32_t *key, size_t slots_nr)
{
	return hash_fnv1a64(key, SERIES_KEY_NR * sizeof(*key)) &
	       (slots_nr - 1);
}

static void index_grow(struct builder *b)
{
	size_t nr = b->slots_nr ? 2 * b->slots_nr : 64;

	free(b->slots);
	b->slots = xcalloc(nr, sizeof(*b->slots));
	b->slots_nr = nr;
	for (size_t i = 0; i < b->out->series_nr; i++) {
		size_t slot = key_slot(b->builds[i].key, nr);

		while (b->slots[slot])
			slot = (slot + 1) & (nr - 1);
		b->slots[slot] = i + 1;
	}
}

static char *index_strdup(const struct history_index *index, uint32_t id)
{
	return id == HISTORY_INDEX_NONE
		       ? NULL
		       : xstrdup(history_index_string(index, id));
}

/* The series of the case, machine and metric, added when new. */
static size_t series_for(struct builder *b, const struct history_index_result *r,
			 const struct history_index_metric *m)
{
	const uint32_t key[SERIES_KEY_NR] = { r->suite,	  r->machine,
					      m->benchmark, m->variant,
					      m->device,	  m->metric };
	struct history_series *s;
	size_t slot, i;

	if (2 * (b->out->series_nr + 1) > b->slots_nr)
		index_grow(b);
	slot = key_slot(key, b->slots_nr);
	for (; b->slots[slot]; slot = (slot + 1) & (b->slots_nr - 1)) {
		i = b->slots[slot] - 1;
		if (!memcmp(b->builds[i].key, key, sizeof(key)))
			return i;
	}
	i = b->out->series_nr++;
	ALLOC_GROW(b->out->series, b->out->series_nr, b->out->series_alloc);
	ALLOC_GROW(b->builds, b->out->series_nr, b->builds_alloc);
	b->slots[slot] = i + 1;
	b->builds[i] = (struct series_build){ .variances = NULL };
	memcpy(b->builds[i].key, key, sizeof(key));
	s = &b->out->series[i];
	memset(s, 0, sizeof(*s));
	s->suite = index_strdup(b->index, r->suite);
	s->benchmark = index_strdup(b->index, m->benchmark);
	s->variant = index_strdup(b->index, m->variant);
	s->device = index_strdup(b->index, m->device);
	s->machine = index_strdup(b->index, r->machine);
	s->metric = index_strdup(b->index, m->metric);
	/* The walk goes newest first: the first result met is the newest. */
	s->unit = index_strdup(b->index, m->unit);
	s->better = (enum better)m->better;
	return i;
}

static bool selected(const char *filter, const struct history_index *index,
		     uint32_t name)
{
	return !filter || !strcmp(filter, history_index_string(index, name));
}

/* The points of one result at walk position `position`, their source
 * `source`; whether it gave any. */
static bool add_result(struct builder *b, const struct history_index_result *r,
		       size_t position, size_t source)
{
	const struct history_request *req = b->req;
	bool added = false;

	for (size_t i = 0; i < r->points_nr; i++) {
		const struct history_index_point *p = &r->points[i];
		const struct history_index_metric *m =
			history_index_metric_at(b->index, p->metric);
		struct history_series *s;
		struct series_build *build;
		size_t k;

		if (!selected(req->benchmark, b->index, m->benchmark) ||
		    !selected(req->variant, b->index, m->variant) ||
		    !selected(req->device, b->index, m->device) ||
		    !selected(req->metric, b->index, m->metric))
			continue;
		k = series_for(b, r, m);
		s = &b->out->series[k];
		build = &b->builds[k];
		/* a newer result of this commit measured the case already */
		if (s->points_nr && s->points[s->points_nr - 1].commit == position)
			continue;
		ALLOC_GROW(s->points, s->points_nr + 1, s->points_alloc);
		ALLOC_GROW(build->variances, s->points_nr + 1,
			   build->variances_alloc);
		build->variances[s->points_nr] = p->variance;
		s->points[s->points_nr++] = (struct history_point){
			.commit = position,
			.n = p->n,
			.median = p->median,
			.ci_low = p->ci_low,
			.ci_high = p->ci_high,
			.busy = r->busy,
			.source = source,
		};
		added = true;
	}
	return added;
}

/* A commit of the walk and its position, to find an entry's. */
struct position {
	const char *commit;
	size_t at;
};

static int compare_positions(const void *a, const void *b)
{
	return strcmp(((const struct position *)a)->commit,
		      ((const struct position *)b)->commit);
}

/* An entry of the listing at its commit's position. */
struct placed {
	size_t position; /* SIZE_MAX: not a commit of the walk */
	size_t index;	 /* in the listing */
};

/* By position, then in listing order (oldest first). */
static int compare_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->position != y->position)
		return x->position < y->position ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The results of one commit, entries[first..end) of the listing (oldest
 * first), at `position`, newest first: each case and metric of a suite
 * and machine takes its point from the newest readable result that
 * measured it, so a rerun of some cases (a filtered run, bisect's
 * measurements of one variant) does not hide the others' points from the
 * nightly run. The entries taken move into the history.
 */
static void add_commit(struct builder *b, struct store *store,
		       struct store_entry *entries,
		       const struct placed *placed, size_t first, size_t end,
		       size_t position)
{
	for (size_t k = end; k-- > first;) {
		struct store_entry *entry = &entries[placed[k].index];
		struct history_index_result r;

		if (history_index_lookup(b->index, store, entry, &r) < 0)
			continue;
		/* Suites whose file names collide are told apart here. */
		if (!selected(b->req->suite, b->index, r.suite) ||
		    !add_result(b, &r, position, b->out->sources_nr))
			continue;
		ALLOC_GROW(b->out->sources, b->out->sources_nr + 1,
			   b->out->sources_alloc);
		b->out->sources[b->out->sources_nr++] = *entry;
		memset(entry, 0, sizeof(*entry));
	}
}

/*
 * The results of every commit of the walk (out->commits), listed at once
 * (a PostgreSQL store answers in one query, not one per commit), into
 * the series, commit by commit from the newest.
 */
static int add_commits(struct builder *b, struct store *store)
{
	const struct history *out = b->out;
	size_t commits_nr = out->commits_nr;
	const char **commits = xcalloc(commits_nr + 1, sizeof(*commits));
	struct position *by_id = xcalloc(commits_nr + 1, sizeof(*by_id));
	struct store_query query = { .commits = commits,
				     .commits_nr = commits_nr,
				     .machine = b->req->machine,
				     .suite = b->req->suite };
	struct store_entry *entries = NULL;
	struct placed *placed = NULL;
	size_t nr = 0;
	int error;

	for (size_t i = 0; i < commits_nr; i++) {
		commits[i] = out->commits[i].commit;
		by_id[i] = (struct position){ commits[i], i };
	}
	if ((error = store_list(store, &query, &entries, &nr)) < 0 || !nr)
		goto done;
	qsort(by_id, commits_nr, sizeof(*by_id), compare_positions);
	placed = xcalloc(nr, sizeof(*placed));
	for (size_t i = 0; i < nr; i++) {
		struct position key = { entries[i].commit, 0 };
		const struct position *found = bsearch(
			&key, by_id, commits_nr, sizeof(*by_id),
			compare_positions);

		placed[i].position = found ? found->at : SIZE_MAX;
		placed[i].index = i;
	}
	qsort(placed, nr, sizeof(*placed), compare_placed);
	for (size_t first = 0, end; first < nr; first = end) {
		size_t at = placed[first].position;

		for (end = first + 1; end < nr && placed[end].position == at;
		     end++)
			;
		if (at != SIZE_MAX)
			add_commit(b, store, entries, placed, first, end, at);
	}
done:
	store_entries_free(entries, nr);
	free(placed);
	free(commits);
	free(by_id);
	return error;
}

/* Whether midnight UTC at `seconds` is that day: iso8601_parse() takes
 * any day up to 31 and rolls "2026-02-30" over into March. */
static bool names_its_day(double seconds, int year, int month, int day)
{
	time_t when = (time_t)seconds;
	struct tm tm;

	return gmtime_r(&when, &tm) && tm.tm_year + 1900 == year &&
	       tm.tm_mon + 1 == month && tm.tm_mday == day;
}

static int parse_since(struct since *since, git_repository *repo,
		       const char *text)
{
	struct strbuf date = STRBUF_INIT;
	git_object *object = NULL, *commit = NULL;
	int year, month, day, end = 0;
	bool ok;

	memset(since, 0, sizeof(*since));
	if (!text)
		return BG_OK;
	if (sscanf(text, "%4d-%2d-%2d%n", &year, &month, &day, &end) == 3 &&
	    end == 10) {
		strbuf_addstr(&date, text);
		if (!text[end])
			strbuf_addstr(&date, "T00:00:00Z");
		ok = iso8601_parse(date.buf, &since->seconds) &&
		     (text[end] ||
		      names_its_day(since->seconds, year, month, day));
		strbuf_release(&date);
		if (!ok)
			return bg_input_error("--since: '%s' is not a valid "
					      "date; expected YYYY-MM-DD or "
					      "YYYY-MM-DDTHH:MM:SSZ",
					      text);
		since->by_date = true;
		return BG_OK;
	}
	if (git_revparse_single(&object, repo, text) < 0 ||
	    git_object_peel(&commit, object, GIT_OBJECT_COMMIT) < 0) {
		git_object_free(object);
		return bg_input_error("--since: '%s' is neither a date "
				      "(YYYY-MM-DD) nor a revision of the "
				      "repository",
				      text);
	}
	git_oid_cpy(&since->commit, git_object_id(commit));
	since->by_commit = true;
	git_object_free(commit);
	git_object_free(object);
	return BG_OK;
}

/* The tip to walk from: the branch asked for, else the default branch,
 * else HEAD. */
static int walk_tip(git_repository *repo, const char *branch, git_oid *tip,
		    char **name)
{
	struct strbuf found = STRBUF_INIT;
	git_object *object = NULL, *commit = NULL;
	int error = repo_default_branch(repo, branch, &object, &found);

	if (error == BG_ENOTFOUND) {
		strbuf_addstr(&found, "HEAD");
		if (git_revparse_single(&object, repo, "HEAD") < 0)
			error = bg_input_error("HEAD has no commit yet and "
					       "there is no main or master "
					       "branch; give --branch");
		else
			error = BG_OK;
	}
	if (error == BG_OK &&
	    git_object_peel(&commit, object, GIT_OBJECT_COMMIT) < 0)
		error = bg_input_error("--branch: '%s' is not a commit",
				       found.buf);
	if (error == BG_OK) {
		git_oid_cpy(tip, git_object_id(commit));
		*name = strbuf_detach(&found, NULL);
	}
	git_object_free(commit);
	git_object_free(object);
	strbuf_release(&found);
	return error;
}

/* Walks first parents from tip, newest first, into out->commits and the
 * series (positions counted from the newest). */
static int walk(struct builder *b, struct store *store, git_repository *repo,
		const git_oid *tip, struct since *since)
{
	struct history *out = b->out;
	git_revwalk *revwalk = NULL;
	git_oid oid;
	int error = BG_OK;

	if (repo_walk_first_parents(&revwalk, repo, tip) < 0) {
		error = bg_error("cannot walk the history of %s: %s",
				 out->branch, gitref_message());
		goto done;
	}
	/* A shallow clone simply ends the walk early: not an error. */
	while (!since->reached && git_revwalk_next(&oid, revwalk) == 0) {
		git_commit *commit = NULL;
		struct git_meta *meta;

		if (git_commit_lookup(&commit, repo, &oid) < 0) {
			error = bg_error("cannot read commit %s: %s",
					 git_oid_tostr_s(&oid),
					 gitref_message());
			goto done;
		}
		if (since->by_date &&
		    (double)git_commit_time(commit) < since->seconds) {
			git_commit_free(commit);
			break;
		}
		since->reached = since->by_commit &&
				 git_oid_equal(&oid, &since->commit);
		ALLOC_GROW(out->commits, out->commits_nr + 1,
			   out->commits_alloc);
		meta = &out->commits[out->commits_nr];
		gitinfo_read_commit(meta, commit);
		git_commit_free(commit);
		out->commits_nr++;
	}
	if (since->by_commit && !since->reached)
		error = bg_input_error("--since: '%s' is not on the "
				       "first-parent history of %s",
				       b->req->since, out->branch);
	else
		error = add_commits(b, store);
done:
	git_revwalk_free(revwalk);
	return error;
}

static void reverse_points(struct history_series *s, struct series_build *sb,
			   size_t commits_nr)
{
	for (size_t i = 0, j = s->points_nr; i < j--; i++) {
		struct history_point point = s->points[i];
		double variance = sb->variances[i];

		s->points[i] = s->points[j];
		s->points[j] = point;
		sb->variances[i] = sb->variances[j];
		sb->variances[j] = variance;
	}
	for (size_t i = 0; i < s->points_nr; i++)
		s->points[i].commit = commits_nr - 1 - s->points[i].commit;
}

/* How far a level is from another, relative: on a log scale when both are
 * positive. */
static double level_distance(double a, double b)
{
	if (a > 0 && b > 0)
		return fabs(log(a / b));
	return fabs(a - b);
}

/* Each regression's resolved_by (history.h). */
static void mark_resolved(struct history_series *s)
{
	for (size_t i = 0; i < s->changes_nr; i++) {
		struct history_change *c = &s->changes[i];

		c->resolved = false;
		if (!c->regression)
			continue;
		for (size_t j = i + 1; j < s->changes_nr; j++) {
			double after = s->changes[j].at.after;

			if (level_distance(after, c->at.before) <
			    level_distance(after, c->at.after)) {
				c->resolved = true;
				c->resolved_by = j;
				break;
			}
		}
	}
}

static void find_changes(struct history_series *s,
			 const struct series_build *sb,
			 const struct changepoint_options *opts)
{
	struct changepoint_input *inputs =
		xcalloc(s->points_nr ? s->points_nr : 1, sizeof(*inputs));
	struct changepoint_list found = { 0 };

	for (size_t i = 0; i < s->points_nr; i++)
		inputs[i] = (struct changepoint_input){
			.median = s->points[i].median,
			.n = s->points[i].n,
			.variance_known = true,
			.variance = sb->variances[i],
			/* a few per cent of a core is every machine's
			 * background, not a busy night */
			.busy = s->points[i].busy >= MACHINE_LOAD_BUSY_CPU
					? s->points[i].busy
					: 0,
		};
	changepoint_detect(&found, inputs, s->points_nr, opts);
	for (size_t i = 0; i < found.nr; i++) {
		const struct changepoint *at = &found.items[i];
		struct history_change *change;

		if (at->index >= s->points_nr)
			continue;
		ALLOC_GROW(s->changes, s->changes_nr + 1, s->changes_alloc);
		change = &s->changes[s->changes_nr++];
		change->at = *at;
		change->regression = s->better == BETTER_HIGHER
					     ? at->change < 0
					     : at->change > 0;
		change->range_first =
			at->index ? s->points[at->index - 1].commit + 1
				  : s->points[0].commit;
	}
	changepoint_list_release(&found);
	free(inputs);
	mark_resolved(s);
}

static int compare_names(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int compare_series(const void *a, const void *b)
{
	const struct history_series *x = a, *y = b;
	int order;

	if ((order = compare_names(x->suite, y->suite)) ||
	    (order = compare_names(x->machine, y->machine)) ||
	    (order = compare_names(x->benchmark, y->benchmark)) ||
	    (order = compare_names(x->variant, y->variant)) ||
	    (order = compare_names(x->device, y->device)))
		return order;
	return compare_names(x->metric, y->metric);
}

/* Oldest first everywhere, change points found, series in order. */
/* The series shared out among the threads of detect_all(). */
struct detect_work {
	struct builder *b;
	const struct changepoint_options *opts;
	atomic_size_t next;
};

static void *detect_worker(void *arg)
{
	struct detect_work *w = arg;
	size_t i;

	while ((i = atomic_fetch_add(&w->next, 1)) < w->b->out->series_nr)
		find_changes(&w->b->out->series[i], &w->b->builds[i],
			     w->opts);
	return NULL;
}

/*
 * The change points of every series, one thread per online CPU: each
 * series is detected on its own (changepoint_detect() shares nothing),
 * so the result does not depend on the threads, and detection is most
 * of an indexed history's time. A thread that cannot be started leaves
 * its share to the others.
 */
static void detect_all(struct builder *b, const struct changepoint_options *opts)
{
	struct detect_work w = { .b = b, .opts = opts };
	pthread_t threads[DETECT_THREADS_MAX - 1];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t wanted = cpus > 1 ? (size_t)cpus : 1, started = 0;

	atomic_init(&w.next, 0);
	if (wanted > DETECT_THREADS_MAX)
		wanted = DETECT_THREADS_MAX;
	while (started + 1 < wanted && started + 1 < b->out->series_nr &&
	       !pthread_create(&threads[started], NULL, detect_worker, &w))
		started++;
	detect_worker(&w);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
}

static void finish(struct builder *b)
{
	struct history *out = b->out;
	struct changepoint_options defaults;
	const struct changepoint_options *opts = b->req->changepoints;

	if (!opts) {
		changepoint_options_init(&defaults);
		opts = &defaults;
	}
	for (size_t i = 0, j = out->commits_nr; i < j--; i++) {
		struct git_meta commit = out->commits[i];

		out->commits[i] = out->commits[j];
		out->commits[j] = commit;
	}
	for (size_t i = 0; i < out->series_nr; i++)
		reverse_points(&out->series[i], &b->builds[i], out->commits_nr);
	detect_all(b, opts);
	if (out->series_nr)
		qsort(out->series, out->series_nr, sizeof(*out->series),
		      compare_series);
}

static void *save_index(void *index)
{
	history_index_save(index);
	return NULL;
}

/*
 * Saves the index while the change points are found: writing it (tens
 * of megabytes on a long history, and an fsync) is mostly the kernel's
 * copying and the disk's wait, which detection does not need, and it
 * only reads the index, which detection does not touch.
 */
static void save_during(struct builder *b)
{
	pthread_t saver;
	bool started = !pthread_create(&saver, NULL, save_index, b->index);

	if (!started)
		history_index_save(b->index);
	finish(b);
	if (started)
		pthread_join(saver, NULL);
}

static void builder_release(struct builder *b)
{
	for (size_t i = 0; i < b->out->series_nr; i++)
		free(b->builds[i].variances);
	free(b->builds);
	free(b->slots);
	history_index_free(b->index);
}

int history_build(struct history *out, struct store *store,
		  const struct history_request *req)
{
	struct builder b = { .out = out, .req = req };
	git_repository *opened = NULL, *repo = req->repo;
	struct since since;
	git_oid tip;
	int error;

	if (!repo && repo_open(&opened, req->start_dir) < 0)
		return bg_input_error("history: '%s' is not in a git "
				      "repository",
				      req->start_dir ? req->start_dir : ".");
	if (!repo)
		repo = opened;
	b.index = history_index_open(store, HISTORY_CONFIDENCE);
	if ((error = walk_tip(repo, req->branch, &tip, &out->branch)) < 0 ||
	    (error = parse_since(&since, repo, req->since)) < 0 ||
	    (error = walk(&b, store, repo, &tip, &since)) < 0)
		goto done;
	save_during(&b);
done:
	builder_release(&b);
	git_repository_free(opened);
	return error;
}

static void series_release(struct history_series *s)
{
	free(s->suite);
	free(s->benchmark);
	free(s->variant);
	free(s->device);
	free(s->machine);
	free(s->metric);
	free(s->unit);
	free(s->points);
	free(s->changes);
}

void history_release(struct history *history)
{
	for (size_t i = 0; i < history->incidents_nr; i++)
		free(history->incidents[i].moves);
	for (size_t i = 0; history->authors && i < history->commits_nr; i++)
		free(history->authors[i]);
	free(history->incidents);
	free(history->authors);
	store_entries_free(history->sources, history->sources_nr);
	for (size_t i = 0; i < history->commits_nr; i++)
		git_meta_release(&history->commits[i]);
	for (size_t i = 0; i < history->series_nr; i++)
		series_release(&history->series[i]);
	free(history->commits);
	free(history->series);
	free(history->branch);
	memset(history, 0, sizeof(*history));
}
