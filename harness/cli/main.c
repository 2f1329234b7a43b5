/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/cli/cli.h"

#include <signal.h>

int main(int argc, char **argv)
{
	/* A peer that closes early (a server refusing a push, a reader
	 * gone) must be an error with a message, not a silent death;
	 * benchmarks get every signal back at its default (process.c). */
	signal(SIGPIPE, SIG_IGN);
	return cli_main(argc, argv);
}
