/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/forge/github.h"

#include "harness/forge/http.h"
#include "harness/forge/redact.h"
#include "harness/forge/target.h"
#include "harness/util/error.h"

#include <string.h>

static const char *const headers[] = {
	"Accept: application/vnd.github+json",
	"X-GitHub-Api-Version: 2022-11-28",
	NULL,
};

static void add_token_header(struct strbuf *out, const struct target *t)
{
	strbuf_addf(out, "Authorization: Bearer %s", t->token);
}

/* Sets url to {api}/repos/OWNER/NAME/issues. */
static void issues_url(struct strbuf *url, const struct target *t)
{
	const char *slash = strchr(t->repo, '/');

	strbuf_reset(url);
	strbuf_addf(url, "%s/repos/", t->api.buf);
	provider_add_path_segment(url, t->repo, (size_t)(slash - t->repo));
	strbuf_addch(url, '/');
	provider_add_path_segment(url, slash + 1, strlen(slash + 1));
	strbuf_addstr(url, "/issues");
}

static void list_url(struct strbuf *url, const struct target *t, long page)
{
	/* Pages after the first come from the Link header. */
	(void)page;
	issues_url(url, t);
	strbuf_addf(url, "/%s/comments?per_page=100", t->number.buf);
}

static void create_url(struct strbuf *url, const struct target *t)
{
	issues_url(url, t);
	strbuf_addf(url, "/%s/comments", t->number.buf);
}

static void item_url(struct strbuf *url, const struct target *t, const char *id)
{
	issues_url(url, t);
	strbuf_addf(url, "/comments/%s", id);
}

static int next_page_url(struct strbuf *next, const struct target *t,
			 const struct http_response *res, long page)
{
	size_t api_len = t->api.len;

	(void)page;
	if (!http_link_next(res, next))
		return BG_OK;
	/* The token goes with the request: follow only links into the API
	 * we were pointed at. */
	if (strncmp(next->buf, t->api.buf, api_len) ||
	    (next->buf[api_len] != '/' && next->buf[api_len] != '?'))
		return redact_error(t->token, BG_ERROR,
				    "GitHub's next-page link '%s' leaves the "
				    "API base '%s'; not following it",
				    next->buf, t->api.buf);
	return BG_OK;
}

static void add_forbidden_hint(struct strbuf *msg, const struct target *t)
{
	strbuf_addf(msg,
		    "check that %s has pull-requests: write (the workflow's "
		    "permissions:; pull requests from forks get a read-only "
		    "token)",
		    t->token_env);
}

const struct provider github_provider = {
	.name = "GitHub",
	.item = "comment",
	.sigil = '#',
	.update_method = "PATCH",
	.body_max = GITHUB_BODY_MAX,
	.headers = headers,
	.add_token_header = add_token_header,
	.list_url = list_url,
	.create_url = create_url,
	.item_url = item_url,
	.next_page_url = next_page_url,
	.add_forbidden_hint = add_forbidden_hint,
};
