/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Atom feed (RFC 4287) of a dashboard's change points (dashboard.h):
 * a reader subscribed to it learns of a regression the morning after.
 */
#include "reporters/feed.h"

#include "harness/util/format.h"
#include "harness/util/hash.h"
#include "reporters/escape.h"

#include <stdlib.h>
#include <string.h>

/* An entry's id stays the same from one publish to the next: the series'
 * page name and the commit, so a reader does not show it twice. */
static void add_entry_id(struct strbuf *out, const struct history_series *s,
			 const char *commit)
{
	struct strbuf name = STRBUF_INIT;

	dashboard_series_name(&name, s);
	strbuf_addf(&name, "\n%s", commit);
	strbuf_addf(out, "urn:benchgate:change:%016llx",
		    (unsigned long long)hash_fnv1a64(name.buf, name.len));
	strbuf_release(&name);
}

static void add_entry(struct strbuf *out, const struct history *history,
		      const struct dashboard_change_ref *ref,
		      const char *repo_url)
{
	const struct history_series *s = &history->series[ref->series];
	const struct history_change *c = &s->changes[ref->change];
	const struct git_meta *commit = dashboard_change_commit(history, ref);
	struct strbuf text = STRBUF_INIT, url = STRBUF_INIT;

	strbuf_addstr(out, "<entry>\n<id>");
	add_entry_id(out, s, commit->commit);
	strbuf_addstr(out, "</id>\n<title>");
	strbuf_addf(&text, "%s ",
		    c->regression ? "Regression" : "Improvement");
	format_change(&text, c->at.change);
	strbuf_addf(&text, " in %s/%s/%s %s on %s at %.12s", s->benchmark,
		    s->variant, s->device, s->metric, s->machine,
		    commit->commit);
	escape_xml_text(out, text.buf);
	strbuf_addstr(out, "</title>\n<updated>");
	escape_xml_text(out, commit->commit_time);
	strbuf_addstr(out, "</updated>\n<link rel=\"alternate\" "
			   "type=\"text/html\" href=\"series/");
	dashboard_series_name(out, s);
	strbuf_addstr(out, ".html\"/>\n");
	if (report_commit_url(&url, commit->commit, repo_url)) {
		strbuf_addstr(out, "<link rel=\"related\" href=\"");
		escape_xml_attr(out, url.buf);
		strbuf_addstr(out, "\"/>\n");
	}
	strbuf_reset(&text);
	strbuf_addstr(&text, "Suite ");
	strbuf_addstr(&text, s->suite);
	strbuf_addstr(&text, ": ");
	format_quantity(&text, c->at.before, s->unit);
	strbuf_addstr(&text, " -> ");
	format_quantity(&text, c->at.after, s->unit);
	strbuf_addstr(&text, ". Commit: ");
	strbuf_addstr(&text, commit->subject ? commit->subject : "");
	strbuf_addstr(out, "<summary>");
	escape_xml_text(out, text.buf);
	strbuf_addstr(out, "</summary>\n</entry>\n");
	strbuf_release(&text);
	strbuf_release(&url);
}

void feed_render(struct strbuf *out, const struct history *history,
		 const char *repo_url)
{
	struct dashboard_change_ref *refs;
	size_t nr = dashboard_changes_newest_first(history, &refs);
	/* The newest change point's time, else the branch's newest commit,
	 * else the epoch: never the time of publishing, which would make
	 * every republish a new feed. */
	const char *updated =
		nr ? dashboard_change_commit(history, &refs[0])->commit_time
		: history->commits_nr
			? history->commits[history->commits_nr - 1].commit_time
			: "1970-01-01T00:00:00Z";

	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
			   "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n"
			   "<title>");
	strbuf_addstr(out, "Change points of ");
	escape_xml_text(out, history->branch);
	/* An IRI holds no arbitrary branch name: its hash stands for it. */
	strbuf_addf(out, "</title>\n<id>urn:benchgate:feed:%016llx</id>\n"
			 "<updated>",
		    (unsigned long long)hash_fnv1a64(
			    history->branch, strlen(history->branch)));
	escape_xml_text(out, updated);
	strbuf_addstr(out, "</updated>\n<author><name>benchgate</name></author>\n"
			   "<link rel=\"self\" href=\"feed.xml\"/>\n"
			   "<link rel=\"alternate\" type=\"text/html\" "
			   "href=\"index.html\"/>\n");
	for (size_t i = 0; i < nr && i < FEED_ENTRIES; i++)
		add_entry(out, history, &refs[i], repo_url);
	strbuf_addstr(out, "</feed>\n");
	free(refs);
}
