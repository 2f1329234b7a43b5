/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PostgreSQL backend of the store: results as rows of a database
 * reached through libpq, behind the same verbs as a directory or a branch.
 * The schema, its versions and the rules for logs are documented in
 * docs/reference/store-postgresql.md; this file holds the SQL that makes them.
 *
 * - A result is one row of benchgate_results holding its document's text
 *   verbatim, one row of benchgate_metrics per metric of an ok case (the
 *   summaries a history or a dashboard reads without parsing documents),
 *   and one row of benchgate_files per log or artifact file of its slot;
 *   all written in one transaction, so a result is whole or absent.
 * - The same document stored twice is stored once: its SHA-256 is unique.
 * - Names follow store.h's layout ("<suite>-<timestamp>[-N]" per commit and
 *   machine); a transaction-scoped advisory lock per commit and machine
 *   makes choosing a free name and inserting it one step.
 * - While a run is in progress its logs and artifacts are plain files in a
 *   scratch directory under the store's cache directory; they go into
 *   benchgate_files with the result and are then removed.
 * - Prune and compact (store_rewrite()) are one transaction: a result
 *   removed takes its metric and file rows with it, a compacted document
 *   gets its SHA-256 and metric rows anew.
 * - libpq is loaded with dlopen() by the first connection, never linked:
 *   it and the dozen libraries it needs (LDAP, SASL, GnuTLS, Kerberos...)
 *   would otherwise be mapped at every start of every command
 *   (docs/performance.md). Only this file calls libpq, through the table
 *   `pq` below; libpq-fe.h gives the types and constants.
 */
#include "harness/store/store.h"
#include "harness/store/store_backend.h"
#include "harness/store/store_common.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/hash.h"
#include "harness/util/median_interval.h"

#include <libpq-fe.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The schema's migrations: migrations[i] takes a database from version i
 * to i + 1. A released step is never edited; a change is a new step.
 */
static const char *const migrations[] = {
	/* 1: results, their metric summaries and their files */
	"CREATE TABLE benchgate_schema ("
	" version integer NOT NULL,"
	" migrated_at timestamptz NOT NULL DEFAULT now());"
	"INSERT INTO benchgate_schema (version) VALUES (0);"
	"CREATE TABLE benchgate_results ("
	" id bigserial PRIMARY KEY,"
	" commit text NOT NULL,"
	" machine text NOT NULL,"
	" suite text NOT NULL,"
	" suite_file text NOT NULL,"
	" name text NOT NULL,"
	" started_at timestamptz NOT NULL,"
	" stored_at timestamptz NOT NULL DEFAULT now(),"
	" content_sha256 text NOT NULL UNIQUE,"
	" document text NOT NULL,"
	" UNIQUE (commit, machine, name));"
	"CREATE INDEX benchgate_results_commit"
	" ON benchgate_results (commit text_pattern_ops);"
	"CREATE TABLE benchgate_metrics ("
	" result_id bigint NOT NULL"
	"  REFERENCES benchgate_results ON DELETE CASCADE,"
	" benchmark text NOT NULL,"
	" variant text NOT NULL,"
	" device text NOT NULL,"
	" metric text NOT NULL,"
	" unit text,"
	" better text NOT NULL,"
	" n integer NOT NULL,"
	" median double precision NOT NULL,"
	" low double precision,"
	" high double precision,"
	" variance double precision,"
	" PRIMARY KEY (result_id, benchmark, variant, device, metric));"
	"CREATE TABLE benchgate_files ("
	" result_id bigint NOT NULL"
	"  REFERENCES benchgate_results ON DELETE CASCADE,"
	" path text NOT NULL,"
	" content bytea NOT NULL,"
	" PRIMARY KEY (result_id, path));",
	/* 2: the points view for dashboards, and the index its series use */
	"CREATE INDEX benchgate_metrics_series ON benchgate_metrics"
	" (benchmark, variant, device, metric);"
	"CREATE VIEW benchgate_points AS SELECT"
	" r.started_at AS time, r.suite, m.benchmark, m.variant, m.device,"
	" r.machine, m.metric, r.commit, m.median, m.low, m.high,"
	" m.n, m.variance, m.unit, m.better, r.id AS result_id"
	" FROM benchgate_results r"
	" JOIN benchgate_metrics m ON m.result_id = r.id;",
};

#define SCHEMA_VERSION ((int)(sizeof(migrations) / sizeof(migrations[0])))

/* Confidence of the metric rows' interval of the median (low, high): the
 * history's default (docs/gate-settings.md). */
#define SUMMARY_CONFIDENCE 0.95

struct pg_store {
	char *url; /* as given, password included: only ever given to libpq */
	PGconn *conn;
	bool checked; /* the schema's version was found current */
};

static struct pg_store *pg_of(struct store *store)
{
	return store->backend_data;
}

/* Spec and URL */

bool store_spec_is_postgres(const char *spec)
{
	return !strncmp(spec, "postgresql://", 13) ||
	       !strncmp(spec, "postgres://", 11);
}

/*
 * The URL without its password, for every message: "user:secret@" loses
 * ":secret" and a "password=" parameter is left out. Whatever precedes the
 * last '@' before the parameters is taken as the user part, so a password
 * holding '/' or '@' is dropped whole too.
 */
static void redact_url(const char *url, struct strbuf *out)
{
	const char *start = strstr(url, "://") + 3;
	const char *params = strchr(start, '?');
	const char *end = params ? params : start + strlen(start);
	const char *at = NULL, *colon;

	for (const char *p = start; p < end; p++)
		if (*p == '@')
			at = p;
	strbuf_add(out, url, (size_t)(start - url));
	if (at) {
		colon = memchr(start, ':', (size_t)(at - start));
		strbuf_add(out, start, (size_t)((colon ? colon : at) - start));
		start = at;
	}
	strbuf_add(out, start, (size_t)(end - start));
	if (!params)
		return;
	for (const char *p = params + 1, *sep = "?"; *p;) {
		const char *amp = strchr(p, '&');
		size_t len = amp ? (size_t)(amp - p) : strlen(p);

		if (strncmp(p, "password=", 9)) {
			strbuf_addf(out, "%s%.*s", sep, (int)len, p);
			sep = "&";
		}
		p += len + (amp != NULL);
	}
}

/* $XDG_CACHE_HOME/benchgate/postgresql-<hash of the redacted URL>, else
 * under ~/.cache or $TMPDIR: scratch for runs in progress and the
 * readers' caches, one directory per database. */
static void cache_dir_of(const char *location, struct strbuf *out)
{
	store_cache_root(out);
	strbuf_addf(out, "/postgresql-%016" PRIx64,
		    hash_fnv1a64(location, strlen(location)));
}

/* Loading libpq */

/* The soname of the libpq the build was configured with (CMakeLists.txt
 * sets it; Debian's libpq5 ships it). */
#ifndef BENCHGATE_LIBPQ
#define BENCHGATE_LIBPQ "libpq.so.5"
#endif

/* The libpq calls this file makes, resolved once by load_libpq(). */
static struct pq_api {
	void (*clear)(PGresult *res);
	char *(*cmd_tuples)(PGresult *res);
	PGconn *(*connectdb_params)(const char *const *keywords,
				    const char *const *values,
				    int expand_dbname);
	char *(*error_message)(const PGconn *conn);
	PGresult *(*exec)(PGconn *conn, const char *query);
	PGresult *(*exec_params)(PGconn *conn, const char *command, int nparams,
				 const Oid *types, const char *const *values,
				 const int *lengths, const int *formats,
				 int result_format);
	void (*finish)(PGconn *conn);
	PGresult *(*get_result)(PGconn *conn);
	int (*get_length)(const PGresult *res, int row, int column);
	char *(*get_value)(const PGresult *res, int row, int column);
	int (*ntuples)(const PGresult *res);
	int (*put_copy_data)(PGconn *conn, const char *buffer, int nbytes);
	int (*put_copy_end)(PGconn *conn, const char *errormsg);
	char *(*result_error_message)(const PGresult *res);
	ExecStatusType (*result_status)(const PGresult *res);
	PQnoticeProcessor (*set_notice_processor)(PGconn *conn,
						  PQnoticeProcessor proc,
						  void *arg);
	ConnStatusType (*status)(const PGconn *conn);
} pq;
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_load_error[512]; /* empty when libpq is loaded */

static void load_libpq_once(void)
{
	static const struct {
		const char *name;
		size_t offset, size;
	} symbols[] = {
#define SYMBOL(field, name) \
	{ name, offsetof(struct pq_api, field), sizeof(pq.field) }
		SYMBOL(clear, "PQclear"),
		SYMBOL(cmd_tuples, "PQcmdTuples"),
		SYMBOL(connectdb_params, "PQconnectdbParams"),
		SYMBOL(error_message, "PQerrorMessage"),
		SYMBOL(exec, "PQexec"),
		SYMBOL(exec_params, "PQexecParams"),
		SYMBOL(finish, "PQfinish"),
		SYMBOL(get_result, "PQgetResult"),
		SYMBOL(get_length, "PQgetlength"),
		SYMBOL(get_value, "PQgetvalue"),
		SYMBOL(ntuples, "PQntuples"),
		SYMBOL(put_copy_data, "PQputCopyData"),
		SYMBOL(put_copy_end, "PQputCopyEnd"),
		SYMBOL(result_error_message, "PQresultErrorMessage"),
		SYMBOL(result_status, "PQresultStatus"),
		SYMBOL(set_notice_processor, "PQsetNoticeProcessor"),
		SYMBOL(status, "PQstatus"),
#undef SYMBOL
	};
	void *library = dlopen(BENCHGATE_LIBPQ, RTLD_NOW | RTLD_LOCAL);

	if (!library) {
		const char *why = dlerror();

		snprintf(pq_load_error, sizeof(pq_load_error),
			 "cannot load libpq, which a PostgreSQL store needs: "
			 "%s (install it: apt-get install libpq5 on Debian "
			 "and Ubuntu)",
			 why ? why : BENCHGATE_LIBPQ);
		return;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		/* dlsym() returns a data pointer; POSIX guarantees that it
		 * holds a function's address, and memcpy says so without a
		 * cast that ISO C leaves undefined. */
		void *address = dlsym(library, symbols[i].name);

		if (!address) {
			snprintf(pq_load_error, sizeof(pq_load_error),
				 "cannot use %s: it has no %s(); benchgate "
				 "needs libpq 10 or newer",
				 BENCHGATE_LIBPQ, symbols[i].name);
			dlclose(library);
			return;
		}
		memcpy((char *)&pq + symbols[i].offset, &address,
		       symbols[i].size);
	}
}

/* Loads libpq once per process; BG_ERROR with a message naming the
 * library and the package to install when it cannot be loaded. */
static int load_libpq(void)
{
	pthread_once(&pq_once, load_libpq_once);
	if (pq_load_error[0])
		return bg_error("%s", pq_load_error);
	return BG_OK;
}

/* Connection and schema */

/* libpq's message without its trailing newline. */
static const char *conn_message(PGconn *conn)
{
	static char buf[1024];
	const char *message = conn ? pq.error_message(conn) : "out of memory";
	size_t len;

	snprintf(buf, sizeof(buf), "%s", message);
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return buf;
}

/* A server's notices that pass client_min_messages (warnings) reach the
 * user as benchgate's warnings, not libpq's bare stderr lines. */
static void forward_notice(void *arg, const char *message)
{
	size_t len = strlen(message);

	(void)arg;
	while (len && message[len - 1] == '\n')
		len--;
	bg_warn("PostgreSQL: %.*s", (int)len, message);
}

static int query_failed(struct store *store, PGresult *res, const char *what)
{
	const char *message = res ? pq.result_error_message(res) : "";
	size_t len = strlen(message);

	if (!len) {
		message = conn_message(pg_of(store)->conn);
		len = strlen(message);
	}
	while (len && message[len - 1] == '\n')
		len--;
	return bg_error("PostgreSQL store '%s': cannot %s: %.*s",
			store->location, what, (int)len, message);
}

/* Runs sql (no parameters, no rows wanted): BG_OK or BG_ERROR. */
static int exec_command(struct store *store, const char *sql, const char *what)
{
	PGresult *res = pq.exec(pg_of(store)->conn, sql);
	int error = BG_OK;

	if (pq.result_status(res) != PGRES_COMMAND_OK &&
	    pq.result_status(res) != PGRES_TUPLES_OK)
		error = query_failed(store, res, what);
	pq.clear(res);
	return error;
}

/* The schema's version: 0 when the database has none. */
static int schema_version(struct store *store, int *version)
{
	PGconn *conn = pg_of(store)->conn;
	PGresult *res = pq.exec(conn, "SELECT to_regclass('benchgate_schema')"
				      " IS NOT NULL");
	int error = BG_OK;

	*version = 0;
	if (pq.result_status(res) != PGRES_TUPLES_OK || pq.ntuples(res) != 1) {
		error = query_failed(store, res, "read the schema version");
		goto done;
	}
	if (strcmp(pq.get_value(res, 0, 0), "t"))
		goto done;
	pq.clear(res);
	res = pq.exec(conn, "SELECT max(version) FROM benchgate_schema");
	if (pq.result_status(res) != PGRES_TUPLES_OK || pq.ntuples(res) != 1) {
		error = query_failed(store, res, "read the schema version");
		goto done;
	}
	*version = atoi(pq.get_value(res, 0, 0));
done:
	pq.clear(res);
	return error;
}

/* Connects (again, when the server dropped the connection). BG_ERROR when
 * the server cannot be reached or refuses. */
static int pg_connect(struct store *store)
{
	struct pg_store *ps = pg_of(store);
	/* the URL's own connect_timeout, or PGCONNECT_TIMEOUT, wins: later
	 * parameters override earlier ones */
	const char *keywords[] = { "connect_timeout", "application_name",
				   "dbname", NULL };
	const char *values[] = { "10", "benchgate", ps->url, NULL };
	int first = getenv("PGCONNECT_TIMEOUT") ? 1 : 0;
	int error;

	if ((error = load_libpq()) < 0)
		return error;
	if (ps->conn && pq.status(ps->conn) == CONNECTION_OK)
		return BG_OK;
	pq.finish(ps->conn);
	ps->conn = pq.connectdb_params(keywords + first, values + first, 1);
	if (!ps->conn || pq.status(ps->conn) != CONNECTION_OK) {
		error = bg_error("cannot connect to the PostgreSQL store "
				 "'%s': %s",
				 store->location, conn_message(ps->conn));

		pq.finish(ps->conn);
		ps->conn = NULL;
		return error;
	}
	pq.set_notice_processor(ps->conn, forward_notice, NULL);
	return exec_command(store, "SET client_min_messages = warning",
			    "set up the session");
}

/* Connects and checks that the schema is this benchgate's: BG_EINPUT
 * naming `benchgate store init` when it is missing or older. */
static int pg_open_checked(struct store *store)
{
	struct pg_store *ps = pg_of(store);
	int version, error;

	if ((error = pg_connect(store)) < 0 || ps->checked)
		return error;
	if ((error = schema_version(store, &version)) < 0)
		return error;
	if (version == 0)
		return bg_input_error("'%s' holds no benchgate store: run "
				      "'benchgate store init %s' to create it",
				      store->location, store->location);
	if (version < SCHEMA_VERSION)
		return bg_input_error("the store '%s' has schema version %d, "
				      "older than this benchgate's %d: run "
				      "'benchgate store init %s' to migrate it",
				      store->location, version, SCHEMA_VERSION,
				      store->location);
	if (version > SCHEMA_VERSION)
		return bg_input_error("the store '%s' has schema version %d, "
				      "newer than this benchgate's %d: "
				      "upgrade benchgate",
				      store->location, version, SCHEMA_VERSION);
	ps->checked = true;
	return BG_OK;
}

/* Parameters and rows */

static PGresult *query(struct store *store, const char *sql, int nparams,
		       const char *const *params)
{
	return pq.exec_params(pg_of(store)->conn, sql, nparams, NULL, params,
			      NULL, NULL, 0);
}

/* A query expected to return rows: its result, or NULL with the error
 * recorded. */
static PGresult *select_rows(struct store *store, const char *sql, int nparams,
			     const char *const *params, const char *what)
{
	PGresult *res = query(store, sql, nparams, params);

	if (pq.result_status(res) == PGRES_TUPLES_OK)
		return res;
	query_failed(store, res, what);
	pq.clear(res);
	return NULL;
}

static int command(struct store *store, const char *sql, int nparams,
		   const char *const *params, const char *what)
{
	PGresult *res = query(store, sql, nparams, params);
	int error = BG_OK;

	if (pq.result_status(res) != PGRES_COMMAND_OK &&
	    pq.result_status(res) != PGRES_TUPLES_OK)
		error = query_failed(store, res, what);
	pq.clear(res);
	return error;
}

/* "<location>#<commit>/<machine>/<name>.json": how an entry is named in
 * messages and found again by pg_load(). */
static void entry_path(struct store *store, const char *commit,
		       const char *machine, const char *name,
		       struct strbuf *out)
{
	strbuf_addf(out, "%s#%s/%s/%s.json", store->location, commit, machine,
		    name);
}

/* Reserving a slot */

struct name_probe {
	struct store *store;
	const struct result *r;
};

/* Whether a result of that name is in the database (a server that is
 * down has none: the write decides again under its lock). */
static bool name_in_database(const char *name, void *data)
{
	const struct name_probe *probe = data;
	const char *params[] = { probe->r->git.commit, probe->r->machine.id,
				 name };
	PGresult *res;
	bool taken;

	if (!pg_of(probe->store)->conn)
		return false;
	res = query(probe->store,
		    "SELECT 1 FROM benchgate_results"
		    " WHERE commit = $1 AND machine = $2 AND name = $3",
		    3, params);
	taken = pq.result_status(res) == PGRES_TUPLES_OK && pq.ntuples(res) > 0;
	pq.clear(res);
	return taken;
}

/* "<cache>/scratch/<commit>/<machine>": a slot's directory, whose logs/
 * and artifacts/ hold a run's files until its result is written. */
static void scratch_dir(struct store *store, const struct result *r,
			struct strbuf *out)
{
	strbuf_addf(out, "%s/scratch/%s/%s", store->cache_dir, r->git.commit,
		    r->machine.id);
}

static int pg_reserve(struct store *store, const struct result *r,
		      struct store_slot **out)
{
	struct strbuf stem = STRBUF_INIT, dir = STRBUF_INIT;
	struct strbuf logs = STRBUF_INIT, name = STRBUF_INIT;
	struct strbuf where = STRBUF_INIT;
	struct name_probe probe = { store, r };
	int error;

	*out = NULL;
	if ((error = store_result_stem(r, &stem)) < 0)
		goto done;
	/*
	 * A schema that is missing or old ends the run before it measures
	 * anything; a server that cannot be reached does not: the run goes
	 * on and its result is kept in a file should the server still be
	 * down when it ends (exit status 4, `benchgate merge` stores it).
	 */
	if ((error = pg_open_checked(store)) == BG_EINPUT)
		goto done;
	if (error < 0)
		bg_warn("%s; measuring all the same", bg_error_last());
	scratch_dir(store, r, &dir);
	strbuf_addf(&logs, "%s/logs", dir.buf);
	strbuf_addf(&where, "in '%s'", store->location);
	if ((error = mkdir_p(logs.buf)) < 0 ||
	    (error = store_claim_name(stem.buf, 0, logs.buf, name_in_database,
				      &probe, where.buf, &name)) < 0)
		goto done;
	*out = store_slot_new(dir.buf, name.buf);
done:
	strbuf_release(&stem);
	strbuf_release(&dir);
	strbuf_release(&logs);
	strbuf_release(&name);
	strbuf_release(&where);
	return error;
}

/* Writing */

/* Sorts doubles ascending, NaNs last. */
static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? -1 : x > y;
}

struct summary {
	size_t n;
	double median, low, high, variance;
};

/*
 * The summary of a metric's samples that its row keeps: the median, the
 * distribution-free interval of the median by order statistics at
 * SUMMARY_CONFIDENCE (the j-th smallest and largest sample, j the largest
 * with P(Binomial(n, 1/2) < j) <= (1 - confidence) / 2: median_interval(),
 * as the statistics layer computes it), and the samples' variance (n - 1),
 * NAN for one.
 */
static void summarize(const struct metric_samples *m, struct summary *out)
{
	double *sorted = xmalloc(m->nr * sizeof(*sorted));
	double mean = 0, ss = 0;
	size_t n = m->nr;

	memcpy(sorted, m->samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_doubles);
	out->n = n;
	out->median = n % 2 ? sorted[n / 2]
			    : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	median_interval(sorted, n, SUMMARY_CONFIDENCE, &out->low, &out->high);
	for (size_t i = 0; i < n; i++)
		mean += sorted[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (sorted[i] - mean) * (sorted[i] - mean);
	out->variance = n > 1 ? ss / (double)(n - 1) : NAN;
	free(sorted);
}

/* A field of COPY's text format: backslash, tab, newline and carriage
 * return escaped; NULL as \N. */
static void copy_field(struct strbuf *out, const char *text)
{
	if (!text) {
		strbuf_addstr(out, "\\N");
		return;
	}
	for (; *text; text++) {
		switch (*text) {
		case '\\':
			strbuf_addstr(out, "\\\\");
			break;
		case '\t':
			strbuf_addstr(out, "\\t");
			break;
		case '\n':
			strbuf_addstr(out, "\\n");
			break;
		case '\r':
			strbuf_addstr(out, "\\r");
			break;
		default:
			strbuf_addch(out, *text);
		}
	}
}

static void copy_number(struct strbuf *out, double value)
{
	if (isfinite(value))
		strbuf_addf(out, "\t%.17g", value);
	else if (isnan(value))
		strbuf_addstr(out, "\t\\N");
	else
		strbuf_addstr(out, value > 0 ? "\tInfinity" : "\t-Infinity");
}

/* The COPY rows of r's metric summaries for result row `id`: one per
 * metric with samples of each ok case. */
static void metric_rows(const struct result *r, const char *id,
			struct strbuf *out)
{
	for (size_t i = 0; i < r->cases_nr; i++) {
		const struct result_case *c = &r->cases[i];

		if (c->status != CASE_OK)
			continue;
		for (size_t j = 0; j < c->metrics_nr; j++) {
			const struct metric_samples *m = &c->metrics[j];
			struct summary s;

			if (!m->nr)
				continue;
			summarize(m, &s);
			strbuf_addf(out, "%s\t", id);
			copy_field(out, c->benchmark);
			strbuf_addch(out, '\t');
			copy_field(out, c->variant);
			strbuf_addch(out, '\t');
			copy_field(out, c->device);
			strbuf_addch(out, '\t');
			copy_field(out, m->name);
			strbuf_addch(out, '\t');
			copy_field(out, m->unit);
			strbuf_addf(out, "\t%s\t%zu", better_names[m->better],
				    s.n);
			copy_number(out, s.median);
			copy_number(out, s.low);
			copy_number(out, s.high);
			copy_number(out, s.variance);
			strbuf_addch(out, '\n');
		}
	}
}

struct slot_file {
	char *path; /* relative to the slot's directory */
	struct strbuf content;
};

struct slot_files {
	struct slot_file *items;
	size_t nr, alloc;
};

static void slot_files_release(struct slot_files *files)
{
	for (size_t i = 0; i < files->nr; i++) {
		free(files->items[i].path);
		strbuf_release(&files->items[i].content);
	}
	free(files->items);
	memset(files, 0, sizeof(*files));
}

/* Reads every regular file below "<top>/<rel>" (hidden ones excepted)
 * into files, named "<rel>/...". A missing top directory has none. */
static int read_slot_files(const char *top, const char *rel,
			   struct slot_files *files)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf sub = STRBUF_INIT;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int error = BG_OK;

	strbuf_addf(&dir, "%s/%s", top, rel);
	if (!(d = opendir(dir.buf))) {
		if (errno != ENOENT)
			error = bg_error("cannot read directory '%s': %s",
					 dir.buf, strerror(errno));
		goto done;
	}
	while (!error && (de = readdir(d))) {
		struct slot_file *file;

		if (de->d_name[0] == '.')
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir.buf, de->d_name);
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s/%s", rel, de->d_name);
		if (lstat(path.buf, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			error = read_slot_files(top, sub.buf, files);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		ALLOC_GROW(files->items, files->nr + 1, files->alloc);
		file = &files->items[files->nr];
		strbuf_init(&file->content, 0);
		if ((error = strbuf_read_file(&file->content, path.buf)) < 0) {
			strbuf_release(&file->content);
			break;
		}
		file->path = strbuf_detach(&sub, NULL);
		files->nr++;
	}
	closedir(d);
done:
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&sub);
	return error;
}

/* A name a run in progress holds: its scratch logs directory exists. */
static bool name_reserved_here(const char *slot_dir, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	bool reserved;

	strbuf_addf(&path, "%s/logs/%s", slot_dir, name);
	reserved = lstat(path.buf, &st) == 0;
	strbuf_release(&path);
	return reserved;
}

struct pending {
	const struct result *r;
	const struct store_slot *slot;
	const char *stem, *document, *sha256, *started;
	const struct slot_files *files;
};

/* The first free name for the result, under the transaction's lock: the
 * slot's own, else "<stem>[-N]" that neither a stored result nor another
 * run in progress holds. */
static int choose_name(struct store *store, const struct pending *w,
		       const char *slot_dir, struct strbuf *name)
{
	struct name_probe probe = { store, w->r };

	if (w->slot && !name_in_database(w->slot->name, &probe)) {
		strbuf_addstr(name, w->slot->name);
		return BG_OK;
	}
	for (unsigned attempt = 0; attempt < STORE_NAME_ATTEMPTS_MAX;
	     attempt++) {
		store_name_candidate(name, w->stem, attempt);
		if (w->slot && !strcmp(name->buf, w->slot->name))
			continue;
		if (!name_in_database(name->buf, &probe) &&
		    !name_reserved_here(slot_dir, name->buf))
			return BG_OK;
	}
	return bg_error("cannot find a free name for '%s' in '%s'", w->stem,
			store->location);
}

static int copy_metrics(struct store *store, const struct result *r,
			const char *id)
{
	PGconn *conn = pg_of(store)->conn;
	struct strbuf rows = STRBUF_INIT;
	PGresult *res;
	int error = BG_OK;

	metric_rows(r, id, &rows);
	if (!rows.len)
		goto done;
	res = pq.exec(conn, "COPY benchgate_metrics (result_id, benchmark,"
			    " variant, device, metric, unit, better, n, median,"
			    " low, high, variance) FROM STDIN");
	if (pq.result_status(res) != PGRES_COPY_IN) {
		error = query_failed(store, res, "store the metrics");
		pq.clear(res);
		goto done;
	}
	pq.clear(res);
	if (pq.put_copy_data(conn, rows.buf, (int)rows.len) != 1 ||
	    pq.put_copy_end(conn, NULL) != 1) {
		error = query_failed(store, NULL, "store the metrics");
		goto done;
	}
	while ((res = pq.get_result(conn))) {
		if (!error && pq.result_status(res) != PGRES_COMMAND_OK)
			error = query_failed(store, res, "store the metrics");
		pq.clear(res);
	}
done:
	strbuf_release(&rows);
	return error;
}

static int insert_files(struct store *store, const struct slot_files *files,
			const char *id)
{
	for (size_t i = 0; i < files->nr; i++) {
		const struct slot_file *file = &files->items[i];
		const char *params[] = { id, file->path, file->content.buf };
		int lengths[] = { 0, 0, (int)file->content.len };
		int formats[] = { 0, 0, 1 };
		PGresult *res = pq.exec_params(
			pg_of(store)->conn,
			"INSERT INTO benchgate_files (result_id, path, content)"
			" VALUES ($1, $2, $3)",
			3, NULL, params, lengths, formats, 0);
		int error = BG_OK;

		if (pq.result_status(res) != PGRES_COMMAND_OK)
			error = query_failed(store, res, "store a file");
		pq.clear(res);
		if (error < 0)
			return error;
	}
	return BG_OK;
}

/*
 * One transaction: the result, its metrics and files, or nothing. A
 * document already stored (by content) is not stored again: its name is
 * the answer. The name goes to `name`.
 */
static int write_transaction(struct store *store, const struct pending *w,
			     const char *slot_dir, struct strbuf *name)
{
	const struct result *r = w->r;
	const char *lock_params[] = { r->git.commit, r->machine.id };
	const char *hash_params[] = { w->sha256 };
	struct strbuf suite_file = STRBUF_INIT;
	PGresult *res = NULL;
	char id[32] = "";
	int error;

	if ((error = exec_command(store, "BEGIN", "begin a transaction")) < 0)
		return error;
	if ((error = command(store,
			     "SELECT pg_advisory_xact_lock("
			     "hashtextextended($1 || '/' || $2, 0))",
			     2, lock_params, "lock the result's name")) < 0)
		goto done;
	if (!(res = select_rows(store,
				"SELECT name FROM benchgate_results"
				" WHERE content_sha256 = $1",
				1, hash_params, "look for the result"))) {
		error = BG_ERROR;
		goto done;
	}
	if (pq.ntuples(res)) {
		strbuf_addstr(name, pq.get_value(res, 0, 0));
		goto done;
	}
	pq.clear(res);
	res = NULL;
	if ((error = choose_name(store, w, slot_dir, name)) < 0 ||
	    (error = store_suite_filename(r->suite, &suite_file)) < 0)
		goto done;
	{
		const char *params[] = { r->git.commit, r->machine.id,
					 r->suite,	suite_file.buf,
					 name->buf,	w->started,
					 w->sha256,	w->document };

		res = select_rows(store,
				  "INSERT INTO benchgate_results (commit,"
				  " machine, suite, suite_file, name,"
				  " started_at, content_sha256, document)"
				  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
				  " RETURNING id",
				  8, params, "store the result");
	}
	if (!res) {
		error = BG_ERROR;
		goto done;
	}
	snprintf(id, sizeof(id), "%s", pq.get_value(res, 0, 0));
	if ((error = copy_metrics(store, r, id)) < 0 ||
	    (error = insert_files(store, w->files, id)) < 0)
		goto done;
done:
	pq.clear(res);
	strbuf_release(&suite_file);
	if (error < 0) {
		pq.clear(pq.exec(pg_of(store)->conn, "ROLLBACK"));
		return error;
	}
	return exec_command(store, "COMMIT", "commit the result");
}

/* "2026-11-22T07:34:22Z" from the stem's "...-20261122T073422Z". */
static void started_of(const char *stem, char out[21])
{
	const char *ts = stem + strlen(stem) - STORE_TIMESTAMP_LEN;

	snprintf(out, 21, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", ts, ts + 4, ts + 6,
		 ts + 9, ts + 11, ts + 13);
}

static void remove_slot_scratch(const struct store_slot *slot)
{
	struct strbuf path = STRBUF_INIT;

	remove_tree(slot->log_dir);
	strbuf_addf(&path, "%s/artifacts/%s", slot->dir, slot->name);
	remove_tree(path.buf);
	strbuf_release(&path);
}

static int pg_write(struct store *store, const struct result *r,
		    const struct store_slot *slot,
		    const struct strbuf *document, struct strbuf *path_out)
{
	struct strbuf stem = STRBUF_INIT, json = STRBUF_INIT;
	struct strbuf name = STRBUF_INIT, dir = STRBUF_INIT;
	struct strbuf rel = STRBUF_INIT;
	struct slot_files files = { 0 };
	char sha256[65], started[21];
	int error;

	if (document)
		strbuf_add(&json, document->buf, document->len);
	if ((error = store_result_stem(r, &stem)) < 0 ||
	    (!document &&
	     (error = result_to_json_checked(r, &json, "the result")) < 0) ||
	    (error = hash_sha256_hex(json.buf, json.len, sha256)) < 0)
		goto done;
	started_of(stem.buf, started);
	scratch_dir(store, r, &dir);
	if (slot) {
		strbuf_addf(&rel, "logs/%s", slot->name);
		if ((error = read_slot_files(slot->dir, rel.buf, &files)) < 0)
			goto done;
		strbuf_reset(&rel);
		strbuf_addf(&rel, "artifacts/%s", slot->name);
		if ((error = read_slot_files(slot->dir, rel.buf, &files)) < 0)
			goto done;
	}
	{
		struct pending w = { .r = r,
				     .slot = slot,
				     .stem = stem.buf,
				     .document = json.buf,
				     .sha256 = sha256,
				     .started = started,
				     .files = &files };

		if ((error = pg_open_checked(store)) < 0)
			goto done;
		error = write_transaction(store, &w, dir.buf, &name);
		/* a server restarted since the run began: once more, on a
		 * new connection */
		if (error == BG_ERROR &&
		    pq.status(pg_of(store)->conn) == CONNECTION_BAD) {
			strbuf_reset(&name);
			if ((error = pg_connect(store)) == BG_OK)
				error = write_transaction(store, &w, dir.buf,
							  &name);
		}
	}
	if (error < 0)
		goto done;
	if (slot)
		remove_slot_scratch(slot);
	if (path_out)
		entry_path(store, r->git.commit, r->machine.id, name.buf,
			   path_out);
done:
	slot_files_release(&files);
	strbuf_release(&stem);
	strbuf_release(&json);
	strbuf_release(&name);
	strbuf_release(&dir);
	strbuf_release(&rel);
	return error;
}

/* Reading */

static int pg_list(struct store *store, const struct store_query *q,
		   struct store_entry **entries, size_t *nr)
{
	struct store_entry_list list = { 0 };
	struct strbuf suite = STRBUF_INIT, prefix = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT, file = STRBUF_INIT;
	struct strbuf pattern = STRBUF_INIT, set = STRBUF_INIT;
	const char *params[5] = { NULL, NULL, NULL, NULL, NULL };
	PGresult *res = NULL;
	int error;

	if (q->suite && (error = store_suite_filename(q->suite, &suite)) < 0)
		goto done;
	if (q->commit && (error = store_commit_prefix(q->commit, &prefix)) < 0)
		goto done;
	if ((error = pg_open_checked(store)) < 0)
		goto done;
	if (q->commit && store_commit_name_valid(prefix.buf)) {
		params[0] = prefix.buf;
	} else if (q->commit) {
		strbuf_addf(&pattern, "%s%%", prefix.buf);
		params[1] = pattern.buf;
	}
	if (q->commits && (error = store_commit_set_check(q)) < 0)
		goto done;
	if (q->commits) {
		/* an array literal; ids and "unknown" need no quoting */
		strbuf_addch(&set, '{');
		for (size_t i = 0; i < q->commits_nr; i++)
			strbuf_addf(&set, "%s%s", i ? "," : "", q->commits[i]);
		strbuf_addch(&set, '}');
		params[4] = set.buf;
	}
	params[2] = q->machine;
	params[3] = q->suite ? suite.buf : NULL;
	res = select_rows(store,
			  "SELECT commit, machine, name, content_sha256"
			  " FROM benchgate_results"
			  " WHERE ($1::text IS NULL OR commit = $1)"
			  " AND ($2::text IS NULL OR commit LIKE $2)"
			  " AND ($3::text IS NULL OR machine = $3)"
			  " AND ($4::text IS NULL OR suite_file = $4)"
			  " AND ($5::text[] IS NULL OR commit = ANY($5))",
			  5, params, "list the results");
	if (!res) {
		error = BG_ERROR;
		goto done;
	}
	for (int i = 0; i < pq.ntuples(res); i++) {
		const char *commit = pq.get_value(res, i, 0);
		const char *machine = pq.get_value(res, i, 1);
		const char *name = pq.get_value(res, i, 2);
		size_t before = list.nr;

		strbuf_reset(&path);
		strbuf_reset(&file);
		entry_path(store, commit, machine, name, &path);
		strbuf_addf(&file, "%s.json", name);
		store_list_add(store, &list, path.buf, file.buf, commit,
			       machine, params[3]);
		if (list.nr > before)
			snprintf(list.items[before].content_id,
				 sizeof(list.items[before].content_id), "%s",
				 pq.get_value(res, i, 3));
	}
done:
	pq.clear(res);
	strbuf_release(&suite);
	strbuf_release(&prefix);
	strbuf_release(&pattern);
	strbuf_release(&set);
	strbuf_release(&path);
	strbuf_release(&file);
	return store_list_finish(&list, error, entries, nr);
}

/* The result's name in its row: the entry's file name without ".json"
 * (free it). */
static char *entry_name(const struct store_entry *entry)
{
	const char *file = strrchr(entry->path, '/') + 1;

	return xstrndup(file, strlen(file) - strlen(".json"));
}

static int pg_load(struct store *store, const struct store_entry *entry,
		   struct result **out)
{
	char *name = entry_name(entry);
	const char *params[] = { entry->commit, entry->machine, name };
	struct result *r = NULL;
	PGresult *res = NULL;
	int error;

	*out = NULL;
	if ((error = pg_open_checked(store)) < 0)
		goto done;
	res = select_rows(store,
			  "SELECT document FROM benchgate_results"
			  " WHERE commit = $1 AND machine = $2 AND name = $3",
			  3, params, "read a result");
	if (!res) {
		error = BG_ERROR;
		goto done;
	}
	if (!pq.ntuples(res)) {
		error = bg_notfound("'%s' is not in the store", entry->path);
		goto warn;
	}
	if ((error = result_parse(&r, pq.get_value(res, 0, 0),
				  (size_t)pq.get_length(res, 0, 0),
				  entry->path)) < 0 ||
	    (error = store_check_placement(entry, r)) < 0)
		goto warn;
	*out = r;
	r = NULL;
	goto done;
warn:
	store_warn_once(store, entry->path, "%s; skipped", bg_error_last());
done:
	result_free(r);
	pq.clear(res);
	free(name);
	return error;
}

/* A result's files (store_read_file(), store_entry_files()) */

/* The rows of a query about one entry's result, in binary (bytea as it
 * is): its commit, machine and name, then `rel` when not NULL. */
static PGresult *entry_rows(struct store *store,
			    const struct store_entry *entry, const char *sql,
			    const char *rel, const char *what)
{
	char *name = entry_name(entry);
	const char *params[] = { entry->commit, entry->machine, name, rel };
	PGresult *res = pq.exec_params(pg_of(store)->conn, sql, rel ? 4 : 3,
				       NULL, params, NULL, NULL, 1);

	free(name);
	if (pq.result_status(res) == PGRES_TUPLES_OK)
		return res;
	query_failed(store, res, what);
	pq.clear(res);
	return NULL;
}

static int pg_read_file(struct store *store, const struct store_entry *entry,
			const char *rel, struct strbuf *out)
{
	PGresult *res;
	int error;

	if ((error = pg_open_checked(store)) < 0)
		return error;
	res = entry_rows(
		store, entry,
		rel ? "SELECT f.content FROM benchgate_files f"
		      " JOIN benchgate_results r ON r.id = f.result_id"
		      " WHERE r.commit = $1 AND r.machine = $2"
		      " AND r.name = $3 AND f.path = $4"
		    : "SELECT document FROM benchgate_results"
		      " WHERE commit = $1 AND machine = $2 AND name = $3",
		rel, "read a file of a result");
	if (!res)
		return BG_ERROR;
	if (pq.ntuples(res))
		strbuf_add(out, pq.get_value(res, 0, 0),
			   (size_t)pq.get_length(res, 0, 0));
	else
		error = bg_notfound("'%s': no file '%s'", entry->path,
				    rel ? rel : "(document)");
	pq.clear(res);
	return error;
}

static int pg_entry_files(struct store *store, const struct store_entry *entry,
			  struct store_paths *out)
{
	PGresult *res;
	int error;

	if ((error = pg_open_checked(store)) < 0)
		return error;
	res = entry_rows(store, entry,
			 "SELECT f.path FROM benchgate_files f"
			 " JOIN benchgate_results r ON r.id = f.result_id"
			 " WHERE r.commit = $1 AND r.machine = $2"
			 " AND r.name = $3",
			 NULL, "list the files of a result");
	if (!res)
		return BG_ERROR;
	for (int i = 0; i < pq.ntuples(res); i++) {
		ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		out->items[out->nr++] =
			xstrndup(pq.get_value(res, i, 0),
				 (size_t)pq.get_length(res, i, 0));
	}
	pq.clear(res);
	return BG_OK;
}

static int pg_entry_size(struct store *store, const struct store_entry *entry,
			 uint64_t *document, uint64_t *owned)
{
	char *name = entry_name(entry);
	const char *params[] = { entry->commit, entry->machine, name };
	PGresult *res = NULL;
	int error;

	if ((error = pg_open_checked(store)) < 0)
		goto done;
	res = select_rows(store,
			  "SELECT octet_length(r.document),"
			  " (SELECT coalesce(sum(octet_length(f.content)), 0)"
			  "  FROM benchgate_files f WHERE f.result_id = r.id)"
			  " FROM benchgate_results r"
			  " WHERE r.commit = $1 AND r.machine = $2"
			  " AND r.name = $3",
			  3, params, "measure a result");
	if (!res) {
		error = BG_ERROR;
		goto done;
	}
	if (!pq.ntuples(res)) {
		error = bg_notfound("'%s' is not in the store", entry->path);
		goto done;
	}
	*document = strtoull(pq.get_value(res, 0, 0), NULL, 10);
	*owned = strtoull(pq.get_value(res, 0, 1), NULL, 10);
done:
	pq.clear(res);
	free(name);
	return error;
}

/* Rewriting: prune and compact (store_rewrite()) */

/*
 * Replaces the document of the entry's result by `document` when its
 * SHA-256 is still the entry's (content_id), with its metric rows made
 * again from the new document; *applied says whether it was. A document
 * already stored as another result is not stored twice: that result is
 * left as it is.
 */
static int replace_document(struct store *store,
			    const struct store_entry *entry, const char *name,
			    const struct strbuf *document, bool *applied)
{
	struct result *r = NULL;
	PGresult *res = NULL;
	char sha256[65];
	int error;

	*applied = false;
	if ((error = result_parse(&r, document->buf, document->len,
				  entry->path)) < 0 ||
	    (error = hash_sha256_hex(document->buf, document->len, sha256)) < 0)
		goto done;
	{
		const char *params[] = { entry->commit, entry->machine,
					 name,		entry->content_id,
					 sha256,	document->buf };

		res = select_rows(
			store,
			"UPDATE benchgate_results SET document = $6,"
			" content_sha256 = $5"
			" WHERE commit = $1 AND machine = $2 AND name = $3"
			" AND left(content_sha256, length($4)) = $4"
			" AND NOT EXISTS (SELECT 1 FROM benchgate_results"
			"  WHERE content_sha256 = $5)"
			" RETURNING id",
			6, params, "replace a result's document");
	}
	if (!res) {
		error = BG_ERROR;
		goto done;
	}
	if (!pq.ntuples(res))
		goto done;
	{
		const char *id = pq.get_value(res, 0, 0);
		const char *params[] = { id };

		if ((error = command(store,
				     "DELETE FROM benchgate_metrics"
				     " WHERE result_id = $1",
				     1, params, "replace the metrics")) < 0 ||
		    (error = copy_metrics(store, r, id)) < 0)
			goto done;
	}
	*applied = true;
done:
	pq.clear(res);
	result_free(r);
	return error;
}

/* Removes the entry's result, its metric rows and files (by the
 * schema's ON DELETE CASCADE), when its SHA-256 is still the entry's. */
static int remove_result(struct store *store, const struct store_entry *entry,
			 const char *name, bool *applied)
{
	const char *params[] = { entry->commit, entry->machine, name,
				 entry->content_id };
	PGresult *res = query(store,
			      "DELETE FROM benchgate_results"
			      " WHERE commit = $1 AND machine = $2"
			      " AND name = $3"
			      " AND left(content_sha256, length($4)) = $4",
			      4, params);
	int error = BG_OK;

	if (pq.result_status(res) != PGRES_COMMAND_OK)
		error = query_failed(store, res, "remove a result");
	*applied = error == BG_OK && strcmp(pq.cmd_tuples(res), "0");
	pq.clear(res);
	return error;
}

/* All the changes, one transaction: all of them or none. */
static int pg_rewrite(struct store *store, const struct store_change *changes,
		      size_t nr, const char *message, unsigned flags)
{
	int error;

	(void)message;
	if (flags & STORE_REWRITE_SQUASH)
		return bg_input_error("store '%s' has no history to squash",
				      store->location);
	if ((error = pg_open_checked(store)) < 0 ||
	    (error = exec_command(store, "BEGIN", "begin a transaction")) < 0)
		return error;
	for (size_t i = 0; i < nr && !error; i++) {
		const struct store_change *c = &changes[i];
		char *name = entry_name(c->entry);
		bool applied;

		error = c->document ? replace_document(store, c->entry, name,
						       c->document, &applied)
				    : remove_result(store, c->entry, name,
						    &applied);
		if (!error && !applied)
			bg_warn("'%s' %s since it was read; left as it is",
				c->entry->path,
				c->document ? "changed, or its new document "
					      "is already stored,"
					    : "changed or went");
		free(name);
	}
	if (error < 0) {
		pq.clear(pq.exec(pg_of(store)->conn, "ROLLBACK"));
		return error;
	}
	return exec_command(store, "COMMIT", "commit the changes");
}

static void pg_free(struct store *store)
{
	struct pg_store *ps = pg_of(store);

	if (!ps)
		return;
	if (ps->conn)
		pq.finish(ps->conn);
	free(ps->url);
	free(ps);
}

static const struct store_backend pg_backend = {
	.reserve = pg_reserve,
	.write = pg_write,
	.list = pg_list,
	.load = pg_load,
	.read_file = pg_read_file,
	.entry_files = pg_entry_files,
	.entry_size = pg_entry_size,
	.rewrite = pg_rewrite,
	.free = pg_free,
};

int store_pg_open(struct store **out, const char *url)
{
	struct strbuf location = STRBUF_INIT, cache = STRBUF_INIT;
	struct pg_store *ps = xcalloc(1, sizeof(*ps));

	ps->url = xstrdup(url);
	redact_url(url, &location);
	cache_dir_of(location.buf, &cache);
	*out = store_new(&pg_backend, strbuf_detach(&location, NULL), ps);
	(*out)->cache_dir = strbuf_detach(&cache, NULL);
	return BG_OK;
}

/* Creating and migrating the schema */

int store_pg_init(struct store *store, int *from, int *to)
{
	char version[16];
	const char *params[] = { version };
	int error;

	*from = *to = 0;
	if ((error = pg_connect(store)) < 0)
		return error;
	if ((error = exec_command(store, "BEGIN", "begin a transaction")) < 0)
		return error;
	/* concurrent inits take turns: the second finds the work done */
	if ((error = exec_command(store,
				  "SELECT pg_advisory_xact_lock("
				  "hashtextextended('benchgate store init', 0))",
				  "lock the schema")) < 0 ||
	    (error = schema_version(store, from)) < 0)
		goto done;
	if (*from > SCHEMA_VERSION) {
		error = bg_input_error("the store '%s' has schema version %d, "
				       "newer than this benchgate's %d: "
				       "upgrade benchgate",
				       store->location, *from, SCHEMA_VERSION);
		goto done;
	}
	for (int v = *from; v < SCHEMA_VERSION; v++) {
		snprintf(version, sizeof(version), "%d", v + 1);
		if ((error = exec_command(store, migrations[v],
					  "migrate the schema")) < 0 ||
		    (error = command(store,
				     "UPDATE benchgate_schema SET version = $1,"
				     " migrated_at = now()",
				     1, params, "record the schema version")) <
			    0)
			goto done;
	}
	*to = SCHEMA_VERSION;
done:
	if (error < 0) {
		pq.clear(pq.exec(pg_of(store)->conn, "ROLLBACK"));
		return error;
	}
	return exec_command(store, "COMMIT", "commit the schema");
}
