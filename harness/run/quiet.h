/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_QUIET_H
#define BENCHGATE_QUIET_H

#include "harness/model/result.h"

/*
 * How quiet the machine was while a measurement ran, seen from /proc:
 * what `run` and `check` record in a result (result.h: struct
 * machine_load, "load_at_start"), so that a result measured beside
 * another job says so, and the summary warns.
 *
 * No time is spent waiting to find out: quiet_begin() notes the counters
 * as the measurement starts (once the machine lock is held), and
 * quiet_end() reads them again when it is over, so the window is the
 * measurement itself, warmup runs included. What the processors did
 * meanwhile decides: the cores busy, all processes together (/proc/stat),
 * less what benchgate and its benchmarks used themselves (getrusage of
 * benchgate and of its reaped children), against MACHINE_LOAD_BUSY_CPU
 * (result.h: machine_load_quiet()). The processes other than benchgate
 * and its children that used at least QUIET_PROCESS_CPU of a core
 * meanwhile are named, the busiest first, at most QUIET_BUSY_MAX of them.
 * The load average, which lags by minutes, is recorded as the measurement
 * starts, and shown.
 *
 * The processors' time is counted in clock ticks (1/100 s each): over a
 * short window one tick per processor is a large share of a core. So the
 * share recorded is what was certainly used: one tick per processor is
 * taken off before dividing by the window. A measurement of a few
 * milliseconds thus records a quiet machine unless the machine was much
 * busier than that; one of a second or more is judged to a few
 * hundredths of a core. A process's time comes from its CPU clock, to
 * the nanosecond: the snapshot at the start is one system call a process
 * (no /proc/PID/stat read), so that it delays the first benchmark little;
 * only the processes that may have been busy have their /proc/PID/stat
 * read at the end (parent, start time, command). One started after the
 * snapshot, its pid maybe another's before, used all its time meanwhile.
 */

#define QUIET_PROCESS_CPU 0.05
#define QUIET_BUSY_MAX	  10

struct quiet_watch;

/* Notes the machine's counters and load average now, taking no longer
 * than reading them (a fraction of a millisecond). Never fails: what cannot be
 * read (no /proc) is left out. Free with quiet_end() or
 * quiet_watch_free(). */
struct quiet_watch *quiet_begin(void);

/* Fills `out` (released first; release it with machine_load_release())
 * with what happened since quiet_begin(), and frees watch. */
void quiet_end(struct quiet_watch *watch, struct machine_load *out);

/* Frees a watch that ends unobserved (an interrupted measurement). */
void quiet_watch_free(struct quiet_watch *watch);

#endif
