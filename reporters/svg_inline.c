/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/svg_inline.h"

#include "harness/util/utf8.h"
#include "reporters/escape.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* gnuplot nests a handful of groups; a deeper document is not its. */
#define SVG_DEPTH_MAX 64

/* What a chart is drawn with; anything else (script, foreignObject,
 * style, a, image, animate...) is dropped with its content. */
static const char *const kept_elements[] = {
	"svg",
	"g",
	"defs",
	"title",
	"desc",
	"path",
	"rect",
	"circle",
	"ellipse",
	"line",
	"polyline",
	"polygon",
	"text",
	"tspan",
	"use",
	"symbol",
	"clipPath",
	"linearGradient",
	"radialGradient",
	"stop",
	"marker",
	"pattern",
	"filter",
	"feFlood",
	"feComposite",
	"feOffset",
	"feGaussianBlur",
	NULL,
};

/* Geometry and presentation; href and ids are handled apart. */
static const char *const kept_attributes[] = {
	"class",
	"d",
	"x",
	"y",
	"x1",
	"y1",
	"x2",
	"y2",
	"cx",
	"cy",
	"r",
	"rx",
	"ry",
	"dx",
	"dy",
	"width",
	"height",
	"viewBox",
	"points",
	"transform",
	"fill",
	"fill-opacity",
	"fill-rule",
	"stroke",
	"stroke-width",
	"stroke-dasharray",
	"stroke-linecap",
	"stroke-linejoin",
	"stroke-opacity",
	"opacity",
	"color",
	"font-family",
	"font-size",
	"font-weight",
	"font-style",
	"text-anchor",
	"dominant-baseline",
	"shape-rendering",
	"clip-path",
	"clipPathUnits",
	"filter",
	"filterUnits",
	"flood-color",
	"flood-opacity",
	"result",
	"in",
	"in2",
	"operator",
	"offset",
	"stop-color",
	"stop-opacity",
	"preserveAspectRatio",
	"patternUnits",
	"markerWidth",
	"markerHeight",
	"refX",
	"refY",
	"orient",
	"stdDeviation",
	"gradientUnits",
	"visibility",
	"display",
	"rotate",
	NULL,
};

/* Elements whose text is drawn or read out. */
static const char *const text_elements[] = { "text", "tspan", "title", "desc",
					     NULL };

static bool listed(const char *const *list, const char *name, size_t len)
{
	for (; *list; list++)
		if (strlen(*list) == len && !memcmp(*list, name, len))
			return true;
	return false;
}

struct svg_parser {
	const char *p;
	struct strbuf *out;
	const char *prefix;
	/* Open elements: whether each was kept, and whether its text is. */
	bool kept[SVG_DEPTH_MAX], text[SVG_DEPTH_MAX];
	size_t depth;
	bool root_done;
};

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == ':' || c == '_' || c == '-' ||
	       c == '.';
}

static size_t name_len(const char *p)
{
	size_t len = 0;

	while (is_name_char(p[len]))
		len++;
	return len;
}

static void skip_space(struct svg_parser *sp)
{
	sp->p += strspn(sp->p, " \t\r\n");
}

/* Decodes XML's five entities and character references; an entity that
 * is none of them (a doctype could define it) becomes U+FFFD, a '&' that
 * starts none stays as it is. */
static void decode(struct strbuf *out, const char *s, size_t len)
{
	static const struct {
		const char *name;
		char c;
	} named[] = { { "lt;", '<' },
		      { "gt;", '>' },
		      { "amp;", '&' },
		      { "quot;", '"' },
		      { "apos;", '\'' } };
	const char *end = s + len;

	while (s < end) {
		const char *semi;
		size_t i;

		if (*s != '&' || !(semi = memchr(s, ';', (size_t)(end - s)))) {
			strbuf_addch(out, *s++);
			continue;
		}
		for (i = 0; i < sizeof(named) / sizeof(*named); i++)
			if ((size_t)(semi + 1 - (s + 1)) ==
				    strlen(named[i].name) &&
			    !memcmp(s + 1, named[i].name,
				    strlen(named[i].name)))
				break;
		if (i < sizeof(named) / sizeof(*named)) {
			strbuf_addch(out, named[i].c);
		} else if (s[1] == '#') {
			bool hex = s[2] == 'x' || s[2] == 'X';
			char *stop;
			unsigned long cp =
				strtoul(s + 2 + hex, &stop, hex ? 16 : 10);

			if (stop != semi || cp == 0 || cp > 0x10ffff ||
			    (cp >= 0xd800 && cp <= 0xdfff))
				cp = UTF8_REPLACEMENT;
			utf8_encode(out, (uint32_t)cp);
		} else {
			utf8_encode(out, UTF8_REPLACEMENT);
		}
		s = semi + 1;
	}
}

/* Appends value with every reference to an id (#id, url(#id)) given the
 * prefix; false when it refers to anything outside the chart (url(...)
 * of another kind). */
static bool add_prefixed_refs(struct strbuf *out, const char *value,
			      const char *prefix)
{
	struct strbuf text = STRBUF_INIT;
	bool ok = true;

	for (const char *v = value; *v;) {
		const char *url = strstr(v, "url(");

		if (!url) {
			strbuf_addstr(&text, v);
			break;
		}
		url += 4;
		strbuf_add(&text, v, (size_t)(url - v));
		if (*url != '#') {
			ok = false;
			break;
		}
		strbuf_addf(&text, "#%s", prefix);
		v = url + 1;
	}
	if (ok)
		escape_html(out, text.buf);
	strbuf_release(&text);
	return ok;
}

/* Writes one attribute as kept, if it is. */
static void add_attribute(struct svg_parser *sp, const char *name, size_t len,
			  const char *value, bool root)
{
	size_t start = sp->out->len;

	if (len >= 2 && !strncasecmp(name, "on", 2))
		return;
	if ((len == 4 && !memcmp(name, "href", 4)) ||
	    (len == 10 && !memcmp(name, "xlink:href", 10))) {
		if (value[0] != '#')
			return;
		strbuf_addf(sp->out, " href=\"#%s", sp->prefix);
		escape_html(sp->out, value + 1);
		strbuf_addch(sp->out, '"');
		return;
	}
	if (len == 2 && !memcmp(name, "id", 2)) {
		strbuf_addf(sp->out, " id=\"%s", sp->prefix);
		escape_html(sp->out, value);
		strbuf_addch(sp->out, '"');
		return;
	}
	/* The page's CSS sizes the chart; the class is the caller's. */
	if (root && ((len == 5 && !memcmp(name, "width", 5)) ||
		     (len == 6 && !memcmp(name, "height", 6)) ||
		     (len == 5 && !memcmp(name, "class", 5))))
		return;
	if (!listed(kept_attributes, name, len))
		return;
	strbuf_addch(sp->out, ' ');
	strbuf_add(sp->out, name, len);
	strbuf_addstr(sp->out, "=\"");
	if (!add_prefixed_refs(sp->out, value, sp->prefix)) {
		strbuf_setlen(sp->out, start);
		return;
	}
	strbuf_addch(sp->out, '"');
}

/* Parses the attributes of a start tag up to its '>' (p after the name),
 * writing those kept when `keep`; false when they are not well-formed. */
static bool parse_attributes(struct svg_parser *sp, bool keep, bool root,
			     bool *empty)
{
	struct strbuf value = STRBUF_INIT;
	bool ok = false;

	for (;;) {
		const char *name, *end;
		size_t len;
		char quote;

		skip_space(sp);
		if (*sp->p == '>' || (sp->p[0] == '/' && sp->p[1] == '>')) {
			*empty = *sp->p == '/';
			sp->p += *empty ? 2 : 1;
			ok = true;
			break;
		}
		name = sp->p;
		if (!(len = name_len(name)))
			break;
		sp->p += len;
		skip_space(sp);
		if (*sp->p++ != '=')
			break;
		skip_space(sp);
		quote = *sp->p++;
		if ((quote != '"' && quote != '\'') ||
		    !(end = strchr(sp->p, quote)) ||
		    memchr(sp->p, '<', (size_t)(end - sp->p)))
			break;
		strbuf_reset(&value);
		decode(&value, sp->p, (size_t)(end - sp->p));
		sp->p = end + 1;
		if (keep)
			add_attribute(sp, name, len, value.buf, root);
	}
	strbuf_release(&value);
	return ok;
}

static bool start_tag(struct svg_parser *sp, const char *label,
		      const char *class_name)
{
	const char *name = sp->p + 1;
	size_t len = name_len(name);
	bool root = !sp->depth, parent_kept = root || sp->kept[sp->depth - 1];
	bool keep, empty = false;

	if (!len || sp->root_done || sp->depth == SVG_DEPTH_MAX ||
	    (root && (len != 3 || memcmp(name, "svg", 3))))
		return false;
	keep = parent_kept && listed(kept_elements, name, len);
	/* The chart's own title ("Gnuplot") gives way to the caller's. */
	if (sp->depth == 1 && ((len == 5 && !memcmp(name, "title", 5)) ||
			       (len == 4 && !memcmp(name, "desc", 4))))
		keep = false;
	if (keep) {
		strbuf_addch(sp->out, '<');
		strbuf_add(sp->out, name, len);
	}
	if (root) {
		strbuf_addstr(sp->out, " class=\"");
		escape_html(sp->out, class_name);
		strbuf_addstr(sp->out, "\" role=\"img\" aria-label=\"");
		escape_html(sp->out, label);
		strbuf_addch(sp->out, '"');
	}
	sp->p = name + len;
	if (!parse_attributes(sp, keep, root, &empty))
		return false;
	if (keep)
		strbuf_addstr(sp->out, empty ? "/>" : ">");
	if (root) {
		strbuf_addstr(sp->out, "<title>");
		escape_html(sp->out, label);
		strbuf_addstr(sp->out, "</title>");
		if (empty)
			strbuf_addstr(sp->out, "</svg>");
		sp->root_done = empty;
	}
	if (!empty) {
		sp->kept[sp->depth] = keep;
		sp->text[sp->depth] = keep && listed(text_elements, name, len);
		sp->depth++;
	}
	return true;
}

static bool end_tag(struct svg_parser *sp)
{
	const char *name = sp->p + 2;
	size_t len = name_len(name);

	if (!len || !sp->depth)
		return false;
	sp->p = name + len;
	skip_space(sp);
	if (*sp->p++ != '>')
		return false;
	sp->depth--;
	if (sp->kept[sp->depth]) {
		strbuf_addstr(sp->out, "</");
		strbuf_add(sp->out, name, len);
		strbuf_addch(sp->out, '>');
	}
	sp->root_done = !sp->depth;
	return true;
}

/* Text up to the next tag (or CDATA section's text): drawn text is
 * escaped again, whitespace elsewhere keeps the lines, the rest goes. */
static void add_text(struct svg_parser *sp, const char *text, size_t len)
{
	struct strbuf decoded = STRBUF_INIT;

	if (sp->depth && sp->text[sp->depth - 1]) {
		decode(&decoded, text, len);
		escape_html(sp->out, decoded.buf);
	} else if (sp->depth && sp->kept[sp->depth - 1] &&
		   memchr(text, '\n', len)) {
		strbuf_addch(sp->out, '\n');
	}
	strbuf_release(&decoded);
}

/* Skips from p past `end`; false when it never comes. */
static bool skip_past(struct svg_parser *sp, const char *end)
{
	const char *at = strstr(sp->p, end);

	if (!at)
		return false;
	sp->p = at + strlen(end);
	return true;
}

static bool parse(struct svg_parser *sp, const char *label,
		  const char *class_name)
{
	while (*sp->p) {
		const char *p = sp->p;

		if (*p != '<') {
			size_t len = strcspn(p, "<");

			if (!sp->depth && p[strspn(p, " \t\r\n")] != '<' &&
			    p[strspn(p, " \t\r\n")])
				return false; /* text outside the root */
			add_text(sp, p, len);
			sp->p += len;
		} else if (!strncmp(p, "<!--", 4)) {
			if (!skip_past(sp, "-->"))
				return false;
		} else if (!strncmp(p, "<![CDATA[", 9)) {
			const char *end = strstr(p + 9, "]]>");

			if (!end || !sp->depth)
				return false;
			if (sp->text[sp->depth - 1]) {
				struct strbuf raw = STRBUF_INIT;

				strbuf_add(&raw, p + 9, (size_t)(end - p - 9));
				escape_html(sp->out, raw.buf);
				strbuf_release(&raw);
			}
			sp->p = end + 3;
		} else if (p[1] == '?' || p[1] == '!') {
			/* the prolog, a doctype: before the root only */
			if (sp->depth || sp->root_done ||
			    !skip_past(sp, p[1] == '?' ? "?>" : ">"))
				return false;
		} else if (p[1] == '/') {
			if (!end_tag(sp))
				return false;
		} else if (!start_tag(sp, label, class_name)) {
			return false;
		}
	}
	return sp->root_done;
}

bool svg_inline(struct strbuf *out, const char *svg, const char *id_prefix,
		const char *class_name, const char *label)
{
	struct svg_parser sp = { .p = svg, .out = out, .prefix = id_prefix };
	size_t start = out->len;

	if (parse(&sp, label ? label : "", class_name ? class_name : ""))
		return true;
	strbuf_setlen(out, start);
	return false;
}
