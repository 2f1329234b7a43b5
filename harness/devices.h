#ifndef BENCHGATE_DEVICES_H
#define BENCHGATE_DEVICES_H

#include <stdbool.h>

/*
 * Whether a suite's device is present on this machine. A case whose device
 * is absent is skipped with the probe's reason, so one suite file serves
 * CPU-only CI runners and GPU/IPU hardware runners alike.
 *
 * Device names: "cpu" is always present; "gpu" / "cuda" look for an NVIDIA
 * driver (/proc/driver/nvidia/gpus or /dev/nvidiactl); "ipu" for Graphcore
 * (gc-info on PATH, or /dev/ipu0, or IPUOF_CONFIG_PATH). Any other name is
 * taken as present: the benchmark itself knows best.
 * BENCHGATE_DEVICES="cpu,gpu" overrides the probes (for tests and for
 * runners whose devices the probes cannot see).
 */

/* true when present; otherwise false and *reason (static text or a buffer
 * of the module, valid until the next call) says why. */
bool devices_present(const char *device, const char **reason);

#endif
