/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_COMMENT_H
#define BENCHGATE_COMMENT_H

#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * The pull/merge-request comment: `benchgate comment` posts a report (the
 * Markdown reporter's report.md) on a GitHub pull request or a GitLab merge
 * request, and on every later push edits that same comment instead of
 * adding another, so a request has one living comment per suite.
 *
 * The pieces, each in its own module of harness/forge/:
 *   target.h    the forge, repository, number and token, from the options
 *               and the CI environment
 *   body.h      the marker that finds the comment again, and the length
 *               limit
 *   github.h,   the two APIs (provider.h): URLs, headers, pagination
 *   gitlab.h
 *   http.h      the libcurl client: retries, rate limits, backoff
 *   redact.h    no message ever holds the token
 *
 * A create (POST) is not blindly retried: after a 5xx or a transport error
 * it may have been applied, so the comments are listed again first and an
 * existing one is updated.
 */

#define COMMENT_MAX_PAGES 100 /* of 100 comments each */

struct comment_options {
	const char *provider;  /* "github", "gitlab"; NULL: detect */
	const char *body_path; /* required: the Markdown to post */
	const char *repo;      /* NULL: from the environment */
	const char *number;    /* PR number or MR iid; NULL: environment */
	const char *api_url;   /* NULL: environment, then the default */
	const char *marker;    /* a name, as a suite name; NULL: the
				* body's first-line marker, else
				* "<!-- benchgate -->" */
	bool dry_run;	       /* resolve and describe; send nothing, and
				* need no token */
};

/*
 * Creates the comment, or updates the one whose body starts with the
 * marker, and appends one line saying which to summary ("created comment
 * 42 on octo/repo#7: URL"). With dry_run, appends what would be sent
 * (methods, URLs, body size) instead, without any network access. A body
 * longer than the forge holds is cut at a line end, with a warning.
 *
 * BG_EINPUT (exit 2) for what the user must fix: a bad option, a missing
 * repository, number or token, an unreadable body file, and the server's
 * 401, 403 and 404, whose messages say what to check. BG_ERROR for other
 * failures, such as 5xx answers after the last retry. The recorded
 * message never holds the token.
 */
int comment_upsert(const struct comment_options *opts, struct strbuf *summary);

#endif
