/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The target from the CI environment (harness/forge/target.h): the pull
 * request number from GitHub's event file (GITHUB_EVENT_PATH), whose
 * shapes are those of docs.github.com/en/webhooks/webhook-events-and-payloads
 * (pull_request, issue_comment, and the bare number of some events).
 */
#include "harness/forge/target.h"

#include "harness/util/error.h"

#include "testutil.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

static void setup(void)
{
	/* The tests may themselves run in GitHub Actions. */
	unsetenv("GITHUB_TOKEN");
	unsetenv("GITHUB_API_URL");
	dir = test_tmpdir();
}

static void teardown(void)
{
	test_rmtree(dir);
	free(dir);
}

TestSuite(target, .init = setup, .fini = teardown);

/* Resolves a GitHub target whose number comes from the event file. */
static int event_number(struct strbuf *number, const char *event_path)
{
	const struct target_options opts = {
		.provider = "github",
		.repo = "o/r",
		.api_url = "https://api.github.com",
		.token_optional = true,
	};
	struct target t = TARGET_INIT;
	int error;

	setenv("GITHUB_EVENT_PATH", event_path, 1);
	error = target_resolve(&t, &opts);
	strbuf_addstr(number, t.number.buf);
	target_release(&t);
	return error;
}

Test(target, pull_request_number_comes_from_the_event_file)
{
	struct strbuf number = STRBUF_INIT;
	char *path;

	path = test_write_file(dir, "pr.json",
			       "{\"number\":1,"
			       "\"pull_request\":{\"number\":7}}");
	cr_assert_eq(event_number(&number, path), BG_OK);
	cr_assert_str_eq(number.buf, "7");
	free(path);
	strbuf_reset(&number);
	path = test_write_file(dir, "n.json", "{\"number\":12}");
	cr_assert_eq(event_number(&number, path), BG_OK);
	cr_assert_str_eq(number.buf, "12");
	free(path);
	strbuf_reset(&number);
	path = test_write_file(dir, "issue.json", "{\"issue\":{\"number\":3}}");
	cr_assert_eq(event_number(&number, path), BG_OK);
	cr_assert_str_eq(number.buf, "3");
	free(path);
	path = test_write_file(dir, "push.json", "{\"ref\":\"refs/heads/x\"}");
	cr_assert_eq(event_number(&number, path), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "no pull_request.number"));
	free(path);
	path = test_write_file(dir, "bad.json", "{");
	cr_assert_eq(event_number(&number, path), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "not JSON"));
	free(path);
	strbuf_release(&number);
}

/* Resolves a GitHub target with a token and the given API base. */
static int resolve_api(const char *api_url, bool dry_run)
{
	const struct target_options opts = {
		.provider = "github",
		.repo = "o/r",
		.number = "7",
		.api_url = api_url,
		.token_optional = dry_run,
	};
	struct target t = TARGET_INIT;
	int error;

	error = target_resolve(&t, &opts);
	target_release(&t);
	return error;
}

/* The token would cross the network in clear text: plain http:// is for a
 * server on this machine only (127.0.0.0/8 and ::1 are loopback by RFC
 * 1122 and RFC 4291, localhost by RFC 6761). Look-alikes of a loopback
 * name or address are refused, as is the numeric shorthand 127.1. */
Test(target, plain_http_is_refused_except_to_loopback)
{
	static const char *const accepted[] = {
		"https://ghe.example.com/api/v3",
		"http://127.0.0.1:8080",
		"http://127.255.3.4/api",
		"http://localhost",
		"HTTP://LocalHost:3000/api/v3/",
		"http://[::1]:9000",
		"http://[::1]",
		"http://127.0.0.1?x",
	};
	static const char *const refused[] = {
		"http://example.invalid",
		"http://10.0.0.1:8080",
		"http://128.0.0.1",
		"http://127.0.0.1.example.com",
		"http://localhost.example.com/",
		"http://[::2]:9000",
		"http://127.1",
		"http://[::1]x:80",
		"http://0x7f000001",
		"http://",
	};

	setenv("GITHUB_TOKEN", "ghp_s3cr3t-T0KEN-value", 1);
	for (size_t i = 0; i < sizeof(accepted) / sizeof(*accepted); i++)
		cr_assert_eq(resolve_api(accepted[i], false), BG_OK, "%s: %s",
			     accepted[i], bg_error_last());
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		cr_assert_eq(resolve_api(refused[i], false), BG_EINPUT, "%s",
			     refused[i]);
		cr_assert(strstr(bg_error_last(), refused[i]), "%s",
			  bg_error_last());
		cr_assert(strstr(bg_error_last(), "GITHUB_TOKEN in clear text"),
			  "%s", bg_error_last());
	}
	/* From the environment the message names the variable; a dry run is
	 * refused too, as the real run would be, token or not. */
	setenv("GITHUB_API_URL", "http://ghe.example.com/api/v3", 1);
	cr_assert_eq(resolve_api(NULL, false), BG_EINPUT);
	cr_assert(strstr(bg_error_last(), "GITHUB_API_URL: 'http://ghe."), "%s",
		  bg_error_last());
	unsetenv("GITHUB_TOKEN");
	cr_assert_eq(resolve_api(NULL, true), BG_EINPUT);
	unsetenv("GITHUB_API_URL");
}
