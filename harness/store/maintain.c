/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `store prune` and `store compact` (maintain.h): select old results,
 * then remove them or compact their samples in one store_rewrite().
 */
#include "harness/store/maintain.h"
#include "harness/store/store.h"

#include "harness/git/gitref.h"
#include "harness/git/repo.h"
#include "harness/model/result.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/isotime.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Compaction */

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts block[0..n) and moves `keep` evenly spaced order statistics of it
 * (keep 1: its median) to out; returns keep. */
static size_t order_statistics(double *block, size_t n, size_t keep,
			       double *out)
{
	qsort(block, n, sizeof(*block), compare_doubles);
	if (keep == 1) {
		out[0] = block[(n - 1) / 2];
		return 1;
	}
	for (size_t j = 0; j < keep; j++)
		out[j] = block[(j * (n - 1) + (keep - 1) / 2) / (keep - 1)];
	return keep;
}

/* Compacts m to about `samples` samples; false when that would not make
 * it smaller (never fewer than one a run). */
static bool compact_metric(struct metric_samples *m, size_t samples)
{
	size_t runs = m->runs, blocks = 1, per = samples, kept = 0;
	double *out;

	if (runs > 1 && m->nr % runs == 0) {
		blocks = runs;
		per = samples / runs ? samples / runs : 1;
	}
	if (per >= m->nr / blocks)
		return false;
	out = xcalloc(per * blocks, sizeof(*out));
	for (size_t b = 0; b < blocks; b++) {
		size_t n = m->nr / blocks;

		kept += order_statistics(m->samples + b * n, n, per,
					 out + kept);
	}
	if (!m->compacted_from)
		m->compacted_from = m->nr;
	memcpy(m->samples, out, kept * sizeof(*out));
	m->nr = kept;
	free(out);
	return true;
}

/* Compacts every metric of r that has more than `samples` samples and
 * would shrink (maintain.h); returns how many did. */
static size_t compact_result(struct result *r, size_t samples)
{
	size_t compacted = 0;

	for (size_t i = 0; i < r->cases_nr; i++) {
		struct result_case *c = &r->cases[i];

		for (size_t j = 0; j < c->metrics_nr; j++)
			if (c->metrics[j].nr > samples &&
			    compact_metric(&c->metrics[j], samples))
				compacted++;
	}
	return compacted;
}

/* Selection */

/* The commits that tags point at (peeled), as 40-hex strings. */
struct tagged {
	git_repository *repo;
	struct store_paths commits;
};

static int add_tag(const char *name, git_oid *oid, void *data)
{
	struct tagged *tagged = data;
	git_object *object = NULL, *commit = NULL;
	char hex[GIT_OID_HEXSZ + 1];

	(void)name;
	if (git_object_lookup(&object, tagged->repo, oid, GIT_OBJECT_ANY) == 0 &&
	    git_object_peel(&commit, object, GIT_OBJECT_COMMIT) == 0) {
		git_oid_tostr(hex, sizeof(hex), git_object_id(commit));
		ALLOC_GROW(tagged->commits.items, tagged->commits.nr + 1,
			   tagged->commits.alloc);
		tagged->commits.items[tagged->commits.nr++] = xstrdup(hex);
	}
	git_object_free(commit);
	git_object_free(object);
	return 0;
}

static int read_tagged(struct tagged *tagged)
{
	int error = BG_OK;

	if (repo_open(&tagged->repo, NULL) < 0)
		return bg_input_error("--keep-tagged: the current directory is "
				      "not in a git repository: %s",
				      gitref_message());
	if (git_tag_foreach(tagged->repo, add_tag, tagged) < 0)
		error = bg_error("--keep-tagged: cannot read the tags: %s",
				 gitref_message());
	git_repository_free(tagged->repo);
	tagged->repo = NULL;
	return error;
}

static bool is_tagged(const struct tagged *tagged, const char *commit)
{
	for (size_t i = 0; i < tagged->commits.nr; i++)
		if (!strcmp(tagged->commits.items[i], commit))
			return true;
	return false;
}

/* The start of the entry's run, from its file name's timestamp
 * "20261122T073422Z"; false when it does not read. */
static bool entry_time(const struct store_entry *e, double *seconds)
{
	struct strbuf iso = STRBUF_INIT;
	const char *t = e->timestamp;
	bool ok;

	strbuf_addf(&iso, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", t, t + 4, t + 6,
		    t + 9, t + 11, t + 13);
	ok = iso8601_parse(iso.buf, seconds);
	strbuf_release(&iso);
	return ok;
}

/* Whether o selects the entry by age and tags. */
static bool selected(const struct store_maintain_options *o,
		     const struct tagged *tagged, const struct store_entry *e,
		     double now, struct store_maintain_report *report)
{
	double started;

	if (o->older_than_s >= 0 &&
	    (!entry_time(e, &started) || started > now - o->older_than_s))
		return false;
	if (o->keep_tagged && is_tagged(tagged, e->commit)) {
		report->kept_tagged++;
		return false;
	}
	return true;
}

/* Changes */

/*
 * The change of one selected entry into *change (its document allocated
 * for a compaction); false when there is nothing to change (nothing to
 * compact, or a result that does not read: reported, left alone).
 */
static bool plan_change(const struct store_maintain_options *o,
			struct store *store, const struct store_entry *e,
			struct store_change *change,
			struct store_maintain_report *report)
{
	struct strbuf doc = STRBUF_INIT, *compacted = NULL;
	struct result *r = NULL;
	bool changed = false;

	if (store_read_file(store, e, NULL, &doc) < 0 ||
	    result_parse(&r, doc.buf, doc.len, e->path) < 0) {
		bg_warn("%s; left as it is", bg_error_last());
		goto done;
	}
	report->results++;
	change->entry = e;
	change->document = NULL;
	if (o->action == STORE_PRUNE) {
		uint64_t document, owned;

		if (store_entry_size(store, e, &document, &owned) < 0) {
			bg_warn("%s; only its document is counted",
				bg_error_last());
			document = doc.len;
		}
		report->bytes_before += document + owned;
		changed = true;
	} else if (compact_result(r, o->samples)) {
		compacted = xcalloc(1, sizeof(*compacted));
		strbuf_init(compacted, 0);
		result_to_json(r, compacted);
		report->bytes_before += doc.len;
		report->bytes_after += compacted->len;
		change->document = compacted;
		changed = true;
	}
done:
	bg_error_clear();
	result_free(r);
	strbuf_release(&doc);
	return changed;
}

static void print_change(const struct store_maintain_options *o,
			 const struct store_change *c, uint64_t before,
			 uint64_t after)
{
	const char *verb = o->action == STORE_PRUNE ? "remove" : "compact";

	if (!o->listing)
		return;
	fprintf(o->listing, "%s%s %s: %llu bytes", o->dry_run ? "would " : "",
		verb, c->entry->path, (unsigned long long)before);
	if (c->document)
		fprintf(o->listing, " -> %llu", (unsigned long long)after);
	fputc('\n', o->listing);
}

/* The changes of the selected entries, listed as they are planned. */
static void plan_changes(const struct store_maintain_options *o,
			 struct store *store, const struct tagged *tagged,
			 const struct store_entry *entries, size_t nr,
			 struct store_change *changes, size_t *changes_nr,
			 struct store_maintain_report *report)
{
	double now = (double)time(NULL);

	for (size_t i = 0; i < nr; i++) {
		uint64_t before = report->bytes_before;
		uint64_t after = report->bytes_after;
		struct store_change *c = &changes[*changes_nr];

		if (!selected(o, tagged, &entries[i], now, report)) {
			report->results++;
			continue;
		}
		if (!plan_change(o, store, &entries[i], c, report))
			continue;
		(*changes_nr)++;
		print_change(o, c, report->bytes_before - before,
			     report->bytes_after - after);
	}
	report->selected = *changes_nr;
}

static void message_of(const struct store_maintain_options *o, size_t n,
		       struct strbuf *message)
{
	strbuf_addf(message, "benchgate store %s: %zu result%s",
		    o->action == STORE_PRUNE ? "prune" : "compact", n,
		    n == 1 ? "" : "s");
	if (o->older_than_s >= 0)
		strbuf_addf(message, " started over %.0f s ago",
			    o->older_than_s);
	if (o->action == STORE_COMPACT)
		strbuf_addf(message, ", at most %zu samples kept per metric",
			    o->samples);
	strbuf_addch(message, '\n');
}

int store_maintain(const struct store_maintain_options *o,
		   struct store_maintain_report *report)
{
	struct strbuf spec = STRBUF_INIT, message = STRBUF_INIT;
	struct tagged tagged = { 0 };
	struct store_entry *entries = NULL;
	struct store_change *changes = NULL;
	struct store *store = NULL;
	size_t nr = 0, changes_nr = 0;
	int error;

	memset(report, 0, sizeof(*report));
	if (o->action == STORE_COMPACT && !o->samples)
		return bg_input_error("store compact: --samples must be at "
				      "least 1");
	if (o->store)
		strbuf_addstr(&spec, o->store);
	else
		store_default_spec(&spec, NULL);
	if ((o->keep_tagged && (error = read_tagged(&tagged)) < 0) ||
	    (error = store_open(&store, spec.buf)) < 0)
		goto done;
	if (o->squash && strncmp(store_location(store), "git:", 4)) {
		error = bg_input_error("--squash: store '%s' is not a git: "
				       "store: it has no history to squash",
				       store_location(store));
		goto done;
	}
	report->database_sizes = store_spec_is_postgres(spec.buf);
	if ((error = store_list(store, NULL, &entries, &nr)) < 0)
		goto done;
	changes = xcalloc(nr ? nr : 1, sizeof(*changes));
	plan_changes(o, store, &tagged, entries, nr, changes, &changes_nr,
		     report);
	message_of(o, changes_nr, &message);
	if (!o->dry_run && (changes_nr || o->squash))
		error = store_rewrite(store, changes, changes_nr, message.buf,
				      o->squash ? STORE_REWRITE_SQUASH : 0);
done:
	for (size_t i = 0; i < changes_nr; i++)
		if (changes[i].document) {
			strbuf_release((struct strbuf *)changes[i].document);
			free((struct strbuf *)changes[i].document);
		}
	free(changes);
	store_entries_free(entries, nr);
	store_free(store);
	store_paths_release(&tagged.commits);
	strbuf_release(&spec);
	strbuf_release(&message);
	return error;
}
