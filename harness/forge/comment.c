/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The create-or-update verb; the contract is in comment.h. One flow serves
 * both forges: resolve the target, prepare the body, list the comments
 * page by page looking for the marker, then update the one found or create
 * one. What differs between GitHub and GitLab is behind struct provider.
 */
#include "harness/forge/comment.h"

#include "harness/forge/body.h"
#include "harness/forge/github.h"
#include "harness/forge/gitlab.h"
#include "harness/forge/http.h"
#include "harness/forge/provider.h"
#include "harness/forge/redact.h"
#include "harness/forge/target.h"
#include "harness/util/error.h"
#include "harness/util/utf8.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The forge of one target, over one HTTP client. */
struct remote {
	const struct provider *provider;
	const struct target *target;
	struct http_client *http;
};

static const struct provider *provider_of(const struct target *t)
{
	return t->forge == TARGET_GITHUB ? &github_provider : &gitlab_provider;
}

static int remote_connect(struct remote *r)
{
	const struct provider *p = r->provider;
	struct strbuf token = STRBUF_INIT;
	const char *headers[8];
	size_t nr = 0;
	int error;

	for (const char *const *h = p->headers; *h; h++) {
		assert(nr + 2 < sizeof(headers) / sizeof(*headers));
		headers[nr++] = *h;
	}
	p->add_token_header(&token, r->target);
	headers[nr++] = token.buf;
	headers[nr] = NULL;
	error = http_client_new(&r->http, &(struct http_client_options){
						  .service = p->name,
						  .secret = r->target->token,
						  .headers = headers,
					  });
	strbuf_release(&token);
	return error;
}

/* The error for an answer that is not 2xx, saying what to check. */
static int status_error(const struct remote *r, const char *method,
			const char *url, const struct http_response *res,
			int attempts)
{
	const struct provider *p = r->provider;
	const struct target *t = r->target;
	struct strbuf msg = STRBUF_INIT;
	int error;

	if (res->status == 401) {
		strbuf_addf(&msg,
			    "%s rejected the token (401) on %s %s: check "
			    "that %s holds a valid, unexpired token",
			    p->name, method, url, t->token_env);
	} else if (res->status == 403 && !http_is_rate_limited(res)) {
		strbuf_addf(&msg,
			    "%s refused the request (403) on %s %s: ", p->name,
			    method, url);
		p->add_forbidden_hint(&msg, t);
	} else if (res->status == 404) {
		strbuf_addf(&msg,
			    "%s: not found (404) on %s %s: check --repo "
			    "(%s) and --pr (%s), and that %s can see the "
			    "project",
			    p->name, method, url, t->repo, t->number.buf,
			    t->token_env);
	} else {
		return http_status_error(r->http, method, url, res, attempts);
	}
	http_add_server_message(&msg, res);
	error = redact_error(t->token, BG_EINPUT, "%s", msg.buf);
	strbuf_release(&msg);
	return error;
}

/* Finding our comment */

/* Appends the id of the first comment of the page that is ours. */
static bool find_in_page(const struct provider *p, const cJSON *page,
			 const char *marker, struct strbuf *id)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, page)
	{
		const cJSON *body =
			cJSON_GetObjectItemCaseSensitive(item, "body");

		if (p->is_system_item && p->is_system_item(item))
			continue;
		if (cJSON_IsString(body) &&
		    body_is_ours(body->valuestring, marker) &&
		    provider_add_id(id, cJSON_GetObjectItemCaseSensitive(item,
									 "id")))
			return true;
	}
	return false;
}

/* Appends the id of our comment, or nothing when there is none yet. */
static int find_comment(struct remote *r, const char *marker, struct strbuf *id)
{
	const struct provider *p = r->provider;
	const struct target *t = r->target;
	struct strbuf url = STRBUF_INIT, next = STRBUF_INIT;
	struct http_response res = HTTP_RESPONSE_INIT;
	cJSON *page_json = NULL;
	int error = BG_OK;

	p->list_url(&url, t, 1);
	for (long page = 1; page <= COMMENT_MAX_PAGES; page++) {
		struct strbuf swap;

		if ((error = http_call(r->http, "GET", url.buf, NULL,
				       HTTP_IDEMPOTENT, &res)) < 0)
			goto done;
		if (!http_is_success(res.status)) {
			error = status_error(r, "GET", url.buf, &res, 1);
			goto done;
		}
		cJSON_Delete(page_json);
		page_json = cJSON_ParseWithLength(res.body.buf, res.body.len);
		if (!cJSON_IsArray(page_json)) {
			error = redact_error(t->token, BG_ERROR,
					     "GET %s: expected a JSON array of "
					     "%ss",
					     url.buf, p->item);
			goto done;
		}
		if (find_in_page(p, page_json, marker, id))
			goto done;
		strbuf_reset(&next);
		if ((error = p->next_page_url(&next, t, &res, page)) < 0 ||
		    !next.len)
			goto done;
		swap = url;
		url = next;
		next = swap;
	}
	error = redact_error(t->token, BG_ERROR,
			     "%s %s%c%s has more than %d pages of %ss; not "
			     "looking further",
			     p->name, t->repo, p->sigil, t->number.buf,
			     COMMENT_MAX_PAGES, p->item);
done:
	cJSON_Delete(page_json);
	http_response_release(&res);
	strbuf_release(&url);
	strbuf_release(&next);
	return error;
}

/* Posting */

/* Reads the body file into the body to send and the marker to find. */
static int load_body(const struct provider *p, const struct target *t,
		     const struct comment_options *opts, struct strbuf *marker,
		     struct strbuf *body)
{
	struct strbuf raw = STRBUF_INIT, text = STRBUF_INIT;
	int error = BG_OK;

	if (!opts->body_path) {
		error = bg_input_error("comment: --body FILE is required");
		goto done;
	}
	if (strbuf_read_file(&raw, opts->body_path) < 0) {
		strbuf_addstr(&text, bg_error_last());
		error = bg_input_error("--body: %s", text.buf);
		goto done;
	}
	if (strlen(raw.buf) != raw.len) {
		error = bg_input_error("--body: '%s' holds a NUL byte; "
				       "expected Markdown text",
				       opts->body_path);
		goto done;
	}
	if (!raw.buf[strspn(raw.buf, " \t\r\n")]) {
		error = bg_input_error("--body: '%s' is empty",
				       opts->body_path);
		goto done;
	}
	escape_utf8(&text, raw.buf);
	body_marker(marker, opts->marker, text.buf);
	if (body_prepare(body, text.buf, marker->buf, p->body_max))
		redact_warn(t->token,
			    "'%s' is longer than the %zu characters a %s %s "
			    "holds; it is cut",
			    opts->body_path, p->body_max, p->name, p->item);
done:
	strbuf_release(&raw);
	strbuf_release(&text);
	return error;
}

static char *json_body(const char *body)
{
	cJSON *root = cJSON_CreateObject();
	char *json;

	if (!root || !cJSON_AddStringToObject(root, "body", body) ||
	    !(json = cJSON_PrintUnformatted(root))) {
		/* cJSON fails only when out of memory, which aborts here as
		 * everywhere in benchgate. */
		fputs("benchgate: out of memory\n", stderr);
		abort();
	}
	cJSON_Delete(root);
	return json;
}

static void describe_dry_run(struct strbuf *out, const struct provider *p,
			     const struct target *t, const char *marker,
			     const char *body, size_t json_len)
{
	struct strbuf url = STRBUF_INIT;

	strbuf_addf(out, "dry run: nothing sent\n%s %s %s%c%s, marker %s\n",
		    p->name, t->request, t->repo, p->sigil, t->number.buf,
		    marker);
	p->list_url(&url, t, 1);
	strbuf_addf(out, "  GET %s (and the pages after it)\n", url.buf);
	p->item_url(&url, t, "{id}");
	strbuf_addf(out, "  %s %s when a %s starts with the marker\n",
		    p->update_method, url.buf, p->item);
	p->create_url(&url, t);
	strbuf_addf(out, "  POST %s otherwise\n", url.buf);
	strbuf_addf(out, "  body: %zu characters, %zu bytes of JSON\n",
		    body_length(body), json_len);
	strbuf_addf(out, "  token: %s %s\n", t->token_env,
		    t->token ? "is set" : "is NOT set (a real run would fail)");
	strbuf_release(&url);
}

static void describe_result(struct strbuf *out, const struct remote *r,
			    const char *verb, const struct http_response *res,
			    const char *found_id)
{
	const struct provider *p = r->provider;
	const struct target *t = r->target;
	cJSON *root = cJSON_ParseWithLength(res->body.buf, res->body.len);
	const cJSON *link = cJSON_GetObjectItemCaseSensitive(root, "html_url");
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "%s %s ", verb, p->item);
	if (!provider_add_id(&line,
			     cJSON_GetObjectItemCaseSensitive(root, "id")))
		strbuf_addstr(&line, found_id);
	strbuf_addf(&line, " on %s%c%s", t->repo, p->sigil, t->number.buf);
	if (cJSON_IsString(link)) {
		strbuf_addstr(&line, ": ");
		http_add_server_text(&line, link->valuestring);
	}
	redact(out, line.buf, t->token);
	strbuf_addch(out, '\n');
	strbuf_release(&line);
	cJSON_Delete(root);
}

/*
 * List, then update or create. A create that failed with a 5xx or in
 * transport may still have been applied, so instead of posting again the
 * round starts over from the listing, which then finds it.
 */
static int upsert(struct remote *r, const char *marker, const char *json,
		  struct strbuf *summary)
{
	const struct provider *p = r->provider;
	const struct target *t = r->target;
	struct strbuf id = STRBUF_INIT, url = STRBUF_INIT, what = STRBUF_INIT;
	struct http_response res = HTTP_RESPONSE_INIT;
	int error;

	for (int round = 1;; round++) {
		const char *method;
		double wait;

		strbuf_reset(&id);
		if ((error = find_comment(r, marker, &id)) < 0)
			goto done;
		if (id.len) {
			method = p->update_method;
			p->item_url(&url, t, id.buf);
			error = http_call(r->http, method, url.buf, json,
					  HTTP_IDEMPOTENT, &res);
		} else {
			method = "POST";
			p->create_url(&url, t);
			error = http_call(r->http, method, url.buf, json, 0,
					  &res);
			if ((error < 0 || res.status >= 500) &&
			    round < HTTP_ATTEMPTS) {
				strbuf_reset(&what);
				if (error < 0)
					strbuf_addstr(&what, bg_error_last());
				else
					strbuf_addf(&what, "POST %s: %ld",
						    url.buf, res.status);
				wait = http_backoff(r->http, round);
				redact_warn(t->token,
					    "%s; listing again in %.3g s in "
					    "case it was created (attempt %d "
					    "of %d)",
					    what.buf, wait, round + 1,
					    HTTP_ATTEMPTS);
				http_sleep(wait);
				continue;
			}
		}
		if (!error && !http_is_success(res.status))
			error = status_error(r, method, url.buf, &res,
					     id.len ? 1 : round);
		if (!error)
			describe_result(summary, r,
					id.len ? "updated" : "created", &res,
					id.buf);
		goto done;
	}
done:
	http_response_release(&res);
	strbuf_release(&id);
	strbuf_release(&url);
	strbuf_release(&what);
	return error;
}

int comment_upsert(const struct comment_options *opts, struct strbuf *summary)
{
	const struct target_options where = {
		.provider = opts->provider,
		.repo = opts->repo,
		.number = opts->number,
		.api_url = opts->api_url,
		.token_optional = opts->dry_run,
	};
	struct target t = TARGET_INIT;
	struct remote r = { .target = &t };
	struct strbuf marker = STRBUF_INIT, body = STRBUF_INIT;
	char *json = NULL;
	int error;

	if ((error = target_resolve(&t, &where)) < 0)
		goto done;
	r.provider = provider_of(&t);
	if ((error = load_body(r.provider, &t, opts, &marker, &body)) < 0)
		goto done;
	json = json_body(body.buf);
	if (opts->dry_run) {
		describe_dry_run(summary, r.provider, &t, marker.buf, body.buf,
				 strlen(json));
		goto done;
	}
	if ((error = remote_connect(&r)) < 0)
		goto done;
	error = upsert(&r, marker.buf, json, summary);
done:
	http_client_free(r.http);
	cJSON_free(json);
	strbuf_release(&marker);
	strbuf_release(&body);
	target_release(&t);
	return error;
}
