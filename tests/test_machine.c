/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/error.h"
#include "harness/probe/machine.h"
#include "harness/util/strbuf.h"

#include <criterion/criterion.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static void setup(void)
{
	unsetenv("BENCHGATE_MACHINE_ID");
}

TestSuite(machine, .init = setup);

static bool is_hex16(const char *id)
{
	return strlen(id) == 16 && strspn(id, "0123456789abcdef") == 16;
}

Test(machine, describes_this_machine)
{
	struct machine_info m;

	cr_assert_eq(machine_describe(&m), BG_OK);
	cr_assert(is_hex16(m.id), "id '%s'", m.id);
	cr_assert_not_null(m.hostname);
	cr_assert_not_null(m.os);
	cr_assert_not_null(m.cpu);
	cr_assert_gt(m.cores, 0);
	cr_assert_gt(m.memory_bytes, 0);
	cr_assert_eq(m.gpus_nr, 0);
	cr_assert_eq(m.ipus_nr, 0);
	machine_info_release(&m);
}

Test(machine, id_is_stable_across_calls)
{
	struct machine_info first, second;

	cr_assert_eq(machine_describe(&first), BG_OK);
	cr_assert_eq(machine_describe(&second), BG_OK);
	cr_assert_str_eq(first.id, second.id);
	machine_info_release(&first);
	machine_info_release(&second);
}

/*
 * The reference is the formula documented in machine.h, recomputed here
 * with OpenSSL: hardware fields only. That the hostname and the kernel
 * release are not in the key is what lets CI runners with random
 * hostnames and updated kernels share one history.
 */
Test(machine, id_hashes_hardware_not_hostname_or_kernel)
{
	struct machine_info m;
	struct strbuf key = STRBUF_INIT;
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	char expected[17];
	struct utsname uts;
	uint64_t gib = (uint64_t)1 << 30;

	cr_assert_eq(machine_describe(&m), BG_OK);
	cr_assert_eq(uname(&uts), 0);
	strbuf_addf(&key, "%s|%d|%llu|%s %s||", m.cpu, m.cores,
		    (unsigned long long)((m.memory_bytes + gib / 2) / gib),
		    uts.sysname, uts.machine);
	cr_assert(
		EVP_Digest(key.buf, key.len, digest, &len, EVP_sha256(), NULL));
	for (int i = 0; i < 8; i++)
		snprintf(expected + 2 * i, 3, "%02x", digest[i]);
	cr_assert_str_eq(m.id, expected, "key '%s'", key.buf);
	cr_assert_null(strstr(key.buf, uts.nodename));
	cr_assert_null(strstr(key.buf, uts.release));
	machine_info_release(&m);
	strbuf_release(&key);
}

Test(machine, os_names_the_kernel)
{
	struct machine_info m;
	struct utsname uts;

	cr_assert_eq(uname(&uts), 0);
	cr_assert_eq(machine_describe(&m), BG_OK);
	cr_assert_not_null(strstr(m.os, uts.sysname), "os '%s'", m.os);
	cr_assert_not_null(strstr(m.os, uts.release), "os '%s'", m.os);
	machine_info_release(&m);
}

Test(machine, override_from_the_environment)
{
	struct machine_info m;

	setenv("BENCHGATE_MACHINE_ID", "lab-a100_1.x", 1);
	cr_assert_eq(machine_describe(&m), BG_OK);
	cr_assert_str_eq(m.id, "lab-a100_1.x");
	/* The description is still filled in. */
	cr_assert_not_null(m.cpu);
	machine_info_release(&m);
}

Test(machine, empty_override_means_computed)
{
	struct machine_info m;

	setenv("BENCHGATE_MACHINE_ID", "", 1);
	cr_assert_eq(machine_describe(&m), BG_OK);
	cr_assert(is_hex16(m.id), "id '%s'", m.id);
	machine_info_release(&m);
}

Test(machine, invalid_override_is_an_input_error)
{
	static const char *const bad[] = {
		"..",
		".",
		".hidden",
		"../../etc",
		"a/b",
		"with space",
		"caf\xc3\xa9",
		("x234567890123456789012345678901234567890"
		 "1234567890123456789012345678901234567890"),
	};
	struct machine_info m;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		setenv("BENCHGATE_MACHINE_ID", bad[i], 1);
		cr_assert_eq(machine_describe(&m), BG_EINPUT, "'%s'", bad[i]);
		cr_assert_not_null(
			strstr(bg_error_last(), "BENCHGATE_MACHINE_ID"));
		cr_assert_null(m.cpu, "released on error");
	}
}

Test(machine, id_validation)
{
	char longest[MACHINE_ID_MAX + 2];

	cr_assert(result_machine_id_valid("a"));
	cr_assert(result_machine_id_valid("0123456789abcdef"));
	cr_assert(result_machine_id_valid("runner-1.gpu_a"));
	cr_assert_not(result_machine_id_valid(""));
	cr_assert_not(result_machine_id_valid("."));
	cr_assert_not(result_machine_id_valid(".."));
	cr_assert_not(result_machine_id_valid("a:b"));
	memset(longest, 'x', MACHINE_ID_MAX);
	longest[MACHINE_ID_MAX] = '\0';
	cr_assert(result_machine_id_valid(longest));
	longest[MACHINE_ID_MAX] = 'x';
	longest[MACHINE_ID_MAX + 1] = '\0';
	cr_assert_not(result_machine_id_valid(longest));
}
