/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: what benchgate loads at start-up (docs/performance.md,
 * "Where start-up goes"). libcurl is loaded with dlopen() by the commands
 * that talk to a server, libpq by a PostgreSQL store's first connection,
 * never by the others: a benchmark that copies its parent's memory map
 * shows that a `run` has neither mapped. A command that needs one where
 * it cannot be loaded says so and what to install. libgit2's CA certificates are read when it makes a TLS
 * connection, and libssh2's crypto set up at an SSH session, not at every
 * start (harness/git/repo.c); a SHA-256 loads no OpenSSL configuration
 * (harness/util/hash.c): a library preloaded into benchgate logs the files
 * it opens, and libssh2's first call of its set-up
 * (tests/preload/openlog.c).
 */
#include "harness/model/result.h"
#include "harness/util/strbuf.h"

#include "testutil.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TestSuite(startup, .init = test_dir_setup, .fini = test_dir_teardown);

Test(startup, a_run_maps_neither_libcurl_nor_libpq)
{
	struct result *result;
	char *maps;
	char maps_path[4096];

	/* the benchmark's parent is the benchgate that runs it */
	free(test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"maps\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
		"  \"benchmarks\": [ { \"name\": \"maps\",\n"
		"    \"shell\": \"cat /proc/$PPID/maps > parent-maps\",\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
	result = test_run_result(test_dir, "suite.json", NULL, 0);
	result_free(result);
	snprintf(maps_path, sizeof(maps_path), "%s/parent-maps", test_dir);
	maps = test_read_file(maps_path);
	cr_assert(maps, "the benchmark wrote no %s", maps_path);
	/* it is benchgate's map: the libraries every command needs */
	cr_assert(strstr(maps, "libgit2"), "%s", maps);
	cr_assert(strstr(maps, "libcjson"), "%s", maps);
	cr_assert_null(strstr(maps, "libcurl"), "%s", maps);
	/* "/libpq.so": a checkout may live in a folder named libpq */
	cr_assert_null(strstr(maps, "/libpq.so"), "%s", maps);
	free(maps);
}

/* A directory whose lib/<soname> is not a library, first on the loader's
 * path: dlopen() of it fails as it does where none is installed. */
static char *broken_library_env(const char *soname)
{
	size_t len = strlen(test_dir) + 32;
	char *env = malloc(len);
	char path[64];

	cr_assert(env);
	snprintf(path, sizeof(path), "lib/%s", soname);
	free(test_write_file(test_dir, path, "not a library\n"));
	snprintf(env, len, "LD_LIBRARY_PATH=%s/lib", test_dir);
	return env;
}

Test(startup, a_forge_command_without_libcurl_says_what_to_install)
{
	struct test_output out;
	char *env = broken_library_env("libcurl.so.4");
	const char *const envp[] = { env, "GITHUB_TOKEN=secret-token", NULL };

	free(test_write_file(test_dir, "report.md", "# report\n"));
	test_benchgate(&out, test_dir, envp,
		       (const char *const[]){
			       "comment", "--provider", "github", "--body",
			       "report.md", "--repo", "o/r", "--pr", "7",
			       "--api-url=http://127.0.0.1:9", NULL });
	cr_assert_neq(out.exit_code, 0, "%s", out.out.buf);
	cr_assert(strstr(out.err.buf, "cannot load libcurl"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "apt-get install libcurl4"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "libcurl.so.4"), "%s", out.err.buf);
	test_output_release(&out);

	/* the commands that need no server work as before */
	test_benchgate(&out, test_dir, envp,
		       (const char *const[]){ "--version", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, ", libcurl not found, "), "%s",
		  out.out.buf);
	test_output_release(&out);
	free(env);
}

Test(startup, a_postgresql_store_without_libpq_says_what_to_install)
{
	struct test_output out;
	char *env = broken_library_env("libpq.so.5");
	const char *const envp[] = { env, NULL };

	test_benchgate(&out, test_dir, envp,
		       (const char *const[]){
			       "store", "init",
			       "postgresql://nobody@127.0.0.1:9/benchgate",
			       NULL });
	cr_assert_neq(out.exit_code, 0, "%s", out.out.buf);
	cr_assert(strstr(out.err.buf, "cannot load libpq"), "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "apt-get install libpq5"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "libpq.so.5"), "%s", out.err.buf);
	test_output_release(&out);

	/* the commands that need no PostgreSQL store work as before */
	test_benchgate(&out, test_dir, envp,
		       (const char *const[]){ "--version", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	free(env);
}

/* Runs benchgate with args in test_dir, the files it opens logged to
 * *log (free it): the output in out. */
/* benchgate `args` run in `cwd` with the files it opens logged into
 * *log. */
static void run_logged_in(struct test_output *out, char **log,
			  const char *cwd, const char *const *args)
{
	const char *asan = getenv("ASAN_OPTIONS");
	struct strbuf preload = STRBUF_INIT, log_env = STRBUF_INIT;
	struct strbuf asan_env = STRBUF_INIT, log_path = STRBUF_INIT;

	strbuf_addf(&log_path, "%s/opened", test_dir);
	unlink(log_path.buf);
	strbuf_addf(&preload, "LD_PRELOAD=%s", TEST_OPENLOG_LIB);
	strbuf_addf(&log_env, "BENCHGATE_OPENLOG=%s", log_path.buf);
	/* the sanitizers' runtime would refuse to come after the log's */
	strbuf_addf(&asan_env, "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
		    asan ? asan : "", asan && *asan ? ":" : "");
	test_benchgate(out, cwd,
		       (const char *const[]){ preload.buf, log_env.buf,
					      asan_env.buf, NULL },
		       args);
	*log = test_read_file(log_path.buf);
	cr_assert(*log, "nothing logged to %s: %s", log_path.buf, out->err.buf);
	strbuf_release(&preload);
	strbuf_release(&log_env);
	strbuf_release(&asan_env);
	strbuf_release(&log_path);
}

static void run_logged(struct test_output *out, char **log,
		       const char *const *args)
{
	run_logged_in(out, log, test_dir, args);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), suffix_len = strlen(suffix);

	return len >= suffix_len && !strcmp(s + len - suffix_len, suffix);
}

/* Whether a line of the log names a certificate file or directory. */
static bool opened_certificates(const char *log)
{
	char *lines = strdup(log);
	bool found = false;

	cr_assert(lines);
	for (char *line = lines, *end; *line && !found; line = end) {
		end = line + strcspn(line, "\n");
		if (*end)
			*end++ = '\0';
		found = strstr(line, "cert") &&
			(ends_with(line, ".crt") || ends_with(line, ".pem") ||
			 ends_with(line, "certs"));
	}
	free(lines);
	return found;
}

/* Whether this process's libgit2 is the mbedTLS build whose start-up
 * benchgate changes (Debian's); the OpenSSL build reads certificates
 * its own way. */
static bool libgit2_over_mbedtls(void)
{
	char *maps = test_read_file("/proc/self/maps");
	bool found = maps && strstr(maps, "libmbedtls");

	free(maps);
	return found;
}

/* test_dir as a git repository of one commit, with suite.json: one run
 * of /bin/true. */
static void make_repository_with_a_suite(void)
{
	test_shell(test_dir, "git init -q . && git -c user.name=t "
			     "-c user.email=t@t commit -q --allow-empty -m c");
	free(test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"s\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
		"  \"benchmarks\": [ { \"name\": \"t\", \"command\": "
		"[\"/bin/true\"],\n"
		"    \"metrics\": [ { \"name\": \"t\", \"from\": \"wall\" } ] "
		"} ] }\n"));
}

Test(startup, certificates_are_read_for_a_tls_connection_not_at_start)
{
	struct test_output out;
	char *log;

	if (!libgit2_over_mbedtls())
		cr_skip_test("libgit2 here does not use mbedTLS");
	/* Debian's libgit2 reads this bundle; without it, nothing to defer */
	if (access("/etc/ssl/certs/ca-certificates.crt", R_OK))
		cr_skip_test("no /etc/ssl/certs/ca-certificates.crt here");
	make_repository_with_a_suite();

	/* a run reads the repository with libgit2, and no certificate */
	run_logged(&out, &log,
		   (const char *const[]){ "run", "suite.json", "--store",
					  "results", "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(log, "suite.json"), "%s", log);
	cr_assert(strstr(log, ".git/"), "%s", log);
	cr_assert_not(opened_certificates(log), "%s", log);
	free(log);
	test_output_release(&out);

	/* a fetch over https:// sets up TLS, and reads them first (port 1:
	 * nothing listens, the connection fails after the set-up) */
	run_logged(&out, &log,
		   (const char *const[]){ "sync", "--remote",
					  "https://127.0.0.1:1/results.git",
					  NULL });
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "127.0.0.1"), "%s", out.err.buf);
	cr_assert(opened_certificates(log), "%s", log);
	free(log);
	test_output_release(&out);
}

/* Whether this process's libgit2 brings libssh2, whose set-up benchgate
 * defers; its OpenSSL back end (Debian's) starts with the call logged. */
static bool libgit2_with_libssh2(void)
{
	char *maps = test_read_file("/proc/self/maps");
	bool found = maps && strstr(maps, "/libssh2.so");

	free(maps);
	return found;
}

/* A server on 127.0.0.1 that takes one connection and closes it, as an
 * SSH server that refuses to talk: its port; *child is its process. */
static int accept_once(pid_t *child)
{
	struct sockaddr_in address = { .sin_family = AF_INET };
	socklen_t len = sizeof(address);
	int listener = socket(AF_INET, SOCK_STREAM, 0);

	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert(listener >= 0);
	cr_assert_eq(bind(listener, (struct sockaddr *)&address,
			  sizeof(address)),
		     0);
	cr_assert_eq(listen(listener, 1), 0);
	cr_assert_eq(getsockname(listener, (struct sockaddr *)&address, &len),
		     0);
	*child = fork();
	cr_assert(*child >= 0);
	if (!*child) {
		struct pollfd ready = { .fd = listener, .events = POLLIN };

		if (poll(&ready, 1, 60000) == 1)
			close(accept(listener, NULL, NULL));
		_exit(0);
	}
	close(listener);
	return ntohs(address.sin_port);
}

Test(startup, openssl_is_set_up_for_an_ssh_session_not_at_start)
{
	struct test_output out;
	char remote[128], asan_options[1024], *log, *saved;
	const char *asan;
	int status;
	pid_t server;

	if (!libgit2_with_libssh2())
		cr_skip_test("libgit2 here does not use libssh2");
	make_repository_with_a_suite();

	/* a run hashes the suite (SHA-256) and reads the repository with
	 * libgit2, without OpenSSL's configuration or libssh2's set-up */
	run_logged(&out, &log,
		   (const char *const[]){ "run", "suite.json", "--store",
					  "results", "--quiet", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(log, ".git/"), "%s", log);
	cr_assert_null(strstr(log, "openssl.cnf"), "%s", log);
	cr_assert_null(strstr(log, "call ENGINE_load_builtin_engines"), "%s",
		       log);
	free(log);
	test_output_release(&out);

	/* a fetch over ssh:// sets libssh2 up when its session starts, and
	 * the session then fails on the server's silence */
	snprintf(remote, sizeof(remote), "ssh://git@127.0.0.1:%d/results.git",
		 accept_once(&server));
	/* libgit2 1.5 leaks two small allocations of its own when an SSH
	 * session fails to start: not benchgate's to find here */
	asan = getenv("ASAN_OPTIONS");
	snprintf(asan_options, sizeof(asan_options), "%s%sdetect_leaks=0",
		 asan ? asan : "", asan && *asan ? ":" : "");
	saved = asan ? strdup(asan) : NULL;
	setenv("ASAN_OPTIONS", asan_options, 1);
	run_logged(&out, &log,
		   (const char *const[]){ "sync", "--remote", remote, NULL });
	if (saved)
		setenv("ASAN_OPTIONS", saved, 1);
	else
		unsetenv("ASAN_OPTIONS");
	free(saved);
	kill(server, SIGKILL);
	waitpid(server, &status, 0);
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "SSH session"), "%s", out.err.buf);
	cr_assert(strstr(log, "call ENGINE_load_builtin_engines"), "%s", log);
	free(log);
	test_output_release(&out);
}

/* Sets the modification time of the clone's index to `seconds` and
 * `nanoseconds`, as if git had written it then. */
static void index_written_at(const char *clone, time_t seconds, long nanoseconds)
{
	struct strbuf path = STRBUF_INIT;
	struct timespec times[2] = { { 0, UTIME_OMIT },
				     { seconds, nanoseconds } };

	strbuf_addf(&path, "%s/.git/index", clone);
	cr_assert_eq(utimensat(AT_FDCWD, path.buf, times, 0), 0, "%s",
		     path.buf);
	strbuf_release(&path);
}

/*
 * A fresh clone writes the index within the second it wrote the files,
 * as actions/checkout does: the dirty check hashes only the entries
 * modified at or after the index's time to the nanosecond (libgit2's rule
 * for "racily clean", which its diff applies anyway), not every entry of
 * that second (harness/git/gitinfo.c).
 */
Test(startup, a_fresh_clone_is_found_clean_without_hashing_every_file)
{
	struct test_output out;
	struct strbuf clone = STRBUF_INIT, weights = STRBUF_INIT;
	const char *const run[] = { "run",     "suite.json", "--store",
				    "../results", "--quiet", NULL };
	struct stat st;
	char *log;

	test_shell(test_dir,
		   "git init -q src && mkdir src/data &&"
		   " head -c 65536 /dev/zero > src/data/weights.bin &&"
		   " printf '%s' '{ \"benchgate\": 1, \"suite\": \"s\","
		   " \"defaults\": { \"warmup\": 0, \"runs\": 1 },"
		   " \"benchmarks\": [ { \"name\": \"t\","
		   " \"command\": [\"/bin/true\"], \"metrics\":"
		   " [ { \"name\": \"t\", \"from\": \"wall\" } ] } ] }'"
		   " > src/suite.json && git -C src add -A &&"
		   " git -C src -c user.name=t -c user.email=t@t commit -q -m c"
		   " && git clone -q src clone");
	strbuf_addf(&clone, "%s/clone", test_dir);
	strbuf_addf(&weights, "%s/data/weights.bin", clone.buf);
	cr_assert_eq(stat(weights.buf, &st), 0);

	/* the index written later in the second of the files: none racy */
	index_written_at(clone.buf, st.st_mtim.tv_sec, 999999999);
	run_logged_in(&out, &log, clone.buf, run);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(log, ".git/index"), "%s", log);
	cr_assert_null(strstr(log, "data/weights.bin"), "%s", log);
	free(log);
	test_output_release(&out);

	/* at the file's second, nanosecond 0: the file is racily clean, and
	 * its content is what tells */
	index_written_at(clone.buf, st.st_mtim.tv_sec, 0);
	run_logged_in(&out, &log, clone.buf, run);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(log, "data/weights.bin"), "%s", log);
	free(log);
	test_output_release(&out);

	strbuf_release(&clone);
	strbuf_release(&weights);
}
