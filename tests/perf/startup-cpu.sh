#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CPU time `benchgate run` takes from its exec to its first
# benchmark's start, for one or more builds side by side, interleaved call
# by call, with the load average before and after: the figures of
# docs/performance.md, "Where start-up goes". On a loaded machine the wall
# time of start-up is mostly the wait for a core; the CPU time is what
# benchgate itself does.
#
#   tests/perf/startup-cpu.sh [CALLS] BENCHGATE...
#
# CALLS: calls of each build (default 21). Each call runs, from a clean
# clone of this repository (packed, its index refreshed, as after a
# checkout and a build), a suite of one benchmark, a program built here
# that reads its parent's /proc/PPID/schedstat (the CPU time benchgate has
# used so far, nanoseconds) into a file; the store is made afresh at every
# call. Prints, per build, the median and quartiles in ms. With
# STARTUP_PROFILE=DIR, it then records `perf record --call-graph dwarf` of
# 10 calls of each build into DIR, the benchmark killing benchgate as it
# starts so that only start-up is profiled.
# Needs cc, git, and perf for STARTUP_PROFILE.
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=21
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
	calls=$1
	shift
fi
[[ $# -ge 1 ]] || { echo "usage: $0 [CALLS] BENCHGATE..." >&2; exit 2; }
bins=()
for bin in "$@"; do
	[[ -x $bin ]] || { echo "startup-cpu: no $bin" >&2; exit 2; }
	bins+=("$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")")
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BENCHGATE_LOCK=$work/machine.lock

cat >"$work/stamp.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
	char path[64]; long long cpu = -1; pid_t parent = getppid();
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)parent);
	FILE *s = fopen(path, "r");
	if (s) { if (fscanf(s, "%lld", &cpu) != 1) cpu = -1; fclose(s); }
	FILE *f = argc > 1 ? fopen(argv[1], "a") : NULL;
	if (f) { fprintf(f, "%lld\n", cpu); fclose(f); }
	if (getenv("STAMP_KILL")) kill(parent, SIGKILL);
	return 0;
}
C
cc -O2 -o "$work/stamp" "$work/stamp.c"
git clone -q --no-local . "$work/clone"
# the files' times now before the index's: no racily clean entries
sleep 1
git -C "$work/clone" update-index --refresh >/dev/null
printf '{"benchgate": 1, "suite": "start", "defaults": {"warmup": 0, "runs": 1, "timeout": "60s"}, "benchmarks": [{"name": "stamp", "command": ["%s", "%s"], "metrics": [{"name": "wall", "from": "wall"}]}]}\n' \
	"$work/stamp" "$work/cpu" >"$work/start.json"

call() { # BIN
	rm -rf "$work/store"
	(cd "$work/clone" && "$1" run "$work/start.json" --store "$work/store" \
		--quiet >/dev/null 2>&1) || true
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!bins[@]}"; do : >"$work/cpu.$i"; done
for _ in $(seq "$calls"); do
	for i in "${!bins[@]}"; do
		rm -f "$work/cpu"
		call "${bins[$i]}"
		cat "$work/cpu" >>"$work/cpu.$i" 2>/dev/null || true
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!bins[@]}"; do
	sort -n "$work/cpu.$i" | awk -v bin="${bins[$i]}" '{ a[NR] = $1 }
		END { printf "%s: %.2f ms CPU to the first benchmark (quartiles %.2f-%.2f, %d calls)\n",
			bin, a[int((NR + 1) / 2)] / 1e6, a[int((NR + 3) / 4)] / 1e6,
			a[int((3 * NR + 1) / 4)] / 1e6, NR }'
done
if [[ -n ${STARTUP_PROFILE:-} ]]; then
	mkdir -p "$STARTUP_PROFILE"
	for i in "${!bins[@]}"; do
		for n in $(seq 10); do
			rm -rf "$work/store"
			(cd "$work/clone" && STAMP_KILL=1 perf record -q -F 10000 \
				--call-graph dwarf,32768 \
				-o "$STARTUP_PROFILE/$i-$n.data" "${bins[$i]}" run \
				"$work/start.json" --store "$work/store" --quiet \
				>/dev/null 2>&1) 2>/dev/null || true
		done
	done
	echo "profiles in $STARTUP_PROFILE (perf report -i FILE --comm $(basename "${bins[0]}"))"
fi
