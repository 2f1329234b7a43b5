/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_WEBURL_H
#define BENCHGATE_WEBURL_H

#include "harness/util/strbuf.h"

#include <git2.h>

/*
 * The web address of a repository, for links to its commits
 * ("<url>/commit/<id>", as GitHub, GitLab, Gitea and Bitbucket all serve
 * them): derived from the URL of a remote, so a published dashboard links
 * each change point to the commit without being told where the code lives.
 */

/*
 * Appends to out the https address that the remote URL `url` names, and
 * returns 1; returns 0, appending nothing, when it names no web host:
 *   https://host/o/r.git, http://host/o/r    -> https://host/o/r
 *   git@host:o/r.git, ssh://git@host:22/o/r  -> https://host/o/r
 *   git://host/o/r.git                       -> https://host/o/r
 * A user name or password in the URL (a token in a CI clone) is dropped,
 * never copied into a page; so are a port, a trailing ".git" and '/'.
 * Local paths, file:// URLs and anything with a character outside
 * letters, digits and - . _ ~ / in the host or path name no web host: 0.
 */
int weburl_from_remote(struct strbuf *out, const char *url);

/*
 * Appends the web address of the remote `remote` (NULL: "origin") of repo
 * (repo.h; NULL: none), as weburl_from_remote() derives it, and returns
 * 1; 0 when there is no repository, no such remote, or its URL names no
 * web host. Never fails: a dashboard without links is still a dashboard.
 */
int weburl_of_repository(struct strbuf *out, git_repository *repo,
			 const char *remote);

#endif
