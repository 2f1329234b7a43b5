/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_TESTS_PGSERVER_H
#define BENCHGATE_TESTS_PGSERVER_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <sys/types.h>

/*
 * A real PostgreSQL server for the tests of the PostgreSQL store: its own
 * cluster (initdb) in a fresh directory under /tmp, listening only on a
 * Unix socket in that directory (so parallel tests never share a port),
 * with a database "benchgate" whose URL the tests pass as --store.
 *
 * The server binaries (Debian's postgresql package: initdb, pg_ctl) are
 * looked for in /usr/lib/postgresql/<version>/bin, newest first, then on
 * PATH; without them the test FAILS (CI installs them). initdb refuses to
 * run as root, so as root (CI) the cluster belongs to the user "nobody"
 * and its commands run through runuser(1).
 *
 * A watchdog process stops the server and removes the directory when the
 * test process ends without pgserver_free() (a failed assertion that
 * crashed, a signal), so no server outlives its test.
 */
struct pgserver {
	char *dir; /* the cluster's directory: data/, the socket, log */
	char *bin; /* the directory of initdb and pg_ctl */
	char *url; /* postgresql://postgres@/benchgate?host=<dir> */
	bool as_nobody;
	int watchdog_fd; /* its end of the watchdog's pipe */
	pid_t watchdog;
};

/* Makes and starts a server with an empty database "benchgate"; fails the
 * test when it cannot. */
void pgserver_start(struct pgserver *pg);

/* Stops the server (fast shutdown) and starts it again, on the same
 * directory; the test fails when either does. */
void pgserver_stop(struct pgserver *pg);
void pgserver_restart(struct pgserver *pg);

/* Stops the server, removes its directory and frees pg's fields. */
void pgserver_free(struct pgserver *pg);

/* Runs sql in the database and appends its rows to out (may be NULL):
 * values separated by '|', a row a line. The test fails on an error. */
void pgserver_sql(struct pgserver *pg, const char *sql, struct strbuf *out);

/* The first value of the first row of sql, as a number. */
long pgserver_count(struct pgserver *pg, const char *sql);

#endif
