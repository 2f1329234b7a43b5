/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/report.h"

#include "harness/util/alloc.h"
#include "harness/util/hash.h"
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

/* The stems taken: a hash set of indexes into charts->items, 0 for an
 * empty slot and index + 1 otherwise (open addressing, at most half
 * full). Comparing each new stem with every chart's was quadratic. */
struct stem_set {
	size_t *slots;
	size_t alloc, nr; /* alloc a power of two */
};

/* What every chart of one model is drawn with. */
struct chart_context {
	struct charts *charts; /* made so far: their stems are taken */
	struct stem_set stems; /* theirs */
	int confidence_percent;
	/* The comparison's variants by benchmark and device, then place. */
	const struct variant_comparison **variants;
	size_t variants_nr;
};

static void chart_release(struct chart *chart)
{
	strbuf_release(&chart->stem);
	strbuf_release(&chart->gp);
	strbuf_release(&chart->dat);
	free(chart->caption);
	free(chart->svg);
	chart->caption = chart->svg = NULL;
}

static size_t stem_hash(const char *stem)
{
	return (size_t)hash_fnv1a64(stem, strlen(stem));
}

static const char *stem_of(const struct chart_context *ctx, size_t slot)
{
	return ctx->charts->items[slot - 1].stem.buf;
}

static bool stem_taken(const struct chart_context *ctx, const char *stem)
{
	const struct stem_set *set = &ctx->stems;
	size_t mask = set->alloc - 1;

	for (size_t i = set->alloc ? stem_hash(stem) & mask : 0;
	     set->alloc && set->slots[i]; i = (i + 1) & mask)
		if (!strcmp(stem_of(ctx, set->slots[i]), stem))
			return true;
	return false;
}

static void stem_insert(struct chart_context *ctx, size_t slot)
{
	struct stem_set *set = &ctx->stems;
	size_t mask = set->alloc - 1;
	size_t i = stem_hash(stem_of(ctx, slot)) & mask;

	while (set->slots[i])
		i = (i + 1) & mask;
	set->slots[i] = slot;
	set->nr++;
}

/* Takes the stem of charts->items[index]. */
static void stem_add(struct chart_context *ctx, size_t index)
{
	struct stem_set *set = &ctx->stems;

	if (2 * (set->nr + 1) > set->alloc) {
		size_t *old = set->slots, old_alloc = set->alloc;

		set->alloc = old_alloc ? 2 * old_alloc : 64;
		set->slots = xcalloc(set->alloc, sizeof(*set->slots));
		set->nr = 0;
		for (size_t i = 0; i < old_alloc; i++)
			if (old[i])
				stem_insert(ctx, old[i]);
		free(old);
	}
	stem_insert(ctx, index + 1);
}

/* Moves a finished chart into the list. */
static void chart_done(struct chart_context *ctx, struct chart *chart)
{
	struct charts *charts = ctx->charts;

	ALLOC_GROW(charts->items, charts->nr + 1, charts->alloc);
	charts->items[charts->nr++] = *chart;
	*chart = (struct chart)CHART_INIT;
	stem_add(ctx, charts->nr - 1);
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
	while (stem_taken(ctx, chart->stem.buf)) {
		strbuf_setlen(&chart->stem, base_len);
		strbuf_addf(&chart->stem, "-%zu", ++count);
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

/* set_title() for a chart a report shows: its kind, and its caption
 * ("latency (ms) by variant: bench / cpu"). */
static void chart_title(struct chart *chart, const char *kind,
			struct strbuf *text, const char *const *names)
{
	struct strbuf caption = STRBUF_INIT;

	strbuf_addstr(&caption, text->buf);
	strbuf_addstr(&caption, ": ");
	case_label(&caption, names);
	chart->kind = kind;
	free(chart->caption);
	chart->caption = strbuf_detach(&caption, NULL);
	set_title(&chart->gp, text, names);
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

/*
 * The y axis: gnuplot's autoscale with 8 % of room above and below what
 * is shown, except below zero when nothing shown is negative (data_low,
 * the least value of the data; shown_low, of everything drawn, a noise
 * band included): the room below a latency near zero would otherwise
 * take the axis to -2 ms. Tics then stay at zero or above, as autoscale
 * extends a range only to the tic below its end.
 */
static void add_y_room(struct strbuf *gp, double data_low, double shown_low,
		       double high)
{
	double low = fmin(data_low, shown_low);

	strbuf_addstr(gp, "set offsets 0, 0, graph 0.08, graph 0.08\n");
	if (data_low >= 0 && low - 0.1 * (high - low) < 0)
		strbuf_addstr(gp, "set yrange [0:*]\n");
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
	double low = mc->candidate.ci_low, high = mc->candidate.ci_high;
	bool band = item->has_band, first = true;

	if (!nr || !finite_summary(&mc->candidate))
		goto done;
	chart_name(ctx, &chart, "history", parts);
	script_begin(&chart.gp, chart.stem.buf, "history of a metric");

	strbuf_addstr(&chart.dat, "# index 0: commits, oldest first\n"
				  "# x median ci_low ci_high\n");
	for (size_t i = 0; i < nr; i++) {
		strbuf_addf(&chart.dat, "%zu %.9g %.9g %.9g\n", i,
			    points[i].median, points[i].ci_low,
			    points[i].ci_high);
		low = fmin(low, fmin(points[i].median, points[i].ci_low));
		high = fmax(high, fmax(points[i].median, points[i].ci_high));
	}
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
	chart_title(&chart, "history", &text, names);
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
	strbuf_addf(&chart.gp, ")\nset xrange [-0.5:%zu.5]\n", nr);
	add_y_room(&chart.gp, low, band ? center - spread : low,
		   band ? fmax(high, center + spread) : high);
	strbuf_addf(&chart.gp,
		    "set style fill solid 1.0 noborder\n"
		    "plot '%s.dat' ",
		    chart.stem.buf);
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

static int compare_names(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static bool same(const char *a, const char *b)
{
	return !compare_names(a, b);
}

/* Orders elements of one array by address, their order in it. */
static int compare_places(const void *a, const void *b)
{
	return (const char *)a < (const char *)b   ? -1
	       : (const char *)a > (const char *)b ? 1
						   : 0;
}

/* Orders by benchmark, device and metric (NULL as ""), then by place. */
static int compare_group_keys(const char *const x[3], const void *x_place,
			      const char *const y[3], const void *y_place)
{
	int order = 0;

	for (size_t i = 0; !order && i < 3; i++)
		order = compare_names(x[i], y[i]);
	return order ? order : compare_places(x_place, y_place);
}

/* Orders items by benchmark, device and metric, then by their place in
 * the comparison, so that the items of a variants chart (a benchmark,
 * device and metric) and of a tradeoff chart (a benchmark and device) are
 * runs of them: finding them by scanning every item for each group was
 * quadratic. */
static int compare_by_group(const void *a, const void *b)
{
	const struct metric_comparison *x =
		*(const struct metric_comparison *const *)a;
	const struct metric_comparison *y =
		*(const struct metric_comparison *const *)b;

	return compare_group_keys(
		(const char *[3]){ x->benchmark, x->device, x->metric }, x,
		(const char *[3]){ y->benchmark, y->device, y->metric }, y);
}

/* Orders a group's items by variant, then by place. */
static int compare_by_variant(const void *a, const void *b)
{
	const struct metric_comparison *x =
		*(const struct metric_comparison *const *)a;
	const struct metric_comparison *y =
		*(const struct metric_comparison *const *)b;
	int order = compare_names(x->variant, y->variant);

	return order ? order : compare_places(x, y);
}

/* The items of one chart: a run of the sorted items. */
struct group {
	const struct metric_comparison **items; /* in the comparison's order
						 * within a metric */
	size_t nr;
	size_t first; /* the comparison's index of its first item */
	bool charted; /* one of its items is */
};

struct groups {
	struct group *items;
	size_t nr, alloc;
};

static int compare_firsts(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Splits the items sorted by compare_by_group() into runs of one
 * benchmark and device, and metric when by_metric, in the order of their
 * first items, as the charts are drawn. */
static void group_items(struct groups *out, const struct report_model *model,
			const struct metric_comparison **sorted, size_t nr,
			bool by_metric)
{
	const struct metric_comparison *items = model->comparison->items;

	for (size_t i = 0; i < nr; i++) {
		const struct metric_comparison *mc = sorted[i];
		size_t at = (size_t)(mc - items);
		struct group *group;

		if (!i || !same(sorted[i - 1]->benchmark, mc->benchmark) ||
		    !same(sorted[i - 1]->device, mc->device) ||
		    (by_metric && !same(sorted[i - 1]->metric, mc->metric))) {
			ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			out->items[out->nr++] =
				(struct group){ &sorted[i], 0, at, false };
		}
		group = &out->items[out->nr - 1];
		group->nr++;
		if (at < group->first)
			group->first = at;
		group->charted |= model->items[at].charted;
	}
	if (out->nr) /* none allocated: qsort() takes no NULL */
		qsort(out->items, out->nr, sizeof(*out->items), compare_firsts);
}

/* Variants side by side */

static void variants_chart(struct chart_context *ctx, const struct group *group)
{
	const struct metric_comparison *head = group->items[0];
	const char *names[] = { head->benchmark, head->device, NULL };
	const char *parts[] = { head->benchmark, head->device, head->metric,
				NULL };
	const struct metric_comparison **members = NULL;
	struct chart chart = CHART_INIT;
	struct strbuf text = STRBUF_INIT, baseline = STRBUF_INIT;
	size_t nr = 0, alloc = 0;
	double low = 0, high = 0;

	for (size_t i = 0; i < group->nr; i++) {
		const struct metric_comparison *mc = group->items[i];

		if (!finite_summary(&mc->candidate))
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

	metric_axis_label(&text, head->metric, head->unit);
	strbuf_addstr(&text, " by variant");
	chart_title(&chart, "variants", &text, names);
	metric_axis_label(&text, head->metric, head->unit);
	strbuf_addstr(&text, head->better == BETTER_LOWER
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

/* The metric the variant comparisons of the group measured speed on, else
 * "latency". */
static const char *speed_metric_of(const struct chart_context *ctx,
				   const struct metric_comparison *group)
{
	const struct variant_comparison *const *variants = ctx->variants;
	size_t low = 0, high = ctx->variants_nr;

	/* the first of the benchmark and device in the sorted variants */
	while (low < high) {
		size_t mid = low + (high - low) / 2;
		int order = compare_names(variants[mid]->benchmark,
					  group->benchmark);

		if (!order)
			order = compare_names(variants[mid]->device,
					      group->device);
		if (order < 0)
			low = mid + 1;
		else
			high = mid;
	}
	for (; low < ctx->variants_nr &&
	       same(variants[low]->benchmark, group->benchmark) &&
	       same(variants[low]->device, group->device);
	     low++)
		if (variants[low]->speed_metric)
			return variants[low]->speed_metric;
	return "latency";
}

/* Orders variant comparisons by benchmark and device, then by place. */
static int compare_variants(const void *a, const void *b)
{
	const struct variant_comparison *x =
		*(const struct variant_comparison *const *)a;
	const struct variant_comparison *y =
		*(const struct variant_comparison *const *)b;

	return compare_group_keys(
		(const char *[3]){ x->benchmark, x->device, NULL }, x,
		(const char *[3]){ y->benchmark, y->device, NULL }, y);
}

/* The first accuracy metric of the group in the comparison's order. */
static const char *accuracy_metric_of(const struct group *group)
{
	const struct metric_comparison *found = NULL;

	for (size_t i = 0; i < group->nr; i++)
		if (strstr(group->items[i]->metric, "accuracy") &&
		    (!found || group->items[i] < found))
			found = group->items[i];
	return found ? found->metric : NULL;
}

/* One variant of a tradeoff chart: its first item, and its speed and
 * accuracy with candidate numbers. */
struct tradeoff_point {
	const struct metric_comparison *first, *speed, *accuracy;
};

static int compare_points(const void *a, const void *b)
{
	const struct tradeoff_point *x = a, *y = b;

	return compare_places(x->first, y->first);
}

/* The points of the group's variants that have both metrics, in the
 * order of their first items. */
static size_t tradeoff_points(struct tradeoff_point **out,
			      const struct group *group, const char *speed,
			      const char *accuracy)
{
	const struct metric_comparison **items =
		xmalloc((group->nr + 1) * sizeof(*items));
	struct tradeoff_point *points = xcalloc(group->nr + 1, sizeof(*points));
	size_t nr = 0;

	memcpy(items, group->items, group->nr * sizeof(*items));
	qsort(items, group->nr, sizeof(*items), compare_by_variant);
	for (size_t i = 0; i < group->nr; i++) {
		const struct metric_comparison *mc = items[i];

		/* a variant's run starts with its first item; the point
		 * before it stays when it has both metrics */
		if (!i || !same(items[i - 1]->variant, mc->variant)) {
			nr += i && points[nr].speed && points[nr].accuracy;
			points[nr] = (struct tradeoff_point){ mc, NULL, NULL };
		}
		if (!finite_summary(&mc->candidate))
			continue;
		if (!points[nr].speed && same(mc->metric, speed))
			points[nr].speed = mc;
		if (!points[nr].accuracy && same(mc->metric, accuracy))
			points[nr].accuracy = mc;
	}
	nr += group->nr && points[nr].speed && points[nr].accuracy;
	qsort(points, nr, sizeof(*points), compare_points);
	free(items);
	*out = points;
	return nr;
}

/* Appends, for each point whose baseline measured both metrics, the
 * baseline's place and the move from it to the candidate's ("x y dx
 * dy"); returns whether any did. */
static bool tradeoff_moves(struct strbuf *out,
			   const struct tradeoff_point *points, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		const struct metric_comparison *s = points[i].speed;
		const struct metric_comparison *a = points[i].accuracy;
		double x = s->baseline.median, y = a->baseline.median;

		if (!s->has_baseline || !a->has_baseline || !isfinite(x) ||
		    !isfinite(y))
			continue;
		strbuf_addf(out, "%.9g %.9g %.9g %.9g\n", x, y,
			    s->candidate.median - x, a->candidate.median - y);
	}
	return out->len > 0;
}

static void tradeoff_chart(struct chart_context *ctx, const struct group *group)
{
	const struct metric_comparison *head = group->items[0];
	const char *names[] = { head->benchmark, head->device, NULL };
	const char *speed = speed_metric_of(ctx, head);
	const char *accuracy = accuracy_metric_of(group);
	const struct metric_comparison *first_s, *first_a;
	struct tradeoff_point *points = NULL;
	struct chart chart = CHART_INIT;
	struct strbuf text = STRBUF_INIT, moves = STRBUF_INIT;
	size_t nr = 0;

	if (accuracy)
		nr = tradeoff_points(&points, group, speed, accuracy);
	if (nr < 2)
		goto done;
	first_s = points[0].speed;
	first_a = points[0].accuracy;
	chart_name(ctx, &chart, "tradeoff", names);
	script_begin(&chart.gp, chart.stem.buf, "accuracy against latency");
	strbuf_addstr(&text, "accuracy against ");
	add_label_text(&text, speed);
	strbuf_addf(&text, ", %s-%s is better",
		    first_a->better == BETTER_HIGHER ? "up" : "down",
		    first_s->better == BETTER_LOWER ? "left" : "right");
	chart_title(&chart, "tradeoff", &text, names);
	metric_axis_label(&text, speed, first_s->unit);
	strbuf_addf(&text, ", median and %d%% CI", ctx->confidence_percent);
	set_text(&chart.gp, "xlabel", &text);
	metric_axis_label(&text, accuracy, first_a->unit);
	set_text(&chart.gp, "ylabel", &text);
	strbuf_addf(&chart.gp,
		    "set offsets graph 0.1, graph 0.1, "
		    "graph 0.1, graph 0.1\nplot '%s.dat' ",
		    chart.stem.buf);
	/* Where each variant was, drawn first so the points stay on top. */
	if (tradeoff_moves(&moves, points, nr))
		strbuf_addf(&chart.gp,
			    "index %zu using 1:2:3:4 with vectors head filled "
			    "size screen 0.012,25 lc rgb '#666666' lw 1.5 "
			    "title 'from baseline to candidate', \\\n"
			    "\t'' index %zu using 1:2 with points pt 6 ps 1.6 "
			    "lc rgb '#666666' title 'baseline', \\\n\t'' ",
			    nr, nr);

	for (size_t i = 0; i < nr; i++) {
		const struct metric_comparison *s = points[i].speed;
		const struct metric_comparison *a = points[i].accuracy;

		strbuf_addf(&chart.dat,
			    "%s# index %zu: x median, y median, "
			    "x ci_low, x ci_high\n%.9g %.9g %.9g %.9g\n",
			    i ? "\n\n" : "", i, s->candidate.median,
			    a->candidate.median, s->candidate.ci_low,
			    s->candidate.ci_high);
		strbuf_addf(&chart.gp,
			    "%sindex %zu using 1:2:3:4 with "
			    "xerrorbars ls %zu ps 2",
			    i ? ", \\\n\t'' " : "", i, i % STYLES_NR + 1);
		add_label_text(&text, points[i].first->variant);
		add_title(&chart.gp, &text);
	}
	if (moves.len)
		strbuf_addf(&chart.dat,
			    "\n\n# index %zu: baseline x, y, and the move to "
			    "the candidate dx, dy\n%s",
			    nr, moves.buf);
	strbuf_addch(&chart.gp, '\n');
	script_end(&chart.gp, chart.stem.buf);
	chart_done(ctx, &chart);
done:
	free(points);
	strbuf_release(&text);
	strbuf_release(&moves);
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
	chart_title(&chart, "distribution", &text, names);
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
	strbuf_addstr(&chart.gp, ")\nset xrange [0.4:2.6]\n");
	add_y_room(&chart.gp, fmin(base->box.min, cand->box.min),
		   fmin(base->box.min, cand->box.min),
		   fmax(base->box.max, cand->box.max));
	strbuf_addf(&chart.gp,
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

/* The gate decided that the metric changed: its history tells whether
 * the change stands out of the noise. */
static bool decided(enum verdict verdict)
{
	return verdict == VERDICT_REGRESSION || verdict == VERDICT_IMPROVEMENT;
}

void charts_render(struct charts *charts, const struct report_model *model)
{
	const struct comparison *cmp = model->comparison;
	struct chart_context ctx = {
		.charts = charts,
		.confidence_percent = (int)lround(model->confidence * 100),
	};
	const struct metric_comparison **sorted =
		xmalloc((cmp->nr + 1) * sizeof(*sorted));
	struct groups by_metric = { 0 }, by_device = { 0 };

	assert(model->built);
	for (size_t i = 0; i < charts->nr; i++)
		stem_add(&ctx, i);
	ctx.variants = xmalloc((cmp->variants_nr + 1) * sizeof(*ctx.variants));
	ctx.variants_nr = cmp->variants_nr;
	for (size_t i = 0; i < cmp->variants_nr; i++)
		ctx.variants[i] = &cmp->variants[i];
	qsort(ctx.variants, ctx.variants_nr, sizeof(*ctx.variants),
	      compare_variants);
	for (size_t i = 0; i < cmp->nr; i++)
		sorted[i] = &cmp->items[i];
	qsort(sorted, cmp->nr, sizeof(*sorted), compare_by_group);
	group_items(&by_metric, model, sorted, cmp->nr, true);
	group_items(&by_device, model, sorted, cmp->nr, false);

	for (size_t i = 0; model->history_nr && model->candidate && i < cmp->nr;
	     i++)
		if (model->items[i].charted && decided(cmp->items[i].verdict))
			history_chart(&ctx, model, &cmp->items[i],
				      &model->items[i]);
	for (size_t i = 0; i < by_metric.nr; i++)
		if (by_metric.items[i].charted &&
		    same(by_metric.items[i].items[0]->metric,
			 speed_metric_of(&ctx, by_metric.items[i].items[0])))
			variants_chart(&ctx, &by_metric.items[i]);
	for (size_t i = 0; i < by_device.nr; i++)
		if (by_device.items[i].charted)
			tradeoff_chart(&ctx, &by_device.items[i]);
	for (size_t i = 0; model->baseline && model->candidate && i < cmp->nr;
	     i++)
		/* an exact metric's samples are one value */
		if (model->items[i].charted && !cmp->items[i].exact &&
		    cmp->items[i].verdict == VERDICT_REGRESSION)
			distribution_chart(&ctx, model, &cmp->items[i],
					   &model->items[i]);
	free(by_metric.items);
	free(by_device.items);
	free(sorted);
	free(ctx.variants);
	free(ctx.stems.slots);
}

void charts_release(struct charts *charts)
{
	for (size_t i = 0; i < charts->nr; i++)
		chart_release(&charts->items[i]);
	free(charts->items);
	*charts = (struct charts)CHARTS_INIT;
}

/* The dashboard's series chart */

/* A series chart shows the newest points only: ten thousand commits are
 * no more readable than five hundred, and cost gnuplot twenty times as
 * long on every republish. */
#define SERIES_CHART_POINTS 500

static void series_levels_data(struct strbuf *dat,
			       const struct history_series *s,
			       const struct report_level *levels,
			       size_t first)
{
	bool first_level = true;

	/* One blank line between two levels (two separate curves); two
	 * would start another index. */
	strbuf_addstr(dat, "\n\n# index 1: levels between change points\n"
			   "# x low high center\n");
	for (size_t i = 0; i <= s->changes_nr; i++) {
		const struct report_level *level = &levels[i];
		double x0, x1;

		if (level->end <= first || !isfinite(level->center))
			continue;
		if (!first_level)
			strbuf_addch(dat, '\n');
		first_level = false;
		x0 = (double)s->points[level->first > first ? level->first
							    : first]
			     .commit -
		     0.5;
		x1 = (double)s->points[level->end - 1].commit + 0.5;
		strbuf_addf(dat, "%.9g %.9g %.9g %.9g\n%.9g %.9g %.9g %.9g\n",
			    x0, level->center - level->spread,
			    level->center + level->spread, level->center, x1,
			    level->center - level->spread,
			    level->center + level->spread, level->center);
	}
}

/* Marks each change point in view, and writes those of each direction as
 * the next index of the data when there are any: gnuplot counts no block
 * without data as an index, so an empty one would shift those after it.
 * index_of[0] (regressions) and [1] (improvements) are their indices, or
 * -1. */
static void series_changes_data(struct strbuf *gp, struct strbuf *dat,
				const struct history_series *s, size_t first,
				int index_of[2])
{
	int next = 2;

	for (int regression = 1; regression >= 0; regression--) {
		size_t nr = 0;

		for (size_t i = 0; i < s->changes_nr; i++) {
			const struct history_change *c = &s->changes[i];
			const struct history_point *p = &s->points[c->at.index];

			if (c->at.index < first || c->regression != regression)
				continue;
			if (!nr++)
				strbuf_addf(dat, "\n\n# index %d: %s\n"
						 "# x median\n",
					    next,
					    regression ? "regressions"
						       : "improvements");
			strbuf_addf(dat, "%zu %.9g\n", p->commit, p->median);
			strbuf_addf(gp,
				    "set arrow from %g, graph 0 to %g, graph 1 "
				    "nohead lc rgb '%s' lw 1 dt 2\n",
				    (double)p->commit - 0.5,
				    (double)p->commit - 0.5,
				    regression ? "#c0392b" : "#1b9e77");
		}
		index_of[regression ? 0 : 1] = nr ? next++ : -1;
	}
}

void charts_series(struct chart *chart, const char *stem,
		   const struct history *history,
		   const struct history_series *s,
		   const struct report_level *levels)
{
	const char *names[] = { s->benchmark, s->variant, s->device, NULL };
	struct strbuf text = STRBUF_INIT;
	size_t first = s->points_nr > SERIES_CHART_POINTS
			       ? s->points_nr - SERIES_CHART_POINTS
			       : 0;
	size_t shown = s->points_nr - first, step;
	int index_of[2];
	bool first_tic = true;

	strbuf_addstr(&chart->stem, stem);
	strbuf_addstr(&chart->gp, "reset\n");
	strbuf_addf(&chart->gp,
		    "# benchgate chart: history of a series.\n"
		    "# Redraw with `gnuplot %s.gp` in this directory.\n"
		    "set encoding utf8\n"
		    "set terminal svg size %d,%d font '%s' noenhanced "
		    "background '#ffffff'\n"
		    "set output '%s.svg'\n%s",
		    stem, CHART_WIDTH, CHART_HEIGHT, CHART_FONT, stem,
		    chart_styles);
	strbuf_addstr(&chart->dat, "# index 0: points, oldest first\n"
				   "# commit median ci_low ci_high\n");
	for (size_t i = first; i < s->points_nr; i++)
		strbuf_addf(&chart->dat, "%zu %.9g %.9g %.9g\n",
			    s->points[i].commit, s->points[i].median,
			    s->points[i].ci_low, s->points[i].ci_high);
	series_levels_data(&chart->dat, s, levels, first);
	series_changes_data(&chart->gp, &chart->dat, s, first, index_of);

	metric_axis_label(&text, s->metric, s->unit);
	if (first)
		strbuf_addf(&text, ", the newest %zu of %zu points", shown,
			    s->points_nr);
	set_title(&chart->gp, &text, names);
	metric_axis_label(&text, s->metric, s->unit);
	set_text(&chart->gp, "ylabel", &text);
	strbuf_addstr(&text, "commit, oldest to newest");
	set_text(&chart->gp, "xlabel", &text);
	step = (shown + HISTORY_TICKS_MAX - 1) / HISTORY_TICKS_MAX;
	strbuf_addstr(&chart->gp, "set xtics rotate by 30 right (");
	for (size_t i = first; i < s->points_nr; i++) {
		if ((s->points_nr - 1 - i) % (step ? step : 1))
			continue;
		short_commit(&text, history->commits[s->points[i].commit].commit);
		add_tic(&chart->gp, first_tic, &text,
			(double)s->points[i].commit);
		first_tic = false;
	}
	strbuf_addf(&chart->gp,
		    ")\nset xrange [%g:%g]\n"
		    "set offsets 0, 0, graph 0.08, graph 0.08\n"
		    "set style fill transparent solid 0.35 noborder\n"
		    "plot '%s.dat' index 1 using 1:2:3 with filledcurves "
		    "fc rgb '#bbbbbb' title 'level \u00b1 robust SD', \\\n"
		    "\t'' index 1 using 1:4 with lines lc rgb '#555555' lw 1 "
		    "dt 2 notitle, \\\n"
		    "\t'' index 0 using 1:2:3:4 with yerrorlines ls 1 ps %s "
		    "title 'median, %g%% CI'",
		    (double)s->points[first].commit - 0.5,
		    (double)s->points[s->points_nr - 1].commit + 0.5, stem,
		    /* Hundreds of full-size dots hide the line. */
		    shown > 100 ? "0.4" : "1", HISTORY_CONFIDENCE * 100);
	if (index_of[0] >= 0)
		strbuf_addf(&chart->gp,
			    ", \\\n\t'' index %d using 1:2 with points pt 9 "
			    "ps 2.2 lc rgb '#c0392b' title 'regression'",
			    index_of[0]);
	if (index_of[1] >= 0)
		strbuf_addf(&chart->gp,
			    ", \\\n\t'' index %d using 1:2 with points pt 11 "
			    "ps 2.2 lc rgb '#1b9e77' title 'improvement'",
			    index_of[1]);
	strbuf_addstr(&chart->gp, "\nunset output\n");
	strbuf_release(&text);
}
