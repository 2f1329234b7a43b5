/* SPDX-License-Identifier: Apache-2.0 */
#include "testutil.h"

#include "harness/util/process.h"
#include "harness/model/result.h"
#include "harness/store/store.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Test programs run benchgate side by side (ctest -j, Criterion's jobs,
 * other checkouts on the machine), and some time what it does: each test
 * gets a machine lock of its own (harness/run/lock.h) in a directory of
 * the program's, so that none waits for another's benchmarks. test_lock
 * names its own to test the lock itself.
 */
static char test_lock_dir[64];
static pid_t test_lock_owner;

__attribute__((constructor)) static void isolate_machine_lock(void)
{
	char path[96];

	if (getenv("BENCHGATE_LOCK"))
		return;
	snprintf(test_lock_dir, sizeof(test_lock_dir),
		 "/tmp/benchgate-test-locks-XXXXXX");
	if (!mkdtemp(test_lock_dir)) {
		test_lock_dir[0] = '\0';
		return;
	}
	test_lock_owner = getpid();
	snprintf(path, sizeof(path), "%s/main.lock", test_lock_dir);
	setenv("BENCHGATE_LOCK", path, 1);
}

/* In a child test_run() started: the lock of the test that started it. */
static void use_test_lock(void)
{
	char path[96];

	if (!test_lock_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/%ld.lock", test_lock_dir,
		 (long)getppid());
	setenv("BENCHGATE_LOCK", path, 1);
}

static int remove_lock_file(const char *path, const struct stat *st,
			    int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

__attribute__((destructor)) static void remove_test_locks(void)
{
	/* the forked tests exit through here too: only the program that
	 * made the directory removes it */
	if (test_lock_dir[0] && test_lock_owner == getpid())
		nftw(test_lock_dir, remove_lock_file, 8, FTW_DEPTH | FTW_PHYS);
}

char *test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, "%s/benchgate-test-XXXXXX", base ? base : "/tmp");
	cr_assert_not_null(mkdtemp(path.buf), "mkdtemp: %s", strerror(errno));
	return strbuf_detach(&path, NULL);
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void test_rmtree(const char *path)
{
	if (path)
		nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *test_write_file(const char *dir, const char *name, const char *text)
{
	struct strbuf path = STRBUF_INIT;
	char *slash;

	strbuf_addf(&path, "%s/%s", dir, name);
	slash = strrchr(path.buf, '/');
	*slash = '\0';
	cr_assert_eq(mkdir_p(path.buf), 0);
	*slash = '/';
	cr_assert_eq(write_file_atomic(path.buf, text, strlen(text)), 0,
		     "cannot write %s", path.buf);
	return strbuf_detach(&path, NULL);
}

char *test_read_file(const char *path)
{
	struct strbuf text = STRBUF_INIT;

	if (strbuf_read_file(&text, path) < 0) {
		strbuf_release(&text);
		return NULL;
	}
	return strbuf_detach(&text, NULL);
}

static void list_below(struct strbuf *out, const char *dir, const char *rel)
{
	struct strbuf path = STRBUF_INIT, sub = STRBUF_INIT;
	struct dirent *de;
	DIR *d;

	strbuf_addf(&path, "%s%s%s", dir, *rel ? "/" : "", rel);
	if ((d = opendir(path.buf))) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			strbuf_reset(&sub);
			strbuf_addf(&sub, "%s%s%s", rel, *rel ? "/" : "",
				    de->d_name);
			strbuf_addf(out, "%s%s", out->len ? " " : "", sub.buf);
			list_below(out, dir, sub.buf);
		}
		closedir(d);
	}
	strbuf_release(&path);
	strbuf_release(&sub);
}

void test_list_tree(struct strbuf *out, const char *dir)
{
	list_below(out, dir, "");
}

static void drain(int fd, struct strbuf *into, bool *open_flag)
{
	char chunk[8192];
	ssize_t got = read(fd, chunk, sizeof(chunk));

	if (got > 0)
		strbuf_add(into, chunk, (size_t)got);
	else if (got == 0 || errno != EINTR)
		*open_flag = false;
}

void test_run(struct test_output *output, const char *cwd,
	      const char *const *env, const char *const *argv)
{
	int out_pipe[2], err_pipe[2], status;
	bool out_open = true, err_open = true;
	pid_t pid;

	strbuf_init(&output->out, 0);
	strbuf_init(&output->err, 0);
	cr_assert_eq(pipe(out_pipe), 0);
	cr_assert_eq(pipe(err_pipe), 0);
	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(out_pipe[1], 1);
		dup2(err_pipe[1], 2);
		close(out_pipe[0]);
		close(err_pipe[0]);
		if (cwd && chdir(cwd) < 0)
			_exit(126);
		use_test_lock();
		for (; env && *env; env++)
			putenv((char *)*env);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	while (out_open || err_open) {
		struct pollfd fds[2] = {
			{ out_open ? out_pipe[0] : -1, POLLIN, 0 },
			{ err_open ? err_pipe[0] : -1, POLLIN, 0 },
		};

		if (poll(fds, 2, -1) < 0)
			continue;
		if (fds[0].revents)
			drain(out_pipe[0], &output->out, &out_open);
		if (fds[1].revents)
			drain(err_pipe[0], &output->err, &err_open);
	}
	close(out_pipe[0]);
	close(err_pipe[0]);
	waitpid(pid, &status, 0);
	output->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void test_benchgate(struct test_output *output, const char *cwd,
		    const char *const *env, const char *const *args)
{
	const char *argv[64];
	size_t n = 0;

	argv[n++] = BENCHGATE_BIN;
	while (args && *args && n < 63)
		argv[n++] = *args++;
	argv[n] = NULL;
	test_run(output, cwd, env, argv);
}

void test_output_release(struct test_output *output)
{
	strbuf_release(&output->out);
	strbuf_release(&output->err);
}

void test_shell(const char *dir, const char *script)
{
	struct test_output out;

	test_run(&out, dir, NULL,
		 (const char *const[]){ "/bin/sh", "-ec", script, NULL });
	cr_assert_eq(out.exit_code, 0, "%s:\n%s%s", script, out.out.buf,
		     out.err.buf);
	test_output_release(&out);
}

git_repository *test_git_init(const char *dir)
{
	git_repository_init_options opts;
	git_repository *repo = NULL;

	git_libgit2_init();
	git_repository_init_options_init(&opts,
					 GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	opts.flags = GIT_REPOSITORY_INIT_MKPATH;
	opts.initial_head = "main";
	cr_assert_eq(git_repository_init_ext(&repo, dir, &opts), 0, "%s",
		     git_error_last() ? git_error_last()->message : "");
	return repo;
}

void test_git_commit(git_repository *repo, const char *ref, const char *message,
		     size_t nparents, const git_oid *parents, git_oid *out)
{
	const git_commit *parent_commits[8] = { NULL };
	git_treebuilder *builder = NULL;
	git_signature *sig = NULL;
	git_oid blob, tree_id;
	git_tree *tree = NULL;

	cr_assert_leq(nparents, 8);
	cr_assert_eq(git_blob_create_from_buffer(&blob, repo, message,
						 strlen(message)),
		     0);
	cr_assert_eq(git_treebuilder_new(&builder, repo, NULL), 0);
	cr_assert_eq(git_treebuilder_insert(NULL, builder, "file", &blob,
					    GIT_FILEMODE_BLOB),
		     0);
	cr_assert_eq(git_treebuilder_write(&tree_id, builder), 0);
	cr_assert_eq(git_tree_lookup(&tree, repo, &tree_id), 0);
	cr_assert_eq(git_signature_new(&sig, "Test", "test@example.invalid",
				       1767225600, 0),
		     0);
	for (size_t i = 0; i < nparents; i++)
		cr_assert_eq(
			git_commit_lookup((git_commit **)&parent_commits[i],
					  repo, &parents[i]),
			0);
	cr_assert_eq(git_commit_create(out, repo, NULL, sig, sig, NULL, message,
				       tree, nparents, parent_commits),
		     0, "%s",
		     git_error_last() ? git_error_last()->message : "");
	if (ref) {
		git_reference *created = NULL;

		/* Forced, so a branch can be moved anywhere (for merges). */
		cr_assert_eq(git_reference_create(&created, repo, ref, out, 1,
						  NULL),
			     0);
		git_reference_free(created);
	}
	for (size_t i = 0; i < nparents; i++)
		git_commit_free((git_commit *)parent_commits[i]);
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(builder);
}

const char *test_oid_hex(const git_oid *oid, int slot)
{
	static char buffers[4][GIT_OID_HEXSZ + 1];

	cr_assert(slot >= 0 && slot < 4);
	git_oid_tostr(buffers[slot], sizeof(buffers[slot]), oid);
	return buffers[slot];
}

void test_store_series_at(struct store *store, const git_oid *commit,
			  const char *machine, double level)
{
	struct result *r = result_new();
	struct result_case *c;
	struct metric_samples *latency, *throughput;

	r->suite = xstrdup("s");
	r->started_at = xstrdup("2026-01-01T00:00:00Z");
	git_oid_tostr(r->git.commit, sizeof(r->git.commit), commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "%s", machine);
	c = result_add_case(r, "b", "original", "cpu");
	latency = result_case_metric(c, "latency");
	latency->unit = xstrdup("ms");
	throughput = result_case_metric(c, "throughput");
	throughput->better = BETTER_HIGHER;
	for (int k = 0; k < 5; k++) {
		metric_samples_push(latency, level + k * 0.01);
		metric_samples_push(throughput, 1000 / level);
	}
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
}

struct result *test_latency_result(const char *commit, const double *values,
				   size_t n)
{
	struct result *r = result_new();
	struct metric_samples *m;

	r->suite = xstrdup("s");
	snprintf(r->git.commit, sizeof(r->git.commit), "%s", commit);
	snprintf(r->machine.id, sizeof(r->machine.id), "m1");
	m = result_case_metric(result_add_case(r, "bench", "original", "cpu"),
			       "latency");
	m->unit = xstrdup("ms");
	m->better = BETTER_LOWER;
	for (size_t i = 0; i < n; i++)
		metric_samples_push(m, values[i]);
	m->runs = n;
	return r;
}

/* Headless Chromium */

/* The browser the test drives: $BENCHGATE_CHROMIUM, else chromium on
 * PATH (CI installs it; a missing browser fails the test, it does not
 * skip it). */
static const char *chromium(void)
{
	const char *program = getenv("BENCHGATE_CHROMIUM");

	return program && *program ? program : "chromium";
}

/* Runs the browser headless on file://path with extra, and returns its
 * stdout; stderr goes to err. Fails the test when it cannot run. */
void test_browser_run(const char *path, const char *profile,
			const char *const *extra, struct strbuf *out,
			struct strbuf *err)
{
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	struct strbuf user_data = STRBUF_INIT, url = STRBUF_INIT;
	const char *argv[32];
	size_t n = 0;

	strbuf_addf(&user_data, "--user-data-dir=%s", profile);
	strbuf_addf(&url, "file://%s", path);
	argv[n++] = chromium();
	argv[n++] = "--headless";
	argv[n++] = "--no-sandbox";
	argv[n++] = "--disable-gpu";
	argv[n++] = "--disable-quic";
	argv[n++] = "--no-first-run";
	argv[n++] = "--disable-background-networking";
	argv[n++] = "--disable-component-update";
	argv[n++] = "--disable-sync";
	argv[n++] = user_data.buf;
	while (*extra && n < 30)
		argv[n++] = *extra++;
	argv[n++] = url.buf;
	argv[n] = NULL;
	options.argv = argv;
	options.timeout_s = 60;
	process_outcome_init(&outcome);
	cr_assert_eq(process_run(&outcome, &options), BG_OK, "%s",
		     bg_error_last());
	cr_assert_neq(outcome.status, PROCESS_SPAWN_FAILED,
		      "cannot run the browser: %s. The HTML test needs "
		      "headless Chromium: apt-get install chromium, or set "
		      "BENCHGATE_CHROMIUM",
		      outcome.spawn_error);
	cr_assert(!outcome.timed_out,
		  "%s timed out on %s: an alert() "
		  "blocks a headless browser, did a name run as script?",
		  chromium(), url.buf);
	strbuf_add(out, outcome.out.text.buf, outcome.out.text.len);
	strbuf_add(err, outcome.err.text.buf, outcome.err.text.len);
	process_outcome_release(&outcome);
	strbuf_release(&user_data);
	strbuf_release(&url);
}

/*
 * What the page did wrong in the browser, one line each, into problems:
 * console messages from the page (a CSP violation, a script error, a
 * failed load all land there) and network requests the page started
 * (from the NetLog: the ones whose network isolation key is the file://
 * page; the browser's own update and time pings have another key).
 */
static void page_problems(const char *netlog_path, const char *stderr_text,
			  const char *page_url, struct strbuf *problems)
{
	char *text = test_read_file(netlog_path);
	struct strbuf json = STRBUF_INIT;
	cJSON *root, *events, *event;

	for (const char *line = stderr_text; line && *line;) {
		const char *end = line + strcspn(line, "\n");
		struct strbuf one = STRBUF_INIT;

		strbuf_add(&one, line, (size_t)(end - line));
		if (strstr(one.buf, ":CONSOLE") && strstr(one.buf, page_url))
			strbuf_addf(problems, "console: %s\n", one.buf);
		strbuf_release(&one);
		line = *end ? end + 1 : end;
	}

	cr_assert_not_null(text, "no NetLog at %s", netlog_path);
	strbuf_addstr(&json, text);
	root = cJSON_Parse(json.buf);
	if (!root) {
		/* A log cut short by the exit misses its closing brackets. */
		strbuf_addstr(&json, "]}");
		root = cJSON_Parse(json.buf);
	}
	cr_assert_not_null(root, "unreadable NetLog %s", netlog_path);
	events = cJSON_GetObjectItemCaseSensitive(root, "events");
	cJSON_ArrayForEach(event, events)
	{
		cJSON *params =
			cJSON_GetObjectItemCaseSensitive(event, "params");
		const char *url = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(params, "url"));
		const char *key =
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
				params, "network_isolation_key"));

		if (url && key && strstr(key, "file://") &&
		    strncmp(url, "file:", 5) && strncmp(url, "data:", 5))
			strbuf_addf(problems, "request: %s\n", url);
	}
	cJSON_Delete(root);
	strbuf_release(&json);
	free(text);
}

/* Loads path in the browser and returns its DOM after scripts ran, with
 * the page's problems (see page_problems()). */
void test_browser_load(const char *dir, const char *path, struct strbuf *dom,
		      struct strbuf *problems)
{
	struct strbuf err = STRBUF_INIT, netlog = STRBUF_INIT;
	struct strbuf profile = STRBUF_INIT, netlog_arg = STRBUF_INIT;
	struct strbuf page_url = STRBUF_INIT;
	const char *extra[] = { "--enable-logging=stderr",
				"--v=0",
				NULL /* netlog */,
				"--net-log-capture-mode=Default",
				"--dump-dom",
				NULL };

	strbuf_addf(&profile, "%s/profile-dom", dir);
	strbuf_addf(&netlog, "%s/netlog.json", dir);
	strbuf_addf(&netlog_arg, "--log-net-log=%s", netlog.buf);
	strbuf_addf(&page_url, "file://%s", path);
	extra[2] = netlog_arg.buf;
	test_browser_run(path, profile.buf, extra, dom, &err);
	page_problems(netlog.buf, err.buf, page_url.buf, problems);
	strbuf_release(&err);
	strbuf_release(&netlog);
	strbuf_release(&profile);
	strbuf_release(&netlog_arg);
	strbuf_release(&page_url);
}

void test_browser_drive(const char *dir, const char *path,
			const char *const *actions, struct strbuf *out)
{
	struct strbuf profile = STRBUF_INIT;
	struct test_output run;
	const char *argv[64];
	size_t n = 0;

	strbuf_addf(&profile, "%s/profile-drive", dir);
	argv[n++] = "/usr/bin/env";
	argv[n++] = "python3";
	argv[n++] = BENCHGATE_SOURCE_DIR "/tests/e2e/browse_page.py";
	argv[n++] = chromium();
	argv[n++] = profile.buf;
	argv[n++] = path;
	while (*actions && n < 63)
		argv[n++] = *actions++;
	argv[n] = NULL;
	test_run(&run, dir, (const char *const[]){ "PYTHONDONTWRITEBYTECODE=1",
						   NULL },
		 argv);
	cr_assert_eq(run.exit_code, 0,
		     "browse_page.py on %s exited %d:\n%s%s", path,
		     run.exit_code, run.out.buf, run.err.buf);
	strbuf_add(out, run.out.buf, run.out.len);
	test_output_release(&run);
	strbuf_release(&profile);
}

struct result *test_only_result(const char *store_dir)
{
	struct store *store = NULL;
	struct store_entry *entries = NULL;
	struct result *result = NULL;
	size_t nr = 0;

	cr_assert_eq(store_open(&store, store_dir), BG_OK);
	cr_assert_eq(store_list(store, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1, "expected one result in %s, found %zu", store_dir,
		     nr);
	cr_assert_eq(result_load(&result, entries[0].path), BG_OK, "%s",
		     bg_error_last());
	store_entries_free(entries, nr);
	store_free(store);
	return result;
}

const struct result_artifact *test_artifact_of(const struct result_case *rcase,
					       const char *kind)
{
	for (size_t i = 0; i < rcase->artifacts_nr; i++)
		if (!strcmp(rcase->artifacts[i].kind, kind))
			return &rcase->artifacts[i];
	return NULL;
}

int test_count_entries(const char *path, size_t len)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int nr = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		nr += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		      (!len || strlen(e->d_name) == len);
	closedir(d);
	return nr;
}

void test_git_area_init(struct test_git_area *area, const char *script)
{
	struct strbuf full = STRBUF_INIT;

	area->dir = test_tmpdir();
	snprintf(area->repo, sizeof(area->repo), "%s/repo", area->dir);
	snprintf(area->scratch, sizeof(area->scratch), "%s/scratch", area->dir);
	snprintf(area->tmpdir_env, sizeof(area->tmpdir_env), "TMPDIR=%s",
		 area->scratch);
	snprintf(area->lock_env, sizeof(area->lock_env),
		 "BENCHGATE_LOCK=%s/lock", area->dir);
	area->env[0] = area->tmpdir_env;
	area->env[1] = area->lock_env;
	area->env[2] = NULL;
	strbuf_addf(&full,
		    "mkdir scratch repo && cd repo\n"
		    "export GIT_AUTHOR_NAME=Dev "
		    "GIT_AUTHOR_EMAIL=dev@example.invalid\n"
		    "export GIT_COMMITTER_NAME=Dev "
		    "GIT_COMMITTER_EMAIL=dev@example.invalid\n"
		    "git init -q -b main .\n"
		    "%s",
		    script);
	test_shell(area->dir, full.buf);
	strbuf_release(&full);
}

void test_git_area_release(struct test_git_area *area)
{
	test_rmtree(area->dir);
	free(area->dir);
	area->dir = NULL;
}

void test_read_commit_ids(const char *dir, const char *name, char (*ids)[41],
			  size_t nr)
{
	struct strbuf path = STRBUF_INIT;
	char *text;

	strbuf_addf(&path, "%s/%s", dir, name);
	text = test_read_file(path.buf);
	cr_assert_not_null(text, "%s", path.buf);
	cr_assert_geq(strlen(text), 41 * nr, "%s: fewer than %zu ids:\n%s",
		      path.buf, nr, text);
	for (size_t i = 0; i < nr; i++) {
		memcpy(ids[i], text + 41 * i, 40);
		ids[i][40] = '\0';
	}
	free(text);
	strbuf_release(&path);
}

char *test_dir;

void test_dir_setup(void)
{
	test_dir = test_tmpdir();
}

void test_dir_teardown(void)
{
	test_rmtree(test_dir);
	free(test_dir);
	test_dir = NULL;
}

struct result *test_run_result(const char *dir, const char *suite,
			       const char *const *env, int expect_exit)
{
	struct strbuf json = STRBUF_INIT;
	struct test_output out;
	struct result *result = NULL;

	strbuf_addf(&json, "%s/result.json", dir);
	test_benchgate(&out, dir, env,
		       (const char *[]){ "run", suite, "--store", "store",
					 "--json", json.buf, "--quiet", NULL });
	cr_assert_eq(out.exit_code, expect_exit, "%s%s", out.out.buf,
		     out.err.buf);
	cr_assert_eq(result_load(&result, json.buf), BG_OK, "%s",
		     bg_error_last());
	test_output_release(&out);
	strbuf_release(&json);
	return result;
}

const char *test_python_that(const char *check)
{
	const char *candidates[] = { getenv("BENCHGATE_TORCH_PYTHON"),
				     "/usr/bin/python3",
				     "/usr/local/bin/python3" };

	for (size_t i = 0; i < sizeof(candidates) / sizeof(*candidates); i++) {
		struct test_output out;
		int code;

		if (!candidates[i] || access(candidates[i], X_OK))
			continue;
		test_run(&out, NULL, NULL,
			 (const char *const[]){ candidates[i], "-c", check,
						NULL });
		code = out.exit_code;
		test_output_release(&out);
		if (!code)
			return candidates[i];
	}
	return NULL;
}
