/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the PyTorch example suite (suites/torch-variants), prepared
 * with its own script and run through the built binary on the CPU. Needs
 * an interpreter that has torch (Debian's python3-torch, which CI
 * installs): /usr/bin/python3 first, as python3 on PATH may be another
 * one; $BENCHGATE_TORCH_PYTHON names one explicitly. Skipped, saying so,
 * only when none has it. Training is cached outside the build
 * (prepare.py), so only the first run on a machine trains.
 */
#include "harness/util/error.h"
#include "harness/model/result.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUITE_DIR  BENCHGATE_SOURCE_DIR "/suites/torch-variants"
#define MODELS_DIR BENCHGATE_BUILD_DIR "/suites/torch-variants"

TestSuite(torch_suite, .init = test_dir_setup, .fini = test_dir_teardown);

static const struct metric_samples *
metric(const struct result_case *rcase, const char *name)
{
	const struct metric_samples *m = result_case_find_metric(rcase, name);

	cr_assert_not_null(m, "%s/%s lacks %s", rcase->variant, rcase->device,
			   name);
	cr_assert_gt(m->nr, 0, "%s: no samples", name);
	return m;
}

/* The layer of a case's model named `name`. */
static const struct model_layer *layer(const struct result_case *rcase,
				       const char *name)
{
	cr_assert_not_null(rcase->model, "%s/%s has no model summary",
			   rcase->variant, rcase->device);
	for (size_t i = 0; i < rcase->model->layers_nr; i++)
		if (!strcmp(rcase->model->layers[i].name, name))
			return &rcase->model->layers[i];
	cr_assert_fail("%s/%s: no layer '%s'", rcase->variant, rcase->device,
		       name);
	return NULL;
}

/*
 * benchgate.model_summary() through the metrics file into the result:
 * suites/torch-variants/model.py's Classifier is Linear and ReLU layers
 * in a Sequential ("layers.0" first); its student is smaller, so smaller
 * layers; pruning leaves the shapes and zeroes weights.
 */
static void check_models(const struct result *result)
{
	const struct result_case *fp32 =
		result_find_case(result, "serve-batch64", "fp32", "cpu");
	const struct result_case *pruned =
		result_find_case(result, "serve-batch64", "pruned", "cpu");
	const struct result_case *distilled =
		result_find_case(result, "serve-batch64", "distilled", "cpu");
	const struct result_case *quantized =
		result_find_case(result, "serve-batch64", "quantized", "cpu");
	const struct model_layer *first = NULL;

	cr_assert_not_null(fp32->model);
	cr_assert_gt(fp32->model->layers_nr, 2);
	first = &fp32->model->layers[0];
	cr_assert_str_eq(first->type, "Linear");
	/* batches of 64 records */
	cr_assert_eq(strncmp(first->output_shape, "[64, ", 5), 0, "%s",
		     first->output_shape);
	cr_assert_eq(fp32->model->params, metric(fp32, "params")->samples[0]);
	cr_assert_eq(fp32->model->trainable, fp32->model->params);
	cr_assert_lt(pruned->model->nonzero, 0.3 * pruned->model->params);
	cr_assert_eq(pruned->model->params, fp32->model->params);
	cr_assert_lt(distilled->model->params, fp32->model->params);
	cr_assert_str_eq(first->name, "layers.0");
	cr_assert_lt(layer(distilled, "layers.0")->params, first->params);
	/* int8 weights count as stored, and are not trainable */
	cr_assert_eq(layer(quantized, "layers.0")->params, first->params);
	cr_assert_eq(quantized->model->trainable, 0);
}

/* The HTML report shows each variant's table side by side; Chromium
 * renders it without a request or a console error. */
static void check_models_in_the_html_report(const char *result_path)
{
	struct strbuf report = STRBUF_INIT, page = STRBUF_INIT;
	struct strbuf dom = STRBUF_INIT, problems = STRBUF_INIT;
	struct test_output out;
	const char *at;

	strbuf_addf(&report, "%s/report", test_dir);
	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "report", result_path, "--out",
					      report.buf, "--format", "html",
					      NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	strbuf_addf(&page, "%s/report.html", report.buf);
	test_browser_load(test_dir, page.buf, &dom, &problems);
	cr_assert_eq(problems.len, 0, "%s", problems.buf);
	at = strstr(dom.buf, "<h2>Models</h2>");
	cr_assert_not_null(at, "no Models section");
	at = strstr(at, "<div class=\"models\">");
	cr_assert_not_null(at);
	for (const char *const *v = (const char *const[]){
		     "fp32 · cpu", "quantized · cpu", "pruned · cpu",
		     "distilled · cpu", NULL };
	     *v; v++)
		cr_assert(strstr(at, *v), "no table of %s", *v);
	cr_assert(strstr(at, "<td>Linear</td>"));
	test_output_release(&out);
	strbuf_release(&report);
	strbuf_release(&page);
	strbuf_release(&dom);
	strbuf_release(&problems);
}

static const char *const every_metric[] = {
	"latency", "latency_p90", "latency_p99", "preprocess",
	"throughput", "accuracy", "model_size", "params",
	"nonzero_params", "peak_rss", "wall_time"
};

Test(torch_suite, every_variant_runs_on_the_cpu_and_no_impossible_case_is_planned)
{
	static const char *const variants[] = { "fp32", "quantized", "pruned",
						"distilled" };
	const char *python = test_python_that("import torch");
	struct strbuf store = STRBUF_INIT, json = STRBUF_INIT;
	const struct result_case *rcase;
	struct result *result = NULL;
	struct test_output out;

	if (!python)
		cr_skip_test("no interpreter with torch (tried "
			     "$BENCHGATE_TORCH_PYTHON, /usr/bin/python3, "
			     "/usr/local/bin/python3): apt-get install "
			     "python3-torch");

	test_run(&out, NULL, NULL,
		 (const char *const[]){ python, SUITE_DIR "/prepare.py",
					"--out", MODELS_DIR, "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "prepare.py: %s%s", out.out.buf,
		     out.err.buf);
	test_output_release(&out);

	strbuf_addf(&store, "%s/store", test_dir);
	strbuf_addf(&json, "%s/result.json", test_dir);
	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "run", SUITE_DIR "/suite.json",
					      "--build-dir",
					      BENCHGATE_BUILD_DIR, "--store",
					      store.buf, "--json", json.buf,
					      "--runs", "2", "--warmup", "0",
					      "--no-color", NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(result_load(&result, json.buf), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(result->reference, "fp32");

	for (size_t v = 0; v < sizeof(variants) / sizeof(*variants); v++) {
		rcase = result_find_case(result, "serve-batch64", variants[v],
					 "cpu");
		cr_assert_not_null(rcase, "no %s/cpu case", variants[v]);
		cr_assert_eq(rcase->status, CASE_OK, "%s/cpu: %s",
			     variants[v], rcase->reason);
		for (size_t m = 0; m < sizeof(every_metric) /
					       sizeof(*every_metric);
		     m++)
			metric(rcase, every_metric[m]);
		cr_assert_gt(metric(rcase, "accuracy")->samples[0], 0.85,
			     "%s learnt nothing", variants[v]);
		/* a GPU-only metric is no "missing" one on the CPU */
		cr_assert_null(result_case_find_metric(rcase, "gpu_memory"));
	}
	/* the variants are what their tools make of the model */
	rcase = result_find_case(result, "serve-batch64", "pruned", "cpu");
	cr_assert_lt(metric(rcase, "nonzero_params")->samples[0],
		     0.3 * metric(rcase, "params")->samples[0]);
	cr_assert_lt(metric(result_find_case(result, "serve-batch64",
					     "quantized", "cpu"),
			    "model_size")
			     ->samples[0],
		     0.5 * metric(result_find_case(result, "serve-batch64",
						   "fp32", "cpu"),
				  "model_size")
				   ->samples[0]);

	/* dynamic int8 is CPU only and fp16 GPU only: those cases do not
	 * exist at all, neither run nor skipped */
	cr_assert_null(result_find_case(result, "serve-batch64", "quantized",
					"gpu"));
	cr_assert_null(result_find_case(result, "serve-batch64", "fp16",
					"cpu"));
	cr_assert_null(strstr(out.out.buf, "quantized/gpu"), "%s",
		       out.out.buf);
	/* the other variants have GPU cases: run on CUDA, else skipped */
	rcase = result_find_case(result, "serve-batch64", "fp32", "gpu");
	cr_assert_not_null(rcase, "no fp32/gpu case");
	if (rcase->status == CASE_OK)
		metric(rcase, "gpu_memory");
	else
		cr_assert_eq(rcase->status, CASE_SKIPPED, "%s", rcase->reason);

	check_models(result);
	check_models_in_the_html_report(json.buf);

	result_free(result);
	test_output_release(&out);
	strbuf_release(&store);
	strbuf_release(&json);
}
