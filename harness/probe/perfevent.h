/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_PERFEVENT_H
#define BENCHGATE_PERFEVENT_H

#include <stdint.h>

/*
 * Counting what a benchmark's whole process tree executes, with the
 * kernel's perf_event_open(2): instructions and cycles (hardware counters,
 * the low-noise metrics where a PMU exists) and task-clock (a software
 * counter of CPU time that every Linux kernel has).
 *
 * Before each run the counters are opened, disabled, on the thread that
 * will start the benchmark, with inherit and enable_on_exec: the child
 * that thread starts gets its own copy, which switches on at the child's
 * exec and is inherited by the child's own children; when a child exits,
 * its counts are added to the opener's counter. So the counts cover the
 * benchmark's tree from its first instruction, and no pid has to be known
 * (or raced for) after the spawn. They are read once the run's child has
 * been reaped, and closed. A counter is not kept from run to run: on
 * Linux 6.18 one inherited counter kept open was seen to count only the
 * first two children of its thread, so each run gets fresh ones. Threads
 * the opener creates while counters are open would inherit them: start
 * none during a run.
 *
 * Only user space is counted (exclude_kernel), which is what an
 * unprivileged user may count under the default perf_event_paranoid = 2,
 * and what a code change moves; kernel work (syscalls, page faults) is out.
 */

enum perfevent_counter {
	PERFEVENT_INSTRUCTIONS,
	PERFEVENT_CYCLES,
	PERFEVENT_TASK_CLOCK, /* nanoseconds */
	PERFEVENT_NR
};

struct perfevent;

/*
 * Finds out which of the counters whose bits (1 << counter) are in
 * `wanted` the kernel lets the calling thread open. Never fails as a
 * whole: a counter the kernel refuses is left out, with the reason for
 * perfevent_why(). The caller owns *out (perfevent_close() it).
 */
void perfevent_open(struct perfevent **out, unsigned wanted);

/* Closes everything, counters of an unfinished run too. NULL-safe. */
void perfevent_close(struct perfevent *perf);

/* NULL when the counter counts; else why not, in words meant for the
 * user, the same for every counter one cause keeps out: "hardware
 * counters are not available here: perf_event_open failed with ENOENT
 * ...", "not permitted here: ...". Borrowed from perf. */
const char *perfevent_why(const struct perfevent *perf,
			  enum perfevent_counter counter);

/* Opens the counters that can count on the calling thread, right before
 * it starts a run. Does not allocate. */
void perfevent_start(struct perfevent *perf);

/*
 * Reads what the run's process tree counted and closes the counters; call
 * after the run's child has been reaped. counts[c] is scaled up for the
 * time the counter was multiplexed out; NAN for a counter that does not
 * count, or that the kernel refused at perfevent_start(). Does not
 * allocate.
 */
void perfevent_stop(struct perfevent *perf, double counts[PERFEVENT_NR]);

#endif
