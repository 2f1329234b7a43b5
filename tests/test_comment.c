/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PR/MR comment upserter against a fake API: a small HTTP/1.1 server on
 * 127.0.0.1 in a thread of the test, answering from a script (or, for the
 * end-to-end run, from a stateful fake of GitHub's comments) and recording
 * every request, so the tests can assert methods, paths, headers and
 * bodies. The server stops after MAX_REQUESTS requests, after
 * SERVER_IDLE_MS without one, or when the test stops it; every read has a
 * timeout. Reference shapes (paths, headers, Link and X-Next-Page
 * pagination) are from docs.github.com/en/rest/issues/comments and
 * docs.gitlab.com/ee/api/notes.html.
 */
#include "harness/forge/comment.h"

#include "harness/forge/http.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include "testutil.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOKEN  "ghp_s3cr3t-T0KEN-value"
#define MARKER "<!-- benchgate:mlp -->"
#define REPORT MARKER "\n## report\n"

#define MAX_REQUESTS	32
#define SERVER_IDLE_MS	20000
#define READ_TIMEOUT_MS 5000
#define REQUEST_MAX	(4 << 20)

/* The fake server */

struct recorded {
	char method[16];
	struct strbuf target;  /* path and query */
	struct strbuf headers; /* the header lines */
	struct strbuf body;
};

struct reply {
	int status;
	struct strbuf headers; /* extra lines, each ending "\r\n" */
	struct strbuf body;
};

struct server;
typedef void handler_fn(struct server *s, const struct recorded *request,
			struct reply *reply);

struct server {
	int listen_fd;
	int wake[2];
	pthread_t thread;
	char url[64];	    /* http://127.0.0.1:PORT */
	handler_fn *handle; /* NULL: answer from the script */
	void *state;
	struct reply script[MAX_REQUESTS];
	size_t script_nr;
	struct recorded requests[MAX_REQUESTS];
	size_t requests_nr;
};

static void server_listen(struct server *s)
{
	struct sockaddr_in addr = { 0 };
	socklen_t len = sizeof(addr);

	memset(s, 0, sizeof(*s));
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(s->listen_fd, 0);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.sin_port = 0;
	cr_assert_eq(bind(s->listen_fd, (struct sockaddr *)&addr, sizeof(addr)),
		     0);
	cr_assert_eq(listen(s->listen_fd, 8), 0);
	cr_assert_eq(getsockname(s->listen_fd, (struct sockaddr *)&addr, &len),
		     0);
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d",
		 ntohs(addr.sin_port));
	cr_assert_eq(pipe(s->wake), 0);
}

/* Appends a scripted reply; the server answers them in order. */
static void server_add(struct server *s, int status, const char *headers,
		       const char *body)
{
	struct reply *reply = &s->script[s->script_nr++];

	cr_assert_leq(s->script_nr, MAX_REQUESTS);
	reply->status = status;
	strbuf_init(&reply->headers, 0);
	strbuf_init(&reply->body, 0);
	strbuf_addstr(&reply->headers, headers ? headers : "");
	strbuf_addstr(&reply->body, body ? body : "");
}

/* Reads one request into raw; false on timeout, EOF or an oversize one. */
static bool read_request(int fd, struct strbuf *raw, size_t *head_len,
			 size_t *body_len)
{
	char chunk[8192];

	for (;;) {
		const char *end = strstr(raw->buf, "\r\n\r\n");
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t got;

		if (end) {
			*head_len = (size_t)(end + 4 - raw->buf);
			*body_len = 0;
			for (const char *line = strstr(raw->buf, "\r\n");
			     line && line < end;
			     line = strstr(line + 2, "\r\n"))
				if (!strncasecmp(line + 2,
						 "Content-Length:", 15))
					*body_len =
						strtoul(line + 17, NULL, 10);
			if (raw->len >= *head_len + *body_len)
				return true;
		}
		if (raw->len > REQUEST_MAX ||
		    poll(&pfd, 1, READ_TIMEOUT_MS) <= 0)
			return false;
		got = read(fd, chunk, sizeof(chunk));
		if (got <= 0)
			return false;
		strbuf_add(raw, chunk, (size_t)got);
	}
}

static void write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t put = write(fd, data, len);

		if (put <= 0)
			return;
		data += put;
		len -= (size_t)put;
	}
}

static void serve_one(struct server *s, int fd)
{
	struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
	struct recorded *request = &s->requests[s->requests_nr];
	struct reply generated = { 0, STRBUF_INIT, STRBUF_INIT };
	const struct reply *reply = &generated;
	size_t head_len, body_len, line_len;
	char *space;

	if (!read_request(fd, &raw, &head_len, &body_len))
		goto done;
	line_len = strcspn(raw.buf, "\r\n");
	space = memchr(raw.buf, ' ', line_len);
	if (!space || (size_t)(space - raw.buf) >= sizeof(request->method))
		goto done;
	s->requests_nr++;
	memcpy(request->method, raw.buf, (size_t)(space - raw.buf));
	strbuf_init(&request->target, 0);
	strbuf_add(&request->target, space + 1, strcspn(space + 1, " \r\n"));
	strbuf_init(&request->headers, 0);
	strbuf_add(&request->headers, raw.buf + line_len + 2,
		   head_len - line_len - 2);
	strbuf_init(&request->body, 0);
	strbuf_add(&request->body, raw.buf + head_len, body_len);

	if (s->handle)
		s->handle(s, request, &generated);
	else if (s->requests_nr <= s->script_nr)
		reply = &s->script[s->requests_nr - 1];
	else
		generated.status = 500,
		strbuf_addstr(&generated.body,
			      "{\"message\":\"no more scripted replies\"}");
	strbuf_addf(&out,
		    "HTTP/1.1 %d Fake\r\nContent-Type: application/json"
		    "\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n",
		    reply->status, reply->body.len, reply->headers.buf);
	strbuf_add(&out, reply->body.buf, reply->body.len);
	write_all(fd, out.buf, out.len);
done:
	strbuf_release(&generated.headers);
	strbuf_release(&generated.body);
	strbuf_release(&raw);
	strbuf_release(&out);
}

static void *serve(void *arg)
{
	struct server *s = arg;

	while (s->requests_nr < MAX_REQUESTS) {
		struct pollfd fds[2] = {
			{ s->listen_fd, POLLIN, 0 },
			{ s->wake[0], POLLIN, 0 },
		};
		int fd;

		if (poll(fds, 2, SERVER_IDLE_MS) <= 0 || fds[1].revents)
			break;
		if ((fd = accept(s->listen_fd, NULL, NULL)) < 0)
			break;
		serve_one(s, fd);
		close(fd);
	}
	return NULL;
}

static void server_start(struct server *s)
{
	cr_assert_eq(pthread_create(&s->thread, NULL, serve, s), 0);
}

/* Stops the thread; only then are the recorded requests read. */
static void server_stop(struct server *s)
{
	write_all(s->wake[1], "x", 1);
	pthread_join(s->thread, NULL);
	close(s->listen_fd);
	close(s->wake[0]);
	close(s->wake[1]);
}

static void server_release(struct server *s)
{
	for (size_t i = 0; i < s->script_nr; i++) {
		strbuf_release(&s->script[i].headers);
		strbuf_release(&s->script[i].body);
	}
	for (size_t i = 0; i < s->requests_nr; i++) {
		strbuf_release(&s->requests[i].target);
		strbuf_release(&s->requests[i].headers);
		strbuf_release(&s->requests[i].body);
	}
}

/* The value of a request header (case-insensitive name), or NULL; the
 * result is a static copy, valid until the next call. */
static const char *header(const struct recorded *request, const char *name)
{
	static char value[1024];
	size_t name_len = strlen(name);
	const char *line = request->headers.buf;

	while (*line) {
		size_t len = strcspn(line, "\r\n");

		if (len > name_len && line[name_len] == ':' &&
		    !strncasecmp(line, name, name_len)) {
			const char *v = line + name_len + 1;

			v += strspn(v, " ");
			snprintf(value, sizeof(value), "%.*s",
				 (int)(line + len - v), v);
			return value;
		}
		line += len;
		line += strspn(line, "\r\n");
	}
	return NULL;
}

static void assert_request(const struct server *s, size_t i, const char *method,
			   const char *target)
{
	cr_assert_lt(i, s->requests_nr, "request %zu was not made", i);
	cr_assert_str_eq(s->requests[i].method, method, "request %zu", i);
	cr_assert_str_eq(s->requests[i].target.buf, target, "request %zu", i);
}

/* The "body" member of a JSON request body, which must be its only one;
 * NULL when it is not so. Free it. */
static char *body_member(const char *json)
{
	cJSON *root = cJSON_Parse(json);
	const cJSON *body = cJSON_GetObjectItemCaseSensitive(root, "body");
	char *text = NULL;

	if (cJSON_IsString(body) && cJSON_GetArraySize(root) == 1)
		text = xstrdup(body->valuestring);
	cJSON_Delete(root);
	return text;
}

static char *sent_body(const struct recorded *request)
{
	char *text = body_member(request->body.buf);

	cr_assert_not_null(text, "request body: %s", request->body.buf);
	return text;
}

static void assert_sent_body(const struct recorded *request,
			     const char *expected)
{
	char *text = sent_body(request);

	cr_assert_str_eq(text, expected);
	free(text);
}

/* Fixture */

static char *dir;
static char *report_path;

static void setup(void)
{
	static const char *const ci_variables[] = {
		"GITHUB_ACTIONS",    "GITHUB_TOKEN",
		"GITHUB_REPOSITORY", "GITHUB_EVENT_PATH",
		"GITHUB_API_URL",    "GITLAB_CI",
		"GITLAB_TOKEN",	     "CI_JOB_TOKEN",
		"CI_PROJECT_ID",     "CI_MERGE_REQUEST_IID",
		"CI_API_V4_URL",     "http_proxy",
		"https_proxy",	     "HTTP_PROXY",
		"HTTPS_PROXY",	     "ALL_PROXY",
		"all_proxy",
	};

	/* The tests may themselves run in GitHub Actions or GitLab CI. */
	for (size_t i = 0; i < sizeof(ci_variables) / sizeof(*ci_variables);
	     i++)
		unsetenv(ci_variables[i]);
	setenv("NO_PROXY", "127.0.0.1", 1);
	setenv("BENCHGATE_HTTP_BACKOFF_SCALE", "0.001", 1);
	dir = test_tmpdir();
	report_path = test_write_file(dir, "report.md", REPORT);
}

static void teardown(void)
{
	test_rmtree(dir);
	free(report_path);
	free(dir);
}

TestSuite(comment, .init = setup, .fini = teardown, .timeout = 120);

static int github_post(const struct server *s, struct strbuf *summary)
{
	struct comment_options opts = {
		.provider = "github",
		.body_path = report_path,
		.repo = "o/r",
		.number = "7",
		.api_url = s->url,
	};

	setenv("GITHUB_TOKEN", TOKEN, 1);
	return comment_upsert(&opts, summary);
}

/* The Link header of a GitHub page that has a next page. */
static void link_to_page(struct strbuf *out, const struct server *s, int page)
{
	strbuf_reset(out);
	strbuf_addf(out,
		    "Link: <%s/repos/o/r/issues/7/comments?per_page=100&"
		    "page=%d>; rel=\"next\", <%s/repos/o/r/issues/7/comments?"
		    "per_page=100&page=9>; rel=\"last\"\r\n",
		    s->url, page, s->url);
}

/* GitHub */

Test(comment, github_creates_after_reading_two_pages_of_comments)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT, link = STRBUF_INIT;

	server_listen(&s);
	link_to_page(&link, &s, 2);
	/* A quote of our comment contains the marker but is not ours. */
	server_add(&s, 200, link.buf,
		   "[{\"id\":1,\"body\":\"nice\"},"
		   "{\"id\":2,\"body\":\"> " MARKER "\\n> quoted\"}]");
	server_add(&s, 200, "Link: <http://x/>; rel=\"prev\"\r\n",
		   "[{\"id\":3,\"body\":\"<!-- benchgate:other -->\\nx\"}]");
	server_add(&s, 201, NULL,
		   "{\"id\":99,\"html_url\":"
		   "\"https://github.com/o/r/pull/7#issuecomment-99\"}");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_OK, "%s", bg_error_last());
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 3);
	assert_request(&s, 0, "GET",
		       "/repos/o/r/issues/7/comments?per_page=100");
	assert_request(&s, 1, "GET",
		       "/repos/o/r/issues/7/comments?per_page=100&page=2");
	assert_request(&s, 2, "POST", "/repos/o/r/issues/7/comments");
	for (size_t i = 0; i < s.requests_nr; i++) {
		cr_assert_str_eq(header(&s.requests[i], "Authorization"),
				 "Bearer " TOKEN);
		cr_assert_str_eq(header(&s.requests[i], "Accept"),
				 "application/vnd.github+json");
		cr_assert(!strncmp(header(&s.requests[i], "User-Agent"),
				   "benchgate", 9));
	}
	cr_assert_str_eq(header(&s.requests[2], "Content-Type"),
			 "application/json");
	assert_sent_body(&s.requests[2], REPORT);
	cr_assert_str_eq(summary.buf,
			 "created comment 99 on o/r#7: "
			 "https://github.com/o/r/pull/7#issuecomment-99\n");
	server_release(&s);
	strbuf_release(&summary);
	strbuf_release(&link);
}

Test(comment, github_updates_the_comment_with_the_marker_found_on_page_2)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT, link = STRBUF_INIT;

	server_listen(&s);
	link_to_page(&link, &s, 2);
	server_add(&s, 200, link.buf, "[{\"id\":1,\"body\":\"first\"}]");
	server_add(&s, 200, NULL,
		   "[{\"id\":5,\"body\":\"lgtm\"},{\"id\":4242,"
		   "\"body\":\"" MARKER "\\nold numbers\"}]");
	server_add(&s, 200, NULL, "{\"id\":4242}");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_OK, "%s", bg_error_last());
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 3);
	assert_request(&s, 2, "PATCH", "/repos/o/r/issues/comments/4242");
	cr_assert_str_eq(header(&s.requests[2], "Authorization"),
			 "Bearer " TOKEN);
	assert_sent_body(&s.requests[2], REPORT);
	cr_assert_str_eq(summary.buf, "updated comment 4242 on o/r#7\n");
	server_release(&s);
	strbuf_release(&summary);
	strbuf_release(&link);
}

Test(comment, server_errors_are_retried)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT;

	server_listen(&s);
	server_add(&s, 500, NULL, "{\"message\":\"oops\"}");
	server_add(&s, 502, NULL, "bad gateway");
	server_add(&s, 200, NULL, "[]");
	server_add(&s, 201, NULL, "{\"id\":1}");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_OK, "%s", bg_error_last());
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 4);
	for (size_t i = 0; i < 3; i++)
		assert_request(&s, i, "GET",
			       "/repos/o/r/issues/7/comments?per_page=100");
	assert_request(&s, 3, "POST", "/repos/o/r/issues/7/comments");
	server_release(&s);
	strbuf_release(&summary);
}

Test(comment, failed_create_lists_again_and_updates_instead_of_duplicating)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT;

	server_listen(&s);
	server_add(&s, 200, NULL, "[]");
	/* The 500 came after GitHub stored the comment, as happens. */
	server_add(&s, 500, NULL, "{\"message\":\"timeout\"}");
	server_add(&s, 200, NULL, "[{\"id\":77,\"body\":\"" MARKER "\\n\"}]");
	server_add(&s, 200, NULL, "{\"id\":77}");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_OK, "%s", bg_error_last());
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 4);
	cr_assert_str_eq(s.requests[0].method, "GET");
	cr_assert_str_eq(s.requests[1].method, "POST");
	cr_assert_str_eq(s.requests[2].method, "GET");
	assert_request(&s, 3, "PATCH", "/repos/o/r/issues/comments/77");
	server_release(&s);
	strbuf_release(&summary);
}

Test(comment, rate_limits_are_retried_after_the_wait_the_server_asks)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT, reset = STRBUF_INIT;
	struct timespec start, end;

	server_listen(&s);
	server_add(&s, 429, "Retry-After: 2\r\n",
		   "{\"message\":\"slow down\"}");
	strbuf_addf(&reset,
		    "X-RateLimit-Remaining: 0\r\nX-RateLimit-Reset: "
		    "%lld\r\n",
		    (long long)time(NULL) + 5);
	server_add(&s, 403, reset.buf,
		   "{\"message\":\"API rate limit "
		   "exceeded\"}");
	server_add(&s, 200, NULL, "[]");
	server_add(&s, 201, NULL, "{\"id\":1}");
	server_start(&s);
	clock_gettime(CLOCK_MONOTONIC, &start);
	cr_assert_eq(github_post(&s, &summary), BG_OK, "%s", bg_error_last());
	clock_gettime(CLOCK_MONOTONIC, &end);
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 4);
	assert_request(&s, 3, "POST", "/repos/o/r/issues/7/comments");
	/* BENCHGATE_HTTP_BACKOFF_SCALE=0.001 turns 2 s + ~6 s into ms. */
	cr_assert_lt(end.tv_sec - start.tv_sec, 3);
	server_release(&s);
	strbuf_release(&summary);
	strbuf_release(&reset);
}

Test(comment, a_wait_longer_than_the_cap_fails_at_once)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT;

	server_listen(&s);
	server_add(&s, 429, "Retry-After: 3600\r\n", "{}");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_ERROR);
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 1);
	cr_assert(strstr(bg_error_last(), "asked to wait 3600 s"), "%s",
		  bg_error_last());
	server_release(&s);
	strbuf_release(&summary);
}

Test(comment, retries_are_bounded)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT;

	server_listen(&s);
	for (int i = 0; i < HTTP_ATTEMPTS + 2; i++)
		server_add(&s, 503, NULL, "{\"message\":\"down\"}");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_ERROR);
	server_stop(&s);

	cr_assert_eq(s.requests_nr, HTTP_ATTEMPTS);
	cr_assert(strstr(bg_error_last(), "GitHub answered 503 to GET"), "%s",
		  bg_error_last());
	cr_assert(strstr(bg_error_last(), "after 5 attempts; server said: "
					  "down"),
		  "%s", bg_error_last());
	server_release(&s);
	strbuf_release(&summary);
}

Test(comment, not_found_and_forbidden_say_what_to_check)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT;

	server_listen(&s);
	server_add(&s, 404, NULL, "{\"message\":\"Not Found\"}");
	server_add(&s, 403, NULL,
		   "{\"message\":\"Resource not accessible by "
		   "integration\"}");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "GitHub: not found (404) on GET "),
		  "%s", bg_error_last());
	cr_assert(strstr(bg_error_last(), "check --repo (o/r) and --pr (7)"),
		  "%s", bg_error_last());
	cr_assert_eq(github_post(&s, &summary), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "refused the request (403)"), "%s",
		  bg_error_last());
	cr_assert(strstr(bg_error_last(), "GITHUB_TOKEN has pull-requests: "
					  "write"),
		  "%s", bg_error_last());
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 2, "401/403/404 are not retried");
	server_release(&s);
	strbuf_release(&summary);
}

Test(comment, a_next_link_to_another_host_is_not_followed)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT;

	server_listen(&s);
	server_add(&s, 200,
		   "Link: <http://attacker.invalid/repos/o/r/issues/"
		   "7/comments?page=2>; rel=\"next\"\r\n",
		   "[]");
	server_start(&s);
	cr_assert_eq(github_post(&s, &summary), BG_ERROR);
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 1);
	cr_assert(strstr(bg_error_last(), "leaves the API base"), "%s",
		  bg_error_last());
	server_release(&s);
	strbuf_release(&summary);
}

Test(comment, a_missing_token_is_an_input_error)
{
	struct comment_options opts = {
		.provider = "github",
		.body_path = report_path,
		.repo = "o/r",
		.number = "7",
		.api_url = "http://127.0.0.1:1",
	};
	struct strbuf summary = STRBUF_INIT;

	cr_assert_eq(comment_upsert(&opts, &summary), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "no token: set GITHUB_TOKEN"), "%s",
		  bg_error_last());
	opts.provider = "gitlab";
	cr_assert_eq(comment_upsert(&opts, &summary), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "no token: set GITLAB_TOKEN"), "%s",
		  bg_error_last());
	opts.provider = "bitbucket";
	cr_assert_eq(comment_upsert(&opts, &summary), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "--provider: expected github or "
					  "gitlab, found 'bitbucket'"),
		  "%s", bg_error_last());
	strbuf_release(&summary);
}

/* GitLab */

Test(comment, gitlab_creates_after_following_x_next_page)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT, api = STRBUF_INIT;
	struct comment_options opts = {
		.provider = "gitlab",
		.body_path = report_path,
		.repo = "group/proj",
		.number = "3",
	};

	server_listen(&s);
	strbuf_addf(&api, "%s/api/v4/", s.url);
	opts.api_url = api.buf;
	/* GitLab's system notes are never ours, whatever they say. */
	server_add(&s, 200, "X-Next-Page: 2\r\n",
		   "[{\"id\":1,\"system\":true,"
		   "\"body\":\"" MARKER "\"},{\"id\":2,\"body\":\"hi\"}]");
	server_add(&s, 200, "X-Next-Page: \r\n", "[]");
	server_add(&s, 201, NULL, "{\"id\":55}");
	server_start(&s);
	setenv("GITLAB_TOKEN", TOKEN, 1);
	setenv("CI_JOB_TOKEN", "job-token-unused", 1);
	cr_assert_eq(comment_upsert(&opts, &summary), BG_OK, "%s",
		     bg_error_last());
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 3);
	assert_request(&s, 0, "GET",
		       "/api/v4/projects/group%2Fproj/"
		       "merge_requests/3/notes?per_page=100&page=1");
	assert_request(&s, 1, "GET",
		       "/api/v4/projects/group%2Fproj/"
		       "merge_requests/3/notes?per_page=100&page=2");
	assert_request(&s, 2, "POST",
		       "/api/v4/projects/group%2Fproj/merge_requests/3/notes");
	for (size_t i = 0; i < s.requests_nr; i++) {
		cr_assert_str_eq(header(&s.requests[i], "PRIVATE-TOKEN"),
				 TOKEN);
		cr_assert_null(header(&s.requests[i], "Authorization"));
		cr_assert_null(header(&s.requests[i], "JOB-TOKEN"));
	}
	assert_sent_body(&s.requests[2], REPORT);
	cr_assert_str_eq(summary.buf, "created note 55 on group/proj!3\n");
	server_release(&s);
	strbuf_release(&summary);
	strbuf_release(&api);
}

Test(comment, gitlab_updates_from_the_ci_environment_with_the_job_token)
{
	struct server s;
	struct strbuf summary = STRBUF_INIT, api = STRBUF_INIT;
	struct comment_options opts = {
		.provider = NULL,
		.body_path = report_path,
	};

	server_listen(&s);
	strbuf_addf(&api, "%s/api/v4", s.url);
	server_add(&s, 200, "X-Next-Page: 2\r\n",
		   "[{\"id\":1,\"body\":\"a\"}]");
	server_add(&s, 200, "X-Next-Page:\r\n",
		   "[{\"id\":31,\"body\":\"" MARKER "\\nold\"}]");
	server_add(&s, 200, NULL, "{\"id\":31}");
	server_start(&s);
	setenv("GITLAB_CI", "true", 1);
	setenv("CI_JOB_TOKEN", TOKEN, 1);
	setenv("CI_PROJECT_ID", "1234", 1);
	setenv("CI_MERGE_REQUEST_IID", "8", 1);
	setenv("CI_API_V4_URL", api.buf, 1);
	cr_assert_eq(comment_upsert(&opts, &summary), BG_OK, "%s",
		     bg_error_last());
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 3);
	assert_request(&s, 2, "PUT",
		       "/api/v4/projects/1234/merge_requests/8/notes/31");
	cr_assert_str_eq(header(&s.requests[2], "JOB-TOKEN"), TOKEN);
	assert_sent_body(&s.requests[2], REPORT);
	cr_assert_str_eq(summary.buf, "updated note 31 on 1234!8\n");
	server_release(&s);
	strbuf_release(&summary);
	strbuf_release(&api);
}

/* Through the binary */

/* A stateful fake of GitHub's issue comments on o/r#7, two per page. */
struct fake_github {
	long ids[8];
	char *bodies[8];
	size_t nr;
};

static void fake_github_page(struct server *s, struct fake_github *fake,
			     long page, struct reply *reply)
{
	strbuf_addch(&reply->body, '[');
	for (size_t i = (size_t)(page - 1) * 2;
	     i < fake->nr && i < (size_t)page * 2; i++) {
		cJSON *item = cJSON_CreateObject();
		char *text;

		cJSON_AddNumberToObject(item, "id", (double)fake->ids[i]);
		cJSON_AddStringToObject(item, "body", fake->bodies[i]);
		text = cJSON_PrintUnformatted(item);
		strbuf_addf(&reply->body, "%s%s", i % 2 ? "," : "", text);
		cJSON_free(text);
		cJSON_Delete(item);
	}
	strbuf_addch(&reply->body, ']');
	if ((size_t)page * 2 < fake->nr)
		strbuf_addf(&reply->headers,
			    "Link: <%s/repos/o/r/issues/7/"
			    "comments?per_page=100&page=%ld>; rel=\"next\"\r\n",
			    s->url, page + 1);
}

static void fake_github(struct server *s, const struct recorded *request,
			struct reply *reply)
{
	static const char list[] = "/repos/o/r/issues/7/comments?per_page=100";
	static const char item[] = "/repos/o/r/issues/comments/";
	struct fake_github *fake = s->state;
	const char *auth = header(request, "Authorization");
	const char *target = request->target.buf;
	char *body = NULL;

	reply->status = 200;
	if (!auth || strcmp(auth, "Bearer " TOKEN)) {
		reply->status = 401;
		strbuf_addstr(&reply->body,
			      "{\"message\":\"Bad credentials\"}");
	} else if (!strcmp(request->method, "GET") &&
		   !strncmp(target, list, strlen(list))) {
		const char *page = strstr(target, "&page=");

		fake_github_page(s, fake, page ? atol(page + 6) : 1, reply);
	} else if (!(body = body_member(request->body.buf)) &&
		   strcmp(request->method, "GET")) {
		reply->status = 400;
		strbuf_addstr(&reply->body, "{\"message\":\"Problems parsing "
					    "JSON\"}");
	} else if (!strcmp(request->method, "POST") &&
		   !strcmp(target, "/repos/o/r/issues/7/comments") &&
		   fake->nr < 8) {
		fake->ids[fake->nr] = 1000 + (long)fake->nr;
		fake->bodies[fake->nr] = body;
		body = NULL;
		reply->status = 201;
		strbuf_addf(&reply->body, "{\"id\":%ld}",
			    fake->ids[fake->nr++]);
	} else if (!strcmp(request->method, "PATCH") &&
		   !strncmp(target, item, strlen(item))) {
		long id = atol(target + strlen(item));

		reply->status = 404;
		for (size_t i = 0; i < fake->nr; i++) {
			if (fake->ids[i] != id)
				continue;
			free(fake->bodies[i]);
			fake->bodies[i] = body;
			body = NULL;
			reply->status = 200;
			strbuf_addf(&reply->body, "{\"id\":%ld}", id);
		}
	} else {
		reply->status = 404;
		strbuf_addstr(&reply->body, "{\"message\":\"Not Found\"}");
	}
	free(body);
}

Test(comment, second_run_updates_the_comment_the_first_run_created)
{
	struct fake_github fake = { { 1, 2, 3 }, { 0 }, 3 };
	struct strbuf api = STRBUF_INIT, event = STRBUF_INIT;
	struct test_output out;
	struct server s;
	char *event_path;

	fake.bodies[0] = xstrdup("first!");
	fake.bodies[1] = xstrdup("> " MARKER "\n> quoted");
	fake.bodies[2] = xstrdup("<!-- benchgate:other -->\nanother suite");
	event_path = test_write_file(dir, "event.json",
				     "{\"action\":\"synchronize\","
				     "\"pull_request\":{\"number\":7}}");
	server_listen(&s);
	s.handle = fake_github;
	s.state = &fake;
	strbuf_addf(&api, "GITHUB_API_URL=%s", s.url);
	strbuf_addf(&event, "GITHUB_EVENT_PATH=%s", event_path);
	server_start(&s);
	{
		const char *env[] = { "GITHUB_TOKEN=" TOKEN,
				      "GITHUB_REPOSITORY=o/r", event.buf,
				      api.buf, NULL };
		char *second;

		test_benchgate(&out, dir, env,
			       (const char *const[]){ "comment", "--provider",
						      "github", "--body",
						      "report.md", NULL });
		cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
		cr_assert_str_eq(out.out.buf,
				 "created comment 1003 on o/r#7\n");
		test_output_release(&out);

		second = test_write_file(dir, "report.md", MARKER "\nv2\n");
		free(second);
		test_benchgate(&out, dir, env,
			       (const char *const[]){ "comment", "--provider",
						      "github", "--body",
						      "report.md", NULL });
		cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
		cr_assert_str_eq(out.out.buf,
				 "updated comment 1003 on o/r#7\n");
		test_output_release(&out);
	}
	server_stop(&s);

	cr_assert_eq(fake.nr, 4, "one comment, not one per run");
	cr_assert_str_eq(fake.bodies[3], MARKER "\nv2\n");
	cr_assert_eq(s.requests_nr, 6);
	assert_request(&s, 2, "POST", "/repos/o/r/issues/7/comments");
	assert_request(&s, 4, "GET",
		       "/repos/o/r/issues/7/comments?per_page=100&page=2");
	assert_request(&s, 5, "PATCH", "/repos/o/r/issues/comments/1003");
	for (size_t i = 0; i < fake.nr; i++)
		free(fake.bodies[i]);
	server_release(&s);
	free(event_path);
	strbuf_release(&api);
	strbuf_release(&event);
}

/* Runs `benchgate comment` against a fake GitHub that answers 401 with
 * body; returns how many requests it received. */
static size_t comment_rejected(struct test_output *out, const char *body)
{
	struct strbuf api = STRBUF_INIT;
	struct server s;
	size_t requests;

	server_listen(&s);
	server_add(&s, 401, NULL, body);
	strbuf_addf(&api, "--api-url=%s", s.url);
	server_start(&s);
	{
		const char *env[] = { "GITHUB_TOKEN=" TOKEN, NULL };

		test_benchgate(out, dir, env,
			       (const char *const[]){
				       "comment", "--provider", "github",
				       "--body", "report.md", "--repo", "o/r",
				       "--pr", "7", api.buf, NULL });
	}
	server_stop(&s);
	requests = s.requests_nr;
	server_release(&s);
	strbuf_release(&api);
	return requests;
}

Test(comment, a_bad_token_exits_2_naming_the_problem_but_not_the_token)
{
	struct test_output out;
	size_t requests;

	/* A server that echoes the token must not make us print it. */
	requests = comment_rejected(
		&out, "{\"message\":\"Bad credentials: " TOKEN "\"}");
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "GitHub rejected the token (401)"), "%s",
		  out.err.buf);
	cr_assert(strstr(out.err.buf, "check that GITHUB_TOKEN holds a valid"),
		  "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "Bad credentials: ***"), "%s",
		  out.err.buf);
	cr_assert_null(strstr(out.err.buf, TOKEN));
	cr_assert_null(strstr(out.out.buf, TOKEN));
	cr_assert_eq(requests, 1, "a 401 is not retried");
	test_output_release(&out);
}

Test(comment, a_truncated_token_echoed_back_is_not_printed)
{
	struct test_output out;

	/* The first 12 characters of TOKEN, as a server that cuts what it
	 * echoes would send them. */
	comment_rejected(&out,
			 "{\"message\":\"Bad credentials: ghp_s3cr3t-T...\"}");
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "Bad credentials: ***..."), "%s",
		  out.err.buf);
	cr_assert_null(strstr(out.err.buf, "ghp_s3cr3t-T"), "%s", out.err.buf);
	cr_assert_null(strstr(out.out.buf, "ghp_s3cr3t-T"), "%s", out.out.buf);
	test_output_release(&out);
}

/* The fake server stands in as the HTTP proxy that libcurl would send a
 * plain http:// request through, so any attempt to reach the remote host,
 * even one that does not resolve, is seen and counted. */
Test(comment, a_token_is_not_sent_over_plain_http_to_another_host)
{
	struct strbuf proxy = STRBUF_INIT;
	struct test_output out;
	struct server s;

	server_listen(&s);
	server_add(&s, 200, NULL, "[]");
	server_add(&s, 201, NULL, "{\"id\":1}");
	strbuf_addf(&proxy, "http_proxy=%s", s.url);
	server_start(&s);
	{
		const char *env[] = { "GITHUB_TOKEN=" TOKEN, proxy.buf, NULL };

		test_benchgate(&out, dir, env,
			       (const char *const[]){
				       "comment", "--provider", "github",
				       "--body", "report.md", "--repo", "o/r",
				       "--pr", "7", "--api-url",
				       "http://example.invalid", NULL });
	}
	server_stop(&s);

	cr_assert_eq(s.requests_nr, 0, "a request was sent");
	cr_assert_eq(out.exit_code, 2, "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "--api-url: 'http://example.invalid' is "
				      "plain http://"),
		  "%s", out.err.buf);
	cr_assert(strstr(out.err.buf, "only to loopback"), "%s", out.err.buf);
	cr_assert_null(strstr(out.err.buf, TOKEN));
	test_output_release(&out);
	server_release(&s);
	strbuf_release(&proxy);
}

Test(comment, dry_run_describes_the_requests_without_network_or_token)
{
	struct test_output out;

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "comment", "--provider", "github",
					      "--body", "report.md", "--repo",
					      "o/r", "--pr", "7", "--api-url",
					      "http://127.0.0.1:1/",
					      "--dry-run", NULL });
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "dry run: nothing sent"));
	cr_assert(strstr(out.out.buf, "marker " MARKER));
	cr_assert(strstr(out.out.buf, "  GET http://127.0.0.1:1/repos/o/r/"
				      "issues/7/comments?per_page=100"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "  PATCH http://127.0.0.1:1/repos/o/r/"
				      "issues/comments/{id}"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "  POST http://127.0.0.1:1/repos/o/r/"
				      "issues/7/comments otherwise"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "body: 33 characters"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "GITHUB_TOKEN is NOT set"));
	test_output_release(&out);
}

Test(comment, usage_errors_exit_2)
{
	struct test_output out;

	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "comment", "--provider", "gitea",
					      "--body", "report.md", NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "--provider: expected github or gitlab"),
		  "%s", out.err.buf);
	test_output_release(&out);
	test_benchgate(&out, dir, NULL,
		       (const char *const[]){ "comment", "--body", "report.md",
					      NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "no --provider"), "%s", out.err.buf);
	test_output_release(&out);
	test_benchgate(&out, dir,
		       (const char *const[]){ "GITHUB_TOKEN=x", NULL },
		       (const char *const[]){ "comment", "--provider", "github",
					      "--body", "report.md", "--repo",
					      "o/r", NULL });
	cr_assert_eq(out.exit_code, 2);
	cr_assert(strstr(out.err.buf, "no pull request number: pass --pr N"),
		  "%s", out.err.buf);
	test_output_release(&out);
}
