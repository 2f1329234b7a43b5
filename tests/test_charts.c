/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/report.h"

#include "harness/gate/compare.h"
#include "harness/util/error.h"
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
static const double jitter[10] = { -0.012, 0.004, 0.009,  -0.003, 0.001,
				   -0.007, 0.013, -0.001, 0.006,  -0.010 };

static const char *const variants[] = { "original", "quantized", "pruned",
					"distilled" };
/* A hostile name in place of "quantized", its first 30 bytes (what a chart
 * shows) full of gnuplot's specials: backquotes, a macro, a format
 * directive, a newline, both quotes, markup. */
static const char *const hostile_variants[] = {
	"original",
	("`touch pwned` @x %s\n'\"<script>alert(1)</script><img src=x "
	 "onerror=alert(1)>]]>\xff"),
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

/* Adds the cases of benchmark to r: every variant's latency (scaled by
 * slowdown for variant `slow`), throughput and exact accuracy. `shift`
 * rotates the noise pattern so that results differ. */
static void add_cases(struct result *r, const char *benchmark,
		      const char *const *names, const char *slow,
		      double slowdown, int shift)
{
	for (size_t v = 0; v < 4; v++) {
		struct result_case *c =
			result_add_case(r, benchmark, names[v], "cpu");
		struct metric_samples *lat = result_case_metric(c, "latency");
		struct metric_samples *thr =
			result_case_metric(c, "throughput");
		struct metric_samples *acc = result_case_metric(c, "accuracy");
		/* commits wander by about 1 % */
		double level =
			latency_ms[v] * (1 + 0.8 * jitter[shift]) *
			(slow && !strcmp(slow, names[v]) ? slowdown : 1.0);

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
}

/* A result at commit c holding add_cases(). */
static struct result *make_result(const char *commit, const char *benchmark,
				  const char *const *names, const char *slow,
				  double slowdown, int shift)
{
	struct result *r = result_new();

	r->suite = strdup("mlp-variants");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	add_cases(r, benchmark, names, slow, slowdown, shift);
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
		f->history[11 - i] =
			make_result(commit, benchmark, names, NULL, 1, i % 10);
	}
	f->history_nr = 12;
	f->baseline = make_result(f->history[0]->git.commit, benchmark, names,
				  NULL, 1, 3);
	f->candidate = make_result("c0ffee1c0ffee1c0ffee1c0ffee1c0ffee1c0ffe",
				   benchmark, names, slow, 1.12, 7);
	compare_options_init(&opts);
	cr_assert_eq(compare_results(&f->comparison, f->baseline, f->candidate,
				     &opts),
		     BG_OK);
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

/* Whether dir/name exists and, when non_empty, holds something. */
static bool file_in(const char *dir, const char *name, bool non_empty)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	bool found;

	strbuf_addf(&path, "%s/%s", dir, name);
	found = stat(path.buf, &st) == 0 && (!non_empty || st.st_size > 0);
	strbuf_release(&path);
	return found;
}

static bool exists(const char *dir, const char *name)
{
	return file_in(dir, name, true);
}

/* Number of files in dir whose names start with prefix and end with ext. */
static size_t count_files(const char *dir, const char *prefix, const char *ext)
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
	const char *argv[] = { "/bin/sh", "-c", "gnuplot --version", NULL };
	struct test_output out;

	test_run(&out, NULL, NULL, argv);
	cr_assert_eq(out.exit_code, 0,
		     "gnuplot is not installed (apt-get install gnuplot-nox); "
		     "the chart tests need it");
	test_output_release(&out);
}

/* What `benchgate report --format charts` writes. */
static int write_charts(const struct report_model *model, const char *dir,
			struct strbuf *written)
{
	return report_write_all(model, dir, REPORT_CHARTS, written);
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
	cr_assert_eq(write_charts(&f.model, dir, &written), BG_OK, "%s",
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
	/* History only for what changed, the same two; the variants side
	 * by side only on the speed metric: the charts a reader looks at,
	 * not one per metric and case. */
	cr_assert_eq(count_files(charts, "history-", ".png"), 2);
	cr_assert_eq(count_files(charts, "variants-", ".png"), 1);
	cr_assert_eq(count_files(charts, "", ".svg"), 2 + 2 + 1 + 1);
	cr_assert(strstr(written.buf, "/charts/tradeoff-infer-cpu.svg\n"));
	cr_assert(strstr(written.buf, "/charts/tradeoff-infer-cpu.png\n"));
	cr_assert_null(strstr(written.buf, ".gp\n"), "lists images only");
	fixture_release(&f);
	strbuf_release(&written);
	test_rmtree(dir);
	free(charts);
	free(dir);
}

/* Every file in dir, name and content, sorted by name. */
static void snapshot(const char *dir, struct strbuf *out)
{
	struct dirent **entries = NULL;
	int nr = scandir(dir, &entries, NULL, alphasort);

	cr_assert_geq(nr, 0, "cannot list %s", dir);
	for (int i = 0; i < nr; i++) {
		struct strbuf path = STRBUF_INIT;

		if (entries[i]->d_name[0] != '.') {
			strbuf_addf(&path, "%s/%s", dir, entries[i]->d_name);
			strbuf_addf(out, "== %s\n", entries[i]->d_name);
			cr_assert_eq(strbuf_read_file(out, path.buf), BG_OK);
		}
		strbuf_release(&path);
		free(entries[i]);
	}
	free(entries);
}

Test(charts, output_is_byte_identical_across_runs, .timeout = 300)
{
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	char *dirs[2] = { test_tmpdir(), test_tmpdir() };
	struct strbuf *snaps[2] = { &first, &second };
	struct fixture f;

	require_gnuplot();
	fixture_init(&f, "infer", variants);
	for (int run = 0; run < 2; run++) {
		char *charts = charts_dir(dirs[run]);

		cr_assert_eq(write_charts(&f.model, dirs[run], NULL), BG_OK,
			     "%s", bg_error_last());
		snapshot(charts, snaps[run]);
		free(charts);
	}
	cr_assert_gt(first.len, 10000);
	/* SVG, PNG, script and data alike: no timestamps, no random jitter,
	 * and the scripts name files relative to charts/. */
	cr_assert(first.len == second.len &&
			  !memcmp(first.buf, second.buf, first.len),
		  "two runs differ");
	cr_assert_null(strstr(first.buf, dirs[0]), "absolute path leaked");
	fixture_release(&f);
	strbuf_release(&first);
	strbuf_release(&second);
	for (int run = 0; run < 2; run++) {
		test_rmtree(dirs[run]);
		free(dirs[run]);
	}
}

Test(charts, without_gnuplot_nothing_is_written)
{
	struct strbuf written = STRBUF_INIT;
	char *dir = test_tmpdir();
	struct fixture f;

	/* Each Criterion test runs in its own process: the variable does
	 * not leak into the others. */
	setenv("BENCHGATE_GNUPLOT", "/nonexistent", 1);
	fixture_init(&f, "infer", variants);
	/* a warning, not a failure: the other reports are still written */
	cr_assert_eq(write_charts(&f.model, dir, &written), BG_OK);
	cr_assert(strstr(bg_error_last(), "gnuplot"), "%s", bg_error_last());
	cr_assert_eq(written.len, 0);
	cr_assert_eq(count_files(dir, "", ""), 2, "only . and .. in %s", dir);
	fixture_release(&f);
	strbuf_release(&written);
	test_rmtree(dir);
	free(dir);
}

/* charts.c only writes text: the scripts and data come without gnuplot,
 * each script drawing its own data into its own images. */
Test(charts, scripts_and_data_are_made_without_gnuplot)
{
	struct charts charts = CHARTS_INIT;
	struct fixture f;

	setenv("BENCHGATE_GNUPLOT", "/nonexistent", 1);
	fixture_init(&f, "infer", variants);
	report_model_build(&f.model);
	charts_render(&charts, &f.model);
	/* history 2 (the regressed metrics), variants 1 (latency),
	 * tradeoff 1, distributions 2 */
	cr_assert_eq(charts.nr, 2 + 1 + 1 + 2);
	cr_assert_str_eq(charts.items[0].stem.buf,
			 "history-infer-quantized-cpu-latency");
	cr_assert_str_eq(charts.items[0].kind, "history");
	cr_assert_str_eq(charts.items[0].caption,
			 "latency (ms) over commits: infer / quantized / cpu");
	cr_assert_str_eq(charts.items[3].kind, "tradeoff");
	/* The tradeoff shows where each variant was: an arrow from the
	 * baseline's point to the candidate's. */
	cr_assert(strstr(charts.items[3].gp.buf, "with vectors"), "%s",
		  charts.items[3].gp.buf);
	cr_assert(strstr(charts.items[3].dat.buf,
			 "# index 4: baseline x, y, and the move"),
		  "%s", charts.items[3].dat.buf);
	cr_assert_str_eq(charts.items[charts.nr - 1].stem.buf,
			 "distribution-infer-quantized-cpu-throughput");
	for (size_t i = 0; i < charts.nr; i++) {
		const struct chart *chart = &charts.items[i];
		char line[256];

		snprintf(line, sizeof(line), "set output '%s.svg'\n",
			 chart->stem.buf);
		cr_assert(strstr(chart->gp.buf, line), "%s", chart->gp.buf);
		snprintf(line, sizeof(line), "plot '%s.dat' ", chart->stem.buf);
		cr_assert(strstr(chart->gp.buf, line), "%s", chart->gp.buf);
		cr_assert_gt(chart->dat.len, 0);
	}
	charts_release(&charts);
	report_model_release(&f.model);
	fixture_release(&f);
}

Test(charts, gnuplot_failure_is_an_error_with_its_stderr)
{
	char *dir = test_tmpdir(), *fake;
	struct fixture f;

	/* Runs for --version (so it counts as installed), fails on a
	 * script the way gnuplot does. */
	fake = test_write_file(dir, "fake-gnuplot",
			       "#!/bin/sh\n"
			       "[ \"$1\" = --version ] && exit 0\n"
			       "echo \"\\\"$1\\\" line 3: undefined variable: "
			       "boom\" >&2\n"
			       "exit 1\n");
	cr_assert_eq(chmod(fake, 0755), 0);
	setenv("BENCHGATE_GNUPLOT", fake, 1);
	fixture_init(&f, "infer", variants);
	cr_assert_eq(write_charts(&f.model, dir, NULL), BG_ERROR);
	cr_assert(strstr(bg_error_last(), "undefined variable: boom"), "%s",
		  bg_error_last());
	cr_assert(strstr(bg_error_last(), ".gp"), "names the script: %s",
		  bg_error_last());
	fixture_release(&f);
	test_rmtree(dir);
	free(fake);
	free(dir);
}

/* An SVG that an XML parser would reject or a browser would run: raw
 * markup from a name, a CDATA end, invalid UTF-8. gnuplot escapes < and &
 * in text; the chart code must deal with the rest. The names must still
 * read as they are: a tic label is a printf format to gnuplot. */
static void assert_svg_inert(const char *path)
{
	char *svg = test_read_file(path);

	cr_assert_not_null(svg, "cannot read %s", path);
	if (strstr(path, "/charts/variants-") ||
	    strstr(path, "/charts/tradeoff-"))
		cr_assert(strstr(svg, "`touch pwned` @x %s"),
			  "the hostile variant's name is not shown as is in %s",
			  path);
	cr_assert_null(strstr(svg, "<script"), "%s", path);
	cr_assert_null(strstr(svg, "<img"), "%s", path);
	cr_assert_null(strstr(svg, "]]>"), "%s", path);
	cr_assert_null(strchr(svg, '\xff'), "invalid UTF-8 in %s", path);
	free(svg);
}

Test(charts, hostile_names_render_and_stay_inert, .timeout = 300)
{
	static const char *const hostile_benchmark =
		"]]>\xff<script>alert(1)</script>\"'><img src=x "
		"onerror=alert(1)>";
	struct strbuf written = STRBUF_INIT;
	char *dir = test_tmpdir(), *charts;
	struct fixture f;
	size_t images = 0;

	require_gnuplot();
	fixture_init(&f, hostile_benchmark, hostile_variants);
	cr_assert_eq(write_charts(&f.model, dir, &written), BG_OK, "%s",
		     bg_error_last());
	charts = charts_dir(dir);
	/* The same charts as with plain names, each one rendered. */
	cr_assert_eq(count_files(charts, "history-", ".svg"), 2);
	cr_assert_eq(count_files(charts, "variants-", ".png"), 1);
	cr_assert_eq(count_files(charts, "tradeoff-", ".png"), 1);
	cr_assert_eq(count_files(charts, "distribution-", ".png"), 2);
	for (char *line = written.buf, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		cr_assert(!strncmp(line, charts, strlen(charts)) &&
				  !strchr(line + strlen(charts) + 1, '/'),
			  "escaped charts/: %s", line);
		if (strstr(line, ".svg"))
			assert_svg_inert(line);
		images++;
	}
	cr_assert_eq(images, 2 * (2 + 1 + 1 + 2));
	/* Backquotes in a single-quoted gnuplot string are not run. */
	cr_assert_not(file_in(charts, "pwned", false));
	cr_assert_not(file_in(".", "pwned", false));
	fixture_release(&f);
	strbuf_release(&written);
	test_rmtree(dir);
	free(charts);
	free(dir);
}

Test(charts, names_that_slug_alike_get_files_of_their_own)
{
	struct strbuf written = STRBUF_INIT;
	char *dir = test_tmpdir(), *charts;
	struct result *cand = result_new();
	struct comparison *cmp = NULL;
	struct compare_options opts;
	struct report_model model = { 0 };
	/* "a-b" on "c" and "a" on "b-c" both join to "a-b-c". */
	const char *pairs[2][2] = { { "a-b", "c" }, { "a", "b-c" } };

	require_gnuplot();
	cand->suite = strdup("s");
	snprintf(cand->git.commit, sizeof(cand->git.commit), "unknown");
	for (int p = 0; p < 2; p++)
		for (int v = 0; v < 2; v++) {
			struct result_case *c = result_add_case(
				cand, pairs[p][0], variants[v], pairs[p][1]);
			struct metric_samples *m =
				result_case_metric(c, "latency");

			m->unit = strdup("ms");
			for (int i = 0; i < 10; i++)
				metric_samples_push(m, (v ? 4 : 10) *
							       (1 + jitter[i]));
		}
	compare_options_init(&opts);
	cr_assert_eq(compare_results(&cmp, NULL, cand, &opts), BG_OK);
	model.comparison = cmp;
	model.candidate = cand;
	cr_assert_eq(write_charts(&model, dir, &written), BG_OK, "%s",
		     bg_error_last());
	charts = charts_dir(dir);
	cr_assert(exists(charts, "variants-a-b-c-latency.svg"));
	cr_assert(exists(charts, "variants-a-b-c-latency-2.svg"));
	/* No baseline and no history: no distribution, no history. */
	cr_assert_eq(count_files(charts, "history-", ""), 0);
	cr_assert_eq(count_files(charts, "distribution-", ""), 0);
	comparison_free(cmp);
	result_free(cand);
	strbuf_release(&written);
	test_rmtree(dir);
	free(charts);
	free(dir);
}

/* Bounds: a suite of thousands of cases */

/* Whether charts holds one named stem. */
static bool has_chart(const struct charts *charts, const char *stem)
{
	for (size_t i = 0; i < charts->nr; i++)
		if (!strcmp(charts->items[i].stem.buf, stem))
			return true;
	return false;
}

static size_t count_charts(const struct charts *charts, const char *prefix)
{
	size_t count = 0;

	for (size_t i = 0; i < charts->nr; i++)
		count += !strncmp(charts->items[i].stem.buf, prefix,
				  strlen(prefix));
	return count;
}

Test(charts, the_bound_charts_regressions_then_the_largest_changes)
{
	struct result *history[3], *baseline, *candidate;
	struct comparison *cmp = NULL;
	struct compare_options opts;
	struct report_model model = { 0 };
	struct charts charts = CHARTS_INIT;
	struct strbuf note = STRBUF_INIT;
	char benchmark[16];

	/* 10 benchmarks of 4 variants. In the candidate, b2/quantized and
	 * b7/quantized are 12 % slower (regressions in latency and
	 * throughput), b5/pruned 30 % faster (an improvement, the largest
	 * change of all), the rest move within the noise. */
	for (int h = 0; h < 3; h++) {
		history[h] = make_result("a11ce00", "b0", variants, NULL, 1, h);
		for (int b = 1; b < 10; b++) {
			snprintf(benchmark, sizeof(benchmark), "b%d", b);
			add_cases(history[h], benchmark, variants, NULL, 1, h);
		}
	}
	baseline = make_result("a11ce00", "b0", variants, NULL, 1, 3);
	candidate = make_result("c0ffee1", "b0", variants, NULL, 1, 7);
	for (int b = 1; b < 10; b++) {
		snprintf(benchmark, sizeof(benchmark), "b%d", b);
		add_cases(baseline, benchmark, variants, NULL, 1, 3);
		add_cases(candidate, benchmark, variants,
			  b == 5 ? "pruned" : "quantized",
			  b == 2 || b == 7 ? 1.12
			  : b == 5	   ? 0.7
					   : 1,
			  7);
	}
	compare_options_init(&opts);
	cr_assert_eq(compare_results(&cmp, baseline, candidate, &opts), BG_OK);
	cr_assert_eq(cmp->counts[VERDICT_REGRESSION], 4);
	model.comparison = cmp;
	model.baseline = baseline;
	model.candidate = candidate;
	model.history = history;
	model.history_nr = 3;
	model.chart_cases = 3;
	report_model_build(&model);
	charts_render(&charts, &model);

	cr_assert_eq(model.cases_nr, 40);
	cr_assert_eq(model.charted_cases_nr, 3);
	/* The two regressions first, then the largest change; each of
	 * them with a history per changed metric, and a distribution per
	 * regressed metric. */
	cr_assert(has_chart(&charts, "history-b2-quantized-cpu-latency"));
	cr_assert(has_chart(&charts, "history-b7-quantized-cpu-throughput"));
	cr_assert(has_chart(&charts, "history-b5-pruned-cpu-throughput"));
	cr_assert_not(has_chart(&charts, "history-b7-quantized-cpu-accuracy"));
	cr_assert_eq(count_charts(&charts, "history-"), 3 * 2);
	cr_assert(
		has_chart(&charts, "distribution-b2-quantized-cpu-throughput"));
	cr_assert(has_chart(&charts, "distribution-b7-quantized-cpu-latency"));
	cr_assert_eq(count_charts(&charts, "distribution-"), 2 * 2);
	/* Their benchmarks' variants side by side on the speed metric, and
	 * their tradeoffs; the other seven benchmarks have none. */
	cr_assert(has_chart(&charts, "variants-b5-cpu-latency"));
	cr_assert_eq(count_charts(&charts, "variants-"), 3);
	cr_assert(has_chart(&charts, "tradeoff-b7-cpu"));
	cr_assert_eq(count_charts(&charts, "tradeoff-"), 3);
	cr_assert(report_add_charts_note(&note, &model));
	cr_assert_str_eq(note.buf,
			 "37 of 40 cases have no chart: charts are drawn for "
			 "3 cases, those with a regression first, then those "
			 "with the largest changes (--charts N sets the bound, "
			 "--charts all lifts it)");
	charts_release(&charts);
	report_model_release(&model);

	/* Without a bound from the caller, 50 cases: all 40 here. */
	model.chart_cases = 0;
	report_model_build(&model);
	charts_render(&charts, &model);
	cr_assert_eq(model.charted_cases_nr, 40);
	cr_assert_eq(count_charts(&charts, "history-"), 3 * 2);
	cr_assert_eq(count_charts(&charts, "variants-"), 10);
	strbuf_reset(&note);
	cr_assert_not(report_add_charts_note(&note, &model));
	cr_assert_eq(note.len, 0);
	charts_release(&charts);
	report_model_release(&model);
	strbuf_release(&note);
	comparison_free(cmp);
	result_free(baseline);
	result_free(candidate);
	for (int h = 0; h < 3; h++)
		result_free(history[h]);
}

/* Runs the binary with $BENCHGATE_GNUPLOT set to gnuplot. */
static void run_benchgate(struct test_output *out, const char *gnuplot,
			  const char *const *args)
{
	struct strbuf env = STRBUF_INIT;
	const char *envp[] = { NULL, NULL };

	strbuf_addf(&env, "BENCHGATE_GNUPLOT=%s", gnuplot);
	envp[0] = env.buf;
	test_benchgate(out, NULL, envp, args);
	strbuf_release(&env);
}

/* A gnuplot that draws nothing: the tests of the bound count the charts
 * benchgate asks for (their .gp scripts), not gnuplot's work. */
static char *fake_gnuplot(const char *dir)
{
	char *fake = test_write_file(dir, "fake-gnuplot", "#!/bin/sh\n");

	cr_assert_eq(chmod(fake, 0755), 0);
	return fake;
}

/* tests/perf/many-cases.sh's pair of `cases` cases in dir, every
 * `every`-th of them (index every - 1 first) 20 % slower in the
 * candidate, compared by `benchgate compare` into dir/cmp.json. */
static void compare_many_cases(const char *dir, const char *cases,
			       const char *every)
{
	const char *script = BENCHGATE_SOURCE_DIR "/tests/perf/many-cases.sh";
	const char *generate[] = { "/bin/sh", script, cases, dir, every, NULL };
	struct strbuf base = STRBUF_INIT, cand = STRBUF_INIT;
	struct strbuf cmp = STRBUF_INIT;
	const char *compare[] = { "compare", NULL,	NULL, "--json",
				  NULL,	     "--quiet", NULL };
	struct test_output out;

	test_run(&out, NULL, NULL, generate);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	strbuf_addf(&base, "%s/baseline.json", dir);
	strbuf_addf(&cand, "%s/candidate.json", dir);
	strbuf_addf(&cmp, "%s/cmp.json", dir);
	compare[1] = base.buf;
	compare[2] = cand.buf;
	compare[4] = cmp.buf;
	test_benchgate(&out, NULL, NULL, compare);
	/* exit 1: the slower cases are regressions */
	cr_assert_eq(out.exit_code, 1, "%s", out.err.buf);
	test_output_release(&out);
	strbuf_release(&base);
	strbuf_release(&cand);
	strbuf_release(&cmp);
}

/* What `benchgate report dir/cmp.json --out dir/out [--charts bound]`
 * wrote and said. */
struct bounded_report {
	struct test_output out;
	char *charts;	 /* dir/out/charts */
	char *md, *html; /* report.md, report.html */
	size_t warnings; /* lines of stderr with "warning:" */
};

static void report_many_cases(struct bounded_report *report, const char *dir,
			      const char *gnuplot, const char *bound)
{
	struct strbuf cmp = STRBUF_INIT, out_dir = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	const char *args[] = { "report",   NULL,  "--out", NULL,
			       "--charts", bound, NULL };

	strbuf_addf(&cmp, "%s/cmp.json", dir);
	strbuf_addf(&out_dir, "%s/out", dir);
	test_rmtree(out_dir.buf);
	args[1] = cmp.buf;
	args[3] = out_dir.buf;
	if (!bound)
		args[4] = NULL;
	run_benchgate(&report->out, gnuplot, args);
	report->charts = charts_dir(out_dir.buf);
	strbuf_addf(&path, "%s/report.md", out_dir.buf);
	report->md = test_read_file(path.buf);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/report.html", out_dir.buf);
	report->html = test_read_file(path.buf);
	report->warnings = 0;
	for (const char *p = report->out.err.buf; (p = strstr(p, "warning:"));
	     p++)
		report->warnings++;
	strbuf_release(&cmp);
	strbuf_release(&out_dir);
	strbuf_release(&path);
}

static void bounded_report_release(struct bounded_report *report)
{
	test_output_release(&report->out);
	free(report->charts);
	free(report->md);
	free(report->html);
}

/* Whether the reports and stderr all say `note`, stderr in one warning. */
static void assert_noted(const struct bounded_report *report, const char *note)
{
	cr_assert(report->md && strstr(report->md, note), "report.md: %s",
		  note);
	cr_assert(report->html && strstr(report->html, note), "report.html: %s",
		  note);
	cr_assert(strstr(report->out.err.buf, note), "%s", report->out.err.buf);
	cr_assert_eq(report->warnings, 1, "%s", report->out.err.buf);
}

/* How many distinct benchmarks the chart scripts in dir are of (the
 * generator's names b00000... follow the chart's kind), each marked in
 * seen[]. */
static size_t charted_benchmarks(const char *dir, bool *seen, size_t seen_nr)
{
	DIR *d = opendir(dir);
	struct dirent *entry;
	size_t count = 0;

	memset(seen, 0, seen_nr * sizeof(*seen));
	while (d && (entry = readdir(d))) {
		const char *b = strstr(entry->d_name, "-b");
		size_t len = strlen(entry->d_name);
		unsigned long n;

		if (len < 3 || strcmp(entry->d_name + len - 3, ".gp") || !b)
			continue;
		n = strtoul(b + 2, NULL, 10);
		cr_assert_lt(n, seen_nr, "%s", entry->d_name);
		count += !seen[n];
		seen[n] = true;
	}
	if (d)
		closedir(d);
	return count;
}

/* Every regressed case of compare_many_cases() up to `cases` has its
 * benchmark's charts. */
static void assert_regressions_charted(const struct bounded_report *report,
				       const bool *seen, size_t cases,
				       size_t every)
{
	for (size_t c = every - 1; c < cases; c += every) {
		char name[64];

		cr_assert(seen[c / 4], "regressed case %zu has no chart", c);
		snprintf(name, sizeof(name), "variants-b%05zu-cpu-latency.gp",
			 c / 4);
		cr_assert(exists(report->charts, name), "no %s", name);
		snprintf(name, sizeof(name), "tradeoff-b%05zu-cpu.gp", c / 4);
		cr_assert(exists(report->charts, name), "no %s", name);
	}
}

Test(charts, a_large_suite_charts_the_regressions_first_up_to_the_default,
     .timeout = 300)
{
	char *dir = test_tmpdir(), *fake = fake_gnuplot(dir);
	struct bounded_report report;
	bool seen[125];

	/* 500 cases, 125 benchmarks of 4 variants; every 25th case, 20 in
	 * all, regresses. */
	compare_many_cases(dir, "500", "25");
	report_many_cases(&report, dir, fake, NULL);
	cr_assert_eq(report.out.exit_code, 0, "%s", report.out.err.buf);
	/* The default bound is 50 cases: no more than 50 benchmarks have a
	 * chart (all 125 did before), each at most a variants chart per
	 * metric and a tradeoff chart. */
	cr_assert_leq(charted_benchmarks(report.charts, seen, 125), 50);
	cr_assert_leq(count_files(report.charts, "", ".gp"), 50 * (3 + 1));
	assert_regressions_charted(&report, seen, 500, 25);
	assert_noted(&report, "450 of 500 cases have no chart");
	bounded_report_release(&report);
	free(fake);
	test_rmtree(dir);
	free(dir);
}

Test(charts, the_charts_option_sets_the_bound, .timeout = 300)
{
	char *dir = test_tmpdir(), *fake = fake_gnuplot(dir);
	struct bounded_report report;
	bool seen[15];

	/* 60 cases, 15 benchmarks; cases 19, 39 and 59 regress. */
	compare_many_cases(dir, "60", "20");
	report_many_cases(&report, dir, fake, "4");
	cr_assert_eq(report.out.exit_code, 0, "%s", report.out.err.buf);
	cr_assert_leq(charted_benchmarks(report.charts, seen, 15), 4);
	assert_regressions_charted(&report, seen, 60, 20);
	assert_noted(&report, "56 of 60 cases have no chart: charts are "
			      "drawn for 4 cases");
	bounded_report_release(&report);

	/* all: every benchmark, no note, no warning */
	report_many_cases(&report, dir, fake, "all");
	cr_assert_eq(report.out.exit_code, 0, "%s", report.out.err.buf);
	cr_assert_eq(charted_benchmarks(report.charts, seen, 15), 15);
	cr_assert_null(strstr(report.md, "have no chart"));
	cr_assert_null(strstr(report.html, "have no chart"));
	cr_assert_eq(report.warnings, 0, "%s", report.out.err.buf);
	bounded_report_release(&report);

	report_many_cases(&report, dir, fake, "0");
	cr_assert_eq(report.out.exit_code, 2);
	cr_assert(strstr(report.out.err.buf,
			 "--charts: expected a whole number of at least 1 "
			 "or 'all', found '0'"),
		  "%s", report.out.err.buf);
	bounded_report_release(&report);
	free(fake);
	test_rmtree(dir);
	free(dir);
}

/* `check --report` takes the bound too: a suite of three variants of
 * /bin/true, without a baseline (every metric new). */
Test(charts, check_takes_the_bound, .timeout = 300)
{
	char *dir = test_tmpdir(), *fake = fake_gnuplot(dir), *suite, *md;
	struct strbuf store = STRBUF_INIT, out_dir = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	struct test_output out;

	suite = test_write_file(
		dir, "s.json",
		"{\"benchgate\": 1, \"suite\": \"three\", \"defaults\": "
		"{\"runs\": 2, \"warmup\": 0}, \"variants\": {\"a\": {}, "
		"\"b\": {}, \"c\": {}}, \"benchmarks\": [{\"name\": \"t\", "
		"\"command\": [\"/bin/true\"], \"metrics\": [{\"name\": "
		"\"w\", \"from\": \"wall\"}]}]}");
	strbuf_addf(&store, "%s/store", dir);
	strbuf_addf(&out_dir, "%s/out", dir);
	run_benchgate(&out, fake,
		      (const char *const[]){ "check", suite, "--store",
					     store.buf, "--report", out_dir.buf,
					     "--charts", "1", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "2 of 3 cases have no chart"), "%s",
		  out.err.buf);
	strbuf_addf(&path, "%s/report.md", out_dir.buf);
	md = test_read_file(path.buf);
	cr_assert(md && strstr(md, "2 of 3 cases have no chart: charts are "
				   "drawn for 1 case,"));
	test_output_release(&out);
	free(md);
	free(suite);
	free(fake);
	strbuf_release(&store);
	strbuf_release(&out_dir);
	strbuf_release(&path);
	test_rmtree(dir);
	free(dir);
}

/* Found by fuzz_reporters: a comparison of no metric at all sorted an
 * empty, unallocated list of chart groups, passing NULL to qsort(), which
 * UBSan (nonnull-attribute) stops on. */
Test(charts, a_comparison_of_nothing_draws_no_chart)
{
	struct comparison empty = { .suite = (char *)"s" };
	struct report_model model = { .comparison = &empty };
	struct charts charts = CHARTS_INIT;

	report_model_build(&model);
	charts_render(&charts, &model);
	cr_assert_eq(charts.nr, 0);
	charts_release(&charts);
	report_model_release(&model);
}

/* The distribution chart of one metric whose baseline and candidate
 * samples are base[] + offset and base[] * factor + offset. */
static void distribution_of(struct strbuf *gp, const double *base, size_t n,
			    double factor, double offset)
{
	struct result *b = result_new(), *c = result_new();
	struct comparison *comparison = NULL;
	struct compare_options opts;
	struct report_model model = { 0 };
	struct charts charts = CHARTS_INIT;
	struct metric_samples *mb, *mc;

	snprintf(b->git.commit, sizeof(b->git.commit), "%040d", 1);
	snprintf(c->git.commit, sizeof(c->git.commit), "%040d", 2);
	mb = result_case_metric(result_add_case(b, "t", "v", "cpu"), "latency");
	mc = result_case_metric(result_add_case(c, "t", "v", "cpu"), "latency");
	mb->unit = strdup("ms");
	mc->unit = strdup("ms");
	for (size_t i = 0; i < n; i++) {
		metric_samples_push(mb, base[i] + offset);
		metric_samples_push(mc, base[i] * factor + offset);
	}
	mb->runs = mc->runs = (int)n;
	compare_options_init(&opts);
	cr_assert_eq(compare_results(&comparison, b, c, &opts), BG_OK);
	model.comparison = comparison;
	model.baseline = b;
	model.candidate = c;
	report_model_build(&model);
	charts_render(&charts, &model);
	cr_assert_eq(count_charts(&charts, "distribution-"), 1);
	for (size_t i = 0; i < charts.nr; i++)
		if (!strcmp(charts.items[i].kind, "distribution"))
			strbuf_add(gp, charts.items[i].gp.buf,
				   charts.items[i].gp.len);
	charts_release(&charts);
	report_model_release(&model);
	comparison_free(comparison);
	result_free(b);
	result_free(c);
}

/* Issue 27: a distribution axis does not dip below zero when no sample
 * does (the room gnuplot leaves below a latency near zero took it to
 * -2 ms), and keeps its room where the data are far from zero or below
 * it. */
Test(charts, a_distribution_axis_stays_at_zero_or_above)
{
	/* latencies about 0.01 ms, then 20x slower: the room below the
	 * baseline's would reach below zero */
	static const double near_zero[] = { 0.0100, 0.0102, 0.0099, 0.0101,
					     0.0103, 0.0098, 0.0100, 0.0102,
					     0.0099, 0.0101 };
	static const double far[] = { 100.0, 100.4, 99.7, 100.2, 99.9,
				      100.1, 100.3, 99.8, 100.0, 100.2 };
	struct strbuf gp = STRBUF_INIT;

	distribution_of(&gp, near_zero, 10, 20.0, 0);
	cr_assert(strstr(gp.buf, "set yrange [0:*]\n"), "%s", gp.buf);
	strbuf_reset(&gp);
	distribution_of(&gp, far, 10, 1.5, 0);
	cr_assert_null(strstr(gp.buf, "set yrange"), "%s", gp.buf);
	cr_assert(strstr(gp.buf, "set offsets 0, 0, graph 0.08, graph 0.08"));
	/* a metric that goes below zero keeps its room there */
	strbuf_reset(&gp);
	distribution_of(&gp, near_zero, 10, 20.0, -0.05);
	cr_assert_null(strstr(gp.buf, "set yrange"), "%s", gp.buf);
	strbuf_release(&gp);
}
