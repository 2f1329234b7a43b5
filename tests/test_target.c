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
