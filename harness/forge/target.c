/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Resolving the target from the options and the CI environment; the
 * contract is in target.h. The two CIs differ only in variable names,
 * defaults and the shape of a repository, so one table serves both.
 */
#include "harness/forge/target.h"

#include "harness/forge/http.h"
#include "harness/forge/provider.h"
#include "harness/util/error.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ci {
	const char *option;	    /* the --provider value */
	const char *ci_env;	    /* "true" in that CI */
	const char *api_env;	    /* the API base */
	const char *default_api;    /* outside that CI */
	const char *repo_env;	    /* the repository */
	const char *repo_shape;	    /* for messages: OWNER/NAME */
	const char *number_env;	    /* the number, or GitHub's event */
	bool number_in_event_file;  /* number_env names the event JSON */
	const char *request;	    /* what a PR is called there */
	const char *token_env;	    /* the token's variable */
	const char *fallback_token; /* when token_env is unset */
	const char *token_hint;	    /* where to get one */
};

static const struct ci cis[] = {
	[TARGET_GITHUB] = {
		.option = "github",
		.ci_env = "GITHUB_ACTIONS",
		.api_env = "GITHUB_API_URL",
		.default_api = "https://api.github.com",
		.repo_env = "GITHUB_REPOSITORY",
		.repo_shape = "OWNER/NAME",
		.number_env = "GITHUB_EVENT_PATH",
		.number_in_event_file = true,
		.request = "pull request",
		.token_env = "GITHUB_TOKEN",
		.token_hint = "GITHUB_TOKEN (in a workflow step: env: "
			      "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }})",
	},
	[TARGET_GITLAB] = {
		.option = "gitlab",
		.ci_env = "GITLAB_CI",
		.api_env = "CI_API_V4_URL",
		.default_api = "https://gitlab.com/api/v4",
		.repo_env = "CI_PROJECT_ID",
		.repo_shape = "PROJECT",
		.number_env = "CI_MERGE_REQUEST_IID",
		.request = "merge request",
		.token_env = "GITLAB_TOKEN",
		.fallback_token = "CI_JOB_TOKEN",
		.token_hint = "GITLAB_TOKEN to a project access token with "
			      "the api scope (or run in a job, which has "
			      "CI_JOB_TOKEN)",
	},
};
#define CIS_NR (sizeof(cis) / sizeof(*cis))

static const char *env_value(const char *name)
{
	const char *value = getenv(name);

	return value && *value ? value : NULL;
}

/* Appends the pull-request number from a GitHub event file (the JSON at
 * GITHUB_EVENT_PATH): pull_request.number, else number, else issue.number;
 * BG_EINPUT when there is none (a push event, say). */
static int event_number(struct strbuf *out, const char *event_path)
{
	static const char *const paths[][2] = {
		{ "pull_request", "number" },
		{ NULL, "number" },
		{ "issue", "number" },
	};
	struct strbuf text = STRBUF_INIT;
	cJSON *root = NULL;
	int error = BG_OK;

	if (strbuf_read_file(&text, event_path) < 0) {
		strbuf_addstr(&text, bg_error_last());
		error = bg_input_error("GITHUB_EVENT_PATH: %s", text.buf);
		goto done;
	}
	if (!(root = cJSON_ParseWithLength(text.buf, text.len))) {
		error = bg_input_error("GITHUB_EVENT_PATH: '%s' is not JSON",
				       event_path);
		goto done;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		const cJSON *where = paths[i][0]
					     ? cJSON_GetObjectItemCaseSensitive(
						       root, paths[i][0])
					     : root;

		if (cJSON_IsObject(where) &&
		    provider_add_id(out, cJSON_GetObjectItemCaseSensitive(
						 where, paths[i][1])))
			goto done;
	}
	error = bg_input_error("GITHUB_EVENT_PATH: '%s' has no "
			       "pull_request.number (not a pull_request "
			       "event?); pass --pr N",
			       event_path);
done:
	cJSON_Delete(root);
	strbuf_release(&text);
	return error;
}

static int resolve_forge(struct target *t, const char *name)
{
	for (size_t i = 0; i < CIS_NR; i++) {
		const char *ci = env_value(cis[i].ci_env);

		if (name ? !strcmp(name, cis[i].option)
			 : ci && !strcmp(ci, "true")) {
			t->forge = (enum target_forge)i;
			t->request = cis[i].request;
			return BG_OK;
		}
	}
	if (name)
		return bg_input_error("--provider: expected github or gitlab, "
				      "found '%s'",
				      name);
	return bg_input_error("comment: no --provider, and neither "
			      "GITHUB_ACTIONS nor GITLAB_CI is 'true'; pass "
			      "--provider github or --provider gitlab");
}

static int resolve_token(struct target *t, bool token_optional)
{
	const struct ci *ci = &cis[t->forge];

	t->token_env = ci->fallback_token && !env_value(ci->token_env)
			       ? ci->fallback_token
			       : ci->token_env;
	t->token = env_value(t->token_env);
	if (!t->token && !token_optional)
		return bg_input_error("comment: no token: set %s",
				      ci->token_hint);
	/* A pasted token with a newline would end the header early. */
	for (const char *p = t->token; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return bg_input_error("comment: %s holds a control "
					      "character (a trailing newline?)",
					      t->token_env);
	return BG_OK;
}

static int resolve_api(struct target *t, const char *option)
{
	const struct ci *ci = &cis[t->forge];
	const char *api = option ? option : env_value(ci->api_env);
	const char *source = option ? "--api-url" : ci->api_env;
	const char *authority;

	if (!api) {
		api = ci->default_api;
		source = "the default API URL";
	}
	if (!strncasecmp(api, "https://", 8))
		authority = api + 8;
	else if (!strncasecmp(api, "http://", 7))
		authority = api + 7;
	else
		return bg_input_error("%s: expected an http:// or https:// "
				      "URL, found '%s'",
				      source, api);
	/* Credentials in the URL would be a second secret to keep out of
	 * every message; the token variables are the one way in. */
	if (memchr(authority, '@', strcspn(authority, "/?#")))
		return bg_input_error("%s: the URL must not hold credentials; "
				      "set %s instead",
				      source, t->token_env);
	for (const char *p = api; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return bg_input_error("%s: '%s' holds a space or a "
					      "control character",
					      source, api);
	/* Anyone on the path would read the token; only a server on this
	 * machine, such as a test's fake, may be spoken to in the clear. */
	if (!http_url_may_carry_secret(api))
		return bg_input_error("%s: '%s' is plain http://, which would "
				      "send %s in clear text; use https:// "
				      "(plain http:// only to loopback: "
				      "127.0.0.0/8, ::1, localhost)",
				      source, api, t->token_env);
	strbuf_addstr(&t->api, api);
	while (t->api.len && t->api.buf[t->api.len - 1] == '/')
		strbuf_setlen(&t->api, t->api.len - 1);
	return BG_OK;
}

static int resolve_repo(struct target *t, const char *option)
{
	const struct ci *ci = &cis[t->forge];
	const char *source = option ? "--repo" : ci->repo_env;
	const char *slash;

	t->repo = option ? option : env_value(ci->repo_env);
	if (!t->repo)
		return bg_input_error("comment: no repository: pass --repo %s "
				      "or set %s",
				      ci->repo_shape, ci->repo_env);
	/* A GitLab project is an id or a path of any depth. */
	if (t->forge == TARGET_GITLAB)
		return BG_OK;
	slash = strchr(t->repo, '/');
	if (!slash || slash == t->repo || !slash[1] || strchr(slash + 1, '/') ||
	    t->repo[strspn(t->repo, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				    "opqrstuvwxyz0123456789-._/")])
		return bg_input_error("%s: expected OWNER/NAME, found '%s'",
				      source, t->repo);
	return BG_OK;
}

static int resolve_number(struct target *t, const char *option)
{
	const struct ci *ci = &cis[t->forge];
	const char *number = option, *source = "--pr";
	const char *from_env;

	if (!number && (from_env = env_value(ci->number_env))) {
		if (ci->number_in_event_file)
			return event_number(&t->number, from_env);
		number = from_env;
		source = ci->number_env;
	}
	if (!number)
		return bg_input_error("comment: no %s number: pass --pr N, or "
				      "run in a %s pipeline (%s)",
				      ci->request, ci->request, ci->number_env);
	if (!*number || strlen(number) > 15 ||
	    number[strspn(number, "0123456789")] ||
	    !number[strspn(number, "0")])
		return bg_input_error("%s: expected a %s number, found '%s'",
				      source, ci->request, number);
	strbuf_addstr(&t->number, number);
	return BG_OK;
}

int target_resolve(struct target *t, const struct target_options *opts)
{
	int error;

	if ((error = resolve_forge(t, opts->provider)) < 0 ||
	    (error = resolve_token(t, opts->token_optional)) < 0 ||
	    (error = resolve_api(t, opts->api_url)) < 0 ||
	    (error = resolve_repo(t, opts->repo)) < 0 ||
	    (error = resolve_number(t, opts->number)) < 0)
		return error;
	return BG_OK;
}

void target_release(struct target *t)
{
	strbuf_release(&t->api);
	strbuf_release(&t->number);
}
