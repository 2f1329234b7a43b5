/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/git/gitref.h"

#include "harness/util/error.h"

#include <string.h>

const char *gitref_message(void)
{
	const git_error *error = git_error_last();

	return error && error->message ? error->message
				       : "unknown libgit2 error";
}

int gitref_signature(git_signature **out, git_repository *repo)
{
	if (git_signature_default(out, repo) == 0)
		return BG_OK;
	if (git_signature_now(out, "benchgate", "benchgate@localhost") == 0)
		return BG_OK;
	return bg_error("cannot make a commit signature: %s", gitref_message());
}

int gitref_move(git_repository *repo, const char *name, const git_oid *from,
		const git_oid *to, const char *message)
{
	git_reference *ref = NULL;
	git_oid absent;
	int error;

	/* libgit2 (since 1.2) reads an all-zero current id as "must not
	 * exist", and checks it under the lock like any other value. */
	memset(&absent, 0, sizeof(absent));
	error = git_reference_create_matching(&ref, repo, name, to, 1,
					      from ? from : &absent, message);
	git_reference_free(ref);
	if (error == GIT_EMODIFIED || error == GIT_EEXISTS ||
	    error == GIT_ELOCKED) {
		git_error_clear();
		return 1;
	}
	if (error < 0)
		return bg_error("cannot update '%s': %s", name,
				gitref_message());
	return 0;
}
