/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/scratch.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *tmp_base(void)
{
	const char *base = getenv("TMPDIR");

	return base && *base ? base : "/tmp";
}

/* Whether the scratch directory `dir` (with `st` its lstat) belongs to no
 * living process. */
static bool abandoned(const char *dir, const struct stat *st)
{
	struct strbuf owner = STRBUF_INIT;
	bool dead;
	int fd;

	strbuf_addf(&owner, "%s/.owner", dir);
	fd = open(owner.buf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		dead = errno == ENOENT &&
		       time(NULL) - st->st_mtime >= SCRATCH_UNOWNED_S;
	else
		dead = flock(fd, LOCK_EX | LOCK_NB) == 0;
	if (fd >= 0)
		close(fd);
	strbuf_release(&owner);
	return dead;
}

/* Removes the label's directories whose owner is gone. */
static void reclaim(const char *base, const char *prefix)
{
	struct strbuf path = STRBUF_INIT;
	size_t prefix_len = strlen(prefix);
	struct dirent *entry;
	DIR *dir = opendir(base);

	while (dir && (entry = readdir(dir))) {
		struct stat st;

		if (strncmp(entry->d_name, prefix, prefix_len))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", base, entry->d_name);
		if (lstat(path.buf, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || !abandoned(path.buf, &st))
			continue;
		remove_tree(path.buf);
	}
	if (dir)
		closedir(dir);
	strbuf_release(&path);
}

/* Sets *parent to the directory the scratch directories go in, and
 * *prefix to their names' start: this user's SCRATCH_PARENT in base,
 * made when missing, or base itself when that is not a directory of this
 * user's that only they can write to (another's, a symlink). Whether it
 * is the user's parent. */
static bool choose_parent(struct strbuf *parent, struct strbuf *prefix,
			  const char *base, const char *label)
{
	uid_t self = geteuid();
	struct stat st;

	strbuf_addf(parent, "%s/" SCRATCH_PARENT "%lu", base,
		    (unsigned long)self);
	if ((mkdir(parent->buf, 0700) == 0 || errno == EEXIST) &&
	    lstat(parent->buf, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == self && !(st.st_mode & (S_IWGRP | S_IWOTH))) {
		strbuf_addf(prefix, "%s-", label);
		return true;
	}
	strbuf_reset(parent);
	strbuf_addstr(parent, base);
	strbuf_addf(prefix, "benchgate-%s-", label);
	return false;
}

int scratch_claim(struct scratch *out, const char *label)
{
	struct strbuf parent = STRBUF_INIT, prefix = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	int error = BG_OK, tries = 0;
	bool in_parent;
	char *resolved;

	out->dir = NULL;
	out->parent = NULL;
	out->owner_fd = -1;
	/* a parent found empty is removed by the benchgate that emptied it
	 * (scratch_release()): made again, a few times at most */
	for (;;) {
		strbuf_reset(&parent);
		strbuf_reset(&prefix);
		in_parent = choose_parent(&parent, &prefix, tmp_base(), label);
		reclaim(parent.buf, prefix.buf);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%sXXXXXX", parent.buf, prefix.buf);
		if (mkdtemp(path.buf))
			break;
		if (errno != ENOENT || !in_parent || ++tries == 3) {
			error = bg_error("cannot make a scratch directory "
					 "'%s': %s",
					 path.buf, strerror(errno));
			goto done;
		}
	}
	if (in_parent)
		out->parent = strbuf_detach(&parent, NULL);
	resolved = realpath(path.buf, NULL);
	out->dir = resolved ? resolved : xstrdup(path.buf);
	strbuf_addstr(&path, "/.owner");
	out->owner_fd = open(path.buf,
			     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			     0600);
	if (out->owner_fd < 0 || flock(out->owner_fd, LOCK_EX | LOCK_NB) < 0) {
		error = bg_error("cannot claim the scratch directory '%s': %s",
				 out->dir, strerror(errno));
		scratch_release(out);
	}
done:
	strbuf_release(&parent);
	strbuf_release(&prefix);
	strbuf_release(&path);
	return error;
}

void scratch_release(struct scratch *scratch)
{
	if (scratch->dir)
		remove_tree(scratch->dir);
	free(scratch->dir);
	scratch->dir = NULL;
	/* the last one out leaves nothing in $TMPDIR; another's keeps it */
	if (scratch->parent)
		rmdir(scratch->parent);
	free(scratch->parent);
	scratch->parent = NULL;
	/* after the removal: no one else takes it for abandoned meanwhile */
	if (scratch->owner_fd >= 0)
		close(scratch->owner_fd);
	scratch->owner_fd = -1;
}
