/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_QUIET_H
#define BENCHGATE_QUIET_H

#include "harness/model/result.h"

/*
 * How quiet the machine is, seen from /proc when a measurement starts:
 * what `run` and `check` record in a result (result.h: struct
 * machine_load, "load_at_start"), so that a result measured beside
 * another job says so, and the summary warns.
 *
 * The load average lags by minutes (a job that just ended still weighs
 * on it), so it is recorded and shown, and what the processors did over
 * QUIET_WINDOW_S seconds decides: the cores busy meanwhile, all processes
 * together (/proc/stat; benchgate itself sleeps), against
 * MACHINE_LOAD_BUSY_CPU (result.h: machine_load_quiet()). The processes
 * that used at least QUIET_PROCESS_CPU of a core meanwhile are named, the
 * busiest first, at most QUIET_BUSY_MAX of them: on an overloaded machine
 * no single one gets a large share.
 */

#define QUIET_WINDOW_S	  0.2
#define QUIET_PROCESS_CPU 0.05
#define QUIET_BUSY_MAX	  10

/* Fills `out` (released first; release it with machine_load_release()),
 * taking QUIET_WINDOW_S. Never fails: what cannot be read (no /proc, a
 * process that ended meanwhile) is left out. */
void quiet_observe(struct machine_load *out);

#endif
