/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/gate/published.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(published);

/* The dashboard's state has one owner (issue 21): what published_write()
 * writes, published_read() reads back whole, and a missing file is no
 * state, not an error. */
Test(published, what_is_written_is_read_back)
{
	char *dir = test_tmpdir();
	struct published_state state = { 0 }, back = { 0 };
	struct published_point point = {
		.suite = (char *)"s", .machine = (char *)"m",
		.benchmark = (char *)"b", .variant = (char *)"v",
		.device = (char *)"cpu", .metric = (char *)"latency",
		.commit = (char *)"c1", .regression = true, .change = 0.12,
		.resolved_by = (char *)"c2", .present = false,
	};
	struct strbuf key = STRBUF_INIT;
	int fd;

	cr_assert_eq(published_read(&back, dir), BG_OK);
	cr_assert(!back.found);
	state.branch = strdup("main");
	state.tip = strdup("c3");
	published_add_file(&state, "index.html", "0123456789abcdef");
	published_add_point(&state, &point);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(published_write(&state, fd, dir), BG_OK, "%s",
		     bg_error_last());
	close(fd);
	cr_assert_eq(published_read(&back, dir), BG_OK, "%s", bg_error_last());
	cr_assert(back.found);
	cr_assert_str_eq(back.branch, "main");
	cr_assert_str_eq(back.tip, "c3");
	cr_assert_eq(back.files_nr, 1);
	cr_assert_str_eq(back.files[0].path, "index.html");
	cr_assert_str_eq(back.files[0].hash, "0123456789abcdef");
	cr_assert_eq(back.points_nr, 1);
	published_point_key(&key, &back.points[0]);
	cr_assert_str_eq(key.buf, "s\nm\nb\nv\ncpu\nlatency");
	cr_assert_str_eq(back.points[0].commit, "c1");
	cr_assert(back.points[0].regression);
	cr_assert_float_eq(back.points[0].change, 0.12, 1e-12);
	cr_assert_str_eq(back.points[0].resolved_by, "c2");
	cr_assert(!back.points[0].present);
	published_release(&state);
	published_release(&back);
	strbuf_release(&key);
	test_rmtree(dir);
	free(dir);
}
