/* SPDX-License-Identifier: Apache-2.0 */
#include "reporters/svg_inline.h"

#include <criterion/criterion.h>
#include <string.h>

TestSuite(svg_inline);

/* The shape of gnuplot's SVG terminal output. */
static const char gnuplot_like[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
	"<svg \n width=\"800\" height=\"500\"\n viewBox=\"0 0 800 500\"\n"
	" xmlns=\"http://www.w3.org/2000/svg\"\n"
	" xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n>\n\n"
	"<title>Gnuplot</title>\n<desc>Produced by GNUPLOT 5.4</desc>\n"
	"<g id=\"gnuplot_canvas\">\n<defs>\n"
	"\t<circle id='gpPt5' r='1'/>\n"
	"\t<use xlink:href='#gpPt5' id='gpPt6' fill='currentColor'/>\n"
	"\t<filter id='textbox' filterUnits='objectBoundingBox'>"
	"<feFlood flood-color='#FFFFFF'/></filter>\n"
	"</defs>\n"
	"<g transform=\"translate(74,424)\" fill=\"black\" "
	"filter=\"url(#textbox)\"><text><tspan>a &lt; b &amp; c > d"
	"</tspan></text></g>\n"
	"<!-- a comment -->\n"
	"</g>\n</svg>\n";

static char *inline_of(const char *svg, bool expect_ok)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "HEAD");
	cr_assert_eq(svg_inline(&out, svg, "c1-", "chart",
				"Speed <by> variant"),
		     expect_ok, "for: %s\ngot: %s", svg, out.buf);
	if (!expect_ok)
		cr_assert_str_eq(out.buf, "HEAD", "a refusal appends nothing");
	return strbuf_detach(&out, NULL);
}

Test(svg_inline, keeps_the_drawing_and_prefixes_its_ids)
{
	char *html = inline_of(gnuplot_like, true);

	cr_assert(strncmp(html,
			  "HEAD<svg class=\"chart\" role=\"img\" "
			  "aria-label=\"Speed &lt;by&gt; variant\"",
			  strlen("HEAD<svg class=\"chart\" role=\"img\" "
				 "aria-label=\"Speed &lt;by&gt; variant\"")) ==
			  0,
		  "%s", html);
	cr_assert(strstr(html, "viewBox=\"0 0 800 500\""), "%s", html);
	cr_assert_null(strstr(html, "width=\"800\""), "%s", html);
	cr_assert_null(strstr(html, "<?xml"), "%s", html);
	cr_assert_null(strstr(html, "Gnuplot"), "%s", html);
	cr_assert_null(strstr(html, "comment"), "%s", html);
	cr_assert(strstr(html, "<title>Speed &lt;by&gt; variant</title>"));
	cr_assert(strstr(html, "id=\"c1-gpPt5\""), "%s", html);
	cr_assert(strstr(html, "href=\"#c1-gpPt5\""), "%s", html);
	cr_assert(strstr(html, "filter=\"url(#c1-textbox)\""), "%s", html);
	cr_assert(strstr(html, "<tspan>a &lt; b &amp; c &gt; d</tspan>"), "%s",
		  html);
	cr_assert(strstr(html, "</g>\n</svg>"), "%s", html);
	free(html);
}

Test(svg_inline, drops_what_could_run_or_load)
{
	char *html = inline_of(
		"<svg viewBox=\"0 0 1 1\" onload=\"alert(1)\">"
		"<script>alert(2)</script>"
		"<foreignObject><div xmlns=\"http://www.w3.org/1999/xhtml\">"
		"<img src=\"x\" onerror=\"alert(3)\"/></div></foreignObject>"
		"<style>@import url(http://x/)</style>"
		"<a href=\"javascript:alert(4)\"><text>link</text></a>"
		"<use href=\"http://x/y.svg#z\"/>"
		"<rect fill=\"url(http://x/p)\" stroke=\"red\" "
		"ONCLICK='alert(5)'/>"
		"<text>&#x3C;script&#62;&bogus;</text>"
		"<image href=\"http://x/i.png\"/>"
		"</svg>",
		true);

	cr_assert_null(strstr(html, "alert"), "%s", html);
	cr_assert_null(strstr(html, "http"), "%s", html);
	cr_assert_null(strstr(html, "<script"), "%s", html);
	cr_assert_null(strstr(html, "<img"), "%s", html);
	cr_assert_null(strstr(html, "<a"), "%s", html);
	cr_assert_null(strstr(html, "link"), "%s", html);
	cr_assert_null(strstr(html, "fill="), "%s", html);
	cr_assert(strstr(html, "<rect stroke=\"red\"/>"), "%s", html);
	cr_assert(strstr(html, "<text>&lt;script&gt;\xef\xbf\xbd</text>"), "%s",
		  html);
	free(html);
}

Test(svg_inline, refuses_what_is_not_one_well_formed_svg)
{
	static const char *const bad[] = {
		"",
		"not svg at all",
		"<html><svg></svg></html>",
		"<svg viewBox=\"0 0 1 1\"><g></svg>",
		"<svg><g></g>",
		"<svg x=unquoted></svg>",
		"<svg x=\"<\"></svg>",
		"<svg></svg><script>alert(1)</script>",
		"<svg></svg>trailing text",
		"<svg><!-- unterminated </svg>",
		"<svg><text><![CDATA[x</text></svg>",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		free(inline_of(bad[i], false));
}

Test(svg_inline, survives_deep_nesting)
{
	struct strbuf svg = STRBUF_INIT;

	strbuf_addstr(&svg, "<svg>");
	for (int i = 0; i < 1000; i++)
		strbuf_addstr(&svg, "<g>");
	for (int i = 0; i < 1000; i++)
		strbuf_addstr(&svg, "</g>");
	strbuf_addstr(&svg, "</svg>");
	free(inline_of(svg.buf, false));
	strbuf_release(&svg);
}
