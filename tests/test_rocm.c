/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* unshare() */
#include "testutil.h"

#include "harness/model/result.h"
#include "harness/probe/rocm.h"
#include "harness/util/error.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The real ROCm SMI library (Debian's librocm-smi64-1, 5.2) against a
 * planted amdgpu sysfs tree: the tree is bind-mounted over /sys/class in
 * a private mount namespace of the test's own process (Criterion runs each
 * test in a process of its own), so the library reads it exactly as it
 * reads a machine's. The files and values are those amdgpu and KFD write
 * (Linux drivers/gpu/drm/amd/amdgpu/amdgpu_pm.c, amdkfd/kfd_topology.c and
 * kfd_process.c); the set is the one ROCm SMI 5.2's rsmi_init() needs.
 * Needs root for the namespace, as CI has.
 */

TestSuite(rocm, .init = test_dir_setup, .fini = test_dir_teardown);

#define GIB (1024ULL * 1024 * 1024)

/* Plants GPU `n` (card<n>, PCI bus 3 + n, KFD node n + 1, gpu_id 1000 + n)
 * under root (the future /sys/class). */
static void plant_gpu(const char *root, int n, unsigned busy,
		      unsigned long long vram_used)
{
	char device[128], name[256], text[512];

	snprintf(device, sizeof(device), "zz_devices/pci0000:00/0000:%02x:00.0",
		 3 + n);
#define PLANT(file, ...)                                              \
	do {                                                          \
		snprintf(name, sizeof(name), "%s/" file, device);     \
		snprintf(text, sizeof(text), __VA_ARGS__);            \
		free(test_write_file(root, name, text));              \
	} while (0)
	PLANT("vendor", "0x1002\n");
	PLANT("device", "0x740f\n");
	PLANT("vbios_version", "113-D67301-063\n");
	PLANT("unique_id", "%x\n", 0x5a5a0000 + n);
	PLANT("gpu_busy_percent", "%u\n", busy);
	PLANT("mem_info_vram_used", "%llu\n", vram_used);
	PLANT("mem_info_vram_total", "%llu\n", 64 * GIB);
	PLANT("hwmon/hwmon0/name", "amdgpu\n");
	PLANT("hwmon/hwmon0/in0_label", "vddgfx\n");
	PLANT("hwmon/hwmon0/power1_average", "%u\n", 250000000u + (unsigned)n);
	PLANT("drm/renderD128/dev", "226:%d\n", 128 + n);
#undef PLANT
	/* card<n> is a link into the device's directory, as in sysfs, whose
	 * text names the PCI address ROCm SMI reads the bus id from */
	snprintf(name, sizeof(name), "%s/%s/drm/card%d", root, device, n);
	cr_assert_eq(mkdir(name, 0755), 0);
	snprintf(name, sizeof(name), "%s/%s/drm/card%d/device", root, device,
		 n);
	snprintf(text, sizeof(text), "/sys/class/%s", device);
	cr_assert_eq(symlink(text, name), 0);
	snprintf(name, sizeof(name), "%s/drm", root);
	cr_assert_eq(mkdir(name, 0755) == 0 || errno == EEXIST, true);
	snprintf(name, sizeof(name), "%s/drm/card%d", root, n);
	snprintf(text, sizeof(text), "/sys/class/%s/drm/card%d", device, n);
	cr_assert_eq(symlink(text, name), 0);

	snprintf(name, sizeof(name), "kfd/kfd/topology/nodes/%d/properties",
		 n + 1);
	snprintf(text, sizeof(text),
		 "cpu_cores_count 0\nsimd_count 416\nlocation_id %d\n"
		 "domain 0\nvendor_id 4098\ndevice_id 29711\n"
		 "drm_render_minor %d\nhive_id 0\nsimd_arrays_per_engine 1\n"
		 "array_count 8\ncu_per_simd_array 13\n",
		 (3 + n) << 8, 128 + n);
	free(test_write_file(root, name, text));
	snprintf(name, sizeof(name), "kfd/kfd/topology/nodes/%d/gpu_id",
		 n + 1);
	snprintf(text, sizeof(text), "%d\n", 1000 + n);
	free(test_write_file(root, name, text));
	snprintf(name, sizeof(name), "kfd/kfd/topology/nodes/%d/name", n + 1);
	free(test_write_file(root, name, "gfx90a\n"));
	snprintf(name, sizeof(name), "%s/kfd/kfd/topology/nodes/%d/io_links",
		 root, n + 1);
	cr_assert_eq(mkdir(name, 0755), 0);
}

/* What KFD shows of a process using the GPUs: its VRAM on each. */
static void plant_process(const char *root, pid_t pid, int gpus,
			  unsigned long long vram)
{
	char name[128];

	snprintf(name, sizeof(name), "kfd/kfd/proc/%d/pasid", (int)pid);
	free(test_write_file(root, name, "32770\n"));
	for (int n = 0; n < gpus; n++) {
		char text[32];

		snprintf(name, sizeof(name), "kfd/kfd/proc/%d/vram_%d",
			 (int)pid, 1000 + n);
		snprintf(text, sizeof(text), "%llu\n", n == 0 ? vram : 0);
		free(test_write_file(root, name, text));
		snprintf(name, sizeof(name), "kfd/kfd/proc/%d/sdma_%d",
			 (int)pid, 1000 + n);
		free(test_write_file(root, name, "0\n"));
	}
}

/* Makes root this process's /sys/class (and a /dev/shm of its own, where
 * ROCm SMI keeps its mutexes). */
static void enter_planted_sysfs(const char *root)
{
	if (geteuid() != 0)
		cr_skip_test("needs root for a mount namespace (CI has it)");
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	cr_assert_eq(mount(root, "/sys/class", NULL, MS_BIND, NULL), 0,
		     "bind mount: %s", strerror(errno));
	cr_assert_eq(mount("tmpfs", "/dev/shm", "tmpfs", 0, NULL), 0);
}

static char *planted_root(int gpus)
{
	char *root = test_tmpdir();

	for (int n = 0; n < gpus; n++)
		plant_gpu(root, n, 37 + (unsigned)n, (1 + (unsigned)n) * GIB);
	return root;
}

Test(rocm, reads_every_field_of_an_amd_gpu_through_the_real_library)
{
	char *root = planted_root(1);
	struct strbuf why = STRBUF_INIT;
	struct rocm *rocm = NULL;
	struct gpu_reading reading;
	pid_t tree[] = { getpid(), 999999 };
	uint64_t bytes = 0;

	plant_process(root, getpid(), 1, 512ULL * 1024 * 1024);
	enter_planted_sysfs(root);
	cr_assert_eq(rocm_open(&rocm, &why), BG_OK, "%s", why.buf);
	cr_assert_eq(rocm_count(rocm), 1);
	cr_assert_str_eq(rocm_gpu(rocm, 0)->uuid, "GPU-000000005a5a0000");
	cr_assert_eq(rocm_gpu(rocm, 0)->memory_bytes, 64 * GIB);

	rocm_read(rocm, 0, &reading);
	cr_assert(reading.has_utilization);
	cr_assert_eq(reading.utilization, 37);
	cr_assert(reading.has_memory);
	cr_assert_eq(reading.memory_used, 1 * GIB);
	cr_assert(reading.has_power);
	cr_assert_float_eq(reading.power_w, 250.0, 1e-9);
	cr_assert(rocm_process_memory(rocm, tree, 2, &bytes), "%s",
		  rocm_why(rocm, "process_memory"));
	cr_assert_eq(bytes, 512ULL * 1024 * 1024,
		     "the tree's VRAM, the unknown process holding none");
	/* amdgpu reports energy in gpu_metrics, which is not planted */
	cr_assert_not(reading.has_energy);
	cr_assert_not_null(rocm_why(rocm, "energy"));
	cr_assert(strstr(rocm_why(rocm, "energy"), "ROCm SMI: "));
	rocm_close(rocm);
	strbuf_release(&why);
	free(root);
}

Test(rocm, rocr_then_hip_visible_devices_select_as_the_runtimes_do)
{
	char *root = planted_root(3);
	struct strbuf why = STRBUF_INIT;
	struct rocm *rocm = NULL;
	size_t got[4];

	enter_planted_sysfs(root);
	cr_assert_eq(rocm_open(&rocm, &why), BG_OK, "%s", why.buf);
	cr_assert_eq(rocm_count(rocm), 3);
	cr_assert_eq(rocm_select_visible(rocm, NULL, NULL, got, 4), 3);
	cr_assert_eq(rocm_select_visible(rocm, "2,0", NULL, got, 4), 2);
	cr_assert_eq(got[0], 2);
	cr_assert_eq(got[1], 0);
	/* HIP numbers what ROCR left: its 1 is the machine's 0 */
	cr_assert_eq(rocm_select_visible(rocm, "2,0", "1", got, 4), 1);
	cr_assert_eq(got[0], 0);
	cr_assert_eq(rocm_select_visible(rocm, NULL, "GPU-000000005a5a0001",
					 got, 4),
		     1);
	cr_assert_eq(got[0], 1);
	cr_assert_eq(rocm_select_visible(rocm, "-1", NULL, got, 4), 0);
	rocm_close(rocm);
	strbuf_release(&why);
	free(root);
}

Test(rocm, no_amd_gpu_is_a_reason_not_an_error_and_loads_nothing)
{
	struct strbuf why = STRBUF_INIT;
	struct rocm *rocm = NULL;
	char *root = test_tmpdir();

	/* an NVIDIA card only */
	free(test_write_file(root, "class/drm/card0/device/vendor",
			     "0x10de\n"));
	setenv("BENCHGATE_SYSFS_ROOT", root, 1);
	cr_assert_eq(rocm_open(&rocm, &why), BG_ENOTFOUND);
	cr_assert_null(rocm);
	cr_assert_str_eq(why.buf, "no AMD GPU in /sys/class/drm");

	/* amdgpu without KFD: a display card, no compute */
	strbuf_reset(&why);
	free(test_write_file(root, "class/drm/card1/device/vendor",
			     "0x1002\n"));
	cr_assert_eq(rocm_open(&rocm, &why), BG_ENOTFOUND);
	cr_assert(strstr(why.buf, "no KFD topology"), "%s", why.buf);
	unsetenv("BENCHGATE_SYSFS_ROOT");
	strbuf_release(&why);
	free(root);
}

Test(rocm, a_missing_library_is_named_with_what_to_install)
{
	struct strbuf why = STRBUF_INIT;
	struct rocm *rocm = NULL;

	setenv("BENCHGATE_ROCM_LIBRARY", "/nonexistent/librocm_smi64.so.1",
	       1);
	cr_assert_eq(rocm_open(&rocm, &why), BG_ENOTFOUND);
	cr_assert(strstr(why.buf, "cannot load "
				  "'/nonexistent/librocm_smi64.so.1'"),
		  "%s", why.buf);
	unsetenv("BENCHGATE_ROCM_LIBRARY");
	strbuf_release(&why);
}

/*
 * End to end, as on an AMD runner: `benchgate devices` lists the GPU, a
 * suite's "gpu" cases run on it, and the rocm fields are recorded. The
 * benchmark stands for a HIP program: it announces its own VRAM in the
 * KFD tree (the planted one is writable), which only the benchmark's
 * process tree counts in memory_peak.
 */
Test(rocm, a_suite_on_an_amd_runner_records_the_rocm_fields)
{
	char *root = planted_root(1);
	const char *env[] = { "BENCHGATE_NVML_LIBRARY=/nonexistent/libnvml.so",
			      NULL };
	const char *devices_args[] = { "devices", NULL };
	const char *run_args[] = { "run",  NULL, "--store", NULL, "--json",
				   NULL,   "--quiet", NULL };
	struct strbuf store = STRBUF_INIT, json = STRBUF_INIT;
	struct result *result = NULL;
	const struct result_case *rcase;
	const struct metric_samples *m;
	struct test_output out;
	char *suite;

	/* "$$$$" is the shell's "$$" once the suite's "$$" escape is read */
	suite = test_write_file(
		test_dir, "suite.json",
		"{ \"benchgate\": 1, \"suite\": \"amd\",\n"
		"  \"defaults\": { \"warmup\": 0, \"runs\": 2 },\n"
		"  \"devices\": [\"gpu\"],\n"
		"  \"benchmarks\": [ { \"name\": \"hold-vram\",\n"
		"    \"command\": [\"/bin/sh\", \"-c\", \"d=/sys/class/kfd/kfd/"
		"proc/$$$$; mkdir -p $d && echo 32770 > $d/pasid && echo "
		"268435456 > $d/vram_1000 && echo 0 > $d/sdma_1000 && sleep "
		"0.5\"],\n"
		"    \"metrics\": [\n"
		"      { \"name\": \"gpu_util\", \"from\": \"rocm\","
		" \"field\": \"utilization_mean\" },\n"
		"      { \"name\": \"gpu_memory\", \"from\": \"rocm\","
		" \"field\": \"memory_peak\" },\n"
		"      { \"name\": \"gpu_device_memory\", \"from\": \"rocm\","
		" \"field\": \"device_memory_peak\" },\n"
		"      { \"name\": \"gpu_power\", \"from\": \"rocm\","
		" \"field\": \"power_peak\" } ] } ] }\n");
	enter_planted_sysfs(root);

	test_benchgate(&out, NULL, env, devices_args);
	cr_assert_eq(out.exit_code, 0, "%s", out.err.buf);
	/* the driver's version is the kernel's, read from the real /sys */
	cr_assert(strstr(out.out.buf, "gpu   1 GPU through ROCm SMI"), "%s",
		  out.out.buf);
	cr_assert(strstr(out.out.buf, "\n      0  AMD GPU 0x740f  "
				      "GPU-000000005a5a0000  64.0 GiB\n"),
		  "%s", out.out.buf);
	cr_assert(strstr(out.out.buf, "\n  rocm    utilization_mean, "),
		  "%s", out.out.buf);
	test_output_release(&out);

	strbuf_addf(&store, "%s/store", test_dir);
	strbuf_addf(&json, "%s/result.json", test_dir);
	run_args[1] = suite;
	run_args[3] = store.buf;
	run_args[5] = json.buf;
	test_benchgate(&out, NULL, env, run_args);
	cr_assert_eq(out.exit_code, 0, "%s%s", out.out.buf, out.err.buf);
	cr_assert_eq(result_load(&result, json.buf), BG_OK, "%s",
		     bg_error_last());
	rcase = &result->cases[0];
	cr_assert_str_eq(rcase->device, "gpu");
	cr_assert_eq(rcase->status, CASE_OK, "%s", rcase->reason);
	/* the result says whose GPU it ran on */
	cr_assert_eq(result->machine.gpus_nr, 1);
	cr_assert_str_eq(result->machine.gpus[0], "AMD GPU 0x740f");
	m = result_case_find_metric(rcase, "gpu_util");
	cr_assert(m && m->nr == 2 && m->samples[0] == 37);
	m = result_case_find_metric(rcase, "gpu_device_memory");
	cr_assert(m && m->samples[1] == 1 * GIB);
	m = result_case_find_metric(rcase, "gpu_power");
	cr_assert(m && m->samples[0] == 250);
	m = result_case_find_metric(rcase, "gpu_memory");
	cr_assert(m && m->nr == 2);
	cr_assert_eq(m->samples[0], 256.0 * 1024 * 1024,
		     "the benchmark's own VRAM: %g", m->samples[0]);
	result_free(result);
	test_output_release(&out);
	strbuf_release(&store);
	strbuf_release(&json);
	free(suite);
	free(root);
}
