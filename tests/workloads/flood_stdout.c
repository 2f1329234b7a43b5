/* SPDX-License-Identifier: Apache-2.0 */
/* Workload: writes argv[1] MB (default 200) of 'x' lines to stdout, then
 * "flood done bytes=<that many bytes>" to stdout and "flood done" to
 * stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char chunk[65536];
	long megabytes = argc > 1 ? atol(argv[1]) : 200;
	long total = megabytes * 1024 * 1024, written = 0;
	size_t i;

	memset(chunk, 'x', sizeof(chunk));
	for (i = 63; i < sizeof(chunk); i += 64)
		chunk[i] = '\n';
	while (written < total) {
		ssize_t put = write(1, chunk, sizeof(chunk));

		if (put < 0)
			return 1;
		written += put;
	}
	printf("flood done bytes=%ld\n", written);
	fflush(stdout);
	fprintf(stderr, "flood done\n");
	return 0;
}
