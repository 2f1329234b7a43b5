/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: prints "v=1" so that it ends exactly at byte HEAD of stdout and
 * "999" so that it starts exactly at byte TOTAL - TAIL, with filler lines
 * of 'x' around them and a middle of MIDDLE bytes of them in between:
 *
 *     seam_values [HEAD [TAIL [MIDDLE]]]
 *
 * The defaults, 524288 bytes each, are the halves of the default capture
 * of 1 MiB (process.h, PROCESS_CAPTURE_CAP_DEFAULT): the two numbers then
 * end the kept head and start the kept tail, and joining the two would
 * read "v=1999". The benchmark printed one value, 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes len bytes of 'x' lines, each ending in '\n' (len >= 1). */
static void filler(size_t len)
{
	char line[64];

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	while (len > sizeof(line)) {
		fwrite(line, 1, sizeof(line), stdout);
		len -= sizeof(line);
	}
	fwrite(line + sizeof(line) - len, 1, len, stdout);
}

int main(int argc, char **argv)
{
	size_t head = argc > 1 ? strtoul(argv[1], NULL, 10) : 524288;
	size_t tail = argc > 2 ? strtoul(argv[2], NULL, 10) : 524288;
	size_t middle = argc > 3 ? strtoul(argv[3], NULL, 10) : 4096;

	if (head < 5 || tail < 5 || middle < 2)
		return 2;
	filler(head - 3);
	fputs("v=1", stdout);
	/* the newline that ends "v=1" opens the middle */
	fputc('\n', stdout);
	filler(middle - 1);
	fputs("999\n", stdout);
	filler(tail - 4);
	return fflush(stdout) ? 1 : 0;
}
