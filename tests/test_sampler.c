/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sampler and its sources, without the hardware: /proc/stat and RAPL
 * counters from trees written under a temporary root (BENCHGATE_PROCFS_ROOT,
 * BENCHGATE_SYSFS_ROOT), GPUs from the fake NVML (tests/fakenvml), and the
 * perf counters for real, or the reason they cannot count here.
 */
#include "harness/model/result.h"
#include "harness/util/error.h"
#include "harness/probe/perfevent.h"
#include "harness/util/process.h"
#include "harness/probe/rapl.h"
#include "harness/probe/sampler.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKLOAD(name) TEST_WORKLOAD_DIR "/" name
#define FIXTURE_SYS    TEST_FIXTURE_DIR "/sysfs/sys"

/* A sampler that never wakes between start and stop: the values then come
 * from the first and last readings only, which the tests control. */
#define NO_INTERIM_SAMPLES 60.0

static char *dir;
static struct sampler *sampler;

static void setup(void)
{
	dir = test_tmpdir();
	setenv("BENCHGATE_PROCFS_ROOT", dir, 1);
	setenv("BENCHGATE_SYSFS_ROOT", dir, 1);
	unsetenv("CUDA_VISIBLE_DEVICES");
}

static void teardown(void)
{
	sampler_free(sampler);
	test_rmtree(dir);
	free(dir);
}

TestSuite(sampler, .init = setup, .fini = teardown);

static void put(const char *name, const char *text)
{
	free(test_write_file(dir, name, text));
}

static double value(enum metric_source source, const char *field)
{
	const char *why = NULL;
	double v = NAN;

	cr_assert_eq(sampler_value(sampler, source, field, &v, &why), BG_OK,
		     "%s %s: %s", metric_source_name(source), field, why);
	return v;
}

static const char *why(enum metric_source source, const char *field)
{
	const char *reason = NULL;
	double v;

	cr_assert_eq(sampler_value(sampler, source, field, &v, &reason),
		     BG_ENOTFOUND, "%s %s has a value: %g",
		     metric_source_name(source), field, v);
	cr_assert_not_null(reason);
	return reason;
}

static void sleep_s(double seconds)
{
	struct timespec ts = { (time_t)seconds,
			       (long)((seconds - (time_t)seconds) * 1e9) };

	nanosleep(&ts, NULL);
}

/* --- system --- */

static void put_stat(unsigned long long busy, unsigned long long idle)
{
	char text[256];

	/* busy as user time; idle split into idle and iowait, which both
	 * count as not busy */
	snprintf(text, sizeof(text),
		 "cpu  %llu 0 0 %llu %llu 0 0 0 0 0\n"
		 "intr 0\n",
		 busy, idle - idle / 4, idle / 4);
	put("stat", text);
}

Test(sampler, cpu_utilization_is_the_proc_stat_difference)
{
	put_stat(1000, 9000);
	put("loadavg", "1.50 1.00 0.50 2/300 12345\n");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_SYSTEM),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	/* 300 of the next 1000 jiffies busy: 30 % */
	put_stat(1300, 9700);
	put("loadavg", "2.50 1.00 0.50 2/300 12345\n");
	sampler_stop(sampler);

	cr_assert_float_eq(value(SOURCE_SYSTEM, "cpu_utilization_mean"), 30.0,
			   1e-9);
	cr_assert_float_eq(value(SOURCE_SYSTEM, "cpu_utilization_peak"), 30.0,
			   1e-9);
	/* the mean of the readings at start and stop */
	cr_assert_float_eq(value(SOURCE_SYSTEM, "load"), 2.0, 1e-9);
	cr_assert_gt(value(SOURCE_SYSTEM, "disk_free"), 0);
	/* asked for system only: the others say so */
	cr_assert_str_eq(why(SOURCE_RAPL, "energy"), "not asked for");
}

Test(sampler, the_thread_finds_the_busiest_interval)
{
	put_stat(0, 10000);
	put("loadavg", "1.00 1.00 1.00 1/100 1\n");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_SYSTEM), 0.01),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	/* 90 % busy, long enough for several readings ... */
	put_stat(900, 10100);
	sleep_s(0.2);
	/* ... then idle */
	put_stat(900, 11100);
	sleep_s(0.05);
	sampler_stop(sampler);

	cr_assert_float_eq(value(SOURCE_SYSTEM, "cpu_utilization_mean"), 45.0,
			   1e-9);
	cr_assert_float_eq(value(SOURCE_SYSTEM, "cpu_utilization_peak"), 90.0,
			   1e-9);
}

Test(sampler, a_run_shorter_than_a_tick_has_no_cpu_utilization)
{
	put_stat(1000, 9000);
	put("loadavg", "1.00 1.00 1.00 1/100 1\n");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_SYSTEM),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	sampler_stop(sampler);

	cr_assert(strstr(why(SOURCE_SYSTEM, "cpu_utilization_mean"),
			 "shorter than one clock tick"));
	cr_assert_float_eq(value(SOURCE_SYSTEM, "load"), 1.0, 1e-9);
}

Test(sampler, disk_free_is_that_of_the_work_directory)
{
	struct statvfs fs;
	double expected, got;

	put_stat(1000, 9000);
	put("loadavg", "1.00 1.00 1.00 1/100 1\n");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_SYSTEM),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	sampler_stop(sampler);
	got = value(SOURCE_SYSTEM, "disk_free");
	cr_assert_eq(statvfs(dir, &fs), 0);
	expected = (double)fs.f_bavail * (double)fs.f_frsize;
	/* other tests write to the same disk meanwhile */
	cr_assert(fabs(got - expected) < 64.0 * 1024 * 1024, "%g vs %g", got,
		  expected);
}

Test(sampler, no_proc_stat_says_why)
{
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_SYSTEM),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	sampler_stop(sampler);
	cr_assert(strstr(why(SOURCE_SYSTEM, "cpu_utilization_peak"),
			 "cannot read the CPU times in"));
	cr_assert_str_eq(why(SOURCE_SYSTEM, "load"),
			 "cannot read the load average");
	/* statvfs does not depend on the procfs root */
	cr_assert_gt(value(SOURCE_SYSTEM, "disk_free"), 0);
	cr_assert_str_eq(why(SOURCE_SYSTEM, "no_such_field"), "no such field");
}

/* --- rapl --- */

static void put_zone(const char *zone, const char *name, const char *energy)
{
	char path[256];

	snprintf(path, sizeof(path), "class/powercap/%s/name", zone);
	put(path, name);
	snprintf(path, sizeof(path), "class/powercap/%s/energy_uj", zone);
	put(path, energy);
	snprintf(path, sizeof(path), "class/powercap/%s/max_energy_range_uj",
		 zone);
	put(path, "262143328850\n");
}

/* Which domains count is the next test's: its counters move. */
Test(sampler, rapl_reads_the_committed_fixture)
{
	struct strbuf reason = STRBUF_INIT;
	struct rapl *rapl = NULL;
	double joules = 0;

	setenv("BENCHGATE_SYSFS_ROOT", FIXTURE_SYS, 1);
	cr_assert_eq(rapl_open(&rapl, &reason), BG_OK, "%s", reason.buf);
	cr_assert_eq(rapl_begin(rapl), 0);
	cr_assert_eq(rapl_advance(rapl, &joules), 0);
	cr_assert_eq(joules, 0, "the fixture's counters stand still");
	rapl_close(rapl);
	strbuf_release(&reason);
}

Test(sampler, rapl_energy_is_the_packages_counters_difference)
{
	put_zone("intel-rapl:0", "package-0\n", "1000000\n");
	put_zone("intel-rapl:0:0", "core\n", "400000\n");
	/* 850 µJ below the top of its range: it wraps during the run */
	put_zone("intel-rapl:1", "package-1\n", "262143328000\n");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_RAPL),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	put("class/powercap/intel-rapl:0/energy_uj", "3500000\n");
	/* a part of package 0, already in its counter */
	put("class/powercap/intel-rapl:0:0/energy_uj", "99400000\n");
	put("class/powercap/intel-rapl:1/energy_uj", "1150\n");
	sleep_s(0.01);
	sampler_stop(sampler);

	/* 2.5 J on package 0, 850 + 1150 µJ across the wrap on package 1 */
	cr_assert_float_eq(value(SOURCE_RAPL, "energy"), 2.502, 1e-9);
	cr_assert_gt(value(SOURCE_RAPL, "power_mean"), 0);
}

Test(sampler, no_powercap_says_why)
{
	struct strbuf expected = STRBUF_INIT;

	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_RAPL),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	sampler_stop(sampler);
	strbuf_addf(&expected, "no '%s/class/powercap'", dir);
	cr_assert(strstr(why(SOURCE_RAPL, "energy"), expected.buf), "%s",
		  why(SOURCE_RAPL, "energy"));
	cr_assert_str_eq(why(SOURCE_RAPL, "power_mean"),
			 why(SOURCE_RAPL, "energy"));
	strbuf_release(&expected);
}

Test(sampler, powercap_without_packages_says_why)
{
	put_zone("intel-rapl-mmio:0", "package-0\n", "1\n");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_RAPL),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	sampler_stop(sampler);
	cr_assert(strstr(why(SOURCE_RAPL, "energy"),
			 "no RAPL package domain in"));
}

/* --- nvml, through the fake library --- */

static void use_fake_nvml(const char *script)
{
	char *path = test_write_file(dir, "nvml-script", script);

	setenv("BENCHGATE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
	setenv("FAKE_NVML_SCRIPT", path, 1);
	free(path);
}

static void run_nvml(const char *cuda_visible, double seconds)
{
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_NVML),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	struct gpu_visible visible = { .cuda = cuda_visible };

	sampler_start(sampler, SAMPLER_SOURCES, &visible, dir);
	sleep_s(seconds);
	sampler_stop(sampler);
}

#define GIB (1024.0 * 1024 * 1024)

Test(sampler, nvml_energy_counter_difference)
{
	/* 250 W, counter supported */
	use_fake_nvml("gpu GPU-aaaaaaaa-0000 40960 2048 75 250000 counter "
		      "Fake GPU A\n");
	run_nvml(NULL, 0.2);

	cr_assert_float_eq(value(SOURCE_NVML, "utilization_mean"), 75, 1e-9);
	cr_assert_float_eq(value(SOURCE_NVML, "utilization_peak"), 75, 1e-9);
	cr_assert_float_eq(value(SOURCE_NVML, "device_memory_peak"), 2 * GIB,
			   1);
	/* no process of this test holds memory there */
	cr_assert_float_eq(value(SOURCE_NVML, "memory_peak"), 0, 1e-9);
	cr_assert_float_eq(value(SOURCE_NVML, "power_peak"), 250, 1e-9);
	/* the counter grows at 250 W in the fake; the mean is energy over
	 * the sampler's own span of the run, a little longer than the
	 * counter's, so within a few percent */
	cr_assert(fabs(value(SOURCE_NVML, "power_mean") - 250) < 25, "%g",
		  value(SOURCE_NVML, "power_mean"));
	cr_assert_gt(value(SOURCE_NVML, "energy"), 0.2 * 250 * 0.8);
}

Test(sampler, nvml_without_energy_counter_integrates_power)
{
	use_fake_nvml("gpu GPU-aaaaaaaa-0000 40960 2048 75 100000 none "
		      "Fake GPU A\n");
	run_nvml(NULL, 0.1);

	/* constant power: the trapezoids are exact */
	cr_assert_float_eq(value(SOURCE_NVML, "power_mean"), 100, 1e-6);
	cr_assert_gt(value(SOURCE_NVML, "energy"), 0.1 * 100 * 0.99);
}

Test(sampler, nvml_without_counter_or_power_says_why)
{
	use_fake_nvml("gpu GPU-aaaaaaaa-0000 40960 2048 75 - none "
		      "Fake GPU A\n");
	run_nvml(NULL, 0);

	cr_assert_str_eq(why(SOURCE_NVML, "energy"),
			 "GPU energy: no energy counter (NVML: Not Supported) "
			 "and no power readings (NVML: Not Supported)");
	cr_assert_str_eq(why(SOURCE_NVML, "power_peak"),
			 "GPU power: NVML: Not Supported");
	/* the rest still works */
	cr_assert_float_eq(value(SOURCE_NVML, "utilization_mean"), 75, 1e-9);
}

static const char *two_gpus =
	"driver 550.54.15\n"
	"gpu GPU-aaaaaaaa-0000 40960 1024 20 100000 counter Fake GPU A\n"
	"gpu GPU-bbbbbbbb-1111 81920 3072 80 300000 counter Fake GPU B\n";

Test(sampler, nvml_covers_only_the_visible_gpus)
{
	use_fake_nvml(two_gpus);
	run_nvml("1", 0);
	cr_assert_float_eq(value(SOURCE_NVML, "utilization_mean"), 80, 1e-9);
	cr_assert_float_eq(value(SOURCE_NVML, "device_memory_peak"), 3 * GIB,
			   1);
	cr_assert_float_eq(value(SOURCE_NVML, "power_peak"), 300, 1e-9);
}

Test(sampler, nvml_sums_and_averages_over_every_gpu_when_unset)
{
	use_fake_nvml(two_gpus);
	run_nvml(NULL, 0);
	cr_assert_float_eq(value(SOURCE_NVML, "utilization_mean"), 50, 1e-9);
	cr_assert_float_eq(value(SOURCE_NVML, "utilization_peak"), 80, 1e-9);
	cr_assert_float_eq(value(SOURCE_NVML, "device_memory_peak"), 4 * GIB,
			   1);
	cr_assert_float_eq(value(SOURCE_NVML, "power_peak"), 400, 1e-9);
}

/* A child of this process that sleeps, for a fake NVML to list as the
 * benchmark's process; the process tree read is then this machine's, not
 * the planted /proc. end_child() ends it. */
static pid_t benchmark_child(void)
{
	pid_t child = fork();

	cr_assert_geq(child, 0);
	if (!child) {
		sleep(5);
		_exit(0);
	}
	unsetenv("BENCHGATE_PROCFS_ROOT");
	return child;
}

static void end_child(pid_t child)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/*
 * memory_peak is the benchmark's own: NVML lists a child of this process
 * (the benchmark stands for one) and another process on GPU 0, and only
 * the child's memory counts; device_memory_peak keeps the whole device's.
 */
Test(sampler, nvml_memory_peak_counts_only_the_benchmarks_processes)
{
	char script[512];
	pid_t child = benchmark_child();

	snprintf(script, sizeof(script),
		 "gpu GPU-aaaaaaaa-0000 40960 6144 75 250000 counter A\n"
		 "gpu GPU-bbbbbbbb-1111 40960 1024 75 250000 counter B\n"
		 "process %d 0 1536\n"
		 "process %d 1 512\n"
		 "process 1 0 4096\n",
		 (int)child, (int)child);
	use_fake_nvml(script);
	run_nvml(NULL, 0.15);
	cr_assert_float_eq(value(SOURCE_NVML, "memory_peak"), 2 * GIB, 1, "%g",
			   value(SOURCE_NVML, "memory_peak"));
	cr_assert_float_eq(value(SOURCE_NVML, "device_memory_peak"), 7 * GIB,
			   1);
	sampler_free(sampler);
	sampler = NULL;
	/* GPU 1 hidden: the child's memory there is not counted */
	run_nvml("0", 0.15);
	cr_assert_float_eq(value(SOURCE_NVML, "memory_peak"), 1.5 * GIB, 1);
	end_child(child);
}

Test(sampler, nvml_memory_the_driver_cannot_attribute_says_why)
{
	char script[256];
	pid_t child = benchmark_child();

	snprintf(script, sizeof(script),
		 "gpu GPU-aaaaaaaa-0000 40960 6144 75 250000 counter A\n"
		 "process %d 0 -\n",
		 (int)child);
	use_fake_nvml(script);
	run_nvml(NULL, 0.15);
	cr_assert_str_eq(why(SOURCE_NVML, "memory_peak"),
			 "GPU memory of the benchmark's processes: NVML: Not "
			 "Supported");
	end_child(child);
}

Test(sampler, nvml_with_every_gpu_hidden_says_why)
{
	use_fake_nvml(two_gpus);
	run_nvml("5", 0);
	cr_assert_str_eq(why(SOURCE_NVML, "utilization_mean"),
			 "CUDA_VISIBLE_DEVICES='5' hides all 2 GPUs");
}

Test(sampler, nvml_library_missing_says_why)
{
	char *missing = test_write_file(dir, "empty", "");

	/* a file that is not a shared library, and one that is not there */
	setenv("BENCHGATE_NVML_LIBRARY", missing, 1);
	run_nvml(NULL, 0);
	cr_assert(strstr(why(SOURCE_NVML, "energy"), "cannot load '"));
	sampler_free(sampler);
	sampler = NULL;
	setenv("BENCHGATE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	run_nvml(NULL, 0);
	cr_assert(strstr(why(SOURCE_NVML, "energy"),
			 "cannot load '/nonexistent/libnvidia-ml.so.1'"));
	free(missing);
}

Test(sampler, nvml_init_failing_says_why)
{
	use_fake_nvml("init 9\n");
	run_nvml(NULL, 0);
	cr_assert_str_eq(why(SOURCE_NVML, "memory_peak"),
			 "nvmlInit_v2() failed: Driver Not Loaded (NVML error "
			 "9)");
}

/* --- perf --- */

/*
 * Real counters where this kernel lets us count; otherwise the reason,
 * and the rest of the run unharmed. The reference for task_clock is the
 * child's rusage: both count the CPU time of the same process.
 */
Test(sampler, perf_counts_the_child_or_says_why)
{
	const char *argv[] = { WORKLOAD("spin"), "--ms", "100", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	const char *reason = NULL;
	double v;

	unsetenv("BENCHGATE_PROCFS_ROOT");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_PERF),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	process_outcome_init(&outcome);
	options.argv = argv;
	sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
	cr_assert_eq(process_run(&outcome, &options), BG_OK);
	sampler_stop(sampler);
	cr_assert_not(process_outcome_failed(&outcome));

	if (sampler_value(sampler, SOURCE_PERF, "task_clock", &v, &reason) ==
	    BG_OK)
		cr_assert(fabs(v - outcome.utime_s - outcome.stime_s) <
				  0.5 * (outcome.utime_s + outcome.stime_s) +
					  0.02,
			  "task_clock %g s, rusage %g s", v,
			  outcome.utime_s + outcome.stime_s);
	else
		cr_assert(strstr(reason, "not permitted here") ||
				  strstr(reason, "not available here"),
			  "%s", reason);
	if (sampler_value(sampler, SOURCE_PERF, "instructions", &v, &reason) ==
	    BG_OK) {
		/* 100 ms of a spinning loop is many millions */
		cr_assert_gt(v, 1e6);
		cr_assert_gt(value(SOURCE_PERF, "cycles"), 1e6);
	} else {
		cr_assert(strstr(reason, "hardware counters are not available "
					 "here") ||
				  strstr(reason, "not permitted here"),
			  "%s", reason);
		cr_assert_str_eq(why(SOURCE_PERF, "cycles"), reason);
	}
	process_outcome_release(&outcome);
}

/* Every run counts, not only the first ones: a counter kept open across
 * runs stopped counting after two children on Linux 6.18. */
Test(sampler, perf_counts_every_run)
{
	const char *argv[] = { WORKLOAD("spin"), "--ms", "30", NULL };
	struct process_options options = PROCESS_OPTIONS_INIT;
	struct process_outcome outcome;
	const char *reason = NULL;
	double v;

	unsetenv("BENCHGATE_PROCFS_ROOT");
	cr_assert_eq(sampler_new(&sampler, SAMPLER_SOURCE(SOURCE_PERF),
				 NO_INTERIM_SAMPLES),
		     BG_OK);
	process_outcome_init(&outcome);
	options.argv = argv;
	for (int run = 0; run < 5; run++) {
		sampler_start(sampler, SAMPLER_SOURCES, NULL, dir);
		cr_assert_eq(process_run(&outcome, &options), BG_OK);
		sampler_stop(sampler);
		if (sampler_value(sampler, SOURCE_PERF, "task_clock", &v,
				  &reason) < 0) {
			cr_assert(strstr(reason, "here"), "%s", reason);
			break;
		}
		/* 30 ms of CPU time spun, and the program's start */
		cr_assert(v > 0.025 && v < 0.5, "run %d: %g s", run, v);
	}
	process_outcome_release(&outcome);
}

Test(sampler, perf_reasons_are_named_by_errno)
{
	struct perfevent *perf;
	const char *reason;

	perfevent_open(&perf, 1u << PERFEVENT_INSTRUCTIONS);
	reason = perfevent_why(perf, PERFEVENT_INSTRUCTIONS);
	if (reason)
		cr_assert(strstr(reason, "perf_event_open") &&
				  (strstr(reason, "ENOENT") ||
				   strstr(reason, "EACCES") ||
				   strstr(reason, "EPERM") ||
				   strstr(reason, "EOPNOTSUPP") ||
				   strstr(reason, "ENODEV") ||
				   strstr(reason, "ENOSYS")),
			  "%s", reason);
	cr_assert_str_eq(perfevent_why(perf, PERFEVENT_CYCLES),
			 "not asked for");
	perfevent_close(perf);
}

/* --- a whole run --- */

static size_t count_lines(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * `benchgate run` with every sampled source on this machine: what works
 * lands in the result as ordinary metrics, one sample per measured run
 * (warmups are not sampled); what cannot work is said once per reason and
 * left out; the run passes either way.
 */
Test(sampler, a_run_records_sampled_metrics_and_warns_once_per_reason)
{
	const char *args[] = { "run",	 NULL, "--store", NULL,
			       "--json", NULL, NULL };
	const char *env[] = { "BENCHGATE_PROCFS_ROOT", NULL };
	struct strbuf suite_text = STRBUF_INIT, store = STRBUF_INIT;
	struct strbuf json = STRBUF_INIT;
	struct result *result = NULL;
	const struct result_case *rcase;
	const struct metric_samples *m;
	struct test_output out;
	char *suite;

	use_fake_nvml(two_gpus);
	strbuf_addf(&suite_text,
		    "{ \"benchgate\": 1, \"suite\": \"sampled\",\n"
		    "  \"defaults\": { \"warmup\": 1, \"runs\": 3 },\n"
		    "  \"benchmarks\": [ { \"name\": \"spin\",\n"
		    "    \"command\": [\"%s\", \"--ms\", \"40\"],\n"
		    "    \"metrics\": [\n"
		    "      { \"name\": \"latency\", \"from\": \"metrics\","
		    " \"key\": \"latency_ms\" },\n"
		    "      { \"name\": \"cpu_util\", \"from\": \"system\","
		    " \"field\": \"cpu_utilization_mean\" },\n"
		    "      { \"name\": \"load\", \"from\": \"system\","
		    " \"field\": \"load\" },\n"
		    "      { \"name\": \"disk_free\", \"from\": \"system\","
		    " \"field\": \"disk_free\" },\n"
		    "      { \"name\": \"instructions\", \"from\": \"perf\","
		    " \"field\": \"instructions\" },\n"
		    "      { \"name\": \"cycles\", \"from\": \"perf\","
		    " \"field\": \"cycles\" },\n"
		    "      { \"name\": \"cpu_time\", \"from\": \"perf\","
		    " \"field\": \"task_clock\" },\n"
		    "      { \"name\": \"cpu_energy\", \"from\": \"rapl\","
		    " \"field\": \"energy\" },\n"
		    "      { \"name\": \"gpu_util_mean\", \"from\": \"nvml\","
		    " \"field\": \"utilization_mean\" },\n"
		    "      { \"name\": \"gpu_mem_peak\", \"from\": \"nvml\","
		    " \"field\": \"device_memory_peak\" },\n"
		    "      { \"name\": \"gpu_energy\", \"from\": \"nvml\","
		    " \"field\": \"energy\" } ] } ] }\n",
		    WORKLOAD("spin"));
	suite = test_write_file(dir, "suite.json", suite_text.buf);
	strbuf_addf(&store, "%s/store", dir);
	strbuf_addf(&json, "%s/result.json", dir);
	args[1] = suite;
	args[3] = store.buf;
	args[5] = json.buf;
	/* an empty sysfs root: no powercap, whatever this machine has */
	test_benchgate(&out, NULL, env, args);

	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(result_load(&result, json.buf), BG_OK, "%s",
		     bg_error_last());
	rcase = &result->cases[0];
	cr_assert_eq(rcase->status, CASE_OK);
	m = result_case_find_metric(rcase, "latency");
	cr_assert(m && m->nr == 3);
	for (size_t i = 0; i < 3; i++) {
		/* the fake's GPUs: 20 % and 80 %, 1 + 3 GiB */
		m = result_case_find_metric(rcase, "gpu_util_mean");
		cr_assert(m && m->nr == 3 && m->samples[i] == 50);
		cr_assert_str_eq(m->unit, "%");
		m = result_case_find_metric(rcase, "gpu_mem_peak");
		cr_assert(m && m->samples[i] == 4 * GIB);
		m = result_case_find_metric(rcase, "gpu_energy");
		cr_assert(m && m->nr == 3 && m->samples[i] > 0);
		cr_assert_str_eq(m->unit, "J");
		m = result_case_find_metric(rcase, "load");
		cr_assert(m && m->nr == 3 && m->samples[i] >= 0);
		m = result_case_find_metric(rcase, "disk_free");
		cr_assert(m && m->nr == 3 && m->samples[i] > 0);
	}
	cr_assert_null(result_case_find_metric(rcase, "cpu_energy"));
	cr_assert_eq(count_lines(out.err.buf, "(source 'rapl') is left out"), 1,
		     "%s", out.err.buf);
	if (!result_case_find_metric(rcase, "instructions")) {
		/* instructions and cycles: one reason, said once */
		cr_assert_null(result_case_find_metric(rcase, "cycles"));
		cr_assert_eq(count_lines(out.err.buf, "(source 'perf') is "
						      "left out"),
			     result_case_find_metric(rcase, "cpu_time") ? 1 : 2,
			     "%s", out.err.buf);
	}
	/* the system report: sampled metrics in the summary, with units */
	cr_assert(strstr(out.out.buf, "gpu_energy"), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "4.00 GiB"), "%s", out.out.buf);
	result_free(result);
	test_output_release(&out);
	strbuf_release(&suite_text);
	strbuf_release(&store);
	strbuf_release(&json);
	free(suite);
}
