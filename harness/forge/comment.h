#ifndef BENCHGATE_COMMENT_H
#define BENCHGATE_COMMENT_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The pull/merge-request comment: `benchgate comment` posts a report (the
 * Markdown reporter's report.md) on a GitHub pull request or a GitLab merge
 * request, and on every later push edits that same comment instead of
 * adding another, so a request has one living comment per suite.
 *
 * The comment is found by its marker, an HTML comment on the body's first
 * line that renders as nothing: "<!-- benchgate:SUITE -->" as the Markdown
 * reporter writes it, or "<!-- benchgate -->" for a body without one. A
 * comment is ours when its body starts with the marker (not merely contains
 * it: a reply that quotes our comment contains it too).
 *
 * Where things come from, options first:
 *
 *   provider  --provider; else github when GITHUB_ACTIONS=true, gitlab when
 *             GITLAB_CI=true
 *   API base  --api-url; GITHUB_API_URL or CI_API_V4_URL; else
 *             https://api.github.com or https://gitlab.com/api/v4
 *   repo      --repo; GITHUB_REPOSITORY ("owner/name") or CI_PROJECT_ID
 *             (a number or "group/project", which is URL-encoded)
 *   number    --pr; pull_request.number, number or issue.number of the
 *             JSON file at GITHUB_EVENT_PATH; CI_MERGE_REQUEST_IID
 *   token     GITHUB_TOKEN (Authorization: Bearer); GITLAB_TOKEN
 *             (PRIVATE-TOKEN), else CI_JOB_TOKEN (JOB-TOKEN)
 *
 * The token is a secret: it goes into the one request header that needs
 * it and nowhere else. Every message (errors, warnings, the summary) is
 * passed through comment_redact() first, because servers and libcurl may
 * echo what they were sent. Redirects are not followed and a pagination
 * link that leaves the API base is refused, so the token never reaches
 * another host.
 *
 * Requests that fail transiently are retried: 5xx answers, transport
 * errors, 429, and 403 with X-RateLimit-Remaining: 0, up to
 * COMMENT_ATTEMPTS attempts in all, waiting Retry-After (or until
 * X-RateLimit-Reset) when the server says, else 1 s doubling per attempt up
 * to COMMENT_BACKOFF_CAP_S. A server that asks for more than
 * COMMENT_WAIT_CAP_S fails the command at once rather than hold the CI job.
 * Every wait is multiplied by BENCHGATE_HTTP_BACKOFF_SCALE when set (a
 * number >= 0, such as 0.001 in tests). A create (POST) is not blindly
 * retried: after a 5xx or a transport error it may have been applied, so
 * the comments are listed again first and an existing one is updated.
 */

enum comment_provider {
	COMMENT_GITHUB,
	COMMENT_GITLAB,
};

/* Longest bodies, in characters (counted as UTF-16 code units, which is
 * never fewer than characters however the server counts): GitHub's comment
 * limit and GitLab's note limit. A longer body is cut at a line end and a
 * note says so. */
#define COMMENT_GITHUB_MAX 65536
#define COMMENT_GITLAB_MAX 1000000

#define COMMENT_ATTEMPTS      5	   /* per request: 1 + 4 retries */
#define COMMENT_BACKOFF_CAP_S 30.0 /* longest computed backoff */
#define COMMENT_WAIT_CAP_S    60.0 /* longest Retry-After honoured */
#define COMMENT_MAX_PAGES     100  /* of 100 comments each */

struct comment_options {
	const char *provider;  /* "github", "gitlab"; NULL: detect */
	const char *body_path; /* required: the Markdown to post */
	const char *repo;      /* NULL: from the environment */
	const char *number;    /* PR number or MR iid; NULL: environment */
	const char *api_url;   /* NULL: environment, then the default */
	const char *marker;    /* a name, as a suite name; NULL: the
				 * body's first-line marker, else
				 * "<!-- benchgate -->" */
	bool dry_run;	       /* resolve and describe; send nothing, and
				 * need no token */
};

/*
 * Creates the comment, or updates the one whose body starts with the
 * marker, and appends one line saying which to summary ("created comment
 * 42 on octo/repo#7: URL"). With dry_run, appends what would be sent
 * (methods, URLs, body size) instead, without any network access.
 *
 * BG_EINPUT (exit 2) for what the user must fix: a bad option, a missing
 * repository, number or token, an unreadable body file, and the server's
 * 401, 403 and 404, whose messages say what to check. BG_ERROR for other
 * failures, such as 5xx answers after the last retry. The recorded
 * message never holds the token.
 */
int comment_upsert(const struct comment_options *opts, struct strbuf *summary);

/* Building blocks, exposed for the tests. */

/* Appends text with every occurrence of secret replaced by "***". A NULL
 * or empty secret leaves text unchanged. */
void comment_redact(struct strbuf *out, const char *text, const char *secret);

/* Appends the marker: "<!-- benchgate:" + escape_html_comment(name) +
 * " -->" for a name (the Markdown reporter's marker for a suite of that
 * name); else the first line of body when it is a benchgate marker; else
 * "<!-- benchgate -->". */
void comment_marker(struct strbuf *out, const char *name, const char *body);

/*
 * Appends the body to send: marker, newline, then body without its own
 * first-line benchgate marker (so a body keeps exactly one marker, the
 * chosen one). When the result is longer than limit characters (see
 * COMMENT_GITHUB_MAX), it is cut at a line end and ends with a note saying
 * so; the result is then at most limit characters. Returns true when it
 * had to cut. body must be valid UTF-8 (escape_utf8()).
 */
bool comment_prepare_body(struct strbuf *out, const char *body,
			  const char *marker, size_t limit);

/* Length of s in UTF-16 code units: what comment_prepare_body() counts. */
size_t comment_length(const char *s);

/*
 * Appends the pull-request number from a GitHub event file (the JSON at
 * GITHUB_EVENT_PATH): pull_request.number, else number, else issue.number.
 * BG_EINPUT naming the file when it is unreadable, not JSON, or has no
 * number (a push event, say).
 */
int comment_event_number(struct strbuf *out, const char *event_path);

#endif
