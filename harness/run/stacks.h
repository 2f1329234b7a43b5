/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STACKS_H
#define BENCHGATE_STACKS_H

#include "harness/util/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Folded stacks: sampled call stacks counted per distinct stack, which is
 * what a profiling run records (profile.h) and what the flamegraph
 * reporter draws. Kept apart from the drawing so that the harness records
 * and the reporters draw, with the folded file between them as the whole
 * interface.
 *
 * The folded form is the one Brendan Gregg's FlameGraph tools read and
 * write, one stack per line, root first, frames separated by ';', then a
 * space and the count:
 *
 *     mlp_bench;main;infer;matmul 412
 *
 * Frame names never hold ';' or a newline (folding replaces them with ':'
 * and ' '); any other byte is kept, so whoever shows a name escapes it.
 */

/* stackcollapse-perf.pl's mark at the end of a kernel frame's name:
 * readers (and the flame graph's colours) tell kernel time apart by it. */
#define STACKS_KERNEL_SUFFIX "_[k]"

struct stack {
	char *frames; /* "root;...;leaf" */
	uint64_t count;
};

/* Distinct stacks in the order they were first seen, and their total. */
struct stacks {
	struct stack *items;
	size_t nr, alloc;
	uint64_t total;
	size_t *index; /* hash of frames -> items[] + 1; 0: free */
	size_t index_size;
};

#define STACKS_INIT                    \
	{                              \
		NULL, 0, 0, 0, NULL, 0 \
	}

/* Frees the stacks and leaves an empty set, ready for reuse. */
void stacks_release(struct stacks *stacks);

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
 * STACKS_KERNEL_SUFFIX appended ("do_syscall_64_[k]"), an unknown symbol
 * is named after its object ("[libc.so.6]"), or "[unknown]". A sample
 * without frames counts on "<command>" alone. Lines that fit neither form
 * (perf's own warnings) are skipped.
 *
 * BG_ERROR only when `in` cannot be read.
 */
int stacks_fold_perf_script(struct stacks *stacks, FILE *in);

/* Parses folded text ("a;b;c 12" lines; blank lines skipped), as
 * stacks_write_folded() writes it, adding to stacks: a stack seen before
 * gets the counts summed, a zero count is ignored. BG_EINPUT, naming the
 * line, for a line without a count; the lines before it stay added. */
int stacks_parse_folded(struct stacks *stacks, const char *text, size_t len);

/* Appends the folded form in stacks_sorted() order, so equal profiles give
 * equal files. */
void stacks_write_folded(const struct stacks *stacks, struct strbuf *out);

/*
 * The stacks in the order a flame graph draws them: frame by frame,
 * alphabetically by byte, a frame before every longer name it begins
 * ("a;x" before "a-b") and a stack before its callees' ("a" before "a;x").
 * Sharing the order with the folded file lets a renderer merge frames in
 * one pass. Returns an array of nr pointers borrowed from stacks; free()
 * the array alone.
 */
const struct stack **stacks_sorted(const struct stacks *stacks);

#endif
