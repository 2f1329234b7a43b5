#ifndef BENCHGATE_CHARTS_H
#define BENCHGATE_CHARTS_H

#include "reporters/report.h"

#include <stdbool.h>

/*
 * Charts rendered by gnuplot, run as an external program. For every chart
 * the .gp script and .dat data stay beside the SVG and PNG, so a user can
 * restyle it and run gnuplot again. Output is deterministic for a model.
 *
 *   charts/history-<benchmark>-<variant>-<device>-<metric>.{svg,png}
 *   charts/variants-<benchmark>-<device>-<metric>.{svg,png}
 *   charts/tradeoff-<benchmark>-<device>.{svg,png}
 *   charts/distribution-<benchmark>-<variant>-<device>-<metric>.{svg,png}
 */

/* Whether gnuplot can be run ($BENCHGATE_GNUPLOT, else gnuplot on PATH). */
bool charts_available(void);

/* Writes the charts for model into <dir>/charts/, appending each image path
 * to written (one per line; may be NULL). BG_ENOTFOUND when gnuplot is not
 * available (nothing written; the caller warns once); BG_ERROR when
 * gnuplot fails, with its stderr in the message. */
int charts_write(const struct report_model *model, const char *dir,
		 struct strbuf *written);

#endif
