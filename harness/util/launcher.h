/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_LAUNCHER_H
#define BENCHGATE_LAUNCHER_H

#include <stdint.h>
#include <sys/resource.h>

/*
 * benchgate-launch: a small static program that starts the benchmarks
 * whose peak RSS is measured, on benchgate's behalf
 * (harness/run/launcher_main.c; benchgate's side: launcher_client.h).
 * This header is the protocol between the two.
 *
 * Why it exists: on exec, Linux folds the high-water RSS of the memory that
 * the exec replaces into the new program's ru_maxrss (fs/exec.c,
 * setmax_mm_hiwater_rss). A benchmark spawned by benchgate itself
 * (posix_spawn shares benchgate's memory until the exec, fork copies it)
 * thus reports at least benchgate's own peak: 12 MiB and more of libgit2,
 * curl and OpenSSL, varying with what benchgate did before the run.
 * Spawned by the launcher, whose memory is a few hundred KiB, the
 * benchmark's ru_maxrss is its own.
 *
 * Why it is a server, one per benchgate process, rather than a program
 * started for each run: a process started and ended around every run
 * slows the run it surrounds, by 2 to 17 % for /bin/true on a machine of
 * two processors (its exec, its page faults and its exit contend with the
 * benchmark's), where a launcher that is already there and asleep costs
 * nothing measurable (docs/performance.md).
 *
 *     benchgate-launch
 *
 * It is started with the socket on LAUNCHER_FD, and stdin, stdout and
 * stderr what each benchmark gets (benchgate's /dev/null and capture
 * pipes), in a process group of its own (a terminal's Ctrl-C is
 * benchgate's to handle), with an empty signal mask. It closes every
 * other descriptor it inherited, so that, living as long as benchgate, it
 * holds no lock and no pipe of benchgate's open, and a benchmark gets
 * stdio alone. Then, for each request until the socket reads end of file
 * (benchgate gone):
 *
 *   1. benchgate sends a struct launcher_request and its strings;
 *   2. the launcher spawns the program with posix_spawn() and the
 *      attributes benchgate spawns a benchmark with (spawn_attr.h: a
 *      process group of its own, an empty mask, every signal to its
 *      default), the working directory changed in the child, looking it
 *      up as posix_spawnp() does in benchgate; and replies
 *      LAUNCHER_STARTED with its pid, or LAUNCHER_EXEC_FAILED with the
 *      errno of the spawn;
 *   3. it waits for the program's exit, takes the time, kills what is
 *      left of its group while the exited program still holds the group's
 *      id, reaps it with wait4(), and replies LAUNCHER_ENDED with its wait
 *      status, its rusage and its wall time: from just before the spawn to
 *      the exit seen. benchgate takes that as the run's wall time.
 *
 * benchgate times the run out itself, with signals to the group: the
 * launcher knows no deadline. benchgate notices a launcher that died
 * (killed by someone) as the socket's end of file, kills the run's group
 * and reaps what the launcher leaves; another is started at the next run.
 * A launcher whose benchgate dies (SIGKILL included) gets SIGHUP, its
 * parent-death signal: it kills the group of the run in flight and exits.
 * Between runs it sees end of file. So it never outlives benchgate.
 *
 * Each reply is sent with one send() of fewer than PIPE_BUF bytes and read
 * whole. Both ends are built from this header; the magic number changes
 * with the layout, so that a launcher from another build is noticed
 * rather than misread.
 */

/* The socket's descriptor in the launcher: the first past stdio. */
#define LAUNCHER_FD 3

#define LAUNCHER_MAGIC 0x62676c33u /* "bgl3" */

/* A request is this, then `size` bytes: NUL-terminated strings, the
 * working directory ("" for the launcher's own), the ':'-separated
 * directories where a program named without '/' is looked up (benchgate's
 * PATH; "" in it is the working directory), then the argc strings of argv
 * (argv[0] included and unchanged), then the envc strings of the
 * environment. */
struct launcher_request {
	uint32_t magic;
	uint32_t argc;
	uint32_t envc;
	uint32_t size;
};

/* Requests larger than this are refused: exec's own limit is lower. */
#define LAUNCHER_REQUEST_MAX ((uint32_t)64 << 20)

enum launcher_reply_kind {
	LAUNCHER_STARTED = 1,	  /* pid is valid */
	LAUNCHER_EXEC_FAILED = 2, /* exec_errno is valid; nothing runs */
	LAUNCHER_ENDED = 3,	  /* status, usage and wall_ns are valid */
};

struct launcher_reply {
	uint32_t magic;
	uint32_t kind;
	int32_t pid;
	int32_t exec_errno;
	int32_t status; /* as wait4() gives it */
	int32_t pad;
	/* wait4()'s for the program and the descendants it reaped */
	struct rusage usage;
	/* CLOCK_MONOTONIC nanoseconds from just before the spawn to the
	 * exit seen: the benchmark's wall time, the request and the
	 * replies outside it */
	int64_t wall_ns;
};

#endif
