#include "reporters/charts.h"

#include "harness/compare.h"
#include "harness/error.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(charts);

/* A fixed pattern of relative deviations (robust CV about 1 %), as in
 * test_compare.c, so every run feeds the same numbers. */
static const double jitter[10] = { -0.012, 0.004, 0.009, -0.003, 0.001,
				   -0.007, 0.013, -0.001, 0.006, -0.010 };

static const char *const variants[] = { "original", "quantized", "pruned",
					"distilled" };
/* A hostile name in place of "quantized": markup, quotes, a CDATA end,
 * invalid UTF-8, gnuplot's backquotes and macros, a format directive. */
static const char *const hostile_variants[] = {
	"original",
	"<script>alert(1)</script>\"'><img src=x onerror=alert(1)>]]>\xff"
	"`touch pwned` @x %s\n",
	"pruned", "distilled"
};
static const double latency_ms[] = { 10.0, 4.1, 6.3, 3.2 };
static const double accuracy[] = { 0.951, 0.946, 0.948, 0.932 };

struct fixture {
	struct result *baseline, *candidate;
	struct result *history[12];
	size_t history_nr;
	struct comparison *comparison;
	struct report_model model;
};

/* One result at commit c: every variant's latency (scaled by slowdown for
 * variant `slow`), throughput and exact accuracy. `shift` rotates the noise
 * pattern so that results differ. */
static struct result *make_result(const char *commit, const char *benchmark,
				  const char *const *names, const char *slow,
				  double slowdown, int shift)
{
	struct result *r = result_new();

	r->suite = strdup("mlp-variants");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	for (size_t v = 0; v < 4; v++) {
		struct result_case *c = result_add_case(r, benchmark,
							names[v], "cpu");
		struct metric_samples *lat = result_case_metric(c, "latency");
		struct metric_samples *thr = result_case_metric(c,
								"throughput");
		struct metric_samples *acc = result_case_metric(c, "accuracy");
		/* commits wander by about 1 % */
		double level = latency_ms[v] * (1 + 0.8 * jitter[shift]) *
			       (slow && !strcmp(slow, names[v]) ? slowdown :
								     1.0);

		lat->unit = strdup("ms");
		thr->unit = strdup("samples/s");
		thr->better = BETTER_HIGHER;
		for (int i = 0; i < 10; i++) {
			double x = level * (1 + jitter[(i + shift) % 10]);

			metric_samples_push(lat, x);
			metric_samples_push(thr, 32000.0 / x);
		}
		lat->runs = thr->runs = 10;
		acc->exact = true;
		acc->tolerance = 0.002;
		acc->better = BETTER_HIGHER;
		metric_samples_push(acc, accuracy[v]);
		acc->runs = 1;
	}
	return r;
}

/* Baseline, history of earlier commits and a candidate whose second
 * variant ("quantized") is 12 % slower: a regression, so every chart type
 * applies. */
static void fixture_init(struct fixture *f, const char *benchmark,
			 const char *const *names)
{
	const char *slow = names[1];
	struct compare_options opts;

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 12; i++) {
		char commit[41];

		snprintf(commit, sizeof(commit), "%07x%033d", 0xa11ce00 + i, 0);
		/* newest first, like baseline->history */
		f->history[11 - i] = make_result(commit, benchmark, names,
						 NULL, 1, i % 10);
	}
	f->history_nr = 12;
	f->baseline = make_result(f->history[0]->git.commit, benchmark, names,
				  NULL, 1, 3);
	f->candidate = make_result("c0ffee1c0ffee1c0ffee1c0ffee1c0ffee1c0ffe",
				   benchmark, names, slow, 1.12, 7);
	compare_options_init(&opts);
	cr_assert_eq(compare_results(&f->comparison, f->baseline,
				     f->candidate, &opts), BG_OK);
	f->model.comparison = f->comparison;
	f->model.baseline = f->baseline;
	f->model.candidate = f->candidate;
	f->model.history = f->history;
	f->model.history_nr = f->history_nr;
}

static void fixture_release(struct fixture *f)
{
	comparison_free(f->comparison);
	result_free(f->baseline);
	result_free(f->candidate);
	for (size_t i = 0; i < f->history_nr; i++)
		result_free(f->history[i]);
}

static bool exists(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	bool found;

	strbuf_addf(&path, "%s/%s", dir, name);
	found = stat(path.buf, &st) == 0 && st.st_size > 0;
	strbuf_release(&path);
	return found;
}

/* Number of files in dir whose names start with prefix and end with ext. */
static size_t count_files(const char *dir, const char *prefix,
			  const char *ext)
{
	DIR *d = opendir(dir);
	struct dirent *entry;
	size_t count = 0;

	while (d && (entry = readdir(d))) {
		size_t len = strlen(entry->d_name), ext_len = strlen(ext);

		if (!strncmp(entry->d_name, prefix, strlen(prefix)) &&
		    len > ext_len &&
		    !strcmp(entry->d_name + len - ext_len, ext))
			count++;
	}
	if (d)
		closedir(d);
	return count;
}

static char *charts_dir(const char *dir)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/charts", dir);
	return strbuf_detach(&path, NULL);
}

static void require_gnuplot(void)
{
	cr_assert(charts_available(),
		  "gnuplot is not installed (apt-get install gnuplot-nox); "
		  "the chart tests need it");
}

Test(charts, every_chart_type_is_written_with_its_script_and_data)
{
	static const char *const stems[] = {
		"history-infer-quantized-cpu-latency",
		"variants-infer-cpu-latency",
		"tradeoff-infer-cpu",
		"distribution-infer-quantized-cpu-latency",
	};
	static const char *const exts[] = { ".svg", ".png", ".gp", ".dat" };
	struct strbuf written = STRBUF_INIT;
	struct fixture f;
	char *dir = test_tmpdir(), *charts;

	require_gnuplot();
	fixture_init(&f, "infer", variants);
	cr_assert_eq(charts_write(&f.model, dir, &written), BG_OK, "%s",
		     bg_error_last());
	charts = charts_dir(dir);
	for (size_t s = 0; s < 4; s++)
		for (size_t e = 0; e < 4; e++) {
			char name[128];

			snprintf(name, sizeof(name), "%s%s", stems[s], exts[e]);
			cr_assert(exists(charts, name), "no %s", name);
		}
	/* Only regressed metrics get a distribution chart: the quantized
	 * variant's latency and throughput. */
	cr_assert_eq(f.comparison->counts[VERDICT_REGRESSION], 2);
	cr_assert_eq(count_files(charts, "distribution-", ".svg"), 2);
	/* History for each of 4 variants x 3 metrics. */
	cr_assert_eq(count_files(charts, "history-", ".png"), 12);
	cr_assert(strstr(written.buf, "/charts/tradeoff-infer-cpu.svg\n"));
	cr_assert(strstr(written.buf, "/charts/tradeoff-infer-cpu.png\n"));
	cr_assert_null(strstr(written.buf, ".gp\n"), "lists images only");
	fixture_release(&f);
	strbuf_release(&written);
	test_rmtree(dir);
	free(charts);
	free(dir);
}
