/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `run --profile` of a case that runs Python samples its
 * Python stacks (python/benchgate_profile.py as the run's sitecustomize)
 * and draws them (docs/how-to/profile.md, "Profiling Python").
 *
 * The benchmark is a script with two named functions, `infer` and
 * `preprocess`, where SLOW=1 plants a slowdown of 20x in `preprocess`:
 * the flame graph's widest frame must move from `infer` to `preprocess`.
 * The work is counted in iterations, not timed, so a busy machine slows
 * both alike and the shares hold. With torch (Debian's python3-torch,
 * /usr/bin/python3 first as in test_torch_suite.c) a real model's run
 * also leaves torch.profiler's operator table and, on a CPU build, no
 * CUDA memory snapshot, with and without a profiler of its own (the
 * documented example).
 */
#include "harness/util/error.h"
#include "harness/model/result.h"
#include "harness/run/stacks.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(python_profile, .init = test_dir_setup, .fini = test_dir_teardown,
	  .timeout = 600);

/* Work counted in iterations: preprocess is 1/10 of infer's, or 20 times
 * that with SLOW=1 (twice infer's). */
static const char bench_py[] =
	"import os, workload\n"
	"\n"
	"def preprocess(n):\n"
	"    total = 0\n"
	"    for i in range(n):\n"
	"        total += (i * 7) % 13\n"
	"    return total\n"
	"\n"
	"def infer(n):\n"
	"    total = 0\n"
	"    for i in range(n):\n"
	"        total += (i * 5) % 11\n"
	"    return total\n"
	"\n"
	"def main():\n"
	"    slow = 20 if os.environ.get('SLOW') == '1' else 1\n"
	"    for _ in range(100):\n"
	"        preprocess(5000 * slow)\n"
	"        infer(50000)\n"
	"\n"
	"main()\n";

/* Its own PYTHONPATH, a template, goes after the sampler's: the
 * profiling run must still find lib/workload.py. */
static const char bench_suite[] =
	"{\"benchgate\": 1, \"suite\": \"py\",\n"
	" \"benchmarks\": [{\"name\": \"pipeline\", \"warmup\": 0, "
	"\"runs\": 1,\n"
	"   \"env\": {\"PYTHONPATH\": \"${suite_dir}/lib\"},\n"
	"   \"command\": [\"%s\", \"bench.py\"],\n"
	"   \"metrics\": [{\"name\": \"wall\", \"from\": \"wall\"}]}]}\n";

/* The text of an artifact of the stored result (paths relative to the
 * result file's directory); NULL when the case has none of that kind. */
static char *artifact_text(const char *result_path,
			   const struct result_case *rcase, const char *kind)
{
	const struct result_artifact *artifact = test_artifact_of(rcase, kind);
	struct strbuf path = STRBUF_INIT;
	const char *slash = strrchr(result_path, '/');
	char *text;

	if (!artifact)
		return NULL;
	strbuf_add(&path, result_path, (size_t)(slash - result_path));
	strbuf_addf(&path, "/%s", artifact->path);
	text = test_read_file(path.buf);
	strbuf_release(&path);
	return text;
}

/* `run --profile` of suite.json in the test's directory, env added: the
 * stored result, its path in result_path. */
static struct result *profile_run(const char *const *env,
				  struct strbuf *result_path)
{
	struct test_output out;
	struct result *result = NULL;
	const char *line;

	test_benchgate(&out, test_dir, env,
		       (const char *const[]){ "run", "suite.json", "--profile",
					      "--store", "store", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_null(strstr(out.err.buf, "benchgate: python profile:"),
		       "the sampler failed: %s", out.err.buf);
	line = strstr(out.out.buf, "stored ");
	cr_assert_not_null(line, "%s", out.out.buf);
	line += strlen("stored ");
	strbuf_reset(result_path);
	if (*line != '/')
		strbuf_addf(result_path, "%s/", test_dir);
	strbuf_add(result_path, line, strcspn(line, "\n"));
	cr_assert_eq(result_load(&result, result_path->buf), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(result->cases_nr, 1);
	/* the profiling run itself went well: it found lib/ too */
	cr_assert_null(result->cases[0].profile_note, "%s",
		       result->cases[0].profile_note);
	test_output_release(&out);
	return result;
}

/* The function of the stacks' frames under `<module>` with the most
 * samples in and under it (the widest frame of the flame graph below the
 * script's main), as "name (file:line)". */
static void widest_function(const char *folded, struct strbuf *out)
{
	struct stacks stacks = STACKS_INIT;
	const char *names[] = { "preprocess (bench.py:", "infer (bench.py:" };
	uint64_t counts[2] = { 0, 0 };

	cr_assert_eq(stacks_parse_folded(&stacks, folded, strlen(folded)),
		     BG_OK, "%s", bg_error_last());
	for (size_t i = 0; i < stacks.nr; i++)
		for (size_t j = 0; j < 2; j++)
			if (strstr(stacks.items[i].frames, names[j]))
				counts[j] += stacks.items[i].count;
	cr_assert_gt(counts[0] + counts[1], 10, "too few samples: %s", folded);
	strbuf_reset(out);
	strbuf_addstr(out, names[counts[1] > counts[0]]);
	stacks_release(&stacks);
}

Test(python_profile, the_flame_graph_names_the_slowed_function)
{
	static const char *const slow[] = { "SLOW=1", NULL };
	struct strbuf suite = STRBUF_INIT, result_path = STRBUF_INIT;
	struct strbuf widest = STRBUF_INIT;
	const char *python = test_python_that("import sys");
	struct result *result;
	char *folded, *svg;

	if (!python)
		cr_skip_test("no /usr/bin/python3");
	strbuf_addf(&suite, bench_suite, python);
	free(test_write_file(test_dir, "suite.json", suite.buf));
	free(test_write_file(test_dir, "bench.py", bench_py));
	free(test_write_file(test_dir, "lib/workload.py", "NAME = 'w'\n"));

	result = profile_run(NULL, &result_path);
	folded = artifact_text(result_path.buf, &result->cases[0],
			       "python-folded");
	cr_assert_not_null(folded, "no Python stacks (%s)",
			   result->cases[0].profile_note);
	/* root, module, main, then the functions, with file and line */
	cr_assert(strstr(folded, ";<module> (bench.py:1);main (bench.py:15);"
				 "infer (bench.py:9) "),
		  "%s", folded);
	widest_function(folded, &widest);
	cr_assert_str_eq(widest.buf,
			 "infer (bench.py:", "before the slowdown: %s", folded);
	free(folded);
	result_free(result);

	result = profile_run(slow, &result_path);
	folded = artifact_text(result_path.buf, &result->cases[0],
			       "python-folded");
	cr_assert_not_null(folded);
	widest_function(folded, &widest);
	cr_assert_str_eq(widest.buf,
			 "preprocess (bench.py:", "after the slowdown: %s",
			 folded);
	svg = artifact_text(result_path.buf, &result->cases[0], "flamegraph");
	cr_assert_not_null(svg, "no flame graph: %s",
			   result->cases[0].profile_note);
	cr_assert(strstr(svg, "<title>preprocess (bench.py:3) ("), "%.2000s",
		  svg);
	cr_assert(strstr(svg, "benchgate&#39;s Python sampler") ||
			  strstr(svg, "benchgate's Python sampler"),
		  "%.2000s", svg);
	/* the sampler's directory is gone, its files merged */
	cr_assert_null(strstr(result->cases[0].artifacts[0].path,
			      ".benchgate-python"));
	free(svg);
	free(folded);
	result_free(result);
	strbuf_release(&suite);
	strbuf_release(&result_path);
	strbuf_release(&widest);
}

/* A small model on the CPU, with the documented example of a profiler of
 * its own when OWN=1 (docs/how-to/profile.md). */
static const char torch_py[] =
	"import os\n"
	"import torch\n"
	"\n"
	"net = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),\n"
	"                          torch.nn.Linear(256, 10))\n"
	"batch = torch.randn(32, 64)\n"
	"\n"
	"def run_batches():\n"
	"    with torch.no_grad():\n"
	"        for _ in range(100):\n"
	"            net(batch).sum()\n"
	"\n"
	"out = os.environ.get('BENCHGATE_PROFILE_DIR')\n"
	"if out and os.environ.get('OWN') == '1':\n"
	"    trace = torch.profiler.tensorboard_trace_handler(out)\n"
	"    with torch.profiler.profile(on_trace_ready=trace):\n"
	"        run_batches()\n"
	"    memory = torch.cuda.memory\n"
	"    if torch.cuda.is_available() and hasattr(memory, "
	"'_dump_snapshot'):\n"
	"        memory._dump_snapshot(os.path.join(out, 'memory.pickle'))\n"
	"else:\n"
	"    run_batches()\n";

Test(python_profile, a_torch_model_run_writes_the_operator_table)
{
	static const char *const own[] = { "OWN=1", NULL };
	struct strbuf suite = STRBUF_INIT, result_path = STRBUF_INIT;
	const char *python = test_python_that("import torch");
	struct result *result;
	char *table, *folded;

	if (!python)
		cr_skip_test("no Python with torch: apt-get install "
			     "python3-torch");
	strbuf_addf(&suite, bench_suite, python);
	free(test_write_file(test_dir, "suite.json", suite.buf));
	free(test_write_file(test_dir, "bench.py", torch_py));
	free(test_write_file(test_dir, "lib/workload.py", "NAME = 'w'\n"));
	for (int i = 0; i < 2; i++) {
		result = profile_run(i ? own : NULL, &result_path);
		cr_assert_eq(result->cases[0].status, CASE_OK);
		table = artifact_text(result_path.buf, &result->cases[0],
				      "torch-ops");
		cr_assert_not_null(table, "no operator table (%s)",
				   result->cases[0].profile_note);
		cr_assert(strstr(table, "Self CPU"), "%s", table);
		/* nn.Linear is aten::addmm, called twice per batch; with a
		 * profiler of its own, the program's table has the batches
		 * and benchgate's ends where that one started */
		cr_assert_eq(strstr(table, "aten::addmm") != NULL, i == 0, "%s",
			     table);
		cr_assert_eq(strstr(table, "its own") != NULL, i == 1, "%s",
			     table);
		/* a CPU build: no CUDA memory snapshot */
		cr_assert_null(
			test_artifact_of(&result->cases[0], "cuda-memory"));
		folded = artifact_text(result_path.buf, &result->cases[0],
				       "python-folded");
		cr_assert_not_null(folded);
		cr_assert(strstr(folded, "run_batches (bench.py:8)"), "%s",
			  folded);
		free(folded);
		free(table);
		result_free(result);
	}
	strbuf_release(&suite);
	strbuf_release(&result_path);
}
