/* SPDX-License-Identifier: Apache-2.0 */
/* the syscall number of perf_event_open */
#define _GNU_SOURCE

#include "harness/probe/perfevent.h"

#include "harness/util/alloc.h"
#include "harness/probe/sysfs.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct perfevent {
	bool counts[PERFEVENT_NR]; /* the kernel let us open it */
	int fd[PERFEVENT_NR];	   /* of the run going on; -1: none */
	char why[PERFEVENT_NR][320];
};

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} counters[PERFEVENT_NR] = {
	[PERFEVENT_INSTRUCTIONS] = { "instructions", PERF_TYPE_HARDWARE,
				     PERF_COUNT_HW_INSTRUCTIONS },
	[PERFEVENT_CYCLES] = { "cycles", PERF_TYPE_HARDWARE,
			       PERF_COUNT_HW_CPU_CYCLES },
	[PERFEVENT_TASK_CLOCK] = { "task-clock", PERF_TYPE_SOFTWARE,
				   PERF_COUNT_SW_TASK_CLOCK },
};

static const char *errno_name(int error)
{
	switch (error) {
	case ENOENT:
		return "ENOENT";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENODEV:
		return "ENODEV";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ENOSYS:
		return "ENOSYS";
	case EINVAL:
		return "EINVAL";
	case EMFILE:
		return "EMFILE";
	default:
		return "error";
	}
}

static void explain(struct perfevent *perf, enum perfevent_counter counter,
		    int error)
{
	char *why = perf->why[counter];
	size_t size = sizeof(perf->why[counter]);
	struct strbuf path = STRBUF_INIT;
	char paranoid[16] = "";

	/* the same words for every counter a cause keeps out, so that
	 * the user is told once */
	switch (error) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (counters[counter].type == PERF_TYPE_HARDWARE)
			snprintf(why, size,
				 "hardware counters are not "
				 "available here: perf_event_open failed with "
				 "%s (%s): this CPU or virtual machine exposes "
				 "no PMU to count with",
				 errno_name(error), strerror(error));
		else
			snprintf(why, size,
				 "the %s counter is not available "
				 "here: perf_event_open failed with %s (%s)",
				 counters[counter].name, errno_name(error),
				 strerror(error));
		break;
	case EACCES:
	case EPERM:
		procfs_path(&path, "sys/kernel/perf_event_paranoid");
		if (sysfs_read_text(path.buf, paranoid, sizeof(paranoid)) < 0)
			snprintf(paranoid, sizeof(paranoid), "unknown");
		snprintf(why, size,
			 "not permitted here: perf_event_open "
			 "failed with %s (%s): kernel.perf_event_paranoid is "
			 "%s (counting needs 2 or lower, or CAP_PERFMON), or "
			 "a container's seccomp profile forbids the call",
			 errno_name(error), strerror(error), paranoid);
		break;
	case ENOSYS:
		snprintf(why, size,
			 "this kernel has no perf_event_open "
			 "(built without CONFIG_PERF_EVENTS)");
		break;
	default:
		snprintf(why, size, "perf_event_open(%s) failed with %s (%s)",
			 counters[counter].name, errno_name(error),
			 strerror(error));
		break;
	}
	strbuf_release(&path);
}

static int open_counter(enum perfevent_counter counter)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = counters[counter].type;
	attr.config = counters[counter].config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.enable_on_exec = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

void perfevent_open(struct perfevent **out, unsigned wanted)
{
	struct perfevent *perf = xcalloc(1, sizeof(*perf));

	for (int c = 0; c < PERFEVENT_NR; c++) {
		int fd;

		perf->fd[c] = -1;
		if (!(wanted & (1u << c))) {
			snprintf(perf->why[c], sizeof(perf->why[c]),
				 "not asked for");
			continue;
		}
		/* a disabled counter counts nothing until a child execs */
		if ((fd = open_counter((enum perfevent_counter)c)) < 0) {
			explain(perf, (enum perfevent_counter)c, errno);
			continue;
		}
		close(fd);
		perf->counts[c] = true;
	}
	*out = perf;
}

static void close_counters(struct perfevent *perf)
{
	for (int c = 0; c < PERFEVENT_NR; c++) {
		if (perf->fd[c] >= 0)
			close(perf->fd[c]);
		perf->fd[c] = -1;
	}
}

void perfevent_close(struct perfevent *perf)
{
	if (!perf)
		return;
	close_counters(perf);
	free(perf);
}

const char *perfevent_why(const struct perfevent *perf,
			  enum perfevent_counter counter)
{
	return perf->counts[counter] ? NULL : perf->why[counter];
}

void perfevent_start(struct perfevent *perf)
{
	close_counters(perf);
	for (int c = 0; c < PERFEVENT_NR; c++)
		if (perf->counts[c])
			perf->fd[c] = open_counter((enum perfevent_counter)c);
}

void perfevent_stop(struct perfevent *perf, double counts[PERFEVENT_NR])
{
	for (int c = 0; c < PERFEVENT_NR; c++) {
		/* value, time enabled, time running */
		uint64_t data[3];

		counts[c] = NAN;
		if (perf->fd[c] < 0 ||
		    read(perf->fd[c], data, sizeof(data)) != sizeof(data))
			continue;
		/* never running: nothing counted, nothing to scale */
		if (!data[2] || data[2] >= data[1])
			counts[c] = (double)data[0];
		else
			counts[c] = (double)data[0] * (double)data[1] /
				    (double)data[2];
	}
	close_counters(perf);
}
