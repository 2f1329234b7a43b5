/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/run/quiet.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/util/strbuf.h"

#include <ctype.h>
#include <math.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A process's CPU time so far, in clock ticks. */
struct process_ticks {
	int pid;
	unsigned long long ticks; /* utime + stime */
	char *command;
};

struct snapshot {
	struct process_ticks *processes;
	size_t nr, alloc;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* /proc/PID/stat: "PID (COMMAND) STATE PPID ..." with utime and stime the
 * 14th and 15th fields; the command may hold spaces and parentheses, so
 * the fields are counted from its last ')'. */
static bool read_ticks(int pid, struct process_ticks *out)
{
	struct strbuf stat = STRBUF_INIT;
	char path[64], *open_paren, *close_paren;
	unsigned long long utime, stime;
	bool ok = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (strbuf_read_file(&stat, path) < 0) {
		bg_error_clear(); /* it ended meanwhile */
		goto done;
	}
	open_paren = strchr(stat.buf, '(');
	close_paren = strrchr(stat.buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    sscanf(close_paren + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		   &utime, &stime) != 2)
		goto done;
	out->pid = pid;
	out->ticks = utime + stime;
	out->command =
		xstrndup(open_paren + 1, (size_t)(close_paren - open_paren - 1));
	/* a process names itself; the result holds printable ASCII */
	for (char *c = out->command; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	ok = true;
done:
	strbuf_release(&stat);
	return ok;
}

static void take_snapshot(struct snapshot *snapshot)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;

	while (proc && (entry = readdir(proc))) {
		int pid;

		if (!isdigit((unsigned char)entry->d_name[0]) ||
		    (pid = atoi(entry->d_name)) == getpid())
			continue;
		ALLOC_GROW(snapshot->processes, snapshot->nr + 1,
			   snapshot->alloc);
		if (read_ticks(pid, &snapshot->processes[snapshot->nr]))
			snapshot->nr++;
	}
	if (proc)
		closedir(proc);
}

static void snapshot_release(struct snapshot *snapshot)
{
	for (size_t i = 0; i < snapshot->nr; i++)
		free(snapshot->processes[i].command);
	free(snapshot->processes);
}

/* A share of a core to what a clock tick can tell, for the record. */
static double thousandths(double cores)
{
	return round(cores * 1000) / 1000;
}

static const struct process_ticks *find_process(const struct snapshot *s,
						int pid)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->processes[i].pid == pid)
			return &s->processes[i];
	return NULL;
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
	FILE *file = fopen("/proc/stat", "r");
	bool ok;

	if (!file)
		return false;
	ok = fscanf(file, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user,
		    &nice, &system, &idle, &iowait, &irq, &softirq,
		    &steal) == 8;
	fclose(file);
	if (ok)
		*out = user + nice + system + irq + softirq + steal;
	return ok;
}

static void read_loadavg(struct machine_load *out)
{
	FILE *file = fopen("/proc/loadavg", "r");

	if (!file)
		return;
	if (fscanf(file, "%lf %lf %lf", &out->loadavg[0], &out->loadavg[1],
		   &out->loadavg[2]) != 3)
		memset(out->loadavg, 0, sizeof(out->loadavg));
	fclose(file);
}

void quiet_observe(struct machine_load *out)
{
	struct snapshot before = { 0 }, after = { 0 };
	double ticks_per_s = (double)sysconf(_SC_CLK_TCK), started, elapsed;
	double slept_from, slept;
	struct timespec window = { 0, (long)(QUIET_WINDOW_S * 1e9) };
	unsigned long long busy_before = 0, busy_after = 0;
	bool have_stat;
	size_t alloc = 0;

	machine_load_release(out);
	out->observed = true;
	read_loadavg(out);
	started = now_s();
	take_snapshot(&before);
	/* the processors' count brackets the sleep alone, not the scans */
	have_stat = read_busy_ticks(&busy_before);
	slept_from = now_s();
	nanosleep(&window, NULL);
	slept = now_s() - slept_from;
	have_stat = read_busy_ticks(&busy_after) && have_stat;
	take_snapshot(&after);
	elapsed = now_s() - started;
	if (have_stat && ticks_per_s > 0 && slept > 0 &&
	    busy_after >= busy_before)
		out->cpu_busy = thousandths((double)(busy_after - busy_before) /
					    ticks_per_s / slept);
	for (size_t i = 0; ticks_per_s > 0 && elapsed > 0 && i < after.nr;
	     i++) {
		const struct process_ticks *now = &after.processes[i];
		const struct process_ticks *then = find_process(&before, now->pid);
		double cpu;

		if (!then || now->ticks < then->ticks)
			continue;
		cpu = (double)(now->ticks - then->ticks) / ticks_per_s / elapsed;
		if (cpu < QUIET_PROCESS_CPU)
			continue;
		ALLOC_GROW(out->busy, out->busy_nr + 1, alloc);
		out->busy[out->busy_nr].pid = now->pid;
		out->busy[out->busy_nr].command = xstrdup(now->command);
		out->busy[out->busy_nr++].cpu = thousandths(cpu);
	}
	if (out->busy_nr)
		qsort(out->busy, out->busy_nr, sizeof(*out->busy),
		      busiest_first);
	while (out->busy_nr > QUIET_BUSY_MAX)
		free(out->busy[--out->busy_nr].command);
	snapshot_release(&before);
	snapshot_release(&after);
}
