/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The flame graphs of a session's profiling runs (profiles.h), drawn by
 * the layer that drives the session, between session_finish() and
 * session_store(): the session's result is the only one changed, and
 * before anything stored it.
 */
#include "harness/app/profiles.h"

#include "harness/model/result.h"
#include "harness/run/profile.h"
#include "harness/run/session.h"
#include "harness/run/stacks.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/strbuf.h"
#include "reporters/flamegraph.h"

#include <stdlib.h>
#include <string.h>

/* The run layer reads a profile's stacks, the flamegraph renderer draws
 * them: handed over in the order they are drawn in. */
static int read_folded_stacks(struct flamegraph_stacks *out, const char *path)
{
	struct stacks stacks = STACKS_INIT;
	struct strbuf text = STRBUF_INIT;
	const struct stack **sorted = NULL;
	int error;

	if ((error = strbuf_read_file(&text, path)) < 0 ||
	    (error = stacks_parse_folded(&stacks, text.buf, text.len)) < 0)
		goto done;
	sorted = stacks_sorted(&stacks);
	for (size_t i = 0; i < stacks.nr; i++)
		flamegraph_stacks_add(out, sorted[i]->frames, sorted[i]->count);
done:
	free(sorted);
	stacks_release(&stacks);
	strbuf_release(&text);
	return error;
}

/* Where a listed artifact is: relative paths start at the result's
 * directory, as result_case_add_artifact() made them. */
static void artifact_path(struct strbuf *out, const char *result_dir,
			  const char *path)
{
	if (path[0] != '/' && result_dir)
		strbuf_addf(out, "%s/", result_dir);
	strbuf_addstr(out, path);
}

static int draw_flamegraph(struct result_case *rcase, const char *result_dir,
			   const char *folded_path, const char *sampling)
{
	struct flamegraph_stacks stacks = FLAMEGRAPH_STACKS_INIT;
	struct flamegraph_options options = FLAMEGRAPH_OPTIONS_INIT;
	struct strbuf path = STRBUF_INIT, svg = STRBUF_INIT;
	struct strbuf title = STRBUF_INIT, subtitle = STRBUF_INIT;
	const char *slash;
	int error;

	artifact_path(&path, result_dir, folded_path);
	if ((error = read_folded_stacks(&stacks, path.buf)) < 0)
		goto done;
	strbuf_addf(&title, "Flame graph of %s/%s/%s", rcase->benchmark,
		    rcase->variant, rcase->device);
	strbuf_addf(&subtitle, "%s: %llu samples", sampling,
		    (unsigned long long)stacks.total);
	options.title = title.buf;
	options.subtitle = subtitle.buf;
	flamegraph_render_svg(&stacks, &options, &svg);
	/* beside the stacks, so a case's profile stays in one directory */
	slash = strrchr(path.buf, '/');
	strbuf_setlen(&path, slash ? (size_t)(slash + 1 - path.buf) : 0);
	strbuf_addstr(&path, "flamegraph.svg");
	if ((error = write_file_atomic(path.buf, svg.buf, svg.len)) < 0)
		goto done;
	result_case_add_artifact(rcase, "flamegraph", path.buf, result_dir);
done:
	flamegraph_stacks_release(&stacks);
	strbuf_release(&path);
	strbuf_release(&svg);
	strbuf_release(&title);
	strbuf_release(&subtitle);
	return error;
}

/* Moves the artifact listed last to position at; those from at on move
 * one place down. */
static void move_last_artifact(struct result_case *rcase, size_t at)
{
	struct result_artifact last = rcase->artifacts[rcase->artifacts_nr - 1];

	memmove(&rcase->artifacts[at + 1], &rcase->artifacts[at],
		(rcase->artifacts_nr - 1 - at) * sizeof(last));
	rcase->artifacts[at] = last;
}

/* Said as profile.h says why a profile is missing; the first reason is
 * the one worth reading, later ones follow from it. */
static void note_no_graph(struct result_case *rcase, const char *why)
{
	struct strbuf note = STRBUF_INIT;

	if (rcase->profile_note)
		return;
	strbuf_addf(&note, "no flame graph: %s", why);
	bg_warn("%s/%s/%s: %s", rcase->benchmark, rcase->variant, rcase->device,
		note.buf);
	rcase->profile_note = strbuf_detach(&note, NULL);
}

void app_draw_flamegraphs(struct result *result, const char *result_dir,
			  const char *sampling, const char *python_sampling)
{
	for (size_t i = 0; i < result->cases_nr; i++) {
		struct result_case *rcase = &result->cases[i];
		const char *caption = NULL;
		size_t folded = 0;

		for (; folded < rcase->artifacts_nr && !caption; folded++) {
			const char *kind = rcase->artifacts[folded].kind;

			if (!strcmp(kind, "python-folded"))
				caption = python_sampling;
			else if (!strcmp(kind, "folded"))
				caption = sampling;
		}
		if (!caption)
			continue;
		folded--;
		if (draw_flamegraph(rcase, result_dir,
				    rcase->artifacts[folded].path, caption) < 0)
			note_no_graph(rcase, bg_error_last());
		else /* readers look for the graph before its stacks */
			move_last_artifact(rcase, folded);
	}
}

void app_draw_profiles(struct session *session)
{
	struct strbuf sampling = STRBUF_INIT;
	const char *perf = NULL;

	if (profiler_describe_perf(session->profiler, &sampling) == BG_OK)
		perf = sampling.buf;
	app_draw_flamegraphs(session->result, session->result_dir, perf,
			     PROFILE_PYTHON_SAMPLING);
	/* the baseline tree's profiles lie beside the candidate's */
	if (session->baseline)
		app_draw_flamegraphs(session->baseline, session->result_dir,
				     perf, PROFILE_PYTHON_SAMPLING);
	strbuf_release(&sampling);
}
