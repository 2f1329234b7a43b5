/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/flamegraph.h"

#include "harness/util/alloc.h"
#include "harness/util/hash.h"
#include "harness/util/utf8.h"
#include "reporters/escape.h"

#include <stdlib.h>
#include <string.h>

/* The layout of flamegraph.pl, which users know how to read. */
#define DEFAULT_WIDTH 1200
#define X_PAD	      10
#define FRAME_HEIGHT  16
#define FONT_SIZE     12
#define FONT_WIDTH    0.59 /* average glyph width / font size */
#define MIN_WIDTH     0.1  /* narrower boxes are left out, pixels */
#define TITLE_ROOM    (FONT_SIZE * 3)
#define SUBTITLE_ROOM (FONT_SIZE * 2)
#define DETAILS_ROOM  (FONT_SIZE * 2 + 10)

/* One box: a frame over the samples [start, end) at depth (0: "all"). */
struct node {
	const char *name;
	size_t len;
	size_t depth;
	uint64_t start, end;
};

struct layout {
	struct node *nodes;
	size_t nr, alloc;
	size_t max_depth;
	struct node *open; /* open[d]: the frame at depth d + 1 */
	size_t open_nr, open_alloc;
};

static void close_frames(struct layout *layout, size_t keep, uint64_t at)
{
	while (layout->open_nr > keep) {
		struct node *node = &layout->open[--layout->open_nr];

		node->end = at;
		ALLOC_GROW(layout->nodes, layout->nr + 1, layout->alloc);
		layout->nodes[layout->nr++] = *node;
	}
}

/*
 * The merge of flamegraph.pl: walking the stacks in per-level order, a
 * frame stays open while consecutive stacks share it, so each box covers
 * every sample of its frame under the same callers, and its callees come
 * in alphabetical order above it.
 */
static void lay_out(struct layout *layout,
		    const struct flamegraph_stacks *stacks)
{
	const struct flamegraph_stack *sorted = stacks->items;
	struct node root = { "all", 3, 0, 0, stacks->total };
	uint64_t x = 0;

	ALLOC_GROW(layout->nodes, 1, layout->alloc);
	layout->nodes[layout->nr++] = root;
	for (size_t i = 0; i < stacks->nr; i++) {
		const char *frame = sorted[i].frames;
		size_t depth = 0;

		for (;;) {
			size_t len = strcspn(frame, ";");

			if (depth < layout->open_nr &&
			    (layout->open[depth].len != len ||
			     memcmp(layout->open[depth].name, frame, len)))
				close_frames(layout, depth, x);
			if (depth == layout->open_nr) {
				struct node node = { frame, len, depth + 1, x,
						     x };

				ALLOC_GROW(layout->open, layout->open_nr + 1,
					   layout->open_alloc);
				layout->open[layout->open_nr++] = node;
			}
			depth++;
			if (!frame[len])
				break;
			frame += len + 1;
		}
		close_frames(layout, depth, x);
		if (depth > layout->max_depth)
			layout->max_depth = depth;
		x += sorted[i].count;
	}
	close_frames(layout, 0, x);
}

/* flamegraph.pl's palettes, chosen by name rather than at random: "hot"
 * for user code, orange for the kernel as its "mixed" mode draws it. */
static void add_colour(struct strbuf *out, const char *name, size_t len)
{
	uint64_t h = hash_fnv1a64(name, len);
	double v1 = (double)(h & 0xff) / 255;
	double v2 = (double)((h >> 8) & 0xff) / 255;
	double v3 = (double)((h >> 16) & 0xff) / 255;
	size_t suffix = strlen(FLAMEGRAPH_KERNEL_SUFFIX);

	if (len > suffix &&
	    !memcmp(name + len - suffix, FLAMEGRAPH_KERNEL_SUFFIX, suffix))
		strbuf_addf(out, "rgb(%d,%d,0)", 190 + (int)(65 * v1),
			    90 + (int)(65 * v1));
	else
		strbuf_addf(out, "rgb(%d,%d,%d)", 205 + (int)(50 * v3),
			    (int)(230 * v1), (int)(55 * v2));
}

/* The label that fits in width pixels: the name, or its start and "..". */
static void add_label(struct strbuf *out, const char *name, size_t len,
		      double width)
{
	struct strbuf text = STRBUF_INIT;
	size_t fits = (size_t)(width / (FONT_SIZE * FONT_WIDTH));

	if (fits >= 3) {
		strbuf_add(&text, name, len);
		if (len > fits) {
			strbuf_setlen(&text,
				      utf8_prefix_len(text.buf, fits - 2));
			strbuf_addstr(&text, "..");
		}
	}
	escape_xml_text(out, text.buf);
	strbuf_release(&text);
}

static void add_node(struct strbuf *out, const struct node *node,
		     uint64_t total, double scale, int height)
{
	struct strbuf name = STRBUF_INIT;
	double x = X_PAD + (double)node->start * scale;
	double width = (double)(node->end - node->start) * scale;
	int y = height - DETAILS_ROOM - (int)(node->depth + 1) * FRAME_HEIGHT;
	uint64_t samples = node->end - node->start;

	strbuf_add(&name, node->name, node->len);
	strbuf_addstr(out, "<g class=\"f\"><title>");
	escape_xml_text(out, name.buf);
	strbuf_addf(out,
		    " (%llu sample%s, %.2f%%)</title><rect x=\"%.2f\" "
		    "y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"",
		    (unsigned long long)samples, samples == 1 ? "" : "s",
		    100.0 * (double)samples / (double)total, x, y + 1, width,
		    FRAME_HEIGHT - 1);
	add_colour(out, node->name, node->len);
	strbuf_addf(out, "\" rx=\"2\"/><text x=\"%.2f\" y=\"%d\">", x + 3,
		    y + FRAME_HEIGHT - 4);
	add_label(out, name.buf, name.len, width - 6);
	strbuf_addstr(out, "</text></g>\n");
	strbuf_release(&name);
}

static const char svg_style[] =
	"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
	"#title{font-size:17px;text-anchor:middle}\n"
	"#subtitle{fill:#555;text-anchor:middle}\n"
	"g.f{cursor:pointer}\n"
	"g.f text{pointer-events:none}\n"
	"g.f:hover rect{stroke:#000;stroke-width:1}\n"
	".button{fill:#333;cursor:pointer}\n"
	".button:hover{text-decoration:underline}\n";

/* Zoom and search read each frame back from its <title> and <rect>: the
 * SVG is the only data. The count suffix " (N samples, P%)" is the
 * renderer's own, so its last " (" ends the name whatever the name holds. */
static const char svg_script[] =
	"(function () {\n"
	"var PAD = 10, GLYPH = 12 * 0.59;\n"
	"var root = document.documentElement;\n"
	"var W = +root.getAttribute('width') - 2 * PAD;\n"
	"var frames = [].slice.call(document.querySelectorAll('g.f'));\n"
	"var details = document.getElementById('details');\n"
	"var matched = document.getElementById('matched');\n"
	"var reset = document.getElementById('reset');\n"
	"var search = document.getElementById('search');\n"
	"var searching = false;\n"
	"frames.forEach(function (g) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('title');\n"
	"  g.label = t.textContent;\n"
	"  g.name = g.label.slice(0, g.label.lastIndexOf(' ('));\n"
	"  g.x0 = +r.getAttribute('x'); g.w0 = +r.getAttribute('width');\n"
	"  g.y0 = +r.getAttribute('y'); g.fill0 = r.getAttribute('fill');\n"
	"});\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  var fits = Math.floor((w - 6) / GLYPH), s = g.name;\n"
	"  r.setAttribute('x', x.toFixed(2));\n"
	"  r.setAttribute('width', w.toFixed(2));\n"
	"  t.setAttribute('x', (x + 3).toFixed(2));\n"
	"  if (fits < 3) s = ''; else if (s.length > fits)\n"
	"    s = s.slice(0, fits - 2) + '..';\n"
	"  t.textContent = s;\n"
	"}\n"
	"function zoom(f) {\n"
	/* the SVG rounds to 0.01 pixel; boxes are at least 0.1 wide */
	"  var scale = W / f.w0, eps = 0.02;\n"
	"  frames.forEach(function (g) {\n"
	"    var inside = g.x0 >= f.x0 - eps &&\n"
	"                 g.x0 + g.w0 <= f.x0 + f.w0 + eps;\n"
	"    g.style.display = '';\n"
	"    g.style.opacity = '';\n"
	"    if (g.y0 > f.y0 && g.x0 <= f.x0 + eps &&\n"
	"        g.x0 + g.w0 >= f.x0 + f.w0 - eps) {\n"
	"      place(g, PAD, W); g.style.opacity = '0.6';\n"
	"    } else if (g.y0 <= f.y0 && inside) {\n"
	"      place(g, PAD + (g.x0 - f.x0) * scale, g.w0 * scale);\n"
	"    } else {\n"
	"      g.style.display = 'none';\n"
	"    }\n"
	"  });\n"
	"  reset.setAttribute('visibility', 'visible');\n"
	"}\n"
	"function unzoom() {\n"
	"  frames.forEach(function (g) {\n"
	"    g.style.display = ''; g.style.opacity = '';\n"
	"    place(g, g.x0, g.w0);\n"
	"  });\n"
	"  reset.setAttribute('visibility', 'hidden');\n"
	"}\n"
	"function find() {\n"
	"  var spans = [], total = 0, end = -1, re, term;\n"
	"  frames.forEach(function (g) {\n"
	"    g.querySelector('rect').setAttribute('fill', g.fill0);\n"
	"  });\n"
	"  matched.textContent = ' ';\n"
	"  search.textContent = 'Search';\n"
	"  if (searching) { searching = false; return; }\n"
	"  term = window.prompt('Search frames (regular expression)', '');\n"
	"  if (!term) return;\n"
	"  try { re = new RegExp(term); } catch (e) {\n"
	"    matched.textContent = 'Invalid expression'; return;\n"
	"  }\n"
	"  frames.forEach(function (g) {\n"
	"    if (!re.test(g.name)) return;\n"
	"    g.querySelector('rect').setAttribute('fill', 'rgb(230,0,230)');\n"
	"    spans.push([g.x0, g.x0 + g.w0]);\n"
	"  });\n"
	"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  spans.forEach(function (s) {\n"
	"    if (s[0] >= end) { total += s[1] - s[0]; end = s[1]; }\n"
	"    else if (s[1] > end) { total += s[1] - end; end = s[1]; }\n"
	"  });\n"
	"  searching = true;\n"
	"  search.textContent = 'Reset Search';\n"
	"  matched.textContent = 'Matched: ' +\n"
	"    (100 * total / W).toFixed(1) + '%';\n"
	"}\n"
	"frames.forEach(function (g) {\n"
	"  g.addEventListener('mouseover', function () {\n"
	"    details.textContent = g.label;\n"
	"  });\n"
	"  g.addEventListener('mouseout', function () {\n"
	"    details.textContent = ' ';\n"
	"  });\n"
	"  g.addEventListener('click', function () { zoom(g); });\n"
	"});\n"
	"reset.addEventListener('click', unzoom);\n"
	"search.addEventListener('click', find);\n"
	"})();\n";

void flamegraph_stacks_add(struct flamegraph_stacks *stacks, const char *frames,
			   uint64_t count)
{
	ALLOC_GROW(stacks->items, stacks->nr + 1, stacks->alloc);
	stacks->items[stacks->nr].frames = xstrdup(frames);
	stacks->items[stacks->nr++].count = count;
	stacks->total += count;
}

void flamegraph_stacks_release(struct flamegraph_stacks *stacks)
{
	for (size_t i = 0; i < stacks->nr; i++)
		free(stacks->items[i].frames);
	free(stacks->items);
	*stacks = (struct flamegraph_stacks)FLAMEGRAPH_STACKS_INIT;
}

void flamegraph_render_svg(const struct flamegraph_stacks *stacks,
			   const struct flamegraph_options *options,
			   struct strbuf *out)
{
	struct layout layout;
	int width = options && options->width > 0 ? options->width
						  : DEFAULT_WIDTH;
	const char *title = options && options->title ? options->title
						      : "Flame Graph";
	const char *subtitle = options ? options->subtitle : NULL;
	int top = TITLE_ROOM + (subtitle ? SUBTITLE_ROOM : 0);
	int height;
	double scale;

	memset(&layout, 0, sizeof(layout));
	lay_out(&layout, stacks);
	height =
		top + (int)(layout.max_depth + 1) * FRAME_HEIGHT + DETAILS_ROOM;
	scale = stacks->total
			? (double)(width - 2 * X_PAD) / (double)stacks->total
			: 0;

	strbuf_addf(out,
		    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		    "<style>\n%s</style>\n"
		    "<rect width=\"100%%\" height=\"100%%\" "
		    "fill=\"#f4f4f0\"/>\n"
		    "<text id=\"title\" x=\"%d\" y=\"24\">",
		    width, height, width, height, svg_style, width / 2);
	escape_xml_text(out, title);
	strbuf_addstr(out, "</text>\n");
	if (subtitle) {
		strbuf_addf(out, "<text id=\"subtitle\" x=\"%d\" y=\"%d\">",
			    width / 2, 24 + SUBTITLE_ROOM);
		escape_xml_text(out, subtitle);
		strbuf_addstr(out, "</text>\n");
	}
	strbuf_addf(out,
		    "<text id=\"reset\" class=\"button\" x=\"%d\" "
		    "y=\"24\" visibility=\"hidden\">Reset Zoom</text>\n"
		    "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\">"
		    "Search</text>\n"
		    "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		    "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		    X_PAD, width - X_PAD - 100, X_PAD, height - 17,
		    width - X_PAD - 100, height - 17);
	if (!stacks->total)
		strbuf_addf(out,
			    "<text x=\"%d\" y=\"%d\">No samples were "
			    "recorded.</text>\n",
			    X_PAD, top + FRAME_HEIGHT);
	strbuf_addstr(out, "<g id=\"frames\">\n");
	for (size_t i = 0; stacks->total && i < layout.nr; i++) {
		const struct node *node = &layout.nodes[i];

		if ((double)(node->end - node->start) * scale < MIN_WIDTH)
			continue;
		add_node(out, node, stacks->total, scale, height);
	}
	strbuf_addf(out, "</g>\n<script><![CDATA[\n%s]]></script>\n</svg>\n",
		    svg_script);
	free(layout.nodes);
	free(layout.open);
}
