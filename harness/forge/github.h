/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_GITHUB_H
#define BENCHGATE_GITHUB_H

#include "harness/forge/provider.h"

/*
 * GitHub's REST API for the conversation of a pull request, which is its
 * issue's: GET and POST {api}/repos/OWNER/NAME/issues/N/comments, PATCH
 * {api}/repos/OWNER/NAME/issues/comments/ID
 * (docs.github.com/en/rest/issues/comments). The token goes in
 * "Authorization: Bearer"; pages follow the Link header, and only into the
 * API base, so the token never reaches another host.
 */

/* GitHub's limit on a comment body, in characters (body_length()). */
#define GITHUB_BODY_MAX 65536

extern const struct provider github_provider;

#endif
