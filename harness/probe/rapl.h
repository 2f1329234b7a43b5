/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_RAPL_H
#define BENCHGATE_RAPL_H

#include "harness/util/strbuf.h"

/*
 * CPU package energy from the kernel's powercap interface: the RAPL
 * counters of Intel CPUs, and of AMD CPUs since Linux 5.8, under
 * <sysfs>/class/powercap/intel-rapl:N (see sysfs.h for the root).
 *
 * Only package domains count ("package-0", "package-1"): their core,
 * uncore and dram subdomains are parts of them. Each counter is in
 * microjoules and wraps at its max_energy_range_uj, so it is read often
 * enough that it wraps at most once between two readings: a package at
 * 200 W wraps a 2^32 µJ range in about 20 s, and the sampler reads it
 * every sampling interval.
 */

struct rapl;

/*
 * Finds the package domains and checks that their counters can be read.
 * On success *out is the caller's (rapl_close() it). BG_ENOTFOUND with the
 * reason appended to `why` when there is no powercap, no package domain,
 * or no permission ("only root may read RAPL counters since Linux 5.10").
 * Nothing is recorded with bg_error.
 */
int rapl_open(struct rapl **out, struct strbuf *why);

void rapl_close(struct rapl *rapl);

/* Takes the current counters as the starting point. -1 with errno when a
 * counter cannot be read. Does not allocate. */
int rapl_begin(struct rapl *rapl);

/* Adds the joules every package consumed since the last rapl_begin() or
 * rapl_advance() to *joules, then starts from now. -1 with errno (and
 * *joules unchanged) when a counter cannot be read. Does not allocate. */
int rapl_advance(struct rapl *rapl, double *joules);

#endif
