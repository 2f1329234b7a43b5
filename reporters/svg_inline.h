/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SVG_INLINE_H
#define BENCHGATE_SVG_INLINE_H

#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * SVG documents (gnuplot's) made fit to sit inside an HTML page. The
 * report inlines them so it stays one file; what gnuplot wrote passes
 * through a parser that keeps only what draws: an allowlist of drawing
 * elements and presentation attributes, links only to ids of the same
 * chart. Scripts, event handlers, foreign objects, styles, external
 * references and entities other than XML's own are dropped, and every
 * text and value is escaped again, so a name that gnuplot passed through
 * badly can still not become markup. Each chart's ids get a prefix:
 * gnuplot names its symbols alike in every chart (gpPt0, textbox), and
 * two inlined charts would otherwise share, and fight over, them.
 */

/*
 * Appends svg as one <svg> element for an HTML page: without the XML
 * prolog, doctype and comments, its own <title> and <desc> replaced by
 * label (plain text, escaped here; also its aria-label), width and height
 * left to the page's CSS (the viewBox keeps the proportions), `class`
 * set to class_name. Returns false, appending nothing, when svg holds no
 * well-formed <svg> element. O(n) in the bytes of svg.
 */
bool svg_inline(struct strbuf *out, const char *svg, const char *id_prefix,
		const char *class_name, const char *label);

#endif
