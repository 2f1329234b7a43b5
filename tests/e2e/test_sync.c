/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate sync` shares a `--store git:benchgate-results`
 * branch through one bare remote. The "done when": two simulated
 * CI jobs on different machine ids push results to one bare remote
 * concurrently, and both histories survive.
 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/model/result.h"
#include "harness/store/store.h"

#include "testutil.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

#define BRANCH "benchgate-results"
#define ROUNDS 3

static char *dir;
static struct strbuf remote_path = STRBUF_INIT;
static struct strbuf suite_path = STRBUF_INIT;
static char code_commit[GIT_OID_HEXSZ + 1];

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
	strbuf_release(&remote_path);
	strbuf_release(&suite_path);
}

/* A bare remote, and a tiny suite outside any repository. */
static void setup(void)
{
	git_repository *bare = NULL;
	char *suite;

	dir = test_tmpdir();
	git_libgit2_init();
	strbuf_addf(&remote_path, "%s/remote.git", dir);
	cr_assert_eq(git_repository_init(&bare, remote_path.buf, 1), 0);
	git_repository_free(bare);
	suite = test_write_file(
		dir, "spin.json",
		"{\"benchgate\": 1, \"suite\": \"spin\","
		" \"defaults\": {\"runs\": 1, \"warmup\": 0},"
		" \"benchmarks\": [{\"name\": \"spin\", \"command\": [\"" TEST_WORKLOAD_DIR
		"/spin\", \"--ms\", \"1\"],"
		" \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","
		"  \"key\": \"latency_ms\", \"unit\": \"ms\"}]}]}");
	strbuf_addstr(&suite_path, suite);
	free(suite);
}

TestSuite(sync, .init = setup, .fini = teardown, .timeout = 300);

/* A CI checkout: the same code commit in every job (test_git_commit is
 * deterministic), and "origin" pointing at the bare remote. Returns the
 * job's directory (free it). */
static char *make_job(const char *name)
{
	struct strbuf path = STRBUF_INIT;
	git_repository *repo;
	git_config *config = NULL;
	git_oid commit;

	strbuf_addf(&path, "%s/%s", dir, name);
	repo = test_git_init(path.buf);
	test_git_commit(repo, "refs/heads/main", "the code", 0, NULL, &commit);
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	git_oid_tostr(code_commit, sizeof(code_commit), &commit);
	/* Configured directly: git_remote_create() of libgit2 1.5 leaks
	 * pcre2 match data, which the sanitizer build reports. */
	cr_assert_eq(git_repository_config(&config, repo), 0);
	cr_assert_eq(git_config_set_string(config, "remote.origin.url",
					   remote_path.buf),
		     0);
	cr_assert_eq(git_config_set_string(config, "remote.origin.fetch",
					   "+refs/heads/*:"
					   "refs/remotes/origin/*"),
		     0);
	git_config_free(config);
	git_repository_free(repo);
	return strbuf_detach(&path, NULL);
}

/* Runs benchgate in a forked job (no Criterion asserts there): output
 * appended to log_fd; the exit status. */
static int job_command(const char *cwd, int log_fd, const char *const *args)
{
	const char *argv[16];
	size_t n = 0;
	int status;
	pid_t pid;

	argv[n++] = BENCHGATE_BIN;
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(log_fd, 1);
		dup2(log_fd, 2);
		if (chdir(cwd) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* One CI job: ROUNDS times `run` into the git store, then `sync`. */
static pid_t start_job(const char *job_dir, const char *machine,
		       const char *log_path)
{
	const char *run[] = { "run",	     suite_path.buf, "--store",
			      "git:" BRANCH, "--quiet",	     NULL };
	const char *sync[] = { "sync", "--remote", "origin", NULL };
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int log_fd =
			open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);

		setenv("BENCHGATE_MACHINE_ID", machine, 1);
		setenv("BENCHGATE_SYNC_BACKOFF_SCALE", "0.2", 1);
		setenv("GIT_CEILING_DIRECTORIES", dir, 1);
		for (int round = 0; round < ROUNDS; round++) {
			if (job_command(job_dir, log_fd, run) != 0 ||
			    job_command(job_dir, log_fd, sync) != 0)
				_exit(1);
		}
		_exit(0);
	}
	return pid;
}

static void wait_job(pid_t pid, const char *log_path)
{
	char *log;
	int status;

	cr_assert_eq(waitpid(pid, &status, 0), pid);
	log = test_read_file(log_path);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "job failed:\n%s", log ? log : "(no log)");
	free(log);
}

/* The valid results of one machine under the code commit on the tip of
 * `repo`'s branch. */
static size_t count_results(git_repository *repo, const char *ref,
			    const char *machine)
{
	struct strbuf spec = STRBUF_INIT;
	git_object *tree = NULL;
	size_t n = 0;

	strbuf_addf(&spec, "%s:%.2s/%s/%s", ref, code_commit, code_commit,
		    machine);
	if (git_revparse_single(&tree, repo, spec.buf) < 0) {
		strbuf_release(&spec);
		return 0;
	}
	cr_assert_eq(git_object_type(tree), GIT_OBJECT_TREE);
	for (size_t i = 0; i < git_tree_entrycount((git_tree *)tree); i++) {
		const git_tree_entry *e =
			git_tree_entry_byindex((git_tree *)tree, i);
		struct result *r = NULL;
		git_blob *blob = NULL;

		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
			continue;
		cr_assert_eq(git_blob_lookup(&blob, repo, git_tree_entry_id(e)),
			     0);
		cr_assert_eq(result_parse(&r, git_blob_rawcontent(blob),
					  (size_t)git_blob_rawsize(blob),
					  git_tree_entry_name(e)),
			     BG_OK, "%s", bg_error_last());
		cr_assert_str_eq(r->machine.id, machine);
		cr_assert_str_eq(r->git.commit, code_commit);
		n++;
		result_free(r);
		git_blob_free(blob);
	}
	git_object_free(tree);
	strbuf_release(&spec);
	return n;
}

static void ref_id(const char *repo_path, const char *ref, git_oid *out)
{
	git_repository *repo = NULL;

	cr_assert_eq(git_repository_open(&repo, repo_path), 0);
	cr_assert_eq(git_reference_name_to_id(out, repo, ref), 0,
		     "%s has no %s", repo_path, ref);
	git_repository_free(repo);
}

Test(sync, two_jobs_push_concurrently_and_both_histories_survive)
{
	const char *env[] = { "BENCHGATE_SYNC_BACKOFF_SCALE=0.2", NULL };
	char *job_a = make_job("job-a"), *job_b = make_job("job-b");
	struct strbuf log_a = STRBUF_INIT, log_b = STRBUF_INIT;
	git_repository *remote = NULL;
	git_oid tip, tip_a, tip_b;
	struct test_output out;
	pid_t a, b;

	strbuf_addf(&log_a, "%s/job-a.log", dir);
	strbuf_addf(&log_b, "%s/job-b.log", dir);
	a = start_job(job_a, "runner-a", log_a.buf);
	b = start_job(job_b, "runner-b", log_b.buf);
	wait_job(a, log_a.buf);
	wait_job(b, log_b.buf);

	/* Every result of both machines is on the remote... */
	cr_assert_eq(git_repository_open(&remote, remote_path.buf), 0);
	cr_assert_eq(count_results(remote, "refs/heads/" BRANCH, "runner-a"),
		     ROUNDS);
	cr_assert_eq(count_results(remote, "refs/heads/" BRANCH, "runner-b"),
		     ROUNDS);
	/* ...and both jobs' histories are in the remote's. */
	cr_assert_eq(git_reference_name_to_id(&tip, remote,
					      "refs/heads/" BRANCH),
		     0);
	ref_id(job_a, "refs/heads/" BRANCH, &tip_a);
	ref_id(job_b, "refs/heads/" BRANCH, &tip_b);
	git_repository_free(remote);
	remote = NULL;
	cr_assert_eq(git_repository_open(&remote, job_a), 0);
	/* The last job to sync pushed the tip; the other's tip is below. */
	cr_assert(git_oid_equal(&tip, &tip_a) || git_oid_equal(&tip, &tip_b),
		  "the remote's tip is one job's last push");
	git_repository_free(remote);

	/* A final sync brings each job everything. */
	RUN(&out, job_a, env, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	RUN(&out, job_b, env, "sync", "--remote", "origin", "--branch", BRANCH);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	ref_id(job_a, "refs/heads/" BRANCH, &tip_a);
	ref_id(job_b, "refs/heads/" BRANCH, &tip_b);
	cr_assert(git_oid_equal(&tip, &tip_a) && git_oid_equal(&tip, &tip_b),
		  "both jobs end at the remote's tip");
	cr_assert_eq(git_repository_open(&remote, job_b), 0);
	cr_assert_eq(count_results(remote, "refs/heads/" BRANCH, "runner-a"),
		     ROUNDS);
	git_repository_free(remote);

	free(job_a);
	free(job_b);
	strbuf_release(&log_a);
	strbuf_release(&log_b);
}

Test(sync, diverged_sides_merge_and_a_rerun_is_up_to_date)
{
	const char *a_env[] = { "BENCHGATE_MACHINE_ID=runner-a", NULL };
	const char *b_env[] = { "BENCHGATE_MACHINE_ID=runner-b", NULL };
	char *job_a = make_job("job-a"), *job_b = make_job("job-b");
	git_repository *remote = NULL;
	git_commit *tip_commit = NULL;
	struct test_output out;
	git_oid tip;

	RUN(&out, job_a, a_env, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "does not exist"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, job_a, a_env, "run", suite_path.buf, "--store", "git:" BRANCH);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "stored " BRANCH ":"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, job_b, b_env, "run", suite_path.buf, "--store", "git:" BRANCH,
	    "--quiet");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);

	RUN(&out, job_a, a_env, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "pushed"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, job_b, b_env, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "merged and pushed, 2 files re-applied "
				      "(0 renamed)"),
		  "runner-b's result and its case log: %s", out.out.buf);
	test_output_release(&out);
	RUN(&out, job_b, b_env, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "up to date"), "%s", out.out.buf);
	test_output_release(&out);
	RUN(&out, job_a, a_env, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "fetched"), "%s", out.out.buf);
	test_output_release(&out);

	cr_assert_eq(git_repository_open(&remote, remote_path.buf), 0);
	cr_assert_eq(count_results(remote, "refs/heads/" BRANCH, "runner-a"),
		     1);
	cr_assert_eq(count_results(remote, "refs/heads/" BRANCH, "runner-b"),
		     1);
	cr_assert_eq(git_reference_name_to_id(&tip, remote,
					      "refs/heads/" BRANCH),
		     0);
	cr_assert_eq(git_commit_lookup(&tip_commit, remote, &tip), 0);
	cr_assert_eq(git_commit_parentcount(tip_commit), 2,
		     "the merge keeps both histories as parents");
	git_commit_free(tip_commit);
	git_repository_free(remote);
	free(job_a);
	free(job_b);
}

/* Stores, in the job's repository, a result of `machine` started at a
 * fixed second with one latency sample. */
static void store_fixed_result(const char *job, const char *machine,
			       double sample)
{
	struct result *r = result_new();
	struct store *store = NULL;
	struct result_case *rcase;

	r->suite = xstrdup("spin");
	memcpy(r->git.commit, code_commit, sizeof(code_commit));
	memcpy(r->machine.id, machine, strlen(machine) + 1);
	r->started_at = xstrdup("2026-11-22T07:34:22Z");
	r->finished_at = xstrdup("2026-11-22T07:34:23Z");
	rcase = result_add_case(r, "spin", "default", "cpu");
	metric_samples_push(result_case_metric(rcase, "latency"), sample);
	cr_assert_eq(chdir(job), 0);
	cr_assert_eq(store_open(&store, "git:" BRANCH), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(store_write(store, r, NULL, NULL), BG_OK, "%s",
		     bg_error_last());
	store_free(store);
	result_free(r);
	cr_assert_eq(chdir(dir), 0);
}

/* Two runners sharing a machine id and a second: one path, two contents.
 * Neither may be lost; the second to sync keeps its own under "-1". */
Test(sync, one_path_with_two_contents_keeps_both)
{
	char *job_a = make_job("job-a"), *job_b = make_job("job-b");
	git_repository *remote = NULL;
	struct test_output out;
	git_object *blob = NULL;
	struct result *r = NULL;
	struct strbuf spec = STRBUF_INIT;
	double seen = 0;

	store_fixed_result(job_a, "shared", 1.0);
	store_fixed_result(job_b, "shared", 2.0);
	RUN(&out, job_a, NULL, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	RUN(&out, job_b, NULL, "sync");
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.out.buf, "1 file re-applied (1 renamed)"), "%s",
		  out.out.buf);
	test_output_release(&out);

	cr_assert_eq(git_repository_open(&remote, remote_path.buf), 0);
	cr_assert_eq(count_results(remote, "refs/heads/" BRANCH, "shared"), 2);
	for (int i = 0; i < 2; i++) {
		strbuf_reset(&spec);
		strbuf_addf(&spec,
			    "refs/heads/" BRANCH ":%.2s/%s/shared/spin-"
			    "20261122T073422Z%s.json",
			    code_commit, code_commit, i ? "-1" : "");
		cr_assert_eq(git_revparse_single(&blob, remote, spec.buf), 0,
			     "%s", spec.buf);
		cr_assert_eq(
			result_parse(&r, git_blob_rawcontent((git_blob *)blob),
				     (size_t)git_blob_rawsize((git_blob *)blob),
				     spec.buf),
			BG_OK);
		seen += r->cases[0].metrics[0].samples[0];
		cr_assert_eq(r->cases[0].metrics[0].samples[0], i ? 2.0 : 1.0,
			     "the remote's stays at its path, ours moves");
		result_free(r);
		git_object_free(blob);
	}
	cr_assert_eq(seen, 3.0);
	git_repository_free(remote);
	strbuf_release(&spec);
	free(job_a);
	free(job_b);
}

/* An unreachable https remote: the failure names the remote, never the
 * URL's secret or the token. */
Test(sync, a_network_failure_names_the_remote_not_the_secrets)
{
	const char *env[] = { "GITHUB_TOKEN=ghp_tokenvalue", NULL };
	char *job = make_job("job");
	git_repository *repo = NULL;
	git_config *config = NULL;
	struct test_output out;

	cr_assert_eq(git_repository_open(&repo, job), 0);
	cr_assert_eq(git_repository_config(&config, repo), 0);
	cr_assert_eq(git_config_set_string(config, "remote.origin.url",
					   "https://user:urlsecret@127.0.0.1:9"
					   "/results.git"),
		     0);
	git_config_free(config);
	git_repository_free(repo);
	RUN(&out, job, env, "sync");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "cannot fetch 'benchgate-results' of "
				      "remote 'origin'"),
		  "%s", out.err.buf);
	cr_assert_null(strstr(out.err.buf, "urlsecret"), "%s", out.err.buf);
	cr_assert_null(strstr(out.err.buf, "ghp_tokenvalue"), "%s",
		       out.err.buf);
	cr_assert_null(strstr(out.out.buf, "ghp_tokenvalue"));
	test_output_release(&out);
	free(job);
}

Test(sync, an_unknown_remote_is_an_input_error)
{
	char *job = make_job("job");
	struct test_output out;

	RUN(&out, job, NULL, "sync", "--remote", "upstream");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "no remote 'upstream'"), "%s",
		  out.err.buf);
	test_output_release(&out);
	RUN(&out, job, NULL, "sync", "--branch", "a..b");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "not a valid branch name"), "%s",
		  out.err.buf);
	test_output_release(&out);
	free(job);
}

/* A fake git server over http */

enum fake_answer {
	/* 401 with a Basic challenge to every request */
	FAKE_UNAUTHORIZED,
	/* an empty repository to both ref advertisements; the push itself
	 * is answered 413 after its first KiB and the connection closed */
	FAKE_CLOSE_EARLY,
};

struct fake_server {
	pid_t pid;
	unsigned short port;
};

/* A pkt-line of the git protocol: four hex digits of length, then text. */
static void pkt_line(struct strbuf *out, const char *text, size_t len)
{
	strbuf_addf(out, "%04zx", len + 4);
	strbuf_add(out, text, len);
}

/* The smart-http ref advertisement of an empty repository, as
 * git-http-backend sends it (gitprotocol-http(5), "Smart Clients"). */
static void empty_advertisement(struct strbuf *out, const char *service)
{
	static const char caps[] = "0000000000000000000000000000000000000000"
				   " capabilities^{}\0report-status "
				   "ofs-delta\n";
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "# service=%s\n", service);
	pkt_line(out, line.buf, line.len);
	strbuf_addstr(out, "0000");
	pkt_line(out, caps, sizeof(caps) - 1);
	strbuf_addstr(out, "0000");
	strbuf_release(&line);
}

static void fake_answer_one(int conn, enum fake_answer answer)
{
	struct strbuf request = STRBUF_INIT, reply = STRBUF_INIT;
	struct strbuf body = STRBUF_INIT;
	char chunk[1024];
	ssize_t got;

	while (!strstr(request.buf, "\r\n\r\n") &&
	       (got = read(conn, chunk, sizeof(chunk))) > 0)
		strbuf_add(&request, chunk, (size_t)got);
	if (answer == FAKE_UNAUTHORIZED) {
		strbuf_addstr(&reply, "HTTP/1.1 401 Unauthorized\r\n"
				      "WWW-Authenticate: Basic realm=\"r\"\r\n"
				      "Content-Length: 0\r\n"
				      "Connection: close\r\n\r\n");
	} else if (!strncmp(request.buf, "GET ", 4)) {
		const char *service = strstr(request.buf, "git-receive-pack")
					      ? "git-receive-pack"
					      : "git-upload-pack";

		empty_advertisement(&body, service);
		strbuf_addf(&reply,
			    "HTTP/1.1 200 OK\r\n"
			    "Content-Type: application/x-%s-advertisement\r\n"
			    "Content-Length: %zu\r\n"
			    "Connection: close\r\n\r\n",
			    service, body.len);
		strbuf_add(&reply, body.buf, body.len);
	} else {
		/* The early answer of a server refusing a push; the unread
		 * rest of the pack makes close() reset the connection. */
		strbuf_addstr(&reply, "HTTP/1.1 413 Payload Too Large\r\n"
				      "Content-Length: 0\r\n"
				      "Connection: close\r\n\r\n");
	}
	if (write(conn, reply.buf, reply.len) < 0)
		_exit(1);
	close(conn);
	strbuf_release(&request);
	strbuf_release(&reply);
	strbuf_release(&body);
}

/* Starts a server on a free loopback port in a child process, which
 * answers every connection as `answer` says until fake_stop(). */
static void fake_start(struct fake_server *fake, enum fake_answer answer)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	int listener = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_geq(listener, 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(listener, (struct sockaddr *)&addr, sizeof(addr)), 0);
	cr_assert_eq(listen(listener, 8), 0);
	cr_assert_eq(getsockname(listener, (struct sockaddr *)&addr, &len), 0);
	fake->port = ntohs(addr.sin_port);
	fflush(NULL);
	fake->pid = fork();
	cr_assert_neq(fake->pid, -1);
	if (fake->pid == 0) {
		signal(SIGPIPE, SIG_IGN);
		for (;;) {
			int conn = accept(listener, NULL, NULL);

			if (conn >= 0)
				fake_answer_one(conn, answer);
		}
	}
	close(listener);
}

static void fake_stop(struct fake_server *fake)
{
	kill(fake->pid, SIGKILL);
	waitpid(fake->pid, NULL, 0);
}

/* Points the job's origin at the fake server. */
static void use_fake_remote(const char *job, const struct fake_server *fake)
{
	struct strbuf url = STRBUF_INIT;
	git_repository *repo = NULL;
	git_config *config = NULL;

	strbuf_addf(&url, "http://127.0.0.1:%u/results.git",
		    (unsigned)fake->port);
	cr_assert_eq(git_repository_open(&repo, job), 0);
	cr_assert_eq(git_repository_config(&config, repo), 0);
	cr_assert_eq(
		git_config_set_string(config, "remote.origin.url", url.buf), 0);
	git_config_free(config);
	git_repository_free(repo);
	strbuf_release(&url);
}

/* A results branch in the job with `size` bytes that do not compress
 * (an LCG's high bytes), so that a push sends more than any socket
 * buffer holds. */
static void commit_incompressible(const char *job, size_t size)
{
	git_repository *repo = NULL;
	git_treebuilder *builder = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid blob, tree_id, commit;
	unsigned long long state = 1;
	char *bytes = xmalloc(size);

	for (size_t i = 0; i < size; i++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		bytes[i] = (char)(state >> 56);
	}
	cr_assert_eq(git_repository_open(&repo, job), 0);
	cr_assert_eq(git_blob_create_from_buffer(&blob, repo, bytes, size), 0);
	cr_assert_eq(git_treebuilder_new(&builder, repo, NULL), 0);
	cr_assert_eq(git_treebuilder_insert(NULL, builder, "noise", &blob,
					    GIT_FILEMODE_BLOB),
		     0);
	cr_assert_eq(git_treebuilder_write(&tree_id, builder), 0);
	cr_assert_eq(git_tree_lookup(&tree, repo, &tree_id), 0);
	cr_assert_eq(git_signature_new(&sig, "t", "t@example.com", 0, 0), 0);
	cr_assert_eq(git_commit_create(&commit, repo, "refs/heads/" BRANCH, sig,
				       sig, NULL, "noise", tree, 0, NULL),
		     0);
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(builder);
	git_repository_free(repo);
	free(bytes);
}

/*
 * A server that answers the push before reading it and closes: writing
 * the rest raises SIGPIPE, which used to kill benchgate silently (exit
 * 141 in a shell, no message). It must be an error that says so.
 */
Test(sync, a_server_closing_during_the_push_is_an_error_not_a_sigpipe)
{
	struct strbuf asan = STRBUF_INIT;
	const char *env[] = { NULL, NULL };
	char *job = make_job("job");
	struct fake_server fake;
	struct test_output out;

	/* libgit2 1.5 leaks 64 bytes inside git_remote_upload when a send
	 * fails; full stacks let sync.c's suppression name it. */
	strbuf_addf(&asan, "ASAN_OPTIONS=%s%sfast_unwind_on_malloc=0",
		    getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
		    getenv("ASAN_OPTIONS") ? ":" : "");
	env[0] = asan.buf;

	commit_incompressible(job, 8u << 20);
	fake_start(&fake, FAKE_CLOSE_EARLY);
	use_fake_remote(job, &fake);
	/* as a shell starts it: SIGPIPE at its default, deadly */
	signal(SIGPIPE, SIG_DFL);
	RUN(&out, job, env, "sync");
	fake_stop(&fake);
	cr_assert_eq(out.exit_code, 2, "exit %d (-1: killed by a signal)\n%s",
		     out.exit_code, out.err.buf);
	cr_assert(strstr(out.err.buf, "cannot push 'benchgate-results' to "
				      "remote 'origin': "),
		  "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "the server closed the connection early"),
		  "%s", out.err.buf);
	test_output_release(&out);
	strbuf_release(&asan);
	free(job);
}

/*
 * A 401 with no credentials benchgate may send (tokens go over https
 * only): libgit2 calls that "authentication required but no callback
 * set", though sync sets one. The message says what was asked and why
 * nothing was offered.
 */
Test(sync, an_authentication_failure_says_what_was_asked_and_tried)
{
	const char *env[] = { "GITHUB_TOKEN=ghp_tokenvalue",
			      "GITHUB_SERVER_URL=http://127.0.0.1", NULL };
	char *job = make_job("job");
	struct fake_server fake;
	struct test_output out;

	fake_start(&fake, FAKE_UNAUTHORIZED);
	use_fake_remote(job, &fake);
	RUN(&out, job, env, "sync");
	fake_stop(&fake);
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf,
			 "cannot fetch 'benchgate-results' of remote 'origin': "
			 "authentication failed: the server asked for a user "
			 "name and password; benchgate had none to offer for "
			 "host '127.0.0.1'"),
		  "%s", out.err.buf);
	cr_assert_null(strstr(out.err.buf, "no callback set"), "%s",
		       out.err.buf);
	cr_assert_null(strstr(out.err.buf, "ghp_tokenvalue"), "%s",
		       out.err.buf);
	test_output_release(&out);
	free(job);
}
