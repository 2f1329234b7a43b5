/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/lock.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"
#include "harness/util/terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct machine_lock {
	int fd;
};

/* The lock file: $BENCHGATE_LOCK when set and not empty, else
 * MACHINE_LOCK_DEFAULT. Borrowed from the environment or static. */
static const char *machine_lock_path(void)
{
	const char *path = getenv("BENCHGATE_LOCK");

	return path && *path ? path : MACHINE_LOCK_DEFAULT;
}

/* Opens the lock file, creating it open to every user when it is not
 * there; a file another user made is opened without O_CREAT. */
static int open_lock_file(const char *path)
{
	for (int tries = 0; tries < 3; tries++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 || errno != ENOENT)
			return fd;
		fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			/* the umask would keep the next user out */
			(void)fchmod(fd, 0666);
			return fd;
		}
		if (errno != EEXIST)
			return -1;
		/* another process made it in between: open that one */
	}
	return -1;
}

/* "pid 4242 (benchgate)" of the process /proc/locks says holds an flock
 * on fd's file, or "another process" when it does not say (another pid
 * namespace, no /proc). */
static void describe_holder(struct strbuf *out, int fd)
{
	struct strbuf locks = STRBUF_INIT, comm = STRBUF_INIT;
	const char *line;
	struct stat st;
	int holder = 0;

	if (fstat(fd, &st) == 0 && strbuf_read_file(&locks, "/proc/locks") == 0)
		for (line = locks.buf; *line && !holder;) {
			unsigned major_id, minor_id;
			unsigned long inode;
			char kind[16];
			int pid;

			/* "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF";
			 * blocked waiters' lines read "1: -> FLOCK ..." */
			if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", kind,
				   &pid, &major_id, &minor_id, &inode) == 5 &&
			    !strcmp(kind, "FLOCK") && pid > 0 &&
			    major_id == major(st.st_dev) &&
			    minor_id == minor(st.st_dev) &&
			    inode == (unsigned long)st.st_ino)
				holder = pid;
			line = strchr(line, '\n');
			line = line ? line + 1 : "";
		}
	if (holder <= 0) {
		strbuf_addstr(out, "another process");
	} else {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/comm", holder);
		strbuf_addf(out, "pid %d", holder);
		if (strbuf_read_file(&comm, path) == 0) {
			strbuf_rtrim(&comm);
			/* a process names itself: it could say anything */
			strbuf_addstr(out, " (");
			terminal_escape(out, comm.buf);
			strbuf_addch(out, ')');
		}
	}
	bg_error_clear();
	strbuf_release(&locks);
	strbuf_release(&comm);
}

int machine_lock_take(struct machine_lock **out, bool wait, FILE *notice)
{
	const char *path = machine_lock_path();
	struct strbuf holder = STRBUF_INIT;
	int fd, error = BG_OK;

	*out = NULL;
	if ((fd = open_lock_file(path)) < 0)
		return bg_error("cannot open the machine lock '%s': %s (set "
				"BENCHGATE_LOCK to a file every user of this "
				"machine can open)",
				path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		goto locked;
	if (errno != EWOULDBLOCK) {
		error = bg_error("cannot lock '%s': %s", path, strerror(errno));
		goto done;
	}
	describe_holder(&holder, fd);
	if (!wait) {
		error = bg_input_error("the machine lock '%s' is held by %s, "
				       "which is measuring; --no-wait does "
				       "not wait for it",
				       path, holder.buf);
		goto done;
	}
	fprintf(notice,
		"benchgate: waiting for the machine lock '%s', held by %s, "
		"to measure alone\n",
		path, holder.buf);
	fflush(notice);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		error = bg_error("cannot lock '%s': %s", path, strerror(errno));
		goto done;
	}
locked:
	*out = xmalloc(sizeof(**out));
	(*out)->fd = fd;
	fd = -1;
done:
	if (fd >= 0)
		close(fd);
	strbuf_release(&holder);
	return error;
}

void machine_lock_release(struct machine_lock *lock)
{
	if (!lock)
		return;
	close(lock->fd); /* closing the last descriptor unlocks */
	free(lock);
}
