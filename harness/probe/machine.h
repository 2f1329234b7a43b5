/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_MACHINE_H
#define BENCHGATE_MACHINE_H

#include "harness/model/result.h"
#include "harness/probe/devices.h"

/*
 * Which machine a result was measured on: the machine_info of a result.
 *
 * The machine id keys the store and the baselines, so it answers "are these
 * numbers comparable?": results of one id form one history. It is 16 hex
 * characters of SHA-256 over
 *
 *     "<cpu>|<cores>|<memory in GiB, rounded>|<sysname> <arch>|<gpus>|<ipus>"
 *
 * (gpus and ipus each joined by ','). Deliberately left out:
 * - the hostname: CI runners get random hostnames, yet identical hardware
 *   should share one history;
 * - the kernel release and the distribution: a routine update should not
 *   start a new history (a change that matters shows up as a change point);
 * - the exact memory size: the kernel's reserved memory varies by version,
 *   rounding to whole GiB keeps the id stable across those.
 *
 * BENCHGATE_MACHINE_ID in the environment overrides the computed id, for
 * hardware runners that want a fixed, readable name ("lab-a100-1") or that
 * must keep one history across a hardware change. It must pass
 * result_machine_id_valid() (result.h: 1 to MACHINE_ID_MAX characters of
 * [A-Za-z0-9._-], not starting with '.'), since it names a directory of the
 * store. Set but empty counts as unset, as CI templates expand a missing
 * variable to "".
 */

/*
 * Fills `out` (overwritten; release it with machine_info_release()) with
 * this machine: hostname and os ("Debian GNU/Linux 12 (bookworm), Linux
 * 6.1.0-18-amd64 x86_64") from uname and /etc/os-release, cpu from
 * /proc/cpuinfo (falling back to the architecture), online cores, physical
 * memory, accelerators, and the id described above. What cannot be read is
 * left NULL or 0 and still hashed, so the id is always set.
 *
 * Accelerators are probed here (devices.h), before the id is hashed, so
 * that a machine with a GPU never shares a history with the same host
 * without it: gpus are the model names of the GPUs that benchgate's
 * CUDA_VISIBLE_DEVICES selects, ipus those of the single IPUs, in probe
 * order; each an empty list when there are none.
 *
 * BG_EINPUT when BENCHGATE_MACHINE_ID is set but invalid; `out` is then
 * released.
 */
int machine_describe(struct machine_info *out);

/* machine_describe() from devices the caller has probed (borrowed): for
 * a session, which needs them again for its cases, so that the devices
 * are probed once. */
int machine_describe_from(struct machine_info *out,
			  const struct devices *devices);

#endif
