/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device probes without the devices: a CPU from the fixture tree
 * (tests/fixtures/sysfs), GPUs from the fake NVML (tests/fakenvml), IPUs
 * from fake gc-info and gc-monitor scripts put on PATH; then what the
 * probes mean for a suite's cases (skipped, or failed under
 * --require-devices), for the machine record, and for `benchgate devices`.
 */
#include "harness/util/alloc.h"
#include "harness/app/check.h"
#include "harness/probe/devices.h"
#include "harness/util/error.h"
#include "harness/util/fileio.h"
#include "harness/probe/machine.h"
#include "harness/probe/nvml.h"
#include "harness/run/session.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIXTURE_SYS  TEST_FIXTURE_DIR "/sysfs/sys"
#define FIXTURE_PROC TEST_FIXTURE_DIR "/sysfs/proc"

#define RUN(out, cwd, env, ...)             \
	test_benchgate((out), (cwd), (env), \
		       (const char *const[]){ __VA_ARGS__, NULL })

static char *dir;
static char *bin; /* the only directory on PATH but /bin */
static struct devices *devices;

static void setup(void)
{
	struct strbuf path = STRBUF_INIT;

	dir = test_tmpdir();
	strbuf_addf(&path, "%s/bin", dir);
	cr_assert_eq(mkdir_p(path.buf), 0);
	bin = strbuf_detach(&path, NULL);
	/* no real gc-info, NVML or environment of the test machine */
	strbuf_addf(&path, "%s:/usr/bin:/bin", bin);
	setenv("PATH", path.buf, 1);
	setenv("BENCHGATE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	unsetenv("CUDA_VISIBLE_DEVICES");
	unsetenv("BENCHGATE_DEVICES");
	unsetenv("BENCHGATE_MACHINE_ID");
	unsetenv("POPLAR_SDK_ENABLED");
	unsetenv("IPUOF_CONFIG_PATH");
	unsetenv("IPUOF_VIPU_API_HOST");
	strbuf_release(&path);
}

static void teardown(void)
{
	devices_free(devices);
	test_rmtree(dir);
	free(dir);
	free(bin);
}

TestSuite(devices, .init = setup, .fini = teardown);

static void use_fake_nvml(const char *script)
{
	char *path = test_write_file(dir, "nvml-script", script);

	setenv("BENCHGATE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
	setenv("FAKE_NVML_SCRIPT", path, 1);
	free(path);
}

/* An executable script `name` in the PATH directory. */
static void put_tool(const char *name, const char *script)
{
	char *path = test_write_file(bin, name, script);

	cr_assert_eq(chmod(path, 0755), 0);
	free(path);
}

/* Whether `device` is present, and the reason (static) when not. */
static bool has(const char *device, const char *cuda_visible,
		const char **reason)
{
	static struct strbuf why = STRBUF_INIT;
	bool present;

	struct gpu_visible visible = { .cuda = cuda_visible };

	strbuf_reset(&why);
	present = devices_has(devices, device, &visible, &why);
	*reason = why.buf;
	return present;
}

/* --- cpu --- */

Test(devices, cpu_from_the_fixture_tree)
{
	setenv("BENCHGATE_SYSFS_ROOT", FIXTURE_SYS, 1);
	setenv("BENCHGATE_PROCFS_ROOT", FIXTURE_PROC, 1);
	devices_probe(&devices);

	/* tests/fixtures/sysfs/README.md: 4 CPUs, 2 cores, 1 package */
	cr_assert_str_eq(devices->cpu.model, "Fixture CPU @ 3.00GHz");
	cr_assert_eq(devices->cpu.logical, 4);
	cr_assert_eq(devices->cpu.cores, 2);
	cr_assert_eq(devices->cpu.packages, 1);
	cr_assert_str_eq(devices->cpu.smt, "on");
	cr_assert_str_eq(devices->cpu.governor, "performance");
	cr_assert_null(devices->cpu.governor_why);
}

Test(devices, cpu_without_cpufreq_says_why)
{
	setenv("BENCHGATE_SYSFS_ROOT", dir, 1);
	devices_probe(&devices);
	cr_assert_null(devices->cpu.governor);
	cr_assert(strstr(devices->cpu.governor_why, "exposes no frequency "
						    "scaling"));
	/* the topology falls back to sysconf() */
	cr_assert_gt(devices->cpu.logical, 0);
	cr_assert_eq(devices->cpu.cores, 0);
}

Test(devices, cpu_is_always_present)
{
	const char *reason;

	devices_probe(&devices);
	cr_assert(has("cpu", NULL, &reason));
	/* a device benchgate has no probe for: the benchmark knows */
	cr_assert(has("tpu", NULL, &reason));
}

/* --- gpu --- */

static const char *two_gpus =
	"driver 550.54.15\n"
	"gpu GPU-aaaaaaaa-0000 40960 1024 20 100000 counter Fake GPU A\n"
	"gpu GPU-bbbbbbbb-1111 81920 3072 80 300000 none Fake GPU B\n";

Test(devices, gpu_library_missing)
{
	const char *reason;

	devices_probe(&devices);
	cr_assert_eq(devices->gpus_nr, 0);
	cr_assert(strstr(devices->gpu_why[GPU_NVIDIA], "cannot load "
					   "'/nonexistent/libnvidia-ml.so.1'"),
		  "%s", devices->gpu_why[GPU_NVIDIA]);
	cr_assert_not(has("gpu", NULL, &reason));
	cr_assert(strstr(reason, "device 'gpu' is not present: cannot load "
				 "'/nonexistent/") == reason,
		  "%s", reason);
	cr_assert_not(has("cuda", NULL, &reason));
}

Test(devices, gpu_library_without_nvml_functions)
{
	char *not_nvml = test_write_file(dir, "libnot-nvml.so", "");

	/* a file dlopen refuses; then a real library that is not NVML */
	setenv("BENCHGATE_NVML_LIBRARY", not_nvml, 1);
	devices_probe(&devices);
	cr_assert(strstr(devices->gpu_why[GPU_NVIDIA], "cannot load '"));
	devices_free(devices);
	setenv("BENCHGATE_NVML_LIBRARY", "libc.so.6", 1);
	devices_probe(&devices);
	cr_assert_str_eq(devices->gpu_why[GPU_NVIDIA],
			 "'libc.so.6' has no nvmlInit_v2(): "
			 "not NVML, or an NVML older than driver 325");
	free(not_nvml);
}

Test(devices, gpu_init_failing)
{
	const char *reason;

	use_fake_nvml("init 9\n");
	devices_probe(&devices);
	cr_assert_str_eq(devices->gpu_why[GPU_NVIDIA], "nvmlInit_v2() failed: Driver Not "
					   "Loaded (NVML error 9)");
	cr_assert_not(has("gpu", NULL, &reason));
	cr_assert_str_eq(reason, "device 'gpu' is not present: nvmlInit_v2() "
				 "failed: Driver Not Loaded (NVML error 9); no "
				 "AMD GPU in /sys/class/drm");
	cr_assert_not(has("cuda", NULL, &reason));
	cr_assert_str_eq(reason, "device 'cuda' is not present: nvmlInit_v2() "
				 "failed: Driver Not Loaded (NVML error 9)");
}

Test(devices, gpu_none_behind_a_working_nvml)
{
	const char *reason;

	use_fake_nvml("");
	devices_probe(&devices);
	cr_assert_null(devices->gpu_why[GPU_NVIDIA]);
	cr_assert_not(has("gpu", NULL, &reason));
	cr_assert_str_eq(reason, "device 'gpu' is not present: NVML sees no "
				 "GPU; no AMD GPU in /sys/class/drm");
}

Test(devices, two_gpus_with_cuda_visible_devices_1)
{
	struct machine_info machine;
	const char *reason;

	use_fake_nvml(two_gpus);
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	devices_probe(&devices);

	cr_assert_eq(devices->gpus_nr, 2);
	cr_assert_str_eq(devices->gpus[0].name, "Fake GPU A");
	cr_assert_str_eq(devices->gpus[1].uuid, "GPU-bbbbbbbb-1111");
	cr_assert_eq(devices->gpus[1].memory_bytes, 81920ull << 20);
	cr_assert_str_eq(devices->gpu_driver[GPU_NVIDIA], "550.54.15");
	cr_assert_not(devices->gpus[0].visible);
	cr_assert(devices->gpus[1].visible);
	cr_assert(has("gpu", "1", &reason));
	cr_assert(has("gpu", "GPU-bbbb", &reason));
	cr_assert_not(has("gpu", "7", &reason));
	cr_assert_str_eq(reason, "device 'gpu' is not present: "
				 "CUDA_VISIBLE_DEVICES='7' hides all 2 GPUs; no "
				 "AMD GPU in /sys/class/drm");
	cr_assert(has("cuda", "1", &reason));
	cr_assert_not(has("rocm", "1", &reason));

	/* the machine records what benchmarks see, by model name */
	cr_assert_eq(machine_describe(&machine), BG_OK);
	cr_assert_eq(machine.gpus_nr, 1);
	cr_assert_str_eq(machine.gpus[0], "Fake GPU B");
	machine_info_release(&machine);
}

Test(devices, a_gpu_changes_the_machine_id)
{
	struct machine_info without, with;

	cr_assert_eq(machine_describe(&without), BG_OK);
	use_fake_nvml(two_gpus);
	cr_assert_eq(machine_describe(&with), BG_OK);
	cr_assert_eq(with.gpus_nr, 2);
	cr_assert_str_neq(without.id, with.id);
	machine_info_release(&without);
	machine_info_release(&with);
}

Test(devices, benchmark_env_sets_cuda_visible_devices)
{
	struct name_value env[] = { { (char *)"CUDA_VISIBLE_DEVICES",
				      (char *)"0" } };
	struct benchmark benchmark;
	struct gpu_visible visible;

	memset(&benchmark, 0, sizeof(benchmark));
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	suite_gpu_visible(&benchmark, &visible);
	cr_assert_str_eq(visible.cuda, "1");
	benchmark.settings.env = env;
	benchmark.settings.env_nr = 1;
	suite_gpu_visible(&benchmark, &visible);
	cr_assert_str_eq(visible.cuda, "0");
	unsetenv("CUDA_VISIBLE_DEVICES");
	benchmark.settings.env_nr = 0;
	suite_gpu_visible(&benchmark, &visible);
	cr_assert_null(visible.cuda);
}

/* The CUDA runtime's reading of CUDA_VISIBLE_DEVICES, from NVIDIA's CUDA
 * C Programming Guide, "CUDA Environment Variables". */
Test(devices, cuda_visible_devices_as_cuda_reads_it)
{
	const char *uuids[] = { "GPU-aaaa-0", "GPU-bbbb-1", "GPU-bbcc-2" };
	size_t got[8], n;

	n = gpu_select_visible(NULL, uuids, 3, got, 8);
	cr_assert(n == 3 && got[0] == 0 && got[2] == 2);
	cr_assert_eq(gpu_select_visible("", uuids, 3, got, 8), 0);
	cr_assert_eq(gpu_select_visible("-1", uuids, 3, got, 8), 0);
	n = gpu_select_visible("2,0", uuids, 3, got, 8);
	cr_assert(n == 2 && got[0] == 2 && got[1] == 0);
	/* the list ends at the first entry that names no GPU */
	n = gpu_select_visible("1,7,0", uuids, 3, got, 8);
	cr_assert(n == 1 && got[0] == 1);
	n = gpu_select_visible(" 1 ,1", uuids, 3, got, 8);
	cr_assert(n == 1 && got[0] == 1);
	n = gpu_select_visible("GPU-bbc,GPU-a", uuids, 3, got, 8);
	cr_assert(n == 2 && got[0] == 2 && got[1] == 0);
	/* a prefix must name one GPU */
	cr_assert_eq(gpu_select_visible("GPU-bb", uuids, 3, got, 8), 0);
	cr_assert_eq(
		gpu_select_visible("MIG-GPU-aaaa-0/1/0", uuids, 3, got, 8), 0);
	n = gpu_select_visible("0,1,2", uuids, 3, got, 2);
	cr_assert_eq(n, 2);
}

/* --- ipu --- */

/* `gc-info --list-devices` of an IPU-POD, from Graphcore's Command Line
 * Tools guide, "gc-info": four IPUs and three groupings of them. */
static const char *gc_info_pod =
	"#!/bin/sh\n"
	"[ \"$1\" = --list-devices ] || exit 2\n"
	"cat <<'EOF'\n"
	"Graphcore device listing:\n"
	"Partition: p1 [active]\n"
	"-+- Id: [0], target: [Fabric], IPU-M host: [10.1.5.10], IPU#: [3]\n"
	"-+- Id: [1], target: [Fabric], IPU-M host: [10.1.5.10], IPU#: [2]\n"
	"-+- Id: [2], target: [Fabric], IPU-M host: [10.1.5.10], IPU#: [1]\n"
	"-+- Id: [3], target: [Fabric], IPU-M host: [10.1.5.10], IPU#: [0]\n"
	"-+- Id: [4], target: [Multi IPU]\n"
	" |--- Id: [0], DNC Id: [0], IPU-M host: [10.1.5.10], IPU#: [3]\n"
	" |--- Id: [1], DNC Id: [1], IPU-M host: [10.1.5.10], IPU#: [2]\n"
	"-+- Id: [5], target: [Multi IPU]\n"
	" |--- Id: [2], DNC Id: [0], IPU-M host: [10.1.5.10], IPU#: [1]\n"
	" |--- Id: [3], DNC Id: [1], IPU-M host: [10.1.5.10], IPU#: [0]\n"
	"EOF\n";

Test(devices, ipus_from_a_fake_gc_info)
{
	struct machine_info machine;
	const char *reason;

	put_tool("gc-info", gc_info_pod);
	devices_probe(&devices);
	cr_assert_eq(devices->ipus_nr, 4, "%s", devices->ipu_why);
	cr_assert(devices->ipus_counted);
	cr_assert_str_eq(devices->ipus[0], "Graphcore IPU (Fabric)");
	cr_assert(strstr(devices->ipu_source, "gc-info --list-devices"));
	cr_assert(has("ipu", NULL, &reason));

	cr_assert_eq(machine_describe(&machine), BG_OK);
	cr_assert_eq(machine.ipus_nr, 4);
	machine_info_release(&machine);
}

Test(devices, gc_info_failing_says_why)
{
	const char *reason;

	put_tool("gc-info", "#!/bin/sh\necho 'cannot reach the V-IPU server' "
			    ">&2\nexit 1\n");
	devices_probe(&devices);
	cr_assert_eq(devices->ipus_nr, 0);
	cr_assert_not(has("ipu", NULL, &reason));
	cr_assert(strstr(reason, "--list-devices' failed: exited with status "
				 "1: cannot reach the V-IPU server"),
		  "%s", reason);
}

Test(devices, gc_info_listing_no_ipu)
{
	put_tool("gc-info", "#!/bin/sh\necho 'Graphcore device listing:'\n");
	devices_probe(&devices);
	cr_assert_eq(devices->ipus_nr, 0);
	cr_assert(strstr(devices->ipu_why, "--list-devices' lists no IPU"));
}

/* gc-monitor's header, from the same guide, "gc-monitor". */
Test(devices, ipus_from_a_fake_gc_monitor)
{
	put_tool("gc-monitor",
		 "#!/bin/sh\n"
		 "echo '+---------------+---------------------------------+'\n"
		 "echo '|  gc-monitor   |   Partition: p1 (gcd:0) [active] "
		 "has 8 reconfigurable IPUs   |'\n");
	devices_probe(&devices);
	cr_assert_eq(devices->ipus_nr, 8, "%s", devices->ipu_why);
	cr_assert_str_eq(devices->ipus[7], "Graphcore IPU");
}

Test(devices, ipus_over_fabric_of_unknown_count)
{
	const char *reason;

	setenv("IPUOF_VIPU_API_HOST", "vipu.example", 1);
	devices_probe(&devices);
	cr_assert_eq(devices->ipus_nr, 1);
	cr_assert_not(devices->ipus_counted);
	cr_assert_str_eq(devices->ipu_source,
			 "IPUOF_VIPU_API_HOST in the environment");
	cr_assert(has("ipu", NULL, &reason));
}

Test(devices, no_ipu_says_why)
{
	const char *reason;

	devices_probe(&devices);
	cr_assert_not(has("ipu", NULL, &reason));
	cr_assert_str_eq(reason,
			 "device 'ipu' is not present: no Poplar SDK "
			 "or IPU driver here: gc-info and gc-monitor are not "
			 "on PATH, no IPUOF_* variable is set, there is no "
			 "/dev/ipu0");
	devices_free(devices);
	setenv("POPLAR_SDK_ENABLED", "/opt/poplar_sdk/poplar", 1);
	devices_probe(&devices);
	cr_assert(strstr(devices->ipu_why, ", and POPLAR_SDK_ENABLED "
					   "('/opt/poplar_sdk/poplar') alone "
					   "does not make an IPU"));
}

Test(devices, benchgate_devices_overrides_the_probes)
{
	const char *reason;

	use_fake_nvml(two_gpus);
	setenv("BENCHGATE_DEVICES", "cpu,ipu", 1);
	devices_probe(&devices);
	cr_assert(has("ipu", NULL, &reason));
	cr_assert_not(has("gpu", NULL, &reason));
	cr_assert_str_eq(reason, "device 'gpu' is not in BENCHGATE_DEVICES "
				 "('cpu,ipu')");
}

/* --- sessions: skipped, or failed under --require-devices --- */

static struct session *run_session(bool require_devices)
{
	struct session_options opts;
	struct session *session = NULL;
	struct strbuf store = STRBUF_INIT;
	char *suite = test_write_file(
		dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"devices\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 1 },\n"
		"  \"devices\": [\"cpu\", \"gpu\", \"ipu\"],\n"
		"  \"benchmarks\": [ { \"name\": \"b\",\n"
		"    \"command\": [\"true\"],\n"
		"    \"metrics\": [ { \"name\": \"wall\", \"from\": \"wall\" "
		"} ] } ] }\n");

	strbuf_addf(&store, "%s/store", dir);
	memset(&opts, 0, sizeof(opts));
	opts.suite_path = suite;
	opts.build_dir = dir;
	opts.store_spec = store.buf;
	opts.runs = -1;
	opts.warmup = -1;
	opts.require_devices = require_devices;
	cr_assert_eq(session_prepare(&session, &opts), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(check_measure(session, NULL), BG_OK, "%s",
		     bg_error_last());
	cr_assert_eq(session_store(session), BG_OK, "%s", bg_error_last());
	strbuf_release(&store);
	free(suite);
	return session;
}

Test(devices, absent_devices_skip_their_cases_with_the_reason)
{
	struct session *session;
	const struct result_case *gpu, *ipu;

	put_tool("gc-info", gc_info_pod);
	session = run_session(false);
	cr_assert_eq(session->result->cases_nr, 3);
	cr_assert_eq(session->result->cases[0].status, CASE_OK);
	gpu = &session->result->cases[1];
	ipu = &session->result->cases[2];
	cr_assert_eq(gpu->status, CASE_SKIPPED);
	cr_assert(strstr(gpu->reason, "device 'gpu' is not present: cannot "
				      "load '/nonexistent/libnvidia-ml.so.1'"),
		  "%s", gpu->reason);
	/* the fake gc-info's IPUs are there: the case runs */
	cr_assert_eq(ipu->status, CASE_OK, "%s", ipu->reason);
	cr_assert_not(session_failed(session));
	session_free(session);
}

/* The machine's description and the cases' devices come from one probe
 * (session.c): a fake gc-info that counts its calls is called once a
 * run, as by `benchgate devices`. */
Test(devices, a_run_probes_the_devices_once)
{
	struct strbuf script = STRBUF_INIT, log = STRBUF_INIT;
	struct session *session;
	char *calls;

	strbuf_addf(&log, "%s/gc-info-calls", dir);
	strbuf_addf(&script, "#!/bin/sh\necho \"$1\" >> '%s'\n%s", log.buf,
		    gc_info_pod + strlen("#!/bin/sh\n"));
	put_tool("gc-info", script.buf);
	session = run_session(false);
	cr_assert_eq(session->result->machine.ipus_nr, 4);
	cr_assert_eq(session->result->cases[2].status, CASE_OK, "%s",
		     session->result->cases[2].reason);
	calls = test_read_file(log.buf);
	cr_assert_str_eq(calls, "--list-devices\n");
	free(calls);
	session_free(session);
	strbuf_release(&script);
	strbuf_release(&log);
}

Test(devices, require_devices_turns_the_skip_into_a_failure)
{
	struct session *session = run_session(true);
	const struct result_case *gpu = &session->result->cases[1];

	cr_assert_eq(session->result->cases[0].status, CASE_OK);
	cr_assert_eq(gpu->status, CASE_FAILED);
	cr_assert(strstr(gpu->reason, "device 'gpu' is not present: "));
	cr_assert(strstr(gpu->reason, "(required by --require-devices)"));
	cr_assert_eq(session->result->cases[2].status, CASE_FAILED);
	cr_assert(session_failed(session));
	session_free(session);
}

/* --- benchgate devices --- */

Test(devices, benchgate_devices_explains_what_is_missing_here)
{
	const char *env[] = { "BENCHGATE_NVML_LIBRARY", NULL };
	struct test_output out;
	struct strbuf cpu_line = STRBUF_INIT;
	const char *model;

	/* the real machine: its CPU, and why no GPU or IPU (unless this
	 * machine has a driver or the SDK) */
	devices_probe(&devices);
	model = devices->cpu.model;
	RUN(&out, NULL, env, "devices");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	strbuf_addf(&cpu_line, "cpu   %s\n", model ? model : "");
	cr_assert(strstr(out.out.buf, cpu_line.buf), "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "logical CPU"));
	cr_assert(strstr(out.out.buf, "frequency governor: "));
	cr_assert(strstr(out.out.buf, "\ngpu   "));
	cr_assert(strstr(out.out.buf, "\nipu   none: no Poplar SDK"));
	cr_assert(strstr(out.out.buf, "sampled metric sources"));
	cr_assert(strstr(out.out.buf, "\n  perf    "));
	cr_assert(strstr(out.out.buf, "\n  system  cpu_utilization_mean"));
	cr_assert_str_eq(out.err.buf, "");
	test_output_release(&out);
	strbuf_release(&cpu_line);
}

Test(devices, benchgate_devices_lists_fake_gpus_and_ipus)
{
	struct test_output out;
	const char *env[] = { "CUDA_VISIBLE_DEVICES=1", NULL };

	use_fake_nvml(two_gpus);
	put_tool("gc-info", gc_info_pod);
	RUN(&out, NULL, env, "devices");
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	cr_assert(strstr(out.out.buf,
			 "gpu   2 GPUs through NVML (driver 550.54.15), "
			 "CUDA_VISIBLE_DEVICES='1'\n"
			 "      0  Fake GPU A  GPU-aaaaaaaa-0000  40.0 GiB  "
			 "(hidden by CUDA_VISIBLE_DEVICES)\n"
			 "      1  Fake GPU B  GPU-bbbbbbbb-1111  80.0 GiB\n"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "ipu   4 IPUs through "));
	cr_assert(strstr(out.out.buf, "      3  Graphcore IPU (Fabric)\n"));
	cr_assert(strstr(out.out.buf, "\n  nvml    utilization_mean, "));
	test_output_release(&out);
}
