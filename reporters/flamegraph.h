/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_FLAMEGRAPH_H
#define BENCHGATE_FLAMEGRAPH_H

#include "harness/util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Flame graphs: folded stacks drawn as an SVG in which each frame is a box
 * as wide as the samples it was on the stack for, its callers below it.
 * This is how users find the code a regression made slower: the box that
 * grew.
 *
 * A profiling run only records (harness/run/profile.h: perf.data and the
 * folded stacks, read by harness/run/stacks.h); the graphs are drawn after
 * every case has run and before the result is stored, by
 * app_draw_flamegraphs() (harness/app/profiles.h), which the use cases
 * that drive a session (run and check) call in between. The renderer takes the
 * stacks as plain data, so that drawing needs nothing of the run layer.
 */

/* The frames of kernel functions end in this, as stackcollapse-perf.pl
 * marks them (and harness/run/stacks.c folds them): they are drawn in
 * orange. */
#define FLAMEGRAPH_KERNEL_SUFFIX "_[k]"

/* One distinct call stack and the samples taken on it. */
struct flamegraph_stack {
	char *frames; /* "root;...;leaf", ';' between frames, never in one */
	uint64_t count;
};

/* The stacks of one profile, in the order a flame graph draws them: frame
 * by frame, alphabetically by byte, a frame before every longer name it
 * begins and a stack before its callees' (harness/run/stacks.h's
 * stacks_sorted() order, which its folded files are written in). */
struct flamegraph_stacks {
	struct flamegraph_stack *items;
	size_t nr, alloc;
	uint64_t total; /* the samples of every stack */
};

#define FLAMEGRAPH_STACKS_INIT \
	{                      \
		NULL, 0, 0, 0  \
	}

/* Appends a copy of frames with its count, after the stacks added before:
 * the caller adds them in drawing order, each stack once. */
void flamegraph_stacks_add(struct flamegraph_stacks *stacks, const char *frames,
			   uint64_t count);

/* Frees the stacks and leaves none. */
void flamegraph_stacks_release(struct flamegraph_stacks *stacks);

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
 * "name (N samples, P%)"; kernel frames (FLAMEGRAPH_KERNEL_SUFFIX) are
 * orange, the others in flamegraph.pl's warm colours. Hovering shows the
 * tooltip in the details line too, and a small inline script (without
 * which everything but the search and zoom still reads) searches frames by
 * regular expression and zooms into a frame on click. Colours come from a
 * hash of each name, so the same profile always renders to the same bytes.
 */
void flamegraph_render_svg(const struct flamegraph_stacks *stacks,
			   const struct flamegraph_options *options,
			   struct strbuf *out);

#endif
