#ifndef BENCHGATE_FLAMEGRAPH_H
#define BENCHGATE_FLAMEGRAPH_H

#include "harness/store/result.h"
#include "harness/run/stacks.h"
#include "harness/util/strbuf.h"

/*
 * Flame graphs: folded stacks (harness/run/stacks.h) drawn as an SVG in which
 * each frame is a box as wide as the samples it was on the stack for, its
 * callers below it. This is how users find the code a regression made
 * slower: the box that grew.
 *
 * A profiling run only records (harness/run/profile.h: perf.data and the
 * folded stacks); the graphs are drawn after every case has run and
 * before the result is stored, by flamegraph_draw_profiles(), which the
 * command layer calls in between (harness/cli/cli.c, for run and check).
 */

struct flamegraph_options {
	const char *title;    /* NULL: "Flame Graph" */
	const char *subtitle; /* a line under the title; NULL: none */
	int width;	      /* pixels; 0: 1200 */
};

#define FLAMEGRAPH_OPTIONS_INIT \
	{                       \
		NULL, NULL, 0   \
	}

/*
 * Appends a self-contained SVG (no external reference of any kind) of the
 * flame graph of stacks. The root box "all" spans every sample; above each
 * frame stand its callees, sorted alphabetically left to right like
 * flamegraph.pl, each as wide as its share of the samples. Boxes narrower
 * than 0.1 pixel are left out. Every box has a <title> tooltip
 * "name (N samples, P%)"; kernel frames (STACKS_KERNEL_SUFFIX) are orange,
 * the others in flamegraph.pl's warm colours. Hovering shows the tooltip in
 * the details line too, and a small inline script (without which everything
 * but the search and zoom still reads) searches frames by regular
 * expression and zooms into a frame on click. Colours come from a hash of
 * each name, so the same profile always renders to the same bytes.
 */
void flamegraph_render_svg(const struct stacks *stacks,
			   const struct flamegraph_options *options,
			   struct strbuf *out);

/*
 * Draws the flame graph of every case of result that has folded stacks
 * (its "folded" artifact, profile.h): flamegraph.svg beside that file,
 * titled "Flame graph of <benchmark>/<variant>/<device>" and subtitled
 * "<sampling>: <N> samples", where sampling says how every case's stacks
 * were sampled (profiler_describe_perf()). Lists it as the case's
 * "flamegraph" artifact just before "folded", where readers look first;
 * relative artifact paths, read and written, are relative to result_dir
 * (the result file's directory).
 *
 * A graph that cannot be drawn (the stacks unreadable, the SVG not
 * written) is not listed: the case's profile_note says why, unless it
 * already holds a reason (the first is the one worth reading), and a
 * warning is printed. Never fails: a profile never fails a case.
 */
void flamegraph_draw_profiles(struct result *result, const char *result_dir,
			      const char *sampling);

#endif
