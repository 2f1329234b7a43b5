/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_MODEL_CHANGEPOINT_H
#define BENCHGATE_MODEL_CHANGEPOINT_H

#include <stddef.h>

/*
 * A change point of a series as data: what changepoint_detect()
 * (harness/gate/changepoint.h, which says how it is found) reports, and
 * what a history (history_series.h) and the reports read.
 */

/* A change point: points[index] is the first point of the new level. */
struct changepoint {
	size_t index;
	double before;	  /* the level (median) of the segment before */
	double after;	  /* the level of the segment from index on */
	double change;	  /* after / before - 1; (after - before) / |before|
			    * in a segment with a median <= 0 */
	double change_lo; /* the change's interval at 1 - significance: */
	double change_hi; /* log(after / before) +- z * se, as a change */
	double p;	  /* the change's p-value, Bonferroni-corrected for
			    * the places between the neighbouring change
			    * points */
};

#endif
