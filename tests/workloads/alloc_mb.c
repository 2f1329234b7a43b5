/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: allocates N MiB (--mb N, default 1) and writes to every page of
 * it, so that all of it is resident at once, then exits 0. Its peak RSS is
 * N MiB over what any small C program has.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t size = (size_t)1 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *block;

	if (argc > 2 && !strcmp(argv[1], "--mb"))
		size = (size_t)strtoul(argv[2], NULL, 10) << 20;
	/* volatile: the compiler may not drop the writes, nor the block */
	block = malloc(size ? size : 1);
	if (!block)
		return 1;
	for (size_t i = 0; i < size; i += page)
		block[i] = 1;
	printf("touched %zu MiB\n", size >> 20);
	free((void *)block);
	return 0;
}
