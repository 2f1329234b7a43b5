/*
 * Flame graphs: folding `perf script` text into stacks, and the SVG.
 *
 * The perf script fixtures follow the text perf 6.1 prints for
 * `perf record -g` samples (a header, then one indented "address
 * symbol+offset (object)" line per frame, leaf first, a blank line after
 * each sample); the expected folded lines are what stackcollapse-perf.pl
 * (FlameGraph, Brendan Gregg) makes of the same text with --kernel, counted
 * by hand.
 */
#include "harness/error.h"
#include "reporters/flamegraph.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XMLLINT "/usr/bin/xmllint"

TestSuite(flamegraph);

static void fold_text(struct flamegraph *fg, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	cr_assert_not_null(in);
	cr_assert_eq(flamegraph_fold_perf_script(fg, in), BG_OK);
	fclose(in);
}

static char *folded_of(const struct flamegraph *fg)
{
	struct strbuf out = STRBUF_INIT;

	flamegraph_write_folded(fg, &out);
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

Test(flamegraph, folds_perf_script_samples_into_exact_counts)
{
	struct flamegraph fg = FLAMEGRAPH_INIT;
	char *folded;

	fold_text(&fg, perf_script);
	folded = folded_of(&fg);
	cr_assert_str_eq(folded,
		"mlp_bench;__libc_start_call_main;main;infer;matmul 2\n"
		"mlp_bench;relu:x 1\n"
		"my worker;[unknown];std::vector<int, std::allocator<int> >::"
		"push_back(int const&);[libc.so.6];do_syscall_64_[k] 1\n"
		"true 1\n");
	cr_assert_eq(fg.total, 5);
	cr_assert_eq(fg.nr, 4, "the two matmul samples are one stack");
	free(folded);
	flamegraph_release(&fg);
}

Test(flamegraph, skips_what_is_not_a_sample)
{
	struct flamegraph fg = FLAMEGRAPH_INIT;
	char *folded;

	fold_text(&fg,
		  "Warning:\n"
		  "\tan indented line before any sample\n"
		  "\n\n"
		  "spin 7 [000] 1.0: 1 cpu-clock:\r\n"
		  "\t  11 main+0x1 (/spin)\r\n"
		  "\t  12 __libc_start_call_main+0x80 (/libc.so.6)\r\n");
	folded = folded_of(&fg);
	cr_assert_str_eq(folded, "spin;__libc_start_call_main;main 1\n");
	free(folded);
	flamegraph_release(&fg);
}

Test(flamegraph, folded_text_round_trips_and_sums_repeated_stacks)
{
	struct flamegraph fg = FLAMEGRAPH_INIT;
	static const char text[] =
		"b;x 3\na;z 1\r\n\na;z 2\nname with spaces 7\n";
	char *folded;

	cr_assert_eq(flamegraph_parse_folded(&fg, text, strlen(text)), BG_OK);
	folded = folded_of(&fg);
	cr_assert_str_eq(folded, "a;z 3\nb;x 3\nname with spaces 7\n");
	cr_assert_eq(fg.total, 13);
	flamegraph_release(&fg);

	cr_assert_eq(flamegraph_parse_folded(&fg, folded, strlen(folded)),
		     BG_OK);
	free(folded);
	folded = folded_of(&fg);
	cr_assert_str_eq(folded, "a;z 3\nb;x 3\nname with spaces 7\n");
	free(folded);
	flamegraph_release(&fg);

	cr_assert_eq(flamegraph_parse_folded(&fg, "a;b 1\na;b\n", 10),
		     BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "line 2"), "%s", bg_error_last());
	flamegraph_release(&fg);
}

static void assert_well_formed(const struct strbuf *svg)
{
	char *dir = test_tmpdir();
	char *path = test_write_file(dir, "graph.svg", svg->buf);
	const char *argv[] = { XMLLINT, "--noout", path, NULL };
	struct test_output out;

	cr_assert_eq(access(XMLLINT, X_OK), 0,
		     "xmllint is needed: install libxml2-utils");
	test_run(&out, NULL, NULL, argv);
	cr_assert_eq(out.exit_code, 0, "the SVG is not well-formed XML:\n%s",
		     out.err.buf);
	test_output_release(&out);
	test_rmtree(dir);
	free(dir);
	free(path);
}

static void render(const char *folded, struct strbuf *svg)
{
	struct flamegraph fg = FLAMEGRAPH_INIT;

	cr_assert_eq(flamegraph_parse_folded(&fg, folded, strlen(folded)),
		     BG_OK);
	flamegraph_render_svg(&fg, NULL, svg);
	flamegraph_release(&fg);
}

/* The x and width of the box whose tooltip starts with "<label> (". */
static void box_of(const struct strbuf *svg, const char *label, double *x,
		   double *width)
{
	struct strbuf title = STRBUF_INIT;
	const char *at, *rect;

	strbuf_addf(&title, "<title>%s (", label);
	at = strstr(svg->buf, title.buf);
	cr_assert_not_null(at, "no box for '%s'", label);
	cr_assert_null(strstr(at + 1, title.buf), "two boxes for '%s'",
		       label);
	rect = strstr(at, "<rect ");
	cr_assert_not_null(rect);
	cr_assert_eq(sscanf(rect, "<rect x=\"%lf\" y=\"%*d\" width=\"%lf\"",
			    x, width), 2, "%.80s", rect);
	strbuf_release(&title);
}

Test(flamegraph, svg_boxes_are_as_wide_as_their_samples)
{
	struct strbuf svg = STRBUF_INIT;
	/* 8 samples over 1180 pixels (1200 less two 10-pixel margins) */
	const double per_sample = 1180.0 / 8;
	double x, width;

	render("a;b 3\na;c 1\nd 4\n", &svg);
	assert_well_formed(&svg);
	box_of(&svg, "all", &x, &width);
	cr_assert(fabs(x - 10) < 0.006 && fabs(width - 1180) < 0.006);
	box_of(&svg, "a", &x, &width);
	cr_assert(fabs(x - 10) < 0.006 && fabs(width - 4 * per_sample) < 0.006,
		  "a: %g %g", x, width);
	box_of(&svg, "b", &x, &width);
	cr_assert(fabs(x - 10) < 0.006 && fabs(width - 3 * per_sample) < 0.006);
	box_of(&svg, "c", &x, &width);
	cr_assert(fabs(x - (10 + 3 * per_sample)) < 0.006 &&
		  fabs(width - per_sample) < 0.006);
	box_of(&svg, "d", &x, &width);
	cr_assert(fabs(x - (10 + 4 * per_sample)) < 0.006 &&
		  fabs(width - 4 * per_sample) < 0.006);
	cr_assert(strstr(svg.buf, "<title>b (3 samples, 37.50%)</title>"));
	cr_assert(strstr(svg.buf, "<title>c (1 sample, 12.50%)</title>"));
	strbuf_release(&svg);
}

Test(flamegraph, callees_are_sorted_alphabetically_per_level)
{
	struct strbuf svg = STRBUF_INIT;
	double a, ab, b, y, z, width;

	/* a frame sorts before a longer name it begins ("a" < "a-b"),
	 * although '-' sorts before ';' in the folded text */
	render("b;x 1\na;z 1\na-b 1\na;y 1\n", &svg);
	box_of(&svg, "a", &a, &width);
	box_of(&svg, "a-b", &ab, &width);
	box_of(&svg, "b", &b, &width);
	box_of(&svg, "y", &y, &width);
	box_of(&svg, "z", &z, &width);
	cr_assert(a < ab && ab < b, "a %g, a-b %g, b %g", a, ab, b);
	cr_assert(y < z && a == y);
	strbuf_release(&svg);
}

Test(flamegraph, hostile_names_are_escaped)
{
	struct strbuf svg = STRBUF_INIT;

	render("<script>alert(1)</script>;a&b 2\n"
	       "q\"uo'te;]]>;\x01\x7f ctl 1\n"
	       "bad \xff\xfe utf8;\xe2\x80\xae" "reversed 1\n", &svg);
	assert_well_formed(&svg);
	cr_assert_null(strstr(svg.buf, "<script>alert"));
	cr_assert(strstr(svg.buf, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	cr_assert(strstr(svg.buf, "a&amp;b"));
	cr_assert_null(strstr(svg.buf, "\xe2\x80\xae"),
		       "no bidirectional override reaches the SVG");
	/* the only CDATA section is the renderer's own script */
	cr_assert_null(strstr(strstr(svg.buf, "]]>") + 3, "]]>"));
	strbuf_release(&svg);
}

Test(flamegraph, the_same_profile_renders_to_the_same_bytes)
{
	struct strbuf one = STRBUF_INIT, two = STRBUF_INIT;
	struct flamegraph fg = FLAMEGRAPH_INIT;

	render("main;work 5\nmain;idle 2\nmain 1\n", &one);
	/* the same samples, met in another order */
	flamegraph_add(&fg, "main", 1);
	flamegraph_add(&fg, "main;idle", 1);
	flamegraph_add(&fg, "main;work", 5);
	flamegraph_add(&fg, "main;idle", 1);
	flamegraph_render_svg(&fg, NULL, &two);
	cr_assert_eq(one.len, two.len);
	cr_assert(!memcmp(one.buf, two.buf, one.len));
	flamegraph_release(&fg);
	strbuf_release(&one);
	strbuf_release(&two);
}

Test(flamegraph, titles_and_an_empty_profile)
{
	struct flamegraph fg = FLAMEGRAPH_INIT;
	struct flamegraph_options options = FLAMEGRAPH_OPTIONS_INIT;
	struct strbuf svg = STRBUF_INIT;

	options.title = "Flame graph of <b>";
	options.subtitle = "perf & co";
	options.width = 600;
	flamegraph_render_svg(&fg, &options, &svg);
	assert_well_formed(&svg);
	cr_assert(strstr(svg.buf, "width=\"600\""));
	cr_assert(strstr(svg.buf, "Flame graph of &lt;b&gt;"));
	cr_assert(strstr(svg.buf, "perf &amp; co"));
	cr_assert(strstr(svg.buf, "No samples were recorded."));
	cr_assert_null(strstr(svg.buf, "<g class=\"f\">"));
	strbuf_release(&svg);
}

Test(flamegraph, boxes_too_narrow_to_see_are_left_out)
{
	struct strbuf svg = STRBUF_INIT;

	/* 1 of 20000 samples is 0.059 pixels, under the 0.1 pixel minimum */
	render("big 19999\ntiny 1\n", &svg);
	cr_assert(strstr(svg.buf, "<title>big ("));
	cr_assert_null(strstr(svg.buf, "<title>tiny ("));
	strbuf_release(&svg);
}
