/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/quiet.h"

#include "harness/util/alloc.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* A process's CPU time so far, in clock ticks. */
struct process_ticks {
	int pid;
	int ppid;
	unsigned long long ticks; /* utime + stime */
	unsigned long long started; /* after boot, in clock ticks */
};

struct snapshot {
	struct process_ticks *processes;
	size_t nr, alloc;
};

struct quiet_watch {
	double started;		      /* CLOCK_MONOTONIC */
	double own_cpu;		      /* benchgate's and its children's */
	unsigned long long busy;      /* /proc/stat, all processors */
	bool have_busy;
	double loadavg[3];
	struct snapshot processes; /* sorted by pid */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double timeval_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* CPU seconds used by benchgate (every thread) and the children it
 * reaped: the benchmarks, their launchers and what they reaped. */
static double own_cpu_s(void)
{
	struct rusage self, children;

	if (getrusage(RUSAGE_SELF, &self) < 0 ||
	    getrusage(RUSAGE_CHILDREN, &children) < 0)
		return 0;
	return timeval_s(&self.ru_utime) + timeval_s(&self.ru_stime) +
	       timeval_s(&children.ru_utime) + timeval_s(&children.ru_stime);
}

/* Reads a small file of /proc into buf (NUL-terminated); its length, or
 * -1 when it cannot be read (a process that ended meanwhile). */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = '\0';
	return len;
}

/* /proc/PID/stat: "PID (COMMAND) STATE PPID ..." with utime and stime the
 * 14th and 15th fields; the command may hold spaces and parentheses, so
 * the fields are counted from its last ')'. With command non-NULL, the
 * command is returned there (free it), made printable. */
static bool read_ticks(int pid, struct process_ticks *out, char **command)
{
	char path[64], stat[1024], *open_paren, *close_paren;
	unsigned long long utime, stime, started;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, stat, sizeof(stat)) < 0)
		return false;
	open_paren = strchr(stat, '(');
	close_paren = strrchr(stat, ')');
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    sscanf(close_paren + 1,
		   " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu"
		   " %*d %*d %*d %*d %*d %*d %llu",
		   &ppid, &utime, &stime, &started) != 4)
		return false;
	out->pid = pid;
	out->ppid = ppid;
	out->ticks = utime + stime;
	out->started = started;
	if (command) {
		*command = xstrndup(open_paren + 1,
				    (size_t)(close_paren - open_paren - 1));
		/* a process names itself; the result holds printable ASCII */
		for (char *c = *command; *c; c++)
			if ((unsigned char)*c < 0x20 ||
			    (unsigned char)*c >= 0x7f)
				*c = '?';
	}
	return true;
}

static int by_pid(const void *a, const void *b)
{
	int x = ((const struct process_ticks *)a)->pid;
	int y = ((const struct process_ticks *)b)->pid;

	return (x > y) - (x < y);
}

/* Calls visit() for each process but benchgate, with its ticks. */
static void each_process(void (*visit)(const struct process_ticks *, void *),
			 void *payload)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	int self = getpid();

	while (proc && (entry = readdir(proc))) {
		struct process_ticks process;
		int pid;

		if (!isdigit((unsigned char)entry->d_name[0]) ||
		    (pid = atoi(entry->d_name)) == self)
			continue;
		if (read_ticks(pid, &process, NULL))
			visit(&process, payload);
	}
	if (proc)
		closedir(proc);
}

static void add_to_snapshot(const struct process_ticks *process, void *payload)
{
	struct snapshot *snapshot = payload;

	ALLOC_GROW(snapshot->processes, snapshot->nr + 1, snapshot->alloc);
	snapshot->processes[snapshot->nr++] = *process;
}

/* A share of a core to what a clock tick can tell, for the record. */
static double thousandths(double cores)
{
	return round(cores * 1000) / 1000;
}

static int busiest_first(const void *a, const void *b)
{
	double x = ((const struct busy_process *)a)->cpu;
	double y = ((const struct busy_process *)b)->cpu;

	return (x < y) - (x > y);
}

/* Clock ticks the processors spent on anything but idling and waiting
 * for I/O, all of them together: the "cpu" line of /proc/stat. */
static bool read_busy_ticks(unsigned long long *out)
{
	unsigned long long user, nice, system, idle, iowait, irq, softirq,
		steal;
	char stat[512];

	if (read_small("/proc/stat", stat, sizeof(stat)) < 0 ||
	    sscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user,
		   &nice, &system, &idle, &iowait, &irq, &softirq,
		   &steal) != 8)
		return false;
	*out = user + nice + system + irq + softirq + steal;
	return true;
}

static void read_loadavg(double loadavg[3])
{
	char text[128];

	if (read_small("/proc/loadavg", text, sizeof(text)) < 0 ||
	    sscanf(text, "%lf %lf %lf", &loadavg[0], &loadavg[1],
		   &loadavg[2]) != 3)
		memset(loadavg, 0, 3 * sizeof(*loadavg));
}

struct quiet_watch *quiet_begin(void)
{
	struct quiet_watch *watch = xcalloc(1, sizeof(*watch));

	read_loadavg(watch->loadavg);
	each_process(add_to_snapshot, &watch->processes);
	if (watch->processes.nr)
		qsort(watch->processes.processes, watch->processes.nr,
		      sizeof(*watch->processes.processes), by_pid);
	/* the counters bracket the measurement, not the scans */
	watch->own_cpu = own_cpu_s();
	watch->have_busy = read_busy_ticks(&watch->busy);
	watch->started = now_s();
	return watch;
}

/* What quiet_end() collects of each process as it scans. */
struct busy_scan {
	const struct quiet_watch *watch;
	struct machine_load *out;
	size_t alloc;
	double ticks_per_s, elapsed;
	int self;
};

static void add_if_busy(const struct process_ticks *now, void *payload)
{
	struct busy_scan *scan = payload;
	const struct snapshot *before = &scan->watch->processes;
	const struct process_ticks *then;
	struct machine_load *out = scan->out;
	struct process_ticks again;
	unsigned long long used;
	double cpu;

	/* benchgate's own children (its guardian) are benchgate */
	if (now->ppid == scan->self)
		return;
	then = before->nr ? bsearch(now, before->processes, before->nr,
				    sizeof(*now), by_pid)
			  : NULL;
	/* one that started meanwhile (its pid maybe another's before) used
	 * all its time meanwhile */
	if (then && then->started == now->started)
		used = now->ticks - (now->ticks < then->ticks ? now->ticks
							       : then->ticks);
	else
		used = now->ticks;
	if (!used)
		return;
	/* what it certainly used: one tick less */
	cpu = (double)(used - 1) / scan->ticks_per_s / scan->elapsed;
	if (cpu < QUIET_PROCESS_CPU)
		return;
	ALLOC_GROW(out->busy, out->busy_nr + 1, scan->alloc);
	/* its name, read again: no allocation for those that are idle; one
	 * that ended meanwhile is left out */
	if (!read_ticks(now->pid, &again, &out->busy[out->busy_nr].command))
		return;
	out->busy[out->busy_nr].pid = now->pid;
	out->busy[out->busy_nr++].cpu = thousandths(cpu);
}

void quiet_end(struct quiet_watch *watch, struct machine_load *out)
{
	struct busy_scan scan = { watch, out, 0, 0, 0, 0 };
	unsigned long long busy = 0;
	double ticks_per_s = (double)sysconf(_SC_CLK_TCK);
	double processors = (double)sysconf(_SC_NPROCESSORS_ONLN);
	double elapsed, own, others;

	machine_load_release(out);
	if (!watch)
		return;
	elapsed = now_s() - watch->started;
	own = own_cpu_s() - watch->own_cpu;
	out->observed = true;
	memcpy(out->loadavg, watch->loadavg, sizeof(out->loadavg));
	if (processors < 1)
		processors = 1;
	if (watch->have_busy && read_busy_ticks(&busy) && ticks_per_s > 0 &&
	    elapsed > 0 && busy >= watch->busy) {
		/* less one tick per processor: what certainly was busy */
		others = ((double)(busy - watch->busy) - processors) /
				 ticks_per_s -
			 own;
		out->cpu_busy = others > 0 ? thousandths(others / elapsed) : 0;
	}
	if (ticks_per_s > 0 && elapsed > 0) {
		scan.ticks_per_s = ticks_per_s;
		scan.elapsed = elapsed;
		scan.self = getpid();
		each_process(add_if_busy, &scan);
	}
	if (out->busy_nr)
		qsort(out->busy, out->busy_nr, sizeof(*out->busy),
		      busiest_first);
	while (out->busy_nr > QUIET_BUSY_MAX)
		free(out->busy[--out->busy_nr].command);
	quiet_watch_free(watch);
}

void quiet_watch_free(struct quiet_watch *watch)
{
	if (!watch)
		return;
	free(watch->processes.processes);
	free(watch);
}
