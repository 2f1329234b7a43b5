/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void add_rooted(struct strbuf *out, const char *variable,
		       const char *fallback, const char *relative)
{
	const char *root = getenv(variable);

	strbuf_addf(out, "%s/%s", root && *root ? root : fallback, relative);
}

void sysfs_path(struct strbuf *out, const char *relative)
{
	add_rooted(out, "BENCHGATE_SYSFS_ROOT", "/sys", relative);
}

void procfs_path(struct strbuf *out, const char *relative)
{
	add_rooted(out, "BENCHGATE_PROCFS_ROOT", "/proc", relative);
}

int sysfs_read_text(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, saved;

	if (!size) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (len + 1 < size) {
		ssize_t got = read(fd, buf + len, size - 1 - len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (!got)
			break;
		len += (size_t)got;
	}
	close(fd);
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	buf[len] = '\0';
	return (int)len;
}

int sysfs_read_u64(const char *path, uint64_t *out)
{
	char text[32];
	char *end;
	unsigned long long value;

	if (sysfs_read_text(path, text, sizeof(text)) < 0)
		return -1;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-') {
		errno = EINVAL;
		return -1;
	}
	*out = (uint64_t)value;
	return 0;
}
