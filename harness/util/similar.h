/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SIMILAR_H
#define BENCHGATE_SIMILAR_H

#include <stddef.h>

/*
 * Which of several names a mistyped one meant: for messages that list
 * what was there, closest first ("key 'latency_msec' missing; it has
 * 'latency_ms', 'accuracy'").
 */

/* The Levenshtein distance of a and b (insertions, deletions and
 * substitutions of bytes), counting at most the first 255 bytes of each. */
size_t similar_distance(const char *a, const char *b);

/* Sorts names (borrowed strings) closest to `to` first, equally close
 * ones by strcmp(), and drops repeats; returns how many are left. */
size_t similar_sort(const char **names, size_t nr, const char *to);

#endif
