/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: writes a metrics file ($BENCHGATE_METRICS_FILE) of argv[1]
 * MiB (default 100) of lines "pad 1", then "latency 1.5 ms": a benchmark
 * that dumps far more into the file than any metric needs.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	const char *path = getenv("BENCHGATE_METRICS_FILE");
	long mib = argc > 1 ? atol(argv[1]) : 100;
	long lines = mib * 1024 * 1024 / 6;
	FILE *file;

	if (!path || !(file = fopen(path, "w")))
		return 2;
	for (long i = 0; i < lines; i++)
		fputs("pad 1\n", file);
	fputs("latency 1.5 ms\n", file);
	return fclose(file) ? 1 : 0;
}
