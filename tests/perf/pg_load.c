/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loads every result of one store into another through the public store
 * verbs (store_list, store_load, store_write), for tests/perf/
 * bench-store-pg.sh: the generated history into a PostgreSQL store.
 *
 *     bench_pg_load FROM TO
 *
 * prints the number of results and the seconds and rate of the copy.
 */
#include "harness/store/store.h"
#include "harness/util/error.h"

#include <stdio.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct store *from = NULL, *to = NULL;
	struct store_entry *entries = NULL;
	size_t nr = 0, copied = 0;
	double start;
	int error;

	if (argc != 3) {
		fprintf(stderr, "usage: bench_pg_load FROM TO\n");
		return 2;
	}
	start = now();
	if ((error = store_open(&from, argv[1])) < 0 ||
	    (error = store_open(&to, argv[2])) < 0 ||
	    (error = store_list(from, NULL, &entries, &nr)) < 0)
		goto done;
	for (size_t i = 0; i < nr; i++) {
		struct result *r = NULL;

		if (store_load(from, &entries[i], &r) < 0)
			continue;
		error = store_write(to, r, NULL, NULL);
		result_free(r);
		if (error < 0)
			goto done;
		copied++;
	}
	printf("%zu results copied in %.1f s (%.0f results/s)\n", copied,
	       now() - start, (double)copied / (now() - start));
done:
	if (error < 0)
		fprintf(stderr, "bench_pg_load: %s\n", bg_error_last());
	store_entries_free(entries, nr);
	store_free(from);
	store_free(to);
	return error < 0 ? 1 : 0;
}
