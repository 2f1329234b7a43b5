/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP client over libcurl; the contract is in http.h. One attempt is
 * http_send(); http_call() wraps it in the retry policy.
 *
 * libcurl is loaded with dlopen() by the first client, never linked: it
 * and the 20-odd libraries it needs (TLS, Kerberos, LDAP, HTTP/2, ...)
 * would otherwise be mapped and relocated at every start of benchgate,
 * for the few commands that talk to a server (docs/performance.md). Only
 * this file calls libcurl, through the table `curl` below; the headers
 * give the types and constants of the version built against.
 */
#include "harness/forge/http.h"

#include "harness/forge/redact.h"
#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/utf8.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <ctype.h>
/* CURLOPT_PROTOCOLS, for a libcurl older than the headers */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
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
/* Slower than this many bytes a second for LOW_SPEED_TIME_S (scaled as
 * the waits are) is a stalled transfer. */
#define LOW_SPEED_BYTES	 64L
#define LOW_SPEED_TIME_S 30.0
#define LOW_SPEED_MIN_S	 5.0 /* scaled, never below: a busy test machine */

/* Server messages quoted in our errors are cut to this many bytes. */
#define SERVER_MESSAGE_MAX 300

/* The soname of the libcurl the build was configured with (CMakeLists.txt
 * sets it; Debian's libcurl4 and its t64 successor both ship it). */
#ifndef BENCHGATE_LIBCURL
#define BENCHGATE_LIBCURL "libcurl.so.4"
#endif

/* The libcurl calls this file makes, resolved once by load_curl(). */
static struct curl_api {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list,
					   const char *line);
	void (*slist_free_all)(struct curl_slist *list);
	time_t (*getdate)(const char *date, const time_t *unused);
	curl_version_info_data *(*version_info)(CURLversion age);
} curl;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static char curl_load_error[512]; /* empty when libcurl is loaded */

struct http_client {
	CURL *curl;
	struct curl_slist *headers;
	const char *service;
	const char *secret;
	double backoff_scale;
	bool curl_global;
	char curl_error[CURL_ERROR_SIZE];
};

/* What the libcurl callbacks fill in. */
struct receiving {
	struct http_response *res;
	bool too_large;
};

/* Messages */

void http_add_server_text(struct strbuf *out, const char *text)
{
	size_t len = utf8_prefix_len(text, SERVER_MESSAGE_MAX);

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		strbuf_addch(out, c < 0x20 || c == 0x7f ? ' ' : c);
	}
	if (text[len])
		strbuf_addstr(out, "\u2026");
}

void http_add_server_message(struct strbuf *out,
			     const struct http_response *res)
{
	cJSON *root = cJSON_ParseWithLength(res->body.buf, res->body.len);
	const cJSON *message;
	char *printed = NULL;

	message = cJSON_GetObjectItemCaseSensitive(root, "message");
	if (!message)
		message = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (cJSON_IsString(message) && *message->valuestring) {
		strbuf_addstr(out, "; server said: ");
		http_add_server_text(out, message->valuestring);
	} else if (message && (printed = cJSON_PrintUnformatted(message))) {
		/* GitLab puts validation errors in an object. */
		strbuf_addstr(out, "; server said: ");
		http_add_server_text(out, printed);
	}
	cJSON_free(printed);
	cJSON_Delete(root);
}

int http_status_error(const struct http_client *c, const char *method,
		      const char *url, const struct http_response *res,
		      int attempts)
{
	struct strbuf msg = STRBUF_INIT;
	int error;

	if (res->status == 403 && http_is_rate_limited(res)) {
		strbuf_addf(&msg, "%s rate limit exhausted (403) on %s %s",
			    c->service, method, url);
	} else {
		strbuf_addf(&msg, "%s answered %ld to %s %s", c->service,
			    res->status, method, url);
		if (attempts > 1)
			strbuf_addf(&msg, " after %d attempts", attempts);
	}
	http_add_server_message(&msg, res);
	error = redact_error(c->secret, BG_ERROR, "%s", msg.buf);
	strbuf_release(&msg);
	return error;
}

/* Responses */

bool http_is_success(long status)
{
	return status >= 200 && status < 300;
}

bool http_response_header(const struct http_response *res, const char *name,
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

static bool header_is(const struct http_response *res, const char *name,
		      const char *expected)
{
	struct strbuf value = STRBUF_INIT;
	bool is = http_response_header(res, name, &value) &&
		  !strcmp(value.buf, expected);

	strbuf_release(&value);
	return is;
}

bool http_is_rate_limited(const struct http_response *res)
{
	return res->status == 429 ||
	       (res->status == 403 &&
		header_is(res, "X-RateLimit-Remaining", "0"));
}

/* The seconds the server asks us to wait (Retry-After as seconds or a
 * date, else X-RateLimit-Reset); -1 when it does not say. */
static double server_wait(const struct http_response *res)
{
	struct strbuf value = STRBUF_INIT;
	double wait = -1;
	char *end;

	if (http_response_header(res, "Retry-After", &value)) {
		wait = strtod(value.buf, &end);
		if (end == value.buf || *end) {
			time_t at = curl.getdate(value.buf, NULL);

			wait = at < 0 ? -1 : difftime(at, time(NULL));
		}
	} else if (http_response_header(res, "X-RateLimit-Reset", &value)) {
		double reset = strtod(value.buf, &end);

		if (end != value.buf && !*end)
			wait = reset - (double)time(NULL) + 1;
	}
	strbuf_release(&value);
	return wait < 0 ? -1 : wait;
}

void http_response_release(struct http_response *res)
{
	strbuf_release(&res->headers);
	strbuf_release(&res->body);
}

/* Pagination */

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

bool http_link_next(const struct http_response *res, struct strbuf *url)
{
	struct strbuf value = STRBUF_INIT;
	const char *open;
	bool found = false;

	if (!http_response_header(res, "Link", &value))
		goto done;
	for (open = value.buf; (open = strchr(open, '<'));) {
		const char *close = strchr(open, '>');
		const char *stop;

		if (!close)
			break;
		stop = strchr(close, '<');
		if (!stop)
			stop = close + strlen(close);
		if (rel_is_next(close + 1, stop)) {
			strbuf_add(url, open + 1, (size_t)(close - open - 1));
			found = true;
			break;
		}
		open = close;
	}
done:
	strbuf_release(&value);
	return found;
}

/* Loading libcurl */

/* dlsym() returns a data pointer; POSIX guarantees that it holds a
 * function's address, and memcpy says so without a cast between the two
 * kinds of pointer that ISO C leaves undefined. */
static bool load_symbol(void *library, const char *symbol, void *slot,
			size_t size)
{
	void *address = dlsym(library, symbol);

	memcpy(slot, &address, size);
	return address != NULL;
}

static void load_curl_once(void)
{
	static const struct {
		const char *name;
		size_t offset, size;
	} symbols[] = {
#define SYMBOL(field, name) \
	{ name, offsetof(struct curl_api, field), sizeof(curl.field) }
		SYMBOL(global_init, "curl_global_init"),
		SYMBOL(global_cleanup, "curl_global_cleanup"),
		SYMBOL(easy_init, "curl_easy_init"),
		SYMBOL(easy_setopt, "curl_easy_setopt"),
		SYMBOL(easy_perform, "curl_easy_perform"),
		SYMBOL(easy_getinfo, "curl_easy_getinfo"),
		SYMBOL(easy_cleanup, "curl_easy_cleanup"),
		SYMBOL(easy_strerror, "curl_easy_strerror"),
		SYMBOL(slist_append, "curl_slist_append"),
		SYMBOL(slist_free_all, "curl_slist_free_all"),
		SYMBOL(getdate, "curl_getdate"),
		SYMBOL(version_info, "curl_version_info"),
#undef SYMBOL
	};
	void *library = dlopen(BENCHGATE_LIBCURL, RTLD_NOW | RTLD_LOCAL);

	if (!library) {
		const char *why = dlerror();

		snprintf(curl_load_error, sizeof(curl_load_error),
			 "cannot load libcurl, which this command needs to "
			 "talk to a server: %s (install it: apt-get install "
			 "libcurl4 on Debian and Ubuntu)",
			 why ? why : BENCHGATE_LIBCURL);
		return;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		if (!load_symbol(library, symbols[i].name,
				 (char *)&curl + symbols[i].offset,
				 symbols[i].size)) {
			snprintf(curl_load_error, sizeof(curl_load_error),
				 "cannot use %s: it has no %s(); benchgate "
				 "needs libcurl 7.x or newer",
				 BENCHGATE_LIBCURL, symbols[i].name);
			dlclose(library);
			return;
		}
	}
}

/* Loads libcurl once per process; BG_ERROR with a message naming the
 * library and the package to install when it cannot be loaded. */
static int load_curl(void)
{
	pthread_once(&curl_once, load_curl_once);
	if (curl_load_error[0])
		return bg_error("%s", curl_load_error);
	return BG_OK;
}

const char *http_library_version(void)
{
	if (load_curl() < 0)
		return NULL;
	return curl.version_info(CURLVERSION_NOW)->version;
}

/* Transport */

static size_t on_header(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct receiving *in = userdata;
	size_t len = size * nmemb;

	/* Interim answers (100 Continue) have headers of their own. */
	if (len >= 5 && !strncmp(data, "HTTP/", 5))
		strbuf_reset(&in->res->headers);
	strbuf_add(&in->res->headers, data, len);
	return len;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct receiving *in = userdata;
	size_t len = size * nmemb;

	if (in->res->body.len + len > RESPONSE_MAX) {
		in->too_large = true;
		return 0;
	}
	strbuf_add(&in->res->body, data, len);
	return len;
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

void http_sleep(double seconds)
{
	struct timespec left;

	if (!(seconds > 0))
		return;
	left.tv_sec = (time_t)seconds;
	left.tv_nsec = (long)((seconds - (double)left.tv_sec) * 1e9);
	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
}

/* The unscaled backoff before attempt + 1. */
static double backoff_seconds(int attempt)
{
	double wait = BACKOFF_BASE_S;

	for (int i = 1; i < attempt && wait < HTTP_BACKOFF_CAP_S; i++)
		wait *= 2;
	return wait < HTTP_BACKOFF_CAP_S ? wait : HTTP_BACKOFF_CAP_S;
}

double http_backoff(const struct http_client *c, int attempt)
{
	return backoff_seconds(attempt) * c->backoff_scale;
}

static int set_options(struct http_client *c)
{
	curl.easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
	curl.easy_setopt(c->curl, CURLOPT_USERAGENT,
			 "benchgate/" BENCHGATE_VERSION);
	curl.easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->curl_error);
	curl.easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl.easy_setopt(c->curl, CURLOPT_TIMEOUT, REQUEST_TIMEOUT_S);
	/* a server that trickles bytes (or none) ends the attempt within
	 * seconds, not at the whole request's timeout, per attempt */
	curl.easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, LOW_SPEED_BYTES);
	curl.easy_setopt(c->curl, CURLOPT_LOW_SPEED_TIME,
			 c->backoff_scale * LOW_SPEED_TIME_S >= LOW_SPEED_MIN_S
				 ? (long)(c->backoff_scale * LOW_SPEED_TIME_S)
				 : (long)LOW_SPEED_MIN_S);
	curl.easy_setopt(c->curl, CURLOPT_ACCEPT_ENCODING, "");
	curl.easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl.easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
	/* The token header goes to whatever the URL names: never follow a
	 * redirect, never leave HTTP(S). */
	curl.easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	/* A libcurl older than the headers (7.85) lacks the string form. */
	if (curl.easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https") &&
	    curl.easy_setopt(c->curl, CURLOPT_PROTOCOLS,
			     (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)))
		return redact_error(c->secret, BG_ERROR,
				    "cannot limit libcurl to http and https");
	return BG_OK;
}

int http_client_new(struct http_client **out,
		    const struct http_client_options *opts)
{
	struct http_client *c = xcalloc(1, sizeof(*c));
	int error = BG_OK;

	*out = NULL;
	c->service = opts->service;
	c->secret = opts->secret;
	c->backoff_scale = backoff_scale();
	if ((error = load_curl()) < 0)
		goto done;
	if (curl.global_init(CURL_GLOBAL_DEFAULT)) {
		error = redact_error(c->secret, BG_ERROR,
				     "cannot initialise libcurl");
		goto done;
	}
	c->curl_global = true;
	if (!(c->curl = curl.easy_init())) {
		error = redact_error(c->secret, BG_ERROR,
				     "cannot initialise libcurl");
		goto done;
	}
	for (const char *const *h = opts->headers; h && *h; h++)
		c->headers = curl.slist_append(c->headers, *h);
	c->headers =
		curl.slist_append(c->headers, "Content-Type: application/json");
	/* No "Expect: 100-continue" round trip before a large body. */
	c->headers = curl.slist_append(c->headers, "Expect:");
	if (!c->headers) {
		error = redact_error(c->secret, BG_ERROR,
				     "cannot build the request headers");
		goto done;
	}
	error = set_options(c);
done:
	if (error < 0)
		http_client_free(c);
	else
		*out = c;
	return error;
}

void http_client_free(struct http_client *c)
{
	if (!c)
		return;
	/* without libcurl loaded, there is nothing of it to free */
	if (c->curl)
		curl.easy_cleanup(c->curl);
	if (c->headers)
		curl.slist_free_all(c->headers);
	if (c->curl_global)
		curl.global_cleanup();
	free(c);
}

/* One attempt. BG_ERROR for a transport failure; any HTTP status is
 * success here, for the caller to judge. */
static int http_send(struct http_client *c, const char *method, const char *url,
		     const char *body, struct http_response *res)
{
	struct receiving in = { res, false };
	CURLcode rc;

	res->status = 0;
	strbuf_reset(&res->headers);
	strbuf_reset(&res->body);
	c->curl_error[0] = '\0';
	curl.easy_setopt(c->curl, CURLOPT_URL, url);
	curl.easy_setopt(c->curl, CURLOPT_HEADERDATA, &in);
	curl.easy_setopt(c->curl, CURLOPT_WRITEDATA, &in);
	if (body) {
		curl.easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(body));
		curl.easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
		curl.easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST,
				 strcmp(method, "POST") ? method : NULL);
	} else {
		curl.easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
		curl.easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST,
				 strcmp(method, "GET") ? method : NULL);
	}
	rc = curl.easy_perform(c->curl);
	if (in.too_large)
		return redact_error(c->secret, BG_ERROR,
				    "%s %s: the response is larger than %zu "
				    "MiB",
				    method, url, RESPONSE_MAX >> 20);
	if (rc != CURLE_OK)
		return redact_error(c->secret, BG_ERROR, "%s %s: %s", method,
				    url,
				    c->curl_error[0] ? c->curl_error
						     : curl.easy_strerror(rc));
	curl.easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &res->status);
	return BG_OK;
}

/* Whether the host of an http:// authority (what follows "http://") is
 * this machine: localhost, 127.0.0.0/8 in dotted quads, or [::1], with or
 * without a port. Anything else, the shorthands 127.1 and 0x7f000001
 * included, is not: when in doubt, refuse. */
bool http_authority_is_loopback(const char *authority)
{
	const char *end = authority + strcspn(authority, "/?#");
	const char *host = authority, *host_end, *rest;
	bool bracketed = *authority == '[';
	char name[64];
	struct in_addr v4;
	struct in6_addr v6;

	if (bracketed) {
		host++;
		if (!(host_end = memchr(host, ']', (size_t)(end - host))))
			return false;
		rest = host_end + 1;
	} else {
		host_end = memchr(host, ':', (size_t)(end - host));
		if (!host_end)
			host_end = end;
		rest = host_end;
	}
	/* Only a port may follow the host. */
	if ((rest != end && *rest != ':') ||
	    (size_t)(host_end - host) >= sizeof(name))
		return false;
	memcpy(name, host, (size_t)(host_end - host));
	name[host_end - host] = '\0';
	if (bracketed)
		return inet_pton(AF_INET6, name, &v6) == 1 &&
		       IN6_IS_ADDR_LOOPBACK(&v6);
	return !strcasecmp(name, "localhost") ||
	       (inet_pton(AF_INET, name, &v4) == 1 &&
		ntohl(v4.s_addr) >> 24 == 127);
}

void http_add_escaped(struct strbuf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			strbuf_addch(out, (char)c);
		} else {
			strbuf_addch(out, '%');
			strbuf_addch(out, hex[c >> 4]);
			strbuf_addch(out, hex[c & 15]);
		}
	}
}

bool http_url_may_carry_secret(const char *url)
{
	if (!strncasecmp(url, "https://", 8))
		return true;
	return !strncasecmp(url, "http://", 7) &&
	       http_authority_is_loopback(url + 7);
}

int http_call(struct http_client *c, const char *method, const char *url,
	      const char *body, unsigned flags, struct http_response *res)
{
	struct strbuf what = STRBUF_INIT;
	int error;

	/* the last line of defence: each caller checks its URL where the
	 * user gave it, for a message that names the option */
	if (c->secret && !http_url_may_carry_secret(url))
		return bg_input_error("%s: '%s' is plain http://, which would "
				      "send the credentials in clear text; use "
				      "https:// (plain http:// only to "
				      "loopback: 127.0.0.0/8, ::1, localhost)",
				      c->service, url);

	for (int attempt = 1;; attempt++) {
		bool limited, transient;
		double wait;

		error = http_send(c, method, url, body, res);
		limited = !error && http_is_rate_limited(res);
		transient = error < 0 || res->status >= 500;
		if (!limited && !(transient && (flags & HTTP_IDEMPOTENT)))
			break;
		if (attempt == HTTP_ATTEMPTS) {
			if (!error)
				error = http_status_error(c, method, url, res,
							  attempt);
			break;
		}
		wait = limited ? server_wait(res) : -1;
		if (wait > HTTP_WAIT_CAP_S) {
			error = redact_error(c->secret, BG_ERROR,
					     "%s rate limit on %s %s: asked to "
					     "wait %.0f s, more than the %.0f "
					     "s benchgate waits; try again "
					     "later",
					     c->service, method, url, wait,
					     HTTP_WAIT_CAP_S);
			break;
		}
		wait = wait < 0 ? http_backoff(c, attempt)
				: wait * c->backoff_scale;

		strbuf_reset(&what);
		if (error < 0)
			strbuf_addstr(&what, bg_error_last());
		else
			strbuf_addf(&what, "%s %s: %ld", method, url,
				    res->status);
		redact_warn(c->secret,
			    "%s; retrying in %.3g s (attempt %d of %d)",
			    what.buf, wait, attempt + 1, HTTP_ATTEMPTS);
		http_sleep(wait);
	}
	strbuf_release(&what);
	return error;
}
