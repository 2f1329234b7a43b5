/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/git/weburl.h"

#include "harness/git/gitinfo.h"
#include "harness/git/repo.h"

#include <git2.h>
#include <string.h>
#include <strings.h>

/* What may stay in the address: it becomes a link in every page. */
static bool plain_url_text(const char *s, size_t len)
{
	static const char allowed[] = "abcdefghijklmnopqrstuvwxyz"
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789-._~/";

	for (size_t i = 0; i < len; i++)
		if (!s[i] || !strchr(allowed, s[i]))
			return false;
	return len > 0;
}

static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t len = strlen(prefix);

	return strncasecmp(s, prefix, len) ? NULL : s + len;
}

int weburl_from_remote(struct strbuf *out, const char *url)
{
	const char *rest = NULL, *host, *host_end, *path, *at;
	size_t path_len, host_len;
	bool scp_like = false;

	if (!url)
		return 0;
	if (!(rest = skip_prefix(url, "https://")) &&
	    !(rest = skip_prefix(url, "http://")) &&
	    !(rest = skip_prefix(url, "ssh://")) &&
	    !(rest = skip_prefix(url, "git+ssh://")) &&
	    !(rest = skip_prefix(url, "git://"))) {
		/* scp-like "user@host:path": a ':' before any '/'. */
		const char *colon = strchr(url, ':');
		const char *slash = strchr(url, '/');

		if (!colon || (slash && slash < colon) || strstr(url, "://"))
			return 0;
		rest = url;
		scp_like = true;
	}
	path = scp_like ? strchr(rest, ':') : strchr(rest, '/');
	if (!path)
		return 0;
	/* The user (and password) end at the last '@' before the path. */
	host = rest;
	for (at = rest; at < path; at++)
		if (*at == '@')
			host = at + 1;
	host_end = host;
	while (host_end < path && *host_end != ':')
		host_end++;
	host_len = (size_t)(host_end - host);
	path++;
	while (*path == '/')
		path++;
	path_len = strlen(path);
	while (path_len && path[path_len - 1] == '/')
		path_len--;
	if (path_len > 4 && !strncmp(path + path_len - 4, ".git", 4))
		path_len -= 4;
	if (!plain_url_text(host, host_len) || !plain_url_text(path, path_len) ||
	    strstr(path, "..") || !memchr(host, '.', host_len))
		return 0;
	strbuf_addstr(out, "https://");
	strbuf_add(out, host, host_len);
	strbuf_addch(out, '/');
	strbuf_add(out, path, path_len);
	return 1;
}

int weburl_of_repository(struct strbuf *out, git_repository *repo,
			 const char *remote)
{
	git_remote *origin = NULL;
	int found = 0;

	if (!repo)
		return 0;
	if (git_remote_lookup(&origin, repo, remote ? remote : "origin") == 0)
		found = weburl_from_remote(out, git_remote_url(origin));
	git_remote_free(origin);
	return found;
}
