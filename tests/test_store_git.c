/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The git backend of the store (`--store git:BRANCH`): results as commits
 * on a branch of the repository of the current directory, written without
 * touching the work tree or the index, and never lost to a concurrent
 * writer. Fixture repositories are made with libgit2 in a temp dir.
 */
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/store/store.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define COMMIT_A   "0123456789abcdef0123456789abcdef01234567"
/* its folder: in its shard, the id's first two hex digits */
#define DIR_A	   "01/" COMMIT_A
#define COMMIT_B   "fedcba9876543210fedcba9876543210fedcba98"
#define MACHINE	   "a1b2c3d4e5f60718"
#define STARTED	   "2026-11-22T07:34:22Z"
#define STAMP	   "20261122T073422Z"
#define BRANCH_REF "refs/heads/results"

static char *tmp;
static char *repo_dir;
static git_repository *repo;

/* A work tree with a committed HEAD, a staged file, a modified tracked
 * file and an untracked one: every state a store write must leave as is. */
static void setup(void)
{
	git_index *index = NULL;
	git_oid head;
	char *path;

	tmp = test_tmpdir();
	repo_dir = xstrdup(tmp);
	repo = test_git_init(repo_dir);
	test_git_commit(repo, "refs/heads/main", "first", 0, NULL, &head);
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	path = test_write_file(repo_dir, "tracked.txt", "one\n");
	free(path);
	cr_assert_eq(git_repository_index(&index, repo), 0);
	cr_assert_eq(git_index_add_bypath(index, "tracked.txt"), 0);
	cr_assert_eq(git_index_write(index), 0);
	git_index_free(index);
	path = test_write_file(repo_dir, "tracked.txt", "two\n");
	free(path);
	path = test_write_file(repo_dir, "untracked.txt", "loose\n");
	free(path);
	cr_assert_eq(chdir(repo_dir), 0);
}

static void teardown(void)
{
	git_repository_free(repo);
	test_rmtree(tmp);
	free(tmp);
	free(repo_dir);
}

TestSuite(store_git, .init = setup, .fini = teardown, .timeout = 120);

static struct result *make_result(const char *suite, const char *commit,
				  const char *machine, const char *started)
{
	struct result *r = result_new();
	struct result_case *rcase;
	struct metric_samples *latency;

	r->suite = xstrdup(suite);
	memcpy(r->git.commit, commit, strlen(commit) + 1);
	memcpy(r->machine.id, machine, strlen(machine) + 1);
	r->started_at = xstrdup(started);
	r->finished_at = xstrdup(started);
	rcase = result_add_case(r, "infer", "original", "cpu");
	latency = result_case_metric(rcase, "latency");
	latency->unit = xstrdup("ms");
	metric_samples_push(latency, 1.71);
	metric_samples_push(latency, 1.69);
	return r;
}

static struct store *open_store(void)
{
	struct store *s = NULL;

	cr_assert_eq(store_open(&s, "git:results"), BG_OK, "%s",
		     bg_error_last());
	return s;
}

static char *write_result(struct store *s, const char *suite,
			  const char *commit, const char *machine,
			  const char *started)
{
	struct result *r = make_result(suite, commit, machine, started);
	struct strbuf path = STRBUF_INIT;

	cr_assert_eq(store_write(s, r, NULL, &path), BG_OK, "%s",
		     bg_error_last());
	result_free(r);
	return strbuf_detach(&path, NULL);
}

/* Everything a user sees of the work tree and the index: the index file's
 * bytes, each status entry, and the work tree's files with content. */
static void snapshot(struct strbuf *out)
{
	git_status_options opts;
	git_status_list *status = NULL;
	struct strbuf index = STRBUF_INIT;
	char *text;
	size_t i;

	cr_assert_eq(strbuf_read_file(&index, ".git/index"), 0);
	strbuf_addf(out, "index %zu:", index.len);
	for (i = 0; i < index.len; i++)
		strbuf_addf(out, "%02x", (unsigned char)index.buf[i]);
	strbuf_release(&index);
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
		     GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	cr_assert_eq(git_status_list_new(&status, repo, &opts), 0);
	for (i = 0; i < git_status_list_entrycount(status); i++) {
		const git_status_entry *e = git_status_byindex(status, i);
		const git_diff_delta *d = e->index_to_workdir
						  ? e->index_to_workdir
						  : e->head_to_index;

		strbuf_addf(out, "\n%d %s", (int)e->status, d->new_file.path);
	}
	git_status_list_free(status);
	text = test_read_file("tracked.txt");
	strbuf_addf(out, "\ntracked.txt=%s", text);
	free(text);
	text = test_read_file("untracked.txt");
	strbuf_addf(out, "\nuntracked.txt=%s", text);
	free(text);
}

static size_t count_commits(const char *ref)
{
	git_revwalk *walk = NULL;
	git_oid id;
	size_t n = 0;

	cr_assert_eq(git_revwalk_new(&walk, repo), 0);
	cr_assert_eq(git_revwalk_push_ref(walk, ref), 0);
	while (git_revwalk_next(&id, walk) == 0)
		n++;
	git_revwalk_free(walk);
	return n;
}

Test(store_git, writes_commits_without_touching_work_tree_or_index)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	struct store *s = open_store();
	git_reference *head = NULL;
	char *path;

	snapshot(&before);
	cr_assert(strstr(before.buf, "tracked.txt"), "%s", before.buf);
	path = write_result(s, "mlp", COMMIT_A, MACHINE, STARTED);
	cr_assert_str_eq(path,
			 "results:" DIR_A "/" MACHINE "/mlp-" STAMP ".json");
	free(path);
	free(write_result(s, "mlp", COMMIT_B, MACHINE, STARTED));
	snapshot(&after);
	cr_assert_str_eq(before.buf, after.buf,
			 "the work tree or index changed");
	/* HEAD still names main: the results branch is never checked out. */
	cr_assert_eq(git_repository_head(&head, repo), 0);
	cr_assert_str_eq(git_reference_name(head), "refs/heads/main");
	git_reference_free(head);
	cr_assert_eq(count_commits(BRANCH_REF), 2, "one commit per result");
	store_free(s);
	strbuf_release(&before);
	strbuf_release(&after);
}

Test(store_git, lists_loads_and_finds_the_latest)
{
	struct store_query q = { .load = true };
	struct store_entry *entries = NULL;
	struct strbuf path = STRBUF_INIT;
	struct store *s = open_store();
	struct result *latest = NULL;
	size_t nr = 0;

	cr_assert_eq(store_list(s, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 0, "a branch that does not exist lists nothing");
	free(entries);
	free(write_result(s, "mlp", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "mlp", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "other", COMMIT_A, "b2", STARTED));
	free(write_result(s, "mlp", COMMIT_B, MACHINE, "2026-11-22T08:00:00Z"));

	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(nr, 4);
	for (size_t i = 0; i < nr; i++)
		cr_assert_not_null(entries[i].result);
	/* The same second twice: the second gets the "-1" suffix (sorted
	 * after "other", which has none). */
	cr_assert_eq(entries[2].seq, 1, "%s", entries[2].path);
	cr_assert(strstr(entries[2].path, "/mlp-" STAMP "-1.json"));
	store_entries_free(entries, nr);

	q = (struct store_query){ .commit = "0123", .machine = MACHINE };
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 2, "a commit prefix and a machine");
	store_entries_free(entries, nr);
	q = (struct store_query){ .commit = COMMIT_A, .suite = "other" };
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1);
	cr_assert_str_eq(entries[0].machine, "b2");
	store_entries_free(entries, nr);

	q = (struct store_query){ .machine = MACHINE, .suite = "mlp" };
	cr_assert_eq(store_latest(s, &q, &latest, &path), BG_OK);
	cr_assert_str_eq(latest->git.commit, COMMIT_B);
	cr_assert_str_eq(path.buf, "results:fe/" COMMIT_B "/" MACHINE "/mlp-"
				   "20261122T080000Z.json");
	result_free(latest);
	store_free(s);
	strbuf_release(&path);
}

Test(store_git, a_reserved_slot_carries_its_logs_into_the_branch)
{
	struct result *r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
	struct store_slot *slot = NULL;
	struct strbuf path = STRBUF_INIT;
	struct store *s = open_store();
	git_object *blob = NULL;
	struct stat st;
	char *log;

	cr_assert_eq(store_reserve(s, r, &slot), BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(slot->name, "mlp-" STAMP);
	cr_assert_str_eq(slot->log_prefix, "logs/mlp-" STAMP);
	/* Logs wait inside .git, not in the work tree. */
	cr_assert(strstr(slot->log_dir, "/.git/benchgate/results/"), "%s",
		  slot->log_dir);
	cr_assert_eq(stat(slot->log_dir, &st), 0);
	log = test_write_file(slot->log_dir, "infer__original__cpu.log",
			      "run 0: ok\n");
	free(log);
	/* Another writer in the same second must not take the slot's name. */
	free(write_result(s, "mlp", COMMIT_A, MACHINE, STARTED));
	r->cases[0].log =
		xstrdup("logs/mlp-" STAMP "/infer__original__cpu.log");
	cr_assert_eq(store_write(s, r, slot, &path), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(path.buf,
			 "results:" DIR_A "/" MACHINE "/mlp-" STAMP ".json");
	cr_assert_eq(git_revparse_single(&blob, repo,
					 "results:" DIR_A "/" MACHINE
					 "/logs/mlp-" STAMP
					 "/infer__original__cpu.log"),
		     0);
	cr_assert_eq(git_blob_rawsize((git_blob *)blob), 10);
	cr_assert_eq(memcmp(git_blob_rawcontent((git_blob *)blob),
			    "run 0: ok\n", 10),
		     0);
	cr_assert_neq(stat(slot->log_dir, &st), 0,
		      "the scratch log directory is removed once stored");
	git_object_free(blob);
	store_slot_free(slot);
	result_free(r);
	store_free(s);
	strbuf_release(&path);
}

#define CASE_DIR "infer__original__cpu"
#define FOLDED	 "main;infer;matmul 42\n"

/* Profiling leaves its files in "<slot dir>/artifacts/<slot name>/<case>/"
 * (session.c); a nested one, as a profile run's directory has. Returns
 * the file's absolute path (free it). */
static char *write_artifact(struct result *r, const struct store_slot *slot)
{
	struct strbuf dir = STRBUF_INIT;
	char *file;

	strbuf_addf(&dir, "%s/artifacts/%s", slot->dir, slot->name);
	file = test_write_file(dir.buf, CASE_DIR "/profile/folded.txt", FOLDED);
	result_case_add_artifact(&r->cases[0], "folded", file, slot->dir);
	strbuf_release(&dir);
	return file;
}

/* The blob at "results:<rel>" has exactly `text`. */
static void assert_blob(const char *rel, const char *text)
{
	struct strbuf rev = STRBUF_INIT;
	git_object *blob = NULL;

	strbuf_addf(&rev, "results:%s", rel);
	cr_assert_eq(git_revparse_single(&blob, repo, rev.buf), 0,
		     "'%s' is not on the branch", rev.buf);
	cr_assert_eq(git_object_type(blob), GIT_OBJECT_BLOB);
	cr_assert_eq(git_blob_rawsize((git_blob *)blob), strlen(text));
	cr_assert_eq(memcmp(git_blob_rawcontent((git_blob *)blob), text,
			    strlen(text)),
		     0);
	git_object_free(blob);
	strbuf_release(&rev);
}

/* The stored result's only artifact resolves, beside the result, to the
 * file the run left. */
static void assert_artifact_resolves(struct store *s, const char *name)
{
	struct store_query q = { .machine = MACHINE, .suite = "mlp" };
	struct strbuf rel = STRBUF_INIT, expected = STRBUF_INIT;
	struct result *stored = NULL;

	cr_assert_eq(store_latest(s, &q, &stored, NULL), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(stored->cases[0].artifacts_nr, 1);
	strbuf_addf(&expected, "artifacts/%s/" CASE_DIR "/profile/folded.txt",
		    name);
	cr_assert_str_eq(stored->cases[0].artifacts[0].path, expected.buf);
	strbuf_addf(&rel, DIR_A "/" MACHINE "/%s",
		    stored->cases[0].artifacts[0].path);
	assert_blob(rel.buf, FOLDED);
	result_free(stored);
	strbuf_release(&rel);
	strbuf_release(&expected);
}

Test(store_git, a_reserved_slot_carries_its_artifacts_into_the_branch)
{
	struct result *r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
	struct strbuf path = STRBUF_INIT, scratch = STRBUF_INIT;
	struct store_slot *slot = NULL;
	struct store *s = open_store();
	struct stat st;
	char *file;

	cr_assert_eq(store_reserve(s, r, &slot), BG_OK, "%s", bg_error_last());
	file = write_artifact(r, slot);
	cr_assert_str_eq(r->cases[0].artifacts[0].path,
			 "artifacts/mlp-" STAMP "/" CASE_DIR
			 "/profile/folded.txt");
	cr_assert_eq(store_write(s, r, slot, &path), BG_OK, "%s",
		     bg_error_last());
	assert_blob(DIR_A "/" MACHINE "/artifacts/mlp-" STAMP "/" CASE_DIR
			     "/profile/folded.txt",
		    FOLDED);
	assert_artifact_resolves(s, "mlp-" STAMP);
	cr_assert_neq(stat(file, &st), 0, "the scratch copy is removed");
	strbuf_addf(&scratch, "%s/artifacts/%s", slot->dir, slot->name);
	cr_assert_neq(stat(scratch.buf, &st), 0, "%s is left", scratch.buf);
	free(file);
	store_slot_free(slot);
	result_free(r);
	store_free(s);
	strbuf_release(&path);
	strbuf_release(&scratch);
}

/* Commits, bypassing the store and its claims, a tree holding only
 * `rel`: a result another clone stored and `sync` brought in. */
static void commit_behind_the_store(const char *rel)
{
	git_treebuilder *builder = NULL;
	git_tree *empty = NULL, *tree = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	git_tree_update update = { 0 };
	git_oid id;

	cr_assert_eq(git_treebuilder_new(&builder, repo, NULL), 0);
	cr_assert_eq(git_treebuilder_write(&id, builder), 0);
	cr_assert_eq(git_tree_lookup(&empty, repo, &id), 0);
	cr_assert_eq(git_blob_create_from_buffer(&update.id, repo, "{}", 2), 0);
	update.action = GIT_TREE_UPDATE_UPSERT;
	update.filemode = GIT_FILEMODE_BLOB;
	update.path = rel;
	cr_assert_eq(git_tree_create_updated(&id, repo, empty, 1, &update), 0);
	cr_assert_eq(git_tree_lookup(&tree, repo, &id), 0);
	cr_assert_eq(git_signature_new(&sig, "T", "t@example.invalid", 0, 0),
		     0);
	cr_assert_eq(git_commit_create(&id, repo, NULL, sig, sig, NULL,
				       "elsewhere", tree, 0, NULL),
		     0);
	cr_assert_eq(git_reference_create(&ref, repo, BRANCH_REF, &id, 1, NULL),
		     0);
	git_reference_free(ref);
	git_signature_free(sig);
	git_tree_free(tree);
	git_tree_free(empty);
	git_treebuilder_free(builder);
}

Test(store_git, a_result_moved_to_a_fresh_name_takes_its_artifacts_along)
{
	struct result *r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
	struct store_slot *slot = NULL;
	struct strbuf path = STRBUF_INIT;
	struct store *s = open_store();
	struct result *stored = NULL;
	struct store_query q = { .machine = MACHINE, .suite = "mlp" };
	char *file;

	cr_assert_eq(store_reserve(s, r, &slot), BG_OK, "%s", bg_error_last());
	cr_assert_str_eq(slot->name, "mlp-" STAMP);
	file = test_write_file(slot->log_dir, CASE_DIR ".log", "run 0: ok\n");
	free(file);
	r->cases[0].log = xstrdup("logs/mlp-" STAMP "/" CASE_DIR ".log");
	free(write_artifact(r, slot));
	/* in the flat folder of an older store: its names are taken too */
	commit_behind_the_store(COMMIT_A "/" MACHINE "/mlp-" STAMP ".json");

	cr_assert_eq(store_write(s, r, slot, &path), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(path.buf, "results:" DIR_A "/" MACHINE "/mlp-" STAMP
				   "-1.json");
	assert_blob(COMMIT_A "/" MACHINE "/mlp-" STAMP ".json", "{}");
	assert_blob(DIR_A "/" MACHINE "/logs/mlp-" STAMP "-1/" CASE_DIR
			     ".log",
		    "run 0: ok\n");
	assert_artifact_resolves(s, "mlp-" STAMP "-1");
	cr_assert_eq(store_latest(s, &q, &stored, NULL), BG_OK);
	cr_assert_str_eq(stored->cases[0].log,
			 "logs/mlp-" STAMP "-1/" CASE_DIR ".log");
	result_free(stored);
	store_slot_free(slot);
	result_free(r);
	store_free(s);
	strbuf_release(&path);
}

Test(store_git, a_corrupt_result_on_the_branch_is_skipped)
{
	git_treebuilder *machine_tb = NULL, *commit_tb = NULL, *root_tb = NULL;
	struct store_query q = { .load = true };
	struct store_entry *entries = NULL;
	git_oid blob, tree, commit;
	git_tree *root = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	struct store *s = open_store();
	size_t nr = 0;

	free(write_result(s, "mlp", COMMIT_A, MACHINE, STARTED));
	/* A second commit whose tree holds only a truncated result. */
	cr_assert_eq(git_blob_create_from_buffer(&blob, repo, "{\"bench", 7),
		     0);
	cr_assert_eq(git_treebuilder_new(&machine_tb, repo, NULL), 0);
	cr_assert_eq(git_treebuilder_insert(NULL, machine_tb,
					    "mlp-" STAMP "-5.json", &blob,
					    GIT_FILEMODE_BLOB),
		     0);
	cr_assert_eq(git_treebuilder_write(&tree, machine_tb), 0);
	cr_assert_eq(git_treebuilder_new(&commit_tb, repo, NULL), 0);
	cr_assert_eq(git_treebuilder_insert(NULL, commit_tb, MACHINE, &tree,
					    GIT_FILEMODE_TREE),
		     0);
	cr_assert_eq(git_treebuilder_write(&tree, commit_tb), 0);
	cr_assert_eq(git_treebuilder_new(&root_tb, repo, NULL), 0);
	cr_assert_eq(git_treebuilder_insert(NULL, root_tb, COMMIT_B, &tree,
					    GIT_FILEMODE_TREE),
		     0);
	cr_assert_eq(git_treebuilder_write(&tree, root_tb), 0);
	cr_assert_eq(git_tree_lookup(&root, repo, &tree), 0);
	cr_assert_eq(git_signature_new(&sig, "T", "t@example.invalid", 0, 0),
		     0);
	cr_assert_eq(git_commit_create(&commit, repo, NULL, sig, sig, NULL,
				       "corrupt", root, 0, NULL),
		     0);
	cr_assert_eq(git_reference_create(&ref, repo, BRANCH_REF, &commit, 1,
					  NULL),
		     0);

	cr_assert_eq(store_list(s, NULL, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 1, "the name is listed");
	store_entries_free(entries, nr);
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, 0, "and skipped when loading");
	store_entries_free(entries, nr);
	git_reference_free(ref);
	git_signature_free(sig);
	git_tree_free(root);
	git_treebuilder_free(machine_tb);
	git_treebuilder_free(commit_tb);
	git_treebuilder_free(root_tb);
	store_free(s);
}

Test(store_git, bad_specs_are_input_errors)
{
	struct store *s = NULL;

	cr_assert_eq(store_open(&s, "git:"), BG_EINPUT);
	cr_assert_eq(store_open(&s, "git:a..b"), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "not a valid branch name"), "%s",
		  bg_error_last());
	cr_assert_eq(chdir("/"), 0);
	cr_assert_eq(store_open(&s, "git:results"), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "not in a git repository"), "%s",
		  bg_error_last());
	cr_assert_null(s);
}

#define WRITERS 3
#define WRITES	10

/* Three processes write ten results each, all named for the same second,
 * so that every write races for both the branch and a name. */
Test(store_git, concurrent_writers_lose_nothing)
{
	struct store_query q = { .load = true };
	struct store_entry *entries = NULL;
	struct store *s;
	pid_t pids[WRITERS];
	size_t nr = 0;

	fflush(NULL);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		cr_assert_neq(pids[w], -1);
		if (pids[w] == 0) {
			struct store *mine = NULL;
			int failed = 0;

			if (store_open(&mine, "git:results") < 0)
				_exit(2);
			for (int i = 0; i < WRITES; i++) {
				struct result *r = make_result(
					"mlp", COMMIT_A, MACHINE, STARTED);

				if (store_write(mine, r, NULL, NULL) < 0) {
					fprintf(stderr, "writer %d: %s\n", w,
						bg_error_last());
					failed = 1;
				}
				result_free(r);
			}
			store_free(mine);
			_exit(failed);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;

		cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "writer %d failed", w);
	}
	s = open_store();
	cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
	cr_assert_eq(nr, WRITERS * WRITES, "%zu results, expected %d", nr,
		     WRITERS * WRITES);
	for (size_t i = 0; i < nr; i++)
		cr_assert_eq(entries[i].seq, i, "names are '-0' to '-29'");
	cr_assert_eq(count_commits(BRANCH_REF), WRITERS * WRITES);
	store_entries_free(entries, nr);
	store_free(s);
}

#define RACE_ROUNDS 20
#define RACERS	    4

/* RACERS processes released at once, each writing one result to the
 * branch `spec`, which does not exist yet: they all race to create it. */
static void race_to_create(const char *spec)
{
	pid_t pids[RACERS];
	int gate[2];

	cr_assert_eq(pipe(gate), 0);
	fflush(NULL);
	for (int w = 0; w < RACERS; w++) {
		pids[w] = fork();
		cr_assert_neq(pids[w], -1);
		if (pids[w] == 0) {
			struct store *mine = NULL;
			struct result *r;
			char byte;
			int failed;

			close(gate[1]);
			/* Blocks until the parent closes its end. */
			if (read(gate[0], &byte, 1) < 0 ||
			    store_open(&mine, spec) < 0)
				_exit(2);
			r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
			failed = store_write(mine, r, NULL, NULL) < 0;
			result_free(r);
			store_free(mine);
			_exit(failed);
		}
	}
	close(gate[0]);
	close(gate[1]);
	for (int w = 0; w < RACERS; w++) {
		int status;

		cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "writer %d failed", w);
	}
}

/* libgit2 checks "the ref must not exist" of git_reference_create() before
 * taking the ref's lock: two first writers could both create the branch
 * and the second dropped the first one's result (seen as a rare loss in
 * concurrent_writers_lose_nothing). Here every round is a first write. */
Test(store_git, first_writers_racing_to_create_the_branch_lose_nothing)
{
	for (int round = 0; round < RACE_ROUNDS; round++) {
		struct store_query q = { .load = false };
		struct store_entry *entries = NULL;
		char spec[32];
		struct store *s = NULL;
		size_t nr = 0;

		snprintf(spec, sizeof(spec), "git:race%d", round);
		race_to_create(spec);
		cr_assert_eq(store_open(&s, spec), BG_OK);
		cr_assert_eq(store_list(s, &q, &entries, &nr), BG_OK);
		cr_assert_eq(nr, RACERS, "round %d: %zu results, expected %d",
			     round, nr, RACERS);
		store_entries_free(entries, nr);
		store_free(s);
	}
}

/* Fault injection: a failed write, and writers that died */

#define SCRATCH ".git/benchgate/results"

/* Nothing of any write is left in the scratch directory but its lock. */
static void assert_scratch_empty(void)
{
	struct strbuf left = STRBUF_INIT;

	test_list_tree(&left, SCRATCH);
	cr_assert_str_eq(left.buf, ".lock", "left in " SCRATCH ": %s",
			 left.buf);
	strbuf_release(&left);
}

/* No temporary object file of libgit2's in the repository's objects. */
static void assert_no_temporary_objects(void)
{
	struct strbuf all = STRBUF_INIT;

	test_list_tree(&all, ".git/objects");
	cr_assert_null(strstr(all.buf, "tmp_"), "%s", all.buf);
	strbuf_release(&all);
}

/*
 * A full disk, as the kernel reports it to one process: files may not
 * grow past `bytes` (RLIMIT_FSIZE; writes past it fail with EFBIG once
 * SIGXFSZ is ignored). Unlike a tmpfs, it needs no privileges.
 */
static void limit_file_size(rlim_t bytes, struct rlimit *saved)
{
	struct rlimit limit;

	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, saved), 0);
	limit = *saved;
	limit.rlim_cur = bytes;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
}

/* The full disk: the write failed, its scratch (860 KB there)
 * stayed, and the disk stayed full of it. Now nothing stays, and the
 * next write takes the name the failed one had claimed. */
Test(store_git, a_failed_write_leaves_no_scratch_and_the_next_one_succeeds)
{
	struct result *r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
	struct store_slot *slot = NULL;
	struct strbuf path = STRBUF_INIT;
	struct store *s = open_store();
	struct rlimit saved;
	char *file, *stored;
	git_oid tip;

	cr_assert_eq(store_reserve(s, r, &slot), BG_OK, "%s", bg_error_last());
	file = test_write_file(slot->log_dir, CASE_DIR ".log", "run 0: ok\n");
	free(file);
	free(write_artifact(r, slot));
	limit_file_size(1, &saved);
	cr_assert_lt(store_write(s, r, slot, &path), 0, "the write succeeded");
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	cr_assert(strstr(bg_error_last(), "File too large"), "%s",
		  bg_error_last());
	assert_scratch_empty();
	assert_no_temporary_objects();
	cr_assert_eq(git_reference_name_to_id(&tip, repo, BRANCH_REF),
		     GIT_ENOTFOUND, "a commit was made");
	store_slot_free(slot);
	result_free(r);

	stored = write_result(s, "mlp", COMMIT_A, MACHINE, STARTED);
	cr_assert_str_eq(stored,
			 "results:" DIR_A "/" MACHINE "/mlp-" STAMP ".json");
	assert_scratch_empty();
	free(stored);
	store_free(s);
	strbuf_release(&path);
}

/* The scratch of one claim: "<scratch>/<commit>/<machine>/<area>/<name>". */
static char *scratch_path(const char *commit, const char *area,
			  const char *name)
{
	struct strbuf path = STRBUF_INIT;

	strbuf_addf(&path, SCRATCH "/%s/" MACHINE "/%s/%s", commit, area, name);
	return strbuf_detach(&path, NULL);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Creates the directories above the file `path`; < 0 on failure. */
static int mkdir_parent(const char *path)
{
	char *dir = xstrdup(path);
	int error;

	*strrchr(dir, '/') = '\0';
	error = mkdir_p(dir);
	free(dir);
	return error;
}

/*
 * A writer that reserves a slot for `suite`, writes a log, an artifact
 * and a half-written object into its quarantine (as a kill in the middle
 * of git_blob_create_from_disk() leaves it), then tells the parent on
 * `ready` and either dies at once of SIGKILL or, alive, waits for `go` to
 * close and stores its result (exit 0 when that worked). A forked child:
 * no Criterion asserts there.
 */
static pid_t start_writer(const char *suite, bool die, const int ready[2],
			  const int go[2])
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct result *r =
			make_result(suite, COMMIT_A, MACHINE, STARTED);
		struct store_slot *slot = NULL;
		struct strbuf path = STRBUF_INIT;
		struct store *s = NULL;
		char byte = 0;

		/* else the parent's close of `go` would never reach us */
		close(ready[0]);
		close(go[1]);

		if (store_open(&s, "git:results") < 0 ||
		    store_reserve(s, r, &slot) < 0)
			_exit(2);
		strbuf_addf(&path, "%s/" CASE_DIR ".log", slot->log_dir);
		if (write_file_atomic(path.buf, "run 0\n", 6) < 0)
			_exit(3);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/artifacts/%s/" CASE_DIR "/perf.data",
			    slot->dir, slot->name);
		if (mkdir_parent(path.buf) < 0 ||
		    write_file_atomic(path.buf, "perf", 4) < 0)
			_exit(4);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/.objects/tmp_object_git2_a1b2c3",
			    slot->log_dir);
		if (mkdir_parent(path.buf) < 0 ||
		    write_file_atomic(path.buf, "x\234", 2) < 0)
			_exit(5);
		if (write(ready[1], &byte, 1) != 1)
			_exit(6);
		if (die)
			kill(getpid(), SIGKILL);
		if (read(go[0], &byte, 1) < 0)
			_exit(7);
		_exit(store_write(s, r, slot, NULL) < 0 ? 8 : 0);
	}
	return pid;
}

/*
 * The kill -9 mid-write left 183 MB of scratch for good. A writer
 * that died leaves a claim whose owner lock nobody holds: the next writer
 * removes it, its artifacts and quarantined objects, and takes the name.
 * A live writer's claim, and what it writes, is never touched; nor is a
 * claim of an older benchgate (no owner file) left behind.
 */
Test(store_git, a_dead_writers_scratch_is_reclaimed_and_a_live_ones_kept)
{
	char *dead_log = scratch_path(COMMIT_A, "logs", "mlp-" STAMP);
	char *dead_artifacts =
		scratch_path(COMMIT_A, "artifacts", "mlp-" STAMP);
	char *live_log = scratch_path(COMMIT_A, "logs", "other-" STAMP);
	char *old_log = scratch_path(COMMIT_B, "logs", "mlp-" STAMP);
	int ready[2], go[2], status;
	struct store *s = NULL;
	pid_t dead, live;
	char byte, *file, *stored;

	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(go), 0);
	/* the live one first: its first claim would reclaim the dead one's */
	live = start_writer("other", false, ready, go);
	cr_assert_eq(read(ready[0], &byte, 1), 1, "the live writer started");
	dead = start_writer("mlp", true, ready, go);
	cr_assert_eq(read(ready[0], &byte, 1), 1, "the dead writer started");
	cr_assert_eq(waitpid(dead, &status, 0), dead);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		  "the writer did not die as planned: status %d", status);
	/* an older benchgate's claim: no owner lock */
	file = test_write_file(old_log, CASE_DIR ".log", "run 0\n");
	free(file);
	cr_assert(exists(dead_log) && exists(dead_artifacts) &&
			  exists(live_log),
		  "the writers left no scratch to test with");

	s = open_store();
	stored = write_result(s, "mlp", COMMIT_A, MACHINE, STARTED);
	cr_assert_str_eq(stored,
			 "results:" DIR_A "/" MACHINE "/mlp-" STAMP ".json",
			 "the dead writer's name is free again");
	cr_assert_not(exists(dead_log), "%s is left", dead_log);
	cr_assert_not(exists(dead_artifacts), "%s is left", dead_artifacts);
	cr_assert_not(exists(SCRATCH "/" COMMIT_B), "the old claim is left");
	cr_assert(exists(live_log), "the live writer's claim was removed");

	close(go[1]);
	cr_assert_eq(waitpid(live, &status, 0), live);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the live writer failed: status %d", status);
	assert_scratch_empty();
	assert_no_temporary_objects();
	cr_assert_eq(count_commits(BRANCH_REF), 2);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	free(stored);
	store_free(s);
	free(dead_log);
	free(dead_artifacts);
	free(live_log);
	free(old_log);
}

/* The results listed in the store. */
static size_t count_results(struct store *s)
{
	struct store_entry *entries = NULL;
	size_t nr = 0;

	cr_assert_eq(store_list(s, NULL, &entries, &nr), BG_OK, "%s",
		     bg_error_last());
	store_entries_free(entries, nr);
	return nr;
}

Test(store_git, a_batch_stores_its_writes_as_one_commit)
{
	struct result *r = make_result("mlp", COMMIT_A, MACHINE, STARTED);
	struct result *bad = make_result("", COMMIT_B, MACHINE, STARTED);
	struct store_slot *slot = NULL;
	struct strbuf path = STRBUF_INIT;
	struct store *s = open_store();
	char *file, *stored[2];
	git_oid tip;

	store_batch_begin(s);
	/* a run's slot, its log carried along */
	cr_assert_eq(store_reserve(s, r, &slot), BG_OK, "%s", bg_error_last());
	file = test_write_file(slot->log_dir, CASE_DIR ".log", "run 0: ok\n");
	free(file);
	cr_assert_eq(store_write(s, r, slot, &path), BG_OK, "%s",
		     bg_error_last());
	cr_assert_str_eq(path.buf,
			 "results:" DIR_A "/" MACHINE "/mlp-" STAMP ".json");
	store_slot_free(slot);
	/* a failed write in the batch takes nothing else with it */
	cr_assert_eq(store_write(s, bad, NULL, NULL), BG_EINPUT);
	bg_error_clear();
	/* names held back are claimed: the next takes "-1" */
	stored[0] = write_result(s, "mlp", COMMIT_A, MACHINE, STARTED);
	cr_assert_str_eq(stored[0],
			 "results:" DIR_A "/" MACHINE "/mlp-" STAMP "-1.json");
	stored[1] = write_result(s, "mlp", COMMIT_B, MACHINE, STARTED);
	cr_assert_eq(git_reference_name_to_id(&tip, repo, BRANCH_REF),
		     GIT_ENOTFOUND, "a write of the batch was committed alone");
	cr_assert_eq(count_results(s), 0);

	cr_assert_eq(store_batch_end(s), BG_OK, "%s", bg_error_last());
	cr_assert_eq(count_commits(BRANCH_REF), 1);
	cr_assert_eq(count_results(s), 3);
	assert_blob(DIR_A "/" MACHINE "/logs/mlp-" STAMP "/" CASE_DIR ".log",
		    "run 0: ok\n");
	assert_scratch_empty();
	assert_no_temporary_objects();
	/* outside a batch, a write is a commit again */
	free(write_result(s, "cnn", COMMIT_A, MACHINE, STARTED));
	cr_assert_eq(count_commits(BRANCH_REF), 2);
	free(stored[0]);
	free(stored[1]);
	result_free(r);
	result_free(bad);
	strbuf_release(&path);
	store_free(s);
}

Test(store_git, a_batch_whose_commit_fails_stores_none_of_it_and_leaves_nothing)
{
	struct store *s = open_store();
	struct rlimit saved;
	char *stored;

	free(write_result(s, "mlp", COMMIT_A, MACHINE, STARTED));
	store_batch_begin(s);
	free(write_result(s, "mlp", COMMIT_A, MACHINE, STARTED));
	free(write_result(s, "mlp", COMMIT_B, MACHINE, STARTED));
	limit_file_size(1, &saved);
	cr_assert_lt(store_batch_end(s), 0, "the commit succeeded");
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	cr_assert(strstr(bg_error_last(), "File too large"), "%s",
		  bg_error_last());
	bg_error_clear();
	cr_assert_eq(count_commits(BRANCH_REF), 1);
	cr_assert_eq(count_results(s), 1);
	assert_scratch_empty();
	assert_no_temporary_objects();

	/* done again, they are stored, under the names they had */
	store_batch_begin(s);
	stored = write_result(s, "mlp", COMMIT_A, MACHINE, STARTED);
	cr_assert_str_eq(stored,
			 "results:" DIR_A "/" MACHINE "/mlp-" STAMP "-1.json");
	free(write_result(s, "mlp", COMMIT_B, MACHINE, STARTED));
	cr_assert_eq(store_batch_end(s), BG_OK, "%s", bg_error_last());
	cr_assert_eq(count_commits(BRANCH_REF), 2);
	cr_assert_eq(count_results(s), 3);
	assert_scratch_empty();
	free(stored);
	store_free(s);
}

Test(store_git, a_killed_batch_stores_nothing_and_its_scratch_is_reclaimed)
{
	struct strbuf left = STRBUF_INIT;
	struct store *s;
	int status;
	git_oid tip;
	pid_t pid = fork();

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		struct store *child = NULL;

		if (store_open(&child, "git:results") < 0)
			_exit(1);
		store_batch_begin(child);
		free(write_result(child, "mlp", COMMIT_A, MACHINE, STARTED));
		free(write_result(child, "mlp", COMMIT_B, MACHINE, STARTED));
		_exit(0); /* as killed: no end, nothing freed */
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(git_reference_name_to_id(&tip, repo, BRANCH_REF),
		     GIT_ENOTFOUND, "a held write was committed");
	test_list_tree(&left, SCRATCH);
	cr_assert(strstr(left.buf, ".batch-"), "%s", left.buf);
	strbuf_release(&left);

	s = open_store();
	free(write_result(s, "mlp", COMMIT_A, MACHINE, STARTED));
	assert_scratch_empty();
	cr_assert_eq(count_results(s), 1);
	store_free(s);
}
