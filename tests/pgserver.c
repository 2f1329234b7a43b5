/* SPDX-License-Identifier: Apache-2.0 */
#include "pgserver.h"
#include "testutil.h"

#include "harness/util/alloc.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool has_server_binaries(const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	bool found;

	strbuf_addf(&path, "%s/initdb", dir);
	found = access(path.buf, X_OK) == 0;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/pg_ctl", dir);
	found = found && access(path.buf, X_OK) == 0;
	strbuf_release(&path);
	return found;
}

/* /usr/lib/postgresql/<newest version>/bin, else the PATH entry holding
 * both programs; NULL when none does. */
static char *find_binaries(void)
{
	struct strbuf path = STRBUF_INIT;
	const char *env = getenv("PATH");
	DIR *d = opendir("/usr/lib/postgresql");
	struct dirent *de;
	long best = -1;
	char *found = NULL;

	while (d && (de = readdir(d))) {
		long version = strtol(de->d_name, NULL, 10);

		strbuf_reset(&path);
		strbuf_addf(&path, "/usr/lib/postgresql/%s/bin", de->d_name);
		if (version > best && has_server_binaries(path.buf)) {
			best = version;
			free(found);
			found = xstrdup(path.buf);
		}
	}
	if (d)
		closedir(d);
	for (const char *p = env; !found && p && *p;) {
		size_t len = strcspn(p, ":");

		strbuf_reset(&path);
		strbuf_add(&path, p, len);
		if (len && has_server_binaries(path.buf))
			found = xstrdup(path.buf);
		p += len + (p[len] == ':');
	}
	strbuf_release(&path);
	return found;
}

/* Runs a server program (as nobody when root), failing the test with its
 * output when it fails. Not test_run(): the postmaster that pg_ctl starts
 * would hold its pipes open for the server's life. The output goes to a
 * file instead, read back on failure. */
static void server_command(struct pgserver *pg, const char *const *args)
{
	const char *argv[32];
	struct strbuf program = STRBUF_INIT, log = STRBUF_INIT;
	size_t n = 0;
	int status;
	pid_t pid;

	if (pg->as_nobody) {
		argv[n++] = "/usr/sbin/runuser";
		argv[n++] = "-u";
		argv[n++] = "nobody";
		argv[n++] = "--";
	}
	strbuf_addf(&program, "%s/%s", pg->bin, args[0]);
	argv[n++] = program.buf;
	for (size_t i = 1; args[i]; i++) {
		cr_assert(n < 31);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	strbuf_addf(&log, "%s.command-output", pg->dir);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(log.buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
		    dup2(out, 2) < 0 || chdir("/") < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char *text = test_read_file(log.buf);

		cr_assert(0, "%s failed (status %d):\n%s", program.buf, status,
			  text ? text : "");
		free(text);
	}
	unlink(log.buf);
	strbuf_release(&program);
	strbuf_release(&log);
}

static void start_server(struct pgserver *pg)
{
	struct strbuf data = STRBUF_INIT, log = STRBUF_INIT;
	struct strbuf opts = STRBUF_INIT;

	strbuf_addf(&data, "%s/data", pg->dir);
	strbuf_addf(&log, "%s/log", pg->dir);
	/* a socket only, in the cluster's own directory; durability is not
	 * what these tests measure */
	strbuf_addf(&opts,
		    "-k %s -c listen_addresses= -c fsync=off "
		    "-c full_page_writes=off -c max_connections=100",
		    pg->dir);
	server_command(pg, (const char *[]){ "pg_ctl", "-D", data.buf, "-l",
					     log.buf, "-w", "-t", "120", "-o",
					     opts.buf, "start", NULL });
	strbuf_release(&data);
	strbuf_release(&log);
	strbuf_release(&opts);
}

/* The watchdog: waits for EOF on its pipe (the test process ended or
 * let go), then stops the server and removes its directory. */
static void start_watchdog(struct pgserver *pg)
{
	int fds[2];
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		char c;
		struct strbuf script = STRBUF_INIT;

		close(fds[1]);
		while (read(fds[0], &c, 1) > 0)
			;
		strbuf_addf(&script,
			    "%s%s/pg_ctl -D '%s/data' -m immediate stop "
			    ">/dev/null 2>&1; rm -rf '%s' '%s.command-output'",
			    pg->as_nobody ? "/usr/sbin/runuser -u nobody -- "
					  : "",
			    pg->bin, pg->dir, pg->dir, pg->dir);
		/* nothing of the test's to hold open meanwhile */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		execl("/bin/sh", "sh", "-c", script.buf, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	pg->watchdog_fd = fds[1];
	pg->watchdog = pid;
}

void pgserver_start(struct pgserver *pg)
{
	char template[] = "/tmp/benchgate-pg-XXXXXX";
	struct strbuf data = STRBUF_INIT;
	PGconn *conn;
	PGresult *res;

	memset(pg, 0, sizeof(*pg));
	pg->watchdog_fd = -1;
	pg->bin = find_binaries();
	cr_assert(pg->bin, "the PostgreSQL server programs (initdb, pg_ctl) "
			   "are not installed: install Debian's postgresql "
			   "package (bash ci/install-deps --test)");
	cr_assert(mkdtemp(template), "mkdtemp: %s", strerror(errno));
	pg->dir = xstrdup(template);
	pg->as_nobody = geteuid() == 0;
	if (pg->as_nobody) {
		struct passwd *nobody = getpwnam("nobody");

		cr_assert(nobody, "no user 'nobody' to run PostgreSQL as");
		cr_assert_eq(chown(pg->dir, nobody->pw_uid, nobody->pw_gid), 0,
			     "chown %s: %s", pg->dir, strerror(errno));
	}
	cr_assert_eq(chmod(pg->dir, 0755), 0);
	start_watchdog(pg);
	strbuf_addf(&data, "%s/data", pg->dir);
	server_command(pg, (const char *[]){ "initdb", "-D", data.buf, "-U",
					     "postgres", "-A", "trust", "-E",
					     "UTF8", "--locale=C", "--no-sync",
					     "--no-instructions", NULL });
	start_server(pg);
	pg->url = NULL;
	{
		struct strbuf url = STRBUF_INIT;

		strbuf_addf(&url, "postgresql://postgres@/postgres?host=%s",
			    pg->dir);
		conn = PQconnectdb(url.buf);
		cr_assert_eq(PQstatus(conn), CONNECTION_OK, "%s",
			     PQerrorMessage(conn));
		res = PQexec(conn, "CREATE DATABASE benchgate");
		cr_assert_eq(PQresultStatus(res), PGRES_COMMAND_OK, "%s",
			     PQresultErrorMessage(res));
		PQclear(res);
		PQfinish(conn);
		strbuf_reset(&url);
		strbuf_addf(&url, "postgresql://postgres@/benchgate?host=%s",
			    pg->dir);
		pg->url = strbuf_detach(&url, NULL);
	}
	strbuf_release(&data);
}

void pgserver_stop(struct pgserver *pg)
{
	struct strbuf data = STRBUF_INIT;

	strbuf_addf(&data, "%s/data", pg->dir);
	server_command(pg, (const char *[]){ "pg_ctl", "-D", data.buf, "-m",
					     "fast", "-w", "stop", NULL });
	strbuf_release(&data);
}

void pgserver_restart(struct pgserver *pg)
{
	start_server(pg);
}

void pgserver_free(struct pgserver *pg)
{
	if (!pg->dir)
		return;
	/* the watchdog stops the server and removes the directory */
	if (pg->watchdog_fd >= 0)
		close(pg->watchdog_fd);
	if (pg->watchdog > 0)
		waitpid(pg->watchdog, NULL, 0);
	free(pg->dir);
	free(pg->bin);
	free(pg->url);
	memset(pg, 0, sizeof(*pg));
}

void pgserver_sql(struct pgserver *pg, const char *sql, struct strbuf *out)
{
	PGconn *conn = PQconnectdb(pg->url);
	PGresult *res;

	cr_assert_eq(PQstatus(conn), CONNECTION_OK, "%s", PQerrorMessage(conn));
	res = PQexec(conn, sql);
	cr_assert(PQresultStatus(res) == PGRES_COMMAND_OK ||
			  PQresultStatus(res) == PGRES_TUPLES_OK,
		  "%s: %s", sql, PQresultErrorMessage(res));
	for (int i = 0; out && i < PQntuples(res); i++) {
		for (int j = 0; j < PQnfields(res); j++)
			strbuf_addf(out, "%s%s", j ? "|" : "",
				    PQgetvalue(res, i, j));
		strbuf_addch(out, '\n');
	}
	PQclear(res);
	PQfinish(conn);
}

long pgserver_count(struct pgserver *pg, const char *sql)
{
	struct strbuf out = STRBUF_INIT;
	long value;

	pgserver_sql(pg, sql, &out);
	value = strtol(out.buf, NULL, 10);
	strbuf_release(&out);
	return value;
}
