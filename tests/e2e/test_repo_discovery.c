/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end, issue 21: every command finds the repository by one rule
 * (harness/git/repo.h), so GIT_CEILING_DIRECTORIES stops `history` and
 * `check --baseline REV` as it stops `run`, instead of letting them
 * climb into a repository that `run` would not record.
 */
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(repo_discovery, .init = test_dir_setup,
	  .fini = test_dir_teardown);

static const char suite[] =
	"{\"benchgate\": 1, \"suite\": \"s\","
	" \"defaults\": {\"runs\": 1, \"warmup\": 0},"
	" \"benchmarks\": [{\"name\": \"b\", \"command\": [\"" TEST_WORKLOAD_DIR
	"/spin\", \"--ms\", \"1\"],"
	" \"metrics\": [{\"name\": \"latency\", \"from\": \"metrics\","
	"  \"key\": \"latency_ms\", \"unit\": \"ms\"}]}]}";

Test(repo_discovery, the_ceiling_stops_every_command)
{
	struct strbuf root = STRBUF_INIT, sub = STRBUF_INIT;
	struct strbuf ceiling = STRBUF_INIT;
	const char *env[] = { NULL, "BENCHGATE_DEVICES=cpu", NULL };
	struct test_output out;
	git_repository *repo;
	git_oid commit;

	strbuf_addf(&root, "%s/repo", test_dir);
	repo = test_git_init(root.buf);
	test_git_commit(repo, "refs/heads/main", "c0", 0, NULL, &commit);
	cr_assert_eq(git_repository_set_head(repo, "refs/heads/main"), 0);
	git_repository_free(repo);
	strbuf_addf(&sub, "%s/sub", root.buf);
	cr_assert_eq(mkdir(sub.buf, 0777), 0);
	free(test_write_file(sub.buf, "s.json", suite));
	strbuf_addf(&ceiling, "GIT_CEILING_DIRECTORIES=%s", root.buf);
	env[0] = ceiling.buf;

	test_benchgate(&out, sub.buf, env,
		       (const char *const[]){ "history", "--store", "store",
					      NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "not in a git repository"), "%s",
		  out.err.buf);
	test_output_release(&out);

	test_benchgate(&out, sub.buf, env,
		       (const char *const[]){ "check", "s.json", "--store",
					      "store", "--baseline", "main",
					      NULL });
	cr_assert_eq(out.exit_code, 2, "%s%s", out.out.buf, out.err.buf);
	cr_assert(strstr(out.err.buf, "neither a result file nor a revision"),
		  "%s", out.err.buf);
	test_output_release(&out);

	/* without the ceiling both find the repository */
	env[0] = "BENCHGATE_UNUSED=1";
	test_benchgate(&out, sub.buf, env,
		       (const char *const[]){ "check", "s.json", "--store",
					      "store", "--baseline", "main",
					      NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	test_output_release(&out);
	strbuf_release(&root);
	strbuf_release(&sub);
	strbuf_release(&ceiling);
}
