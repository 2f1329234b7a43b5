/* SPDX-License-Identifier: Apache-2.0 */
/*
 * End to end: `benchgate store copy` into and out of a PostgreSQL store
 * (a real server, tests/pgserver.h): directory -> database -> directory
 * gives the same files, logs and artifacts included, and a second copy
 * finds everything already there.
 */
#include "harness/store/store.h"

#include "pgserver.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN(out, cwd, ...)                \
	test_benchgate((out), (cwd), NULL, \
		       (const char *const[]){ __VA_ARGS__, NULL })

#define MACHINE "0123456789abcdef"

static char *dir;
static struct pgserver pg;

static void setup(void)
{
	dir = test_tmpdir();
	pgserver_start(&pg);
}

static void teardown(void)
{
	pgserver_free(&pg);
	test_rmtree(dir);
	free(dir);
}

TestSuite(store_copy_pg, .init = setup, .fini = teardown, .timeout = 300);

Test(store_copy_pg, directory_database_directory_is_byte_identical)
{
	struct strbuf path = STRBUF_INIT;
	struct store *store = NULL;
	struct test_output out;

	RUN(&out, dir, "store", "init", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	/* two commits, two results each (a "-1" suffix), one with a log and
	 * an artifact beside it */
	strbuf_addf(&path, "%s/d1", dir);
	cr_assert_eq(store_open(&store, path.buf), 0);
	for (int c = 0; c < 2; c++) {
		git_oid oid;
		char hex[41];

		snprintf(hex, sizeof(hex), "%08x%032x", 0xc0ffee00u + c, c);
		cr_assert_eq(git_oid_fromstr(&oid, hex), 0);
		test_store_series_at(store, &oid, MACHINE, 10 + c);
		test_store_series_at(store, &oid, MACHINE, 20 + c);
	}
	store_free(store);
	test_shell(dir, "for m in d1/*/*/" MACHINE "; do\n"
			"  mkdir -p $m/logs/s-20260101T000000Z "
			"$m/artifacts/s-20260101T000000Z/b\n"
			"  echo log > $m/logs/s-20260101T000000Z/b.log\n"
			"  echo '<svg/>' > "
			"$m/artifacts/s-20260101T000000Z/b/flame.svg\n"
			"done\n");

	RUN(&out, dir, "store", "copy", "--from", "d1", "--to", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "4 results: 4 copied"), "%s",
		  out.out.buf);
	test_output_release(&out);
	cr_assert_eq(pgserver_count(&pg, "SELECT count(*) FROM "
					 "benchgate_files"),
		     4);

	RUN(&out, dir, "store", "copy", "--from", pg.url, "--to", "d2");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	test_output_release(&out);
	test_shell(dir, "diff -r -x .lock -x .tmp d1 d2\n");

	RUN(&out, dir, "store", "copy", "--from", "d1", "--to", pg.url);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf, "0 copied (0 renamed), 4 already there"),
		  "%s", out.out.buf);
	test_output_release(&out);
	strbuf_release(&path);
}
