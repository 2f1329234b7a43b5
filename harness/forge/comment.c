/*
 * The pull/merge-request comment upserter over libcurl; the contract is in
 * comment.h. The two providers differ only in a handful of strings, URL
 * shapes and the way they paginate, so one flow serves both: resolve the
 * target, prepare the body, list the comments page by page looking for the
 * marker, then update the one found or create one.
 */
#include "harness/forge/comment.h"

#include "reporters/escape.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* 100 notes at GitLab's size limit would be 100 MB; no sane list page
 * comes near this, so a larger answer is a broken server. */
#define RESPONSE_MAX ((size_t)64 << 20)

#define BACKOFF_BASE_S	  1.0
#define CONNECT_TIMEOUT_S 30L
#define REQUEST_TIMEOUT_S 120L

/* Server messages quoted in our errors are cut to this many bytes. */
#define SERVER_MESSAGE_MAX 300

#define DEFAULT_MARKER "<!-- benchgate -->"
#define MARKER_PREFIX  "<!-- benchgate"

struct provider {
	const char *name;   /* for messages */
	const char *option; /* --provider value */
	const char *ci_env; /* "true" in that CI */
	const char *api_env;
	const char *default_api;
	const char *repo_env;
	const char *number_source; /* where the number comes from */
	const char *request;	   /* what a PR is called there */
	const char *item;	   /* what a comment is called there */
	char sigil;		   /* owner/repo#7, group/proj!7 */
	const char *update_method;
	size_t body_max;
};

static const struct provider providers[] = {
	[COMMENT_GITHUB] = {
		"GitHub", "github", "GITHUB_ACTIONS", "GITHUB_API_URL",
		"https://api.github.com", "GITHUB_REPOSITORY",
		"GITHUB_EVENT_PATH", "pull request", "comment", '#', "PATCH",
		COMMENT_GITHUB_MAX,
	},
	[COMMENT_GITLAB] = {
		"GitLab", "gitlab", "GITLAB_CI", "CI_API_V4_URL",
		"https://gitlab.com/api/v4", "CI_PROJECT_ID",
		"CI_MERGE_REQUEST_IID", "merge request", "note", '!', "PUT",
		COMMENT_GITLAB_MAX,
	},
};
#define PROVIDERS_NR (sizeof(providers) / sizeof(*providers))

/* Where the comments live, resolved from the options and the environment. */
struct target {
	enum comment_provider kind;
	const struct provider *provider;
	struct strbuf api; /* without a trailing slash */
	const char *repo;
	struct strbuf number;
	struct strbuf base;    /* .../issues (GitHub), .../notes (GitLab) */
	const char *token;     /* NULL only in a dry run */
	const char *token_env; /* the variable the token comes from */
};
#define TARGET_INIT                                                            \
	{                                                                      \
		.api = STRBUF_INIT, .number = STRBUF_INIT, .base = STRBUF_INIT \
	}

struct client {
	CURL *curl;
	struct curl_slist *headers;
	const struct target *target;
	double backoff_scale;
	bool curl_global;
	char curl_error[CURL_ERROR_SIZE];
};

struct response {
	long status;
	struct strbuf headers; /* the header lines of the final response */
	struct strbuf body;
	bool too_large;
};
#define RESPONSE_INIT                              \
	{                                          \
		0, STRBUF_INIT, STRBUF_INIT, false \
	}

enum call_flags {
	/* Safe to repeat after a 5xx or a transport error: the server may
	 * have applied the first attempt. */
	CALL_IDEMPOTENT = 1 << 0,
};

/* Messages, redacted */

void comment_redact(struct strbuf *out, const char *text, const char *secret)
{
	size_t secret_len = secret ? strlen(secret) : 0;
	const char *hit;

	if (!secret_len) {
		strbuf_addstr(out, text);
		return;
	}
	while ((hit = strstr(text, secret))) {
		strbuf_add(out, text, (size_t)(hit - text));
		strbuf_addstr(out, "***");
		text = hit + secret_len;
	}
	strbuf_addstr(out, text);
}

static int vrecord(const struct target *t, int code, const char *fmt,
		   va_list ap)
{
	struct strbuf raw = STRBUF_INIT, clean = STRBUF_INIT;

	strbuf_vaddf(&raw, fmt, ap);
	comment_redact(&clean, raw.buf, t->token);
	if (code == BG_EINPUT)
		bg_input_error("%s", clean.buf);
	else
		bg_error("%s", clean.buf);
	strbuf_release(&raw);
	strbuf_release(&clean);
	return code;
}

/* Records the message with the token scrubbed; returns code (BG_EINPUT or
 * BG_ERROR). */
__attribute__((format(printf, 3, 4))) static int
fail(const struct target *t, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrecord(t, code, fmt, ap);
	va_end(ap);
	return code;
}

__attribute__((format(printf, 2, 3))) static void warn(const struct target *t,
						       const char *fmt, ...)
{
	struct strbuf raw = STRBUF_INIT, clean = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	comment_redact(&clean, raw.buf, t->token);
	bg_warn("%s", clean.buf);
	strbuf_release(&raw);
	strbuf_release(&clean);
}

/* Appends text from a server, cut, with control characters as spaces so it
 * cannot garble the terminal or split the message. */
static void add_server_text(struct strbuf *out, const char *text)
{
	size_t len = utf8_prefix_len(text, SERVER_MESSAGE_MAX);

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		strbuf_addch(out, c < 0x20 || c == 0x7f ? ' ' : c);
	}
	if (text[len])
		strbuf_addstr(out, "\u2026");
}

/* Appends "; server said: ..." from the "message" (or "error") member of a
 * JSON error body, as both providers send. */
static void add_server_message(struct strbuf *out, const struct response *res)
{
	cJSON *root = cJSON_ParseWithLength(res->body.buf, res->body.len);
	const cJSON *message;
	char *printed = NULL;

	message = cJSON_GetObjectItemCaseSensitive(root, "message");
	if (!message)
		message = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (cJSON_IsString(message) && *message->valuestring) {
		strbuf_addstr(out, "; server said: ");
		add_server_text(out, message->valuestring);
	} else if (message && (printed = cJSON_PrintUnformatted(message))) {
		/* GitLab puts validation errors in an object. */
		strbuf_addstr(out, "; server said: ");
		add_server_text(out, printed);
	}
	cJSON_free(printed);
	cJSON_Delete(root);
}

static bool is_success(long status)
{
	return status >= 200 && status < 300;
}

/* Responses */

/* Appends the trimmed value of the first header called name; false when
 * there is none. */
static bool response_header(const struct response *res, const char *name,
			    struct strbuf *value)
{
	size_t name_len = strlen(name);
	const char *line = res->headers.buf;

	while (*line) {
		const char *end = strchr(line, '\n');
		const char *stop = end ? end : line + strlen(line);

		if ((size_t)(stop - line) > name_len && line[name_len] == ':' &&
		    !strncasecmp(line, name, name_len)) {
			const char *v = line + name_len + 1;

			while (v < stop && (*v == ' ' || *v == '\t'))
				v++;
			while (stop > v && isspace((unsigned char)stop[-1]))
				stop--;
			strbuf_add(value, v, (size_t)(stop - v));
			return true;
		}
		if (!end)
			break;
		line = end + 1;
	}
	return false;
}

static bool header_is(const struct response *res, const char *name,
		      const char *expected)
{
	struct strbuf value = STRBUF_INIT;
	bool is = response_header(res, name, &value) &&
		  !strcmp(value.buf, expected);

	strbuf_release(&value);
	return is;
}

/* 429, or GitHub's primary rate limit, which answers 403. */
static bool is_rate_limited(const struct response *res)
{
	return res->status == 429 ||
	       (res->status == 403 &&
		header_is(res, "X-RateLimit-Remaining", "0"));
}

/* The seconds the server asks us to wait (Retry-After as seconds or a
 * date, else X-RateLimit-Reset); -1 when it does not say. */
static double server_wait(const struct response *res)
{
	struct strbuf value = STRBUF_INIT;
	double wait = -1;
	char *end;

	if (response_header(res, "Retry-After", &value)) {
		wait = strtod(value.buf, &end);
		if (end == value.buf || *end) {
			time_t at = curl_getdate(value.buf, NULL);

			wait = at < 0 ? -1 : difftime(at, time(NULL));
		}
	} else if (response_header(res, "X-RateLimit-Reset", &value)) {
		double reset = strtod(value.buf, &end);

		if (end != value.buf && !*end)
			wait = reset - (double)time(NULL) + 1;
	}
	strbuf_release(&value);
	return wait < 0 ? -1 : wait;
}

/* Transport */

static size_t on_header(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct response *res = userdata;
	size_t len = size * nmemb;

	/* Interim answers (100 Continue) have headers of their own. */
	if (len >= 5 && !strncmp(data, "HTTP/", 5))
		strbuf_reset(&res->headers);
	strbuf_add(&res->headers, data, len);
	return len;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct response *res = userdata;
	size_t len = size * nmemb;

	if (res->body.len + len > RESPONSE_MAX) {
		res->too_large = true;
		return 0;
	}
	strbuf_add(&res->body, data, len);
	return len;
}

static void response_release(struct response *res)
{
	strbuf_release(&res->headers);
	strbuf_release(&res->body);
}

static double backoff_scale(void)
{
	const char *text = getenv("BENCHGATE_HTTP_BACKOFF_SCALE");
	char *end;
	double scale;

	if (!text || !*text)
		return 1;
	scale = strtod(text, &end);
	if (end == text || *end || !(scale >= 0 && scale <= 1)) {
		bg_warn("ignoring BENCHGATE_HTTP_BACKOFF_SCALE='%s': expected "
			"a number from 0 to 1",
			text);
		return 1;
	}
	return scale;
}

static void sleep_seconds(double seconds)
{
	struct timespec left;

	if (!(seconds > 0))
		return;
	left.tv_sec = (time_t)seconds;
	left.tv_nsec = (long)((seconds - (double)left.tv_sec) * 1e9);
	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
}

static double backoff_seconds(int attempt)
{
	double wait = BACKOFF_BASE_S;

	for (int i = 1; i < attempt && wait < COMMENT_BACKOFF_CAP_S; i++)
		wait *= 2;
	return wait < COMMENT_BACKOFF_CAP_S ? wait : COMMENT_BACKOFF_CAP_S;
}

static int client_init(struct client *c, const struct target *t)
{
	struct strbuf auth = STRBUF_INIT;
	static const char *const github_headers[] = {
		"Accept: application/vnd.github+json",
		"X-GitHub-Api-Version: 2022-11-28",
	};
	int error = BG_OK;

	c->target = t;
	c->backoff_scale = backoff_scale();
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return fail(t, BG_ERROR, "cannot initialise libcurl");
	c->curl_global = true;
	if (!(c->curl = curl_easy_init()))
		return fail(t, BG_ERROR, "cannot initialise libcurl");

	if (t->kind == COMMENT_GITHUB) {
		strbuf_addf(&auth, "Authorization: Bearer %s", t->token);
		for (size_t i = 0; i < 2; i++)
			c->headers = curl_slist_append(c->headers,
						       github_headers[i]);
	} else {
		strbuf_addf(&auth, "%s: %s",
			    !strcmp(t->token_env, "CI_JOB_TOKEN")
				    ? "JOB-TOKEN"
				    : "PRIVATE-TOKEN",
			    t->token);
		c->headers = curl_slist_append(c->headers,
					       "Accept: application/json");
	}
	c->headers = curl_slist_append(c->headers, auth.buf);
	c->headers =
		curl_slist_append(c->headers, "Content-Type: application/json");
	/* No "Expect: 100-continue" round trip before a large body. */
	c->headers = curl_slist_append(c->headers, "Expect:");
	if (!c->headers) {
		error = fail(t, BG_ERROR, "cannot build the request headers");
		goto done;
	}

	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT,
			 "benchgate/" BENCHGATE_VERSION);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->curl_error);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, REQUEST_TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	/* The token header goes to whatever the URL names: never follow a
	 * redirect, never leave HTTP(S). */
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
done:
	strbuf_release(&auth);
	return error;
}

static void client_release(struct client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	if (c->curl_global)
		curl_global_cleanup();
}

/* One attempt. BG_ERROR for a transport failure; any HTTP status is
 * success here, for the caller to judge. */
static int http_send(struct client *c, const char *method, const char *url,
		     const char *body, struct response *res)
{
	CURLcode rc;

	res->status = 0;
	res->too_large = false;
	strbuf_reset(&res->headers);
	strbuf_reset(&res->body);
	c->curl_error[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, res);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, res);
	if (body) {
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(body));
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST,
				 strcmp(method, "POST") ? method : NULL);
	} else {
		curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
		curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST,
				 strcmp(method, "GET") ? method : NULL);
	}
	rc = curl_easy_perform(c->curl);
	if (res->too_large)
		return fail(c->target, BG_ERROR,
			    "%s %s: the response is "
			    "larger than %zu MiB",
			    method, url, RESPONSE_MAX >> 20);
	if (rc != CURLE_OK)
		return fail(c->target, BG_ERROR, "%s %s: %s", method, url,
			    c->curl_error[0] ? c->curl_error
					     : curl_easy_strerror(rc));
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &res->status);
	return BG_OK;
}

/* The error for an answer that is not 2xx, saying what to check. */
static int status_error(const struct target *t, const char *method,
			const char *url, const struct response *res,
			int attempts)
{
	const struct provider *p = t->provider;
	struct strbuf msg = STRBUF_INIT;
	int code = BG_EINPUT;

	if (res->status == 401) {
		strbuf_addf(&msg,
			    "%s rejected the token (401) on %s %s: check "
			    "that %s holds a valid, unexpired token",
			    p->name, method, url, t->token_env);
	} else if (res->status == 403 && is_rate_limited(res)) {
		strbuf_addf(&msg, "%s rate limit exhausted (403) on %s %s",
			    p->name, method, url);
		code = BG_ERROR;
	} else if (res->status == 403) {
		strbuf_addf(&msg,
			    "%s refused the request (403) on %s %s: ", p->name,
			    method, url);
		if (t->kind == COMMENT_GITHUB)
			strbuf_addf(&msg,
				    "check that %s has pull-requests: "
				    "write (the workflow's permissions:; pull "
				    "requests from forks get a read-only "
				    "token)",
				    t->token_env);
		else if (!strcmp(t->token_env, "CI_JOB_TOKEN"))
			strbuf_addstr(&msg,
				      "CI_JOB_TOKEN may not write merge "
				      "request notes; set GITLAB_TOKEN to a "
				      "project access token with the api "
				      "scope");
		else
			strbuf_addf(&msg,
				    "check that %s has the api scope and "
				    "at least the Reporter role",
				    t->token_env);
	} else if (res->status == 404) {
		strbuf_addf(&msg,
			    "%s: not found (404) on %s %s: check --repo "
			    "(%s) and --pr (%s), and that %s can see the "
			    "project",
			    p->name, method, url, t->repo, t->number.buf,
			    t->token_env);
	} else {
		strbuf_addf(&msg, "%s answered %ld to %s %s", p->name,
			    res->status, method, url);
		if (attempts > 1)
			strbuf_addf(&msg, " after %d attempts", attempts);
		code = BG_ERROR;
	}
	add_server_message(&msg, res);
	code = fail(t, code, "%s", msg.buf);
	strbuf_release(&msg);
	return code;
}

/*
 * One request with retries. Returns BG_OK with the final answer in res,
 * which may be any status the caller has to judge, or an error once the
 * retries are spent. Without CALL_IDEMPOTENT, 5xx answers and transport
 * errors come back at once for the caller to decide.
 */
static int http_call(struct client *c, const char *method, const char *url,
		     const char *body, unsigned flags, struct response *res)
{
	const struct target *t = c->target;
	struct strbuf what = STRBUF_INIT;
	int error;

	for (int attempt = 1;; attempt++) {
		bool limited, transient;
		double wait;

		error = http_send(c, method, url, body, res);
		limited = !error && is_rate_limited(res);
		transient = error < 0 || res->status >= 500;
		if (!limited && !(transient && (flags & CALL_IDEMPOTENT)))
			break;
		if (attempt == COMMENT_ATTEMPTS) {
			if (!error)
				error = status_error(t, method, url, res,
						     attempt);
			break;
		}
		wait = limited ? server_wait(res) : -1;
		if (wait > COMMENT_WAIT_CAP_S) {
			error = fail(t, BG_ERROR,
				     "%s rate limit on %s %s: "
				     "asked to wait %.0f s, more than the %.0f "
				     "s benchgate waits; try again later",
				     t->provider->name, method, url, wait,
				     COMMENT_WAIT_CAP_S);
			break;
		}
		if (wait < 0)
			wait = backoff_seconds(attempt);
		wait *= c->backoff_scale;

		strbuf_reset(&what);
		if (error < 0)
			strbuf_addstr(&what, bg_error_last());
		else
			strbuf_addf(&what, "%s %s: %ld", method, url,
				    res->status);
		warn(t, "%s; retrying in %.3g s (attempt %d of %d)", what.buf,
		     wait, attempt + 1, COMMENT_ATTEMPTS);
		sleep_seconds(wait);
	}
	strbuf_release(&what);
	return error;
}

/* URLs */

/* Appends s percent-encoded as one path segment (RFC 3986 unreserved
 * characters stay), so "group/proj" becomes "group%2Fproj". */
static void add_path_segment(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || strchr("-._~", c))
			strbuf_addch(out, c);
		else
			strbuf_addf(out, "%%%02X", c);
	}
}

static void list_url(struct strbuf *url, const struct target *t, long page)
{
	strbuf_reset(url);
	if (t->kind == COMMENT_GITHUB)
		strbuf_addf(url, "%s/%s/comments?per_page=100", t->base.buf,
			    t->number.buf);
	else
		strbuf_addf(url, "%s?per_page=100&page=%ld", t->base.buf, page);
}

static void create_url(struct strbuf *url, const struct target *t)
{
	strbuf_reset(url);
	if (t->kind == COMMENT_GITHUB)
		strbuf_addf(url, "%s/%s/comments", t->base.buf, t->number.buf);
	else
		strbuf_addstr(url, t->base.buf);
}

static void item_url(struct strbuf *url, const struct target *t, const char *id)
{
	strbuf_reset(url);
	if (t->kind == COMMENT_GITHUB)
		strbuf_addf(url, "%s/comments/%s", t->base.buf, id);
	else
		strbuf_addf(url, "%s/%s", t->base.buf, id);
}

/* Whether the rel parameter in [p, stop) of one Link entry names "next";
 * rel may be a quoted, space-separated list (RFC 8288). */
static bool rel_is_next(const char *p, const char *stop)
{
	for (; p + 4 <= stop; p++) {
		const char *value;
		bool quoted;

		if (strncasecmp(p, "rel=", 4) ||
		    !(p[-1] == ';' || p[-1] == ' ' || p[-1] == '\t'))
			continue;
		value = p + 4;
		quoted = value < stop && *value == '"';
		value += quoted;
		while (value < stop && *value != ';' && *value != '"') {
			const char *word = value;

			while (value < stop && !strchr(" \t;\"", *value))
				value++;
			if (value - word == 4 && !strncasecmp(word, "next", 4))
				return true;
			value += strspn(value, " \t");
			if (value > stop)
				value = stop;
		}
		return false;
	}
	return false;
}

/* Appends the rel="next" target of a Link header value; false when none. */
static bool link_next(const char *value, struct strbuf *out)
{
	const char *open = value;

	while ((open = strchr(open, '<'))) {
		const char *close = strchr(open, '>');
		const char *stop;

		if (!close)
			return false;
		stop = strchr(close, '<');
		if (!stop)
			stop = close + strlen(close);
		if (rel_is_next(close + 1, stop)) {
			strbuf_add(out, open + 1, (size_t)(close - open - 1));
			return true;
		}
		open = close;
	}
	return false;
}

/* Appends the URL of the page after `page`; nothing on the last page. */
static int next_page_url(const struct target *t, const struct response *res,
			 long page, struct strbuf *next)
{
	struct strbuf value = STRBUF_INIT;
	int error = BG_OK;

	if (t->kind == COMMENT_GITHUB) {
		size_t api_len = t->api.len;

		if (!response_header(res, "Link", &value) ||
		    !link_next(value.buf, next))
			goto done;
		/* The token goes with the request: follow only links into
		 * the API we were pointed at. */
		if (strncmp(next->buf, t->api.buf, api_len) ||
		    (next->buf[api_len] != '/' && next->buf[api_len] != '?'))
			error = fail(t, BG_ERROR,
				     "GitHub's next-page link "
				     "'%s' leaves the API base '%s'; not "
				     "following it",
				     next->buf, t->api.buf);
	} else if (response_header(res, "X-Next-Page", &value) && value.len) {
		char *end;
		long following = strtol(value.buf, &end, 10);

		if (*end || following <= page)
			error = fail(t, BG_ERROR,
				     "GitLab's X-Next-Page '%s' "
				     "after page %ld is not a later page",
				     value.buf, page);
		else
			list_url(next, t, following);
	}
done:
	strbuf_release(&value);
	return error;
}

/* Finding our comment */

/* Appends a JSON number that is a positive whole number, such as an id;
 * false when it is not one. */
static bool add_whole_number(struct strbuf *out, const cJSON *number)
{
	double value;

	if (!cJSON_IsNumber(number))
		return false;
	value = number->valuedouble;
	/* Ids are exact in a double up to 2^53. */
	if (!(value >= 1 && value <= 9007199254740992.0) ||
	    value != (double)(int64_t)value)
		return false;
	strbuf_addf(out, "%" PRId64, (int64_t)value);
	return true;
}

static bool comment_id(const cJSON *item, struct strbuf *id)
{
	return add_whole_number(id,
				cJSON_GetObjectItemCaseSensitive(item, "id"));
}

static bool starts_with_marker(const char *body, const char *marker)
{
	while (isspace((unsigned char)*body))
		body++;
	return !strncmp(body, marker, strlen(marker));
}

/* Appends the id of the first comment of the page that is ours. */
static bool find_in_page(const struct target *t, const cJSON *page,
			 const char *marker, struct strbuf *id)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, page)
	{
		const cJSON *body =
			cJSON_GetObjectItemCaseSensitive(item, "body");

		/* GitLab's own notes ("added 1 commit") are never ours. */
		if (t->kind == COMMENT_GITLAB &&
		    cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(item, "system")))
			continue;
		if (cJSON_IsString(body) &&
		    starts_with_marker(body->valuestring, marker) &&
		    comment_id(item, id))
			return true;
	}
	return false;
}

/* Appends the id of our comment, or nothing when there is none yet. */
static int find_comment(struct client *c, const char *marker, struct strbuf *id)
{
	const struct target *t = c->target;
	struct strbuf url = STRBUF_INIT, next = STRBUF_INIT;
	struct response res = RESPONSE_INIT;
	cJSON *page_json = NULL;
	int error = BG_OK;

	list_url(&url, t, 1);
	for (long page = 1; page <= COMMENT_MAX_PAGES; page++) {
		struct strbuf swap;

		if ((error = http_call(c, "GET", url.buf, NULL, CALL_IDEMPOTENT,
				       &res)) < 0)
			goto done;
		if (!is_success(res.status)) {
			error = status_error(t, "GET", url.buf, &res, 1);
			goto done;
		}
		cJSON_Delete(page_json);
		page_json = cJSON_ParseWithLength(res.body.buf, res.body.len);
		if (!cJSON_IsArray(page_json)) {
			error = fail(t, BG_ERROR,
				     "GET %s: expected a JSON "
				     "array of %ss",
				     url.buf, t->provider->item);
			goto done;
		}
		if (find_in_page(t, page_json, marker, id))
			goto done;
		strbuf_reset(&next);
		if ((error = next_page_url(t, &res, page, &next)) < 0 ||
		    !next.len)
			goto done;
		swap = url;
		url = next;
		next = swap;
	}
	error = fail(t, BG_ERROR,
		     "%s %s%c%s has more than %d pages of %ss; "
		     "not looking further",
		     t->provider->name, t->repo, t->provider->sigil,
		     t->number.buf, COMMENT_MAX_PAGES, t->provider->item);
done:
	cJSON_Delete(page_json);
	response_release(&res);
	strbuf_release(&url);
	strbuf_release(&next);
	return error;
}

/* The body */

size_t comment_length(const char *s)
{
	size_t units = 0;
	uint32_t cp;

	while (*s) {
		s += utf8_decode(s, &cp);
		units += cp > 0xffff ? 2 : 1;
	}
	return units;
}

/* Bytes of the longest prefix of s that is at most max characters. */
static size_t prefix_bytes(const char *s, size_t max)
{
	const char *p = s;
	size_t units = 0;
	uint32_t cp;

	while (*p) {
		size_t len = utf8_decode(p, &cp);
		size_t more = cp > 0xffff ? 2 : 1;

		if (units + more > max)
			break;
		units += more;
		p += len;
	}
	return (size_t)(p - s);
}

/* Length of the first line of s when it is a benchgate marker ("<!--
 * benchgate -->" or "<!-- benchgate:NAME -->"), else 0. */
static size_t marker_line_len(const char *s)
{
	size_t len = strcspn(s, "\r\n");
	size_t prefix = strlen(MARKER_PREFIX);
	const char *close;

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len < prefix + 4 || strncmp(s, MARKER_PREFIX, prefix) ||
	    (s[prefix] != ' ' && s[prefix] != ':'))
		return 0;
	close = strstr(s + 4, "-->");
	return close && close == s + len - 3 ? len : 0;
}

void comment_marker(struct strbuf *out, const char *name, const char *body)
{
	size_t len;

	if (name) {
		strbuf_addstr(out, MARKER_PREFIX ":");
		escape_html_comment(out, name);
		strbuf_addstr(out, " -->");
	} else if (body && (len = marker_line_len(body))) {
		strbuf_add(out, body, len);
	} else {
		strbuf_addstr(out, DEFAULT_MARKER);
	}
}

bool comment_prepare_body(struct strbuf *out, const char *body,
			  const char *marker, size_t limit)
{
	struct strbuf note = STRBUF_INIT;
	size_t start = out->len, marker_len = strlen(marker);
	size_t len, budget, cut;
	size_t newline;

	if ((len = marker_line_len(body))) {
		body += len;
		body += strspn(body, "\r");
		body += *body == '\n';
	}
	strbuf_addf(out, "%s\n%s", marker, body);
	if (comment_length(out->buf + start) <= limit)
		return false;

	strbuf_addf(&note,
		    "\n\n_\u2026 cut here: a comment holds at most %zu "
		    "characters; the full report is in the CI job's "
		    "artifacts._\n",
		    limit);
	assert(limit > comment_length(note.buf) + marker_len);
	budget = limit - comment_length(note.buf);
	cut = prefix_bytes(out->buf + start, budget);
	/* End on a whole line, so no table row or tag is left half open. */
	for (newline = cut; newline > marker_len; newline--)
		if (out->buf[start + newline - 1] == '\n')
			break;
	if (newline > marker_len)
		cut = newline - 1;
	strbuf_setlen(out, start + cut);
	strbuf_addstr(out, note.buf);
	strbuf_release(&note);
	return true;
}

int comment_event_number(struct strbuf *out, const char *event_path)
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
		    add_whole_number(out, cJSON_GetObjectItemCaseSensitive(
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

/* The target */

static const char *env_value(const char *name)
{
	const char *value = getenv(name);

	return value && *value ? value : NULL;
}

static int resolve_provider(struct target *t, const char *name)
{
	for (size_t i = 0; i < PROVIDERS_NR; i++) {
		const char *ci = env_value(providers[i].ci_env);

		if (name ? !strcmp(name, providers[i].option)
			 : ci && !strcmp(ci, "true")) {
			t->kind = (enum comment_provider)i;
			t->provider = &providers[i];
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

static int resolve_token(struct target *t, bool dry_run)
{
	if (t->kind == COMMENT_GITHUB)
		t->token_env = "GITHUB_TOKEN";
	else
		t->token_env = env_value("GITLAB_TOKEN") ? "GITLAB_TOKEN"
							 : "CI_JOB_TOKEN";
	t->token = env_value(t->token_env);
	if (!t->token && !dry_run)
		return bg_input_error(
			"comment: no token: set %s",
			t->kind == COMMENT_GITHUB
				? "GITHUB_TOKEN (in a workflow step: env: "
				  "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN "
				  "}})"
				: "GITLAB_TOKEN to a project access token "
				  "with the api scope (or run in a job, "
				  "which has CI_JOB_TOKEN)");
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
	const char *api = option ? option : env_value(t->provider->api_env);
	const char *source = option ? "--api-url" : t->provider->api_env;
	const char *authority;

	if (!api) {
		api = t->provider->default_api;
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
	strbuf_addstr(&t->api, api);
	while (t->api.len && t->api.buf[t->api.len - 1] == '/')
		strbuf_setlen(&t->api, t->api.len - 1);
	return BG_OK;
}

static int resolve_repo(struct target *t, const char *option)
{
	const char *source = option ? "--repo" : t->provider->repo_env;
	const char *slash;

	t->repo = option ? option : env_value(t->provider->repo_env);
	if (!t->repo)
		return bg_input_error("comment: no repository: pass --repo %s "
				      "or set %s",
				      t->kind == COMMENT_GITHUB ? "OWNER/NAME"
								: "PROJECT",
				      t->provider->repo_env);
	if (t->kind == COMMENT_GITLAB)
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
	const char *number = option, *source = "--pr";
	const char *event;
	int error;

	if (!number && t->kind == COMMENT_GITHUB &&
	    (event = env_value("GITHUB_EVENT_PATH"))) {
		if ((error = comment_event_number(&t->number, event)) < 0)
			return error;
		return BG_OK;
	}
	if (!number && t->kind == COMMENT_GITLAB) {
		number = env_value("CI_MERGE_REQUEST_IID");
		source = "CI_MERGE_REQUEST_IID";
	}
	if (!number)
		return bg_input_error("comment: no %s number: pass --pr N, or "
				      "run in a %s pipeline (%s)",
				      t->provider->request,
				      t->provider->request,
				      t->provider->number_source);
	if (!*number || strlen(number) > 15 ||
	    number[strspn(number, "0123456789")] ||
	    !number[strspn(number, "0")])
		return bg_input_error("%s: expected a %s number, found '%s'",
				      source, t->provider->request, number);
	strbuf_addstr(&t->number, number);
	return BG_OK;
}

static int target_resolve(struct target *t, const struct comment_options *opts)
{
	int error;

	if ((error = resolve_provider(t, opts->provider)) < 0 ||
	    (error = resolve_token(t, opts->dry_run)) < 0 ||
	    (error = resolve_api(t, opts->api_url)) < 0 ||
	    (error = resolve_repo(t, opts->repo)) < 0 ||
	    (error = resolve_number(t, opts->number)) < 0)
		return error;
	if (t->kind == COMMENT_GITHUB) {
		const char *slash = strchr(t->repo, '/');
		char *owner = xstrndup(t->repo, (size_t)(slash - t->repo));

		strbuf_addf(&t->base, "%s/repos/", t->api.buf);
		add_path_segment(&t->base, owner);
		strbuf_addch(&t->base, '/');
		add_path_segment(&t->base, slash + 1);
		strbuf_addstr(&t->base, "/issues");
		free(owner);
	} else {
		strbuf_addf(&t->base, "%s/projects/", t->api.buf);
		add_path_segment(&t->base, t->repo);
		strbuf_addf(&t->base, "/merge_requests/%s/notes",
			    t->number.buf);
	}
	return BG_OK;
}

static void target_release(struct target *t)
{
	strbuf_release(&t->api);
	strbuf_release(&t->number);
	strbuf_release(&t->base);
}

/* Posting */

/* Reads the body file into the body to send and the marker to find. */
static int load_body(const struct target *t, const struct comment_options *opts,
		     struct strbuf *marker, struct strbuf *body)
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
	comment_marker(marker, opts->marker, text.buf);
	if (comment_prepare_body(body, text.buf, marker->buf,
				 t->provider->body_max))
		warn(t,
		     "'%s' is longer than the %zu characters a %s %s "
		     "holds; it is cut",
		     opts->body_path, t->provider->body_max, t->provider->name,
		     t->provider->item);
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

static void describe_dry_run(struct strbuf *out, const struct target *t,
			     const char *marker, const char *body,
			     size_t json_len)
{
	const struct provider *p = t->provider;
	struct strbuf url = STRBUF_INIT;

	strbuf_addf(out, "dry run: nothing sent\n%s %s %s%c%s, marker %s\n",
		    p->name, p->request, t->repo, p->sigil, t->number.buf,
		    marker);
	list_url(&url, t, 1);
	strbuf_addf(out, "  GET %s (and the pages after it)\n", url.buf);
	item_url(&url, t, "{id}");
	strbuf_addf(out, "  %s %s when a %s starts with the marker\n",
		    p->update_method, url.buf, p->item);
	create_url(&url, t);
	strbuf_addf(out, "  POST %s otherwise\n", url.buf);
	strbuf_addf(out, "  body: %zu characters, %zu bytes of JSON\n",
		    comment_length(body), json_len);
	strbuf_addf(out, "  token: %s %s\n", t->token_env,
		    t->token ? "is set" : "is NOT set (a real run would fail)");
	strbuf_release(&url);
}

static void describe_result(struct strbuf *out, const struct target *t,
			    const char *verb, const struct response *res,
			    const char *found_id)
{
	cJSON *root = cJSON_ParseWithLength(res->body.buf, res->body.len);
	const cJSON *link = cJSON_GetObjectItemCaseSensitive(root, "html_url");
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "%s %s ", verb, t->provider->item);
	if (!comment_id(root, &line))
		strbuf_addstr(&line, found_id);
	strbuf_addf(&line, " on %s%c%s", t->repo, t->provider->sigil,
		    t->number.buf);
	if (cJSON_IsString(link)) {
		strbuf_addstr(&line, ": ");
		add_server_text(&line, link->valuestring);
	}
	comment_redact(out, line.buf, t->token);
	strbuf_addch(out, '\n');
	strbuf_release(&line);
	cJSON_Delete(root);
}

/*
 * List, then update or create. A create that failed with a 5xx or in
 * transport may still have been applied, so instead of posting again the
 * round starts over from the listing, which then finds it.
 */
static int upsert(struct client *c, const char *marker, const char *json,
		  struct strbuf *summary)
{
	const struct target *t = c->target;
	struct strbuf id = STRBUF_INIT, url = STRBUF_INIT, what = STRBUF_INIT;
	struct response res = RESPONSE_INIT;
	int error;

	for (int round = 1;; round++) {
		const char *method;
		double wait;

		strbuf_reset(&id);
		if ((error = find_comment(c, marker, &id)) < 0)
			goto done;
		if (id.len) {
			method = t->provider->update_method;
			item_url(&url, t, id.buf);
			error = http_call(c, method, url.buf, json,
					  CALL_IDEMPOTENT, &res);
		} else {
			method = "POST";
			create_url(&url, t);
			error = http_call(c, method, url.buf, json, 0, &res);
			if ((error < 0 || res.status >= 500) &&
			    round < COMMENT_ATTEMPTS) {
				strbuf_reset(&what);
				if (error < 0)
					strbuf_addstr(&what, bg_error_last());
				else
					strbuf_addf(&what, "POST %s: %ld",
						    url.buf, res.status);
				wait = backoff_seconds(round) *
				       c->backoff_scale;
				warn(t,
				     "%s; listing again in %.3g s in case "
				     "it was created (attempt %d of %d)",
				     what.buf, wait, round + 1,
				     COMMENT_ATTEMPTS);
				sleep_seconds(wait);
				continue;
			}
		}
		if (!error && !is_success(res.status))
			error = status_error(t, method, url.buf, &res,
					     id.len ? 1 : round);
		if (!error)
			describe_result(summary, t,
					id.len ? "updated" : "created", &res,
					id.buf);
		goto done;
	}
done:
	response_release(&res);
	strbuf_release(&id);
	strbuf_release(&url);
	strbuf_release(&what);
	return error;
}

int comment_upsert(const struct comment_options *opts, struct strbuf *summary)
{
	struct target t = TARGET_INIT;
	struct strbuf marker = STRBUF_INIT, body = STRBUF_INIT;
	struct client c = { 0 };
	char *json = NULL;
	int error;

	if ((error = target_resolve(&t, opts)) < 0 ||
	    (error = load_body(&t, opts, &marker, &body)) < 0)
		goto done;
	json = json_body(body.buf);
	if (opts->dry_run) {
		describe_dry_run(summary, &t, marker.buf, body.buf,
				 strlen(json));
		goto done;
	}
	if ((error = client_init(&c, &t)) < 0)
		goto done;
	error = upsert(&c, marker.buf, json, summary);
done:
	client_release(&c);
	cJSON_free(json);
	strbuf_release(&marker);
	strbuf_release(&body);
	target_release(&t);
	return error;
}
