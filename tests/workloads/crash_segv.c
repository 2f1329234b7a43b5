/* Workload: dies of SIGSEGV after a line on each stream. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	printf("about to crash\n");
	fprintf(stderr, "crashing now\n");
	fflush(NULL);
	raise(SIGSEGV);
	return 0;
}
