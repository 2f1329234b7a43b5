/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/run_scratch.h"

#include "harness/util/error.h"
#include "harness/util/fileio.h"

#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a run does that leaves a name behind, in either directory. */
#define MADE (IN_CREATE | IN_MOVED_TO)
/* What a run does to its directory that makes it unusable as it is. */
#define GONE (IN_DELETE_SELF | IN_MOVE_SELF)

void run_scratch_init(struct run_scratch *scratch, const char *session)
{
	strbuf_init(&scratch->metrics_path, 0);
	strbuf_init(&scratch->dir, 0);
	strbuf_addf(&scratch->metrics_path, "%s/metrics", session);
	strbuf_addf(&scratch->dir, "%s/run", session);
	scratch->handle = NULL;
	scratch->dir_watch = -1;
	/* the session's directory, for the metrics file and for the run's
	 * directory removed and made again there */
	scratch->watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (scratch->watch_fd >= 0 &&
	    inotify_add_watch(scratch->watch_fd, session, MADE) < 0) {
		close(scratch->watch_fd);
		scratch->watch_fd = -1;
	}
}

/* Whether the watch saw anything since it was last asked; all it saw is
 * read (a queue that overflowed says so with an event too). */
static bool watch_saw_something(struct run_scratch *scratch)
{
	char events[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool saw = false;

	while (read(scratch->watch_fd, events, sizeof(events)) > 0)
		saw = true;
	return saw;
}

/* Stops watching: the checks of every run take over. */
static void watch_stop(struct run_scratch *scratch)
{
	if (scratch->watch_fd >= 0)
		close(scratch->watch_fd);
	scratch->watch_fd = -1;
	scratch->dir_watch = -1;
}

int run_scratch_prepare(struct run_scratch *scratch)
{
	if (scratch->handle)
		return BG_OK;
	if (mkdir(scratch->dir.buf, 0700) < 0)
		return bg_error("cannot create the run directory '%s': %s",
				scratch->dir.buf, strerror(errno));
	if (!(scratch->handle = opendir(scratch->dir.buf)))
		return bg_error("cannot open the run directory '%s': %s",
				scratch->dir.buf, strerror(errno));
	if (scratch->watch_fd >= 0) {
		scratch->dir_watch = inotify_add_watch(
			scratch->watch_fd, scratch->dir.buf, MADE | GONE);
		if (scratch->dir_watch < 0)
			watch_stop(scratch);
		else
			/* the making of it is not the next run's doing */
			watch_saw_something(scratch);
	}
	return BG_OK;
}

/* Whether the run directory is there and empty, as the run found it. */
static bool dir_untouched(struct run_scratch *scratch)
{
	struct stat st;
	struct dirent *entry;

	/* removed by the run (and maybe made again): a handle on nothing */
	if (fstat(dirfd(scratch->handle), &st) < 0 || !st.st_nlink)
		return false;
	rewinddir(scratch->handle);
	while ((entry = readdir(scratch->handle)))
		if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
			return false;
	return true;
}

void run_scratch_tidy(struct run_scratch *scratch)
{
	if (scratch->watch_fd >= 0 && scratch->handle &&
	    !watch_saw_something(scratch))
		return;
	unlink(scratch->metrics_path.buf);
	if (scratch->handle && dir_untouched(scratch))
		return;
	if (scratch->handle)
		closedir(scratch->handle);
	scratch->handle = NULL;
	/* the directory's watch goes with it (IN_IGNORED); a new one is
	 * added as it is made again */
	if (scratch->watch_fd >= 0 && scratch->dir_watch >= 0)
		inotify_rm_watch(scratch->watch_fd, scratch->dir_watch);
	scratch->dir_watch = -1;
	remove_tree(scratch->dir.buf);
}

void run_scratch_release(struct run_scratch *scratch)
{
	if (scratch->handle)
		closedir(scratch->handle);
	scratch->handle = NULL;
	watch_stop(scratch);
	strbuf_release(&scratch->metrics_path);
	strbuf_release(&scratch->dir);
}
