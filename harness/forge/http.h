/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_HTTP_H
#define BENCHGATE_HTTP_H

#include "harness/util/strbuf.h"

#include <stdbool.h>

/*
 * A JSON-over-HTTP(S) client on one libcurl handle, for a REST API that
 * takes a secret token in a header.
 *
 * The token never reaches another host: redirects are not followed and
 * only http:// and https:// URLs are fetched. Every message the client
 * records or prints has the secret scrubbed (redact.h).
 *
 * Requests that fail transiently are retried: 5xx answers and transport
 * errors (of idempotent calls only), 429, and 403 with
 * X-RateLimit-Remaining: 0, up to HTTP_ATTEMPTS attempts in all, waiting
 * Retry-After (or until X-RateLimit-Reset) when the server says, else 1 s
 * doubling per attempt up to HTTP_BACKOFF_CAP_S. A server that asks for
 * more than HTTP_WAIT_CAP_S fails the call at once rather than hold the CI
 * job. Every wait is multiplied by BENCHGATE_HTTP_BACKOFF_SCALE when set (a
 * number from 0 to 1, such as 0.001 in tests).
 *
 * An attempt ends after 120 s in all, and sooner when the transfer stalls:
 * below 64 bytes a second for 30 s (libcurl's low-speed limit; the 30 s
 * are scaled as the waits are, to 5 s at least), so a server that
 * trickles bytes holds a call for minutes at most, not each attempt's
 * whole timeout.
 */

#define HTTP_ATTEMPTS	   5	/* per call: 1 + 4 retries */
#define HTTP_BACKOFF_CAP_S 30.0 /* longest computed backoff */
#define HTTP_WAIT_CAP_S	   60.0 /* longest Retry-After honoured */

struct http_client;

struct http_client_options {
	const char *service;	    /* names the server in messages:
				     * "GitHub" */
	const char *secret;	    /* scrubbed from every message; NULL:
				     * none. Borrowed for the client's life */
	const char *const *headers; /* NULL-terminated header lines sent
				     * with every request (the token's
				     * among them); copied */
};

/*
 * Creates a client that sends the given headers, a User-Agent, and
 * "Content-Type: application/json" with every request. Free it with
 * http_client_free(). BG_ERROR when libcurl cannot be loaded (the first
 * client loads it with dlopen(); the message names the library and the
 * package to install) or set up.
 */
int http_client_new(struct http_client **out,
		    const struct http_client_options *opts);

/* Frees the client and its handle; NULL-safe. */
void http_client_free(struct http_client *c);

/* One answer. The body is capped (64 MiB): a larger one is an error. */
struct http_response {
	long status;
	struct strbuf headers; /* the header lines of the final response */
	struct strbuf body;
};
#define HTTP_RESPONSE_INIT                  \
	{                                   \
		0, STRBUF_INIT, STRBUF_INIT \
	}

void http_response_release(struct http_response *res);

enum http_call_flags {
	/* Safe to repeat after a 5xx or a transport error, where the server
	 * may have applied the first attempt (GET, PUT, PATCH; not POST). */
	HTTP_IDEMPOTENT = 1 << 0,
};

/*
 * Sends method to url with body (JSON, or NULL for none), retrying as the
 * top of this file says. Returns BG_OK with the final answer in res, of
 * any status, for the caller to judge; without HTTP_IDEMPOTENT a 5xx
 * answer or a transport error comes back at once (a transport error as
 * BG_ERROR) for the caller to decide whether to repeat. BG_ERROR once the
 * retries are spent, with http_status_error()'s message, or when the
 * server asks for too long a wait.
 */
int http_call(struct http_client *c, const char *method, const char *url,
	      const char *body, unsigned flags, struct http_response *res);

/*
 * The one rule for credentials over HTTP, in every client (the forges',
 * MLflow's): a URL may carry a token or password when it is https://, or
 * plain http:// to this machine (localhost, 127.0.0.0/8, [::1], with or
 * without a port; when in doubt, not). http_call() of a client with a
 * secret refuses any other URL; callers check a URL where the user gives
 * it, to name the option in the message.
 */
bool http_url_may_carry_secret(const char *url);

/* Whether the host of an http:// authority (what follows "http://") is
 * this machine. */
bool http_authority_is_loopback(const char *authority);

/* The version of the libcurl a client would use ("7.88.1"), loading it
 * if no client has; NULL, with the reason recorded (bg_error_last()),
 * when it cannot be loaded. */
const char *http_library_version(void);

/* Appends the first len bytes of s percent-encoded for a URL path segment
 * or a query value: all but RFC 3986's unreserved characters (letters,
 * digits, "-._~") become %XX, upper-case hex, as curl_easy_escape() does. */
void http_add_escaped(struct strbuf *out, const char *s, size_t len);

/* Whether status is 2xx. */
bool http_is_success(long status);

/* 429, or GitHub's primary rate limit, which answers 403 with
 * X-RateLimit-Remaining: 0. */
bool http_is_rate_limited(const struct http_response *res);

/* Appends the trimmed value of the first header called name (in any
 * case); false when there is none. */
bool http_response_header(const struct http_response *res, const char *name,
			  struct strbuf *value);

/* Appends the rel="next" target of the response's Link header (RFC 8288,
 * the pagination GitHub uses); false when there is none. The URL is the
 * server's: check where it points before sending a token there. */
bool http_link_next(const struct http_response *res, struct strbuf *url);

/*
 * Records BG_ERROR for an answer that is not 2xx and that the caller has
 * no better words for: "SERVICE answered 503 to GET URL after 5 attempts;
 * server said: ..." (attempts is left out when 1), or "SERVICE rate limit
 * exhausted (403) on GET URL". Returns BG_ERROR.
 */
int http_status_error(const struct http_client *c, const char *method,
		      const char *url, const struct http_response *res,
		      int attempts);

/* Appends "; server said: ..." from the "message" (or "error") member of
 * a JSON error body, as GitHub and GitLab send; nothing without one. */
void http_add_server_message(struct strbuf *out,
			     const struct http_response *res);

/* Appends text from a server cut to a few hundred bytes (whole UTF-8
 * characters, then an ellipsis), with control characters as spaces so it
 * cannot garble the terminal or split a message. */
void http_add_server_text(struct strbuf *out, const char *text);

/* The scaled seconds to wait before attempt + 1 when the server did not
 * say: 1 s doubling per attempt, capped, times the backoff scale. */
double http_backoff(const struct http_client *c, int attempt);

/* Sleeps that long, through signals; nothing for 0 or less. */
void http_sleep(double seconds);

#endif
