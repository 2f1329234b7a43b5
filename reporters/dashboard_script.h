/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_DASHBOARD_SCRIPT_H
#define BENCHGATE_DASHBOARD_SCRIPT_H

#include "harness/util/strbuf.h"

/*
 * The one script of the dashboard (dashboard.h): the series pages' chart
 * (dashboard_chart.h) shows a point's commit, date, value and interval
 * under the pointer, and zooms to an x-range dragged across it or chosen
 * with its buttons. It is inline, and the pages' Content-Security-Policy
 * allows it by its SHA-256 and nothing else, so no other script (an
 * injected one included) runs and nothing is fetched. It reads the
 * chart's numbers and texts from data- attributes that the page escaped
 * for HTML and writes them back only as text (textContent), never as
 * markup: a name is never script or HTML on its way through it.
 */

/* The script as it goes between <script> and </script>. */
extern const char dashboard_script[];

/*
 * Appends the CSP source that allows dashboard_script and nothing else,
 * "'sha256-BASE64'" (CSP Level 3, "hash-source"). BG_ERROR when OpenSSL
 * cannot hash (out unchanged): a page must then not carry the script.
 */
int dashboard_script_csp_source(struct strbuf *out);

#endif
