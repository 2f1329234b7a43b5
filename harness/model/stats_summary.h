/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_STATS_SUMMARY_H
#define BENCHGATE_STATS_SUMMARY_H

#include <stddef.h>

/*
 * The numbers that describe one side's samples of a metric, as a
 * comparison (comparison.h) holds and a report shows them. The gate fills
 * them (stats_summarize(), harness/gate/stats.h); every other layer only
 * reads them.
 */
struct stats_summary {
	size_t n;
	double median, mean, stddev, min, max;
	double mad; /* raw */
	double robust_cv;
	double p50, p90, p99;
	double ci_low, ci_high; /* order-statistic interval of the median */
};

#endif
