/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: the PostgreSQL store against a real server (tests/pgserver.h)
 * started for each test: `store init`, run, history and check through
 * --store postgresql://..., the schema checks, transactions (concurrent
 * runs, a writer killed mid-write, a server stopped mid-run), the same
 * result stored once, a password that is never printed, and prune and
 * compact giving what they give in a directory store, in one transaction.
 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/isotime.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "pgserver.h"

#include "testutil.h"

#include <libpq-fe.h>

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN(out, env, ...)                \
	test_benchgate((out), dir, (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

static char *dir;
static struct pgserver pg;
static const char *const machine_env[] = { "BENCHGATE_MACHINE_ID=pg-box",
					   NULL };

/* A repository at one commit with suite s.json: two variants of the spin
 * workload; with `stop` the benchmark first stops the server. */
static void write_suite(const char *name, const char *before)
{
	struct strbuf text = STRBUF_INIT;

	strbuf_addf(&text,
		    "{\"benchgate\": 1, \"suite\": \"pgsuite\","
		    " \"defaults\": {\"runs\": 3, \"warmup\": 0},"
		    " \"variants\": {\"a\": {}, \"b\": {}},"
		    " \"benchmarks\": [{\"name\": \"spin\", \"command\":"
		    " [\"/bin/sh\", \"-c\", \"%s exec %s/spin --ms 1\"],"
		    " \"metrics\": [{\"name\": \"latency\", \"from\":"
		    " \"metrics\", \"key\": \"latency_ms\", \"unit\":"
		    " \"ms\"}]}]}",
		    before, TEST_WORKLOAD_DIR);
	free(test_write_file(dir, name, text.buf));
	strbuf_release(&text);
}

/* The text of dir/name (free it), NULL when unreadable. */
static char *read_in_dir(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	char *text;

	strbuf_addf(&path, "%s/%s", dir, name);
	text = test_read_file(path.buf);
	strbuf_release(&path);
	return text;
}

static void setup(void)
{
	git_repository *repo;
	git_oid commit;

	dir = test_tmpdir();
	repo = test_git_init(dir);
	test_git_commit(repo, "refs/heads/main", "code", 0, NULL, &commit);
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	git_repository_free(repo);
	write_suite("s.json", "");
	pgserver_start(&pg);
}

static void teardown(void)
{
	pgserver_free(&pg);
	test_rmtree(dir);
	free(dir);
}

TestSuite(store_pg, .init = setup, .fini = teardown, .timeout = 300);

static void init_store(void)
{
	struct test_output out;

	RUN(&out, NULL, "store", "init", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

static void run_ok(const char *suite)
{
	struct test_output out;

	RUN(&out, machine_env, "run", suite, "--store", pg.url, "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

Test(store_pg, init_run_history_check)
{
	struct test_output out;
	struct strbuf rows = STRBUF_INIT;

	RUN(&out, NULL, "store", "init", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "created the store"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "(schema version 2)"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, NULL, "store", "init", pg.url);
	cr_assert_eq(out.exit_code, 0);
	cr_assert(strstr(out.out.buf, "nothing to do"), "%s", out.out.buf);
	test_output_release(&out);

	run_ok("s.json");
	run_ok("s.json");
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results"),
		     2);
	/* one summary row per case and metric, with its 3 samples */
	pgserver_sql(&pg,
		     "SELECT variant, metric, n, unit, median > 0,"
		     " low <= median AND median <= high FROM benchgate_points"
		     " ORDER BY result_id, variant LIMIT 2",
		     &rows);
	cr_assert_str_eq(rows.buf, "a|latency|3|ms|t|t\nb|latency|3|ms|t|t\n");
	/* each case's log went in with its result */
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM benchgate_files"
					 " WHERE path LIKE 'logs/%.log'"),
		     4);

	RUN(&out, machine_env, "history", "--store", pg.url, "--json",
	    "h.json");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	{
		char *text = read_in_dir("h.json");

		cr_assert(text && strstr(text, "\"latency\""), "%s",
			  text ? text : "(none)");
		cr_assert(strstr(text, "\"pg-box\""), "%s", text);
		free(text);
	}
	RUN(&out, machine_env, "check", "s.json", "--store", pg.url, "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	/* check stores its run as well */
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results"),
		     3);
	strbuf_release(&rows);
}

Test(store_pg, a_database_without_the_schema_names_store_init)
{
	struct test_output out;

	RUN(&out, machine_env, "run", "s.json", "--store", pg.url);
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "benchgate store init"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, machine_env, "history", "--store", pg.url);
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "benchgate store init"), "%s",
		  out.err.buf);
	test_output_release(&out);
}

Test(store_pg, an_older_schema_is_refused_until_store_init_migrates_it)
{
	struct test_output out;

	init_store();
	run_ok("s.json");
	/* the database as schema version 1 left it */
	pgserver_sql(&pg,
		     "DROP VIEW benchgate_points;"
		     " DROP INDEX benchgate_metrics_series;"
		     " UPDATE benchgate_schema SET version = 1",
		     NULL);
	RUN(&out, machine_env, "history", "--store", pg.url);
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "schema version 1, older than"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "benchgate store init"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, NULL, "store", "init", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "from schema version 1 to 2"), "%s",
		  out.out.buf);
	test_output_release(&out);
	/* the migration rebuilt the view over the results already there */
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_points"),
		     2);
	RUN(&out, machine_env, "history", "--store", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	/* a newer schema: this benchgate cannot know it */
	pgserver_sql(&pg, "UPDATE benchgate_schema SET version = 99", NULL);
	RUN(&out, machine_env, "history", "--store", pg.url);
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "upgrade benchgate"), "%s", out.err.buf);
	test_output_release(&out);
}

/* The server stops in the middle of the run (the benchmark stops it):
 * exit 4, the result in a file that `merge FILE --store URL` stores once
 * the server is back; a second merge of it stores nothing new. */
Test(store_pg, a_server_stopped_mid_run_gives_exit_4_and_merge_stores_it)
{
	struct strbuf stop = STRBUF_INIT, file = STRBUF_INIT;
	struct test_output out;
	const char *at, *end;

	init_store();
	strbuf_addf(&stop,
		    "%s%s/pg_ctl -D %s/data -m fast -w stop"
		    " >/dev/null 2>&1;",
		    pg.as_nobody ? "/usr/sbin/runuser -u nobody -- " : "",
		    pg.bin, pg.dir);
	write_suite("stop.json", stop.buf);
	RUN(&out, machine_env, "run", "stop.json", "--store", pg.url);
	cr_assert_eq(out.exit_code, 4, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "cannot store the result"), "%s",
		  out.err.buf);
	at = strstr(out.err.buf, "the result is in '");
	cr_assert(at, "%s", out.err.buf);
	at += strlen("the result is in '");
	end = strchr(at, '\'');
	strbuf_add(&file, at, (size_t)(end - at));
	cr_assert(strstr(file.buf, "benchgate-unstored-"), "%s", file.buf);
	test_output_release(&out);

	pgserver_restart(&pg);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results"),
		     0);
	RUN(&out, NULL, "merge", file.buf, "--store", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results"),
		     1);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_metrics"),
		     2);
	/* the same result again: stored once */
	RUN(&out, NULL, "merge", file.buf, "--store", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results"),
		     1);
	strbuf_release(&stop);
	strbuf_release(&file);
}

#define CONCURRENT 40

Test(store_pg, forty_concurrent_runs_store_forty_results)
{
	struct strbuf script = STRBUF_INIT, statuses = STRBUF_INIT;
	struct strbuf rows = STRBUF_INIT;

	init_store();
	strbuf_addf(&script,
		    "for i in $(seq %d); do"
		    " (BENCHGATE_MACHINE_ID=pg-box '%s' run s.json --store '%s'"
		    " --quiet >out-$i 2>&1; echo $? >status-$i) &"
		    " done; wait; cat status-* | sort | uniq -c",
		    CONCURRENT, BENCHGATE_BIN, pg.url);
	test_shell(dir, script.buf);
	for (int i = 1; i <= CONCURRENT; i++) {
		char name[32];
		char *text;

		snprintf(name, sizeof(name), "status-%d", i);
		text = read_in_dir(name);
		cr_assert(text && !strcmp(text, "0\n"), "run %d: %s", i,
			  text ? text : "(none)");
		free(text);
	}
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results"),
		     CONCURRENT);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(DISTINCT name) FROM "
					 "benchgate_results"),
		     CONCURRENT);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_metrics"),
		     2 * CONCURRENT);
	strbuf_release(&script);
	strbuf_release(&statuses);
	strbuf_release(&rows);
}

/* A writer killed while its transaction waits (the test holds a lock on
 * the metrics table): the result it had inserted is not there after. */
Test(store_pg, a_writer_killed_mid_write_leaves_no_partial_result)
{
	struct strbuf lock_url = STRBUF_INIT;
	PGconn *conn;
	PGresult *res;
	pid_t pid;
	int status, waited = 0;

	init_store();
	conn = PQconnectdb(pg.url);
	cr_assert_eq(PQstatus(conn), CONNECTION_OK);
	res = PQexec(conn, "BEGIN; LOCK TABLE benchgate_metrics IN ACCESS "
			   "EXCLUSIVE MODE");
	cr_assert_eq(PQresultStatus(res), PGRES_COMMAND_OK, "%s",
		     PQresultErrorMessage(res));
	PQclear(res);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		if (chdir(dir) < 0)
			_exit(127);
		setenv("BENCHGATE_MACHINE_ID", "pg-box", 1);
		execl(BENCHGATE_BIN, "benchgate", "run", "s.json", "--store",
		      pg.url, "--quiet", (char *)NULL);
		_exit(127);
	}
	/* until the writer waits for the lock: its result row is in */
	for (;;) {
		long waiting = pgserver_count(
			&pg, "SELECT count(*) FROM pg_stat_activity WHERE"
			     " application_name = 'benchgate' AND"
			     " wait_event_type = 'Lock'");

		if (waiting)
			break;
		cr_assert_eq(waitpid(pid, &status, WNOHANG), 0,
			     "the writer ended before it waited");
		cr_assert(waited++ < 1200, "the writer never waited");
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	res = PQexec(conn, "ROLLBACK");
	PQclear(res);
	PQfinish(conn);
	/* the server sees the client gone once the lock lets it read */
	for (waited = 0; pgserver_count(&pg, "SELECT count(*) FROM"
					     " pg_stat_activity WHERE"
					     " application_name = 'benchgate'");
	     waited++) {
		cr_assert(waited < 600, "the killed writer's session lingers");
		usleep(100000);
	}
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results"),
		     0);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_files"),
		     0);
	/* and the store goes on: the next run is stored whole */
	run_ok("s.json");
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_metrics"),
		     2);
	strbuf_release(&lock_url);
}

/* A password in the URL (user:password@, or ?password=) appears in no
 * output: not in messages, errors, paths or the stored result. */
Test(store_pg, the_password_is_never_printed)
{
	static const char secret[] = "Sup3rSecretPw";
	struct strbuf url = STRBUF_INIT, url2 = STRBUF_INIT;
	struct strbuf all = STRBUF_INIT;
	struct test_output out;
	const char *at = strchr(pg.url, '@');

	/* the server trusts local users, so any password connects */
	strbuf_addf(&url, "postgresql://postgres:%s%s", secret, at);
	strbuf_addf(&url2, "%s&password=%s", pg.url, secret);
#define COLLECT(...)                                                      \
	do {                                                              \
		RUN(&out, machine_env, __VA_ARGS__);                      \
		strbuf_addf(&all, "%d\n%s%s", out.exit_code, out.out.buf, \
			    out.err.buf);                                 \
		test_output_release(&out);                                \
	} while (0)
	COLLECT("history", "--store", url.buf);	       /* no schema yet */
	COLLECT("run", "s.json", "--store", url2.buf); /* no schema yet */
	COLLECT("store", "init", url.buf);
	COLLECT("store", "init", url2.buf);
	COLLECT("run", "s.json", "--store", url.buf);
	COLLECT("history", "--store", url2.buf);
	pgserver_stop(&pg);
	COLLECT("history", "--store", url.buf);	       /* cannot connect */
	COLLECT("run", "s.json", "--store", url2.buf); /* exit 4 */
#undef COLLECT
	cr_assert(strstr(all.buf, "postgresql://postgres@/benchgate?host="),
		  "%s", all.buf);
	cr_assert(strstr(all.buf, "created the store"), "%s", all.buf);
	cr_assert(!strstr(all.buf, secret), "%s", all.buf);
	pgserver_restart(&pg);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_results WHERE document"
					 " LIKE '%Sup3rSecretPw%'"),
		     0);
	strbuf_release(&url);
	strbuf_release(&url2);
	strbuf_release(&all);
}

/* History fixtures with a planted step: 24 commits on main, +20 % from
 * commit 14 on, the same results in a directory store and in the
 * database. */
#define SERIES_COMMITS 24
#define SERIES_STEP 14

static void store_series(const char *const *specs, size_t nspecs)
{
	git_repository *repo;
	git_oid commits[SERIES_COMMITS];

	cr_assert_eq(git_repository_open(&repo, dir), 0);
	for (size_t i = 0; i < SERIES_COMMITS; i++) {
		char message[32];

		snprintf(message, sizeof(message), "c%zu", i);
		test_git_commit(repo, "refs/heads/main", message, i ? 1 : 0,
				i ? &commits[i - 1] : NULL, &commits[i]);
	}
	git_repository_free(repo);
	for (size_t s = 0; s < nspecs; s++) {
		struct store *store = NULL;

		cr_assert_eq(store_open(&store, specs[s]), BG_OK, "%s",
			     bg_error_last());
		for (size_t i = 0; i < SERIES_COMMITS; i++)
			test_store_series_at(store, &commits[i], "box",
					     (i < SERIES_STEP ? 10 : 12) *
						     (1 + 0.002 * (double)(i % 3)));
		store_free(store);
	}
}

/* A listing of a set of commits (history's, one query in a database)
 * is the same from each store: three of the commits and one absent. */
static void set_listing_matches(const char *const *specs, size_t nspecs)
{
	struct strbuf first = STRBUF_INIT;

	for (size_t s = 0; s < nspecs; s++) {
		struct store *store = NULL;
		struct store_entry *all = NULL, *some = NULL;
		size_t all_nr = 0, some_nr = 0;
		struct strbuf listed = STRBUF_INIT;
		const char *set[4];
		struct store_query q = { .commits = set, .commits_nr = 4,
					 .machine = "box" };

		cr_assert_eq(store_open(&store, specs[s]), BG_OK, "%s",
			     bg_error_last());
		cr_assert_eq(store_list(store, NULL, &all, &all_nr), BG_OK);
		cr_assert_eq(all_nr, SERIES_COMMITS);
		set[0] = all[2].commit;
		set[1] = all[7].commit;
		set[2] = all[SERIES_COMMITS - 1].commit;
		set[3] = "ffffffffffffffffffffffffffffffffffffffff";
		cr_assert_eq(store_list(store, &q, &some, &some_nr), BG_OK,
			     "%s", bg_error_last());
		cr_assert_eq(some_nr, 3, "%s: %zu", specs[s], some_nr);
		for (size_t i = 0; i < some_nr; i++)
			strbuf_addf(&listed, "%s %s\n", some[i].commit,
				    some[i].timestamp);
		if (!s)
			strbuf_addstr(&first, listed.buf);
		else
			cr_assert_str_eq(listed.buf, first.buf);
		store_entries_free(all, all_nr);
		store_entries_free(some, some_nr);
		strbuf_release(&listed);
		store_free(store);
	}
	strbuf_release(&first);
}

/* Runs a command against each store; the outputs must be the same. */
static void same_from_both(const char *what, const char *const *dir_args,
			   const char *const *pg_args, int expect_exit)
{
	struct test_output a, b;

	test_benchgate(&a, dir, NULL, dir_args);
	test_benchgate(&b, dir, NULL, pg_args);
	cr_assert_eq(a.exit_code, expect_exit, "%s: %s%s", what, a.out.buf,
		     a.err.buf);
	cr_assert_eq(b.exit_code, expect_exit, "%s: %s%s", what, b.out.buf,
		     b.err.buf);
	cr_assert_str_eq(a.out.buf, b.out.buf, "%s:\n%s\n---\n%s", what,
			 a.out.buf, b.out.buf);
	test_output_release(&a);
	test_output_release(&b);
}

/* The history documents, the alert and the published site are the same
 * read from PostgreSQL as from a directory store holding the same
 * results. */
Test(store_pg, history_alert_and_publish_match_a_directory_store)
{
	struct strbuf dirstore = STRBUF_INIT;
	const char *specs[2];
	char *a, *b;

	strbuf_addf(&dirstore, "%s/dirstore", dir);
	specs[0] = dirstore.buf;
	specs[1] = pg.url;
	init_store();
	store_series(specs, 2);
	set_listing_matches(specs, 2);
	same_from_both("history --json",
		       (const char *const[]){ "history", "--store", "dirstore",
					      "--json", "h-dir.json", NULL },
		       (const char *const[]){ "history", "--store", pg.url,
					      "--json", "h-pg.json", NULL },
		       0);
	a = read_in_dir("h-dir.json");
	b = read_in_dir("h-pg.json");
	cr_assert(a && b);
	cr_assert(strstr(a, "\"change_points\""), "%s", a);
	cr_assert_str_eq(a, b);
	free(a);
	free(b);
	/* the planted step is a worse-direction change point: alert */
	same_from_both("history --alert",
		       (const char *const[]){ "history", "--store", "dirstore",
					      "--alert", "--published",
					      "site-dir", NULL },
		       (const char *const[]){ "history", "--store", pg.url,
					      "--alert", "--published",
					      "site-pg", NULL },
		       1);
	same_from_both("publish",
		       (const char *const[]){ "publish", "--store", "dirstore",
					      "--out", "site-dir", "--quiet",
					      NULL },
		       (const char *const[]){ "publish", "--store", pg.url,
					      "--out", "site-pg", "--quiet",
					      NULL },
		       0);
	{
		struct strbuf tree_a = STRBUF_INIT, tree_b = STRBUF_INIT;
		struct strbuf path = STRBUF_INIT;

		strbuf_addf(&path, "%s/site-dir", dir);
		test_list_tree(&tree_a, path.buf);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/site-pg", dir);
		test_list_tree(&tree_b, path.buf);
		cr_assert_str_eq(tree_a.buf, tree_b.buf);
		cr_assert(strstr(tree_a.buf, "index.html"), "%s", tree_a.buf);
		a = read_in_dir("site-dir/index.html");
		b = read_in_dir("site-pg/index.html");
		cr_assert(a && b);
		cr_assert_str_eq(a, b);
		free(a);
		free(b);
		strbuf_release(&tree_a);
		strbuf_release(&tree_b);
		strbuf_release(&path);
	}
	/* published: no alert left, from either store */
	same_from_both("history --alert after publish",
		       (const char *const[]){ "history", "--store", "dirstore",
					      "--alert", "--published",
					      "site-dir", NULL },
		       (const char *const[]){ "history", "--store", pg.url,
					      "--alert", "--published",
					      "site-pg", NULL },
		       0);
	strbuf_release(&dirstore);
}

/* import stores a peer's results in the database, and compare by
 * revision reads the latest result of a commit from it. */
Test(store_pg, import_and_compare_by_revision)
{
	struct test_output out;

	init_store();
	free(test_write_file(dir, "peer.json",
			     "[{\"name\": \"parse\", \"unit\": \"ms\","
			     " \"value\": 1.5}, {\"name\": \"render\","
			     " \"unit\": \"ms\", \"value\": 7.25}]"));
	RUN(&out, machine_env, "import", "--format", "customSmallerIsBetter",
	    "peer.json", "--suite", "peer", "--store", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM benchgate_points"
					 " WHERE suite = 'peer' AND n = 1 AND"
					 " median IN (1.5, 7.25)"),
		     2);
	run_ok("s.json");
	RUN(&out, machine_env, "compare", "HEAD", "HEAD", "--suite", "pgsuite",
	    "--store", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "spin"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, machine_env, "compare", "HEAD", "HEAD", "--suite", "peer",
	    "--store", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "render"), "%s", out.out.buf);
	test_output_release(&out);
	/* a suite the database does not have: not found, not a crash */
	RUN(&out, machine_env, "compare", "HEAD", "HEAD", "--suite", "none",
	    "--store", pg.url);
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
}

/* Prune and compact (maintain.h): the same commands on a directory store
 * and on the database holding the same results give the same report
 * (the database's sizes are octet_length(), as the files' are their
 * sizes) and the same store: copied back to a directory, byte for byte
 * what the directory store holds; the summaries follow the documents. */

#define MAINTAIN_MACHINE  "0123456789abcdef"
#define MAINTAIN_OLD	  "2026-01-01T00:00:00Z"
#define MAINTAIN_OLD_STEM "s-20260101T000000Z"

/* Commits c0 (tagged v1) and c1 on main, beside setup()'s first. */
static void tagged_commits(git_oid commits[2])
{
	git_object *target = NULL;
	git_repository *repo;
	git_oid head, tag;

	cr_assert_eq(git_repository_open(&repo, dir), 0);
	cr_assert_eq(git_reference_name_to_id(&head, repo, "refs/heads/main"),
		     0);
	test_git_commit(repo, "refs/heads/main", "c0", 1, &head, &commits[0]);
	test_git_commit(repo, "refs/heads/main", "c1", 1, &commits[0],
			&commits[1]);
	cr_assert_eq(git_object_lookup(&target, repo, &commits[0],
				       GIT_OBJECT_COMMIT),
		     0);
	cr_assert_eq(git_tag_create_lightweight(&tag, repo, "v1", target, 0),
		     0);
	git_object_free(target);
	git_repository_free(repo);
}

/* A result of suite "s" at `commit` started at `started` (NULL: now):
 * latency of 5 runs of 200 samples around `level`, deterministic noise
 * of +-1 %. */
static void maintain_result(struct store *store, const git_oid *commit,
			    const char *started, double level)
{
	struct strbuf now = STRBUF_INIT;
	struct result *r = result_new();
	struct metric_samples *m;
	unsigned state = 12345u + (unsigned)(level * 100);

	iso8601_now(&now);
	r->suite = xstrdup("s");
	r->started_at = xstrdup(started ? started : now.buf);
	git_oid_tostr(r->git.commit, sizeof(r->git.commit), commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "%s", MAINTAIN_MACHINE);
	m = result_case_metric(result_add_case(r, "b", "original", "cpu"),
			       "latency");
	m->runs = 5;
	for (size_t k = 0; k < 5 * 200; k++) {
		state = state * 1103515245u + 12345u;
		metric_samples_push(
			m, level * (0.99 + 0.02 * (state >> 16) / 65536.0));
	}
	cr_assert_eq(store_write(store, r, NULL, NULL), 0, "%s",
		     bg_error_last());
	result_free(r);
	strbuf_release(&now);
}

/* "dref": the old results of c0 and c1 with a log each and one of c1
 * from now; the same in the database (store copy). */
static void maintain_fixture(git_oid commits[2])
{
	struct strbuf path = STRBUF_INIT;
	struct store *store = NULL;
	struct test_output out;

	init_store();
	tagged_commits(commits);
	strbuf_addf(&path, "%s/dref", dir);
	cr_assert_eq(store_open(&store, path.buf), 0);
	maintain_result(store, &commits[0], MAINTAIN_OLD, 10);
	maintain_result(store, &commits[1], MAINTAIN_OLD, 11);
	maintain_result(store, &commits[1], NULL, 12);
	store_free(store);
	test_shell(dir, "for m in dref/*/*/" MAINTAIN_MACHINE "; do\n"
			"  l=$m/logs/" MAINTAIN_OLD_STEM "; mkdir -p $l\n"
			"  echo \"log of $m\" > $l/b.log\n"
			"done\n");
	RUN(&out, NULL, "store", "copy", "--from", "dref", "--to", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "3 results: 3 copied"), "%s",
		  out.out.buf);
	test_output_release(&out);
	strbuf_release(&path);
}

/* The last line of `text` that starts with `start` (free it). */
static char *line_starting(const char *text, const char *start)
{
	const char *found = NULL, *end;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p += !!p)
		if (!strncmp(p, start, strlen(start)))
			found = p;
	cr_assert(found, "no line '%s...' in:\n%s", start, text);
	end = strchr(found, '\n');
	return xstrndup(found, end ? (size_t)(end - found) : strlen(found));
}

/* Runs `store <verb> ARGS...` on dref and on the database: both exit 0
 * with the same summary line (starting with `summary`), which is
 * returned (free it); the database's says what its bytes are. */
static char *maintain_both(const char *summary, const char *verb,
			   const char *a1, const char *a2, const char *a3,
			   const char *a4)
{
	const char *specs[] = { "dref", pg.url };
	char *lines[2];

	for (int s = 0; s < 2; s++) {
		const char *argv[] = { "store", verb, "--store", specs[s], a1,
				       a2,	a3,   a4,	 NULL };
		struct test_output out;

		test_benchgate(&out, dir, NULL, argv);
		cr_assert_eq(out.exit_code, 0, "%s %s: %s%s", verb, specs[s],
			     out.out.buf, out.err.buf);
		lines[s] = line_starting(out.out.buf, summary);
		if (s == 1)
			cr_assert(strstr(out.out.buf, "octet_length()"), "%s",
				  out.out.buf);
		else
			cr_assert(!strstr(out.out.buf, "octet_length()"), "%s",
				  out.out.buf);
		test_output_release(&out);
	}
	cr_assert_str_eq(lines[1], lines[0]);
	free(lines[0]);
	return lines[1];
}

/* The database copied into a new directory store `to` holds exactly the
 * files of dref, byte for byte; its history is dref's. */
static void database_matches_dref(const char *to)
{
	struct strbuf script = STRBUF_INIT;
	struct test_output out;

	RUN(&out, NULL, "store", "copy", "--from", pg.url, "--to", to);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	strbuf_addf(&script,
		    "(cd dref && find . -type f ! -name '.*' | sort) > files-ref\n"
		    "(cd %s && find . -type f ! -name '.*' | sort) > files-out\n"
		    "diff files-ref files-out\n"
		    "while read f; do cmp dref/$f %s/$f; done < files-ref\n",
		    to, to);
	test_shell(dir, script.buf);
	strbuf_release(&script);
	same_from_both("history --json after maintenance",
		       (const char *const[]){ "history", "--store", "dref",
					      "--json", "h-ref.json", NULL },
		       (const char *const[]){ "history", "--store", pg.url,
					      "--json", "h-pg.json", NULL },
		       0);
	{
		char *a = read_in_dir("h-ref.json"),
		     *b = read_in_dir("h-pg.json");

		cr_assert(a && b);
		cr_assert_str_eq(a, b);
		free(a);
		free(b);
	}
}

/* Every row's SHA-256 is its document's; every metric row's n and median
 * are its document's samples' (percentile_cont(0.5) is the median of an
 * even count as the summaries take it), and no row outlives its result. */
static void summaries_follow_documents(long results, long files)
{
	long stored = pgserver_count(&pg, "SELECT count(*) FROM "
					  "benchgate_results");

	cr_assert_eq(stored, results, "%ld results, %ld expected", stored,
		     results);
	cr_assert_eq(pgserver_count(&pg,
				    "SELECT count(*) FROM "
				    "benchgate_results WHERE content_sha256"
				    " <> encode(sha256(convert_to(document,"
				    " 'UTF8')), 'hex')"),
		     0);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_points"),
		     results);
	cr_assert_eq(
		pgserver_count(
			&pg,
			"SELECT count(*) FROM benchgate_points p"
			" JOIN benchgate_results r ON r.id = p.result_id,"
			" LATERAL (SELECT count(*) AS n,"
			"  percentile_cont(0.5) WITHIN GROUP"
			"  (ORDER BY x::float8) AS median"
			"  FROM jsonb_array_elements_text(r.document::jsonb"
			"  #> '{cases,0,metrics,latency,samples}') x) s"
			" WHERE s.n = p.n"
			" AND abs(s.median - p.median) <= 1e-9 * p.median"),
		results);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_files"),
		     files);
}

Test(store_pg, prune_and_compact_match_a_directory_store)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct test_output out;
	git_oid commits[2];
	char *dry;
	const char *snapshot = "SELECT name, commit, content_sha256,"
			       " (SELECT count(*) FROM benchgate_files f"
			       "  WHERE f.result_id = r.id)"
			       " FROM benchgate_results r ORDER BY id";

	maintain_fixture(commits);
	summaries_follow_documents(3, 2);
	pgserver_sql(&pg, snapshot, &before);

	/* a dry run: the old untagged result, its bytes and its log's,
	 * counted alike in both stores; nothing changes */
	dry = maintain_both("would remove 1 of 3 results (1 kept as tagged), ",
			    "prune", "--older-than", "30d", "--keep-tagged",
			    "--dry-run");
	pgserver_sql(&pg, snapshot, &after);
	cr_assert_str_eq(after.buf, before.buf, "a dry run changed the store");
	{
		/* the bytes it gives are the database's: the document's and
		 * its log's octet_length() */
		struct strbuf sql = STRBUF_INIT, expected = STRBUF_INIT;

		strbuf_addf(
			&sql,
			"SELECT octet_length(document) + (SELECT"
			" sum(octet_length(content)) FROM benchgate_files f"
			" WHERE f.result_id = r.id) FROM benchgate_results r"
			" WHERE commit = '%s' AND started_at < now() -"
			" interval '30 days'",
			test_oid_hex(&commits[1], 0));
		strbuf_addf(&expected, "(1 kept as tagged), %ld bytes ",
			    pgserver_count(&pg, sql.buf));
		cr_assert(strstr(dry, expected.buf), "%s: %s", expected.buf,
			  dry);
		strbuf_release(&sql);
		strbuf_release(&expected);
		free(dry);
	}
	free(maintain_both("removed 1 of 3 results (1 kept as tagged), ",
			   "prune", "--older-than", "30d", "--keep-tagged",
			   NULL));
	summaries_follow_documents(2, 1);
	cr_assert_eq(pgserver_count(&pg,
				    "SELECT count(*) FROM benchgate_results"
				    " WHERE started_at < now() - interval"
				    " '30 days'"),
		     1);

	strbuf_reset(&before);
	pgserver_sql(&pg, snapshot, &before);
	free(maintain_both("would compact 2 of 2 results (0 kept as tagged): ",
			   "compact", "--samples", "20", "--dry-run", NULL));
	strbuf_reset(&after);
	pgserver_sql(&pg, snapshot, &after);
	cr_assert_str_eq(after.buf, before.buf, "a dry run changed the store");
	free(maintain_both("compacted 2 of 2 results (0 kept as tagged): ",
			   "compact", "--samples", "20", NULL, NULL));
	/* 4 order statistics of each of the 5 runs */
	summaries_follow_documents(2, 1);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM benchgate_points"
					 " WHERE n = 20"),
		     2);
	database_matches_dref("dout");

	/* the compacted documents are the stored ones: copying them in
	 * again stores nothing (the same content is stored once) */
	RUN(&out, NULL, "store", "copy", "--from", "dout", "--to", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "2 results: 0 copied (0 renamed), 2 "
				      "already there"),
		  "%s", out.out.buf);
	test_output_release(&out);
	summaries_follow_documents(2, 1);

	/* without --keep-tagged the tagged old result goes too */
	free(maintain_both("removed 1 of 2 results (0 kept as tagged), ",
			   "prune", "--older-than", "30d", NULL, NULL));
	summaries_follow_documents(1, 0);
	database_matches_dref("dout2");
	RUN(&out, NULL, "store", "prune", "--store", pg.url, "--older-than",
	    "1d", "--squash");
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "no history to squash"), "%s",
		  out.err.buf);
	test_output_release(&out);
	strbuf_release(&before);
	strbuf_release(&after);
}

/* A prune whose second removal the server refuses (a trigger) removes
 * nothing: the changes are one transaction. */
Test(store_pg, a_prune_that_fails_midway_changes_nothing)
{
	struct strbuf sql = STRBUF_INIT, before = STRBUF_INIT;
	struct strbuf after = STRBUF_INIT, later = STRBUF_INIT;
	struct test_output out;
	git_oid commits[2];
	const char *snapshot = "SELECT name, commit, content_sha256 FROM"
			       " benchgate_results ORDER BY id";

	maintain_fixture(commits);
	/* the old results go oldest first, then by commit: refuse the
	 * later commit's, so that the other is removed before */
	pgserver_sql(&pg,
		     "SELECT max(commit) FROM benchgate_results WHERE"
		     " started_at < now() - interval '30 days'",
		     &later);
	strbuf_rtrim(&later);
	strbuf_addf(&sql,
		    "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql"
		    " AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END"
		    " $$; CREATE TRIGGER refuse BEFORE DELETE ON"
		    " benchgate_results FOR EACH ROW WHEN (OLD.commit ="
		    " '%s') EXECUTE FUNCTION refuse()",
		    later.buf);
	pgserver_sql(&pg, sql.buf, NULL);
	pgserver_sql(&pg, snapshot, &before);
	RUN(&out, NULL, "store", "prune", "--store", pg.url, "--older-than",
	    "30d");
	cr_assert_neq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "refused by the test"), "%s",
		  out.err.buf);
	test_output_release(&out);
	pgserver_sql(&pg, snapshot, &after);
	cr_assert_str_eq(after.buf, before.buf);
	summaries_follow_documents(3, 2);
	pgserver_sql(&pg, "DROP TRIGGER refuse ON benchgate_results", NULL);
	RUN(&out, NULL, "store", "prune", "--store", pg.url, "--older-than",
	    "30d");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "removed 2 of 3 results"), "%s",
		  out.out.buf);
	test_output_release(&out);
	summaries_follow_documents(1, 0);
	strbuf_release(&sql);
	strbuf_release(&before);
	strbuf_release(&after);
	strbuf_release(&later);
}
