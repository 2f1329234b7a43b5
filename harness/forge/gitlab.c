/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/forge/gitlab.h"

#include "harness/forge/http.h"
#include "harness/forge/redact.h"
#include "harness/forge/target.h"
#include "harness/util/error.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static const char *const headers[] = {
	"Accept: application/json",
	NULL,
};

static bool is_job_token(const struct target *t)
{
	return !strcmp(t->token_env, "CI_JOB_TOKEN");
}

static void add_token_header(struct strbuf *out, const struct target *t)
{
	strbuf_addf(out, "%s: %s",
		    is_job_token(t) ? "JOB-TOKEN" : "PRIVATE-TOKEN", t->token);
}

/* Sets url to {api}/projects/PROJECT/merge_requests/N/notes. */
static void notes_url(struct strbuf *url, const struct target *t)
{
	strbuf_reset(url);
	strbuf_addf(url, "%s/projects/", t->api.buf);
	provider_add_path_segment(url, t->repo, strlen(t->repo));
	strbuf_addf(url, "/merge_requests/%s/notes", t->number.buf);
}

static void list_url(struct strbuf *url, const struct target *t, long page)
{
	notes_url(url, t);
	strbuf_addf(url, "?per_page=100&page=%ld", page);
}

static void create_url(struct strbuf *url, const struct target *t)
{
	notes_url(url, t);
}

static void item_url(struct strbuf *url, const struct target *t, const char *id)
{
	notes_url(url, t);
	strbuf_addf(url, "/%s", id);
}

static int next_page_url(struct strbuf *next, const struct target *t,
			 const struct http_response *res, long page)
{
	struct strbuf value = STRBUF_INIT;
	int error = BG_OK;
	char *end;
	long following;

	/* The last page has an empty X-Next-Page. */
	if (!http_response_header(res, "X-Next-Page", &value) || !value.len)
		goto done;
	following = strtol(value.buf, &end, 10);
	if (*end || following <= page)
		error = redact_error(t->token, BG_ERROR,
				     "GitLab's X-Next-Page '%s' after page "
				     "%ld is not a later page",
				     value.buf, page);
	else
		list_url(next, t, following);
done:
	strbuf_release(&value);
	return error;
}

static bool is_system_item(const cJSON *item)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "system"));
}

static void add_forbidden_hint(struct strbuf *msg, const struct target *t)
{
	if (is_job_token(t))
		strbuf_addstr(msg, "CI_JOB_TOKEN may not write merge request "
				   "notes; set GITLAB_TOKEN to a project "
				   "access token with the api scope");
	else
		strbuf_addf(msg,
			    "check that %s has the api scope and at least the "
			    "Reporter role",
			    t->token_env);
}

const struct provider gitlab_provider = {
	.name = "GitLab",
	.item = "note",
	.sigil = '!',
	.update_method = "PUT",
	.body_max = GITLAB_BODY_MAX,
	.headers = headers,
	.add_token_header = add_token_header,
	.list_url = list_url,
	.create_url = create_url,
	.item_url = item_url,
	.next_page_url = next_page_url,
	.is_system_item = is_system_item,
	.add_forbidden_hint = add_forbidden_hint,
};
