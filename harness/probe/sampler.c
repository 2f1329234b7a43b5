/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/probe/sampler.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"
#include "harness/probe/gpus.h"
#include "harness/probe/perfevent.h"
#include "harness/probe/proctree.h"
#include "harness/probe/rapl.h"
#include "harness/probe/sysfs.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* The fields of a GPU source, the same for every vendor's. */
enum gpu_field {
	GF_UTIL_MEAN,
	GF_UTIL_PEAK,
	GF_MEMORY_PEAK,
	GF_DEVICE_MEMORY_PEAK,
	GF_POWER_MEAN,
	GF_POWER_PEAK,
	GF_ENERGY,
	GF_NR
};

enum field {
	F_NVML,			/* GF_NR fields of NVIDIA GPUs */
	F_ROCM = F_NVML + GF_NR, /* GF_NR fields of AMD GPUs */
	F_RAPL_ENERGY = F_ROCM + GF_NR,
	F_RAPL_POWER_MEAN,
	F_CPU_UTIL_MEAN,
	F_CPU_UTIL_PEAK,
	F_LOAD,
	F_DISK_FREE,
	F_INSTRUCTIONS,
	F_CYCLES,
	F_TASK_CLOCK,
	F_NR
};

/* The one table of the sampled fields (sampler.h), in the order of enum
 * field. */
static const struct sampler_field fields[F_NR] = {
#define GPU_FIELDS(first, source)                                             \
	[first + GF_UTIL_MEAN] = { source, "utilization_mean", "%", true },   \
	[first + GF_UTIL_PEAK] = { source, "utilization_peak", "%", true },   \
	[first + GF_MEMORY_PEAK] = { source, "memory_peak", "B", false },     \
	[first + GF_DEVICE_MEMORY_PEAK] = { source, "device_memory_peak", "B", \
					    true },                             \
	[first + GF_POWER_MEAN] = { source, "power_mean", "W", true },        \
	[first + GF_POWER_PEAK] = { source, "power_peak", "W", true },        \
	[first + GF_ENERGY] = { source, "energy", "J", false }
	GPU_FIELDS(F_NVML, SOURCE_NVML),
	GPU_FIELDS(F_ROCM, SOURCE_ROCM),
#undef GPU_FIELDS
	[F_RAPL_ENERGY] = { SOURCE_RAPL, "energy", "J", false },
	[F_RAPL_POWER_MEAN] = { SOURCE_RAPL, "power_mean", "W", true },
	[F_CPU_UTIL_MEAN] = { SOURCE_SYSTEM, "cpu_utilization_mean", "%", true },
	[F_CPU_UTIL_PEAK] = { SOURCE_SYSTEM, "cpu_utilization_peak", "%", true },
	[F_LOAD] = { SOURCE_SYSTEM, "load", NULL, true },
	[F_DISK_FREE] = { SOURCE_SYSTEM, "disk_free", "B", false },
	[F_INSTRUCTIONS] = { SOURCE_PERF, "instructions", NULL, false },
	[F_CYCLES] = { SOURCE_PERF, "cycles", NULL, false },
	[F_TASK_CLOCK] = { SOURCE_PERF, "task_clock", "s", false },
};

const struct sampler_field *sampler_fields(size_t *nr)
{
	*nr = F_NR;
	return fields;
}

static const enum metric_source sources_in_order[] = {
	SOURCE_SYSTEM,
	SOURCE_RAPL,
	SOURCE_PERF,
	SOURCE_NVML,
	SOURCE_ROCM,
};

/* The GPU sources: one vendor's library each. */
static const struct {
	enum metric_source source;
	enum gpu_vendor vendor;
	enum field first;
} gpu_sources[] = {
	{ SOURCE_NVML, GPU_NVIDIA, F_NVML },
	{ SOURCE_ROCM, GPU_AMD, F_ROCM },
};

#define GPU_SOURCES_NR (sizeof(gpu_sources) / sizeof(*gpu_sources))

/* The benchmark's processes whose GPU memory is counted, at most. */
#define TREE_MAX 256

enum state {
	IDLE,
	RUNNING,
	STOPPING,
	QUIT
};

/* Jiffies of /proc/stat's "cpu" line: all CPUs together. */
struct cpu_times {
	unsigned long long busy, total;
};

/* What one run accumulates of one GPU source. */
struct gpu_run {
	size_t gpus_nr; /* visible; indices in gpu_source.selected */
	double util_sum, util_peak;
	size_t util_nr;
	double memory_peak;	   /* of the process tree; NAN until read */
	double device_memory_peak; /* NAN until every GPU answered */
	double power_last, power_peak, power_joules;
	bool power_ok;	/* every reading had every GPU's */
	bool energy_ok; /* ... energy counter */
	double energy_joules;
};

/* What one run accumulates; written by one thread at a time (the caller
 * outside start..stop, the sampling thread inside), handed over through
 * the lock. */
struct run {
	unsigned sources;
	struct gpu_visible visible;
	const char *workdir;
	double start, last;
	/* system */
	struct cpu_times first_cpu, last_cpu;
	double cpu_peak; /* NAN until an interval has ticks */
	double load_sum;
	size_t load_nr;
	double disk_min; /* NAN until statvfs answered */
	int disk_errno;
	bool stat_failed, load_failed;
	/* rapl */
	double rapl_joules;
	bool rapl_failed;
	int rapl_errno;
	struct gpu_run gpu[GPU_SOURCES_NR];
};

/* One vendor's GPUs, opened when a suite samples them. */
struct gpu_source {
	struct gpus *gpus; /* NULL: not here (see why) */
	struct strbuf why;
	size_t *selected;      /* this run's visible GPUs */
	uint64_t *energy_last; /* per GPU, millijoules */
};

struct sampler {
	unsigned opened; /* sources that work here */
	double interval_s;
	/* why a field cannot work here at all; NULL when it can */
	const char *unavailable[F_NR];
	struct strbuf rapl_why, system_why;

	struct gpu_source gpu[GPU_SOURCES_NR];
	pid_t tree[TREE_MAX]; /* the benchmark's processes, last read */
	struct rapl *rapl;
	struct perfevent *perf;
	char *stat_path, *loadavg_path;

	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* to the thread: state changed */
	pthread_cond_t idle; /* from the thread: state is IDLE */
	enum state state;

	struct run run;
	double values[F_NR];
	const char *why[F_NR]; /* NULL when values[] holds it */
	char why_text[F_NR][200];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- system: /proc/stat, /proc/loadavg, statvfs --- */

static int read_cpu_times(const char *path, struct cpu_times *out)
{
	unsigned long long v[8] = { 0 };
	char text[512];

	/* the first line is the sum over CPUs; guest time is already in
	 * user and nice, so it is not added again */
	if (sysfs_read_text(path, text, sizeof(text)) < 0)
		return -1;
	if (strncmp(text, "cpu ", 4) ||
	    sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4) {
		errno = EINVAL;
		return -1;
	}
	out->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	out->total = out->busy + v[3] + v[4];
	return 0;
}

/* Percent busy from a to b; NAN when no tick passed. */
static double cpu_percent(const struct cpu_times *a, const struct cpu_times *b)
{
	if (b->total <= a->total || b->busy < a->busy)
		return NAN;
	return 100.0 * (double)(b->busy - a->busy) /
	       (double)(b->total - a->total);
}

static int read_load(const char *path, double *out)
{
	char text[128];
	char *end;

	if (sysfs_read_text(path, text, sizeof(text)) < 0)
		return -1;
	*out = strtod(text, &end);
	if (end == text) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static void sample_system(struct sampler *sampler, struct run *run)
{
	struct cpu_times cpu;
	struct statvfs fs;
	double load, percent;

	if (read_cpu_times(sampler->stat_path, &cpu) < 0) {
		run->stat_failed = true;
	} else {
		percent = cpu_percent(&run->last_cpu, &cpu);
		if (!isnan(percent)) {
			if (isnan(run->cpu_peak) || percent > run->cpu_peak)
				run->cpu_peak = percent;
			run->last_cpu = cpu;
		}
	}
	if (read_load(sampler->loadavg_path, &load) < 0) {
		run->load_failed = true;
	} else {
		run->load_sum += load;
		run->load_nr++;
	}
	if (statvfs(run->workdir ? run->workdir : ".", &fs) < 0) {
		run->disk_errno = errno;
	} else {
		double free_bytes = (double)fs.f_bavail * (double)fs.f_frsize;

		if (isnan(run->disk_min) || free_bytes < run->disk_min)
			run->disk_min = free_bytes;
	}
}

/* --- GPUs: nvml, rocm --- */

/* Reads every visible GPU of source g; `first` only sets the starting
 * points. `tree` is the benchmark's processes. */
static void sample_gpu(struct sampler *sampler, size_t g, struct run *run,
		       double now, bool first, const pid_t *tree,
		       size_t tree_nr)
{
	struct gpu_source *source = &sampler->gpu[g];
	struct gpu_run *gr = &run->gpu[g];
	double power = 0, memory = 0;
	bool all_power = true, all_memory = true;
	uint64_t process_bytes;

	for (size_t i = 0; i < gr->gpus_nr; i++) {
		size_t gpu = source->selected[i];
		struct gpu_reading reading;

		gpus_read(source->gpus, gpu, &reading);
		if (!reading.has_energy) {
			gr->energy_ok = false;
		} else if (!first) {
			/* the counter only grows while the driver stays */
			if (reading.energy_mj >= source->energy_last[gpu])
				gr->energy_joules +=
					(double)(reading.energy_mj -
						 source->energy_last[gpu]) /
					1e3;
			else
				gr->energy_ok = false;
		}
		if (reading.has_energy)
			source->energy_last[gpu] = reading.energy_mj;
		if (reading.has_power)
			power += reading.power_w;
		all_power &= reading.has_power;
		if (reading.has_memory)
			memory += (double)reading.memory_used;
		all_memory &= reading.has_memory;
		/* utilisation at the start describes the time before it */
		if (!first && reading.has_utilization) {
			gr->util_sum += reading.utilization;
			gr->util_nr++;
			if (reading.utilization > gr->util_peak)
				gr->util_peak = reading.utilization;
		}
	}
	if (!gr->gpus_nr)
		return;
	if (all_memory && !first &&
	    (isnan(gr->device_memory_peak) || memory > gr->device_memory_peak))
		gr->device_memory_peak = memory;
	if (!first &&
	    gpus_process_memory(source->gpus, source->selected, gr->gpus_nr,
				tree, tree_nr, &process_bytes) &&
	    (isnan(gr->memory_peak) ||
	     (double)process_bytes > gr->memory_peak))
		gr->memory_peak = (double)process_bytes;
	if (!all_power) {
		gr->power_ok = false;
		return;
	}
	if (!first) {
		gr->power_joules +=
			(gr->power_last + power) / 2 * (now - run->last);
		if (power > gr->power_peak)
			gr->power_peak = power;
	}
	gr->power_last = power;
}

/* Samples every GPU source of the run, with the process tree read once. */
static void sample_gpus(struct sampler *sampler, struct run *run, double now,
			bool first)
{
	size_t tree_nr = 0;
	bool any = false;

	for (size_t g = 0; g < GPU_SOURCES_NR; g++)
		any |= (run->sources &
			SAMPLER_SOURCE(gpu_sources[g].source)) != 0;
	if (!any)
		return;
	/* benchgate's descendants are the benchmark, its launcher and the
	 * guardian: only the benchmark's hold GPU memory */
	if (!first)
		tree_nr = proctree_descendants(getpid(), sampler->tree,
					       TREE_MAX);
	for (size_t g = 0; g < GPU_SOURCES_NR; g++)
		if (run->sources & SAMPLER_SOURCE(gpu_sources[g].source))
			sample_gpu(sampler, g, run, now, first, sampler->tree,
				   tree_nr);
}

/* --- one reading of everything, by the thread or at stop --- */

static void sample(struct sampler *sampler, struct run *run)
{
	double now = now_s();

	if (run->sources & SAMPLER_SOURCE(SOURCE_SYSTEM))
		sample_system(sampler, run);
	if ((run->sources & SAMPLER_SOURCE(SOURCE_RAPL)) && !run->rapl_failed &&
	    rapl_advance(sampler->rapl, &run->rapl_joules) < 0) {
		run->rapl_failed = true;
		run->rapl_errno = errno;
	}
	sample_gpus(sampler, run, now, false);
	run->last = now;
}

static void *sampling_thread(void *payload)
{
	struct sampler *sampler = payload;
	struct timespec next;

	pthread_mutex_lock(&sampler->lock);
	for (;;) {
		double at;

		while (sampler->state == IDLE)
			pthread_cond_wait(&sampler->wake, &sampler->lock);
		if (sampler->state == QUIT)
			break;
		if (sampler->state == STOPPING) {
			sampler->state = IDLE;
			pthread_cond_broadcast(&sampler->idle);
			continue;
		}
		at = sampler->run.last + sampler->interval_s;
		next.tv_sec = (time_t)at;
		next.tv_nsec = (long)((at - (double)next.tv_sec) * 1e9);
		if (pthread_cond_timedwait(&sampler->wake, &sampler->lock,
					   &next) != ETIMEDOUT ||
		    sampler->state != RUNNING)
			continue;
		/* the run is ours until stop: read without the lock */
		pthread_mutex_unlock(&sampler->lock);
		sample(sampler, &sampler->run);
		pthread_mutex_lock(&sampler->lock);
	}
	pthread_mutex_unlock(&sampler->lock);
	return NULL;
}

/* --- opening --- */

static void set_unavailable(struct sampler *sampler, enum metric_source source,
			    const char *why)
{
	for (int f = 0; f < F_NR; f++)
		if (fields[f].source == source)
			sampler->unavailable[f] = why;
	sampler->opened &= ~SAMPLER_SOURCE(source);
}

static void open_system(struct sampler *sampler)
{
	struct strbuf path = STRBUF_INIT;
	struct cpu_times cpu;
	double load;

	procfs_path(&path, "stat");
	sampler->stat_path = strbuf_detach(&path, NULL);
	procfs_path(&path, "loadavg");
	sampler->loadavg_path = strbuf_detach(&path, NULL);
	if (read_cpu_times(sampler->stat_path, &cpu) < 0) {
		strbuf_addf(&sampler->system_why,
			    "cannot read the CPU times "
			    "in '%s': %s",
			    sampler->stat_path, strerror(errno));
		sampler->unavailable[F_CPU_UTIL_MEAN] = sampler->system_why.buf;
		sampler->unavailable[F_CPU_UTIL_PEAK] = sampler->system_why.buf;
	}
	if (read_load(sampler->loadavg_path, &load) < 0)
		sampler->unavailable[F_LOAD] = "cannot read the load average";
}

static void open_gpus(struct sampler *sampler, size_t g)
{
	struct gpu_source *source = &sampler->gpu[g];
	size_t nr;

	if (gpus_open(&source->gpus, gpu_sources[g].vendor, &source->why) <
	    0) {
		set_unavailable(sampler, gpu_sources[g].source,
				source->why.buf);
		return;
	}
	nr = gpus_count(source->gpus);
	source->selected = xcalloc(nr + 1, sizeof(*source->selected));
	source->energy_last = xcalloc(nr + 1, sizeof(*source->energy_last));
}

static void open_perf(struct sampler *sampler)
{
	static const enum field perf_fields[PERFEVENT_NR] = {
		[PERFEVENT_INSTRUCTIONS] = F_INSTRUCTIONS,
		[PERFEVENT_CYCLES] = F_CYCLES,
		[PERFEVENT_TASK_CLOCK] = F_TASK_CLOCK,
	};
	bool any = false;

	perfevent_open(&sampler->perf, (1u << PERFEVENT_NR) - 1);
	for (int c = 0; c < PERFEVENT_NR; c++) {
		const char *why =
			perfevent_why(sampler->perf, (enum perfevent_counter)c);

		sampler->unavailable[perf_fields[c]] = why;
		any |= !why;
	}
	if (!any)
		sampler->opened &= ~SAMPLER_SOURCE(SOURCE_PERF);
}

int sampler_new(struct sampler **out, unsigned sources, double interval_s)
{
	struct sampler *sampler = xcalloc(1, sizeof(*sampler));
	pthread_condattr_t attr;
	int rc;

	*out = NULL;
	sampler->opened = sources & SAMPLER_SOURCES;
	sampler->interval_s = interval_s > 0 ? interval_s
					     : SAMPLER_INTERVAL_DEFAULT;
	for (size_t g = 0; g < GPU_SOURCES_NR; g++)
		strbuf_init(&sampler->gpu[g].why, 0);
	strbuf_init(&sampler->rapl_why, 0);
	strbuf_init(&sampler->system_why, 0);
	for (int f = 0; f < F_NR; f++)
		if (!(sampler->opened & SAMPLER_SOURCE(fields[f].source)))
			sampler->unavailable[f] = "not asked for";
	pthread_mutex_init(&sampler->lock, NULL);
	pthread_condattr_init(&attr);
	/* the deadlines are CLOCK_MONOTONIC, like every time here */
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&sampler->wake, &attr);
	pthread_cond_init(&sampler->idle, &attr);
	pthread_condattr_destroy(&attr);

	if (sampler->opened & SAMPLER_SOURCE(SOURCE_SYSTEM))
		open_system(sampler);
	if ((sampler->opened & SAMPLER_SOURCE(SOURCE_RAPL)) &&
	    rapl_open(&sampler->rapl, &sampler->rapl_why) < 0)
		set_unavailable(sampler, SOURCE_RAPL, sampler->rapl_why.buf);
	for (size_t g = 0; g < GPU_SOURCES_NR; g++)
		if (sampler->opened & SAMPLER_SOURCE(gpu_sources[g].source))
			open_gpus(sampler, g);
	if (sampler->opened & ~SAMPLER_SOURCE(SOURCE_PERF)) {
		rc = pthread_create(&sampler->thread, NULL, sampling_thread,
				    sampler);
		if (rc) {
			sampler_free(sampler);
			return bg_error("cannot start the sampling thread: %s",
					strerror(rc));
		}
		sampler->thread_started = true;
	}
	/* each run's counters are opened by sampler_start(), when the
	 * thread is up already and so cannot inherit them */
	if (sampler->opened & SAMPLER_SOURCE(SOURCE_PERF))
		open_perf(sampler);
	for (int f = 0; f < F_NR; f++)
		sampler->why[f] = sampler->unavailable[f]
					  ? sampler->unavailable[f]
					  : "no run was sampled";
	*out = sampler;
	return BG_OK;
}

void sampler_free(struct sampler *sampler)
{
	if (!sampler)
		return;
	if (sampler->thread_started) {
		pthread_mutex_lock(&sampler->lock);
		sampler->state = QUIT;
		pthread_cond_signal(&sampler->wake);
		pthread_mutex_unlock(&sampler->lock);
		pthread_join(sampler->thread, NULL);
	}
	pthread_cond_destroy(&sampler->wake);
	pthread_cond_destroy(&sampler->idle);
	pthread_mutex_destroy(&sampler->lock);
	perfevent_close(sampler->perf);
	rapl_close(sampler->rapl);
	for (size_t g = 0; g < GPU_SOURCES_NR; g++) {
		gpus_close(sampler->gpu[g].gpus);
		free(sampler->gpu[g].selected);
		free(sampler->gpu[g].energy_last);
		strbuf_release(&sampler->gpu[g].why);
	}
	free(sampler->stat_path);
	free(sampler->loadavg_path);
	strbuf_release(&sampler->rapl_why);
	strbuf_release(&sampler->system_why);
	free(sampler);
}

/* --- one run --- */

void sampler_start(struct sampler *sampler, unsigned sources,
		   const struct gpu_visible *visible, const char *workdir)
{
	struct run *run = &sampler->run;

	memset(run, 0, sizeof(*run));
	run->sources = sources & sampler->opened;
	if (visible)
		run->visible = *visible;
	run->workdir = workdir;
	run->cpu_peak = NAN;
	run->disk_min = NAN;
	for (size_t g = 0; g < GPU_SOURCES_NR; g++) {
		run->gpu[g].memory_peak = NAN;
		run->gpu[g].device_memory_peak = NAN;
		run->gpu[g].power_ok = true;
		run->gpu[g].energy_ok = true;
	}
	run->start = run->last = now_s();
	if (run->sources & SAMPLER_SOURCE(SOURCE_SYSTEM)) {
		if (read_cpu_times(sampler->stat_path, &run->first_cpu) < 0)
			run->stat_failed = true;
		run->last_cpu = run->first_cpu;
		sample_system(sampler, run);
	}
	if ((run->sources & SAMPLER_SOURCE(SOURCE_RAPL)) &&
	    rapl_begin(sampler->rapl) < 0) {
		run->rapl_failed = true;
		run->rapl_errno = errno;
	}
	for (size_t g = 0; g < GPU_SOURCES_NR; g++) {
		struct gpu_source *source = &sampler->gpu[g];

		if (!(run->sources & SAMPLER_SOURCE(gpu_sources[g].source)))
			continue;
		run->gpu[g].gpus_nr = gpus_select_visible(
			source->gpus, &run->visible, source->selected,
			gpus_count(source->gpus));
	}
	sample_gpus(sampler, run, run->start, true);
	/* last: the counters are the calling thread's until the child */
	if (run->sources & SAMPLER_SOURCE(SOURCE_PERF))
		perfevent_start(sampler->perf);
	if (!sampler->thread_started ||
	    !(run->sources & ~SAMPLER_SOURCE(SOURCE_PERF)))
		return;
	pthread_mutex_lock(&sampler->lock);
	sampler->state = RUNNING;
	pthread_cond_signal(&sampler->wake);
	pthread_mutex_unlock(&sampler->lock);
}

static void set_value(struct sampler *sampler, enum field field, double value)
{
	sampler->values[field] = value;
	sampler->why[field] = NULL;
}

static void set_why(struct sampler *sampler, enum field field, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));

static void set_why(struct sampler *sampler, enum field field, const char *fmt,
		    ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sampler->why_text[field], sizeof(sampler->why_text[field]),
		  fmt, ap);
	va_end(ap);
	sampler->why[field] = sampler->why_text[field];
}

static void finish_system(struct sampler *sampler, const struct run *run)
{
	double mean = cpu_percent(&run->first_cpu, &run->last_cpu);

	if (run->stat_failed) {
		set_why(sampler, F_CPU_UTIL_MEAN,
			"'%s' could not be read "
			"during the run",
			sampler->stat_path);
		sampler->why[F_CPU_UTIL_PEAK] = sampler->why[F_CPU_UTIL_MEAN];
	} else if (isnan(mean)) {
		set_why(sampler, F_CPU_UTIL_MEAN,
			"the run was shorter than "
			"one clock tick of '%s'",
			sampler->stat_path);
		sampler->why[F_CPU_UTIL_PEAK] = sampler->why[F_CPU_UTIL_MEAN];
	} else {
		set_value(sampler, F_CPU_UTIL_MEAN, mean);
		set_value(sampler, F_CPU_UTIL_PEAK,
			  isnan(run->cpu_peak) ? mean : run->cpu_peak);
	}
	if (run->load_failed || !run->load_nr)
		set_why(sampler, F_LOAD,
			"'%s' could not be read during the "
			"run",
			sampler->loadavg_path);
	else
		set_value(sampler, F_LOAD,
			  run->load_sum / (double)run->load_nr);
	if (isnan(run->disk_min))
		set_why(sampler, F_DISK_FREE,
			"cannot measure the free space "
			"of '%s': %s",
			run->workdir ? run->workdir : ".",
			strerror(run->disk_errno));
	else
		set_value(sampler, F_DISK_FREE, run->disk_min);
}

static void finish_rapl(struct sampler *sampler, const struct run *run,
			double seconds)
{
	if (run->rapl_failed) {
		set_why(sampler, F_RAPL_ENERGY,
			"a RAPL counter could not be "
			"read during the run: %s",
			strerror(run->rapl_errno));
		sampler->why[F_RAPL_POWER_MEAN] = sampler->why[F_RAPL_ENERGY];
		return;
	}
	set_value(sampler, F_RAPL_ENERGY, run->rapl_joules);
	set_value(sampler, F_RAPL_POWER_MEAN,
		  seconds > 0 ? run->rapl_joules / seconds : 0);
}

static const char *gpu_reason(const struct sampler *sampler, size_t g,
			      const char *quantity)
{
	const char *why = gpus_why(sampler->gpu[g].gpus, quantity);

	return why ? why : "no reading";
}

/* Why no GPU of source g was watched in this run. */
static void explain_no_gpu(struct sampler *sampler, size_t g,
			   const struct run *run)
{
	enum gpu_vendor vendor = gpu_sources[g].vendor;
	enum field first = gpu_sources[g].first;
	const struct gpu_visible *visible = &run->visible;
	size_t nr = gpus_count(sampler->gpu[g].gpus);

	if (!nr)
		set_why(sampler, first + GF_ENERGY, "%s sees no GPU",
			gpus_library_name(vendor));
	else if (vendor == GPU_AMD)
		set_why(sampler, first + GF_ENERGY,
			"ROCR_VISIBLE_DEVICES='%.30s', "
			"HIP_VISIBLE_DEVICES='%.30s' hide all %zu GPUs",
			visible->rocr ? visible->rocr : "",
			visible->hip	? visible->hip
			: visible->cuda ? visible->cuda
					: "",
			nr);
	else
		set_why(sampler, first + GF_ENERGY,
			"CUDA_VISIBLE_DEVICES='%.40s' hides all %zu GPUs",
			visible->cuda ? visible->cuda : "", nr);
	for (int f = first; f < (int)first + GF_NR; f++)
		sampler->why[f] = sampler->why[first + GF_ENERGY];
}

static void finish_gpu(struct sampler *sampler, size_t g,
		       const struct run *run, double seconds)
{
	const struct gpu_run *gr = &run->gpu[g];
	enum field first = gpu_sources[g].first;
	double joules = NAN;

	if (!gr->gpus_nr) {
		explain_no_gpu(sampler, g, run);
		return;
	}
	if (gr->util_nr) {
		set_value(sampler, first + GF_UTIL_MEAN,
			  gr->util_sum / (double)gr->util_nr);
		set_value(sampler, first + GF_UTIL_PEAK, gr->util_peak);
	} else {
		set_why(sampler, first + GF_UTIL_MEAN, "GPU utilisation: %s",
			gpu_reason(sampler, g, "utilization"));
		sampler->why[first + GF_UTIL_PEAK] =
			sampler->why[first + GF_UTIL_MEAN];
	}
	if (!isnan(gr->memory_peak))
		set_value(sampler, first + GF_MEMORY_PEAK, gr->memory_peak);
	else
		set_why(sampler, first + GF_MEMORY_PEAK,
			"GPU memory of the benchmark's processes: %s",
			gpu_reason(sampler, g, "process_memory"));
	if (!isnan(gr->device_memory_peak))
		set_value(sampler, first + GF_DEVICE_MEMORY_PEAK,
			  gr->device_memory_peak);
	else
		set_why(sampler, first + GF_DEVICE_MEMORY_PEAK,
			"GPU memory used: %s",
			gpu_reason(sampler, g, "memory"));
	if (gr->power_ok)
		set_value(sampler, first + GF_POWER_PEAK, gr->power_peak);
	else
		set_why(sampler, first + GF_POWER_PEAK, "GPU power: %s",
			gpu_reason(sampler, g, "power"));
	/* the counter where every GPU has one; else power over time */
	if (gr->energy_ok)
		joules = gr->energy_joules;
	else if (gr->power_ok)
		joules = gr->power_joules;
	if (isnan(joules)) {
		set_why(sampler, first + GF_ENERGY,
			"GPU energy: no energy counter "
			"(%s) and no power readings (%s)",
			gpu_reason(sampler, g, "energy"),
			gpu_reason(sampler, g, "power"));
		sampler->why[first + GF_POWER_MEAN] =
			sampler->why[first + GF_ENERGY];
		return;
	}
	set_value(sampler, first + GF_ENERGY, joules);
	set_value(sampler, first + GF_POWER_MEAN,
		  seconds > 0 ? joules / seconds : 0);
}

static void finish_perf(struct sampler *sampler)
{
	static const struct {
		enum perfevent_counter counter;
		enum field field;
		double scale;
	} outputs[] = {
		{ PERFEVENT_INSTRUCTIONS, F_INSTRUCTIONS, 1 },
		{ PERFEVENT_CYCLES, F_CYCLES, 1 },
		{ PERFEVENT_TASK_CLOCK, F_TASK_CLOCK, 1e-9 },
	};
	double counts[PERFEVENT_NR];

	perfevent_stop(sampler->perf, counts);
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++) {
		enum field field = outputs[i].field;

		if (sampler->unavailable[field])
			continue;
		if (isnan(counts[outputs[i].counter]))
			set_why(sampler, field,
				"perf_event_open failed at "
				"the start of this run");
		else
			set_value(sampler, field,
				  counts[outputs[i].counter] *
					  outputs[i].scale);
	}
}

void sampler_stop(struct sampler *sampler)
{
	struct run *run = &sampler->run;
	double seconds;

	/* the child is reaped: its counts are in, read them first */
	if (run->sources & SAMPLER_SOURCE(SOURCE_PERF))
		finish_perf(sampler);
	if (sampler->thread_started &&
	    (run->sources & ~SAMPLER_SOURCE(SOURCE_PERF))) {
		pthread_mutex_lock(&sampler->lock);
		sampler->state = STOPPING;
		pthread_cond_signal(&sampler->wake);
		while (sampler->state != IDLE)
			pthread_cond_wait(&sampler->idle, &sampler->lock);
		pthread_mutex_unlock(&sampler->lock);
	}
	sample(sampler, run);
	seconds = run->last - run->start;
	for (int f = 0; f < F_NR; f++)
		if (!(run->sources & SAMPLER_SOURCE(fields[f].source)))
			sampler->why[f] = sampler->unavailable[f]
						  ? sampler->unavailable[f]
						  : "not sampled in this run";
	if (run->sources & SAMPLER_SOURCE(SOURCE_SYSTEM))
		finish_system(sampler, run);
	if (run->sources & SAMPLER_SOURCE(SOURCE_RAPL))
		finish_rapl(sampler, run, seconds);
	for (size_t g = 0; g < GPU_SOURCES_NR; g++)
		if (run->sources & SAMPLER_SOURCE(gpu_sources[g].source))
			finish_gpu(sampler, g, run, seconds);
	/* a field that never works here keeps saying why */
	for (int f = 0; f < F_NR; f++)
		if (sampler->unavailable[f])
			sampler->why[f] = sampler->unavailable[f];
}

int sampler_value(const struct sampler *sampler, enum metric_source source,
		  const char *field, double *value, const char **why)
{
	for (int f = 0; f < F_NR; f++) {
		if (fields[f].source != source || strcmp(fields[f].name, field))
			continue;
		if (sampler->why[f]) {
			*why = sampler->why[f];
			return BG_ENOTFOUND;
		}
		*value = sampler->values[f];
		return BG_OK;
	}
	*why = "no such field";
	return BG_ENOTFOUND;
}

void sampler_describe(const struct sampler *sampler, struct strbuf *out)
{
	for (size_t s = 0;
	     s < sizeof(sources_in_order) / sizeof(*sources_in_order); s++) {
		enum metric_source source = sources_in_order[s];
		const char *reasons[F_NR];
		size_t reasons_nr = 0, shown = 0;
		int f;

		strbuf_addf(out, "  %-7s", metric_source_name(source));
		for (f = 0; f < F_NR; f++) {
			if (fields[f].source != source)
				continue;
			if (sampler->unavailable[f]) {
				size_t r = 0;

				while (r < reasons_nr &&
				       strcmp(reasons[r],
					      sampler->unavailable[f]))
					r++;
				if (r == reasons_nr)
					reasons[reasons_nr++] =
						sampler->unavailable[f];
				continue;
			}
			strbuf_addf(out, "%s%s", shown++ ? ", " : " ",
				    fields[f].name);
		}
		/* each reason once, with the fields it keeps out */
		for (size_t r = 0; r < reasons_nr; r++) {
			size_t listed = 0;

			strbuf_addstr(out, shown || r ? "; not here ("
						      : " none here (");
			for (f = 0; f < F_NR; f++)
				if (fields[f].source == source &&
				    sampler->unavailable[f] &&
				    !strcmp(sampler->unavailable[f],
					    reasons[r]))
					strbuf_addf(out, "%s%s",
						    listed++ ? ", " : "",
						    fields[f].name);
			strbuf_addf(out, "): %s", reasons[r]);
		}
		strbuf_addch(out, '\n');
	}
}
