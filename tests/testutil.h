/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_TESTUTIL_H
#define BENCHGATE_TESTUTIL_H

#include "harness/util/strbuf.h"

/*
 * Helpers shared by the tests: temporary directories, files, and running
 * the built benchgate binary the way a user would.
 */

/* Creates a fresh directory under $TMPDIR and returns its path (free it). */
char *test_tmpdir(void);

/* Removes a directory tree (for cleanup; errors ignored). */
void test_rmtree(const char *path);

/* A scratch directory per test, for suites that need nothing else set up:
 * TestSuite(name, .init = test_dir_setup, .fini = test_dir_teardown);
 * the tests then read test_dir. */
extern char *test_dir;
void test_dir_setup(void);
void test_dir_teardown(void);

/* The first Python interpreter that runs `check` (python3 -c): that
 * $BENCHGATE_TORCH_PYTHON names, /usr/bin/python3 (Debian's, with
 * python3-torch), /usr/local/bin/python3; NULL when none does. python3 on
 * PATH may be another one. */
const char *test_python_that(const char *check);

/* Writes text to dir/name (creating parent directories); returns the full
 * path (free it). Aborts the test on failure. */
char *test_write_file(const char *dir, const char *name, const char *text);

/* Reads a whole file into a new string (free it); NULL when unreadable. */
char *test_read_file(const char *path);

/* Appends the paths below dir, recursively and relative to it, separated
 * by spaces ("a a/b a/b/c"; nothing when dir is empty or missing). */
void test_list_tree(struct strbuf *out, const char *dir);

struct test_output {
	int exit_code; /* -1 when killed by a signal */
	struct strbuf out;
	struct strbuf err;
};

/* Runs argv (argv[0] is a path) with cwd (NULL: inherit) and extra
 * environment entries "NAME=VALUE" (NULL-terminated, may be NULL), and
 * captures its output. Stdin is /dev/null. */
void test_run(struct test_output *output, const char *cwd,
	      const char *const *env, const char *const *argv);

/* Runs the built benchgate binary with the given arguments (NULL-terminated,
 * without argv[0]). */
void test_benchgate(struct test_output *output, const char *cwd,
		    const char *const *env, const char *const *args);

void test_output_release(struct test_output *output);

struct result;

/* Runs `benchgate run SUITE --store store --json result.json --quiet` in
 * dir with the extra environment (may be NULL), asserts its exit status,
 * and returns the result it wrote (free with result_free()). */
struct result *test_run_result(const char *dir, const char *suite,
			       const char *const *env, int expect_exit);

/* Runs script with "/bin/sh -ec" in dir (fixtures made with the git
 * program, as a CI job makes them); the test fails, showing the script
 * and its output, when the script does. */
void test_shell(const char *dir, const char *script);

/* The one result stored at store_dir (a directory store), loaded; free
 * it with result_free(). Asserts there is exactly one. */
struct result;
struct result *test_only_result(const char *store_dir);

/* A result of one case (bench, original, cpu) of suite "s", at commit on
 * machine m1, whose metric "latency" (ms, lower is better) holds the n
 * values, one a run: recorded sessions for the comparison's tests. Free
 * it with result_free(). */
struct result *test_latency_result(const char *commit, const double *values,
				   size_t n);

/* The first artifact of that kind ("flamegraph", "profile", ...) of a
 * case (result.h); NULL when it has none. */
struct result_case;
const struct result_artifact *test_artifact_of(const struct result_case *rcase,
					       const char *kind);

/* How many entries a directory has whose names are `len` bytes long (0:
 * any), . and .. aside; -1 when it cannot be opened. */
int test_count_entries(const char *path, size_t len);

/*
 * A repository made with the git program, as a CI job has one, for tests
 * that drive a command on commits (bisect, check --against): dir is a
 * fresh temporary directory holding repo/ and scratch/; env (NULL-ended)
 * sets $TMPDIR to scratch/ and a machine lock of its own (dir/lock), so
 * other tests' runs do not hold it.
 */
struct test_git_area {
	char *dir;
	char repo[4096], scratch[4096];
	char tmpdir_env[4200], lock_env[4200];
	const char *env[3];
};

/* Makes the area and runs script (test_shell()) in its repo/, an empty
 * repository on main, with the commits' author and committer set to
 * "Dev <dev@example.invalid>" in the environment. */
void test_git_area_init(struct test_git_area *area, const char *script);

/* Removes the area's directory and frees it. */
void test_git_area_release(struct test_git_area *area);

/* Reads nr commit ids, one a line as `git log --format=%H` writes them,
 * from dir/name into ids; the test fails when the file is shorter. */
void test_read_commit_ids(const char *dir, const char *name, char (*ids)[41],
			  size_t nr);

#endif

/* Git fixtures, made with libgit2 (never the git program). */
#include <git2.h>

/* Initialises a repository with a work tree at dir (default branch main). */
git_repository *test_git_init(const char *dir);

/* Creates a commit whose tree holds one file "file" with `message` as its
 * content, with the given parents (fixed author and time, so ids are
 * stable), and points the branch `ref` ("refs/heads/x"; NULL: none) at it,
 * wherever it was. */
void test_git_commit(git_repository *repo, const char *ref, const char *message,
		     size_t nparents, const git_oid *parents, git_oid *out);

/* The 40-hex id, in a static buffer per call slot (0..3). */
const char *test_oid_hex(const git_oid *oid, int slot);

/* History fixtures: one result of suite "s" on `machine` at commit, in
 * store: case b/original/cpu with latency samples level, level + 0.01,
 * ..., level + 0.04 ms (lower is better) and throughput 1000 / level
 * (higher is better), 5 of each. */
struct store;
void test_store_series_at(struct store *store, const git_oid *commit,
			  const char *machine, double level);

/* Headless Chromium ($BENCHGATE_CHROMIUM, else chromium on PATH; a missing
 * browser fails the test, CI installs it). */

/* Runs the browser headless on file://path with the extra arguments
 * (NULL-terminated) and a fresh profile directory, appending its stdout
 * to out and its stderr to err. Fails the test when it cannot run. */
void test_browser_run(const char *path, const char *profile,
		      const char *const *extra, struct strbuf *out,
		      struct strbuf *err);

/* Loads path (absolute) in the browser, using dir for its profile and
 * NetLog; appends the DOM after scripts ran to dom and one line per
 * problem to problems: a console message of the page (a CSP violation, a
 * script error, a failed load) or a request it started for anything but
 * file: and data: URLs. */
void test_browser_load(const char *dir, const char *path, struct strbuf *dom,
		       struct strbuf *problems);

/* Drives path (absolute) in the browser over the DevTools protocol with
 * tests/e2e/browse_page.py's actions (NULL-terminated: "hover", SELECTOR,
 * "text", SELECTOR, ...), using dir for its profile, and appends what it
 * printed to out: one line per "text"/"count"/"attr" action and a
 * "problem: " line per console message, exception, CSP violation or
 * request for anything but file: and data: URLs. Fails the test when the
 * browser cannot run or an action finds no element. */
void test_browser_drive(const char *dir, const char *path,
			const char *const *actions, struct strbuf *out);
