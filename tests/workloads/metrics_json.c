/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: reports metrics as one JSON object to $BENCHGATE_METRICS_FILE
 * (or to the file argv[1] when given): a number, a nested object and an
 * array of per-batch samples. It also prints "throughput=<n> samples/s"
 * lines to stdout, its working directory and every BENCHGATE_* variable,
 * so the tests can check what the harness passed.
 *
 * Values depend on $BENCHGATE_RUN so that each run is told apart:
 * latency_ms = 1.5 + run, per_batch_ms = [1, 2, 3], stats.p50 = 2.25.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1]
				    : getenv("BENCHGATE_METRICS_FILE");
	const char *run_env = getenv("BENCHGATE_RUN");
	int run = run_env ? atoi(run_env) : 0;
	char cwd[4096];
	char **entry;
	FILE *file;

	if (getcwd(cwd, sizeof(cwd)))
		printf("cwd=%s\n", cwd);
	for (entry = environ; *entry; entry++)
		if (!strncmp(*entry, "BENCHGATE_", 10) ||
		    !strncmp(*entry, "TEST_", 5))
			printf("env %s\n", *entry);
	printf("throughput=%d samples/s\n", 100 + run);
	printf("throughput=%d samples/s\n", 200 + run);
	if (!path)
		return 2;
	file = fopen(path, "w");
	if (!file)
		return 2;
	fprintf(file,
		"{\"latency_ms\": %g, \"stats\": {\"p50\": 2.25}, "
		"\"per_batch_ms\": [1, 2, 3], \"dotted.key\": 7}\n",
		1.5 + run);
	fclose(file);
	return 0;
}
