/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_TARGET_H
#define BENCHGATE_TARGET_H

#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * Where a comment goes: the forge, its API, the repository, the pull or
 * merge request, and the token, from the options first and then from the
 * CI environment:
 *
 *   forge     --provider; else github when GITHUB_ACTIONS=true, gitlab when
 *             GITLAB_CI=true
 *   API base  --api-url; GITHUB_API_URL or CI_API_V4_URL; else
 *             https://api.github.com or https://gitlab.com/api/v4
 *   repo      --repo; GITHUB_REPOSITORY ("owner/name") or CI_PROJECT_ID
 *             (a number or "group/project")
 *   number    --pr; pull_request.number, number or issue.number of the
 *             JSON file at GITHUB_EVENT_PATH; CI_MERGE_REQUEST_IID
 *   token     GITHUB_TOKEN; GITLAB_TOKEN, else CI_JOB_TOKEN
 *
 * The API base may not hold credentials in its URL: the token variables
 * are the one way a secret comes in, so the one secret to keep out of
 * messages is the token. Nor may it be plain http:// to another machine,
 * which would carry the token in clear text: http:// is allowed only to
 * loopback (localhost, 127.0.0.0/8 as a dotted quad, [::1]), where a test
 * or a local tunnel listens.
 */

enum target_forge {
	TARGET_GITHUB,
	TARGET_GITLAB,
};

struct target_options {
	const char *provider; /* "github", "gitlab"; NULL: detect */
	const char *repo;     /* NULL: from the environment */
	const char *number;   /* PR number or MR iid; NULL: environment */
	const char *api_url;  /* NULL: environment, then the default */
	bool token_optional;  /* a dry run sends nothing */
};

struct target {
	enum target_forge forge;
	const char *request;   /* what a PR is called there: "pull request",
				* "merge request" */
	struct strbuf api;     /* the API base, without a trailing slash */
	const char *repo;      /* borrowed from the options or environ */
	struct strbuf number;  /* digits, not all zeros */
	const char *token;     /* a secret; NULL only when token_optional */
	const char *token_env; /* the variable it comes from (or would) */
};
#define TARGET_INIT                                       \
	{                                                 \
		.api = STRBUF_INIT, .number = STRBUF_INIT \
	}

/*
 * Resolves t (initialised with TARGET_INIT) from opts and the environment
 * as the top of this file says. BG_EINPUT, saying what to pass or set, for
 * an unknown --provider or none detected, a missing or malformed
 * repository, number or API URL, an event file that is unreadable, not
 * JSON or without a number (a push event, say), a plain http:// API URL
 * to a host that is not loopback (even when token_optional: the real run
 * would be refused), and a missing token (unless token_optional) or one
 * holding a control character. The messages never hold the token.
 * Release t with target_release() either way.
 */
int target_resolve(struct target *t, const struct target_options *opts);

void target_release(struct target *t);

#endif
