/* SPDX-License-Identifier: Apache-2.0 */
/* syncfs(2) is Linux's. */
#define _GNU_SOURCE
#include "harness/util/fileio.h"

#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int write_in_full(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t put = write(fd, p, len);

		if (put < 0 && errno == EINTR)
			continue;
		if (put < 0)
			return -1;
		p += put;
		len -= (size_t)put;
	}
	return 0;
}

void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

void fsync_filesystem(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
}

/* What a file is written from: parts in memory, or a producer called for
 * one piece after another. */
struct source {
	const struct iovec *parts;
	size_t nr;
	file_producer *produce;
	void *ctx;
};

/* Writes all of src to fd: 0, or -1 with errno set. */
static int write_source(int fd, const struct source *src)
{
	struct strbuf piece = STRBUF_INIT;
	bool more = true;
	int ret = 0;

	for (size_t i = 0; i < src->nr; i++)
		if (write_in_full(fd, src->parts[i].iov_base,
				  src->parts[i].iov_len) < 0)
			return -1;
	while (src->produce && more && !ret) {
		more = src->produce(src->ctx, &piece);
		ret = write_in_full(fd, piece.buf, piece.len);
		strbuf_reset(&piece);
	}
	strbuf_release(&piece);
	return ret;
}

static int write_temporary(struct strbuf *tmp, const struct source *src,
			   bool sync)
{
	int fd, error = BG_OK;

	if ((fd = mkstemp(tmp->buf)) < 0) {
		error = bg_error("cannot create a temporary file '%s': %s",
				 tmp->buf, strerror(errno));
		strbuf_reset(tmp);
		return error;
	}
	if (write_source(fd, src) < 0 || fchmod(fd, 0644) < 0 ||
	    (sync && fsync(fd) < 0))
		error = bg_error("cannot write '%s': %s", tmp->buf,
				 strerror(errno));
	if (close(fd) < 0 && !error)
		error = bg_error("cannot write '%s': %s", tmp->buf,
				 strerror(errno));
	if (error) {
		unlink(tmp->buf);
		strbuf_reset(tmp);
	}
	return error;
}

int write_file_temporary(struct strbuf *tmp, const void *data, size_t len)
{
	const struct iovec part = { (void *)data, len };

	return write_temporary(tmp, &(struct source){ &part, 1, NULL, NULL },
			       true);
}

/* Writes src into the stream at path (a device, a FIFO, a socket, an
 * open file descriptor), opened as it is and appended to: there is
 * nothing to replace atomically there. */
static int write_into_stream(const char *path, const struct source *src)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
	int error = BG_OK;

	if (fd < 0)
		return bg_error("cannot open '%s': %s", path, strerror(errno));
	if (write_source(fd, src) < 0)
		error = bg_error("cannot write '%s': %s", path,
				 strerror(errno));
	if (close(fd) < 0 && !error)
		error = bg_error("cannot write '%s': %s", path,
				 strerror(errno));
	return error;
}

/*
 * Whether path names a file descriptor the caller holds: a link into
 * /proc, as /dev/stdout, /dev/stderr and /dev/fd/N are, or an entry of
 * /proc/PID/fd itself. Such a name stands for an open file, whatever
 * that file is, and must never be replaced by one.
 */
static bool names_open_descriptor(const char *path)
{
	char target[16], *parent, *real;
	const char *slash = strrchr(path, '/');
	bool in_proc;
	ssize_t len = readlink(path, target, sizeof(target) - 1);

	if (len < 0)
		return false;
	target[len] = '\0';
	if (!strncmp(target, "/proc/", 6))
		return true;
	parent = slash ? strndup(path, (size_t)(slash - path) + 1)
		       : strdup(".");
	real = parent ? realpath(parent, NULL) : NULL;
	in_proc = real && !strncmp(real, "/proc/", 6);
	free(parent);
	free(real);
	return in_proc;
}

static int write_replacing(const char *path, const struct source *src,
			   bool sync)
{
	struct strbuf tmp = STRBUF_INIT, dir = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	struct stat st;
	int error;

	/*
	 * A rename over /dev/null, /dev/stdout or a named pipe would put a
	 * file where the device or the link to it was, for every program
	 * (root may): what is there, a link followed, is written into; so
	 * is the file behind a descriptor's name (/dev/stdout of a program
	 * whose output goes to a file), which is appended to.
	 */
	if (names_open_descriptor(path))
		return write_into_stream(path, src);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return bg_error("cannot write '%s': it is a directory",
					path);
		if (!S_ISREG(st.st_mode))
			return write_into_stream(path, src);
	}
	strbuf_addf(&tmp, "%s.tmp-XXXXXX", path);
	if ((error = write_temporary(&tmp, src, sync)) < 0)
		goto done;
	if (rename(tmp.buf, path) < 0) {
		error = bg_error("cannot rename '%s' to '%s': %s", tmp.buf,
				 path, strerror(errno));
		unlink(tmp.buf);
		goto done;
	}
	if (!sync)
		goto done;
	if (slash)
		strbuf_add(&dir, path, (size_t)(slash - path) + 1);
	else
		strbuf_addstr(&dir, ".");
	fsync_dir(dir.buf);
done:
	strbuf_release(&tmp);
	strbuf_release(&dir);
	return error;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	const struct iovec part = { (void *)data, len };

	return write_replacing(path, &(struct source){ &part, 1, NULL, NULL },
			       true);
}

int write_file_atomic_parts(const char *path, const struct iovec *parts,
			    size_t nr)
{
	return write_replacing(path, &(struct source){ parts, nr, NULL, NULL },
			       true);
}

int write_file_atomic_produced(const char *path, file_producer *produce,
			       void *ctx)
{
	return write_replacing(
		path, &(struct source){ NULL, 0, produce, ctx }, true);
}

int write_fd_produced(int fd, file_producer *produce, void *ctx)
{
	return write_source(fd, &(struct source){ NULL, 0, produce, ctx });
}

int write_file_atomic_unsynced(const char *path, const void *data, size_t len)
{
	const struct iovec part = { (void *)data, len };

	return write_replacing(path, &(struct source){ &part, 1, NULL, NULL },
			       false);
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	/* keep going past one that resists: remove what can be */
	(void)(type == FTW_DP ? rmdir(path) : unlink(path));
	return 0;
}

int remove_tree(const char *path)
{
	struct stat st;

	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return lstat(path, &st) == 0 || errno != ENOENT ? -1 : 0;
}

int open_regular(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	struct stat st;

	if (fd < 0 && errno == ENOENT)
		return bg_notfound("cannot open '%s': %s", path,
				   strerror(errno));
	if (fd < 0)
		return bg_error("cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bg_error("'%s' is not a regular file", path);
	}
	/* O_NONBLOCK only kept a FIFO from blocking the open */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int read_file_regular(struct strbuf *sb, const char *path, size_t max)
{
	return read_file_at(sb, AT_FDCWD, path, 0, max, path);
}

int read_file_at(struct strbuf *sb, int dir, const char *name, int flags,
		 size_t max, const char *shown)
{
	int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	size_t old_len = sb->len;
	int error = BG_OK;
	struct stat st;

	if (fd < 0 && errno == ENOENT)
		return bg_notfound("cannot open '%s': %s", shown,
				   strerror(errno));
	if (fd < 0 && errno == ELOOP && (flags & O_NOFOLLOW))
		return bg_error("'%s' is a symbolic link: benchgate reads "
				"only the files it wrote",
				shown);
	if (fd < 0)
		return bg_error("cannot open '%s': %s", shown, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return bg_error("'%s' is not a regular file", shown);
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return bg_error("'%s' is larger than %zu bytes", shown, max);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	strbuf_grow(sb, (size_t)st.st_size);
	for (;;) {
		char chunk[65536];
		ssize_t got = read(fd, chunk, sizeof(chunk));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			error = bg_error("cannot read '%s': %s", shown,
					 strerror(errno));
			break;
		}
		if (!got)
			break;
		/* it may grow while it is read */
		if ((size_t)got > max - (sb->len - old_len)) {
			error = bg_error("'%s' is larger than %zu bytes",
					 shown, max);
			break;
		}
		strbuf_add(sb, chunk, (size_t)got);
	}
	close(fd);
	if (error)
		strbuf_setlen(sb, old_len);
	return error;
}

int dir_open_at(int at, const char *name, bool create, const char *shown)
{
	int fd;

	if (create && mkdirat(at, name, 0777) < 0 && errno != EEXIST)
		return bg_error("cannot create directory '%s': %s", shown,
				strerror(errno));
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		return bg_notfound("cannot open directory '%s': %s", shown,
				   strerror(errno));
	if (errno == ELOOP || errno == ENOTDIR) {
		struct stat st;
		bool link = fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode);

		return bg_error("'%s' is not a directory but %s: benchgate "
				"neither follows nor removes what it did not "
				"make (remove it)",
				shown,
				link ? "a symbolic link"
				     : "another kind of file");
	}
	return bg_error("cannot open directory '%s': %s", shown,
			strerror(errno));
}

/* A new file of ours in dir, named after name: O_EXCL never follows a
 * link and never opens what is there. */
static int create_temporary_at(int dir, const char *name, struct strbuf *tmp)
{
	for (int tries = 0; tries < 100; tries++) {
		unsigned char random[6];
		int fd;

		if (getentropy(random, sizeof(random)) < 0)
			memset(random, tries, sizeof(random));
		strbuf_reset(tmp);
		strbuf_addf(tmp, ".%s.tmp-", name);
		for (size_t i = 0; i < sizeof(random); i++)
			strbuf_addch(tmp, "0123456789abcdefghijklmnopqrstuv"
					  [random[i] & 31]);
		fd = openat(dir, tmp->buf,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int write_file_atomic_at(int dir, const char *name, const void *data,
			 size_t len, bool sync, const char *shown)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd = create_temporary_at(dir, name, &tmp), error = BG_OK;

	if (fd < 0) {
		error = bg_error("cannot create a temporary file for '%s': %s",
				 shown, strerror(errno));
		goto done;
	}
	if (write_in_full(fd, data, len) < 0 || fchmod(fd, 0644) < 0 ||
	    (sync && fsync(fd) < 0))
		error = bg_error("cannot write '%s': %s", shown,
				 strerror(errno));
	if (close(fd) < 0 && !error)
		error = bg_error("cannot write '%s': %s", shown,
				 strerror(errno));
	/* a link at name is replaced, never followed */
	if (!error && renameat(dir, tmp.buf, dir, name) < 0)
		error = bg_error("cannot rename a temporary file to '%s': %s",
				 shown, strerror(errno));
	if (error)
		unlinkat(dir, tmp.buf, 0);
	else if (sync)
		fsync(dir);
done:
	strbuf_release(&tmp);
	return error;
}

bool regular_file_at(int dir, const char *name)
{
	struct stat st;

	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
}

int lock_file(const char *path, int *fd_out)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	*fd_out = -1;
	if (fd < 0)
		return bg_error("cannot open the lock '%s': %s", path,
				strerror(errno));
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		close(fd);
		return bg_error("cannot lock '%s': %s", path, strerror(errno));
	}
	*fd_out = fd;
	return BG_OK;
}

void unlock_file(int fd)
{
	if (fd >= 0)
		close(fd);
}

int mkdir_p(const char *path)
{
	struct strbuf partial = STRBUF_INIT;
	const char *p = path;
	int error = BG_OK;

	while (*p) {
		const char *slash = strchr(p + 1, '/');
		size_t upto = slash ? (size_t)(slash - path) : strlen(path);

		strbuf_reset(&partial);
		strbuf_add(&partial, path, upto);
		if (mkdir(partial.buf, 0777) < 0 && errno != EEXIST) {
			error = bg_error("cannot create directory '%s': %s",
					 partial.buf, strerror(errno));
			break;
		}
		if (!slash)
			break;
		p = slash;
	}
	strbuf_release(&partial);
	return error;
}
