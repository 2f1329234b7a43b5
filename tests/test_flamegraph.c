/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Flame graphs: the SVG drawn from folded stacks, and the graphs drawn for
 * the profiles of a result after its runs.
 *
 * Box positions are worked out by hand from flamegraph.pl's layout, which
 * the renderer follows: 1200 pixels wide less two 10-pixel margins, each
 * box as wide as its share of the samples.
 */
#include "harness/util/error.h"
#include "harness/model/result.h"
#include "harness/run/stacks.h"
#include "reporters/flamegraph.h"
#include "harness/app/profiles.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XMLLINT "/usr/bin/xmllint"

TestSuite(flamegraph);

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

/* Stacks as the command layer hands them to the renderer (cli.c): in
 * stacks_sorted() order. */
static void to_drawn(const struct stacks *stacks,
		     struct flamegraph_stacks *drawn)
{
	const struct stack **sorted = stacks_sorted(stacks);

	for (size_t i = 0; i < stacks->nr; i++)
		flamegraph_stacks_add(drawn, sorted[i]->frames,
				      sorted[i]->count);
	free(sorted);
}

static int parse_folded(struct flamegraph_stacks *drawn, const char *text,
			size_t len)
{
	struct stacks stacks = STACKS_INIT;
	int error = stacks_parse_folded(&stacks, text, len);

	if (!error)
		to_drawn(&stacks, drawn);
	stacks_release(&stacks);
	return error;
}

static void render(const char *folded, struct strbuf *svg)
{
	struct flamegraph_stacks drawn = FLAMEGRAPH_STACKS_INIT;

	cr_assert_eq(parse_folded(&drawn, folded, strlen(folded)), BG_OK);
	flamegraph_render_svg(&drawn, NULL, svg);
	flamegraph_stacks_release(&drawn);
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
	cr_assert_null(strstr(at + 1, title.buf), "two boxes for '%s'", label);
	rect = strstr(at, "<rect ");
	cr_assert_not_null(rect);
	cr_assert_eq(sscanf(rect, "<rect x=\"%lf\" y=\"%*d\" width=\"%lf\"", x,
			    width),
		     2, "%.80s", rect);
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
	       "bad \xff\xfe utf8;\xe2\x80\xae"
	       "reversed 1\n",
	       &svg);
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

	render("main;work 5\nmain;idle 2\nmain 1\n", &one);
	/* the same samples, met in another order */
	render("main 1\nmain;idle 1\nmain;work 5\nmain;idle 1\n", &two);
	cr_assert_eq(one.len, two.len);
	cr_assert(!memcmp(one.buf, two.buf, one.len));
	strbuf_release(&one);
	strbuf_release(&two);
}

Test(flamegraph, titles_and_an_empty_profile)
{
	struct flamegraph_stacks stacks = FLAMEGRAPH_STACKS_INIT;
	struct flamegraph_options options = FLAMEGRAPH_OPTIONS_INIT;
	struct strbuf svg = STRBUF_INIT;

	options.title = "Flame graph of <b>";
	options.subtitle = "perf & co";
	options.width = 600;
	flamegraph_render_svg(&stacks, &options, &svg);
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

/* The fixture's samples as perf 6.1 prints them (see test_stacks.c): two
 * on one stack, one in the kernel. */
static const char perf_script[] =
	"spin 7 [000] 1.000000:     250000 cpu-clock: \n"
	"\t  401126 main+0x16 (/w/spin)\n"
	"\t  7f0000029d90 __libc_start_call_main+0x80 (/lib/libc.so.6)\n"
	"\n"
	"spin 7 [000] 1.001000:     250000 cpu-clock: \n"
	"\t  401130 main+0x20 (/w/spin)\n"
	"\t  7f0000029d90 __libc_start_call_main+0x80 (/lib/libc.so.6)\n"
	"\n"
	"spin 7 [000] 1.002000:     250000 cpu-clock: \n"
	"\tffffffff81000c82 do_syscall_64+0x5c ([kernel.kallsyms])\n"
	"\t  401140 main+0x30 (/w/spin)\n";

static void fold_fixture(struct stacks *stacks)
{
	FILE *in = fmemopen((void *)perf_script, strlen(perf_script), "r");

	cr_assert_not_null(in);
	cr_assert_eq(stacks_fold_perf_script(stacks, in), BG_OK);
	fclose(in);
}

/* The run writes folded.txt and the graph is drawn from that file later:
 * the file must lose nothing the drawing uses. */
Test(flamegraph, folded_file_draws_the_same_bytes_as_the_folded_samples)
{
	struct stacks folded = STACKS_INIT;
	struct flamegraph_stacks drawn = FLAMEGRAPH_STACKS_INIT;
	struct flamegraph_stacks read_back = FLAMEGRAPH_STACKS_INIT;
	struct strbuf text = STRBUF_INIT, one = STRBUF_INIT, two = STRBUF_INIT;

	fold_fixture(&folded);
	to_drawn(&folded, &drawn);
	flamegraph_render_svg(&drawn, NULL, &one);
	stacks_write_folded(&folded, &text);
	cr_assert_eq(parse_folded(&read_back, text.buf, text.len), BG_OK);
	flamegraph_render_svg(&read_back, NULL, &two);
	cr_assert_eq(read_back.total, 3);
	cr_assert_eq(one.len, two.len);
	cr_assert(!memcmp(one.buf, two.buf, one.len));
	cr_assert(strstr(one.buf, "<title>do_syscall_64_[k] (1 sample, "));
	stacks_release(&folded);
	flamegraph_stacks_release(&drawn);
	flamegraph_stacks_release(&read_back);
	strbuf_release(&text);
	strbuf_release(&one);
	strbuf_release(&two);
}

#define SAMPLING "perf record -g -e cpu-clock -F 999"

/* A result as a profiling run leaves it (profile.h): folded.txt under
 * dir/artifacts/r/b__v__cpu, listed after a callgrind artifact. */
static struct result *profiled_result(const char *dir, const char *folded)
{
	struct result *result = result_new();
	struct result_case *rcase;
	struct strbuf path = STRBUF_INIT;

	rcase = result_add_case(result, "b", "v", "cpu");
	result_case_add_artifact(rcase, "callgrind", "/elsewhere/cg.out", dir);
	strbuf_addf(&path, "%s/artifacts/r/b__v__cpu", dir);
	if (folded)
		free(test_write_file(path.buf, "folded.txt", folded));
	strbuf_addstr(&path, "/folded.txt");
	result_case_add_artifact(rcase, "folded", path.buf, dir);
	strbuf_setlen(&path, path.len - strlen("/folded.txt"));
	result_case_add_artifact(rcase, "profile", path.buf, dir);
	/* a case that was not profiled gets nothing */
	result_add_case(result, "b", "w", "cpu");
	strbuf_release(&path);
	return result;
}

Test(flamegraph, profiles_get_their_graph_listed_before_the_stacks)
{
	static const char folded[] = "spin;main 2\nspin;main;x_[k] 1\n";
	char *dir = test_tmpdir();
	struct result *result = profiled_result(dir, folded);
	const struct result_case *rcase = &result->cases[0];
	struct flamegraph_options options = FLAMEGRAPH_OPTIONS_INIT;
	struct flamegraph_stacks stacks = FLAMEGRAPH_STACKS_INIT;
	struct strbuf path = STRBUF_INIT, expected = STRBUF_INIT;
	char *svg;

	app_draw_flamegraphs(result, dir, SAMPLING, NULL);
	cr_assert_null(rcase->profile_note, "%s", rcase->profile_note);
	cr_assert_eq(rcase->artifacts_nr, 4);
	cr_assert_str_eq(rcase->artifacts[0].kind, "callgrind");
	cr_assert_str_eq(rcase->artifacts[1].kind, "flamegraph");
	cr_assert_str_eq(rcase->artifacts[1].path,
			 "artifacts/r/b__v__cpu/flamegraph.svg");
	cr_assert_str_eq(rcase->artifacts[2].kind, "folded");
	cr_assert_str_eq(rcase->artifacts[3].kind, "profile");
	cr_assert_eq(result->cases[1].artifacts_nr, 0);

	/* the graph is the renderer's, titled after the case */
	cr_assert_eq(parse_folded(&stacks, folded, strlen(folded)), BG_OK);
	options.title = "Flame graph of b/v/cpu";
	options.subtitle = SAMPLING ": 3 samples";
	flamegraph_render_svg(&stacks, &options, &expected);
	strbuf_addf(&path, "%s/%s", dir, rcase->artifacts[1].path);
	svg = test_read_file(path.buf);
	cr_assert_not_null(svg);
	cr_assert_str_eq(svg, expected.buf);

	free(svg);
	flamegraph_stacks_release(&stacks);
	strbuf_release(&path);
	strbuf_release(&expected);
	result_free(result);
	test_rmtree(dir);
	free(dir);
}

Test(flamegraph, a_graph_that_cannot_be_drawn_is_a_note)
{
	char *dir = test_tmpdir();
	struct result *result = profiled_result(dir, NULL);
	struct result_case *rcase = &result->cases[0];

	app_draw_flamegraphs(result, dir, SAMPLING, NULL);
	cr_assert_eq(rcase->artifacts_nr, 3, "no flame graph is listed");
	cr_assert_not_null(rcase->profile_note);
	cr_assert(strstr(rcase->profile_note, "no flame graph: "), "%s",
		  rcase->profile_note);
	cr_assert(strstr(rcase->profile_note, "folded.txt"), "%s",
		  rcase->profile_note);
	result_free(result);

	/* the first reason stays: later ones follow from it */
	result = profiled_result(dir, "a;b 1\nno count\n");
	rcase = &result->cases[0];
	rcase->profile_note = strdup("perf recorded no samples");
	app_draw_flamegraphs(result, dir, SAMPLING, NULL);
	cr_assert_str_eq(rcase->profile_note, "perf recorded no samples");
	cr_assert_eq(rcase->artifacts_nr, 3);

	result_free(result);
	test_rmtree(dir);
	free(dir);
}

Test(flamegraph, python_stacks_are_drawn_with_their_own_caption)
{
	static const char folded[] = "python3 b.py;<module> (b.py:1);"
				     "preprocess (b.py:3) 5\n";
	char *dir = test_tmpdir(), *svg;
	struct result *result = result_new();
	struct result_case *rcase = result_add_case(result, "b", "v", "cpu");
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/artifacts/r/b__v__cpu", dir);
	free(test_write_file(path.buf, "folded-python.txt", folded));
	strbuf_addstr(&path, "/folded-python.txt");
	result_case_add_artifact(rcase, "python-folded", path.buf, dir);
	/* no perf here: "folded" stacks would get no graph, Python's do */
	app_draw_flamegraphs(result, dir, NULL, "the Python sampler");
	cr_assert_null(rcase->profile_note, "%s", rcase->profile_note);
	cr_assert_eq(rcase->artifacts_nr, 2);
	cr_assert_str_eq(rcase->artifacts[0].kind, "flamegraph");
	cr_assert_str_eq(rcase->artifacts[1].kind, "python-folded");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s", dir, rcase->artifacts[0].path);
	svg = test_read_file(path.buf);
	cr_assert(strstr(svg, "the Python sampler: 5 samples"), "%s", svg);
	cr_assert(strstr(svg, "<title>preprocess (b.py:3) ("), "%s", svg);
	free(svg);
	result_free(result);
	strbuf_release(&path);
	test_rmtree(dir);
	free(dir);
}
