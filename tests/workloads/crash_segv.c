/* SPDX-License-Identifier: Apache-2.0 */
/* Workload: dies of SIGSEGV after a line on each stream. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	printf("about to crash\n");
	fprintf(stderr, "crashing now\n");
	fflush(NULL);
	/* a sanitizer build handles SIGSEGV itself and exits with status 1;
	 * this workload must die of the signal whatever it was built with */
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
	return 0;
}
