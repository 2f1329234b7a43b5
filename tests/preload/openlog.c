/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A library for LD_PRELOAD that appends the path of every file the
 * process opens through the C library (fopen, open, openat and their 64
 * forms) to the file $BENCHGATE_OPENLOG, one a line. Calls from any
 * library count: they go through the PLT to these definitions first.
 * tests/e2e/test_startup.c uses it to see which files a command reads.
 * One call is logged too, as "call NAME": OpenSSL's
 * ENGINE_load_builtin_engines(), the first step of libssh2's set-up of
 * its crypto, to see when that happens.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void record(const char *path)
{
	static int (*real_open)(const char *, int, ...);
	const char *log = getenv("BENCHGATE_OPENLOG");
	int fd;

	if (!log || !path)
		return;
	if (!real_open)
		*(void **)&real_open = dlsym(RTLD_NEXT, "open");
	if (!real_open)
		return;
	fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	(void)!write(fd, path, strlen(path));
	(void)!write(fd, "\n", 1);
	close(fd);
}

#define OPEN_LIKE(name)                                            \
	int name(const char *path, int flags, ...)                 \
	{                                                          \
		static int (*real)(const char *, int, ...);        \
		va_list ap;                                        \
		int mode;                                          \
                                                                   \
		va_start(ap, flags);                               \
		mode = va_arg(ap, int);                            \
		va_end(ap);                                        \
		if (!real)                                         \
			*(void **)&real = dlsym(RTLD_NEXT, #name); \
		record(path);                                      \
		return real(path, flags, mode);                    \
	}
#define OPENAT_LIKE(name)                                          \
	int name(int dir, const char *path, int flags, ...)        \
	{                                                          \
		static int (*real)(int, const char *, int, ...);   \
		va_list ap;                                        \
		int mode;                                          \
                                                                   \
		va_start(ap, flags);                               \
		mode = va_arg(ap, int);                            \
		va_end(ap);                                        \
		if (!real)                                         \
			*(void **)&real = dlsym(RTLD_NEXT, #name); \
		record(path);                                      \
		return real(dir, path, flags, mode);               \
	}
#define FOPEN_LIKE(name)                                           \
	FILE *name(const char *path, const char *mode)             \
	{                                                          \
		static FILE *(*real)(const char *, const char *);  \
                                                                   \
		if (!real)                                         \
			*(void **)&real = dlsym(RTLD_NEXT, #name); \
		record(path);                                      \
		return real(path, mode);                           \
	}

OPEN_LIKE(open)
OPEN_LIKE(open64)
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)
FOPEN_LIKE(fopen)
FOPEN_LIKE(fopen64)

void ENGINE_load_builtin_engines(void)
{
	static void (*real)(void);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, __func__);
	record("call ENGINE_load_builtin_engines");
	if (real)
		real();
}
