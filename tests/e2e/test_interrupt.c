/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: Ctrl-C (SIGINT) or SIGTERM during `benchgate run` stops the
 * benchmark, says that nothing was stored, leaves the store as it was (no
 * log directory without a result beside it), and ends benchgate by that
 * signal, as a shell expects of an interrupted program.
 */
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(interrupt, .init = test_dir_setup, .fini = test_dir_teardown);

/* Starts `benchgate run` on a suite of slow runs, sends sig once the
 * first run is under way, and returns the wait status; stderr goes to
 * err.txt. */
static int interrupt_run(int sig)
{
	char *suite = test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"slow\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 20 },\n"
		"  \"benchmarks\": [ { \"name\": \"b\", \"command\": "
		"[\"sleep\", \"0.3\"],\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n");
	struct strbuf err = STRBUF_INIT, store = STRBUF_INIT;
	struct strbuf lock = STRBUF_INIT;
	pid_t pid;
	int status;

	strbuf_addf(&err, "%s/err.txt", test_dir);
	strbuf_addf(&store, "%s/store", test_dir);
	strbuf_addf(&lock, "%s/machine.lock", test_dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(err.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		/* a lock of its own: other tests' runs must not hold it up */
		setenv("BENCHGATE_LOCK", lock.buf, 1);

		dup2(fd, STDERR_FILENO);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execl(BENCHGATE_BIN, "benchgate", "run", suite, "--store",
		      store.buf, "--quiet", (char *)NULL);
		_exit(127);
	}
	usleep(800 * 1000);
	kill(pid, sig);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	strbuf_release(&err);
	strbuf_release(&store);
	strbuf_release(&lock);
	free(suite);
	return status;
}

static void assert_nothing_left(int sig)
{
	struct strbuf path = STRBUF_INIT, tree = STRBUF_INIT;
	int status = interrupt_run(sig);
	char *err;

	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		  "benchgate ends by the signal (status %#x)", status);
	strbuf_addf(&path, "%s/err.txt", test_dir);
	err = test_read_file(path.buf);
	cr_expect(err && strstr(err, "nothing was stored, and the store is "
				     "as it was"),
		  "%s", err ? err : "(no stderr)");
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/store", test_dir);
	test_list_tree(&tree, path.buf);
	/* the store's own lock file may stay; no logs, no result */
	cr_expect(!strstr(tree.buf, "logs") && !strstr(tree.buf, ".json"),
		  "left in the store: %s", tree.buf);
	free(err);
	strbuf_release(&path);
	strbuf_release(&tree);
}

Test(interrupt, ctrl_c_leaves_the_store_as_it_was)
{
	assert_nothing_left(SIGINT);
}

Test(interrupt, sigterm_leaves_the_store_as_it_was)
{
	assert_nothing_left(SIGTERM);
}
