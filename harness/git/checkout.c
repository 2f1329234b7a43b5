/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/git/checkout.h"

#include "harness/git/gitinfo.h"
#include "harness/git/gitref.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/util/scratch.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct checkout_area {
	struct scratch scratch; /* claimed: reclaimed after a kill -9 */
	char *dir;
};

int checkout_area_new(struct checkout_area **out, const char *label)
{
	struct checkout_area *area = xcalloc(1, sizeof(*area));
	int error;

	*out = area;
	area->scratch.owner_fd = -1;
	error = scratch_claim(&area->scratch, label);
	area->dir = area->scratch.dir;
	return error;
}

int checkout_commit(struct checkout_area *area, git_repository *repo,
		    git_commit *commit, const char *name, struct strbuf *dir)
{
	git_checkout_options opts;
	struct strbuf path = STRBUF_INIT;
	git_tree *tree = NULL;
	int error = BG_OK;

	strbuf_addf(&path, "%s/%s", area->dir, name);
	if (mkdir(path.buf, 0777) < 0) {
		error = bg_error("cannot make the checkout directory '%s': %s",
				 path.buf, strerror(errno));
		goto done;
	}
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	/* no index or HEAD of the repository is read or written: the
	 * target directory gets the commit's files and nothing else */
	opts.checkout_strategy = GIT_CHECKOUT_FORCE |
				 GIT_CHECKOUT_DONT_UPDATE_INDEX;
	opts.target_directory = path.buf;
	if (git_commit_tree(&tree, commit) < 0 ||
	    git_checkout_tree(repo, (const git_object *)tree, &opts) < 0) {
		error = bg_error("cannot check out %s into '%s': %s",
				 git_oid_tostr_s(git_commit_id(commit)),
				 path.buf, gitref_message());
		remove_tree(path.buf);
		goto done;
	}
	strbuf_add(dir, path.buf, path.len);
done:
	git_tree_free(tree);
	strbuf_release(&path);
	return error;
}

void checkout_area_free(struct checkout_area *area)
{
	if (!area)
		return;
	scratch_release(&area->scratch);
	free(area);
}

static bool is_directory(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int checkout_place(struct strbuf *out, const char *path, const char *tree)
{
	struct strbuf found = STRBUF_INIT, resolved = STRBUF_INIT;
	char *copy = xstrdup(path), *copy2 = xstrdup(path), *copy3;
	char *full = realpath(path, NULL), *root = NULL;
	int error = BG_OK;
	size_t len;

	if (full) {
		strbuf_addstr(&resolved, full);
	} else {
		/* a build directory not made yet: its parent decides */
		char *parent = realpath(dirname(copy), NULL);

		if (parent)
			strbuf_addf(&resolved, "%s/%s", parent,
				    basename(copy2));
		free(parent);
	}
	copy3 = xstrdup(resolved.buf);
	/* found from the directory itself, or a file's (or a directory
	 * still to be made) from its parent */
	if (!resolved.len ||
	    gitinfo_repo_root(full && is_directory(full) ? full
							 : dirname(copy3),
			      &found) < 0 ||
	    !(root = realpath(found.buf, NULL))) {
		error = bg_notfound("'%s' is not in a git work tree", path);
		goto done;
	}
	len = strlen(root);
	if (strncmp(resolved.buf, root, len) ||
	    (resolved.buf[len] && resolved.buf[len] != '/')) {
		error = bg_notfound("'%s' is outside the work tree '%s'", path,
				    root);
		goto done;
	}
	strbuf_addf(out, "%s%s", tree, resolved.buf + len);
done:
	free(full);
	free(root);
	free(copy);
	free(copy2);
	free(copy3);
	strbuf_release(&found);
	strbuf_release(&resolved);
	return error;
}
