/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/bisect_view.h"

#include "harness/util/format.h"
#include "harness/util/name.h"

#include <string.h>

static void add_commit(struct strbuf *out, const struct bisect_view_commit *c)
{
	strbuf_addf(out, "%s \"", c->commit);
	name_quote(out, c->subject ? c->subject : "");
	strbuf_addstr(out, "\" by ");
	name_quote(out, c->author ? c->author : "");
	strbuf_addf(out, ", %s\n",
		    c->commit_time ? c->commit_time : "unknown time");
}

static void add_metric(struct strbuf *out,
		       const struct bisect_view_metric *m)
{
	struct strbuf label = STRBUF_INIT;

	strbuf_addf(&label, "%s/%s/%s %s", m->benchmark, m->variant,
		    m->device, m->metric);
	strbuf_addstr(out, "  ");
	name_quote(out, label.buf);
	strbuf_addstr(out, ": ");
	format_quantity(out, m->good, m->unit);
	strbuf_addstr(out, " at good, ");
	format_quantity(out, m->bad, m->unit);
	strbuf_addstr(out, " at bad (");
	format_change(out, m->change);
	strbuf_addstr(out, ")\n");
	strbuf_release(&label);
}

void bisect_view_terminal(struct strbuf *out, const struct bisect_view *bisect)
{
	size_t tested = 0, skipped = 0, undecided = 0;

	if (bisect->first == bisect->last) {
		strbuf_addstr(out, "first bad commit: ");
		add_commit(out, &bisect->commits[bisect->first]);
		if (bisect->verdict) {
			strbuf_addstr(out, "confidence: ");
			name_quote(out, bisect->verdict);
			strbuf_addch(out, '\n');
		}
	} else {
		strbuf_addf(out,
			    "the first bad commit is one of these %zu (the "
			    "ones before the last could not be tested, or "
			    "not classified at the gate's confidence):\n",
			    bisect->last - bisect->first + 1);
		for (size_t i = bisect->first; i <= bisect->last; i++) {
			strbuf_addstr(out, "  ");
			add_commit(out, &bisect->commits[i]);
		}
	}
	strbuf_addstr(out, "regressed from good to bad:\n");
	for (size_t i = 0; i < bisect->metrics_nr; i++)
		add_metric(out, &bisect->metrics[i]);
	for (size_t i = 0; i < bisect->nr; i++) {
		const char *mark = bisect->commits[i].mark;

		tested += mark != NULL;
		skipped += mark && !strcmp(mark, "skipped");
		undecided += mark && !strcmp(mark, "undecided");
	}
	strbuf_addf(out, "tested %zu of %zu commits (the ends included), "
			 "%zu measured, %zu skipped",
		    tested, bisect->nr, bisect->measured, skipped);
	if (undecided)
		strbuf_addf(out, ", %zu undecided", undecided);
	strbuf_addstr(out, ":\n");
	for (size_t i = 0; i < bisect->nr; i++) {
		const struct bisect_view_commit *c = &bisect->commits[i];

		if (!c->mark)
			continue;
		strbuf_addf(out, "  %.12s %-7s ", c->commit, c->mark);
		name_quote(out, c->why ? c->why : "");
		strbuf_addch(out, '\n');
	}
}
