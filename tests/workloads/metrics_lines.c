/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: reports metrics as lines "name value [unit]" to
 * $BENCHGATE_METRICS_FILE: two latency samples in ms, a unitless accuracy,
 * a comment and a blank line.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	const char *path = getenv("BENCHGATE_METRICS_FILE");
	FILE *file;

	if (!path)
		return 2;
	file = fopen(path, "w");
	if (!file)
		return 2;
	fprintf(file, "# written by metrics_lines\n"
		      "latency 1.5 ms\n"
		      "\n"
		      "latency 1.75 ms\n"
		      "accuracy 0.94\n");
	fclose(file);
	return 0;
}
