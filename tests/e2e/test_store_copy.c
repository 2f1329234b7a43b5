/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate store copy` between a directory and a git:BRANCH
 * store (copy.h): a round trip gives byte-identical files, logs and
 * artifacts included and links left behind; a second copy copies
 * nothing; a copy into a branch is a commit per STORE_BATCH_MAX results,
 * not one per result; a copy killed midway keeps whole groups and is
 * finished by running it again, without a result lost or doubled.
 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN(out, cwd, ...)                \
	test_benchgate((out), (cwd), NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

#define MACHINE "0123456789abcdef"

static char *dir;
static struct strbuf repo = STRBUF_INIT;

static void setup(void)
{
	dir = test_tmpdir();
	git_libgit2_init();
	strbuf_addf(&repo, "%s/repo", dir);
	git_repository_free(test_git_init(repo.buf));
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
	strbuf_release(&repo);
	git_libgit2_shutdown();
}

TestSuite(store_copy, .init = setup, .fini = teardown, .timeout = 300);

/* A file of the source, below "<repo>/<store>/<shard>/<commit>/" MACHINE. */
static void plant(const char *store, const char *hex, const char *rel,
		  const char *text)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/%.2s/%s/" MACHINE "/%s", store, hex, hex, rel);
	free(test_write_file(repo.buf, path.buf, text));
	strbuf_release(&path);
}

/* A directory store "<repo>/<name>" of `commits` commits with `per`
 * results each (the same start, so "-1", "-2", ... suffixes), the first
 * result of each with a log, an artifact and a link planted beside it. */
static void make_source(const char *name, int commits, int per)
{
	struct strbuf path = STRBUF_INIT;
	struct store *store = NULL;

	strbuf_addf(&path, "%s/%s", repo.buf, name);
	cr_assert_eq(store_open(&store, path.buf), 0);
	for (int c = 0; c < commits; c++) {
		char hex[41];
		git_oid oid;

		snprintf(hex, sizeof(hex), "%08x%032x", 0xc0ffee00u + c, c);
		cr_assert_eq(git_oid_fromstr(&oid, hex), 0);
		for (int k = 0; k < per; k++)
			test_store_series_at(store, &oid, MACHINE, 10 + c + k);
		plant(name, hex, "logs/s-20260101T000000Z/b.log", "log\n");
		plant(name, hex, "artifacts/s-20260101T000000Z/b/flame.svg",
		      "<svg/>\n");
		strbuf_reset(&path);
		strbuf_addf(&path,
			    "%s/%s/%.2s/%s/" MACHINE
			    "/logs/s-20260101T000000Z/evil-link",
			    repo.buf, name, hex, hex);
		cr_assert_eq(symlink("/etc/passwd", path.buf), 0);
	}
	store_free(store);
	strbuf_release(&path);
}

Test(store_copy, round_trip_dir_git_dir_is_byte_identical)
{
	struct test_output out;

	make_source("d1", 3, 3);
	RUN(&out, repo.buf, "store", "copy", "--from", "d1", "--to",
	    "git:results");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "9 results: 9 copied (0 renamed), 0 "
				      "already there"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.err.buf, "store copy: 9/9 results"), "%s",
		  out.err.buf);
	test_output_release(&out);
	/* the nine results are one commit */
	test_shell(repo.buf, "test $(git rev-list --count results) = 1\n");

	RUN(&out, repo.buf, "store", "copy", "--from", "git:results", "--to",
	    "d2");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);

	/* every file, byte for byte; the planted link was never followed
	 * nor copied */
	test_shell(repo.buf, "diff -r -x evil-link -x .lock -x .tmp d1 d2\n"
			     "test ! -e d2/c0/c0ffee00*/" MACHINE
			     "/logs/s-20260101T000000Z/evil-link\n"
			     "test -f d2/c0/c0ffee01*/" MACHINE
			     "/artifacts/s-20260101T000000Z/b/flame.svg\n"
			     "n=$(find d2 -name '*.json' | wc -l)\n"
			     "test \"$n\" = 9\n");

	/* nothing left to copy either way */
	RUN(&out, repo.buf, "store", "copy", "--from", "d1", "--to",
	    "git:results");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "0 copied (0 renamed), 9 already there"),
		  "%s", out.out.buf);
	test_output_release(&out);
}

Test(store_copy, refuses_one_store_and_missing_options)
{
	struct test_output out;

	RUN(&out, repo.buf, "store", "copy", "--from", "git:r", "--to",
	    "git:r");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "are one store"), "%s", out.err.buf);
	test_output_release(&out);
	RUN(&out, repo.buf, "store", "copy", "--from", "d1");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "both --from and --to"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, repo.buf, "store", "frobnicate");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "unknown subcommand 'frobnicate'"), "%s",
		  out.err.buf);
	test_output_release(&out);
}

/* The results of a store, counted, each document's bytes in `docs`
 * (NULL: only counted) joined by newlines in listing order. */
static size_t store_documents(const char *spec, struct strbuf *docs)
{
	struct store_entry *entries = NULL;
	struct store *store = NULL;
	size_t nr = 0;

	cr_assert_eq(chdir(repo.buf), 0);
	cr_assert_eq(store_open(&store, spec), 0, "%s", bg_error_last());
	cr_assert_eq(store_list(store, NULL, &entries, &nr), 0);
	for (size_t i = 0; docs && i < nr; i++) {
		cr_assert_eq(store_read_file(store, &entries[i], NULL, docs),
			     0, "%s", bg_error_last());
		strbuf_addch(docs, '\n');
	}
	store_entries_free(entries, nr);
	store_free(store);
	return nr;
}

/* Starts a copy and kills it (SIGKILL) once the target holds a first
 * group of results, before it ends. */
static void start_and_kill_copy(const char *from, const char *to)
{
	struct strbuf program = STRBUF_INIT;
	pid_t pid;
	int status;

	strbuf_addstr(&program, BENCHGATE_BIN);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		if (chdir(repo.buf) < 0)
			_exit(127);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(program.buf, "benchgate", "store", "copy", "--quiet",
		      "--from", from, "--to", to, (char *)NULL);
		_exit(127);
	}
	for (int polls = 0; polls < 100000; polls++) {
		if (store_documents(to, NULL) >= STORE_BATCH_MAX ||
		    waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status),
		  "the copy ended before it could be killed: make the "
		  "source larger");
	strbuf_release(&program);
}

Test(store_copy, a_killed_copy_is_finished_by_running_it_again)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct strbuf script = STRBUF_INIT;
	struct test_output out;
	size_t nr;

	/* two and a half groups */
	make_source("d1", STORE_BATCH_MAX * 5 / 4, 2);
	start_and_kill_copy("d1", "git:results");
	/* what the kill left is whole groups, each one commit */
	nr = store_documents("git:results", NULL);
	cr_assert(nr >= STORE_BATCH_MAX && nr < STORE_BATCH_MAX * 5 / 2 &&
			  nr % STORE_BATCH_MAX == 0,
		  "%zu results copied before the kill", nr);
	strbuf_addf(&script, "test $(git rev-list --count results) = %zu\n",
		    nr / STORE_BATCH_MAX);
	test_shell(repo.buf, script.buf);
	strbuf_release(&script);

	RUN(&out, repo.buf, "store", "copy", "--from", "d1", "--to",
	    "git:results");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "all verified"), "%s", out.out.buf);
	test_output_release(&out);

	/* every result once, each document as it was in the source, in
	 * as few commits as there are groups; nothing of the killed copy
	 * left in the scratch */
	cr_assert_eq(store_documents("d1", &before), STORE_BATCH_MAX * 5 / 2);
	cr_assert_eq(store_documents("git:results", &after),
		     STORE_BATCH_MAX * 5 / 2);
	cr_assert_str_eq(after.buf, before.buf);
	test_shell(repo.buf, "test $(git rev-list --count results) = 3\n"
			     "test -z \"$(ls -A .git/benchgate/results | "
			     "grep -v '^\\.lock$')\"\n");
	strbuf_release(&before);
	strbuf_release(&after);
}
