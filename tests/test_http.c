/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP client's bound on a stalled transfer (harness/forge/http.h): a
 * server on loopback that answers with a header promising 100,000 bytes
 * and then trickles one byte every 200 ms. libcurl's low-speed limit
 * ends the call within seconds (the 30 s scaled by
 * BENCHGATE_HTTP_BACKOFF_SCALE, 5 s at least), where only the request's own
 * timeout (120 s per attempt) ended it before.
 */
#include "harness/forge/http.h"
#include "harness/util/error.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int listener = -1;
static volatile int stop;

static void *trickle(void *arg)
{
	static const char head[] = "HTTP/1.1 200 OK\r\n"
				   "Content-Type: application/json\r\n"
				   "Content-Length: 100000\r\n\r\n";
	char request[4096];
	int fd = accept(listener, NULL, NULL);

	(void)arg;
	if (fd < 0)
		return NULL;
	(void)!read(fd, request, sizeof(request));
	(void)!write(fd, head, sizeof(head) - 1);
	for (int i = 0; i < 300 && !stop; i++) {
		if (write(fd, " ", 1) < 0)
			break;
		usleep(200 * 1000);
	}
	close(fd);
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

Test(http, a_server_that_trickles_bytes_is_given_up_within_seconds,
     .timeout = 40)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	struct http_response res = HTTP_RESPONSE_INIT;
	struct http_client *client = NULL;
	char url[64];
	pthread_t server;
	double start;
	int error;

	setenv("BENCHGATE_HTTP_BACKOFF_SCALE", "0.001", 1);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert((listener = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	cr_assert_eq(bind(listener, (struct sockaddr *)&addr, sizeof(addr)),
		     0);
	cr_assert_eq(listen(listener, 1), 0);
	cr_assert_eq(getsockname(listener, (struct sockaddr *)&addr, &len), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/x",
		 ntohs(addr.sin_port));
	cr_assert_eq(pthread_create(&server, NULL, trickle, NULL), 0);
	cr_assert_eq(http_client_new(&client,
				     &(struct http_client_options){
					     .service = "Test" }),
		     BG_OK);
	start = now();
	/* not idempotent: one attempt, no retries */
	error = http_call(client, "POST", url, "{}", 0, &res);
	cr_assert_lt(error, 0, "a stalled transfer succeeded");
	cr_assert_lt(now() - start, 25.0, "took %.1f s", now() - start);
	stop = 1;
	pthread_join(server, NULL);
	close(listener);
	http_response_release(&res);
	http_client_free(client);
}

/* RFC 3986, section 2.3: ALPHA / DIGIT / "-" / "." / "_" / "~" stay;
 * every other byte, UTF-8 ones included, is %XX in upper case (section
 * 2.1 prefers upper case; curl_easy_escape() writes so). */
Test(http, escaping_keeps_only_the_unreserved_characters)
{
	static const char in[] = "AZaz09-._~ /?#[]@!$&'()*+,;=%:\"\xc3\xa9";
	struct strbuf out = STRBUF_INIT;

	http_add_escaped(&out, in, sizeof(in) - 1);
	cr_assert_str_eq(out.buf,
			 "AZaz09-._~%20%2F%3F%23%5B%5D%40%21%24%26%27%28%29"
			 "%2A%2B%2C%3B%3D%25%3A%22%C3%A9");
	strbuf_reset(&out);
	/* only len bytes, NUL included */
	http_add_escaped(&out, "a\0b", 3);
	cr_assert_str_eq(out.buf, "a%00b");
	strbuf_release(&out);
}
