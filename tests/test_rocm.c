/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* unshare() */
#include "testutil.h"

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

	plant_process(root, getpid(), 1, 512ULL * 1024 * 1024);
	enter_planted_sysfs(root);
	cr_assert_eq(rocm_open(&rocm, &why), BG_OK, "%s", why.buf);
	cr_assert_eq(rocm_count(rocm), 1);
	cr_assert_str_eq(rocm_gpu(rocm, 0)->uuid, "GPU-000000005a5a0000");
	cr_assert_eq(rocm_gpu(rocm, 0)->memory_bytes, 64 * GIB);

	rocm_read(rocm, 0, tree, 2, &reading);
	cr_assert(reading.has_utilization);
	cr_assert_eq(reading.utilization, 37);
	cr_assert(reading.has_memory);
	cr_assert_eq(reading.memory_used, 1 * GIB);
	cr_assert(reading.has_power);
	cr_assert_float_eq(reading.power_w, 250.0, 1e-9);
	cr_assert(reading.has_process_memory, "%s",
		  rocm_why(rocm, "process_memory"));
	cr_assert_eq(reading.process_memory, 512ULL * 1024 * 1024,
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
