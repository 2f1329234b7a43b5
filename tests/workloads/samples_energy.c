/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: an inference run whose sample count and CPU energy the tests
 * choose, for metrics declared with "per".
 *
 *     samples_energy COUNTER SAMPLES JOULES
 *
 * SAMPLES and JOULES are comma-separated lists indexed by $BENCHGATE_RUN
 * (the last entry repeats). The run reports "samples N" through
 * $BENCHGATE_METRICS_FILE and, standing in for a CPU package at work,
 * advances the RAPL counter file COUNTER (energy_uj of a fixture powercap
 * tree, see sysfs.h) by JOULES. The counter is replaced by a rename, so
 * the harness's sampling thread never reads a half-written number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run-th entry of a comma-separated list, or its last one. */
static double entry(const char *list, int run)
{
	const char *p = list;

	for (int i = 0; i < run; i++) {
		const char *comma = strchr(p, ',');

		if (!comma)
			break;
		p = comma + 1;
	}
	return atof(p);
}

static int advance_counter(const char *path, double joules)
{
	char tmp[4096];
	unsigned long long uj = 0;
	FILE *file = fopen(path, "r");
	int scanned;

	if (!file)
		return -1;
	scanned = fscanf(file, "%llu", &uj);
	fclose(file);
	if (scanned != 1)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(file = fopen(tmp, "w")))
		return -1;
	fprintf(file, "%llu\n", uj + (unsigned long long)(joules * 1e6 + 0.5));
	if (fclose(file) != 0)
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	const char *metrics = getenv("BENCHGATE_METRICS_FILE");
	const char *run_env = getenv("BENCHGATE_RUN");
	int run = run_env ? atoi(run_env) : 0;
	FILE *out;

	if (argc != 4 || !metrics) {
		fprintf(stderr, "usage: samples_energy COUNTER SAMPLES JOULES "
				"(with BENCHGATE_METRICS_FILE set)\n");
		return 2;
	}
	if (advance_counter(argv[1], entry(argv[3], run)) < 0) {
		perror(argv[1]);
		return 1;
	}
	if (!(out = fopen(metrics, "w")))
		return 1;
	fprintf(out, "samples %g\n", entry(argv[2], run));
	return fclose(out) != 0;
}
