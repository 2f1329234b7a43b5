/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A benchmark with a known cost for the gate's end-to-end tests: spins the
 * CPU for --ms milliseconds of its own CPU time (CPU time, not wall time,
 * so a busy test machine disturbs it less), longer by the fraction in
 * SPIN_SLOWDOWN (0.2: 20 % slower), and reports the time taken through the
 * metrics file as "latency_ms".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const char *slowdown = getenv("SPIN_SLOWDOWN");
	const char *metrics = getenv("BENCHGATE_METRICS_FILE");
	double ms = 20, start, elapsed;
	volatile unsigned long sink = 0;
	FILE *out;

	if (argc == 3 && !strcmp(argv[1], "--ms"))
		ms = atof(argv[2]);
	if (slowdown)
		ms *= 1 + atof(slowdown);
	start = cpu_ms();
	while (cpu_ms() - start < ms)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * i;
	elapsed = cpu_ms() - start;
	if (metrics && (out = fopen(metrics, "w"))) {
		fprintf(out, "{\"latency_ms\": %.6f}\n", elapsed);
		fclose(out);
	}
	/* the sum is read, so that no compiler drops the loop */
	printf("spun %.3f ms (%lu)\n", elapsed, sink % 7);
	return 0;
}
