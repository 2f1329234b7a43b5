#ifndef BENCHGATE_PERFEVENT_H
#define BENCHGATE_PERFEVENT_H

#include <stdint.h>

/*
 * Counting what a benchmark's whole process tree executes, with the
 * kernel's perf_event_open(2): instructions and cycles (hardware counters,
 * the low-noise metrics where a PMU exists) and task-clock (a software
 * counter of CPU time that every Linux kernel has).
 *
 * The counters are opened once, disabled, on the thread that will start
 * the benchmarks, with inherit and enable_on_exec: every child that thread
 * starts afterwards gets its own copy, which switches on at the child's
 * exec and is inherited by the child's own children; when a child exits
 * its counts are added to the opener's counter. So the counts cover the
 * benchmark's tree from its first instruction, and no pid has to be known
 * (or raced for) after the spawn. A reading taken after a run's child has
 * been reaped, less one taken before it started, is that run's count.
 * Threads the opener creates later inherit the counters as well: create
 * helper threads before perfevent_open().
 *
 * Only user space is counted (exclude_kernel), which is what an
 * unprivileged user may count under the default perf_event_paranoid = 2,
 * and what a code change moves; kernel work (syscalls, page faults) is out.
 */

enum perfevent_counter {
	PERFEVENT_INSTRUCTIONS,
	PERFEVENT_CYCLES,
	PERFEVENT_TASK_CLOCK,   /* nanoseconds */
	PERFEVENT_NR
};

struct perfevent;

/* One reading of every counter: raw totals, and how long each counter was
 * enabled and actually counting (they differ when the kernel multiplexes
 * more counters than the PMU has). */
struct perfevent_reading {
	uint64_t value[PERFEVENT_NR];
	uint64_t enabled[PERFEVENT_NR];
	uint64_t running[PERFEVENT_NR];
};

/*
 * Opens the counters whose bits (1 << counter) are in `wanted` on the
 * calling thread. Never fails as a whole: a counter the kernel refuses is
 * left out, with the reason for perfevent_why(). The caller owns *out
 * (perfevent_close() it).
 */
void perfevent_open(struct perfevent **out, unsigned wanted);

void perfevent_close(struct perfevent *perf);

/* NULL when the counter counts; else why not, in words meant for the
 * user: "hardware counters are not available here: perf_event_open
 * (instructions) failed with ENOENT ...", "not permitted here: ...".
 * Borrowed from perf. */
const char *perfevent_why(const struct perfevent *perf,
			  enum perfevent_counter counter);

/* Reads every open counter. Does not allocate. */
void perfevent_read(struct perfevent *perf, struct perfevent_reading *out);

/* The count of `counter` from `before` to `after`, scaled up for the time
 * the counter was multiplexed out; NAN when it was never running. */
double perfevent_delta(const struct perfevent_reading *before,
		       const struct perfevent_reading *after,
		       enum perfevent_counter counter);

#endif
