/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_MEDIAN_INTERVAL_H
#define BENCHGATE_MEDIAN_INTERVAL_H

#include <stddef.h>

/*
 * The distribution-free confidence interval of the median by order
 * statistics: the j-th smallest and the j-th largest of n values, j the
 * largest with 2 P(Binomial(n, 1/2) < j) <= 1 - confidence, and at least
 * 1 (the whole range when n is too small for the confidence).
 *
 * `sorted` holds n >= 1 values in ascending order; confidence is in
 * (0, 1). The one owner of this formula: the statistics layer (gate) and
 * the stores' summaries both call it.
 */
void median_interval(const double *sorted, size_t n, double confidence,
		     double *low, double *high);

#endif
