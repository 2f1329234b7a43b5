/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "harness/git/repo.h"

#include "harness/git/gitref.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t libgit2_once = PTHREAD_ONCE_INIT;

/*
 * libgit2's CA certificates, read when a TLS connection first needs them.
 *
 * git_libgit2_init() of a libgit2 over mbedTLS (Debian's) parses the whole
 * system CA bundle, about 3 ms of CPU at every start, where only `sync`
 * with an https:// remote ever makes a TLS connection; libgit2 has no
 * option to skip or defer it (options can be set only after the init).
 * So the binary defines the three mbedTLS calls below, and exports them
 * (CMakeLists.txt): the dynamic linker binds libgit2's calls to these
 * ahead of mbedTLS's own. During git_libgit2_init(), and only then, the
 * parse of the certificate file is recorded instead of done; the first
 * mbedtls_ssl_setup(), which every TLS session starts with, does it with
 * the real function, into the same chain, so a connection verifies
 * against the certificates it did before. Every other call passes
 * through. With a libgit2 over OpenSSL none of them is called.
 * docs/performance.md has the figures.
 */
int mbedtls_x509_crt_parse_file(void *chain, const char *path);
void mbedtls_x509_crt_free(void *chain);
int mbedtls_ssl_setup(void *ssl, const void *conf);

static pthread_mutex_t ca_lock = PTHREAD_MUTEX_INITIALIZER;
static bool ca_deferring; /* inside git_libgit2_init() */
static void *ca_chain;	  /* the chain whose parse is deferred, or NULL */
static char *ca_file;

/* The next definition of symbol after this binary's, mbedTLS's; memcpy
 * as in nvml.c, for ISO C's sake. */
static void next_symbol(const char *symbol, void *slot, size_t size)
{
	void *address = dlsym(RTLD_NEXT, symbol);

	memcpy(slot, &address, size);
}

int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	int (*parse)(void *, const char *);

	pthread_mutex_lock(&ca_lock);
	if (ca_deferring && !ca_chain) {
		ca_chain = chain;
		ca_file = xstrdup(path);
		pthread_mutex_unlock(&ca_lock);
		return 0;
	}
	pthread_mutex_unlock(&ca_lock);
	next_symbol("mbedtls_x509_crt_parse_file", &parse, sizeof(parse));
	/* -1: mbedTLS's "generic error", should it ever be missing */
	return parse ? parse(chain, path) : -1;
}

void mbedtls_x509_crt_free(void *chain)
{
	void (*release)(void *);

	pthread_mutex_lock(&ca_lock);
	if (chain && chain == ca_chain) {
		ca_chain = NULL;
		free(ca_file);
		ca_file = NULL;
	}
	pthread_mutex_unlock(&ca_lock);
	next_symbol("mbedtls_x509_crt_free", &release, sizeof(release));
	if (release)
		release(chain);
}

int mbedtls_ssl_setup(void *ssl, const void *conf)
{
	int (*setup)(void *, const void *);
	int (*parse)(void *, const char *);
	void *chain;
	char *file;

	/* taken out first: mbedTLS's parse may call the free above */
	pthread_mutex_lock(&ca_lock);
	chain = ca_chain;
	file = ca_file;
	ca_chain = NULL;
	ca_file = NULL;
	pthread_mutex_unlock(&ca_lock);
	if (chain) {
		next_symbol("mbedtls_x509_crt_parse_file", &parse,
			    sizeof(parse));
		/* a failure leaves the chain short: the server's certificate
		 * then fails verification, as with no bundle at all */
		if (parse)
			(void)parse(chain, file);
	}
	free(file);
	next_symbol("mbedtls_ssl_setup", &setup, sizeof(setup));
	return setup ? setup(ssl, conf) : -1;
}

/*
 * libssh2's crypto, set up when an SSH session first needs it.
 *
 * git_libgit2_init() of a libgit2 with libssh2 calls libssh2_init(0),
 * whose OpenSSL back end loads OpenSSL's configuration and registers
 * every cipher and digest (OpenSSL_add_all_algorithms(), the engines):
 * about 1 ms of CPU at every start, where only `sync` with an ssh://
 * remote uses it. libssh2 sets itself up at its first session when that
 * has not happened (libssh2_session_init_ex(), 1.2.5 and later, calls
 * libssh2_init(0) when its count of inits is 0). So the binary defines
 * libssh2_init() too, exported like the three above: the call made
 * during git_libgit2_init() is left out, and every other one (libssh2's
 * own, from its first session) goes to libssh2's. libgit2's
 * libssh2_exit() at its shutdown then finds a count of 0 and does
 * nothing, as a session never made needs nothing undone.
 */
int libssh2_init(int flags);

static bool ssh_deferring; /* inside git_libgit2_init(), under ca_lock */

int libssh2_init(int flags)
{
	int (*init)(int);
	bool deferred;

	pthread_mutex_lock(&ca_lock);
	deferred = ssh_deferring;
	pthread_mutex_unlock(&ca_lock);
	if (deferred)
		return 0;
	next_symbol("libssh2_init", &init, sizeof(init));
	/* -1: libssh2's LIBSSH2_ERROR_SOCKET_NONE, its generic failure */
	return init ? init(flags) : -1;
}

static void libgit2_init_once(void)
{
	pthread_mutex_lock(&ca_lock);
	ca_deferring = true;
	ssh_deferring = true;
	pthread_mutex_unlock(&ca_lock);
	/* A failure here resurfaces as an error of the first real call. */
	git_libgit2_init();
	pthread_mutex_lock(&ca_lock);
	ca_deferring = false;
	ssh_deferring = false;
	pthread_mutex_unlock(&ca_lock);
}

void repo_libgit2_init(void)
{
	pthread_once(&libgit2_once, libgit2_init_once);
}

int repo_open(git_repository **out, const char *start_dir)
{
	*out = NULL;
	repo_libgit2_init();
	/* The ceilings are the one variable worth honouring: they stop the
	 * search from escaping a sandbox (tests, nested checkouts). */
	return git_repository_open_ext(out, start_dir ? start_dir : ".", 0,
				       getenv("GIT_CEILING_DIRECTORIES"));
}

int repo_open_at(git_repository **out, const char *path)
{
	*out = NULL;
	repo_libgit2_init();
	return git_repository_open_ext(out, path,
				       GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
}

int repo_open_or_init_bare(git_repository **out, const char *path)
{
	*out = NULL;
	repo_libgit2_init();
	if (!git_repository_open_bare(out, path))
		return 0;
	return git_repository_init(out, path, 1);
}

/* The first of the candidates that names an object, into *out and name;
 * BG_ENOTFOUND (no message) when none does. */
static int find_first(git_repository *repo, const char *const *candidates,
		      git_object **out, struct strbuf *name)
{
	for (; *candidates; candidates++) {
		if (git_revparse_single(out, repo, *candidates) == 0) {
			strbuf_addstr(name, *candidates);
			return BG_OK;
		}
	}
	return BG_ENOTFOUND;
}

int repo_default_branch(git_repository *repo, const char *branch,
			git_object **out, struct strbuf *name)
{
	const char *defaults[] = { "refs/remotes/origin/HEAD",
				   "main",
				   "master",
				   "origin/main",
				   "origin/master",
				   NULL };
	const char *named[] = { NULL, NULL, NULL };
	struct strbuf remote = STRBUF_INIT;
	const char *const *candidates = defaults;
	int error;

	if (branch) {
		strbuf_addf(&remote, "origin/%s", branch);
		named[0] = remote.buf;
		named[1] = branch;
		candidates = named;
	}
	error = find_first(repo, candidates, out, name);
	strbuf_release(&remote);
	if (error && branch)
		return bg_input_error("--branch: no branch '%s' (nor "
				      "'origin/%s') in the repository",
				      branch, branch);
	return error;
}

int repo_walk_first_parents(git_revwalk **out, git_repository *repo,
			    const git_oid *from)
{
	int error;

	*out = NULL;
	if ((error = git_revwalk_new(out, repo)) < 0 ||
	    (error = git_revwalk_push(*out, from)) < 0) {
		git_revwalk_free(*out);
		*out = NULL;
		return error;
	}
	git_revwalk_simplify_first_parent(*out);
	return 0;
}

int repo_merge_base(git_commit **out, struct strbuf *name,
		    git_repository *repo, const char *ref)
{
	struct strbuf remote = STRBUF_INIT;
	const char *candidates[] = { remote.buf, ref, NULL };
	git_object *object = NULL, *target = NULL, *head = NULL;
	git_oid base;
	int error = BG_OK;

	*out = NULL;
	strbuf_addf(&remote, "origin/%s", ref);
	candidates[0] = remote.buf;
	if (find_first(repo, candidates, &object, name) < 0 ||
	    git_object_peel(&target, object, GIT_OBJECT_COMMIT) < 0) {
		error = bg_input_error("--against: '%s' names no commit of "
				       "the repository (nor does 'origin/%s')",
				       ref, ref);
		goto done;
	}
	if (git_revparse_single(&head, repo, "HEAD") < 0) {
		error = bg_input_error("--against: HEAD names no commit: %s",
				       gitref_message());
		goto done;
	}
	if (git_merge_base(&base, repo, git_object_id(head),
			   git_object_id(target)) < 0) {
		error = bg_input_error("--against: HEAD and '%s' have no "
				       "common history here (a shallow "
				       "clone? fetch the history, as "
				       "fetch-depth: 0 does): %s",
				       name->buf, gitref_message());
		goto done;
	}
	if (git_commit_lookup(out, repo, &base) < 0)
		error = bg_error("cannot read the merge base %s: %s",
				 git_oid_tostr_s(&base), gitref_message());
done:
	git_object_free(object);
	git_object_free(target);
	git_object_free(head);
	strbuf_release(&remote);
	return error;
}
