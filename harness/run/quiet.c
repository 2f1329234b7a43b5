/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/quiet.h"

#include "harness/util/alloc.h"
#include "harness/util/process.h"

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

/* A process's CPU time so far, from its CPU clock. */
struct process_cpu {
	int pid;
	unsigned long long ns; /* every thread's, reaped ones included */
};

struct quiet_watch {
	double started;		      /* CLOCK_MONOTONIC */
	double own_cpu;		      /* benchgate's and its children's */
	unsigned long long busy;      /* /proc/stat, all processors */
	bool have_busy;
	/* CLOCK_BOOTTIME as the snapshot was done, in clock ticks: a process
	 * started later (/proc/PID/stat) is not the one of its pid in it */
	unsigned long long snapshot_ticks;
	double loadavg[3];
	struct process_cpu *processes; /* sorted by pid */
	size_t nr, alloc;
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

/* CPU seconds used by benchgate (every thread) and its runs: the
 * children it reaped and what they reaped, and the runs its launcher
 * reaped (process.h). */
static double own_cpu_s(void)
{
	struct rusage self, children;

	if (getrusage(RUSAGE_SELF, &self) < 0 ||
	    getrusage(RUSAGE_CHILDREN, &children) < 0)
		return 0;
	return timeval_s(&self.ru_utime) + timeval_s(&self.ru_stime) +
	       timeval_s(&children.ru_utime) + timeval_s(&children.ru_stime) +
	       process_launched_cpu_s();
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

/*
 * The CPU time of process pid (all its threads) so far, from its CPU
 * clock: the kernel's clock id for it is MAKE_PROCESS_CPUCLOCK(pid,
 * CPUCLOCK_SCHED) (linux/posix-timers.h; what clock_getcpuclockid()
 * returns after a check that costs a system call). One system call,
 * where reading /proc/PID/stat takes three and has the kernel format
 * some fifty fields: a tenth of the time for the snapshot that the
 * start of a measurement waits for. Any user may read it, as /proc/PID/
 * stat. false when the process is gone.
 */
static bool read_process_cpu(int pid, unsigned long long *ns)
{
	clockid_t clock = (clockid_t)((~(unsigned int)pid << 3) | 2u);
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return false;
	*ns = (unsigned long long)ts.tv_sec * 1000000000ULL +
	      (unsigned long long)ts.tv_nsec;
	return true;
}

/* What quiet_end() reads of a busy process's /proc/PID/stat. */
struct process_stat {
	int ppid;
	unsigned long long started; /* after boot, in clock ticks */
	char *command;		    /* made printable; the caller frees it */
};

/* /proc/PID/stat: "PID (COMMAND) STATE PPID ..." with the start time the
 * 22nd field; the command may hold spaces and parentheses, so the fields
 * are counted from its last ')'. */
static bool read_stat(int pid, struct process_stat *out)
{
	char path[64], stat[1024], *open_paren, *close_paren;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, stat, sizeof(stat)) < 0)
		return false;
	open_paren = strchr(stat, '(');
	close_paren = strrchr(stat, ')');
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    sscanf(close_paren + 1,
		   " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u"
		   " %*d %*d %*d %*d %*d %*d %llu",
		   &out->ppid, &out->started) != 2)
		return false;
	out->command = xstrndup(open_paren + 1,
				(size_t)(close_paren - open_paren - 1));
	/* a process names itself; the result holds printable ASCII */
	for (char *c = out->command; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return true;
}

static int by_pid(const void *a, const void *b)
{
	int x = ((const struct process_cpu *)a)->pid;
	int y = ((const struct process_cpu *)b)->pid;

	return (x > y) - (x < y);
}

/* Calls visit() for each process but benchgate, with its CPU time. */
static void each_process(void (*visit)(const struct process_cpu *, void *),
			 void *payload)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;
	int self = getpid();

	while (proc && (entry = readdir(proc))) {
		struct process_cpu process;

		if (!isdigit((unsigned char)entry->d_name[0]) ||
		    (process.pid = atoi(entry->d_name)) == self)
			continue;
		if (read_process_cpu(process.pid, &process.ns))
			visit(&process, payload);
	}
	if (proc)
		closedir(proc);
}

static void add_to_snapshot(const struct process_cpu *process, void *payload)
{
	struct quiet_watch *watch = payload;

	ALLOC_GROW(watch->processes, watch->nr + 1, watch->alloc);
	watch->processes[watch->nr++] = *process;
}

/* CLOCK_BOOTTIME in clock ticks: the clock of /proc/PID/stat's start
 * times. */
static unsigned long long boot_ticks(double ticks_per_s)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (unsigned long long)(((double)ts.tv_sec +
				     (double)ts.tv_nsec / 1e9) *
				    ticks_per_s);
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
	double ticks_per_s = (double)sysconf(_SC_CLK_TCK);

	read_loadavg(watch->loadavg);
	each_process(add_to_snapshot, watch);
	/* /proc lists processes by pid, but nothing promises it */
	if (watch->nr)
		qsort(watch->processes, watch->nr, sizeof(*watch->processes),
		      by_pid);
	/* rounded up: a start in the tick the scan ended in may be later */
	watch->snapshot_ticks = boot_ticks(ticks_per_s) + 1;
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
	double elapsed;
	int self;
};

static void add_if_busy(const struct process_cpu *now, void *payload)
{
	struct busy_scan *scan = payload;
	const struct quiet_watch *watch = scan->watch;
	const struct process_cpu *then;
	struct machine_load *out = scan->out;
	struct process_stat stat;
	unsigned long long used;
	double cpu;

	/* all its time meanwhile is the most it can have used: only a
	 * process above the bar is worth reading its /proc/PID/stat */
	if ((double)now->ns / 1e9 / scan->elapsed < QUIET_PROCESS_CPU ||
	    !read_stat(now->pid, &stat))
		return;
	then = watch->nr ? bsearch(now, watch->processes, watch->nr,
				   sizeof(*now), by_pid)
			 : NULL;
	/* benchgate's own children (its guardian) are benchgate; one that
	 * started meanwhile (its pid maybe another's before) used all its
	 * time meanwhile */
	if (stat.ppid == scan->self)
		used = 0;
	else if (then && stat.started <= watch->snapshot_ticks)
		used = now->ns > then->ns ? now->ns - then->ns : 0;
	else
		used = now->ns;
	cpu = (double)used / 1e9 / scan->elapsed;
	if (cpu < QUIET_PROCESS_CPU) {
		free(stat.command);
		return;
	}
	ALLOC_GROW(out->busy, out->busy_nr + 1, scan->alloc);
	out->busy[out->busy_nr].command = stat.command;
	out->busy[out->busy_nr].pid = now->pid;
	out->busy[out->busy_nr++].cpu = thousandths(cpu);
}

void quiet_end(struct quiet_watch *watch, struct machine_load *out)
{
	struct busy_scan scan = { .watch = watch, .out = out };
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
	if (elapsed > 0) {
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
	free(watch->processes);
	free(watch);
}
