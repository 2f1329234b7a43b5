/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_FILEIO_H
#define BENCHGATE_FILEIO_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

/*
 * Writing files so that a crash or a concurrent reader never sees half of
 * one. Results, baselines and reports are read by other processes (a CI
 * job's next step, a second `benchgate run` sharing the store) while they
 * are written, and a torn result file would poison every comparison after
 * it.
 *
 * Reading a whole file is strbuf_read_file() (strbuf.h).
 */

/* Writes all `len` bytes of data to fd, retrying short writes and EINTR.
 * 0, or -1 with errno set; nothing is recorded, as only the caller can
 * name the file. */
int write_in_full(int fd, const void *data, size_t len);

/* fsync(2) of the directory `dir`, so that a file just created, linked or
 * renamed there survives a crash. Best effort: a directory that cannot be
 * opened or synced (some file systems refuse) is ignored, since the data
 * itself was synced already. */
void fsync_dir(const char *dir);

/*
 * Writes data to a new file named after the mkstemp(3) template in `tmp`
 * ("<dir>/.tmp-XXXXXX"), with mode 0644, synced and closed; `tmp` then
 * holds its name and the caller renames or links it into place. BG_ERROR
 * on failure, the file removed and `tmp` reset to "".
 */
int write_file_temporary(struct strbuf *tmp, const void *data, size_t len);

/* Writes data to path atomically: a temporary file beside it, fsync, rename,
 * then fsync of the directory. Readers see the old file or the new, never a
 * half-written one. BG_ERROR on failure, the temporary removed. A link at
 * path to a regular file is replaced, not followed; where path is (or
 * links to) a device, a FIFO or a socket (/dev/null, /dev/stdout), the
 * data is written into it and it stays what it was; so is the file behind
 * a descriptor's name (a link into /proc as /dev/stdout is, or
 * /proc/PID/fd/N), appended to, whatever that file is; a directory is an
 * error. */
int write_file_atomic(const char *path, const void *data, size_t len);

/* The same without fsync of the file or its directory: a reader still
 * sees the old file or the new, but a crash may lose the new one. For many
 * files made durable at once by one fsync_filesystem() before the write
 * that records them (publish writes hundreds of pages: an fsync each cost
 * two seconds). */
int write_file_atomic_unsynced(const char *path, const void *data, size_t len);

/* write_file_atomic() of the parts one after the other: a large file whose
 * pieces are already in memory (the history index: its points) is written
 * without a copy of it all. */
int write_file_atomic_parts(const char *path, const struct iovec *parts,
			    size_t nr);

/* A producer of a file's text, piece by piece: each call appends the
 * next piece to out (emptied between calls) and returns whether more
 * follow. */
typedef bool file_producer(void *ctx, struct strbuf *out);

/* write_file_atomic() of the text produce gives, written as it comes: a
 * document too large to hold in memory at once (history --json). */
int write_file_atomic_produced(const char *path, file_producer *produce,
			       void *ctx);

/* Writes the text produce gives to fd as it comes: 0, or -1 with errno
 * set, as write_in_full(). */
int write_fd_produced(int fd, file_producer *produce, void *ctx);

/* syncfs(2) of the file system holding path: every write to it reaches
 * the disk. Best effort, as fsync_dir(). */
void fsync_filesystem(const char *path);

/*
 * Reading only what can be read: the store, the previous site and caches
 * may hold anything a pull request put there, and a FIFO blocks a reader
 * for ever while /dev/zero never ends.
 */

/* Opens path for reading when it is a regular file (after following any
 * links, unless flags holds O_NOFOLLOW), without blocking on a FIFO on
 * the way. The descriptor (blocking, close-on-exec); BG_ENOTFOUND when
 * there is no such file; BG_ERROR for anything else, recorded. */
int open_regular(const char *path, int flags);

/* Reads the regular file at path into sb (appended) when it holds at most
 * max bytes: a FIFO, a device or anything larger is an error (BG_ERROR,
 * recorded, naming path; BG_ENOTFOUND when there is no such file), and sb
 * is then as it was. */
int read_file_regular(struct strbuf *sb, const char *path, size_t max);

/* read_file_regular() of name in the directory descriptor dir (AT_FDCWD:
 * the working directory); flags may add O_NOFOLLOW, which refuses a link.
 * Messages name `shown`. */
int read_file_at(struct strbuf *sb, int dir, const char *name, int flags,
		 size_t max, const char *shown);

/*
 * Writing under a directory that others can shape (the previous site of
 * `publish`, the store inside a checkout): everything below the directory
 * the user named goes through directory descriptors opened without
 * following links, files are created with O_EXCL and renamed into place
 * (a link there is replaced, never written through), and nothing is
 * removed that benchgate cannot tell it wrote.
 */

/* Opens the directory `name` under the directory descriptor `at`
 * (AT_FDCWD: a path), making it first when `create`, without following a
 * symbolic link in its last component: a link or any other file there is
 * refused, never followed nor removed. The descriptor (close-on-exec), or
 * BG_ENOTFOUND / BG_ERROR recorded, naming `shown`. */
int dir_open_at(int at, const char *name, bool create, const char *shown);

/* Writes data to the file `name` of the directory descriptor dir: a new
 * temporary file beside it (O_EXCL, mode 0644), synced when `sync`, then
 * renamed over name, replacing whatever was there (a link included: its
 * target is untouched). BG_ERROR, the temporary removed, naming `shown`. */
int write_file_atomic_at(int dir, const char *name, const void *data,
			 size_t len, bool sync, const char *shown);

/* Whether name in dir is a regular file itself (not a link to one). */
bool regular_file_at(int dir, const char *name);

/* Removes path and, for a directory, everything below it, without
 * following symbolic links (a link is removed, not what it points to).
 * Best effort, for scratch directories benchgate made: 0, or -1 when
 * something could not be removed. */
int remove_tree(const char *path);

/* Takes an exclusive flock(2) on the file at path (created if missing) and
 * returns its descriptor in *fd_out; closing it (unlock_file()) releases
 * the lock. Waits for other holders. BG_ERROR naming the path on failure,
 * with *fd_out -1. */
int lock_file(const char *path, int *fd_out);

/* Releases a lock from lock_file(); -1 is ignored. */
void unlock_file(int fd);

/* Creates path and its missing parents (mode 0777 & ~umask). */
int mkdir_p(const char *path);

#endif
