/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/run_scratch.h"

#include "harness/util/error.h"
#include "harness/util/fileio.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void run_scratch_init(struct run_scratch *scratch, const char *session)
{
	strbuf_init(&scratch->metrics_path, 0);
	strbuf_init(&scratch->dir, 0);
	strbuf_addf(&scratch->metrics_path, "%s/metrics", session);
	strbuf_addf(&scratch->dir, "%s/run", session);
	scratch->handle = NULL;
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
	return BG_OK;
}

/* Whether the run directory is there and empty, as the run found it. */
static bool dir_untouched(struct run_scratch *scratch)
{
	struct dirent *entry;
	struct stat st;

	/* removed by the run (and maybe made again): a handle on nothing,
	 * which glibc's readdir() reads as empty */
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
	unlink(scratch->metrics_path.buf);
	if (scratch->handle && dir_untouched(scratch))
		return;
	if (scratch->handle)
		closedir(scratch->handle);
	scratch->handle = NULL;
	remove_tree(scratch->dir.buf);
}

void run_scratch_release(struct run_scratch *scratch)
{
	if (scratch->handle)
		closedir(scratch->handle);
	scratch->handle = NULL;
	strbuf_release(&scratch->metrics_path);
	strbuf_release(&scratch->dir);
}
