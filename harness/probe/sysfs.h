/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_SYSFS_H
#define BENCHGATE_SYSFS_H

#include "harness/util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The kernel's files under /sys and /proc that the device probes and the
 * collectors read, with their roots movable so that tests can stand a
 * fixture tree in for a machine they do not have (RAPL domains, a CPU with
 * SMT and a governor, a /proc/stat that changes between two readings):
 *
 *     BENCHGATE_SYSFS_ROOT    replaces /sys
 *     BENCHGATE_PROCFS_ROOT   replaces /proc
 *
 * Set but empty counts as unset. The roots are read on every call, so a
 * test may change them between probes.
 *
 * The read functions neither allocate nor record errors: the sampler calls
 * them while a benchmark runs, and a file that cannot be read is an answer
 * ("not here"), not a failure of benchgate.
 */

/* Appends "<sysfs root>/<relative>" to out ("class/powercap" ->
 * "/sys/class/powercap"). */
void sysfs_path(struct strbuf *out, const char *relative);

/* Appends "<procfs root>/<relative>" to out ("stat" -> "/proc/stat"). */
void procfs_path(struct strbuf *out, const char *relative);

/*
 * Reads up to size - 1 bytes of the file at path into buf, NUL-terminated,
 * with trailing whitespace removed. Returns the length, or -1 with errno
 * set when the file cannot be opened or read.
 */
int sysfs_read_text(const char *path, char *buf, size_t size);

/* Reads the file at path as one unsigned decimal number ("12345\n").
 * 0 on success; -1 with errno set (EINVAL when it is not a number). */
int sysfs_read_u64(const char *path, uint64_t *out);

#endif
