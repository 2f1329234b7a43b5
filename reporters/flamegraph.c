#include "reporters/flamegraph.h"

#include "harness/alloc.h"
#include "harness/error.h"
#include "harness/utf8.h"
#include "reporters/escape.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The layout of flamegraph.pl, which users know how to read. */
#define DEFAULT_WIDTH 1200
#define X_PAD 10
#define FRAME_HEIGHT 16
#define FONT_SIZE 12
#define FONT_WIDTH 0.59         /* average glyph width / font size */
#define MIN_WIDTH 0.1           /* narrower boxes are left out, pixels */
#define TITLE_ROOM (FONT_SIZE * 3)
#define SUBTITLE_ROOM (FONT_SIZE * 2)
#define DETAILS_ROOM (FONT_SIZE * 2 + 10)

/* stackcollapse-perf.pl's mark of a kernel frame */
#define KERNEL_SUFFIX "_[k]"

void flamegraph_init(struct flamegraph *fg)
{
	memset(fg, 0, sizeof(*fg));
}

void flamegraph_release(struct flamegraph *fg)
{
	for (size_t i = 0; i < fg->nr; i++)
		free(fg->stacks[i].frames);
	free(fg->stacks);
	free(fg->index);
	flamegraph_init(fg);
}

/* FNV-1a: stable across runs and machines, so colours are too. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static size_t *index_slot(const struct flamegraph *fg, const char *frames)
{
	size_t mask = fg->index_size - 1;
	size_t at = (size_t)hash_bytes(frames, strlen(frames)) & mask;

	while (fg->index[at] &&
	       strcmp(fg->stacks[fg->index[at] - 1].frames, frames))
		at = (at + 1) & mask;
	return &fg->index[at];
}

/* Keeps the table at most half full, so probes stay short. */
static void index_grow(struct flamegraph *fg)
{
	size_t *old = fg->index, old_size = fg->index_size;

	if (fg->index && (fg->nr + 1) * 2 <= fg->index_size)
		return;
	fg->index_size = old_size ? old_size * 2 : 64;
	fg->index = xcalloc(fg->index_size, sizeof(*fg->index));
	for (size_t i = 0; old && i < old_size; i++)
		if (old[i])
			*index_slot(fg, fg->stacks[old[i] - 1].frames) = old[i];
	free(old);
}

void flamegraph_add(struct flamegraph *fg, const char *frames,
		    uint64_t count)
{
	size_t *slot;

	if (!count)
		return;
	index_grow(fg);
	slot = index_slot(fg, frames);
	if (!*slot) {
		ALLOC_GROW(fg->stacks, fg->nr + 1, fg->alloc);
		fg->stacks[fg->nr].frames = xstrdup(frames);
		fg->stacks[fg->nr].count = 0;
		*slot = ++fg->nr;
	}
	fg->stacks[*slot - 1].count += count;
	fg->total += count;
}

/* Folding perf script */

struct sample {
	struct strbuf command;
	char **frames;          /* leaf first, as perf prints them */
	size_t nr, alloc;
	bool open;
};

/* ';' separates frames and a newline ends the stack: neither may stay. */
static void add_frame_text(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		strbuf_addch(out, s[i] == ';' ? ':' :
				  s[i] == '\n' || s[i] == '\r' ? ' ' : s[i]);
}

static void sample_flush(struct flamegraph *fg, struct sample *sample)
{
	struct strbuf stack = STRBUF_INIT;

	if (sample->open) {
		strbuf_addstr(&stack, sample->command.buf);
		for (size_t i = sample->nr; i > 0; i--) {
			strbuf_addch(&stack, ';');
			strbuf_addstr(&stack, sample->frames[i - 1]);
		}
		flamegraph_add(fg, stack.buf, 1);
	}
	for (size_t i = 0; i < sample->nr; i++)
		free(sample->frames[i]);
	sample->nr = 0;
	sample->open = false;
	strbuf_reset(&sample->command);
	strbuf_release(&stack);
}

static bool is_pid_token(const char *s, size_t len)
{
	size_t digits = strspn(s, "0123456789");

	if (!digits)
		return false;
	if (digits < len && s[digits] == '/')
		digits += 1 + strspn(s + digits + 1, "0123456789");
	return digits == len;
}

/*
 * A sample's header: "<command> <pid>[/<tid>] ...". The command may hold
 * spaces, so it is everything before the first token made of digits that
 * follows a space, as stackcollapse-perf.pl reads it.
 */
static bool parse_header(const char *line, struct strbuf *command)
{
	const char *p = line;

	while ((p = strpbrk(p, " \t"))) {
		const char *token = p + strspn(p, " \t");
		size_t len = strcspn(token, " \t");

		if (token[len] && is_pid_token(token, len)) {
			strbuf_reset(command);
			add_frame_text(command, line, (size_t)(p - line));
			return command->len > 0;
		}
		p = token;
	}
	return false;
}

/* The length of symbol without its "+0x36" offset, if it ends with one. */
static size_t strip_offset(const char *symbol, size_t len)
{
	size_t hex = 0;

	while (hex < len && isxdigit((unsigned char)symbol[len - 1 - hex]))
		hex++;
	if (hex && hex < len && len - hex >= 3 &&
	    !strncmp(symbol + len - hex - 3, "+0x", 3))
		return len - hex - 3;
	return len;
}

/* "  4011a6 matmul+0x36 (/build/mlp_bench)" -> "matmul". */
static char *parse_frame(const char *line)
{
	struct strbuf name = STRBUF_INIT;
	const char *p = line + strspn(line, " \t");
	const char *symbol, *end, *object = NULL, *slash;
	size_t object_len = 0, len;

	p += strcspn(p, " \t");                 /* the address */
	symbol = p + strspn(p, " \t");
	end = symbol + strlen(symbol);
	while (end > symbol && isspace((unsigned char)end[-1]))
		end--;
	if (end > symbol && end[-1] == ')') {
		const char *open = end - 1;

		while (open > symbol && !(open[0] == '(' &&
					  isspace((unsigned char)open[-1])))
			open--;
		if (open > symbol || (open == symbol && *open == '(')) {
			object = open + 1;
			object_len = (size_t)(end - 1 - object);
			end = open;
			while (end > symbol && isspace((unsigned char)end[-1]))
				end--;
		}
	}
	len = strip_offset(symbol, (size_t)(end - symbol));
	if (len && !(len == 9 && !strncmp(symbol, "[unknown]", 9))) {
		add_frame_text(&name, symbol, len);
		/* time in the kernel reads differently: say where it is */
		if (object && !strncmp(object, "[kernel.", 8))
			strbuf_addstr(&name, KERNEL_SUFFIX);
	} else if (object && object_len &&
		   !(object_len == 9 && !strncmp(object, "[unknown]", 9))) {
		/* nameless code is still worth telling apart by object */
		slash = object + object_len;
		while (slash > object && slash[-1] != '/')
			slash--;
		if (*slash == '[')
			add_frame_text(&name, slash,
				       (size_t)(object + object_len - slash));
		else {
			strbuf_addch(&name, '[');
			add_frame_text(&name, slash,
				       (size_t)(object + object_len - slash));
			strbuf_addch(&name, ']');
		}
	} else {
		strbuf_addstr(&name, "[unknown]");
	}
	return strbuf_detach(&name, NULL);
}

int flamegraph_fold_perf_script(struct flamegraph *fg, FILE *in)
{
	struct sample sample = { STRBUF_INIT, NULL, 0, 0, false };
	char *line = NULL;
	size_t line_alloc = 0;
	ssize_t got;
	int error = BG_OK;

	errno = 0;
	while ((got = getline(&line, &line_alloc, in)) >= 0) {
		while (got > 0 &&
		       (line[got - 1] == '\n' || line[got - 1] == '\r'))
			line[--got] = '\0';
		if (!got || line[strspn(line, " \t")] == '\0') {
			sample_flush(fg, &sample);
		} else if (line[0] == ' ' || line[0] == '\t') {
			if (!sample.open)
				continue;
			ALLOC_GROW(sample.frames, sample.nr + 1, sample.alloc);
			sample.frames[sample.nr++] = parse_frame(line);
		} else {
			sample_flush(fg, &sample);
			sample.open = parse_header(line, &sample.command);
		}
	}
	if (ferror(in))
		error = bg_error("cannot read the output of perf script: %s",
				 strerror(errno));
	sample_flush(fg, &sample);
	free(sample.frames);
	strbuf_release(&sample.command);
	free(line);
	return error;
}

int flamegraph_parse_folded(struct flamegraph *fg, const char *text,
			    size_t len)
{
	struct strbuf frames = STRBUF_INIT;
	const char *line = text, *end = text + len;
	int line_nr = 0, error = BG_OK;

	while (line < end) {
		const char *newline = memchr(line, '\n', (size_t)(end - line));
		const char *stop = newline ? newline : end;
		const char *space;
		char *count_end;
		unsigned long long count;

		line_nr++;
		while (stop > line && (stop[-1] == '\r' || stop[-1] == ' '))
			stop--;
		if (stop > line) {
			space = stop;
			while (space > line && space[-1] != ' ')
				space--;
			errno = 0;
			count = strtoull(space, &count_end, 10);
			if (space == line || count_end != stop || errno ||
			    !isdigit((unsigned char)*space)) {
				error = bg_input_error("folded stacks line %d: "
						       "expected 'frame;frame "
						       "count'", line_nr);
				break;
			}
			strbuf_reset(&frames);
			strbuf_add(&frames, line, (size_t)(space - 1 - line));
			flamegraph_add(fg, frames.buf, count);
		}
		line = newline ? newline + 1 : end;
	}
	strbuf_release(&frames);
	return error;
}

/* Per-level order: a frame sorts before every longer name it begins
 * (';' and the end sort lowest), and a stack before its callees'. */
static int frame_byte(unsigned char c)
{
	return c == '\0' ? 0 : c == ';' ? 1 : c + 2;
}

static int compare_stacks(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)
		(*(const struct flamegraph_stack *const *)a)->frames;
	const unsigned char *y = (const unsigned char *)
		(*(const struct flamegraph_stack *const *)b)->frames;

	while (*x && *x == *y)
		x++, y++;
	return frame_byte(*x) - frame_byte(*y);
}

static const struct flamegraph_stack **sorted_stacks(
	const struct flamegraph *fg)
{
	const struct flamegraph_stack **sorted =
		xcalloc(fg->nr + 1, sizeof(*sorted));

	for (size_t i = 0; i < fg->nr; i++)
		sorted[i] = &fg->stacks[i];
	qsort(sorted, fg->nr, sizeof(*sorted), compare_stacks);
	return sorted;
}

void flamegraph_write_folded(const struct flamegraph *fg, struct strbuf *out)
{
	const struct flamegraph_stack **sorted = sorted_stacks(fg);

	for (size_t i = 0; i < fg->nr; i++)
		strbuf_addf(out, "%s %llu\n", sorted[i]->frames,
			    (unsigned long long)sorted[i]->count);
	free(sorted);
}

/* Rendering */

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
	struct node *open;      /* open[d]: the frame at depth d + 1 */
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
static void lay_out(struct layout *layout, const struct flamegraph *fg)
{
	const struct flamegraph_stack **sorted = sorted_stacks(fg);
	struct node root = { "all", 3, 0, 0, fg->total };
	uint64_t x = 0;

	ALLOC_GROW(layout->nodes, 1, layout->alloc);
	layout->nodes[layout->nr++] = root;
	for (size_t i = 0; i < fg->nr; i++) {
		const char *frame = sorted[i]->frames;
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
		x += sorted[i]->count;
	}
	close_frames(layout, 0, x);
	free(sorted);
}

/* flamegraph.pl's palettes, chosen by name rather than at random: "hot"
 * for user code, orange for the kernel as its "mixed" mode draws it. */
static void add_colour(struct strbuf *out, const char *name, size_t len)
{
	uint64_t h = hash_bytes(name, len);
	double v1 = (double)(h & 0xff) / 255;
	double v2 = (double)((h >> 8) & 0xff) / 255;
	double v3 = (double)((h >> 16) & 0xff) / 255;
	size_t suffix = strlen(KERNEL_SUFFIX);

	if (len > suffix && !memcmp(name + len - suffix, KERNEL_SUFFIX, suffix))
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
			strbuf_setlen(&text, utf8_prefix_len(text.buf,
							     fits - 2));
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
	strbuf_addf(out, " (%llu sample%s, %.2f%%)</title><rect x=\"%.2f\" "
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

void flamegraph_render_svg(const struct flamegraph *fg,
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
	lay_out(&layout, fg);
	height = top + (int)(layout.max_depth + 1) * FRAME_HEIGHT +
		 DETAILS_ROOM;
	scale = fg->total ? (double)(width - 2 * X_PAD) / (double)fg->total
			  : 0;

	strbuf_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
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
	strbuf_addf(out, "<text id=\"reset\" class=\"button\" x=\"%d\" "
		    "y=\"24\" visibility=\"hidden\">Reset Zoom</text>\n"
		    "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\">"
		    "Search</text>\n"
		    "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		    "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		    X_PAD, width - X_PAD - 100, X_PAD, height - 17,
		    width - X_PAD - 100, height - 17);
	if (!fg->total)
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\">No samples were "
			    "recorded.</text>\n", X_PAD,
			    top + FRAME_HEIGHT);
	strbuf_addstr(out, "<g id=\"frames\">\n");
	for (size_t i = 0; fg->total && i < layout.nr; i++) {
		const struct node *node = &layout.nodes[i];

		if ((double)(node->end - node->start) * scale < MIN_WIDTH)
			continue;
		add_node(out, node, fg->total, scale, height);
	}
	strbuf_addf(out, "</g>\n<script><![CDATA[\n%s]]></script>\n</svg>\n",
		    svg_script);
	free(layout.nodes);
	free(layout.open);
}
