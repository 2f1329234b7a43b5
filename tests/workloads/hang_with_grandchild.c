/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload: forks a grandchild that ignores SIGTERM and hangs, writes its
 * own pid and the grandchild's ("123 124\n") to the file argv[1], then
 * hangs itself. With argv[2]
 * "ignore-term" the child ignores SIGTERM too, so only SIGKILL ends it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void write_pid_file(const char *path, pid_t child, pid_t grandchild)
{
	char tmp[4096];
	FILE *file;

	/* rename so that a reader never sees a half-written pid */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	file = fopen(tmp, "w");
	if (!file)
		return;
	fprintf(file, "%d %d\n", (int)child, (int)grandchild);
	fclose(file);
	rename(tmp, path);
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc > 2 && !strcmp(argv[2], "ignore-term"))
		signal(SIGTERM, SIG_IGN);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		signal(SIGTERM, SIG_IGN);
		for (;;)
			pause();
	}
	if (argc > 1)
		write_pid_file(argv[1], getpid(), pid);
	printf("child %d hanging\n", (int)pid);
	fflush(stdout);
	for (;;)
		pause();
}
