/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: writes a bad value for metric "latency" to $BENCHGATE_METRICS_FILE.
 * argv[1]: "nan" (line "latency nan ms"), "inf", "garbage" ("latency fast"),
 * "json-string" ({"latency": "nan"}), "json-invalid" ({"latency": NaN}, as
 * Python's json module writes it) or "none" (no file at all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *path = getenv("BENCHGATE_METRICS_FILE");
	const char *kind = argc > 1 ? argv[1] : "nan";
	FILE *file;

	if (!path)
		return 2;
	if (!strcmp(kind, "none"))
		return 0;
	file = fopen(path, "w");
	if (!file)
		return 2;
	if (!strcmp(kind, "nan"))
		fprintf(file, "latency nan ms\n");
	else if (!strcmp(kind, "inf"))
		fprintf(file, "latency inf ms\n");
	else if (!strcmp(kind, "garbage"))
		fprintf(file, "latency fast\n");
	else if (!strcmp(kind, "json-string"))
		fprintf(file, "{\"latency\": \"nan\"}\n");
	else if (!strcmp(kind, "json-invalid"))
		fprintf(file, "{\"latency\": NaN}\n");
	fclose(file);
	return 0;
}
