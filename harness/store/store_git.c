/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The git backend of the store: results as commits on a branch of the
 * repository containing the current directory, written through libgit2
 * without touching the work tree or the index.
 *
 * The branch's tree has the directory store's layout:
 *
 *     <commit>/<machine>/<suite>-<timestamp>[-N].json
 *     <commit>/<machine>/logs/<suite>-<timestamp>[-N]/<case>.log
 *     <commit>/<machine>/artifacts/<suite>-<timestamp>[-N]/<case>/...
 *
 * Logs and artifacts (profiles, flame graphs, callgrind output) are stored
 * as blobs beside their result so that a result's `log` and artifact
 * paths resolve in the branch as they do in a directory; the runner caps
 * each log (RUNNER_LOG_CAP_DEFAULT), which bounds the growth of logs;
 * artifacts exist only for `run --profile` and callgrind benchmarks.
 *
 * While a run is in progress its logs and artifacts are plain files in a
 * scratch directory inside the repository's git directory,
 * "<commondir>/benchgate/<branch>/<commit>/<machine>/{logs,artifacts}/
 * <name>/". The logs/ directory is also the claim on <name>: it is
 * created, under an flock on "<commondir>/benchgate/<branch>/.lock", only
 * for a name that is neither in the branch nor claimed, and removed, under
 * the lock again, when the write ends. The branch is updated with a
 * compare-and-swap of its ref, so concurrent local writers (and `benchgate
 * sync`) never drop each other's commits: a writer that loses the race
 * re-reads the branch and commits again on top.
 *
 * Nothing of a write outlives it, whether it succeeds or fails (a full
 * disk): its objects go first into a quarantine inside the claim,
 * "<claim>/.objects" (as git's receive-pack does), and move into the
 * repository's objects just before the ref does; then the claim, its
 * artifacts and the quarantine are removed. A claim holds an flock on
 * "<claim>/.owner" for as long as its writer lives, so what a killed
 * writer leaves (a claim whose .owner can be locked, or has none) is
 * removed by the next writer under the scratch lock, and a live writer's
 * claim is never touched.
 */
#include "harness/store/store.h"
#include "harness/git/repo.h"
#include "harness/store/store_backend.h"
#include "harness/store/store_common.h"
#include "harness/store/sync.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/hash.h"
#include "harness/git/gitref.h"
#include "harness/git/gitinfo.h"

#include <assert.h>
#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Each lost race means another writer's commit landed, so this is only
 * reached by a ref that stays locked (a crashed git left a .lock file):
 * with the backoff below, about ten seconds. */
#define CAS_ATTEMPTS_MAX 400

/* A claim of this process: its directory, and the descriptor whose
 * flock on "<dir>/.owner" tells other writers it is alive. */
struct held_claim {
	char *dir;
	int fd;
	pid_t pid; /* a forked child's copy is not its to release */
};

struct git_store {
	git_repository *repo;
	char *branch;	       /* "benchgate-results" */
	char *ref;	       /* "refs/heads/benchgate-results" */
	char *scratch;	       /* "<commondir>/benchgate/<branch>" */
	char *objects;	       /* the repository's objects directory */
	unsigned random_state; /* for the retry jitter */
	bool reclaimed;	       /* dead writers' scratch removed */
	/* The tree of the tip last read through repo, kept between reads:
	 * a branch of thousands of commits' results has a root tree of as
	 * many entries, beyond libgit2's object cache, and `history` lists
	 * and loads once per commit (re-reading it each time was
	 * quadratic). Reads still look the tip up each time. */
	git_oid root_tip;
	git_tree *root;
	struct held_claim *held;
	size_t held_nr, held_alloc;
	/* git:URL#BRANCH: the results repository, and this local copy's
	 * path; NULL for a branch of the code's repository */
	char *url;
	char *copy;
	bool fetched; /* synced once since the store was opened */
	/* the last commit this store made, and the tip it was made on
	 * (zeros: none), so that a result the results repository did not
	 * take is taken back (git_write()) */
	git_oid written, written_on;
	struct git_batch *batch; /* the writes a batch holds back, or NULL */
};

/* What a write puts on the branch besides the result: its log and
 * artifact files, at "<commit>/<machine>/<area>/<name>/<path>". */
struct file_blob {
	const char *area; /* "logs" or "artifacts", static */
	char *path;	  /* below <area>/<name>: "<case>.log",
				 * "<case>/flamegraph.svg" */
	git_filemode_t mode;
	git_oid id;
};

struct file_blobs {
	struct file_blob *items;
	size_t nr, alloc;
};

static struct git_store *git_store_of(struct store *store)
{
	return store->backend_data;
}

/*
 * Jittered, growing sleeps between compare-and-swap attempts, so that
 * writers that collided do not collide again in lock step.
 */
static void backoff(struct git_store *gs, unsigned attempt)
{
	unsigned ceiling_ms = 1u << (attempt < 5 ? attempt : 5);
	long delay_us =
		(long)(rand_r(&gs->random_state) % (ceiling_ms * 1000u)) + 200;
	struct timespec pause = { delay_us / 1000000,
				  (delay_us % 1000000) * 1000 };

	while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
		;
}

/*
 * Before compare-and-swap attempt `attempt` (0 first): BG_OK to try,
 * after a backoff() from the second on; an error once the attempts are
 * spent, the branch having moved under every one of them.
 */
static int next_attempt(struct git_store *gs, unsigned attempt)
{
	if (attempt == CAS_ATTEMPTS_MAX)
		return bg_error("cannot update branch '%s': it kept changing "
				"or stayed locked (is there a stale '%s.lock'?)",
				gs->branch, gs->ref);
	if (attempt)
		backoff(gs, attempt);
	return BG_OK;
}

/* Locking the scratch directory */

static int lock_scratch(struct git_store *gs, int *fd_out)
{
	struct strbuf path = STRBUF_INIT;
	int error;

	*fd_out = -1;
	if ((error = mkdir_p(gs->scratch)) < 0)
		return error;
	strbuf_addf(&path, "%s/.lock", gs->scratch);
	error = lock_file(path.buf, fd_out);
	strbuf_release(&path);
	return error;
}

/* Reading the branch */

/*
 * The branch's tip into *tip and its tree into *tree (free it), read
 * through repo (gs->repo, or a write's: see open_writer()); *tree is NULL
 * when the branch does not exist yet.
 */
static int read_tip(struct git_store *gs, git_repository *repo, git_oid *tip,
		    git_tree **tree)
{
	git_commit *commit = NULL;
	int error;

	*tree = NULL;
	memset(tip, 0, sizeof(*tip));
	error = git_reference_name_to_id(tip, repo, gs->ref);
	if (error == GIT_ENOTFOUND)
		return BG_OK;
	if (error < 0)
		return bg_error("cannot read branch '%s': %s", gs->branch,
				gitref_message());
	if (repo == gs->repo && gs->root && git_oid_equal(tip, &gs->root_tip))
		return git_tree_dup(tree, gs->root) < 0
			       ? bg_error("cannot read the tip of branch '%s': "
					  "%s",
					  gs->branch, gitref_message())
			       : BG_OK;
	if (git_commit_lookup(&commit, repo, tip) < 0 ||
	    git_commit_tree(tree, commit) < 0)
		error = bg_error("cannot read the tip of branch '%s': %s",
				 gs->branch, gitref_message());
	git_commit_free(commit);
	if (error >= 0 && repo == gs->repo) {
		git_tree_free(gs->root);
		gs->root = NULL;
		if (git_tree_dup(&gs->root, *tree) == 0)
			git_oid_cpy(&gs->root_tip, tip);
	}
	return error < 0 ? error : BG_OK;
}

static bool tree_has_path(git_tree *tree, const char *path)
{
	git_tree_entry *entry = NULL;

	if (!tree || git_tree_entry_bypath(&entry, tree, path) < 0)
		return false;
	git_tree_entry_free(entry);
	return true;
}

/* The subtree `name` of tree, or NULL (BG_OK) when there is none. */
static int subtree(git_tree **out, git_repository *repo, git_tree *tree,
		   const char *name)
{
	const git_tree_entry *entry = git_tree_entry_byname(tree, name);

	*out = NULL;
	if (!entry || git_tree_entry_type(entry) != GIT_OBJECT_TREE)
		return BG_OK;
	if (git_tree_lookup(out, repo, git_tree_entry_id(entry)) < 0)
		return bg_error("cannot read tree '%s': %s", name,
				gitref_message());
	return BG_OK;
}

/* A results repository of its own: git:URL#BRANCH */

/*
 * Syncs the local copy's branch with the results repository (sync.h):
 * fetches what other runners pushed and pushes what only this copy has.
 * Nothing to do for a branch of the code's repository.
 */
static int sync_copy(struct store *store)
{
	struct git_store *gs = git_store_of(store);
	struct sync_options opts = { gs->url, gs->branch, -1, gs->copy };
	struct sync_report report;
	struct strbuf why = STRBUF_INIT;
	int error;

	if (!gs->url)
		return BG_OK;
	if ((error = sync_run(&opts, &report)) < 0) {
		strbuf_addstr(&why, bg_error_last());
		error = error == BG_EINPUT ? bg_input_error("store '%s': %s",
							    store->location,
							    why.buf)
					   : bg_error("store '%s': %s",
						      store->location, why.buf);
		strbuf_release(&why);
		return error;
	}
	gs->fetched = true;
	return BG_OK;
}

/* Before the first read: the results repository's results. */
static int fetch_once(struct store *store)
{
	struct git_store *gs = git_store_of(store);

	return gs->url && !gs->fetched ? sync_copy(store) : BG_OK;
}

/*
 * After a write that the results repository did not take: the local
 * copy's branch back where it was, when nothing came on top meanwhile,
 * so that the result, kept elsewhere by the caller (session_keep()), is
 * not pushed twice later. True when taken back.
 */
static bool take_back(struct git_store *gs)
{
	git_reference *ref = NULL;
	bool back = false;

	if (!git_oid_is_zero(&gs->written_on)) {
		back = gitref_move(gs->repo, gs->ref, &gs->written,
				   &gs->written_on,
				   "benchgate: not pushed, taken back") == 0;
	} else if (git_reference_lookup(&ref, gs->repo, gs->ref) == 0 &&
		   git_oid_equal(git_reference_target(ref), &gs->written)) {
		back = git_reference_delete(ref) == 0;
	}
	git_reference_free(ref);
	git_error_clear();
	return back;
}

/* Listing */

/* The results of the tree of "<rel>/<machine>" (rel: "<shard>/<commit>"
 * or the flat "<commit>"). */
static void list_machine(struct store *store, git_tree *tree, const char *rel,
			 const char *commit, const char *machine,
			 const char *suite, struct store_entry_list *list)
{
	struct git_store *gs = git_store_of(store);
	struct strbuf path = STRBUF_INIT;
	size_t i, before, count = git_tree_entrycount(tree);

	for (i = 0; i < count; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(tree, i);
		const char *file = git_tree_entry_name(te);

		if (file[0] == '.' ||
		    git_tree_entry_type(te) != GIT_OBJECT_BLOB)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s:%s/%s/%s", gs->branch, rel, machine,
			    file);
		before = list->nr;
		store_list_add(store, list, path.buf, file, commit, machine,
			       suite);
		if (list->nr > before)
			git_oid_tostr(list->items[before].content_id,
				      sizeof(list->items[before].content_id),
				      git_tree_entry_id(te));
	}
	strbuf_release(&path);
}

/* The results of the commit folder `rel` of the tree `root`; none when
 * there is no such folder. */
static int list_commit(struct store *store, git_tree *root, const char *rel,
		       const char *commit, const struct store_query *q,
		       const char *suite, struct store_entry_list *list)
{
	struct git_store *gs = git_store_of(store);
	git_tree *tree = NULL, *machine_tree = NULL;
	git_tree_entry *te = NULL;
	size_t i, count;
	int error = BG_OK;

	if (git_tree_entry_bypath(&te, root, rel) < 0) {
		git_error_clear();
		return BG_OK;
	}
	if (git_tree_entry_type(te) != GIT_OBJECT_TREE)
		goto done;
	if (git_tree_lookup(&tree, gs->repo, git_tree_entry_id(te)) < 0) {
		error = bg_error("cannot read tree '%s': %s", rel,
				 gitref_message());
		goto done;
	}
	if (q->machine) {
		if ((error = subtree(&machine_tree, gs->repo, tree,
				     q->machine)) < 0 ||
		    !machine_tree)
			goto done;
		list_machine(store, machine_tree, rel, commit, q->machine,
			     suite, list);
		goto done;
	}
	count = git_tree_entrycount(tree);
	for (i = 0; i < count && !error; i++) {
		const char *machine =
			git_tree_entry_name(git_tree_entry_byindex(tree, i));

		if (!result_machine_id_valid(machine))
			continue;
		git_tree_free(machine_tree);
		machine_tree = NULL;
		if ((error = subtree(&machine_tree, gs->repo, tree, machine)) <
			    0 ||
		    !machine_tree)
			continue;
		list_machine(store, machine_tree, rel, commit, machine, suite,
			     list);
	}
done:
	git_tree_free(machine_tree);
	git_tree_free(tree);
	git_tree_entry_free(te);
	return error;
}

/* The commit folders of the shard `shard` of root that start with
 * prefix. */
static int list_shard(struct store *store, git_tree *root, const char *shard,
		      const char *prefix, const struct store_query *q,
		      const char *suite, struct store_entry_list *list)
{
	struct git_store *gs = git_store_of(store);
	struct strbuf rel = STRBUF_INIT;
	git_tree *tree = NULL;
	size_t i, count;
	int error;

	if ((error = subtree(&tree, gs->repo, root, shard)) < 0 || !tree)
		goto done;
	count = git_tree_entrycount(tree);
	for (i = 0; i < count && !error; i++) {
		const char *commit =
			git_tree_entry_name(git_tree_entry_byindex(tree, i));

		/* as in the directory store: only where readers of the id
		 * look */
		if (!store_commit_name_valid(commit) ||
		    !store_commit_has_flat_dir(commit) ||
		    strncmp(commit, shard, STORE_SHARD_LEN) ||
		    strncmp(commit, prefix, strlen(prefix)))
			continue;
		strbuf_reset(&rel);
		strbuf_addf(&rel, "%s/%s", shard, commit);
		error = list_commit(store, root, rel.buf, commit, q, suite,
				    list);
	}
done:
	git_tree_free(tree);
	strbuf_release(&rel);
	return error;
}

static int git_list(struct store *store, const struct store_query *q,
		    struct store_entry **entries, size_t *nr)
{
	struct git_store *gs = git_store_of(store);
	struct store_entry_list list = { 0 };
	struct strbuf suite = STRBUF_INIT, prefix = STRBUF_INIT;
	struct strbuf rel = STRBUF_INIT;
	git_tree *root = NULL;
	const char *suite_name = NULL;
	size_t i, count;
	git_oid tip;
	int error;

	if (q->commits)
		return store_list_each_commit(store, q, git_list, entries, nr);

	if (q->suite) {
		if ((error = store_suite_filename(q->suite, &suite)) < 0)
			goto done;
		suite_name = suite.buf;
	}
	if (q->commit && (error = store_commit_prefix(q->commit, &prefix)) < 0)
		goto done;
	if ((error = fetch_once(store)) < 0 ||
	    (error = read_tip(gs, gs->repo, &tip, &root)) < 0 || !root)
		goto done;
	if (q->commit && store_commit_name_valid(prefix.buf)) {
		/* its shard's folder, then the flat one of older stores */
		store_commit_dir(prefix.buf, &rel);
		error = list_commit(store, root, rel.buf, prefix.buf, q,
				    suite_name, &list);
		if (!error && store_commit_has_flat_dir(prefix.buf))
			error = list_commit(store, root, prefix.buf,
					    prefix.buf, q, suite_name, &list);
		goto done;
	}
	/* No full id: the one place where the whole tree's top is read:
	 * shards, "unknown" and the flat folders of older stores. */
	count = git_tree_entrycount(root);
	for (i = 0; i < count && !error; i++) {
		const char *name =
			git_tree_entry_name(git_tree_entry_byindex(root, i));

		if (store_shard_name_valid(name)) {
			if (!strncmp(name, prefix.buf,
				     prefix.len < STORE_SHARD_LEN
					     ? prefix.len
					     : STORE_SHARD_LEN))
				error = list_shard(store, root, name,
						   prefix.buf, q, suite_name,
						   &list);
			continue;
		}
		if (!store_commit_name_valid(name) ||
		    strncmp(name, prefix.buf, prefix.len))
			continue;
		error = list_commit(store, root, name, name, q, suite_name,
				    &list);
	}
done:
	git_tree_free(root);
	strbuf_release(&suite);
	strbuf_release(&prefix);
	strbuf_release(&rel);
	return store_list_finish(&list, error, entries, nr);
}

/* Loading */

static int git_load(struct store *store, const struct store_entry *entry,
		    struct result **out)
{
	struct git_store *gs = git_store_of(store);
	size_t branch_len = strlen(gs->branch);
	git_tree_entry *te = NULL;
	git_tree *root = NULL;
	git_blob *blob = NULL;
	struct result *r = NULL;
	const char *path;
	git_oid tip;
	int error;

	*out = NULL;
	/* Entries come from git_list(), which names them "<branch>:<path>". */
	assert(!strncmp(entry->path, gs->branch, branch_len) &&
	       entry->path[branch_len] == ':');
	path = entry->path + branch_len + 1;
	if ((error = read_tip(gs, gs->repo, &tip, &root)) < 0)
		goto done;
	if (!root || git_tree_entry_bypath(&te, root, path) < 0 ||
	    git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		error = bg_notfound("'%s': no such result on branch '%s'",
				    entry->path, gs->branch);
		goto done;
	}
	if (git_blob_lookup(&blob, gs->repo, git_tree_entry_id(te)) < 0) {
		error = bg_error("'%s': cannot read: %s", entry->path,
				 gitref_message());
		goto done;
	}
	if ((error = result_parse(&r, git_blob_rawcontent(blob),
				  (size_t)git_blob_rawsize(blob),
				  entry->path)) < 0)
		goto done;
	if ((error = store_check_placement(entry, r)) < 0)
		goto done;
	*out = r;
	r = NULL;
done:
	if (error < 0 && error != BG_ENOTFOUND)
		store_warn_once(store, entry->path, "%s; skipped",
				bg_error_last());
	result_free(r);
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(root);
	return error;
}

/* Reading a result's files */

/* "<shard>/<commit>/<machine>/<file>.json" (or the flat
 * "<commit>/...") of an entry git_list() made. */
static const char *entry_tree_path(struct git_store *gs,
				   const struct store_entry *entry)
{
	size_t branch_len = strlen(gs->branch);

	assert(!strncmp(entry->path, gs->branch, branch_len) &&
	       entry->path[branch_len] == ':');
	return entry->path + branch_len + 1;
}

/* Appends the directory of the entry's result in the tree,
 * "<shard>/<commit>/<machine>" or "<commit>/<machine>": what its
 * relative paths are relative to. */
static void entry_tree_dir(struct git_store *gs,
			   const struct store_entry *entry, struct strbuf *out)
{
	const char *path = entry_tree_path(gs, entry);
	const char *slash = strrchr(path, '/');

	assert(slash);
	strbuf_add(out, path, (size_t)(slash - path));
}

static int git_read_file(struct store *store, const struct store_entry *entry,
			 const char *rel, struct strbuf *out)
{
	struct git_store *gs = git_store_of(store);
	struct strbuf path = STRBUF_INIT;
	git_tree_entry *te = NULL;
	git_tree *root = NULL;
	git_blob *blob = NULL;
	git_oid tip;
	int error;

	if (rel) {
		entry_tree_dir(gs, entry, &path);
		strbuf_addf(&path, "/%s", rel);
	} else
		strbuf_addstr(&path, entry_tree_path(gs, entry));
	if ((error = read_tip(gs, gs->repo, &tip, &root)) < 0)
		goto done;
	if (!root || git_tree_entry_bypath(&te, root, path.buf) < 0 ||
	    git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		error = bg_notfound("'%s:%s': no such file", gs->branch,
				    path.buf);
		goto done;
	}
	if (git_tree_entry_filemode(te) == GIT_FILEMODE_LINK) {
		error = bg_error("'%s:%s' is a symbolic link: benchgate reads "
				 "only the files it wrote",
				 gs->branch, path.buf);
		goto done;
	}
	if (git_blob_lookup(&blob, gs->repo, git_tree_entry_id(te)) < 0) {
		error = bg_error("'%s:%s': cannot read: %s", gs->branch,
				 path.buf, gitref_message());
		goto done;
	}
	if ((size_t)git_blob_rawsize(blob) > RESULT_MAX_BYTES) {
		error = bg_error("'%s:%s' is larger than %zu bytes", gs->branch,
				 path.buf, RESULT_MAX_BYTES);
		goto done;
	}
	strbuf_add(out, git_blob_rawcontent(blob),
		   (size_t)git_blob_rawsize(blob));
done:
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(root);
	strbuf_release(&path);
	return error;
}

struct files_walk {
	const char *prefix; /* "logs/<name>" */
	struct store_paths *out;
};

/* git_tree_walk() callback: the regular files, hidden ones and hidden
 * directories left out. */
static int collect_file(const char *root, const git_tree_entry *te,
			void *data)
{
	struct files_walk *walk = data;
	const char *name = git_tree_entry_name(te);
	git_filemode_t mode = git_tree_entry_filemode(te);
	struct strbuf path = STRBUF_INIT;

	if (name[0] == '.')
		return 1; /* for a tree: do not walk into it */
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;
	strbuf_addf(&path, "%s/%s%s", walk->prefix, root, name);
	ALLOC_GROW(walk->out->items, walk->out->nr + 1, walk->out->alloc);
	walk->out->items[walk->out->nr++] = strbuf_detach(&path, NULL);
	return 0;
}

static int git_entry_files(struct store *store, const struct store_entry *entry,
			   struct store_paths *out)
{
	static const char *const areas[] = { "logs", "artifacts" };
	struct git_store *gs = git_store_of(store);
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf prefix = STRBUF_INIT;
	git_tree *root = NULL;
	git_oid tip;
	int error;

	store_entry_name(entry, &name);
	if ((error = read_tip(gs, gs->repo, &tip, &root)) < 0 || !root)
		goto done;
	for (size_t i = 0; i < 2 && !error; i++) {
		struct files_walk walk = { NULL, out };
		git_tree_entry *te = NULL;
		git_tree *tree = NULL;

		strbuf_reset(&prefix);
		strbuf_addf(&prefix, "%s/%s", areas[i], name.buf);
		strbuf_reset(&path);
		entry_tree_dir(gs, entry, &path);
		strbuf_addf(&path, "/%s", prefix.buf);
		walk.prefix = prefix.buf;
		if (git_tree_entry_bypath(&te, root, path.buf) < 0 ||
		    git_tree_entry_type(te) != GIT_OBJECT_TREE) {
			git_tree_entry_free(te);
			continue;
		}
		if (git_tree_lookup(&tree, gs->repo, git_tree_entry_id(te)) <
			    0 ||
		    git_tree_walk(tree, GIT_TREEWALK_PRE, collect_file, &walk) <
			    0)
			error = bg_error("cannot read tree '%s:%s': %s",
					 gs->branch, path.buf, gitref_message());
		git_tree_free(tree);
		git_tree_entry_free(te);
	}
done:
	git_tree_free(root);
	strbuf_release(&name);
	strbuf_release(&path);
	strbuf_release(&prefix);
	return error;
}

/* Removing scratch */

/* nftw() callback of remove_contents(): children before their directory
 * (FTW_DEPTH), the root itself left alone. */
static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	if (ftw->level > 0)
		(void)(type == FTW_DP ? rmdir(path) : unlink(path));
	return 0;
}

/*
 * Removes everything below dir, not dir itself: scratch files whose
 * content is already on the branch, or never will be. Best effort; what
 * cannot be removed stays (symbolic links are removed, never followed:
 * FTW_PHYS).
 */
static void remove_contents(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* "<machine dir>" and "<name>" of a claim "<machine dir>/logs/<name>". */
static const char *claim_parts(const char *claim, struct strbuf *machine_dir)
{
	const char *name = strrchr(claim, '/');
	size_t logs_len;

	assert(name);
	logs_len = (size_t)(name - claim);
	assert(logs_len > 5 && !strncmp(name - 5, "/logs", 5));
	strbuf_add(machine_dir, claim, logs_len - 5);
	return name + 1;
}

/*
 * Under the scratch lock: removes "<machine dir>/logs" once no claim is
 * left in it, then "<machine dir>/artifacts" and the directories left
 * empty up to the scratch root. Only a claim's writer puts artifacts
 * there, and new claims wait for the lock, so with no claim left nothing
 * is writing below the machine's directory.
 */
static void prune_machine_dir(const char *machine_dir)
{
	struct strbuf path = STRBUF_INIT;
	const char *slash = strrchr(machine_dir, '/');

	strbuf_addf(&path, "%s/logs", machine_dir);
	if (rmdir(path.buf) < 0 && errno != ENOENT)
		goto done;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/artifacts", machine_dir);
	remove_tree(path.buf);
	rmdir(machine_dir);
	/* the commit's directory, when this was its last machine */
	strbuf_reset(&path);
	strbuf_add(&path, machine_dir, (size_t)(slash - machine_dir));
	rmdir(path.buf);
done:
	strbuf_release(&path);
}

/* Claims of dead writers */

/*
 * Whether a claim directory belongs to no living writer: its ".owner" can
 * be locked (the kernel dropped the lock of a process that died), or it
 * has none (a claim half released, or made by a benchgate that predates
 * owners). Called under the scratch lock, under which claims are made
 * with their owner and released.
 */
static bool claim_abandoned(const char *claim)
{
	struct strbuf owner = STRBUF_INIT;
	bool abandoned;
	int fd;

	strbuf_addf(&owner, "%s/.owner", claim);
	fd = open(owner.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		abandoned = errno == ENOENT;
	} else {
		abandoned = flock(fd, LOCK_EX | LOCK_NB) == 0;
		close(fd);
	}
	strbuf_release(&owner);
	return abandoned;
}

/* Under the scratch lock: removes the abandoned claims of one
 * "<commit>/<machine>" scratch directory, their artifacts with them. */
static void reclaim_machine_dir(const char *machine_dir)
{
	struct strbuf logs = STRBUF_INIT, path = STRBUF_INIT;
	struct dirent *de;
	DIR *d;

	strbuf_addf(&logs, "%s/logs", machine_dir);
	if ((d = opendir(logs.buf))) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s", logs.buf, de->d_name);
			if (!claim_abandoned(path.buf))
				continue;
			remove_tree(path.buf);
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/artifacts/%s", machine_dir,
				    de->d_name);
			remove_tree(path.buf);
		}
		closedir(d);
	}
	prune_machine_dir(machine_dir);
	strbuf_release(&logs);
	strbuf_release(&path);
}

/* The labels of make_work_dir()'s directories, which
 * reclaim_abandoned() looks for. */
static const char *const work_labels[] = { "batch", "migrate", "rewrite" };

/* Whether `name` is one of make_work_dir()'s: ".<label>-XXXXXX". */
static bool work_dir_name(const char *name)
{
	for (size_t i = 0; i < sizeof(work_labels) / sizeof(*work_labels);
	     i++) {
		size_t len = strlen(work_labels[i]);

		if (name[0] == '.' && !strncmp(name + 1, work_labels[i], len) &&
		    name[len + 1] == '-' && strlen(name + len + 2) == 6)
			return true;
	}
	return false;
}

/*
 * Removes what writers that died (kill -9, a crash, a full disk under an
 * older benchgate) left in the scratch directory: their claims, logs,
 * artifacts and quarantined objects, and the work directories of their
 * batches and rewrites. Under the scratch lock; best effort.
 * Only directories named like commits and machines are looked at, so the
 * scratch of a branch "<branch>/x" below this one is left alone.
 */
static void reclaim_abandoned(struct git_store *gs)
{
	struct strbuf commit_dir = STRBUF_INIT, machine_dir = STRBUF_INIT;
	struct dirent *de, *me;
	DIR *top, *machines;

	if (!(top = opendir(gs->scratch)))
		return;
	while ((de = readdir(top))) {
		if (work_dir_name(de->d_name)) {
			strbuf_reset(&commit_dir);
			strbuf_addf(&commit_dir, "%s/%s", gs->scratch,
				    de->d_name);
			if (claim_abandoned(commit_dir.buf))
				remove_tree(commit_dir.buf);
			continue;
		}
		if (!store_commit_name_valid(de->d_name))
			continue;
		strbuf_reset(&commit_dir);
		strbuf_addf(&commit_dir, "%s/%s", gs->scratch, de->d_name);
		if (!(machines = opendir(commit_dir.buf)))
			continue;
		while ((me = readdir(machines))) {
			if (me->d_name[0] == '.' ||
			    !result_machine_id_valid(me->d_name))
				continue;
			strbuf_reset(&machine_dir);
			strbuf_addf(&machine_dir, "%s/%s", commit_dir.buf,
				    me->d_name);
			reclaim_machine_dir(machine_dir.buf);
		}
		closedir(machines);
		rmdir(commit_dir.buf);
	}
	closedir(top);
	strbuf_release(&commit_dir);
	strbuf_release(&machine_dir);
}

/* Claiming names */

/* Where a result's name may be taken on the branch: the tree's
 * "<shard>/<commit>/<machine>" it goes into, and the flat
 * "<commit>/<machine>" of older stores (the same for "unknown"). */
struct branch_names {
	git_tree *root;	     /* the branch's tree; NULL: no branch yet */
	const char *rel_dir; /* "<shard>/<commit>/<machine>" */
	const char *flat_dir; /* "<commit>/<machine>" */
};

static bool on_branch(const char *name, void *data)
{
	const struct branch_names *branch = data;
	struct strbuf path = STRBUF_INIT;
	bool found;

	strbuf_addf(&path, "%s/%s.json", branch->rel_dir, name);
	found = tree_has_path(branch->root, path.buf);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s.json", branch->flat_dir, name);
	found = found || tree_has_path(branch->root, path.buf);
	strbuf_release(&path);
	return found;
}

/*
 * Marks a new claim as this process's: an flock on "<claim>/.owner",
 * held (close-on-exec, so no benchmark inherits it) until the claim is
 * released. Taken under the scratch lock, so that no other writer ever
 * sees the claim without it.
 */
static int hold_claim(struct git_store *gs, const char *claim)
{
	struct strbuf owner = STRBUF_INIT;
	struct held_claim *held;
	int fd, error = BG_OK;

	strbuf_addf(&owner, "%s/.owner", claim);
	fd = open(owner.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		error = bg_error("cannot lock '%s': %s", owner.buf,
				 strerror(errno));
		if (fd >= 0)
			close(fd);
		goto done;
	}
	ALLOC_GROW(gs->held, gs->held_nr + 1, gs->held_alloc);
	held = &gs->held[gs->held_nr++];
	held->dir = xstrdup(claim);
	held->fd = fd;
	held->pid = getpid();
done:
	strbuf_release(&owner);
	return error;
}

/* Closes the owner lock of a claim of this process. */
static void drop_claim(struct git_store *gs, const char *claim)
{
	for (size_t i = 0; i < gs->held_nr; i++) {
		if (strcmp(gs->held[i].dir, claim))
			continue;
		close(gs->held[i].fd);
		free(gs->held[i].dir);
		gs->held[i] = gs->held[--gs->held_nr];
		return;
	}
}

/* Where a result goes (result_place_of()). */
struct result_place {
	struct strbuf scratch_dir; /* "<scratch>/<commit>/<machine>" */
	struct strbuf rel_dir;	   /* "<shard>/<commit>/<machine>" */
	struct strbuf flat_dir;	   /* "<commit>/<machine>" */
	struct strbuf stem;	   /* of the result's file name */
};

#define RESULT_PLACE_INIT                                        \
	{                                                        \
		STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT \
	}

static void result_place_release(struct result_place *place)
{
	strbuf_release(&place->scratch_dir);
	strbuf_release(&place->rel_dir);
	strbuf_release(&place->flat_dir);
	strbuf_release(&place->stem);
}

/*
 * The place of r: its folder on the branch, in its commit's shard
 * (store_commit_dir()), the flat folder of older stores whose names are
 * taken too, and its scratch directory, which stays flat (it only holds
 * runs in progress).
 */
static int result_place_of(struct git_store *gs, const struct result *r,
			   struct result_place *place)
{
	int error = store_result_stem(r, &place->stem);

	if (error < 0)
		return error;
	store_commit_dir(r->git.commit, &place->rel_dir);
	strbuf_addf(&place->rel_dir, "/%s", r->machine.id);
	strbuf_addf(&place->flat_dir, "%s/%s", r->git.commit, r->machine.id);
	strbuf_addf(&place->scratch_dir, "%s/%s", gs->scratch,
		    place->flat_dir.buf);
	return BG_OK;
}

/*
 * Claims the first name "<stem>[-N]" (from the first_attempt-th
 * candidate) that is neither on the branch nor claimed by another writer:
 * creates "<scratch_dir>/logs/<name>" with its owner lock and leaves the
 * name in `name`. The first claim of a store removes what dead writers
 * left (reclaim_abandoned()).
 */
static int claim_name(struct git_store *gs, const struct result_place *place,
		      unsigned first_attempt, struct strbuf *name)
{
	struct strbuf logs = STRBUF_INIT, where = STRBUF_INIT;
	struct strbuf claim = STRBUF_INIT;
	struct branch_names branch = { NULL, place->rel_dir.buf,
				       place->flat_dir.buf };
	const char *scratch_dir = place->scratch_dir.buf;
	const char *stem = place->stem.buf;
	git_oid tip;
	int lock = -1, error;

	strbuf_addf(&logs, "%s/logs", scratch_dir);
	strbuf_addf(&where, "on branch '%s'", gs->branch);
	if ((error = lock_scratch(gs, &lock)) < 0)
		goto done;
	if (!gs->reclaimed) {
		reclaim_abandoned(gs);
		gs->reclaimed = true;
	}
	/* logs/ under the lock too: prune_machine_dir() removes it when
	 * empty */
	if ((error = mkdir_p(logs.buf)) < 0 ||
	    (error = read_tip(gs, gs->repo, &tip, &branch.root)) < 0 ||
	    (error = store_claim_name(stem, first_attempt, logs.buf, on_branch,
				      &branch, where.buf, name)) < 0)
		goto done;
	strbuf_addf(&claim, "%s/%s", logs.buf, name->buf);
	if ((error = hold_claim(gs, claim.buf)) < 0)
		remove_tree(claim.buf);
done:
	if (error < 0 && lock >= 0)
		prune_machine_dir(scratch_dir);
	unlock_file(lock);
	git_tree_free(branch.root);
	strbuf_release(&logs);
	strbuf_release(&where);
	strbuf_release(&claim);
	return error;
}

/*
 * Ends a claim of this process, written or not: removes its artifacts,
 * then the claim with its logs and quarantined objects, then the
 * directories left empty.
 */
static void release_claim(struct git_store *gs, const char *claim)
{
	struct strbuf machine_dir = STRBUF_INIT, artifacts = STRBUF_INIT;
	const char *name = claim_parts(claim, &machine_dir);
	int lock = -1;

	/* Artifacts first: once the claim is gone, nothing may be left
	 * that another writer could mistake for its own. */
	strbuf_addf(&artifacts, "%s/artifacts/%s", machine_dir.buf, name);
	remove_tree(artifacts.buf);
	remove_contents(claim);
	/* Under the lock: a writer choosing a name must see either the
	 * claim or the result on the branch, never neither. */
	if (lock_scratch(gs, &lock) == BG_OK) {
		rmdir(claim);
		prune_machine_dir(machine_dir.buf);
	} else {
		bg_error_clear();
	}
	unlock_file(lock);
	drop_claim(gs, claim);
	strbuf_release(&machine_dir);
	strbuf_release(&artifacts);
}

static int git_reserve(struct store *store, const struct result *r,
		       struct store_slot **out)
{
	struct git_store *gs = git_store_of(store);
	struct result_place place = RESULT_PLACE_INIT;
	struct strbuf name = STRBUF_INIT;
	int error;

	*out = NULL;
	if ((error = result_place_of(gs, r, &place)) < 0 ||
	    (error = claim_name(gs, &place, 0, &name)) < 0)
		goto done;
	*out = store_slot_new(place.scratch_dir.buf, name.buf);
done:
	result_place_release(&place);
	strbuf_release(&name);
	return error;
}

/* The quarantine */

/*
 * A repository handle for one write, at the store's repository, whose
 * object database writes into `quarantine` (created here) and reads from
 * there and then from the repository's objects (as an alternate, which
 * libgit2 never writes to). An object the repository already has is not
 * written again.
 */
static int open_writer(struct git_store *gs, const char *quarantine,
		       git_repository **out)
{
	git_repository *repo = NULL;
	git_odb_backend *loose = NULL;
	git_odb *odb = NULL;
	int error = BG_OK;

	*out = NULL;
	if (mkdir(quarantine, 0777) < 0 && errno != EEXIST)
		return bg_error("cannot create directory '%s': %s", quarantine,
				strerror(errno));
	if (repo_open_at(&repo, git_repository_path(gs->repo)) < 0 ||
	    git_odb_new(&odb) < 0 ||
	    git_odb_backend_loose(&loose, quarantine, -1, 0, 0, 0) < 0) {
		error = bg_error("cannot open the repository for writing: %s",
				 gitref_message());
		goto done;
	}
	if (git_odb_add_backend(odb, loose, 1) < 0) {
		loose->free(loose);
		error = bg_error("cannot open the repository for writing: %s",
				 gitref_message());
		goto done;
	}
	if (git_odb_add_disk_alternate(odb, gs->objects) < 0 ||
	    git_repository_set_odb(repo, odb) < 0) {
		error = bg_error("cannot open the repository for writing: %s",
				 gitref_message());
		goto done;
	}
	*out = repo;
	repo = NULL;
done:
	git_odb_free(odb);
	git_repository_free(repo);
	return error;
}

/*
 * A directory of its own in the scratch for one rewrite of the branch or
 * one batch, "<scratch>/.<label>-XXXXXX" (label from work_labels), into
 * dir, and the quarantine for its objects inside it into quarantine.
 * Made under the scratch lock with its owner lock held, as a claim is,
 * so that what a killed writer left is reclaimed by the next writer
 * (reclaim_abandoned()). dir is left empty when it could not be made, so
 * that nothing is removed for it; remove_work_dir() removes it.
 */
static int make_work_dir(struct git_store *gs, const char *label,
			 struct strbuf *dir, struct strbuf *quarantine)
{
	int lock = -1, error;

	if ((error = lock_scratch(gs, &lock)) < 0)
		return error;
	strbuf_addf(dir, "%s/.%s-XXXXXX", gs->scratch, label);
	assert(work_dir_name(strrchr(dir->buf, '/') + 1));
	if (!mkdtemp(dir->buf)) {
		error = bg_error("cannot create a directory in '%s': %s",
				 gs->scratch, strerror(errno));
		strbuf_reset(dir);
	} else if ((error = hold_claim(gs, dir->buf)) < 0) {
		remove_tree(dir->buf);
		strbuf_reset(dir);
	} else {
		strbuf_addf(quarantine, "%s/objects", dir->buf);
	}
	unlock_file(lock);
	return error;
}

/* Removes a directory of make_work_dir() (none when dir is empty) and
 * drops its owner lock. */
static void remove_work_dir(struct git_store *gs, const struct strbuf *dir)
{
	if (!dir->len)
		return;
	remove_tree(dir->buf);
	drop_claim(gs, dir->buf);
}

/* Moves the finished objects of one "<quarantine>/xx" directory into
 * "<objects>/xx"; libgit2's temporary files stay behind. */
static int publish_fanout(const char *quarantine, const char *objects,
			  const char *fanout)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	struct dirent *de;
	DIR *d;
	int error = BG_OK;

	strbuf_addf(&from, "%s/%s", quarantine, fanout);
	strbuf_addf(&to, "%s/%s", objects, fanout);
	if (!(d = opendir(from.buf))) {
		error = bg_error("cannot read directory '%s': %s", from.buf,
				 strerror(errno));
		goto done;
	}
	if (mkdir(to.buf, 0777) < 0 && errno != EEXIST) {
		error = bg_error("cannot create directory '%s': %s", to.buf,
				 strerror(errno));
		goto done;
	}
	while (!error && (de = readdir(d))) {
		if (strspn(de->d_name, "0123456789abcdef") < 38)
			continue;
		strbuf_setlen(&from, strlen(quarantine) + 3);
		strbuf_addf(&from, "/%s", de->d_name);
		strbuf_setlen(&to, strlen(objects) + 3);
		strbuf_addf(&to, "/%s", de->d_name);
		/* Replacing an object someone else stored meanwhile is
		 * harmless: the name is its content. */
		if (rename(from.buf, to.buf) < 0)
			error = bg_error("cannot move object '%s' to '%s': %s",
					 from.buf, to.buf, strerror(errno));
	}
done:
	if (d)
		closedir(d);
	strbuf_release(&from);
	strbuf_release(&to);
	return error;
}

/* Moves every object of the quarantine into the repository's objects:
 * before the ref names them, never after. */
static int publish_objects(struct git_store *gs, const char *quarantine)
{
	struct dirent *de;
	DIR *d = opendir(quarantine);
	int error = BG_OK;

	if (!d)
		return bg_error("cannot read directory '%s': %s", quarantine,
				strerror(errno));
	while (!error && (de = readdir(d)))
		if (strlen(de->d_name) == 2 &&
		    strspn(de->d_name, "0123456789abcdef") == 2)
			error = publish_fanout(quarantine, gs->objects,
					       de->d_name);
	closedir(d);
	return error;
}

/* Writing */

static void file_blobs_release(struct file_blobs *files)
{
	for (size_t i = 0; i < files->nr; i++)
		free(files->items[i].path);
	free(files->items);
	memset(files, 0, sizeof(*files));
}

/*
 * Stores every regular file below "<top>/<sub>" (sub "" for top itself),
 * recursively, as a blob of `area` named by its path relative to top.
 * Hidden files (a writer's temporary files, the claim's owner and
 * quarantine) and anything that is neither a file nor a directory are
 * left out; a missing top has no files.
 */
static int read_files(git_repository *repo, const char *top, const char *sub,
		      const char *area, struct file_blobs *files)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf rel = STRBUF_INIT;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int error = BG_OK;

	strbuf_addstr(&dir, top);
	if (*sub)
		strbuf_addf(&dir, "/%s", sub);
	if (!(d = opendir(dir.buf))) {
		if (errno != ENOENT || *sub)
			error = bg_error("cannot read directory '%s': %s",
					 dir.buf, strerror(errno));
		goto done;
	}
	while (!error && (de = readdir(d))) {
		struct file_blob *file;

		if (de->d_name[0] == '.')
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir.buf, de->d_name);
		strbuf_reset(&rel);
		if (*sub)
			strbuf_addf(&rel, "%s/", sub);
		strbuf_addstr(&rel, de->d_name);
		if (lstat(path.buf, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			error = read_files(repo, top, rel.buf, area, files);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		ALLOC_GROW(files->items, files->nr + 1, files->alloc);
		file = &files->items[files->nr];
		if (git_blob_create_from_disk(&file->id, repo, path.buf) < 0) {
			error = bg_error("cannot store '%s': %s", path.buf,
					 gitref_message());
			break;
		}
		file->area = area;
		file->path = strbuf_detach(&rel, NULL);
		file->mode = st.st_mode & 0111 ? GIT_FILEMODE_BLOB_EXECUTABLE
					       : GIT_FILEMODE_BLOB;
		files->nr++;
	}
	closedir(d);
done:
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&rel);
	return error;
}

/*
 * The result's document `json` as a blob, as it is; or, when the result
 * takes another name than old_name (see pending_updates()), with its
 * cases' logs and artifacts moved along: "logs/<old>/" becomes
 * "logs/<name>/" and "artifacts/<old>/" "artifacts/<name>/", and the
 * result serialised anew.
 */
static int result_blob(git_repository *repo, const struct strbuf *json,
		       const char *old_name, const char *name, git_oid *out)
{
	struct strbuf moved = STRBUF_INIT;
	struct result *copy = NULL;
	const struct strbuf *bytes = json;
	int error = BG_OK;

	if (old_name && strcmp(old_name, name)) {
		if ((error = result_parse(&copy, json->buf, json->len,
					  name)) < 0)
			goto done;
		store_rename_result(copy, old_name, name);
		result_to_json(copy, &moved);
		bytes = &moved;
	}
	if (git_blob_create_from_buffer(out, repo, bytes->buf, bytes->len) < 0)
		error = bg_error("cannot store result '%s': %s", name,
				 gitref_message());
done:
	result_free(copy);
	strbuf_release(&moved);
	return error;
}

/* An empty tree to build the first commit of a new branch on. */
static int empty_tree(git_tree **out, git_repository *repo)
{
	git_treebuilder *builder = NULL;
	git_oid id;
	int error = BG_OK;

	if (git_treebuilder_new(&builder, repo, NULL) < 0 ||
	    git_treebuilder_write(&id, builder) < 0 ||
	    git_tree_lookup(out, repo, &id) < 0)
		error = bg_error("cannot make an empty tree: %s",
				 gitref_message());
	git_treebuilder_free(builder);
	return error;
}

/* One write in progress: its repository handle (open_writer()) and the
 * quarantine that handle writes objects into. */
struct writer {
	git_repository *repo;
	const char *quarantine;
	bool orphan; /* commit without a parent: the branch squashed */
};

/*
 * One attempt to put the files on the branch: a commit on top of `tip`
 * (none when `tree` is NULL) with the files added, its objects published,
 * and a compare-and-swap of the ref from `tip`. 1 when the branch moved
 * or its ref is locked (try again), 0 when done, < 0 on error.
 */
static int commit_files(struct git_store *gs, const struct writer *w,
			const git_oid *tip, git_tree *tree,
			const git_tree_update *updates, size_t nupdates,
			const char *message)
{
	git_tree *base = NULL, *new_tree = NULL;
	git_commit *parent = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, commit_id;
	int error;

	if (!tree && (error = empty_tree(&base, w->repo)) < 0)
		goto done;
	if (git_tree_create_updated(&tree_id, w->repo, tree ? tree : base,
				    nupdates, updates) < 0 ||
	    git_tree_lookup(&new_tree, w->repo, &tree_id) < 0 ||
	    (tree && !w->orphan &&
	     git_commit_lookup(&parent, w->repo, tip) < 0)) {
		error = bg_error("cannot build the tree of branch '%s': %s",
				 gs->branch, gitref_message());
		goto done;
	}
	if ((error = gitref_signature(&sig, w->repo)) < 0)
		goto done;
	if (git_commit_create(&commit_id, w->repo, NULL, sig, sig, NULL,
			      message, new_tree, parent ? 1 : 0,
			      (const git_commit **)&parent) < 0) {
		error = bg_error("cannot commit to branch '%s': %s", gs->branch,
				 gitref_message());
		goto done;
	}
	if ((error = publish_objects(gs, w->quarantine)) < 0)
		goto done;
	/* Compare-and-swap: only from the tip the tree was built on (all
	 * zeros for the first commit: only while there is no branch). */
	error = gitref_move(w->repo, gs->ref, tip, &commit_id, message);
	if (error == 0) {
		git_oid_cpy(&gs->written, &commit_id);
		git_oid_cpy(&gs->written_on, tip);
	}
done:
	git_signature_free(sig);
	git_commit_free(parent);
	git_tree_free(new_tree);
	git_tree_free(base);
	return error;
}

/*
 * A write on its way to the branch: the result's place, the name it
 * claimed, and its blobs, in the quarantine of the writer that commits
 * it (git_write(): one; a batch: a group of them).
 */
struct pending {
	struct result_place place;
	struct strbuf name;	   /* claimed: the result is "<name>.json" */
	struct strbuf claim;	   /* "<scratch_dir>/logs/<name>" */
	struct strbuf fresh_claim; /* a later name's, when the branch took
				    * the first meanwhile */
	char *old_name;		   /* the slot's name, which the document's
				    * log and artifact paths have; NULL
				    * without a slot */
	struct strbuf json;	   /* the document */
	struct file_blobs files;   /* its logs and artifacts */
	git_oid result_id;
};

#define PENDING_INIT                                                   \
	{                                                              \
		RESULT_PLACE_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, \
			NULL, STRBUF_INIT, { 0 }, { { 0 } }              \
	}

/* Ends the pending write's claims (stored or not: see release_claim())
 * and frees it. */
static void pending_release(struct git_store *gs, struct pending *p)
{
	if (p->claim.len)
		release_claim(gs, p->claim.buf);
	if (p->fresh_claim.len)
		release_claim(gs, p->fresh_claim.buf);
	result_place_release(&p->place);
	strbuf_release(&p->name);
	strbuf_release(&p->claim);
	strbuf_release(&p->fresh_claim);
	free(p->old_name);
	strbuf_release(&p->json);
	file_blobs_release(&p->files);
}

/* The place of r and its name: the slot's, or one claimed now. */
static int pending_claim(struct git_store *gs, const struct result *r,
			 const struct store_slot *slot, struct pending *p)
{
	int error;

	if ((error = result_place_of(gs, r, &p->place)) < 0)
		return error;
	/* A slot of another commit or machine is a caller's mistake. */
	assert(!slot || !strcmp(slot->dir, p->place.scratch_dir.buf));
	if (slot) {
		strbuf_addstr(&p->name, slot->name);
		strbuf_addstr(&p->claim, slot->log_dir);
		p->old_name = xstrdup(slot->name);
		return BG_OK;
	}
	if ((error = claim_name(gs, &p->place, 0, &p->name)) < 0)
		return error;
	strbuf_addf(&p->claim, "%s/logs/%s", p->place.scratch_dir.buf,
		    p->name.buf);
	return BG_OK;
}

/* The blobs of the pending write, through the writer w: the slot's logs
 * and artifacts, and the document (`document` as it is, or r). */
static int pending_blobs(const struct writer *w, struct pending *p,
			 const struct result *r, const struct store_slot *slot,
			 const struct strbuf *document)
{
	struct strbuf artifacts = STRBUF_INIT;
	int error = BG_OK;

	if (slot) {
		/* where session.c has the runner put them */
		strbuf_addf(&artifacts, "%s/artifacts/%s", slot->dir,
			    slot->name);
		if ((error = read_files(w->repo, slot->log_dir, "", "logs",
					&p->files)) < 0 ||
		    (error = read_files(w->repo, artifacts.buf, "", "artifacts",
					&p->files)) < 0)
			goto done;
	}
	if (document)
		strbuf_add(&p->json, document->buf, document->len);
	else if ((error = result_to_json_checked(r, &p->json, p->name.buf)) < 0)
		goto done;
	error = result_blob(w->repo, &p->json, NULL, p->name.buf,
			    &p->result_id);
done:
	strbuf_release(&artifacts);
	return error;
}

/* "<shard>/<commit>/<machine>/<name>.json": where the pending result
 * goes on the branch. */
static void pending_path(const struct pending *p, struct strbuf *out)
{
	strbuf_addf(out, "%s/%s.json", p->place.rel_dir.buf, p->name.buf);
}

/* Appends to `paths` (owned) a path that an update names. */
static const char *keep_path(struct store_paths *paths, struct strbuf *path)
{
	ALLOC_GROW(paths->items, paths->nr + 1, paths->alloc);
	paths->items[paths->nr] = strbuf_detach(path, NULL);
	return paths->items[paths->nr++];
}

/*
 * Appends to `updates` the pending write's files for the branch's tree
 * `root`. When root has its name already, only a writer that did not see
 * the claim can have taken it: another clone with the same machine id,
 * whose result came in through `sync`. It is never overwritten: the
 * result moves to the next free name, its paths with it.
 */
static int pending_updates(struct git_store *gs, const struct writer *w,
			   git_tree *root, struct pending *p,
			   git_tree_update **updates, size_t *nr,
			   size_t *alloc, struct store_paths *paths)
{
	struct strbuf path = STRBUF_INIT, flat_path = STRBUF_INIT;
	int error = BG_OK;

	pending_path(p, &path);
	strbuf_addf(&flat_path, "%s/%s.json", p->place.flat_dir.buf,
		    p->name.buf);
	if (tree_has_path(root, path.buf) ||
	    tree_has_path(root, flat_path.buf)) {
		if (p->fresh_claim.len)
			release_claim(gs, p->fresh_claim.buf);
		strbuf_reset(&p->fresh_claim);
		strbuf_reset(&p->name);
		if ((error = claim_name(gs, &p->place, 1, &p->name)) < 0)
			goto done;
		strbuf_addf(&p->fresh_claim, "%s/logs/%s",
			    p->place.scratch_dir.buf, p->name.buf);
		if ((error = result_blob(w->repo, &p->json, p->old_name,
					 p->name.buf, &p->result_id)) < 0)
			goto done;
	}
	ALLOC_GROW(*updates, *nr + p->files.nr + 1, *alloc);
	for (size_t i = 0; i <= p->files.nr; i++) {
		git_tree_update *u = &(*updates)[(*nr)++];

		memset(u, 0, sizeof(*u));
		u->action = GIT_TREE_UPDATE_UPSERT;
		strbuf_reset(&path);
		if (i == p->files.nr) {
			pending_path(p, &path);
			u->id = p->result_id;
			u->filemode = GIT_FILEMODE_BLOB;
		} else {
			const struct file_blob *file = &p->files.items[i];

			strbuf_addf(&path, "%s/%s/%s/%s", p->place.rel_dir.buf,
				    file->area, p->name.buf, file->path);
			u->id = file->id;
			u->filemode = file->mode;
		}
		u->path = keep_path(paths, &path);
	}
done:
	strbuf_release(&path);
	strbuf_release(&flat_path);
	return error;
}

/*
 * Puts the pending writes on the branch as one commit with `message`,
 * through their writer w: on top of the tip, moved by compare-and-swap,
 * built again on the new tip when another writer moved it meanwhile.
 */
static int commit_pending(struct git_store *gs, const struct writer *w,
			  struct pending *pending, size_t nr,
			  const char *message)
{
	git_tree_update *updates = NULL;
	size_t updates_nr, updates_alloc = 0;
	struct store_paths paths = { 0 };
	git_tree *root = NULL;
	git_oid tip;
	int error = 1;

	for (unsigned attempt = 0; error == 1; attempt++) {
		if ((error = next_attempt(gs, attempt)) < 0)
			break;
		git_tree_free(root);
		store_paths_release(&paths);
		updates_nr = 0;
		if ((error = read_tip(gs, w->repo, &tip, &root)) < 0)
			break;
		for (size_t i = 0; i < nr && !error; i++)
			error = pending_updates(gs, w, root, &pending[i],
						&updates, &updates_nr,
						&updates_alloc, &paths);
		if (!error)
			error = commit_files(gs, w, &tip, root, updates,
					     updates_nr, message);
	}
	git_tree_free(root);
	store_paths_release(&paths);
	free(updates);
	return error;
}

/* The writes a batch holds back (store_batch_begin()), their blobs in
 * the quarantine of a work directory of its own. */
struct git_batch {
	struct strbuf dir, quarantine;
	struct writer w;
	struct pending *items;
	size_t nr, alloc;
	size_t groups; /* committed since the batch began */
};

static int batch_start(struct git_store *gs)
{
	struct git_batch *b = xcalloc(1, sizeof(*b));
	int error;

	strbuf_init(&b->dir, 0);
	strbuf_init(&b->quarantine, 0);
	gs->batch = b;
	if ((error = make_work_dir(gs, "batch", &b->dir, &b->quarantine)) <
	    0)
		return error;
	b->w.quarantine = b->quarantine.buf;
	return open_writer(gs, b->quarantine.buf, &b->w.repo);
}

/* Drops what the batch holds back and ends it. */
static void batch_free(struct git_store *gs)
{
	struct git_batch *b = gs->batch;

	if (!b)
		return;
	for (size_t i = 0; i < b->nr; i++)
		pending_release(gs, &b->items[i]);
	free(b->items);
	git_repository_free(b->w.repo);
	remove_work_dir(gs, &b->dir);
	strbuf_release(&b->dir);
	strbuf_release(&b->quarantine);
	free(b);
	gs->batch = NULL;
}

/* Commits what the batch holds back, as one commit; it is released,
 * stored or not. */
static int batch_flush(struct git_store *gs)
{
	struct git_batch *b = gs->batch;
	struct strbuf message = STRBUF_INIT;
	int error;

	if (!b->nr)
		return BG_OK;
	strbuf_addf(&message, "benchgate: %zu result%s\n", b->nr,
		    b->nr == 1 ? "" : "s");
	error = commit_pending(gs, &b->w, b->items, b->nr, message.buf);
	for (size_t i = 0; i < b->nr; i++)
		pending_release(gs, &b->items[i]);
	b->nr = 0;
	if (!error)
		b->groups++;
	strbuf_release(&message);
	return error;
}

/* git_write() in a batch: claimed and its blobs made now, committed
 * with the batch's group. */
static int batch_write(struct store *store, const struct result *r,
		       const struct store_slot *slot,
		       const struct strbuf *document, struct strbuf *path_out)
{
	struct git_store *gs = git_store_of(store);
	struct git_batch *b;
	struct pending *p;
	int error;

	if (!gs->batch && (error = batch_start(gs)) < 0)
		return error;
	b = gs->batch;
	ALLOC_GROW(b->items, b->nr + 1, b->alloc);
	p = &b->items[b->nr];
	*p = (struct pending)PENDING_INIT;
	if ((error = pending_claim(gs, r, slot, p)) < 0 ||
	    (error = pending_blobs(&b->w, p, r, slot, document)) < 0) {
		pending_release(gs, p);
		return error;
	}
	b->nr++;
	if (path_out) {
		strbuf_addf(path_out, "%s:", gs->branch);
		pending_path(p, path_out);
	}
	return b->nr < STORE_BATCH_MAX ? BG_OK : batch_flush(gs);
}

static int git_batch_end(struct store *store)
{
	struct git_store *gs = git_store_of(store);
	int error = BG_OK;

	if (!gs->batch)
		return BG_OK;
	error = batch_flush(gs);
	if (gs->batch->groups && gs->url) {
		int pushed = sync_copy(store);

		if (pushed < 0 && !error)
			error = bg_error("%s; what the batch stored stays in "
					 "the local copy '%s', pushed by the "
					 "next use of the store",
					 bg_error_last(), gs->copy);
	}
	batch_free(gs);
	return error;
}

static int git_write(struct store *store, const struct result *r,
		     const struct store_slot *slot,
		     const struct strbuf *document, struct strbuf *path_out)
{
	struct git_store *gs = git_store_of(store);
	struct pending p = PENDING_INIT;
	struct strbuf message = STRBUF_INIT, quarantine = STRBUF_INIT;
	struct writer w = { NULL, NULL, false };
	int error;

	if (store->batch)
		return batch_write(store, r, slot, document, path_out);
	if ((error = pending_claim(gs, r, slot, &p)) < 0)
		goto done;
	strbuf_addf(&quarantine, "%s/.objects", p.claim.buf);
	w.quarantine = quarantine.buf;
	strbuf_addf(&message, "benchgate: %s at %.12s on %s\n", r->suite,
		    r->git.commit, r->machine.id);
	if ((error = open_writer(gs, quarantine.buf, &w.repo)) < 0 ||
	    (error = pending_blobs(&w, &p, r, slot, document)) < 0 ||
	    (error = commit_pending(gs, &w, &p, 1, message.buf)) < 0)
		goto done;
	if ((error = sync_copy(store)) < 0) {
		strbuf_reset(&message);
		strbuf_addstr(&message, bg_error_last());
		if (take_back(gs)) {
			error = bg_error("%s; the result was not stored",
					 message.buf);
			goto done;
		}
		/* Another write came on top of it meanwhile: it is stored,
		 * in the local copy, and goes with the next push. */
		bg_error_clear();
		bg_warn("%s; the result stays in the local copy '%s', pushed "
			"by the next use of the store",
			message.buf, gs->copy);
	}
	if (path_out) {
		strbuf_addf(path_out, "%s:", gs->branch);
		pending_path(&p, path_out);
	}
	error = BG_OK;
done:
	git_repository_free(w.repo);
	/* After a failure too: nothing of a write outlives it, or a full
	 * disk would stay full of it (see the top of this file). */
	pending_release(gs, &p);
	strbuf_release(&message);
	strbuf_release(&quarantine);
	return error;
}

/* Rewriting */

/* Appends to `updates` what change c does to the branch's tree `root`:
 * nothing when its result is no longer there. */
static void change_updates(struct git_store *gs, git_tree *root,
			   const struct store_change *c, const git_oid *blob,
			   git_tree_update **updates, size_t *nr,
			   size_t *alloc, struct store_paths *paths)
{
	struct strbuf name = STRBUF_INIT, path = STRBUF_INIT;
	const char *json = entry_tree_path(gs, c->entry);

	if (!tree_has_path(root, json))
		goto done;
	for (int i = 0; i < (c->document ? 1 : 3); i++) {
		git_tree_update *u;

		strbuf_reset(&path);
		if (i == 0) {
			strbuf_addstr(&path, json);
		} else {
			strbuf_reset(&name);
			store_entry_name(c->entry, &name);
			entry_tree_dir(gs, c->entry, &path);
			strbuf_addf(&path, "/%s/%s",
				    i == 1 ? "logs" : "artifacts", name.buf);
			if (!tree_has_path(root, path.buf))
				continue;
		}
		ALLOC_GROW(*updates, *nr + 1, *alloc);
		u = &(*updates)[(*nr)++];
		memset(u, 0, sizeof(*u));
		u->action = c->document ? GIT_TREE_UPDATE_UPSERT
					: GIT_TREE_UPDATE_REMOVE;
		if (c->document)
			u->id = *blob;
		u->filemode = GIT_FILEMODE_BLOB;
		ALLOC_GROW(paths->items, paths->nr + 1, paths->alloc);
		paths->items[paths->nr++] = strbuf_detach(&path, NULL);
		u->path = paths->items[paths->nr - 1];
	}
done:
	strbuf_release(&name);
	strbuf_release(&path);
}

/* The new documents' blobs, written through the writer w. */
static int change_blobs(struct git_store *gs, const struct writer *w,
			const struct store_change *changes, size_t nr,
			git_oid *blobs)
{
	for (size_t i = 0; i < nr; i++) {
		const struct strbuf *doc = changes[i].document;

		if (doc && git_blob_create_from_buffer(&blobs[i], w->repo,
						       doc->buf, doc->len) < 0)
			return bg_error("cannot store '%s' on branch '%s': %s",
					changes[i].entry->path, gs->branch,
					gitref_message());
	}
	return BG_OK;
}

/* One attempt of git_rewrite(): as commit_files(). */
static int rewrite_once(struct git_store *gs, const struct writer *w,
			const struct store_change *changes, size_t nr,
			const git_oid *blobs, const char *message)
{
	git_tree_update *updates = NULL;
	size_t updates_nr = 0, updates_alloc = 0;
	struct store_paths paths = { 0 };
	git_tree *root = NULL;
	git_oid tip;
	int error;

	if ((error = read_tip(gs, w->repo, &tip, &root)) < 0 || !root)
		goto done;
	for (size_t i = 0; i < nr; i++)
		change_updates(gs, root, &changes[i], &blobs[i], &updates,
			       &updates_nr, &updates_alloc, &paths);
	if (updates_nr || w->orphan)
		error = commit_files(gs, w, &tip, root, updates, updates_nr,
				     message);
done:
	free(updates);
	store_paths_release(&paths);
	git_tree_free(root);
	return error;
}

static int git_rewrite(struct store *store, const struct store_change *changes,
		       size_t nr, const char *message, unsigned flags)
{
	struct git_store *gs = git_store_of(store);
	struct strbuf dir = STRBUF_INIT, quarantine = STRBUF_INIT;
	struct writer w = { NULL, NULL, flags & STORE_REWRITE_SQUASH };
	git_oid *blobs = NULL;
	int error;

	if (gs->url && (flags & STORE_REWRITE_SQUASH))
		return bg_input_error("store '%s': --squash rewrites history, "
				      "which a push to the results "
				      "repository cannot: squash its branch "
				      "there (git:BRANCH in a clone of it)",
				      store->location);
	if ((error = fetch_once(store)) < 0)
		return error;
	blobs = xcalloc(nr, sizeof(*blobs));
	if ((error = make_work_dir(gs, "rewrite", &dir, &quarantine)) < 0)
		goto done;
	w.quarantine = quarantine.buf;
	if ((error = open_writer(gs, quarantine.buf, &w.repo)) < 0 ||
	    (error = change_blobs(gs, &w, changes, nr, blobs)) < 0)
		goto done;
	error = 1;
	for (unsigned attempt = 0; error == 1; attempt++) {
		if ((error = next_attempt(gs, attempt)) < 0)
			break;
		error = rewrite_once(gs, &w, changes, nr, blobs, message);
	}
	if (!error)
		error = sync_copy(store);
done:
	git_repository_free(w.repo);
	remove_work_dir(gs, &dir);
	free(blobs);
	strbuf_release(&dir);
	strbuf_release(&quarantine);
	return error;
}

/* Migrating flat commit folders into shards (store_migrate()) */

/* The moves of one migration attempt, built from one tip. */
struct git_migration {
	git_odb *odb;
	git_tree *root;
	const char *commit; /* the flat folder being walked */
	bool dry_run;
	git_tree_update *updates;
	size_t nr, alloc;
	struct store_paths paths; /* the updates' paths */
	struct store_paths sources; /* the folder's files that move */
	size_t files, left;
	unsigned long long bytes;
	struct store *store;
};

static void migration_update(struct git_migration *m,
			     git_tree_update_t action, const char *path,
			     const git_oid *id, git_filemode_t mode)
{
	git_tree_update *u;

	ALLOC_GROW(m->updates, m->nr + 1, m->alloc);
	u = &m->updates[m->nr++];
	memset(u, 0, sizeof(*u));
	u->action = action;
	if (id)
		git_oid_cpy(&u->id, id);
	u->filemode = mode;
	ALLOC_GROW(m->paths.items, m->paths.nr + 1, m->paths.alloc);
	m->paths.items[m->paths.nr++] = xstrdup(path);
	u->path = m->paths.items[m->paths.nr - 1];
}

/* git_tree_walk() callback over a flat folder: each file goes to its
 * place in the shard, unless that holds other content. */
static int migrate_entry(const char *root, const git_tree_entry *te,
			 void *data)
{
	struct git_migration *m = data;
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	git_tree_entry *there = NULL;
	size_t size = 0;
	git_object_t type;

	if (git_tree_entry_type(te) == GIT_OBJECT_TREE)
		return 0;
	strbuf_addf(&from, "%s/%s%s", m->commit, root, git_tree_entry_name(te));
	store_commit_dir(m->commit, &to);
	strbuf_addf(&to, "/%s%s", root, git_tree_entry_name(te));
	if (git_tree_entry_type(te) != GIT_OBJECT_BLOB) {
		m->left++; /* a submodule's commit: not benchgate's */
		goto done;
	}
	if (git_tree_entry_bypath(&there, m->root, to.buf) == 0) {
		if (!git_oid_equal(git_tree_entry_id(there),
				   git_tree_entry_id(te)) ||
		    git_tree_entry_filemode(there) !=
			    git_tree_entry_filemode(te)) {
			m->left++;
			store_warn_once(m->store, from.buf,
					"'%s' %s where it is: '%s' holds "
					"other content",
					from.buf,
					m->dry_run ? "would stay" : "stays",
					to.buf);
			goto done;
		}
	} else {
		git_error_clear();
		migration_update(m, GIT_TREE_UPDATE_UPSERT, to.buf,
				 git_tree_entry_id(te),
				 git_tree_entry_filemode(te));
	}
	m->files++;
	if (git_odb_read_header(&size, &type, m->odb, git_tree_entry_id(te)) ==
	    0)
		m->bytes += size;
	git_error_clear();
	ALLOC_GROW(m->sources.items, m->sources.nr + 1, m->sources.alloc);
	m->sources.items[m->sources.nr++] = strbuf_detach(&from, NULL);
done:
	git_tree_entry_free(there);
	strbuf_release(&from);
	strbuf_release(&to);
	return 0;
}
/* What one flat folder's move came to, for the listing. */
struct folder_moved {
	char commit[65];
	size_t files, left;
	unsigned long long bytes;
};

struct folders_moved {
	struct folder_moved *items;
	size_t nr, alloc;
};

/* Moves the flat folder `commit` (its tree `tree`) in m's updates. */
static int migrate_folder(struct git_migration *m, git_tree *tree,
			  const char *commit, struct folders_moved *moved)
{
	struct folder_moved *f;

	m->commit = commit;
	m->files = m->left = 0;
	m->bytes = 0;
	store_paths_release(&m->sources);
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, migrate_entry, m) < 0)
		return bg_error("cannot read tree '%s': %s", commit,
				gitref_message());
	if (!m->left)
		migration_update(m, GIT_TREE_UPDATE_REMOVE, commit, NULL,
				 GIT_FILEMODE_TREE);
	else
		for (size_t i = 0; i < m->sources.nr; i++)
			migration_update(m, GIT_TREE_UPDATE_REMOVE,
					 m->sources.items[i], NULL,
					 GIT_FILEMODE_BLOB);
	ALLOC_GROW(moved->items, moved->nr + 1, moved->alloc);
	f = &moved->items[moved->nr++];
	snprintf(f->commit, sizeof(f->commit), "%s", commit);
	f->files = m->files;
	f->left = m->left;
	f->bytes = m->bytes;
	return BG_OK;
}

/* One attempt of git_migrate(), as commit_files() (0 as well when there
 * is nothing to commit, or for a dry run), with what it moved (or would
 * move) in *moved. */
static int migrate_once(struct store *store, const struct writer *w,
			bool dry_run, struct folders_moved *moved)
{
	struct git_store *gs = git_store_of(store);
	struct git_migration m = { 0 };
	struct strbuf message = STRBUF_INIT;
	git_tree *tree = NULL;
	git_oid tip;
	size_t count;
	int error;

	moved->nr = 0;
	m.dry_run = dry_run;
	m.store = store;
	if ((error = read_tip(gs, w->repo, &tip, &m.root)) < 0 || !m.root)
		goto done;
	if (git_repository_odb(&m.odb, w->repo) < 0) {
		error = bg_error("cannot open the objects of branch '%s': %s",
				 gs->branch, gitref_message());
		goto done;
	}
	count = git_tree_entrycount(m.root);
	for (size_t i = 0; i < count && !error; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(m.root, i);
		const char *name = git_tree_entry_name(te);

		if (!store_commit_name_valid(name) ||
		    !store_commit_has_flat_dir(name) ||
		    git_tree_entry_type(te) != GIT_OBJECT_TREE)
			continue;
		git_tree_free(tree);
		tree = NULL;
		if (git_tree_lookup(&tree, w->repo, git_tree_entry_id(te)) < 0)
			error = bg_error("cannot read tree '%s': %s", name,
					 gitref_message());
		else
			error = migrate_folder(&m, tree, name, moved);
	}
	if (error < 0 || dry_run || !m.nr)
		goto done;
	strbuf_addf(&message,
		    "benchgate: store migrate: %zu commit folders into "
		    "shards\n",
		    moved->nr);
	error = commit_files(gs, w, &tip, m.root, m.updates, m.nr,
			     message.buf);
done:
	git_tree_free(tree);
	git_tree_free(m.root);
	git_odb_free(m.odb);
	free(m.updates);
	store_paths_release(&m.paths);
	store_paths_release(&m.sources);
	strbuf_release(&message);
	return error;
}

static int git_migrate(struct store *store, bool dry_run, FILE *listing,
		       struct store_migration *report)
{
	struct git_store *gs = git_store_of(store);
	struct strbuf dir = STRBUF_INIT, quarantine = STRBUF_INIT;
	struct writer w = { NULL, NULL, false };
	struct folders_moved moved = { 0 };
	int error;

	if ((error = make_work_dir(gs, "migrate", &dir, &quarantine)) < 0)
		goto done;
	w.quarantine = quarantine.buf;
	if ((error = fetch_once(store)) < 0 ||
	    (error = open_writer(gs, quarantine.buf, &w.repo)) < 0)
		goto done;
	error = 1;
	for (unsigned attempt = 0; error == 1; attempt++) {
		if ((error = next_attempt(gs, attempt)) < 0)
			break;
		error = migrate_once(store, &w, dry_run, &moved);
	}
	if (!error && !dry_run && moved.nr)
		error = sync_copy(store);
	if (error < 0)
		goto done;
	for (size_t i = 0; i < moved.nr; i++) {
		const struct folder_moved *f = &moved.items[i];

		report->folders++;
		report->files += f->files;
		report->left += f->left;
		report->bytes += f->bytes;
		store_migration_line(listing, dry_run, f->commit, f->files,
				     f->bytes, f->left);
	}
done:
	git_repository_free(w.repo);
	remove_work_dir(gs, &dir);
	free(moved.items);
	strbuf_release(&dir);
	strbuf_release(&quarantine);
	return error;
}

/* Opening */

static void git_free(struct store *store)
{
	struct git_store *gs = git_store_of(store);

	if (!gs)
		return;
	batch_free(gs);
	/* Slots reserved and never written (the run failed): their scratch
	 * would only fill the disk. */
	while (gs->held_nr) {
		struct held_claim *held = &gs->held[gs->held_nr - 1];
		char *claim = xstrdup(held->dir);

		if (held->pid == getpid())
			release_claim(gs, claim);
		else
			drop_claim(gs, claim);
		free(claim);
	}
	free(gs->held);
	git_tree_free(gs->root);
	git_repository_free(gs->repo);
	free(gs->branch);
	free(gs->ref);
	free(gs->scratch);
	free(gs->objects);
	free(gs->url);
	free(gs->copy);
	free(gs);
	store->backend_data = NULL;
}

static const struct store_backend git_backend = {
	.reserve = git_reserve,
	.write = git_write,
	.list = git_list,
	.load = git_load,
	.read_file = git_read_file,
	.entry_files = git_entry_files,
	.rewrite = git_rewrite,
	.migrate = git_migrate,
	.batch_end = git_batch_end,
	.free = git_free,
};

/*
 * The store on branch `branch` of `repo` (taken over, freed on error),
 * named `location` in messages; `url`: a results repository that the
 * branch is synced with (see store_git_open_url()), NULL for none.
 */
static int open_on_repo(struct store **out, git_repository *repo,
			const char *branch, const char *location,
			const char *url)
{
	struct strbuf ref = STRBUF_INIT, scratch = STRBUF_INIT;
	struct strbuf objects = STRBUF_INIT;
	git_buf objects_dir = { NULL, 0, 0 };
	struct git_store *gs;
	int error = BG_OK;

	strbuf_addf(&ref, "refs/heads/%s", branch);
	strbuf_addstr(&scratch, git_repository_commondir(repo));
	while (scratch.len > 1 && scratch.buf[scratch.len - 1] == '/')
		strbuf_setlen(&scratch, scratch.len - 1);
	strbuf_addf(&scratch, "/benchgate/%s", branch);
	if (git_repository_item_path(&objects_dir, repo,
				     GIT_REPOSITORY_ITEM_OBJECTS) < 0) {
		error = bg_error("store '%s': cannot find the objects of the "
				 "repository: %s",
				 location, gitref_message());
		goto done;
	}
	strbuf_addstr(&objects, objects_dir.ptr);
	while (objects.len > 1 && objects.buf[objects.len - 1] == '/')
		strbuf_setlen(&objects, objects.len - 1);

	gs = xcalloc(1, sizeof(*gs));
	gs->repo = repo;
	repo = NULL;
	gs->branch = xstrdup(branch);
	gs->ref = strbuf_detach(&ref, NULL);
	gs->scratch = strbuf_detach(&scratch, NULL);
	gs->objects = strbuf_detach(&objects, NULL);
	gs->url = url ? xstrdup(url) : NULL;
	gs->random_state = (unsigned)getpid() ^ (unsigned)time(NULL);
	*out = store_new(&git_backend, xstrdup(location), gs);
	(*out)->cache_dir = xstrdup(gs->scratch);
done:
	git_repository_free(repo);
	strbuf_release(&ref);
	strbuf_release(&scratch);
	strbuf_release(&objects);
	git_buf_dispose(&objects_dir);
	return error;
}

/* BG_EINPUT unless branch names a branch. */
static int check_branch(const char *branch, const char *location)
{
	struct strbuf ref = STRBUF_INIT;
	int valid = 0;

	strbuf_addf(&ref, "refs/heads/%s", branch);
	if (*branch && git_reference_name_is_valid(&valid, ref.buf) == 0 &&
	    valid) {
		strbuf_release(&ref);
		return BG_OK;
	}
	git_error_clear();
	strbuf_release(&ref);
	return bg_input_error("store '%s': '%s' is not a valid branch name",
			      location, branch);
}

int store_git_open(struct store **out, const char *branch)
{
	struct strbuf location = STRBUF_INIT;
	git_repository *repo = NULL;
	int error;

	*out = NULL;
	repo_libgit2_init();
	strbuf_addf(&location, "git:%s", branch);
	if ((error = check_branch(branch, location.buf)) < 0)
		goto done;
	if (repo_open(&repo, NULL) < 0) {
		error = bg_input_error("store '%s': the current directory is "
				       "not in a git repository that can be "
				       "opened: %s",
				       location.buf, gitref_message());
		goto done;
	}
	error = open_on_repo(out, repo, branch, location.buf, NULL);
done:
	strbuf_release(&location);
	return error;
}

/* A local path made absolute (the local copy's sync may run from another
 * directory, and its cache is keyed by the URL); URLs as they are. */
static void absolute_url(const char *url, struct strbuf *out)
{
	const char *colon = strchr(url, ':');
	char cwd[4096];

	if (strstr(url, "://") || url[0] == '/' ||
	    (colon && !memchr(url, '/', (size_t)(colon - url))) ||
	    !getcwd(cwd, sizeof(cwd))) {
		strbuf_addstr(out, url);
		return;
	}
	while (!strncmp(url, "./", 2))
		url += 2;
	strbuf_addf(out, "%s/%s", cwd, url);
}

/* The URL for messages: "scheme://user:secret@host" loses ":secret". */
static void url_shown(const char *url, struct strbuf *out)
{
	const char *start = strstr(url, "://");
	const char *end, *at = NULL, *colon;

	if (!start) {
		strbuf_addstr(out, url);
		return;
	}
	start += 3;
	end = start + strcspn(start, "/?#");
	for (const char *p = start; p < end; p++)
		if (*p == '@')
			at = p;
	colon = at ? memchr(start, ':', (size_t)(at - start)) : NULL;
	if (!colon) {
		strbuf_addstr(out, url);
		return;
	}
	strbuf_add(out, url, (size_t)(colon - url));
	strbuf_addstr(out, at);
}

/* "$XDG_CACHE_HOME/benchgate/git-<hash of url>" (else under ~/.cache,
 * else $TMPDIR): the local copy of a results repository. */
static void copy_dir_of(const char *url, struct strbuf *out)
{
	store_cache_root(out);
	strbuf_addf(out, "/git-%016llx",
		    (unsigned long long)hash_fnv1a64(url, strlen(url)));
}

int store_git_open_url(struct store **out, const char *url,
		       const char *branch)
{
	struct strbuf location = STRBUF_INIT, absolute = STRBUF_INIT;
	struct strbuf copy = STRBUF_INIT;
	git_repository *repo = NULL;
	int error;

	*out = NULL;
	repo_libgit2_init();
	strbuf_addstr(&location, "git:");
	url_shown(url, &location);
	strbuf_addf(&location, "#%s", branch);
	if ((error = check_branch(branch, location.buf)) < 0)
		goto done;
	if (!*url) {
		error = bg_input_error("store '%s': no repository before '#'",
				       location.buf);
		goto done;
	}
	absolute_url(url, &absolute);
	copy_dir_of(absolute.buf, &copy);
	if ((error = mkdir_p(copy.buf)) < 0)
		goto done;
	/* a bare repository of its own: the branch and nothing else */
	if (repo_open_or_init_bare(&repo, copy.buf) < 0) {
		error = bg_error("store '%s': cannot make its local copy '%s': "
				 "%s",
				 location.buf, copy.buf, gitref_message());
		goto done;
	}
	if ((error = open_on_repo(out, repo, branch, location.buf,
				  absolute.buf)) < 0)
		goto done;
	git_store_of(*out)->copy = strbuf_detach(&copy, NULL);
done:
	strbuf_release(&location);
	strbuf_release(&absolute);
	strbuf_release(&copy);
	return error;
}
