/* SPDX-License-Identifier: Apache-2.0 */
/* Workload: prints 30 numbered lines to stderr, then exits with the status
 * given as argv[1] (default 3). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int i;

	printf("some stdout\n");
	for (i = 1; i <= 30; i++)
		fprintf(stderr, "error line %d\n", i);
	return argc > 1 ? atoi(argv[1]) : 3;
}
