#include "reporters/report.h"

#include "harness/util/alloc.h"
#include "harness/util/utf8.h"
#include "reporters/escape.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every chart has the same fixed size, so reports lay out predictably and
 * two runs give the same bytes. */
#define CHART_WIDTH  800
#define CHART_HEIGHT 500
#define CHART_FONT   "sans-serif,11"

/* Names longer than this are cut in titles and keys: an 800-pixel chart
 * clips a longer line at both ends. The file names keep them whole. */
#define LABEL_NAME_MAX 30

/* Room for ".png", a "-<n>" counter and a temporary suffix under
 * NAME_MAX. */
#define CHART_STEM_MAX 200

/* History charts label at most this many commits on the x axis. */
#define HISTORY_TICKS_MAX 16

/* Line styles 1..STYLES_NR differ in dash type and point type as well as
 * in colour (and the colours in lightness), so the charts survive a
 * grayscale printer and colour blindness. */
#define STYLES_NR 8
static const char chart_styles[] =
	"set style line 1 lc rgb '#1f4e9c' lw 2 dt 1 pt 7 ps 1.3\n"
	"set style line 2 lc rgb '#d95f02' lw 2 dt 2 pt 5 ps 1.3\n"
	"set style line 3 lc rgb '#1b9e77' lw 2 dt 3 pt 9 ps 1.6\n"
	"set style line 4 lc rgb '#7b3294' lw 2 dt 4 pt 13 ps 1.6\n"
	"set style line 5 lc rgb '#000000' lw 2 dt 5 pt 6 ps 1.3\n"
	"set style line 6 lc rgb '#a6761d' lw 2 dt 1 pt 4 ps 1.3\n"
	"set style line 7 lc rgb '#666666' lw 2 dt 2 pt 8 ps 1.6\n"
	"set style line 8 lc rgb '#e7298a' lw 2 dt 3 pt 12 ps 1.6\n"
	"set border 3 lw 1\n"
	"set tics nomirror\n"
	"set grid ytics lc rgb '#dddddd' lw 1 dt 1\n"
	"set key below horizontal height 0.6 noautotitle\n";

/* What every chart of one model is drawn with. */
struct chart_context {
	struct charts *charts; /* made so far: their stems are taken */
	int confidence_percent;
};

#define CHART_INIT                                    \
	{                                             \
		STRBUF_INIT, STRBUF_INIT, STRBUF_INIT \
	}

static void chart_release(struct chart *chart)
{
	strbuf_release(&chart->stem);
	strbuf_release(&chart->gp);
	strbuf_release(&chart->dat);
}

/* Moves a finished chart into the list. */
static void chart_done(struct chart_context *ctx, struct chart *chart)
{
	struct charts *charts = ctx->charts;

	ALLOC_GROW(charts->items, charts->nr + 1, charts->alloc);
	charts->items[charts->nr++] = *chart;
	*chart = (struct chart)CHART_INIT;
}

/* Names and labels */

/*
 * Sets the chart's stem to kind-part-part-..., each part a file-name slug.
 * The '-' that joins the parts may also be inside a part ("a-b" + "c" and
 * "a" + "b-c"), so a stem already used this run gets a counter.
 */
static void chart_name(struct chart_context *ctx, struct chart *chart,
		       const char *kind, const char *const *parts)
{
	struct strbuf joined = STRBUF_INIT;
	size_t base_len, count = 1;

	strbuf_addstr(&joined, kind);
	for (; *parts; parts++) {
		strbuf_addch(&joined, '-');
		escape_filename(&joined, *parts);
	}
	/* Four long names would pass NAME_MAX (255): a longer stem is cut
	 * and keeps the "-<hash>" that escape_filename() gives the whole. */
	if (joined.len > CHART_STEM_MAX) {
		struct strbuf slug = STRBUF_INIT;

		escape_filename(&slug, joined.buf);
		strbuf_add(&chart->stem, joined.buf, CHART_STEM_MAX - 9);
		strbuf_addstr(&chart->stem, slug.buf + slug.len - 9);
		strbuf_release(&slug);
	} else {
		strbuf_addstr(&chart->stem, joined.buf);
	}
	strbuf_release(&joined);
	base_len = chart->stem.len;
	for (size_t i = 0; i < ctx->charts->nr; i++) {
		if (strcmp(ctx->charts->items[i].stem.buf, chart->stem.buf))
			continue;
		strbuf_setlen(&chart->stem, base_len);
		strbuf_addf(&chart->stem, "-%zu", ++count);
		i = (size_t)-1; /* check the new name from the start */
	}
}

/*
 * Appends a user string for a chart's text, cut to LABEL_NAME_MAX bytes
 * with an ellipsis. gnuplot's SVG terminal escapes < and & but writes >
 * as is, so "]]>" would make the SVG ill-formed XML: a zero-width space
 * splits it. U+FFFE and U+FFFF, which XML forbids, become U+FFFD.
 */
static void add_label_text(struct strbuf *out, const char *s)
{
	const char *text = s ? s : "";
	size_t keep = utf8_prefix_len(text, LABEL_NAME_MAX);
	size_t len, run = 0;
	uint32_t cp;

	for (const char *p = text; p < text + keep; p += len) {
		len = utf8_decode(p, &cp);
		if (cp == 0xfffe || cp == 0xffff)
			cp = UTF8_REPLACEMENT;
		if (cp == '>' && run >= 2)
			utf8_encode(out, 0x200b);
		run = cp == ']' ? run + 1 : 0;
		utf8_encode(out, cp);
	}
	if (text[keep])
		strbuf_addstr(out, "\u2026");
}

/* "latency (ms)", the axis label of a metric. */
static void metric_axis_label(struct strbuf *out, const char *metric,
			      const char *unit)
{
	add_label_text(out, metric);
	if (unit && *unit) {
		strbuf_addstr(out, " (");
		add_label_text(out, unit);
		strbuf_addch(out, ')');
	}
}

/* "bench / variant / device": names joined for a title; NULL ends. */
static void case_label(struct strbuf *out, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		if (i)
			strbuf_addstr(out, " / ");
		add_label_text(out, names[i]);
	}
}

/* Emits `set title` with text over the case's names joined (two lines:
 * one would not fit long names), and empties text. */
static void set_title(struct strbuf *gp, struct strbuf *text,
		      const char *const *names)
{
	struct strbuf second = STRBUF_INIT;

	case_label(&second, names);
	strbuf_addstr(gp, "set title ");
	escape_gnuplot(gp, text->buf);
	strbuf_addstr(gp, " . \"\\n\" . ");
	escape_gnuplot(gp, second.buf);
	strbuf_addch(gp, '\n');
	strbuf_reset(text);
	strbuf_release(&second);
}

/* Emits `set <what> '<text>'` and empties text for the next one. */
static void set_text(struct strbuf *gp, const char *what, struct strbuf *text)
{
	strbuf_addf(gp, "set %s ", what);
	escape_gnuplot(gp, text->buf);
	strbuf_addch(gp, '\n');
	strbuf_reset(text);
}

static void short_commit(struct strbuf *out, const char *commit)
{
	struct strbuf cut = STRBUF_INIT;

	strbuf_add(&cut, commit, utf8_prefix_len(commit, 7));
	add_label_text(out, cut.buf);
	strbuf_release(&cut);
}

static void script_begin(struct strbuf *gp, const char *stem, const char *what)
{
	strbuf_addf(gp,
		    "# benchgate chart: %s.\n"
		    "# Redraw with `gnuplot %s.gp` in this directory.\n"
		    "set encoding utf8\n"
		    "set terminal svg size %d,%d font '%s' noenhanced "
		    "background '#ffffff'\n"
		    "set output '%s.svg'\n%s",
		    what, stem, CHART_WIDTH, CHART_HEIGHT, CHART_FONT, stem,
		    chart_styles);
}

/* The PNG is the same plot again; libgd's png terminal stands in for
 * pngcairo where gnuplot was built without cairo. */
static void script_end(struct strbuf *gp, const char *stem)
{
	strbuf_addf(gp,
		    "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		    "\tset terminal pngcairo size %d,%d font '%s' "
		    "noenhanced background '#ffffff'\n"
		    "} else {\n"
		    "\tset terminal png size %d,%d noenhanced "
		    "background '#ffffff'\n"
		    "}\n"
		    "set output '%s.png'\n"
		    "replot\n"
		    "unset output\n",
		    CHART_WIDTH, CHART_HEIGHT, CHART_FONT, CHART_WIDTH,
		    CHART_HEIGHT, stem);
}

/* One string tic at x, for `set xtics (...)`. gnuplot formats the tic's
 * position into its label as into a printf format, so a '%' in a name
 * ("%s" would print "2.000000") is doubled. */
static void add_tic(struct strbuf *gp, bool first, struct strbuf *label,
		    double x)
{
	struct strbuf literal = STRBUF_INIT;

	for (size_t i = 0; i < label->len; i++) {
		if (label->buf[i] == '%')
			strbuf_addch(&literal, '%');
		strbuf_addch(&literal, label->buf[i]);
	}
	strbuf_addstr(gp, first ? "" : ", ");
	escape_gnuplot(gp, literal.buf);
	strbuf_addf(gp, " %.9g", x);
	strbuf_reset(label);
	strbuf_release(&literal);
}

static bool finite_summary(const struct stats_summary *s)
{
	return s->n && isfinite(s->median) && isfinite(s->ci_low) &&
	       isfinite(s->ci_high);
}

/* Appends " title '<text>'" to a plot element and empties text. */
static void add_title(struct strbuf *gp, struct strbuf *text)
{
	strbuf_addstr(gp, " title ");
	escape_gnuplot(gp, text->buf);
	strbuf_reset(text);
}

static void history_chart(struct chart_context *ctx,
			  const struct report_model *model,
			  const struct metric_comparison *mc,
			  const struct report_item *item)
{
	const char *names[] = { mc->benchmark, mc->variant, mc->device, NULL };
	const char *parts[] = { mc->benchmark, mc->variant, mc->device,
				mc->metric, NULL };
	const struct report_point *points = item->history;
	struct chart chart = CHART_INIT;
	struct strbuf text = STRBUF_INIT;
	size_t nr = item->history_nr, step;
	double center = item->band_center, spread = item->band_spread;
	bool band = item->has_band, first = true;

	if (!nr || !finite_summary(&mc->candidate))
		goto done;
	chart_name(ctx, &chart, "history", parts);
	script_begin(&chart.gp, chart.stem.buf, "history of a metric");

	strbuf_addstr(&chart.dat, "# index 0: commits, oldest first\n"
				  "# x median ci_low ci_high\n");
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(&chart.dat, "%zu %.9g %.9g %.9g\n", i,
			    points[i].median, points[i].ci_low,
			    points[i].ci_high);
	strbuf_addf(&chart.dat,
		    "\n\n# index 1: the candidate\n"
		    "%zu %.9g %.9g %.9g\n",
		    nr, mc->candidate.median, mc->candidate.ci_low,
		    mc->candidate.ci_high);
	if (band)
		strbuf_addf(&chart.dat,
			    "\n\n# index 2: noise band\n"
			    "# x low high center\n"
			    "-0.5 %.9g %.9g %.9g\n%zu.5 %.9g %.9g %.9g\n",
			    center - spread, center + spread, center, nr,
			    center - spread, center + spread, center);

	metric_axis_label(&text, mc->metric, mc->unit);
	strbuf_addstr(&text, " over commits");
	set_title(&chart.gp, &text, names);
	metric_axis_label(&text, mc->metric, mc->unit);
	set_text(&chart.gp, "ylabel", &text);
	strbuf_addstr(&text, "commit, oldest to newest");
	set_text(&chart.gp, "xlabel", &text);

	/* Count the labelled ticks back from the candidate, which always
	 * gets one. */
	step = (nr + HISTORY_TICKS_MAX) / HISTORY_TICKS_MAX;
	strbuf_addstr(&chart.gp, "set xtics rotate by 30 right (");
	for (size_t x = 0; x < nr; x++) {
		if ((nr - x) % step)
			continue;
		short_commit(&text, points[x].commit);
		add_tic(&chart.gp, first, &text, (double)x);
		first = false;
	}
	strbuf_addstr(&text, "candidate ");
	short_commit(&text, model->candidate->git.commit);
	add_tic(&chart.gp, first, &text, (double)nr);
	strbuf_addf(&chart.gp,
		    ")\nset xrange [-0.5:%zu.5]\n"
		    "set offsets 0, 0, graph 0.08, graph 0.08\n"
		    "set style fill solid 1.0 noborder\n"
		    "plot '%s.dat' ",
		    nr, chart.stem.buf);
	if (band) {
		strbuf_addf(&text, "noise: \u00b1 robust SD of %zu commits",
			    nr);
		strbuf_addstr(&chart.gp, "index 2 using 1:2:3 with "
					 "filledcurves fc rgb '#d9d9d9'");
		add_title(&chart.gp, &text);
		strbuf_addstr(&chart.gp, ", \\\n\t'' index 2 using 1:4 with "
					 "lines lc rgb '#555555' lw 1 dt 2 "
					 "title 'history median', \\\n\t'' ");
	}
	strbuf_addf(&text, "median, %d%% CI", ctx->confidence_percent);
	strbuf_addstr(&chart.gp, "index 0 using 1:2:3:4 with yerrorlines ls 1");
	add_title(&chart.gp, &text);
	strbuf_addstr(&text, "candidate");
	strbuf_addstr(&chart.gp, ", \\\n\t'' index 1 using 1:2:3:4 with "
				 "yerrorbars ls 2 pt 13 ps 2.2");
	add_title(&chart.gp, &text);
	strbuf_addch(&chart.gp, '\n');
	script_end(&chart.gp, chart.stem.buf);
	chart_done(ctx, &chart);
done:
	strbuf_release(&text);
	chart_release(&chart);
}

/* Groups of comparison items */

static bool same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Whether an item before `at` has the benchmark and device of `at` (and its
 * metric, when by_metric): the group was drawn then. */
static bool group_seen(const struct comparison *cmp, size_t at, bool by_metric)
{
	const struct metric_comparison *mc = &cmp->items[at];

	for (size_t i = 0; i < at; i++)
		if (same(cmp->items[i].benchmark, mc->benchmark) &&
		    same(cmp->items[i].device, mc->device) &&
		    (!by_metric || same(cmp->items[i].metric, mc->metric)))
			return true;
	return false;
}

/* The item of this case and metric with candidate numbers, or NULL. */
static const struct metric_comparison *
find_item(const struct comparison *cmp, const char *benchmark,
	  const char *variant, const char *device, const char *metric)
{
	for (size_t i = 0; i < cmp->nr; i++) {
		const struct metric_comparison *mc = &cmp->items[i];

		if (same(mc->benchmark, benchmark) &&
		    same(mc->variant, variant) && same(mc->device, device) &&
		    same(mc->metric, metric) && finite_summary(&mc->candidate))
			return mc;
	}
	return NULL;
}

/* Whether the variant of items[at] first appears at `at` in its group, so
 * each variant is drawn once. */
static bool first_of_variant(const struct comparison *cmp, size_t at)
{
	const struct metric_comparison *mc = &cmp->items[at];

	for (size_t i = 0; i < at; i++)
		if (same(cmp->items[i].benchmark, mc->benchmark) &&
		    same(cmp->items[i].device, mc->device) &&
		    same(cmp->items[i].variant, mc->variant))
			return false;
	return true;
}

/* Variants side by side */

static void variants_chart(struct chart_context *ctx,
			   const struct comparison *cmp,
			   const struct metric_comparison *group)
{
	const char *names[] = { group->benchmark, group->device, NULL };
	const char *parts[] = { group->benchmark, group->device, group->metric,
				NULL };
	const struct metric_comparison **members = NULL;
	struct chart chart = CHART_INIT;
	struct strbuf text = STRBUF_INIT, baseline = STRBUF_INIT;
	size_t nr = 0, alloc = 0;
	double low = 0, high = 0;

	for (size_t i = 0; i < cmp->nr; i++) {
		const struct metric_comparison *mc = &cmp->items[i];

		if (!same(mc->benchmark, group->benchmark) ||
		    !same(mc->device, group->device) ||
		    !same(mc->metric, group->metric) ||
		    !finite_summary(&mc->candidate))
			continue;
		ALLOC_GROW(members, nr + 1, alloc);
		members[nr++] = mc;
	}
	if (nr < 2)
		goto done;
	chart_name(ctx, &chart, "variants", parts);
	script_begin(&chart.gp, chart.stem.buf, "variants side by side");

	strbuf_addstr(&chart.dat, "# index 0: candidate\n"
				  "# x median ci_low ci_high\n");
	for (size_t i = 0; i < nr; i++) {
		const struct stats_summary *s = &members[i]->candidate;

		strbuf_addf(&chart.dat, "%zu %.9g %.9g %.9g\n", i + 1,
			    s->median, s->ci_low, s->ci_high);
		low = fmin(low, s->ci_low);
		high = fmax(high, s->ci_high);
		if (members[i]->has_baseline &&
		    isfinite(members[i]->baseline.median)) {
			strbuf_addf(&baseline, "%zu %.9g\n", i + 1,
				    members[i]->baseline.median);
			low = fmin(low, members[i]->baseline.median);
			high = fmax(high, members[i]->baseline.median);
		}
	}
	if (baseline.len)
		strbuf_addf(&chart.dat,
			    "\n\n# index 1: baseline\n"
			    "# x median\n%s",
			    baseline.buf);

	metric_axis_label(&text, group->metric, group->unit);
	strbuf_addstr(&text, " by variant");
	set_title(&chart.gp, &text, names);
	metric_axis_label(&text, group->metric, group->unit);
	strbuf_addstr(&text, group->better == BETTER_LOWER
				     ? ", lower is better"
				     : ", higher is better");
	set_text(&chart.gp, "ylabel", &text);
	strbuf_addstr(&chart.gp, "set xtics (");
	for (size_t i = 0; i < nr; i++) {
		add_label_text(&text, members[i]->variant);
		add_tic(&chart.gp, !i, &text, (double)(i + 1));
	}
	/* Bars start at zero, so their lengths compare; the headroom keeps
	 * the error bars off the border. */
	strbuf_addf(&chart.gp,
		    ")\nset xtics rotate by 30 right\n"
		    "set xrange [0.4:%zu.6]\n"
		    "set yrange [%.9g:%.9g]\n"
		    "set boxwidth 0.6\n"
		    "set style fill solid 0.45 border -1\n"
		    "plot '%s.dat' index 0 using 1:2 with boxes ls 1 "
		    "title 'candidate median'",
		    nr, low < 0 ? low * 1.12 : 0, high > 0 ? high * 1.12 : 1,
		    chart.stem.buf);
	strbuf_addf(&text, "%d%% CI", ctx->confidence_percent);
	strbuf_addstr(&chart.gp,
		      ", \\\n\t'' index 0 using 1:2:3:4 with "
		      "yerrorbars lc rgb '#000000' lw 1.5 pt 7 ps 0.6");
	add_title(&chart.gp, &text);
	if (baseline.len)
		strbuf_addstr(&chart.gp, ", \\\n\t'' index 1 using 1:2 with "
					 "points ls 2 pt 6 ps 2.2 lw 2 "
					 "title 'baseline median'");
	strbuf_addch(&chart.gp, '\n');
	script_end(&chart.gp, chart.stem.buf);
	chart_done(ctx, &chart);
done:
	free(members);
	strbuf_release(&text);
	strbuf_release(&baseline);
	chart_release(&chart);
}

/* Accuracy against latency */

/* The metric the variant comparisons measured speed on, else "latency". */
static const char *speed_metric_of(const struct comparison *cmp,
				   const struct metric_comparison *group)
{
	for (size_t i = 0; i < cmp->variants_nr; i++)
		if (same(cmp->variants[i].benchmark, group->benchmark) &&
		    same(cmp->variants[i].device, group->device) &&
		    cmp->variants[i].speed_metric)
			return cmp->variants[i].speed_metric;
	return "latency";
}

static const char *accuracy_metric_of(const struct comparison *cmp,
				      const struct metric_comparison *group)
{
	for (size_t i = 0; i < cmp->nr; i++)
		if (same(cmp->items[i].benchmark, group->benchmark) &&
		    same(cmp->items[i].device, group->device) &&
		    strstr(cmp->items[i].metric, "accuracy"))
			return cmp->items[i].metric;
	return NULL;
}

/* The speed and accuracy items of the variant of items[at], when it is the
 * first item of its variant in group and has both. */
static bool tradeoff_point(const struct comparison *cmp, size_t at,
			   const struct metric_comparison *group,
			   const char *speed, const char *accuracy,
			   const struct metric_comparison **speed_mc,
			   const struct metric_comparison **accuracy_mc)
{
	const struct metric_comparison *mc = &cmp->items[at];

	return same(mc->benchmark, group->benchmark) &&
	       same(mc->device, group->device) && first_of_variant(cmp, at) &&
	       (*speed_mc = find_item(cmp, mc->benchmark, mc->variant,
				      mc->device, speed)) &&
	       (*accuracy_mc = find_item(cmp, mc->benchmark, mc->variant,
					 mc->device, accuracy));
}

static void tradeoff_chart(struct chart_context *ctx,
			   const struct comparison *cmp,
			   const struct metric_comparison *group)
{
	const char *names[] = { group->benchmark, group->device, NULL };
	const char *speed = speed_metric_of(cmp, group);
	const char *accuracy = accuracy_metric_of(cmp, group);
	const struct metric_comparison *s, *a, *first_s = NULL, *first_a = NULL;
	struct chart chart = CHART_INIT;
	struct strbuf text = STRBUF_INIT;
	size_t nr = 0;

	for (size_t i = 0; accuracy && i < cmp->nr; i++)
		if (tradeoff_point(cmp, i, group, speed, accuracy, &s, &a) &&
		    !nr++) {
			first_s = s;
			first_a = a;
		}
	if (nr < 2)
		goto done;
	chart_name(ctx, &chart, "tradeoff", names);
	script_begin(&chart.gp, chart.stem.buf, "accuracy against latency");
	strbuf_addstr(&text, "accuracy against ");
	add_label_text(&text, speed);
	strbuf_addf(&text, ", %s-%s is better",
		    first_a->better == BETTER_HIGHER ? "up" : "down",
		    first_s->better == BETTER_LOWER ? "left" : "right");
	set_title(&chart.gp, &text, names);
	metric_axis_label(&text, speed, first_s->unit);
	strbuf_addf(&text, ", median and %d%% CI", ctx->confidence_percent);
	set_text(&chart.gp, "xlabel", &text);
	metric_axis_label(&text, accuracy, first_a->unit);
	set_text(&chart.gp, "ylabel", &text);
	strbuf_addf(&chart.gp,
		    "set offsets graph 0.1, graph 0.1, "
		    "graph 0.1, graph 0.1\nplot '%s.dat' ",
		    chart.stem.buf);

	nr = 0;
	for (size_t i = 0; i < cmp->nr; i++) {
		if (!tradeoff_point(cmp, i, group, speed, accuracy, &s, &a))
			continue;
		strbuf_addf(&chart.dat,
			    "%s# index %zu: x median, y median, "
			    "x ci_low, x ci_high\n%.9g %.9g %.9g %.9g\n",
			    nr ? "\n\n" : "", nr, s->candidate.median,
			    a->candidate.median, s->candidate.ci_low,
			    s->candidate.ci_high);
		strbuf_addf(&chart.gp,
			    "%sindex %zu using 1:2:3:4 with "
			    "xerrorbars ls %zu ps 2",
			    nr ? ", \\\n\t'' " : "", nr, nr % STYLES_NR + 1);
		add_label_text(&text, cmp->items[i].variant);
		add_title(&chart.gp, &text);
		nr++;
	}
	strbuf_addch(&chart.gp, '\n');
	script_end(&chart.gp, chart.stem.buf);
	chart_done(ctx, &chart);
done:
	strbuf_release(&text);
	chart_release(&chart);
}

/* Sample distributions of a regressed metric */

/* Samples as a strip around x. The jitter is the golden-ratio sequence,
 * not random numbers: spread evenly, and the same on every run. */
static void add_strip(struct strbuf *dat, double x,
		      const struct report_samples *samples)
{
	for (size_t i = 0; i < samples->nr; i++) {
		double jitter = fmod((double)i * 0.6180339887498949, 1.0);

		strbuf_addf(dat, "%.6f %.9g\n", x + (jitter - 0.5) * 0.3,
			    samples->values[i]);
	}
}

/* x, first quartile, min, max, third quartile, median: candlesticks. */
static void add_box(struct strbuf *dat, double x,
		    const struct report_samples *samples)
{
	const struct report_box *box = &samples->box;

	strbuf_addf(dat, "%g %.9g %.9g %.9g %.9g %.9g\n", x, box->q1, box->min,
		    box->max, box->q3, box->median);
}

static void distribution_chart(struct chart_context *ctx,
			       const struct report_model *model,
			       const struct metric_comparison *mc,
			       const struct report_item *item)
{
	const char *names[] = { mc->benchmark, mc->variant, mc->device, NULL };
	const char *parts[] = { mc->benchmark, mc->variant, mc->device,
				mc->metric, NULL };
	const struct report_samples *base = &item->baseline_samples;
	const struct report_samples *cand = &item->candidate_samples;
	struct chart chart = CHART_INIT;
	struct strbuf text = STRBUF_INIT;

	if (!base->nr || !cand->nr)
		goto done;
	chart_name(ctx, &chart, "distribution", parts);
	script_begin(&chart.gp, chart.stem.buf, "sample distributions");

	strbuf_addstr(&chart.dat, "# index 0: baseline samples, jittered\n");
	add_strip(&chart.dat, 1, base);
	strbuf_addstr(&chart.dat, "\n\n# index 1: candidate samples\n");
	add_strip(&chart.dat, 2, cand);
	strbuf_addstr(&chart.dat, "\n\n# index 2: x q1 min max q3 median\n");
	add_box(&chart.dat, 1, base);
	add_box(&chart.dat, 2, cand);

	add_label_text(&text, mc->metric);
	strbuf_addf(&text, " samples, %s %s", verdict_name(mc->verdict),
		    item->relative);
	if (item->has_interval)
		strbuf_addf(&text, " at %d%%", ctx->confidence_percent);
	set_title(&chart.gp, &text, names);
	metric_axis_label(&text, mc->metric, mc->unit);
	strbuf_addstr(&text, mc->better == BETTER_LOWER ? ", lower is better"
							: ", higher is better");
	set_text(&chart.gp, "ylabel", &text);
	strbuf_addstr(&text, "baseline ");
	short_commit(&text, model->baseline->git.commit);
	strbuf_addf(&text, ", %zu samples", base->nr);
	strbuf_addstr(&chart.gp, "set xtics (");
	add_tic(&chart.gp, true, &text, 1);
	strbuf_addstr(&text, "candidate ");
	short_commit(&text, model->candidate->git.commit);
	strbuf_addf(&text, ", %zu samples", cand->nr);
	add_tic(&chart.gp, false, &text, 2);
	strbuf_addf(&chart.gp,
		    ")\nset xrange [0.4:2.6]\n"
		    "set offsets 0, 0, graph 0.08, graph 0.08\n"
		    "set boxwidth 0.45\n"
		    "set style fill empty\n"
		    "plot '%s.dat' index 2 using 1:2:3:4:5 with candlesticks "
		    "whiskerbars 0.5 lc rgb '#000000' lw 1.5 "
		    "title 'quartiles, min to max', \\\n"
		    "\t'' index 2 using 1:6:6:6:6 with candlesticks "
		    "lc rgb '#000000' lw 3 title 'median', \\\n"
		    "\t'' index 0 using 1:2 with points ls 1 pt 6 ps 1.2 "
		    "title 'baseline', \\\n"
		    "\t'' index 1 using 1:2 with points ls 2 pt 5 ps 1.0 "
		    "title 'candidate'\n",
		    chart.stem.buf);
	script_end(&chart.gp, chart.stem.buf);
	chart_done(ctx, &chart);
done:
	strbuf_release(&text);
	chart_release(&chart);
}

/* All of them */

void charts_render(struct charts *charts, const struct report_model *model)
{
	const struct comparison *cmp = model->comparison;
	struct chart_context ctx = {
		.charts = charts,
		.confidence_percent = (int)lround(model->confidence * 100),
	};

	assert(model->built);
	for (size_t i = 0; model->history_nr && model->candidate && i < cmp->nr;
	     i++)
		history_chart(&ctx, model, &cmp->items[i], &model->items[i]);
	for (size_t i = 0; i < cmp->nr; i++)
		if (!group_seen(cmp, i, true))
			variants_chart(&ctx, cmp, &cmp->items[i]);
	for (size_t i = 0; i < cmp->nr; i++)
		if (!group_seen(cmp, i, false))
			tradeoff_chart(&ctx, cmp, &cmp->items[i]);
	for (size_t i = 0; model->baseline && model->candidate && i < cmp->nr;
	     i++)
		if (cmp->items[i].verdict == VERDICT_REGRESSION)
			distribution_chart(&ctx, model, &cmp->items[i],
					   &model->items[i]);
}

void charts_release(struct charts *charts)
{
	for (size_t i = 0; i < charts->nr; i++)
		chart_release(&charts->items[i]);
	free(charts->items);
	*charts = (struct charts)CHARTS_INIT;
}
