/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/similar.h"

#include "harness/util/alloc.h"

#include <stdlib.h>
#include <string.h>

#define COUNTED 255

size_t similar_distance(const char *a, const char *b)
{
	size_t a_len = strnlen(a, COUNTED), b_len = strnlen(b, COUNTED);
	size_t row[COUNTED + 1];

	/* one row of the table, rewritten in place */
	for (size_t j = 0; j <= b_len; j++)
		row[j] = j;
	for (size_t i = 1; i <= a_len; i++) {
		size_t diagonal = row[0];

		row[0] = i;
		for (size_t j = 1; j <= b_len; j++) {
			size_t above = row[j];
			size_t best = diagonal + (a[i - 1] != b[j - 1]);

			if (above + 1 < best)
				best = above + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diagonal = above;
		}
	}
	return row[b_len];
}

struct ranked {
	const char *name;
	size_t distance;
};

static int by_distance(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t similar_sort(const char **names, size_t nr, const char *to)
{
	struct ranked *ranked = xcalloc(nr + 1, sizeof(*ranked));
	size_t kept = 0;

	for (size_t i = 0; i < nr; i++)
		ranked[i] = (struct ranked){ names[i],
					     similar_distance(names[i], to) };
	qsort(ranked, nr, sizeof(*ranked), by_distance);
	for (size_t i = 0; i < nr; i++)
		if (!kept || strcmp(names[kept - 1], ranked[i].name))
			names[kept++] = ranked[i].name;
	free(ranked);
	return kept;
}
