#ifndef BENCHGATE_CHARTS_H
#define BENCHGATE_CHARTS_H

#include "reporters/report.h"

/*
 * Charts for gnuplot: for each chart a script (.gp) and its data (.dat).
 * report_write_charts() (report.h) writes them into charts/ and runs
 * gnuplot there; they stay beside the SVG and PNG, so a user can restyle a
 * chart and run gnuplot again. Only text is made here, from the numbers of
 * a built model, and the same model always gives the same bytes.
 *
 *   charts/history-<benchmark>-<variant>-<device>-<metric>.{svg,png}
 *   charts/variants-<benchmark>-<device>-<metric>.{svg,png}
 *   charts/tradeoff-<benchmark>-<device>.{svg,png}
 *   charts/distribution-<benchmark>-<variant>-<device>-<metric>.{svg,png}
 */

/* One chart: <stem>.gp draws <stem>.dat into <stem>.svg and <stem>.png,
 * naming the files relative to charts/. */
struct chart {
	struct strbuf stem; /* unique among the charts of a model */
	struct strbuf gp;
	struct strbuf dat;
};

struct charts {
	struct chart *items;
	size_t nr, alloc;
};

#define CHARTS_INIT        \
	{                  \
		NULL, 0, 0 \
	}

/* Appends every chart of a built model to charts, in the order they are
 * drawn: history, variants side by side, accuracy against latency, the
 * sample distributions of regressions. A model with too little to show
 * (no history, a single variant) gives fewer charts or none. */
void charts_render(struct charts *charts, const struct report_model *model);

/* Frees the charts and leaves none. */
void charts_release(struct charts *charts);

#endif
