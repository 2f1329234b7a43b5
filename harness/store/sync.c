/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/store/sync.h"

#include "harness/util/alloc.h"
#include "harness/git/repo.h"
#include "harness/util/error.h"
#include "harness/util/hash.h"
#include "harness/git/gitref.h"
#include "harness/git/gitinfo.h"
#include "harness/store/store_common.h"
#include "harness/util/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <git2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_REMOTE	"origin"
#define DEFAULT_BRANCH	"benchgate-results"
#define BACKOFF_BASE_MS 250.0
/* A local writer (`benchgate run`) committing between our read and our
 * update costs one more round, no pause: it only ever takes milliseconds. */
#define LOCAL_RACES_MAX 100

/* GCC says it builds with ASan by __SANITIZE_ADDRESS__, clang 14 only by
 * __has_feature (ci/test builds with both). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYNC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(SYNC_ASAN)
/*
 * libgit2 1.5's git_regexp_match() (pcre2 builds) never frees its match
 * data; git_remote_lookup() matches every config entry against
 * url.*.insteadOf, so each sync "leaks" a few KiB inside libgit2, and the
 * sanitizer build would fail on it. Fixed in later libgit2; only pcre2's
 * allocations are ignored, nothing of benchgate's. Likewise 64 bytes
 * inside git_remote_upload() when sending a push fails (a server that
 * closed early); matched only with full stacks
 * (ASAN_OPTIONS=fast_unwind_on_malloc=0), as libgit2 keeps no frame
 * pointers.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpcre2-8.so\nleak:git_remote_upload\n";
}
#endif

/* Which credentials were asked for and offered during one connection. */
struct auth {
	const char *variable; /* the token's variable name, for messages */
	unsigned asked;	      /* git_credential_t bits the server allowed */
	bool token_tried;
	bool agent_tried;
	bool username_tried;
	bool default_tried;
	bool gave_up; /* asked with nothing (more) to offer */
};

struct sync {
	git_repository *repo;
	git_remote *remote;
	const char *remote_name;
	const char *branch;
	struct strbuf local_ref;    /* refs/heads/<branch>, both sides */
	struct strbuf tracking_ref; /* refs/remotes/<remote>/<branch> */
	struct strbuf local_path;   /* the remote's path when local */
	struct auth auth;
	bool rejected; /* by the last push */
	struct strbuf reject_message;
	double backoff_scale;
	unsigned random_state;
};

/* Hosts and tokens */

/* The lower-case host of "scheme://[user[:secret]@]host[:port]/..."; empty
 * when url is NULL or has no scheme. */
static void url_host(const char *url, struct strbuf *host)
{
	const char *start, *end, *at;

	strbuf_reset(host);
	if (!url || !(start = strstr(url, "://")))
		return;
	start += 3;
	end = start + strcspn(start, "/?#");
	for (at = end; at > start && at[-1] != '@'; at--)
		;
	if (at > start)
		start = at;
	for (const char *p = start; p < end && *p != ':'; p++)
		strbuf_addch(host, tolower((unsigned char)*p));
}

static bool same_host(const char *host, const char *url)
{
	struct strbuf other = STRBUF_INIT;
	bool same;

	url_host(url, &other);
	same = other.len && !strcmp(other.buf, host);
	strbuf_release(&other);
	return same;
}

static const char *nonempty_env(const char *name)
{
	const char *value = getenv(name);

	return value && *value ? value : NULL;
}

/*
 * The token the environment has for url's forge, if any. Matching the
 * host keeps a GitHub token from ever reaching a GitLab server and back.
 */
static bool token_for(const char *url, const char **user, const char **token,
		      const char **variable)
{
	struct strbuf host = STRBUF_INIT;
	const char *gitlab_host = nonempty_env("CI_SERVER_HOST");
	bool found = false;

	url_host(url, &host);
	if (!host.len)
		goto done;
	if ((!strcmp(host.buf, "github.com") ||
	     same_host(host.buf, getenv("GITHUB_SERVER_URL"))) &&
	    (*token = nonempty_env("GITHUB_TOKEN"))) {
		*user = "x-access-token";
		*variable = "GITHUB_TOKEN";
		found = true;
	} else if (!strcmp(host.buf, "gitlab.com") ||
		   (gitlab_host && !strcasecmp(host.buf, gitlab_host)) ||
		   same_host(host.buf, getenv("CI_SERVER_URL"))) {
		*user = "gitlab-ci-token";
		if ((*token = nonempty_env("GITLAB_TOKEN")))
			*variable = "GITLAB_TOKEN";
		else if ((*token = nonempty_env("CI_JOB_TOKEN")))
			*variable = "CI_JOB_TOKEN";
		found = *token != NULL;
	}
done:
	strbuf_release(&host);
	return found;
}

/* Offers each kind of credential once per connection: libgit2 asks again
 * after a refusal, and offering the same again would loop. */
static int credentials(git_credential **out, const char *url,
		       const char *username_from_url, unsigned int allowed,
		       void *payload)
{
	struct sync *s = payload;
	struct auth *auth = &s->auth;
	const char *user = NULL, *token = NULL, *variable = NULL;
	const char *name = username_from_url && *username_from_url
				   ? username_from_url
				   : "git";

	auth->asked |= allowed;
	if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) &&
	    !auth->token_tried && !strncasecmp(url, "https://", 8) &&
	    token_for(url, &user, &token, &variable)) {
		auth->token_tried = true;
		auth->variable = variable;
		return git_credential_userpass_plaintext_new(out, user, token);
	}
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !auth->agent_tried) {
		auth->agent_tried = true;
		return git_credential_ssh_key_from_agent(out, name);
	}
	if ((allowed & GIT_CREDENTIAL_USERNAME) && !auth->username_tried) {
		auth->username_tried = true;
		return git_credential_username_new(out, name);
	}
	if ((allowed & GIT_CREDENTIAL_DEFAULT) && !auth->default_tried) {
		auth->default_tried = true;
		return git_credential_default_new(out);
	}
	/* libgit2 then reports "authentication required but no callback
	 * set", which is untrue; auth_failure() says what happened. */
	auth->gave_up = true;
	return GIT_PASSTHROUGH;
}

/* Appends `item` to a ", "-separated list. */
static void list_add(struct strbuf *list, const char *item)
{
	if (list->len)
		strbuf_addstr(list, ", ");
	strbuf_addstr(list, item);
}

/*
 * Why the server turned us away, from what it asked for and what the
 * credentials callback offered: "the server asked for a user name and
 * password; tried $GITHUB_TOKEN, refused". Names variables and the host,
 * never a secret.
 */
static void auth_failure(const struct sync *s, const char *url,
			 struct strbuf *out)
{
	const struct auth *auth = &s->auth;
	struct strbuf asked = STRBUF_INIT, tried = STRBUF_INIT;
	struct strbuf host = STRBUF_INIT;

	if (auth->asked & GIT_CREDENTIAL_USERPASS_PLAINTEXT)
		list_add(&asked, "a user name and password");
	if (auth->asked &
	    (GIT_CREDENTIAL_SSH_KEY | GIT_CREDENTIAL_SSH_CUSTOM |
	     GIT_CREDENTIAL_SSH_INTERACTIVE | GIT_CREDENTIAL_SSH_MEMORY))
		list_add(&asked, "an ssh key");
	if (auth->asked & GIT_CREDENTIAL_USERNAME)
		list_add(&asked, "a user name");
	if (auth->asked & GIT_CREDENTIAL_DEFAULT)
		list_add(&asked, "NTLM or Negotiate credentials");
	if (auth->token_tried)
		strbuf_addf(&tried, "$%s", auth->variable);
	if (auth->agent_tried)
		list_add(&tried, "the ssh agent's keys");
	if (auth->username_tried)
		list_add(&tried, "the URL's user name");
	if (auth->default_tried)
		list_add(&tried, "the platform's default credentials");
	strbuf_addf(out, "authentication failed: the server asked for %s; ",
		    asked.len ? asked.buf : "credentials");
	if (tried.len) {
		strbuf_addf(out, "tried %s, refused", tried.buf);
	} else {
		url_host(url, &host);
		strbuf_addf(out,
			    "benchgate had none to offer%s%s%s (it sends "
			    "GITHUB_TOKEN, GITLAB_TOKEN or CI_JOB_TOKEN only "
			    "over https, each to its own forge)",
			    host.len ? " for host '" : "", host.buf,
			    host.len ? "'" : "");
	}
	strbuf_release(&asked);
	strbuf_release(&tried);
	strbuf_release(&host);
}

/* Whether libgit2's last error is a write or read on a connection the
 * server had closed: a socket error, which libgit2 words with strerror(). */
static bool connection_closed(void)
{
	const git_error *last = git_error_last();

	return last &&
	       (last->klass == GIT_ERROR_NET || last->klass == GIT_ERROR_OS) &&
	       last->message &&
	       (strstr(last->message, strerror(EPIPE)) ||
		strstr(last->message, strerror(ECONNRESET)));
}

/*
 * Records a failed network operation (`code`, libgit2's) with what was
 * tried, never a secret: the remote's name, not its URL (which may embed
 * one). `what` is "fetch" or "push".
 */
static int network_error(struct sync *s, const char *what, int code)
{
	struct strbuf reason = STRBUF_INIT;
	bool pushing = !strcmp(what, "push");
	const char *url = pushing && git_remote_pushurl(s->remote)
				  ? git_remote_pushurl(s->remote)
				  : git_remote_url(s->remote);
	int error;

	if (code == GIT_EAUTH || s->auth.gave_up) {
		auth_failure(s, url, &reason);
	} else {
		strbuf_addstr(&reason, gitref_message());
		if (connection_closed())
			strbuf_addstr(&reason, " (the server closed the "
					       "connection early: it may have "
					       "refused the request)");
		if (s->auth.token_tried)
			strbuf_addf(&reason, " (authenticated with $%s)",
				    s->auth.variable);
	}
	error = bg_error("cannot %s '%s' %s remote '%s': %s", what, s->branch,
			 pushing ? "to" : "of", s->remote_name, reason.buf);
	strbuf_release(&reason);
	return error;
}

static void init_callbacks(struct sync *s, git_remote_callbacks *callbacks)
{
	git_remote_init_callbacks(callbacks, GIT_REMOTE_CALLBACKS_VERSION);
	callbacks->credentials = credentials;
	callbacks->payload = s;
	memset(&s->auth, 0, sizeof(s->auth));
}

/* Fetching */

/*
 * Fetches the remote's branch into the remote-tracking ref; *remote_tip is
 * the tip the remote advertised, *exists false when it has no such branch.
 */
static int fetch(struct sync *s, git_oid *remote_tip, bool *exists)
{
	const git_remote_head **heads = NULL;
	git_remote_callbacks callbacks;
	git_fetch_options fetch_opts;
	git_proxy_options proxy;
	struct strbuf refspec = STRBUF_INIT;
	char *specs[1];
	git_strarray refspecs = { specs, 1 };
	size_t nr = 0, i;
	int error = BG_OK, code;

	*exists = false;
	init_callbacks(s, &callbacks);
	git_proxy_options_init(&proxy, GIT_PROXY_OPTIONS_VERSION);
	proxy.type = GIT_PROXY_AUTO;
	if ((code = git_remote_connect(s->remote, GIT_DIRECTION_FETCH,
				       &callbacks, &proxy, NULL)) < 0 ||
	    (code = git_remote_ls(&heads, &nr, s->remote)) < 0) {
		error = network_error(s, "fetch", code);
		goto done;
	}
	for (i = 0; i < nr; i++) {
		if (!strcmp(heads[i]->name, s->local_ref.buf)) {
			git_oid_cpy(remote_tip, &heads[i]->oid);
			*exists = true;
		}
	}
	if (!*exists)
		goto done;
	strbuf_addf(&refspec, "+%s:%s", s->local_ref.buf, s->tracking_ref.buf);
	specs[0] = refspec.buf;
	git_fetch_options_init(&fetch_opts, GIT_FETCH_OPTIONS_VERSION);
	fetch_opts.callbacks = callbacks;
	fetch_opts.proxy_opts = proxy;
	fetch_opts.prune = GIT_FETCH_NO_PRUNE;
	fetch_opts.update_fetchhead = 0;
	fetch_opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if ((code = git_remote_download(s->remote, &refspecs, &fetch_opts)) <
		    0 ||
	    (code = git_remote_update_tips(s->remote, &callbacks, 0,
					   GIT_REMOTE_DOWNLOAD_TAGS_NONE,
					   "benchgate sync: fetch")) < 0)
		error = network_error(s, "fetch", code);
done:
	git_remote_disconnect(s->remote);
	strbuf_release(&refspec);
	return error;
}

/* The local branch */

static int read_local(struct sync *s, git_oid *tip, bool *exists)
{
	int error = git_reference_name_to_id(tip, s->repo, s->local_ref.buf);

	*exists = error == 0;
	if (error == GIT_ENOTFOUND) {
		git_error_clear();
		return BG_OK;
	}
	if (error < 0)
		return bg_error("cannot read branch '%s': %s", s->branch,
				gitref_message());
	return BG_OK;
}

/* Merging */

struct additions {
	git_tree_update *updates;
	char **paths;
	size_t nr, alloc, paths_alloc;
};

static void additions_release(struct additions *adds)
{
	for (size_t i = 0; i < adds->nr; i++)
		free(adds->paths[i]);
	free(adds->paths);
	free(adds->updates);
	memset(adds, 0, sizeof(*adds));
}

static bool path_taken(git_tree *tree, const struct additions *adds,
		       const char *path)
{
	git_tree_entry *entry = NULL;

	for (size_t i = 0; i < adds->nr; i++)
		if (!strcmp(adds->paths[i], path))
			return true;
	if (git_tree_entry_bypath(&entry, tree, path) < 0) {
		git_error_clear();
		return false;
	}
	git_tree_entry_free(entry);
	return true;
}

/*
 * A free path for a file whose path the remote has with other content: a
 * result takes the store's next free suffix ("<suite>-<ts>-N.json", so it
 * stays a result), any other file "-N" before its extension.
 */
static void free_path(git_tree *tree, const struct additions *adds,
		      const char *path, struct strbuf *out)
{
	const char *slash = strrchr(path, '/');
	const char *file = slash ? slash + 1 : path;
	size_t dir_len = (size_t)(file - path);
	struct strbuf stem = STRBUF_INIT, name = STRBUF_INIT;
	char ts[STORE_TIMESTAMP_LEN + 1];
	const char *ext = strrchr(file, '.');
	char *suite = NULL;
	unsigned seq, n;

	if (store_parse_result_name(file, &suite, ts, &seq)) {
		strbuf_addf(&stem, "%s-%s", suite, ts);
		ext = ".json";
	} else {
		if (!ext || ext == file)
			ext = file + strlen(file);
		strbuf_add(&stem, file, (size_t)(ext - file));
	}
	for (n = 1;; n++) {
		store_name_candidate(&name, stem.buf, n);
		strbuf_reset(out);
		strbuf_add(out, path, dir_len);
		strbuf_addf(out, "%s%s", name.buf, ext);
		if (!path_taken(tree, adds, out->buf))
			break;
	}
	free(suite);
	strbuf_release(&stem);
	strbuf_release(&name);
}

static void add_update(struct additions *adds, const char *path,
		       const git_oid *id, git_filemode_t mode)
{
	git_tree_update *update;

	ALLOC_GROW(adds->updates, adds->nr + 1, adds->alloc);
	ALLOC_GROW(adds->paths, adds->nr + 1, adds->paths_alloc);
	adds->paths[adds->nr] = xstrdup(path);
	update = &adds->updates[adds->nr];
	update->action = GIT_TREE_UPDATE_UPSERT;
	git_oid_cpy(&update->id, id);
	update->filemode = mode;
	update->path = adds->paths[adds->nr];
	adds->nr++;
}

/*
 * The files this side added since the merge base, re-applied on the
 * remote's tree (see sync.h).
 */
static int collect_additions(struct sync *s, git_tree *base, git_tree *local,
			     git_tree *remote, struct additions *adds,
			     struct sync_report *report)
{
	struct strbuf renamed = STRBUF_INIT;
	git_diff_options diff_opts;
	git_diff *diff = NULL;
	size_t i, n;
	int error = BG_OK;

	git_diff_options_init(&diff_opts, GIT_DIFF_OPTIONS_VERSION);
	if (git_diff_tree_to_tree(&diff, s->repo, base, local, &diff_opts) <
	    0) {
		error = bg_error("cannot compare the trees of branch '%s': %s",
				 s->branch, gitref_message());
		goto done;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++) {
		const git_diff_delta *delta = git_diff_get_delta(diff, i);
		const git_diff_file *file = &delta->new_file;
		git_tree_entry *theirs = NULL;

		if (delta->status != GIT_DELTA_ADDED &&
		    delta->status != GIT_DELTA_MODIFIED &&
		    delta->status != GIT_DELTA_TYPECHANGE)
			continue;
		if (file->mode != GIT_FILEMODE_BLOB &&
		    file->mode != GIT_FILEMODE_BLOB_EXECUTABLE)
			continue;
		if (git_tree_entry_bypath(&theirs, remote, file->path) < 0) {
			git_error_clear();
			add_update(adds, file->path, &file->id, file->mode);
			continue;
		}
		/* Identical content at one path: the same result, twice. */
		if (git_oid_equal(git_tree_entry_id(theirs), &file->id)) {
			git_tree_entry_free(theirs);
			continue;
		}
		git_tree_entry_free(theirs);
		free_path(remote, adds, file->path, &renamed);
		add_update(adds, renamed.buf, &file->id, file->mode);
		report->renamed++;
	}
	report->added = (unsigned)adds->nr;
done:
	git_diff_free(diff);
	strbuf_release(&renamed);
	return error;
}

/* A merge commit on top of remote_tip: its tree the remote's plus this
 * side's additions, its parents the remote tip and the local tip. */
static int merge_on_top(struct sync *s, const git_oid *remote_tip,
			const git_oid *local_tip, git_oid *out,
			struct sync_report *report)
{
	const git_commit *parents[2] = { NULL, NULL };
	git_commit *base_commit = NULL;
	git_tree *remote = NULL, *local = NULL, *base = NULL, *merged = NULL;
	git_signature *sig = NULL;
	struct additions adds = { 0 };
	struct strbuf message = STRBUF_INIT;
	git_oid base_id, tree_id;
	int error;

	report->added = report->renamed = 0;
	if (git_commit_lookup((git_commit **)&parents[0], s->repo, remote_tip) <
		    0 ||
	    git_commit_lookup((git_commit **)&parents[1], s->repo, local_tip) <
		    0 ||
	    git_commit_tree(&remote, parents[0]) < 0 ||
	    git_commit_tree(&local, parents[1]) < 0) {
		error = bg_error("cannot read branch '%s': %s", s->branch,
				 gitref_message());
		goto done;
	}
	error = git_merge_base(&base_id, s->repo, local_tip, remote_tip);
	if (error == 0) {
		if (git_commit_lookup(&base_commit, s->repo, &base_id) < 0 ||
		    git_commit_tree(&base, base_commit) < 0) {
			error = bg_error("cannot read branch '%s': %s",
					 s->branch, gitref_message());
			goto done;
		}
	} else if (error == GIT_ENOTFOUND) {
		/* Two histories started independently: everything local
		 * counts as added. */
		git_error_clear();
	} else {
		error = bg_error("cannot find where branch '%s' and '%s/%s' "
				 "diverged: %s",
				 s->branch, s->remote_name, s->branch,
				 gitref_message());
		goto done;
	}
	if ((error = collect_additions(s, base, local, remote, &adds, report)) <
	    0)
		goto done;
	if (git_tree_create_updated(&tree_id, s->repo, remote, adds.nr,
				    adds.updates) < 0 ||
	    git_tree_lookup(&merged, s->repo, &tree_id) < 0) {
		error = bg_error("cannot build the merged tree of branch '%s': "
				 "%s",
				 s->branch, gitref_message());
		goto done;
	}
	if ((error = gitref_signature(&sig, s->repo)) < 0)
		goto done;
	strbuf_addf(&message,
		    "benchgate sync: merge %s/%s (%zu file%s from "
		    "this runner)\n",
		    s->remote_name, s->branch, adds.nr,
		    adds.nr == 1 ? "" : "s");
	if (git_commit_create(out, s->repo, NULL, sig, sig, NULL, message.buf,
			      merged, 2, parents) < 0)
		error = bg_error("cannot commit to branch '%s': %s", s->branch,
				 gitref_message());
done:
	git_commit_free((git_commit *)parents[0]);
	git_commit_free((git_commit *)parents[1]);
	git_commit_free(base_commit);
	git_tree_free(remote);
	git_tree_free(local);
	git_tree_free(base);
	git_tree_free(merged);
	git_signature_free(sig);
	additions_release(&adds);
	strbuf_release(&message);
	return error;
}

/* Pushing */

/* A local path or file:// URL, into `path`: false for network URLs (and
 * scp-like "host:path", which is never an existing directory here). */
static bool local_remote_path(const char *url, struct strbuf *path)
{
	struct stat st;

	strbuf_reset(path);
	if (!strncmp(url, "file://", 7)) {
		strbuf_addstr(path, url + 7);
		return true;
	}
	if (strstr(url, "://") || stat(url, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	strbuf_addstr(path, url);
	return true;
}

/* See sync.h for why a local remote is not pushed through the transport. */
static int push_local(struct sync *s, const git_oid *tip,
		      const git_oid *expected)
{
	git_repository *remote_repo = NULL;
	git_packbuilder *packer = NULL;
	git_reference *head = NULL, *tracking = NULL;
	git_revwalk *walk = NULL;
	git_buf objects = { NULL, 0, 0 };
	struct strbuf pack_dir = STRBUF_INIT;
	int error = BG_OK, moved;

	if (repo_open_at(&remote_repo, s->local_path.buf) < 0) {
		error = bg_error("cannot open remote '%s' at '%s': %s",
				 s->remote_name, s->local_path.buf,
				 gitref_message());
		goto done;
	}
	/* As git's receive.denyCurrentBranch: a checked-out branch would
	 * leave that work tree out of step. */
	if (!git_repository_is_bare(remote_repo) &&
	    git_reference_lookup(&head, remote_repo, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    !strcmp(git_reference_symbolic_target(head), s->local_ref.buf)) {
		error = bg_input_error("remote '%s' has branch '%s' checked "
				       "out; refusing to update it",
				       s->remote_name, s->branch);
		goto done;
	}
	if (git_repository_item_path(&objects, remote_repo,
				     GIT_REPOSITORY_ITEM_OBJECTS) < 0 ||
	    git_revwalk_new(&walk, s->repo) < 0 ||
	    git_revwalk_push(walk, tip) < 0 ||
	    (expected && git_revwalk_hide(walk, expected) < 0) ||
	    git_packbuilder_new(&packer, s->repo) < 0 ||
	    git_packbuilder_insert_walk(packer, walk) < 0) {
		error = network_error(s, "push", BG_ERROR);
		goto done;
	}
	strbuf_addf(&pack_dir, "%spack", objects.ptr);
	if (git_packbuilder_object_count(packer) > 0 &&
	    git_packbuilder_write(packer, pack_dir.buf, 0, NULL, NULL) < 0) {
		error = network_error(s, "push", BG_ERROR);
		goto done;
	}
	moved = gitref_move(remote_repo, s->local_ref.buf, expected, tip,
			    "benchgate sync: push");
	if (moved < 0) {
		error = moved;
		goto done;
	}
	if (moved) {
		s->rejected = true;
		strbuf_reset(&s->reject_message);
		strbuf_addstr(&s->reject_message, "the remote branch moved");
		goto done;
	}
	/* What a push through the transport does: the remote-tracking ref
	 * follows. */
	if (git_reference_create(&tracking, s->repo, s->tracking_ref.buf, tip,
				 1, "benchgate sync: push") < 0)
		bg_warn("cannot update '%s': %s", s->tracking_ref.buf,
			gitref_message());
done:
	git_reference_free(tracking);
	git_reference_free(head);
	git_packbuilder_free(packer);
	git_revwalk_free(walk);
	git_buf_dispose(&objects);
	git_repository_free(remote_repo);
	strbuf_release(&pack_dir);
	return error;
}

static int push_status(const char *refname, const char *status, void *data)
{
	struct sync *s = data;

	(void)refname;
	if (status) {
		s->rejected = true;
		strbuf_reset(&s->reject_message);
		strbuf_addstr(&s->reject_message, status);
	}
	return 0;
}

static int push_network(struct sync *s)
{
	struct strbuf refspec = STRBUF_INIT;
	git_push_options push_opts;
	char *specs[1];
	git_strarray refspecs = { specs, 1 };
	int error;

	git_push_options_init(&push_opts, GIT_PUSH_OPTIONS_VERSION);
	init_callbacks(s, &push_opts.callbacks);
	push_opts.callbacks.push_update_reference = push_status;
	push_opts.proxy_opts.type = GIT_PROXY_AUTO;
	/* Not forced: the remote accepts only a fast-forward of its tip. */
	strbuf_addf(&refspec, "%s:%s", s->local_ref.buf, s->local_ref.buf);
	specs[0] = refspec.buf;
	error = git_remote_push(s->remote, &refspecs, &push_opts);
	if (error == GIT_ENONFASTFORWARD) {
		/* libgit2 noticed before sending: the remote moved since our
		 * fetch. */
		s->rejected = true;
		strbuf_reset(&s->reject_message);
		strbuf_addstr(&s->reject_message, gitref_message());
		git_error_clear();
		error = BG_OK;
	} else if (error < 0) {
		error = network_error(s, "push", error);
	}
	strbuf_release(&refspec);
	return error;
}

static int push(struct sync *s, const git_oid *tip, const git_oid *expected)
{
	s->rejected = false;
	memset(&s->auth, 0, sizeof(s->auth));
	if (s->local_path.len)
		return push_local(s, tip, expected);
	return push_network(s);
}

/* Jittered (x0.5 to x1.5), doubling pauses after each rejected push. */
static void backoff(struct sync *s, unsigned pushes)
{
	double jitter =
		0.5 + (double)rand_r(&s->random_state) / ((double)RAND_MAX + 1);
	double ms = BACKOFF_BASE_MS * ldexp(1.0, (int)pushes - 1) * jitter *
		    s->backoff_scale;
	struct timespec pause;

	if (!(ms > 0))
		return;
	pause.tv_sec = (time_t)(ms / 1000);
	pause.tv_nsec = (long)((ms - (double)pause.tv_sec * 1000) * 1e6);
	while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
		;
}

static int backoff_scale(const struct sync_options *opts, double *out)
{
	const char *text = getenv("BENCHGATE_SYNC_BACKOFF_SCALE");
	char *end;

	*out = 1;
	if (opts->backoff_scale >= 0) {
		*out = opts->backoff_scale;
		return BG_OK;
	}
	if (!text || !*text)
		return BG_OK;
	*out = strtod(text, &end);
	if (end == text || *end || !(*out >= 0) || *out > 1000)
		return bg_input_error(
			"BENCHGATE_SYNC_BACKOFF_SCALE: expected a "
			"number from 0 to 1000, found '%s'",
			text);
	return BG_OK;
}

/* Whether --remote names a repository rather than a configured remote:
 * a URL ("https://...", "file://..."), an scp-like "host:path" or a
 * path ("/srv/results.git", "./results.git"). */
static bool remote_is_url(const char *name)
{
	const char *colon = strchr(name, ':');

	return strstr(name, "://") || name[0] == '/' || name[0] == '.' ||
	       (colon && !memchr(name, '/', (size_t)(colon - name)));
}

/*
 * A remote that is a URL: an anonymous remote, its branch fetched into
 * "refs/benchgate/remotes/<hash of the URL>/<branch>", which no `git
 * fetch` of the code's remotes touches. Results kept in a repository of
 * their own never ride along with a clone of the code.
 */
static int open_url_remote(struct sync *s)
{
	int error = git_remote_create_anonymous(&s->remote, s->repo,
						 s->remote_name);

	if (error < 0)
		return error;
	strbuf_addf(&s->tracking_ref, "refs/benchgate/remotes/%016llx/%s",
		    (unsigned long long)hash_fnv1a64(s->remote_name,
						     strlen(s->remote_name)),
		    s->branch);
	return 0;
}

/* The whole sync */

static int open_sync(struct sync *s, const struct sync_options *opts)
{
	const char *url;
	int valid = 0, error;

	s->remote_name = opts->remote ? opts->remote : DEFAULT_REMOTE;
	s->branch = opts->branch ? opts->branch : DEFAULT_BRANCH;
	s->random_state = (unsigned)getpid() ^ (unsigned)time(NULL);
	if ((error = backoff_scale(opts, &s->backoff_scale)) < 0)
		return error;
	strbuf_addf(&s->local_ref, "refs/heads/%s", s->branch);
	if (!*s->branch ||
	    git_reference_name_is_valid(&valid, s->local_ref.buf) < 0 || !valid)
		return bg_input_error("--branch: '%s' is not a valid branch "
				      "name",
				      s->branch);
	if (opts->repo_path ? repo_open_at(&s->repo, opts->repo_path) < 0
			    : repo_open(&s->repo, NULL) < 0)
		return bg_input_error("sync: the current directory is not in a "
				      "git repository that can be opened: %s",
				      gitref_message());
	error = git_remote_lookup(&s->remote, s->repo, s->remote_name);
	if ((error == GIT_ENOTFOUND || error == GIT_EINVALIDSPEC) &&
	    remote_is_url(s->remote_name))
		error = open_url_remote(s);
	else if (error == 0)
		strbuf_addf(&s->tracking_ref, "refs/remotes/%s/%s",
			    s->remote_name, s->branch);
	if (error == GIT_ENOTFOUND || error == GIT_EINVALIDSPEC)
		return bg_input_error("--remote: the repository has no remote "
				      "'%s'",
				      s->remote_name);
	if (error < 0)
		return bg_error("cannot read remote '%s': %s", s->remote_name,
				gitref_message());
	url = git_remote_pushurl(s->remote);
	if (!url)
		url = git_remote_url(s->remote);
	if (!url)
		return bg_input_error("remote '%s' has no URL", s->remote_name);
	local_remote_path(url, &s->local_path);
	return BG_OK;
}

int sync_run(const struct sync_options *opts, struct sync_report *report)
{
	struct sync s = { .local_ref = STRBUF_INIT,
			  .tracking_ref = STRBUF_INIT,
			  .local_path = STRBUF_INIT,
			  .reject_message = STRBUF_INIT };
	unsigned local_races = 0;
	git_oid remote_tip, local_tip, merged, to_push;
	bool remote_exists, local_exists;
	int error, moved;

	memset(report, 0, sizeof(*report));
	memset(&merged, 0, sizeof(merged));
	if ((error = open_sync(&s, opts)) < 0)
		goto done;
	for (;;) {
		bool merging = false;

		if (local_races > LOCAL_RACES_MAX) {
			error = bg_error("branch '%s' kept changing locally "
					 "during the sync",
					 s.branch);
			goto done;
		}
		if ((error = fetch(&s, &remote_tip, &remote_exists)) < 0 ||
		    (error = read_local(&s, &local_tip, &local_exists)) < 0)
			goto done;
		if (!local_exists && !remote_exists) {
			report->action = SYNC_NOTHING;
			break;
		}
		if (!local_exists ||
		    (remote_exists &&
		     git_graph_descendant_of(s.repo, &remote_tip, &local_tip) ==
			     1)) {
			/* Only the remote moved: a fast-forward. */
			moved = gitref_move(s.repo, s.local_ref.buf,
					    local_exists ? &local_tip : NULL,
					    &remote_tip,
					    "benchgate sync: fetch");
			if (moved < 0) {
				error = moved;
				goto done;
			}
			if (moved) {
				local_races++;
				continue;
			}
			report->action = SYNC_FETCHED;
			git_oid_tostr(report->tip, sizeof(report->tip),
				      &remote_tip);
			break;
		}
		if (remote_exists && git_oid_equal(&remote_tip, &local_tip)) {
			report->action = SYNC_UP_TO_DATE;
			git_oid_tostr(report->tip, sizeof(report->tip),
				      &local_tip);
			break;
		}
		git_oid_cpy(&to_push, &local_tip);
		if (remote_exists &&
		    git_graph_descendant_of(s.repo, &local_tip, &remote_tip) !=
			    1) {
			if ((error = merge_on_top(&s, &remote_tip, &local_tip,
						  &merged, report)) < 0)
				goto done;
			moved = gitref_move(s.repo, s.local_ref.buf, &local_tip,
					    &merged, "benchgate sync: merge");
			if (moved < 0) {
				error = moved;
				goto done;
			}
			if (moved) {
				local_races++;
				continue;
			}
			git_oid_cpy(&to_push, &merged);
			merging = true;
		}
		report->pushes++;
		if ((error = push(&s, &to_push,
				  remote_exists ? &remote_tip : NULL)) < 0)
			goto done;
		if (!s.rejected) {
			report->action = merging ? SYNC_MERGED : SYNC_PUSHED;
			git_oid_tostr(report->tip, sizeof(report->tip),
				      &to_push);
			break;
		}
		if (report->pushes == SYNC_ATTEMPTS) {
			error = bg_error(
				"cannot push '%s' to remote '%s': "
				"rejected %u times (%s); other runners "
				"kept pushing first, try again",
				s.branch, s.remote_name, report->pushes,
				s.reject_message.buf);
			goto done;
		}
		backoff(&s, report->pushes);
	}
	error = BG_OK;
done:
	git_remote_free(s.remote);
	git_repository_free(s.repo);
	strbuf_release(&s.local_ref);
	strbuf_release(&s.tracking_ref);
	strbuf_release(&s.local_path);
	strbuf_release(&s.reject_message);
	return error;
}
