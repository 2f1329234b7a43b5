/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/app/bisect_print.h"

#include "harness/app/outcome.h"
#include "harness/util/alloc.h"
#include "harness/util/terminal.h"
#include "reporters/bisect_view.h"

#include <stdio.h>
#include <stdlib.h>

/* The view borrows every string from bisect; free its two arrays. */
static void view_of(struct bisect_view *view, const struct bisect *bisect)
{
	struct bisect_view_commit *commits;
	struct bisect_view_metric *metrics;

	commits = xcalloc(bisect->nr, sizeof(*commits));
	for (size_t i = 0; i < bisect->nr; i++) {
		const struct bisect_commit *c = &bisect->commits[i];

		commits[i] = (struct bisect_view_commit){
			.commit = c->git.commit,
			.subject = c->git.subject,
			.author = c->author,
			.commit_time = c->git.commit_time,
			.mark = c->mark == BISECT_UNTESTED
					? NULL
					: bisect_mark_name(c->mark),
			.why = c->why,
		};
	}
	metrics = xcalloc(bisect->metrics_nr, sizeof(*metrics));
	for (size_t i = 0; i < bisect->metrics_nr; i++) {
		const struct bisect_metric *m = &bisect->metrics[i];

		metrics[i] = (struct bisect_view_metric){
			.benchmark = m->benchmark,
			.variant = m->variant,
			.device = m->device,
			.metric = m->metric,
			.unit = m->unit,
			.good = m->good,
			.bad = m->bad,
			.change = m->change,
		};
	}
	*view = (struct bisect_view){
		.commits = commits,
		.nr = bisect->nr,
		.metrics = metrics,
		.metrics_nr = bisect->metrics_nr,
		.first = bisect->first,
		.last = bisect->last,
		.measured = bisect->measured,
		.verdict = bisect->verdict,
	};
}

int app_bisect(const struct bisect_options *opts)
{
	struct strbuf text = STRBUF_INIT;
	struct bisect *bisect = NULL;
	struct bisect_view view;
	int error;

	if ((error = bisect_run(&bisect, opts)) < 0)
		goto done;
	view_of(&view, bisect);
	bisect_view_terminal(&text, &view);
	terminal_write(stdout, text.buf, 0);
	free((void *)view.commits);
	free((void *)view.metrics);
	error = OUTCOME_PASS;
done:
	bisect_free(bisect);
	strbuf_release(&text);
	return error;
}
