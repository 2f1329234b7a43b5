/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The series pages' script and its CSP hash (dashboard_script.h). The
 * geometry (L, R, T, B, W, H) is dashboard_chart.c's; the chart it works
 * on is drawn there, so that the page shows all points without it.
 */
#include "reporters/dashboard_script.h"

#include "harness/util/error.h"
#include "harness/util/hash.h"

#include <string.h>

/* clang-format off */
const char dashboard_script[] =
"\n(function () {\n"
"'use strict';\n"
"var svg = document.getElementById('plot');\n"
"var chart = document.getElementById('chart');\n"
"if (!svg || !chart) return;\n"
"var L = 72, R = 788, T = 12, B = 262, W = 800, H = 300;\n"
"var unit = svg.getAttribute('data-unit') || '';\n"
"var line = document.getElementById('line');\n"
"var sel = document.getElementById('sel');\n"
"var tip = document.getElementById('tip');\n"
"var range = document.getElementById('range');\n"
"var all = Array.prototype.map.call(svg.querySelectorAll('g.pt'),\n"
"  function (g) {\n"
"    function num(name) { return parseFloat(g.getAttribute(name)); }\n"
"    return { g: g, x: num('data-x'), y: num('data-y'),\n"
"             lo: num('data-lo'), hi: num('data-hi') };\n"
"  });\n"
"if (!all.length) return;\n"
"var x0, x1, y0, y1, shown = [], drag = null, pinned = null, current = null;\n"
"function sx(x) { return x1 > x0 ? L + (x - x0) * (R - L) / (x1 - x0) : (L + R) / 2; }\n"
"function sy(y) { return y1 > y0 ? B - (y - y0) * (B - T) / (y1 - y0) : (T + B) / 2; }\n"
"function fmt(v) {\n"
"  var a = Math.abs(v);\n"
"  var t = a !== 0 && (a >= 1e6 || a < 1e-3) ? v.toExponential(2)\n"
"                                          : String(+v.toPrecision(4));\n"
"  return unit ? t + ' ' + unit : t;\n"
"}\n"
"function label(id, text) {\n"
"  var e = document.getElementById(id);\n"
"  if (e) e.textContent = text;\n"
"}\n"
"function hide() {\n"
"  if (current) current.g.classList.remove('on');\n"
"  current = null;\n"
"  tip.hidden = true;\n"
"}\n"
"function view(a, b) {\n"
"  x0 = a; x1 = b;\n"
"  shown = all.filter(function (p) { return p.x >= a && p.x <= b; });\n"
"  y0 = Infinity; y1 = -Infinity;\n"
"  shown.forEach(function (p) {\n"
"    [p.y, p.lo, p.hi].forEach(function (v) {\n"
"      if (isFinite(v)) { y0 = Math.min(y0, v); y1 = Math.max(y1, v); }\n"
"    });\n"
"  });\n"
"  if (!(y1 >= y0)) { y0 = 0; y1 = 1; }\n"
"  var pad = (y1 - y0) * 0.05 || Math.abs(y0) * 0.05 || 1;\n"
"  y0 -= pad; y1 += pad;\n"
"  all.forEach(function (p) {\n"
"    var on = p.x >= a && p.x <= b;\n"
"    p.g.style.display = on ? '' : 'none';\n"
"    if (!on) return;\n"
"    var X = sx(p.x).toFixed(1), c = p.g.querySelector('circle');\n"
"    var l = p.g.querySelector('line');\n"
"    c.setAttribute('cx', X);\n"
"    c.setAttribute('cy', sy(p.y).toFixed(1));\n"
"    if (l) {\n"
"      l.setAttribute('x1', X); l.setAttribute('x2', X);\n"
"      l.setAttribute('y1', sy(isFinite(p.lo) ? p.lo : p.y).toFixed(1));\n"
"      l.setAttribute('y2', sy(isFinite(p.hi) ? p.hi : p.y).toFixed(1));\n"
"    }\n"
"  });\n"
"  line.setAttribute('points', shown.map(function (p) {\n"
"    return sx(p.x).toFixed(1) + ',' + sy(p.y).toFixed(1);\n"
"  }).join(' '));\n"
"  label('ymax', fmt(y1));\n"
"  label('ymin', fmt(y0));\n"
"  label('xfirst', shown.length ? shown[0].g.getAttribute('data-date') : '');\n"
"  label('xlast', shown.length > 1\n"
"    ? shown[shown.length - 1].g.getAttribute('data-date') : '');\n"
"  range.textContent = shown.length + ' of ' + all.length + ' points shown';\n"
"  pinned = null;\n"
"  hide();\n"
"}\n"
"function viewAll() { view(all[0].x, all[all.length - 1].x); }\n"
"function svgX(e) {\n"
"  var r = svg.getBoundingClientRect();\n"
"  return (e.clientX - r.left) * W / r.width;\n"
"}\n"
"function nearest(vx) {\n"
"  var best = null, d = Infinity;\n"
"  shown.forEach(function (p) {\n"
"    var k = Math.abs(sx(p.x) - vx);\n"
"    if (k < d) { d = k; best = p; }\n"
"  });\n"
"  return best;\n"
"}\n"
"function add(parent, tag, text, cls) {\n"
"  var e = document.createElement(tag);\n"
"  if (text) e.textContent = text;\n"
"  if (cls) e.className = cls;\n"
"  parent.appendChild(e);\n"
"  return e;\n"
"}\n"
"function link(parent, href, text) {\n"
"  if (!href) return;\n"
"  var a = add(parent, 'a', text);\n"
"  a.setAttribute('href', href);\n"
"}\n"
"function show(p) {\n"
"  function at(name) { return p.g.getAttribute('data-' + name) || ''; }\n"
"  if (current) current.g.classList.remove('on');\n"
"  current = p;\n"
"  p.g.classList.add('on');\n"
"  while (tip.firstChild) tip.removeChild(tip.firstChild);\n"
"  var head = add(tip, 'div');\n"
"  add(head, 'code', at('commit').slice(0, 12), 'commit').title = at('commit');\n"
"  add(head, 'span', ' ' + at('date'), 'date');\n"
"  add(tip, 'div', at('value'), 'value');\n"
"  add(tip, 'div', '99% interval ' + at('ci'), 'interval');\n"
"  if (at('subject')) add(tip, 'div', at('subject'), 'subject');\n"
"  if (at('busy')) add(tip, 'div', at('busy'), 'busy');\n"
"  if (at('log') || at('report')) {\n"
"    var links = add(tip, 'div', '', 'links');\n"
"    link(links, at('log'), 'log');\n"
"    link(links, at('report'), 'report');\n"
"  }\n"
"  tip.hidden = false;\n"
"  var r = svg.getBoundingClientRect(), c = chart.getBoundingClientRect();\n"
"  var px = r.left - c.left + sx(p.x) * r.width / W;\n"
"  var py = r.top - c.top + sy(p.y) * r.height / H;\n"
"  var left = px + 14;\n"
"  if (left + tip.offsetWidth > c.width) left = Math.max(0, px - 14 - tip.offsetWidth);\n"
"  tip.style.left = left + 'px';\n"
"  tip.style.top = Math.max(0, py - tip.offsetHeight / 2) + 'px';\n"
"}\n"
"svg.addEventListener('mousemove', function (e) {\n"
"  var vx = svgX(e);\n"
"  if (drag !== null) {\n"
"    var a = Math.max(L, Math.min(drag, vx)), b = Math.min(R, Math.max(drag, vx));\n"
"    sel.setAttribute('x', a.toFixed(1));\n"
"    sel.setAttribute('width', Math.max(0, b - a).toFixed(1));\n"
"    return;\n"
"  }\n"
"  if (pinned) return;\n"
"  var p = nearest(vx);\n"
"  if (p) show(p);\n"
"});\n"
"svg.addEventListener('mousedown', function (e) {\n"
"  if (e.button !== 0) return;\n"
"  drag = svgX(e);\n"
"  e.preventDefault();\n"
"});\n"
"window.addEventListener('mouseup', function (e) {\n"
"  if (drag === null) return;\n"
"  var a = drag, b = svgX(e);\n"
"  drag = null;\n"
"  sel.setAttribute('width', '0');\n"
"  if (Math.abs(b - a) < 6) {\n"
"    var p = nearest(b);\n"
"    pinned = pinned === p ? null : p;\n"
"    if (p) show(p);\n"
"    return;\n"
"  }\n"
"  var lo = Math.min(a, b) - 4, hi = Math.max(a, b) + 4;\n"
"  var inside = shown.filter(function (p) {\n"
"    return sx(p.x) >= lo && sx(p.x) <= hi;\n"
"  });\n"
"  if (inside.length)\n"
"    view(inside[0].x, inside[inside.length - 1].x);\n"
"});\n"
"svg.addEventListener('mouseleave', function () {\n"
"  if (!pinned && drag === null) hide();\n"
"});\n"
"svg.addEventListener('dblclick', viewAll);\n"
"Array.prototype.forEach.call(chart.querySelectorAll('button[data-last]'),\n"
"  function (button) {\n"
"    button.addEventListener('click', function () {\n"
"      var n = parseInt(button.getAttribute('data-last'), 10);\n"
"      var first = n > 0 && n < all.length ? all[all.length - n] : all[0];\n"
"      view(first.x, all[all.length - 1].x);\n"
"    });\n"
"  });\n"
"viewAll();\n"
"})();\n";
/* clang-format on */

static void add_base64(struct strbuf *out, const unsigned char *bytes,
		       size_t len)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < len; i += 3) {
		unsigned long group = (unsigned long)bytes[i] << 16;

		if (i + 1 < len)
			group |= (unsigned long)bytes[i + 1] << 8;
		if (i + 2 < len)
			group |= bytes[i + 2];
		strbuf_addch(out, digits[(group >> 18) & 63]);
		strbuf_addch(out, digits[(group >> 12) & 63]);
		strbuf_addch(out,
			     i + 1 < len ? digits[(group >> 6) & 63] : '=');
		strbuf_addch(out, i + 2 < len ? digits[group & 63] : '=');
	}
}

static unsigned char hex_value(char c)
{
	return (unsigned char)(c <= '9' ? c - '0' : c - 'a' + 10);
}

int dashboard_script_csp_source(struct strbuf *out)
{
	unsigned char digest[32];
	char hex[65];

	if (hash_sha256_hex(dashboard_script, strlen(dashboard_script), hex) <
	    0)
		return BG_ERROR;
	for (size_t i = 0; i < sizeof(digest); i++)
		digest[i] = (unsigned char)(hex_value(hex[2 * i]) << 4 |
					    hex_value(hex[2 * i + 1]));
	strbuf_addstr(out, "'sha256-");
	add_base64(out, digest, sizeof(digest));
	strbuf_addch(out, '\'');
	return BG_OK;
}
