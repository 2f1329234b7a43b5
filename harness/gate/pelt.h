/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PELT_H
#define BENCHGATE_PELT_H

#include <stddef.h>

/*
 * The optimal partition of weighted values into segments, the search of
 * change-point detection (changepoint.h): the segmentation of x[0..n)
 * minimising the sum over its segments of the weighted squared deviations
 * sum u_i (x_i - level)^2 from the segment's weighted mean, plus `penalty`
 * per change, every segment at least min_segment (>= 1) points long. PELT
 * (Killick, Fearnhead and Eckley 2012): exact, with its pruning of the
 * starts that cannot win any more.
 *
 * Writes the first position of each segment after the first (in (0, n),
 * ascending) into *splits (allocated with xmalloc, NULL when none;
 * free() it) and returns how many. The answer is a function of the inputs
 * alone: the same values and weights give the same positions, bit for bit,
 * on every machine that rounds IEEE doubles as x86-64 does.
 *
 * The cost of a step is one division and a few additions per live start,
 * done two at a time; live starts are about the length of the current
 * segment on a series with rare changes (a quiet stretch prunes little),
 * so a 10,000-point series with a few changes costs some 10^7 of them.
 */
size_t pelt_search(const double *x, const double *u, size_t n,
		   size_t min_segment, double penalty, size_t **splits);

#endif
