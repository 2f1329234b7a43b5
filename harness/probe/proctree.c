/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/proctree.h"

#include "harness/probe/sysfs.h"
#include "harness/util/strbuf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends the children that `pid`'s threads started, up to max. */
static size_t add_children(pid_t pid, pid_t *out, size_t nr, size_t max)
{
	struct strbuf path = STRBUF_INIT;
	char relative[64];
	size_t base;
	struct dirent *task;
	DIR *tasks;

	snprintf(relative, sizeof(relative), "%d/task", (int)pid);
	procfs_path(&path, relative);
	base = path.len;
	tasks = opendir(path.buf);
	while (tasks && nr < max && (task = readdir(tasks))) {
		char text[4096], *p, *end;
		int len;

		if (task->d_name[0] == '.')
			continue;
		strbuf_setlen(&path, base);
		strbuf_addf(&path, "/%s/children", task->d_name);
		if ((len = sysfs_read_text(path.buf, text, sizeof(text))) <= 0)
			continue;
		/* "123 456": a list longer than the buffer loses its tail,
		 * and the number cut in two with it */
		if ((size_t)len >= sizeof(text) - 1 && (p = strrchr(text, ' ')))
			*p = '\0';
		for (p = text; nr < max; p = end) {
			long child = strtol(p, &end, 10);

			if (end == p)
				break;
			if (child > 0)
				out[nr++] = (pid_t)child;
		}
	}
	if (tasks)
		closedir(tasks);
	strbuf_release(&path);
	return nr;
}

size_t proctree_descendants(pid_t root, pid_t *out, size_t max)
{
	size_t nr = add_children(root, out, 0, max);

	/* out is its own queue: each found process is asked in turn */
	for (size_t i = 0; i < nr && nr < max; i++)
		nr = add_children(out[i], out, nr, max);
	return nr;
}
