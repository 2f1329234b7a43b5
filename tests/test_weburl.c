/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/git/weburl.h"

#include <criterion/criterion.h>

TestSuite(weburl);

static void expect(const char *remote, const char *web)
{
	struct strbuf out = STRBUF_INIT;
	int found = weburl_from_remote(&out, remote);

	if (web) {
		cr_assert_eq(found, 1, "%s", remote);
		cr_assert_str_eq(out.buf, web, "%s", remote);
	} else {
		cr_assert_eq(found, 0, "%s gave %s", remote, out.buf);
		cr_assert_str_empty(out.buf);
	}
	strbuf_release(&out);
}

Test(weburl, forge_remotes_give_their_https_address)
{
	expect("https://github.com/o/r.git", "https://github.com/o/r");
	expect("https://github.com/o/r", "https://github.com/o/r");
	expect("http://gitea.example.org/o/r/", "https://gitea.example.org/o/r");
	expect("git@github.com:o/r.git", "https://github.com/o/r");
	expect("git@gitlab.com:group/sub/r.git",
	       "https://gitlab.com/group/sub/r");
	expect("ssh://git@gitlab.example.com:2222/g/r.git",
	       "https://gitlab.example.com/g/r");
	expect("git://git.example.org/r.git", "https://git.example.org/r");
}

Test(weburl, credentials_never_reach_a_page)
{
	expect("https://x-access-token:ghs_SECRET@github.com/o/r.git",
	       "https://github.com/o/r");
	expect("https://gitlab-ci-token:abc@gitlab.com/g/r",
	       "https://gitlab.com/g/r");
}

Test(weburl, local_and_odd_remotes_give_nothing)
{
	expect("/srv/git/r.git", NULL);
	expect("../r", NULL);
	expect("file:///srv/git/r.git", NULL);
	expect("C:/repos/r", NULL);
	expect("https://github.com/o/r\"onmouseover=\"x", NULL);
	expect("https://github.com/o/<script>", NULL);
	expect("https://localhost/o/r", NULL);
	expect("https://github.com/", NULL);
	expect("", NULL);
	expect(NULL, NULL);
}
