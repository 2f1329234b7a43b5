/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The views of `benchgate history` (history_view.h): what a branch's
 * series look like in a terminal, in CSV and in JSON.
 */
#include "reporters/history_view.h"

#include "harness/util/alloc.h"
#include "harness/util/format.h"
#include "harness/util/json.h"
#include "harness/util/name.h"
#include "reporters/escape.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RED   "\033[31m"
#define GREEN "\033[32m"
#define BOLD  "\033[1m"
#define RESET "\033[0m"

/* A subject is context, not the news: cut where it would wrap. */
#define SUBJECT_MAX 60

static const char *const bars[] = { "\u2581", "\u2582", "\u2583", "\u2584",
				    "\u2585", "\u2586", "\u2587", "\u2588" };

static const char *paint(bool color, const char *code)
{
	return color ? code : "";
}

static const char *direction(const struct history_change *change)
{
	return change->regression ? "regression" : "improvement";
}

/* A cell of a sparkline: a point's median, a gap, or a new level. */
struct cell {
	enum {
		CELL_POINT,
		CELL_GAP,
		CELL_CHANGE
	} kind;
	double median;
	bool regression; /* CELL_CHANGE */
};

static size_t sparkline_cells(const struct history_series *s,
			      struct cell *cells)
{
	size_t nr = 0, next_change = 0;

	for (size_t i = 0; i < s->points_nr; i++) {
		const struct history_point *p = &s->points[i];

		if (i && p->commit > s->points[i - 1].commit + 1)
			cells[nr++] = (struct cell){ .kind = CELL_GAP };
		while (next_change < s->changes_nr &&
		       s->changes[next_change].at.index < i)
			next_change++;
		if (next_change < s->changes_nr &&
		    s->changes[next_change].at.index == i)
			cells[nr++] = (struct cell){
				.kind = CELL_CHANGE,
				.regression = s->changes[next_change].regression
			};
		cells[nr++] = (struct cell){ .kind = CELL_POINT,
					     .median = p->median };
	}
	return nr;
}

static void add_sparkline(struct strbuf *out, const struct history_series *s,
			  bool color)
{
	struct cell *cells = xcalloc(3 * s->points_nr + 1, sizeof(*cells));
	size_t nr = sparkline_cells(s, cells), first = 0;
	double low = INFINITY, high = -INFINITY;

	if (nr > HISTORY_VIEW_WIDTH) {
		first = nr - (HISTORY_VIEW_WIDTH - 1);
		strbuf_addstr(out, "\u2026");
	}
	for (size_t i = first; i < nr; i++) {
		if (cells[i].kind != CELL_POINT)
			continue;
		low = fmin(low, cells[i].median);
		high = fmax(high, cells[i].median);
	}
	for (size_t i = first; i < nr; i++) {
		const struct cell *c = &cells[i];
		int level = 0;

		if (c->kind == CELL_GAP) {
			strbuf_addch(out, ' ');
			continue;
		}
		if (c->kind == CELL_CHANGE) {
			strbuf_addf(out, "%s|%s",
				    paint(color, c->regression ? RED : GREEN),
				    paint(color, RESET));
			continue;
		}
		if (high > low)
			level = (int)lround((c->median - low) / (high - low) *
					    7);
		strbuf_addstr(out, bars[level < 0 ? 0 : level > 7 ? 7 : level]);
	}
	free(cells);
}

static size_t label_width(const struct history *history)
{
	size_t width = 0;

	for (size_t i = 0; i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];
		size_t len = strlen(s->benchmark) + strlen(s->variant) +
			     strlen(s->device) + strlen(s->metric) + 3;

		if (len > width)
			width = len;
	}
	return width > 60 ? 60 : width;
}

static void add_change(struct strbuf *out, const struct history *history,
		       const struct history_series *s,
		       const struct history_change *change, bool color)
{
	const struct history_point *p = &s->points[change->at.index];
	const struct git_meta *commit = &history->commits[p->commit];
	size_t span = p->commit - change->range_first + 1;

	strbuf_addf(out, "      %s%s%s at %.12s: ",
		    paint(color, change->regression ? RED : GREEN),
		    direction(change), paint(color, RESET), commit->commit);
	format_change(out, change->at.change);
	strbuf_addstr(out, " [");
	format_change(out, change->at.change_lo);
	strbuf_addstr(out, ", ");
	format_change(out, change->at.change_hi);
	strbuf_addstr(out, "], ");
	format_quantity(out, change->at.before, s->unit);
	strbuf_addstr(out, " -> ");
	format_quantity(out, change->at.after, s->unit);
	if (span > 1)
		strbuf_addf(out, ", bisect %.12s..%.12s (%zu commits)",
			    history->commits[change->range_first].commit,
			    commit->commit, span);
	if (change->resolved)
		strbuf_addf(out, ", resolved at %.12s",
			    history->commits[s->points[s->changes[change->resolved_by]
							       .at.index]
						     .commit]
				    .commit);
	strbuf_addstr(out, ": \"");
	report_add_cut(out, commit->subject, SUBJECT_MAX, name_quote);
	strbuf_addstr(out, "\"\n");
}

static void add_series(struct strbuf *out, const struct history *history,
		       const struct history_series *s, size_t width, bool color)
{
	struct strbuf label = STRBUF_INIT;

	strbuf_addf(&label, "%s/%s/%s %s", s->benchmark, s->variant, s->device,
		    s->metric);
	strbuf_addstr(out, "  ");
	name_quote(out, label.buf);
	for (size_t len = label.len; len < width; len++)
		strbuf_addch(out, ' ');
	strbuf_addstr(out, "  ");
	add_sparkline(out, s, color);
	strbuf_addstr(out, "  ");
	strbuf_addstr(out, paint(color, BOLD));
	format_quantity(out, s->points[s->points_nr - 1].median, s->unit);
	strbuf_addf(out, "%s (", paint(color, RESET));
	report_add_count(out, s->points_nr, "point", "points");
	strbuf_addstr(out, ")\n");
	for (size_t i = 0; i < s->changes_nr; i++)
		add_change(out, history, s, &s->changes[i], color);
	strbuf_release(&label);
}

/* One block per cause (attribution.h): the commit to blame, what a
 * bisect would search, and every series that moved there. */
static void add_incident(struct strbuf *out, const struct history *history,
			 const struct history_incident *incident, bool color)
{
	const struct git_meta *last = &history->commits[incident->range_last];
	const char *author = history->authors
				     ? history->authors[incident->range_last]
				     : NULL;
	size_t span = incident->range_last - incident->range_first + 1;

	strbuf_addf(out, "%sregression%s at %.12s", paint(color, RED),
		    paint(color, RESET), last->commit);
	if (author) {
		strbuf_addstr(out, " by ");
		report_add_cut(out, author, SUBJECT_MAX, name_quote);
	}
	strbuf_addstr(out, ": \"");
	report_add_cut(out, last->subject, SUBJECT_MAX, name_quote);
	strbuf_addstr(out, "\"\n");
	if (span > 1)
		/* the commit before the range held the old level */
		strbuf_addf(out,
			    "  one of %zu commits: benchgate bisect SUITE "
			    "--good %.12s --bad %.12s\n",
			    span,
			    incident->range_first
				    ? history->commits[incident->range_first - 1]
					      .commit
				    : history->commits[0].commit,
			    last->commit);
	strbuf_addstr(out, "  ");
	report_add_count(out, incident->moves_nr, "series moved",
			 "series moved");
	strbuf_addf(out, " (%zu in the worse direction):\n",
		    incident->regressions);
	for (size_t i = 0; i < incident->moves_nr; i++) {
		const struct history_move *move = &incident->moves[i];
		const struct history_series *s = &history->series[move->series];
		const struct history_change *change = &s->changes[move->change];
		struct strbuf label = STRBUF_INIT;

		strbuf_addf(&label, "%s on %s: %s/%s/%s %s", s->suite,
			    s->machine, s->benchmark, s->variant, s->device,
			    s->metric);
		strbuf_addstr(out, "    ");
		name_quote(out, label.buf);
		strbuf_addf(out, " %s", paint(color, change->regression ? RED
								   : GREEN));
		format_change(out, change->at.change);
		strbuf_addf(out, "%s\n", paint(color, RESET));
		strbuf_release(&label);
	}
}

void history_view_terminal(struct strbuf *out, const struct history *history,
			   bool color)
{
	size_t width = label_width(history), changes = 0, regressions = 0;

	for (size_t i = 0; i < history->series_nr; i++) {
		changes += history->series[i].changes_nr;
		for (size_t j = 0; j < history->series[i].changes_nr; j++)
			regressions += history->series[i].changes[j].regression;
	}
	strbuf_addstr(out, "history of ");
	name_quote(out, history->branch);
	strbuf_addstr(out, ": ");
	report_add_count(out, history->commits_nr, "first-parent commit",
			 "first-parent commits");
	strbuf_addstr(out, ", ");
	report_add_count(out, history->series_nr, "series", "series");
	strbuf_addstr(out, ", ");
	report_add_count(out, changes, "change point", "change points");
	strbuf_addf(out, " (%zu in the worse direction)\n", regressions);
	for (size_t i = 0; i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];
		const struct history_series *prev = i ? s - 1 : NULL;

		if (!prev || strcmp(prev->suite, s->suite) ||
		    strcmp(prev->machine, s->machine)) {
			strbuf_addstr(out, paint(color, BOLD));
			name_quote(out, s->suite);
			strbuf_addstr(out, paint(color, RESET));
			strbuf_addstr(out, " on machine ");
			name_quote(out, s->machine);
			strbuf_addch(out, '\n');
		}
		add_series(out, history, s, width, color);
	}
	for (size_t i = 0; i < history->incidents_nr; i++)
		add_incident(out, history, &history->incidents[i], color);
}

void history_view_alerts(struct strbuf *out, const struct history *history,
			 const struct alerts *alerts, bool color)
{
	for (size_t i = 0; i < alerts->nr; i++) {
		const struct history_series *s =
			&history->series[alerts->items[i].series];
		struct strbuf label = STRBUF_INIT;

		strbuf_addf(&label, "%s/%s/%s %s", s->benchmark, s->variant,
			    s->device, s->metric);
		strbuf_addstr(out, "new regression in ");
		name_quote(out, s->suite);
		strbuf_addstr(out, " on ");
		name_quote(out, s->machine);
		strbuf_addstr(out, ": ");
		name_quote(out, label.buf);
		strbuf_addch(out, '\n');
		add_change(out, history, s, &s->changes[alerts->items[i].change],
			   color);
		strbuf_release(&label);
	}
}

static const char *const csv_columns[] = {
	"suite",  "benchmark", "variant", "device",	 "machine", "metric",
	"unit",	  "better",    "commit",  "commit_time", "subject", "n",
	"median", "ci_low",    "ci_high", "change_point"
};

static bool is_change_point(const struct history_series *s, size_t index)
{
	for (size_t i = 0; i < s->changes_nr; i++)
		if (s->changes[i].at.index == index)
			return true;
	return false;
}

void history_view_csv(struct strbuf *out, const struct history *history)
{
	for (size_t i = 0; i < sizeof(csv_columns) / sizeof(*csv_columns); i++)
		strbuf_addf(out, "%s%s", i ? "," : "", csv_columns[i]);
	strbuf_addstr(out, "\r\n");
	for (size_t i = 0; i < history->series_nr; i++) {
		const struct history_series *s = &history->series[i];

		for (size_t j = 0; j < s->points_nr; j++) {
			const struct history_point *p = &s->points[j];
			const struct git_meta *commit =
				&history->commits[p->commit];

			escape_csv(out, s->suite);
			escape_csv_field(out, s->benchmark);
			escape_csv_field(out, s->variant);
			escape_csv_field(out, s->device);
			escape_csv_field(out, s->machine);
			escape_csv_field(out, s->metric);
			escape_csv_field(out, s->unit);
			escape_csv_field(out, better_names[s->better]);
			escape_csv_field(out, commit->commit);
			escape_csv_field(out, commit->commit_time);
			escape_csv_field(out, commit->subject);
			strbuf_addf(out, ",%zu", p->n);
			escape_csv_number(out, p->median);
			escape_csv_number(out, p->ci_low);
			escape_csv_number(out, p->ci_high);
			strbuf_addf(out, ",%d\r\n", is_change_point(s, j));
		}
	}
}

/* The document is written as it goes (json.h's writer), not built as a
 * tree: a long history's points are nearly all of it, a million for 100
 * series of 10,000 commits, and a tree of them took gigabytes and most of
 * the time. */

static void write_string(struct json_writer *w, const char *key,
			 const char *s)
{
	json_write_key(w, key);
	json_write_value_string(w, s);
}

static void write_number(struct json_writer *w, const char *key, double d)
{
	json_write_key(w, key);
	json_write_value_number(w, d);
}

/* The commit's field (0 hash, 1 time, 2 subject) from it->commit_text. */
static const char *commit_field(const struct history_json *it, size_t commit,
				int field)
{
	size_t at = it->commit_at[3 * commit + (size_t)field];

	return at == SIZE_MAX ? NULL : it->commit_text.buf + at;
}

static void write_point(struct json_writer *w, const struct history_json *it,
			const struct history_point *p)
{
	json_write_object(w);
	write_string(w, "commit", commit_field(it, p->commit, 0));
	write_string(w, "commit_time", commit_field(it, p->commit, 1));
	write_string(w, "subject", commit_field(it, p->commit, 2));
	write_number(w, "n", (double)p->n);
	write_number(w, "median", p->median);
	json_write_key(w, "ci");
	json_write_value_pair(w, p->ci_low, p->ci_high);
	json_write_end(w);
}

/* "range": [first, last], commits a bisect searches. */
static void add_range(cJSON *object, const struct history *history,
		      size_t first, size_t last)
{
	cJSON *range = cJSON_AddArrayToObject(object, "range");

	cJSON_AddItemToArray(range, json_string(history->commits[first].commit));
	cJSON_AddItemToArray(range, json_string(history->commits[last].commit));
}

static const char *author_of(const struct history *history, size_t commit)
{
	return history->authors ? history->authors[commit] : NULL;
}

static void write_change(struct json_writer *w, const struct history *history,
			 const struct history_series *s,
			 const struct history_change *change)
{
	size_t commit = s->points[change->at.index].commit;

	json_write_object(w);
	write_string(w, "commit", history->commits[commit].commit);
	write_number(w, "index", (double)change->at.index);
	write_number(w, "before", change->at.before);
	write_number(w, "after", change->at.after);
	write_number(w, "change", change->at.change);
	json_write_key(w, "change_ci");
	json_write_value_pair(w, change->at.change_lo, change->at.change_hi);
	write_string(w, "direction", direction(change));
	json_write_key(w, "range");
	json_write_array(w);
	json_write_value_string(
		w, history->commits[change->range_first].commit);
	json_write_value_string(w, history->commits[commit].commit);
	json_write_end(w);
	if (change->resolved) {
		const struct history_change *fix =
			&s->changes[change->resolved_by];

		write_string(w, "resolved_by",
			     history->commits[s->points[fix->at.index].commit]
				     .commit);
	} else if (change->regression) {
		json_write_key(w, "resolved_by");
		json_write_value_null(w);
	}
	write_string(w, "author", author_of(history, commit));
	json_write_key(w, "incident");
	if (change->incident >= history->incidents_nr)
		json_write_value_null(w);
	else
		json_write_value_number(w, (double)change->incident);
	json_write_end(w);
}

/* What names a series: suite, benchmark, variant, device, machine,
 * metric, as the dashboard's state does (harness/gate/published.h). */
static void add_series_names(cJSON *object, const struct history_series *s)
{
	json_add_string(object, "suite", s->suite);
	json_add_string(object, "benchmark", s->benchmark);
	json_add_string(object, "variant", s->variant);
	json_add_string(object, "device", s->device);
	json_add_string(object, "machine", s->machine);
	json_add_string(object, "metric", s->metric);
}

static cJSON *move_json(const struct history *history,
			const struct history_move *move)
{
	const struct history_series *s = &history->series[move->series];
	const struct history_change *change = &s->changes[move->change];
	cJSON *object = cJSON_CreateObject();

	cJSON_AddNumberToObject(object, "series", (double)move->series);
	cJSON_AddNumberToObject(object, "change_point", (double)move->change);
	add_series_names(object, s);
	json_add_string(object, "direction", direction(change));
	cJSON_AddNumberToObject(object, "change", change->at.change);
	return object;
}

static cJSON *incident_json(const struct history *history,
			    const struct history_incident *incident)
{
	const struct git_meta *last = &history->commits[incident->range_last];
	cJSON *object = cJSON_CreateObject();
	cJSON *moves;

	json_add_string(object, "commit", last->commit);
	json_add_string(object, "commit_time", last->commit_time);
	json_add_string(object, "subject", last->subject);
	json_add_string(object, "author",
			author_of(history, incident->range_last));
	add_range(object, history, incident->range_first,
		  incident->range_last);
	cJSON_AddNumberToObject(
		object, "range_commits",
		(double)(incident->range_last - incident->range_first + 1));
	cJSON_AddNumberToObject(object, "regressions",
				(double)incident->regressions);
	moves = cJSON_AddArrayToObject(object, "moves");
	for (size_t i = 0; i < incident->moves_nr; i++)
		cJSON_AddItemToArray(moves,
				     move_json(history, &incident->moves[i]));
	return object;
}


static void write_series(struct json_writer *w, const struct history_json *it,
			 const struct history_series *s)
{
	const struct history *history = it->history;

	json_write_object(w);
	write_string(w, "suite", s->suite);
	write_string(w, "benchmark", s->benchmark);
	write_string(w, "variant", s->variant);
	write_string(w, "device", s->device);
	write_string(w, "machine", s->machine);
	write_string(w, "metric", s->metric);
	write_string(w, "unit", s->unit);
	write_string(w, "better", better_names[s->better]);
	json_write_key(w, "points");
	json_write_array(w);
	for (size_t i = 0; i < s->points_nr; i++)
		write_point(w, it, &s->points[i]);
	json_write_end(w);
	json_write_key(w, "change_points");
	json_write_array(w);
	for (size_t i = 0; i < s->changes_nr; i++)
		write_change(w, history, s, &s->changes[i]);
	json_write_end(w);
	json_write_end(w);
}

/* Appends item (freed) as json_print() prints it `indent` further in
 * than on its own: each line after its first starts with `indent` (the
 * printer's newlines are all layout; strings escape theirs). */
static void print_nested(struct strbuf *out, cJSON *item, const char *indent)
{
	struct strbuf text = STRBUF_INIT;
	const char *at, *newline;

	json_print(&text, item);
	cJSON_Delete(item);
	strbuf_setlen(&text, text.len - 1); /* json_print()'s last newline */
	for (at = text.buf; (newline = strchr(at, '\n')); at = newline + 1) {
		strbuf_add(out, at, (size_t)(newline + 1 - at));
		strbuf_addstr(out, indent);
	}
	strbuf_addstr(out, at);
	strbuf_release(&text);
}

static void add_commit_field(struct history_json *it, size_t slot,
			     const char *s)
{
	if (!s) {
		it->commit_at[slot] = SIZE_MAX;
		return;
	}
	it->commit_at[slot] = it->commit_text.len;
	strbuf_add(&it->commit_text, s, strlen(s) + 1);
}

void history_json_start(struct history_json *it,
			const struct history *history)
{
	memset(it, 0, sizeof(*it));
	it->history = history;
	strbuf_init(&it->commit_text, 0);
	it->commit_at = xmalloc((history->commits_nr ? 3 * history->commits_nr
						     : 1) *
				sizeof(*it->commit_at));
	for (size_t i = 0; i < history->commits_nr; i++) {
		const struct git_meta *commit = &history->commits[i];

		add_commit_field(it, 3 * i, commit->commit);
		add_commit_field(it, 3 * i + 1, commit->commit_time);
		add_commit_field(it, 3 * i + 2, commit->subject);
	}
}

void history_json_release(struct history_json *it)
{
	strbuf_release(&it->commit_text);
	free(it->commit_at);
	it->commit_at = NULL;
}

/*
 * The document in pieces: the head, one series per piece (a series of
 * 10,000 commits is about 2 MB of text) and the incidents with the end,
 * each written by a writer of its own at the depth the piece sits at.
 */
bool history_json_next(void *ctx, struct strbuf *out)
{
	struct history_json *it = ctx;
	const struct history *history = it->history;
	struct json_writer w;
	cJSON *incidents;

	if (it->next == 0) {
		strbuf_addstr(out, "{\n\t\"benchgate_history\":\t1,\n"
				   "\t\"branch\":\t");
		json_write_string(out, history->branch);
		strbuf_addstr(out, ",\n\t\"series\":\t[");
	} else if (it->next <= history->series_nr) {
		if (it->next > 1)
			strbuf_addstr(out, ", ");
		/* an element of the top-level object's array */
		json_writer_init(&w, out, 2);
		write_series(&w, it, &history->series[it->next - 1]);
	} else {
		strbuf_addstr(out, "],\n\t\"incidents\":\t");
		incidents = cJSON_CreateArray();
		for (size_t i = 0; i < history->incidents_nr; i++)
			cJSON_AddItemToArray(
				incidents,
				incident_json(history,
					      &history->incidents[i]));
		print_nested(out, incidents, "\t");
		strbuf_addstr(out, "\n}\n");
		return false;
	}
	it->next++;
	return true;
}
