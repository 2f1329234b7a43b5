/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_LAUNCHER_H
#define BENCHGATE_LAUNCHER_H

#include <stdint.h>
#include <sys/resource.h>

/*
 * benchgate-launch: a small static program between benchgate and a
 * benchmark whose peak RSS is measured (harness/run/launcher_main.c).
 *
 * Why it exists: on exec, Linux folds the high-water RSS of the memory that
 * the exec replaces into the new program's ru_maxrss (fs/exec.c,
 * setmax_mm_hiwater_rss). A benchmark spawned by benchgate itself
 * (posix_spawn shares benchgate's memory until the exec, fork copies it)
 * thus reports at least benchgate's own peak: 12 MiB and more of libgit2,
 * curl and OpenSSL, varying with what benchgate did before the run. Exec'd
 * from a fork of the launcher, whose memory is a few hundred KiB, the
 * benchmark's ru_maxrss is its own.
 *
 *     benchgate-launch FD SEARCH PROGRAM [ARG...]
 *
 * FD      a descriptor open for writing (a pipe) that receives the records
 *         below; the benchmark does not inherit it.
 * SEARCH  the ':'-separated directories where PROGRAM is looked up when it
 *         has no '/' ("" is the current directory). benchgate passes its
 *         own PATH, so that the lookup is the one posix_spawnp() would do
 *         in benchgate, whatever PATH the benchmark's environment sets.
 * PROGRAM ARG...
 *         the benchmark's argv, argv[0] included and unchanged; it runs
 *         with the launcher's environment, working directory and
 *         descriptors (but FD).
 *
 * The launcher spawns PROGRAM with posix_spawn() and the attributes
 * benchgate spawns a benchmark with (ignored signals back to their
 * default, the launcher's original signal mask), so that the spawn costs
 * the same with the launcher or without; waits for it with wait4(); and
 * writes one LAUNCHER_RUSAGE record, with the time from just before the
 * spawn to wait4()'s return: benchgate takes that as the run's wall time,
 * so that the launcher's own start (an exec of its own) and its record are
 * not in the sample, and a metric that is only observed (maxrss) leaves
 * the others' values as they are without it. It then ends as the
 * benchmark did: exits with its status, or dies of its signal (with core
 * dumps off, so that one crash leaves at most the benchmark's core). When
 * PROGRAM cannot be executed, it writes a LAUNCHER_EXEC_FAILED record
 * with the spawn's errno and exits with status 127, so the reader sees the
 * exec's errno, not a program that exited 127.
 *
 * The benchmark is in the launcher's process group: a launcher killed
 * alone is a child of benchgate's gone, and benchgate then kills the
 * whole group; when benchgate dies, its guardian kills the group
 * (process.h). So the benchmark needs no parent-death signal of its own.
 *
 * SIGINT, SIGTERM and SIGHUP are blocked in the launcher (not in the
 * benchmark): a timeout's SIGTERM to the process group is for the
 * benchmark, which may take its grace period to exit, and the launcher
 * still reports how it ended. SIGKILL ends both, without a record.
 *
 * Each record is written with one write() of fewer than PIPE_BUF bytes,
 * so it arrives whole. Both ends are built from this header; the magic
 * number changes with the layout, so that a launcher from another build
 * is noticed rather than misread.
 */

/* The FD benchgate passes: the first one past stdin, stdout and stderr. */
#define LAUNCHER_FD 3

#define LAUNCHER_MAGIC 0x62676c32u /* "bgl2" */

enum launcher_record_kind {
	LAUNCHER_RUSAGE = 1,	  /* usage is valid */
	LAUNCHER_EXEC_FAILED = 2, /* exec_errno is valid */
};

struct launcher_record {
	uint32_t magic;
	uint32_t kind;
	int32_t exec_errno;
	/* wait4()'s for the benchmark and its reaped descendants */
	struct rusage usage;
	/* CLOCK_MONOTONIC nanoseconds from just before the launcher's
	 * vfork() to wait4()'s return: the benchmark's wall time, the
	 * launcher's own start and record outside it */
	int64_t wall_ns;
};

#endif
