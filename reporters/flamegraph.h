#ifndef BENCHGATE_FLAMEGRAPH_H
#define BENCHGATE_FLAMEGRAPH_H

#include "harness/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Flame graphs: sampled call stacks folded into counts per distinct stack,
 * and drawn as an SVG in which each frame is a box as wide as the samples
 * it was on the stack for, its callers below it. This is how users find
 * the code a regression made slower: the box that grew.
 *
 * The folded form is the one Brendan Gregg's FlameGraph tools read and
 * write, one stack per line, root first, frames separated by ';', then a
 * space and the count:
 *
 *     mlp_bench;main;infer;matmul 412
 *
 * Frame names never hold ';' or a newline (folding replaces them with ':'
 * and ' '); any other byte is kept, and the SVG escapes it.
 */

struct flamegraph_stack {
	char *frames;           /* "root;...;leaf" */
	uint64_t count;
};

/* Distinct stacks in the order they were first seen, and their total. */
struct flamegraph {
	struct flamegraph_stack *stacks;
	size_t nr, alloc;
	uint64_t total;
	size_t *index;          /* hash of frames -> stacks[] + 1; 0: free */
	size_t index_size;
};

#define FLAMEGRAPH_INIT { NULL, 0, 0, 0, NULL, 0 }

void flamegraph_init(struct flamegraph *fg);
void flamegraph_release(struct flamegraph *fg);

/* Adds count samples to the stack "root;...;leaf" (copied). A stack seen
 * before gets the counts summed. A zero count is ignored. */
void flamegraph_add(struct flamegraph *fg, const char *frames,
		    uint64_t count);

/*
 * Folds the text `perf script` prints for a `perf record -g` profile:
 * samples separated by blank lines, each a header line that starts with
 * the command name and its pid ("mlp_bench 4242 [001] 12.5: 250000
 * cpu-clock:"), then one line per frame, leaf first, indented: an address,
 * the symbol with an optional "+0x1f" offset, and the object in
 * parentheses ("\t  4011a6 matmul+0x36 (/build/mlp_bench)").
 *
 * Each sample counts 1 (frames are sized by samples, whatever the event's
 * period), on the stack "<command>;<outermost frame>;...;<leaf>", as
 * stackcollapse-perf.pl folds it: offsets are dropped, kernel frames get
 * "_[k]" appended ("do_syscall_64_[k]"), an unknown symbol is named after
 * its object ("[libc.so.6]"), or "[unknown]". A sample
 * without frames counts on "<command>" alone. Lines that fit neither form
 * (perf's own warnings) are skipped.
 *
 * BG_ERROR only when `in` cannot be read.
 */
int flamegraph_fold_perf_script(struct flamegraph *fg, FILE *in);

/* Parses folded text ("a;b;c 12" lines; blank lines skipped). BG_EINPUT,
 * naming the line, for a line without a count. */
int flamegraph_parse_folded(struct flamegraph *fg, const char *text,
			    size_t len);

/* Appends the folded form, stacks sorted as the graph draws them (frame
 * by frame, alphabetically), so equal profiles give equal files. */
void flamegraph_write_folded(const struct flamegraph *fg, struct strbuf *out);

struct flamegraph_options {
	const char *title;      /* NULL: "Flame Graph" */
	const char *subtitle;   /* a line under the title; NULL: none */
	int width;              /* pixels; 0: 1200 */
};

#define FLAMEGRAPH_OPTIONS_INIT { NULL, NULL, 0 }

/*
 * Appends a self-contained SVG (no external reference of any kind) of the
 * flame graph. The root box "all" spans every sample; above each frame
 * stand its callees, sorted alphabetically left to right like
 * flamegraph.pl, each as wide as its share of the samples. Boxes narrower
 * than 0.1 pixel are left out. Every box has a <title> tooltip
 * "name (N samples, P%)"; kernel frames ("_[k]") are orange, the others
 * in flamegraph.pl's warm colours. Hovering shows the tooltip in the
 * details line too, and
 * a small inline script (without which everything but the search and zoom
 * still reads) searches frames by regular expression and zooms into a
 * frame on click. Colours come from a hash of each name, so the same
 * profile always renders to the same bytes.
 */
void flamegraph_render_svg(const struct flamegraph *fg,
			   const struct flamegraph_options *options,
			   struct strbuf *out);

#endif
