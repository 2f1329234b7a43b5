/* SPDX-License-Identifier: Apache-2.0 */
/* syncfs(2) is Linux's. */
#define _GNU_SOURCE
#include "harness/util/fileio.h"

#include "harness/util/error.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int write_temporary(struct strbuf *tmp, const struct iovec *parts,
			   size_t nr, bool sync)
{
	int fd, error = BG_OK;
	size_t i;

	if ((fd = mkstemp(tmp->buf)) < 0) {
		error = bg_error("cannot create a temporary file '%s': %s",
				 tmp->buf, strerror(errno));
		strbuf_reset(tmp);
		return error;
	}
	for (i = 0; i < nr; i++)
		if (write_in_full(fd, parts[i].iov_base, parts[i].iov_len) < 0)
			break;
	if (i < nr || fchmod(fd, 0644) < 0 || (sync && fsync(fd) < 0))
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

	return write_temporary(tmp, &part, 1, true);
}

static int write_replacing(const char *path, const struct iovec *parts,
			   size_t nr, bool sync)
{
	struct strbuf tmp = STRBUF_INIT, dir = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	int error;

	strbuf_addf(&tmp, "%s.tmp-XXXXXX", path);
	if ((error = write_temporary(&tmp, parts, nr, sync)) < 0)
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

	return write_replacing(path, &part, 1, true);
}

int write_file_atomic_parts(const char *path, const struct iovec *parts,
			    size_t nr)
{
	return write_replacing(path, parts, nr, true);
}

int write_file_atomic_unsynced(const char *path, const void *data, size_t len)
{
	const struct iovec part = { (void *)data, len };

	return write_replacing(path, &part, 1, false);
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
