/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/fileio.h"

#include "harness/util/error.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The atomic writer and what it finds at the path. A rename over
 * /dev/null (which a `--json /dev/null` asked for, as root) replaced the
 * machine's /dev/null with a file, and every later program that read it
 * read that file: a stream is written into, never replaced.
 */

TestSuite(fileio, .init = test_dir_setup, .fini = test_dir_teardown);

static char *path_in_dir(const char *name)
{
	size_t len = strlen(test_dir) + strlen(name) + 2;
	char *path = malloc(len);

	snprintf(path, len, "%s/%s", test_dir, name);
	return path;
}

static mode_t kind_of(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s is gone", path);
	return st.st_mode & S_IFMT;
}

/* Writes "hello" into the FIFO at `target` through `via` while a child
 * reads it; returns what the child read. */
static char *write_through_fifo(const char *target, const char *via)
{
	char *got_path = path_in_dir("got");
	char *got;
	pid_t reader = fork();

	cr_assert_geq(reader, 0);
	if (!reader) {
		char buf[64];
		int in, out;
		ssize_t n;

		/* a writer that never comes (the bug) must not hang the test */
		alarm(10);
		in = open(target, O_RDONLY);
		out = open(got_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		n = in < 0 ? -1 : read(in, buf, sizeof(buf));

		_exit(n > 0 && write(out, buf, (size_t)n) == n ? 0 : 1);
	}
	cr_assert_eq(write_file_atomic(via, "hello", 5), BG_OK, "%s",
		     bg_error_last());
	waitpid(reader, NULL, 0);
	got = test_read_file(got_path);
	free(got_path);
	return got;
}

Test(fileio, a_fifo_is_written_into_and_stays_a_fifo)
{
	char *fifo = path_in_dir("pipe");
	char *got;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	got = write_through_fifo(fifo, fifo);
	cr_assert_str_eq(got, "hello");
	cr_assert_eq(kind_of(fifo), S_IFIFO);
	free(got);
	free(fifo);
}

Test(fileio, a_link_to_a_stream_is_followed_and_stays_a_link)
{
	char *fifo = path_in_dir("pipe");
	char *link = path_in_dir("stdout");
	char *got;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(symlink(fifo, link), 0);
	got = write_through_fifo(fifo, link);
	cr_assert_str_eq(got, "hello");
	cr_assert_eq(kind_of(link), S_IFLNK);
	cr_assert_eq(kind_of(fifo), S_IFIFO);
	free(got);
	free(link);
	free(fifo);
}

Test(fileio, a_link_to_a_file_is_replaced_not_followed)
{
	char *target = path_in_dir("elsewhere");
	char *link = path_in_dir("result.json");
	char *text;

	free(test_write_file(test_dir, "elsewhere", "kept"));
	cr_assert_eq(symlink(target, link), 0);
	cr_assert_eq(write_file_atomic(link, "new", 3), BG_OK);
	cr_assert_eq(kind_of(link), S_IFREG);
	text = test_read_file(target);
	cr_assert_str_eq(text, "kept");
	free(text);
	free(target);
	free(link);
}

/* /dev/stdout of a program whose output a shell sent to a file: a link to
 * /proc/self/fd/N, behind which is a regular file. Once, as root, a
 * `--json /dev/stdout` put a file in place of the machine's /dev/stdout. */
Test(fileio, a_descriptor_name_is_appended_to_never_replaced)
{
	char *file = path_in_dir("output.txt");
	char *link = path_in_dir("stdout");
	char fd_path[64];
	char *text;
	int fd;

	free(test_write_file(test_dir, "output.txt", "prose\n"));
	fd = open(file, O_WRONLY | O_APPEND);
	cr_assert_geq(fd, 0);
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	cr_assert_eq(symlink(fd_path, link), 0);
	cr_assert_eq(write_file_atomic(link, "{}\n", 3), BG_OK,
		     "%s", bg_error_last());
	cr_assert_eq(kind_of(link), S_IFLNK);
	cr_assert_eq(write_file_atomic(fd_path, "[]\n", 3), BG_OK,
		     "%s", bg_error_last());
	cr_assert_eq(kind_of(file), S_IFREG);
	text = test_read_file(file);
	cr_assert_str_eq(text, "prose\n{}\n[]\n");
	close(fd);
	free(text);
	free(file);
	free(link);
}

/* Pieces "0\n" to "4\n", one a call. */
static bool five_pieces(void *ctx, struct strbuf *out)
{
	int *next = ctx;

	strbuf_addf(out, "%d\n", *next);
	return ++*next < 5;
}

/* A produced file holds every piece, in order, replacing what was there;
 * into a stream (a FIFO) the pieces go as they come. */
Test(fileio, a_produced_file_holds_every_piece)
{
	char *path = path_in_dir("produced");
	char *fifo = path_in_dir("pipe");
	int next = 0, status;
	char *text;
	pid_t reader;

	free(test_write_file(test_dir, "produced", "old text, longer"));
	cr_assert_eq(write_file_atomic_produced(path, five_pieces, &next),
		     BG_OK, "%s", bg_error_last());
	text = test_read_file(path);
	cr_assert_str_eq(text, "0\n1\n2\n3\n4\n");
	cr_assert_eq(kind_of(path), S_IFREG);
	free(text);

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	reader = fork();
	cr_assert_geq(reader, 0);
	if (!reader) {
		char buf[64];
		size_t got = 0;
		ssize_t n;
		int in;

		alarm(10);
		in = open(fifo, O_RDONLY);
		while (in >= 0 && got < sizeof(buf) &&
		       (n = read(in, buf + got, sizeof(buf) - got)) > 0)
			got += (size_t)n;
		_exit(got == 10 && !memcmp(buf, "0\n1\n2\n3\n4\n", 10) ? 0
									: 1);
	}
	next = 0;
	cr_assert_eq(write_file_atomic_produced(fifo, five_pieces, &next),
		     BG_OK, "%s", bg_error_last());
	cr_assert_eq(waitpid(reader, &status, 0), reader);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the reader did not get every piece");
	cr_assert_eq(kind_of(fifo), S_IFIFO);
	free(fifo);
	free(path);
}

Test(fileio, a_directory_is_an_error_naming_it)
{
	cr_assert_lt(write_file_atomic(test_dir, "x", 1), 0);
	cr_assert(strstr(bg_error_last(), "it is a directory"), "%s",
		  bg_error_last());
}

/* A null device of the test's own (as /dev/null: char 1, 3), through the
 * binary as a user asks for it: `--json DEVICE`. */
Test(fileio, run_json_into_a_null_device_leaves_it_a_device)
{
	char *null_device = path_in_dir("null");
	char *suite;
	struct test_output out;

	if (geteuid() != 0)
		cr_skip_test("mknod needs root (CI has it)");
	cr_assert_eq(mknod(null_device, S_IFCHR | 0666, makedev(1, 3)), 0);
	suite = test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"s\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
		"  \"benchmarks\": [ { \"name\": \"t\", \"command\": "
		"[\"/bin/true\"],\n"
		"    \"metrics\": [ { \"name\": \"w\", \"from\": \"wall\" } ] } "
		"] }\n");
	test_benchgate(&out, test_dir, NULL,
		       (const char *const[]){ "run", suite, "--store", "store",
					      "--json", null_device, "--quiet",
					      NULL });
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(kind_of(null_device), S_IFCHR,
		     "the device was replaced by a file");
	test_output_release(&out);
	free(suite);
	free(null_device);
}
