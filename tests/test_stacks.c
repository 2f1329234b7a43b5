/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Folded stacks: folding `perf script` text, and the folded form's round
 * trip and order.
 *
 * The perf script fixtures follow the text perf 6.1 prints for
 * `perf record -g` samples (a header, then one indented "address
 * symbol+offset (object)" line per frame, leaf first, a blank line after
 * each sample); the expected folded lines are what stackcollapse-perf.pl
 * (FlameGraph, Brendan Gregg) makes of the same text with --kernel, counted
 * by hand.
 */
#include "harness/util/error.h"
#include "harness/run/stacks.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(stacks);

static void fold_text(struct stacks *stacks, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	cr_assert_not_null(in);
	cr_assert_eq(stacks_fold_perf_script(stacks, in), BG_OK);
	fclose(in);
}

static char *folded_of(const struct stacks *stacks)
{
	struct strbuf out = STRBUF_INIT;

	stacks_write_folded(stacks, &out);
	return strbuf_detach(&out, NULL);
}

static const char perf_script[] =
	"mlp_bench 4242 [001] 12.500000:     250000 cpu-clock: \n"
	"\t          4011a6 matmul+0x36 (/build/mlp_bench)\n"
	"\t          401200 infer+0x20 (/build/mlp_bench)\n"
	"\t          401010 main+0x10 (/build/mlp_bench)\n"
	"\t    7f0000029d90 __libc_start_call_main+0x80 "
	"(/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\n"
	"mlp_bench 4242 [001] 12.501000:     250000 cpu-clock: \n"
	"\t          4011b0 matmul+0x40 (/build/mlp_bench)\n"
	"\t          401200 infer+0x20 (/build/mlp_bench)\n"
	"\t          401010 main+0x10 (/build/mlp_bench)\n"
	"\t    7f0000029d90 __libc_start_call_main+0x80 "
	"(/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\n"
	/* a command with a space, a pid/tid pair, C++ names with spaces, a
	 * kernel frame and nameless code */
	"my worker 4243/4250 [000] 12.502000:     250000 cpu-clock: \n"
	"\tffffffff81000c82 do_syscall_64+0x5c ([kernel.kallsyms])\n"
	"\t           9f550 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	"\t          401300 std::vector<int, std::allocator<int> >::"
	"push_back(int const&)+0x12 (/build/mlp_bench)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\n"
	/* ';' would split the frame: it becomes ':' */
	"mlp_bench 4242 [001] 12.503000:     250000 cpu-clock: \n"
	"\t          4012a0 relu;x+0x1 (/build/mlp_bench)\n"
	"\n"
	/* a sample without a call chain counts on its command alone */
	"true 99 [000] 12.504000:     250000 cpu-clock: \n";

Test(stacks, folds_perf_script_samples_into_exact_counts)
{
	struct stacks stacks = STACKS_INIT;
	char *folded;

	fold_text(&stacks, perf_script);
	folded = folded_of(&stacks);
	cr_assert_str_eq(
		folded,
		"mlp_bench;__libc_start_call_main;main;infer;matmul 2\n"
		"mlp_bench;relu:x 1\n"
		"my worker;[unknown];std::vector<int, std::allocator<int> >::"
		"push_back(int const&);[libc.so.6];do_syscall_64_[k] 1\n"
		"true 1\n");
	cr_assert_eq(stacks.total, 5);
	cr_assert_eq(stacks.nr, 4, "the two matmul samples are one stack");
	free(folded);
	stacks_release(&stacks);
}

Test(stacks, skips_what_is_not_a_sample)
{
	struct stacks stacks = STACKS_INIT;
	char *folded;

	fold_text(&stacks,
		  "Warning:\n"
		  "\tan indented line before any sample\n"
		  "\n\n"
		  "spin 7 [000] 1.0: 1 cpu-clock:\r\n"
		  "\t  11 main+0x1 (/spin)\r\n"
		  "\t  12 __libc_start_call_main+0x80 (/libc.so.6)\r\n");
	folded = folded_of(&stacks);
	cr_assert_str_eq(folded, "spin;__libc_start_call_main;main 1\n");
	free(folded);
	stacks_release(&stacks);
}

Test(stacks, folded_text_round_trips_and_sums_repeated_stacks)
{
	struct stacks stacks = STACKS_INIT;
	static const char text[] =
		"b;x 3\na;z 1\r\n\na;z 2\nname with spaces 7\n";
	char *folded;

	cr_assert_eq(stacks_parse_folded(&stacks, text, strlen(text)), BG_OK);
	folded = folded_of(&stacks);
	cr_assert_str_eq(folded, "a;z 3\nb;x 3\nname with spaces 7\n");
	cr_assert_eq(stacks.total, 13);
	stacks_release(&stacks);

	cr_assert_eq(stacks_parse_folded(&stacks, folded, strlen(folded)),
		     BG_OK);
	free(folded);
	folded = folded_of(&stacks);
	cr_assert_str_eq(folded, "a;z 3\nb;x 3\nname with spaces 7\n");
	free(folded);
	stacks_release(&stacks);

	cr_assert_eq(stacks_parse_folded(&stacks, "a;b 1\na;b\n", 10),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "line 2"), "%s", bg_error_last());
	stacks_release(&stacks);
}

Test(stacks, a_frame_sorts_before_longer_names_it_begins)
{
	static const char text[] = "a-b 1\na;x 1\na 1\n";
	struct stacks stacks = STACKS_INIT;
	char *folded;

	/* byte order would put "a-b" first: '-' sorts before ';' */
	cr_assert_eq(stacks_parse_folded(&stacks, text, strlen(text)), BG_OK);
	folded = folded_of(&stacks);
	cr_assert_str_eq(folded, "a 1\na;x 1\na-b 1\n");
	free(folded);
	stacks_release(&stacks);
}
