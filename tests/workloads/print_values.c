/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: prints argv[1] lines "v=N" (default 200000), N = 1, 2, ... in
 * order, to stdout; far more than the capture keeps (process.h), so that
 * a regex metric sees whether it matched all of the output or what was
 * kept of it.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 200000;

	for (long i = 1; i <= lines; i++)
		printf("v=%ld\n", i);
	return fflush(stdout) ? 1 : 0;
}
