#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What benchgate's harness costs, each figure beside its peer (hyperfine -N)
# or its floor (a bare posix_spawn + wait loop in C, built here), all
# measured in this one invocation, interleaved round by round, with the
# load average before and after. docs/performance.md shows a run of it.
#
#   tests/perf/bench-overhead.sh [BUILD_DIR] [PAIRS]
#
# BUILD_DIR: a Release build (default build-release: cmake -S . -B
# build-release -DCMAKE_BUILD_TYPE=Release && cmake --build build-release
# --target benchgate benchgate-launch); PAIRS: rounds (default 7).
# Needs GNU time too, for the second half.
# Needs cc, hyperfine and python3. Each round runs, in turn:
# - /bin/true x 1000, one whole invocation each: benchgate run, hyperfine
#   -N --runs 1000, the bare loop;
# - start-up: from before the exec of benchgate run (hyperfine -N --runs
#   1, the bare loop of one) to the start of its first benchmark, a program
#   built here that writes the clock to a file, and the CPU time the tool
#   used until then (its /proc/PID/schedstat);
# - a benchmark of 10 ms (a busy wait on the clock, built here) x 30: the
#   median sample benchgate records against the bare loop's;
# - /bin/true x 300 in one suite, with and without a peak-memory metric
#   (rusage maxrss, which runs through benchgate-launch): the median wall
#   samples of the two cases, against hyperfine's and the loop's.
# Every figure is the median over the rounds. Then tests/perf/bench-scale.sh
# BUILD_DIR (compare of 10,000 and 20,000 cases and of 1 M samples,
# history --json of 10,000 commits; BENCH_SCALE_ROUNDS rounds, default 5)
# prints the second half of the table, unless BENCH_SKIP_SCALE=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-release}
bg=$PWD/$build/benchgate
pairs=${2:-7}
for tool in cc hyperfine python3; do
	command -v "$tool" >/dev/null ||
		{ echo "bench-overhead: $tool is missing" >&2; exit 2; }
done
[ -x "$bg" ] || { echo "bench-overhead: no $bg (build it first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BENCHGATE_LOCK=$work/machine.lock

# The floor: posix_spawn + waitpid, stdout and stderr to /dev/null as
# hyperfine -N does, each run's seconds on a line of stdout.
cat >"$work/loop.c" <<'EOF'
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
	int n = atoi(argv[1]), status;
	double *times = malloc(sizeof(*times) * (size_t)n);
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
	for (int i = 0; i < n; i++) {
		pid_t pid;
		double start = now();
		if (posix_spawn(&pid, argv[2], &actions, NULL, argv + 2, environ)) return 1;
		waitpid(pid, &status, 0);
		times[i] = now() - start;
	}
	for (int i = 0; i < n; i++) printf("%.9f\n", times[i]);
	return 0;
}
EOF
# A benchmark of 10 ms that does not depend on the disk or the cache: a
# wait on the clock.
cat >"$work/spin.c" <<'EOF'
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void) { double end = now() + 0.010; while (now() < end) ; return 0; }
EOF
# Start-up: the time from before a tool's exec to its first benchmark's
# start, which writes the clock (CLOCK_REALTIME, as date +%s%N) to a file,
# and the CPU time its parent (the tool) has used until then, from the
# kernel's scheduler statistics (/proc/PID/schedstat, nanoseconds): on a
# loaded machine the wall time is mostly the wait for a core, the CPU
# time what the tool itself does.
cat >"$work/stamp.c" <<'EOF'
#include <stdio.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
	struct timespec t;
	char path[64];
	long long cpu = -1;
	clock_gettime(CLOCK_REALTIME, &t);
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)getppid());
	FILE *s = fopen(path, "r");
	if (s) { if (fscanf(s, "%lld", &cpu) != 1) cpu = -1; fclose(s); }
	FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;
	if (!f) return 1;
	fprintf(f, "%lld\n%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec, cpu);
	return fclose(f) != 0;
}
EOF
cc -O2 -o "$work/stamp" "$work/stamp.c"
cc -O2 -o "$work/loop" "$work/loop.c"
cc -O2 -o "$work/spin" "$work/spin.c"

suite() { # NAME RUNS BENCHMARKS...
	local name=$1 runs=$2
	shift 2
	printf '{"benchgate": 1, "suite": "%s", "defaults": {"warmup": 0, "runs": %s, "timeout": "60s"}, "benchmarks": [%s]}\n' \
		"$name" "$runs" "$(IFS=,; echo "$*")" >"$work/$name.json"
}
wall='{"name": "wall", "from": "wall"}'
rss='{"name": "rss", "from": "rusage", "field": "maxrss"}'
suite true1000 1000 "{\"name\": \"true\", \"command\": [\"/bin/true\"], \"metrics\": [$wall]}"
suite stamp 1 "{\"name\": \"stamp\", \"command\": [\"$work/stamp\", \"$work/stamped\"], \"metrics\": [$wall]}"
suite spin 30 "{\"name\": \"spin\", \"command\": [\"$work/spin\"], \"metrics\": [$wall]}"
suite peak 300 "{\"name\": \"plain\", \"command\": [\"/bin/true\"], \"metrics\": [$wall]}" \
	"{\"name\": \"peak\", \"command\": [\"/bin/true\"], \"metrics\": [$wall, $rss]}"

now() { date +%s%N; }
# Appends the wall time of one invocation of "$@" (ns) to file $1.
timed() {
	local out=$1 t0 t1
	shift
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	echo $((t1 - t0)) >>"$work/$out"
}
# Appends the time from before "$@" starts to its first benchmark's start
# (ns) to file $1, and the CPU time "$@" used until then (ns) to $1.cpu.
started() {
	local out=$1 t0
	shift
	rm -f "$work/stamped"
	t0=$(now)
	"$@" >/dev/null 2>&1
	echo $(($(sed -n 1p "$work/stamped") - t0)) >>"$work/$out"
	sed -n 2p "$work/stamped" >>"$work/$out.cpu"
}
bgrun() { # SUITE JSON
	rm -rf "$work/store"
	"$bg" run "$work/$1.json" --store "$work/store" --quiet --json "$work/$2"
}
# The median wall sample of a case in a result ("case" is its benchmark).
samples() { python3 - "$@" <<'EOF'
import json, statistics, sys
result = json.load(open(sys.argv[1]))
for case in result["cases"]:
    if case["benchmark"] == sys.argv[2]:
        print("%.9f" % statistics.median(case["metrics"]["wall"]["samples"]))
EOF
}
hf_median() { python3 -c 'import json,statistics,sys; print("%.9f" % statistics.median(json.load(open(sys.argv[1]))["results"][0]["times"]))' "$1"; }
median_of() { python3 -c 'import statistics,sys; print("%.9f" % statistics.median(float(x) for x in open(sys.argv[1])))' "$1"; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 0; round < pairs; round++)); do
	# /bin/true x 1000, whole invocations
	timed bg.total bgrun true1000 bg1000.json
	timed hf.total hyperfine -N --runs 1000 --export-json "$work/hf1000.json" /bin/true
	timed loop.total "$work/loop" 1000 /bin/true
	samples "$work/bg1000.json" true >>"$work/bg.true"
	hf_median "$work/hf1000.json" >>"$work/hf.true"
	"$work/loop" 1000 /bin/true >"$work/loop.times"
	median_of "$work/loop.times" >>"$work/loop.true"
	# start-up: until the first benchmark starts
	started bg.start bgrun stamp bg1.json
	started hf.start hyperfine -N --runs 1 "$work/stamp $work/stamped"
	started loop.start "$work/loop" 1 "$work/stamp" "$work/stamped"
	# 10 ms
	bgrun spin bgspin.json >/dev/null 2>&1
	samples "$work/bgspin.json" spin >>"$work/bg.spin"
	"$work/loop" 30 "$work/spin" >"$work/loop.times"
	median_of "$work/loop.times" >>"$work/loop.spin"
	# with and without peak memory
	bgrun peak bgpeak.json >/dev/null 2>&1
	samples "$work/bgpeak.json" plain >>"$work/bg.plain"
	samples "$work/bgpeak.json" peak >>"$work/bg.peak"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

for f in bg.total hf.total loop.total bg.true hf.true loop.true bg.start \
	hf.start loop.start bg.start.cpu hf.start.cpu loop.start.cpu bg.spin \
	loop.spin bg.plain bg.peak; do
	printf '%s=%s\n' "${f//./_}" "$(median_of "$work/$f")"
done >"$work/figures"
python3 - "$work/figures" "$pairs" "$load_before" "$load_after" "$(nproc)" <<'EOF'
import sys
f = dict(line.strip().split("=") for line in open(sys.argv[1]))
f = {k: float(v) for k, v in f.items()}
ms = lambda ns: "%.1f ms" % (ns / 1e6)
us = lambda s: "%.0f µs" % (s * 1e6)
ms_s = lambda s: "%.3f ms" % (s * 1e3)
print("benchgate harness overhead: %s interleaved rounds, medians; %s CPUs; "
      "load average %s before, %s after" % (sys.argv[2], sys.argv[5], sys.argv[3], sys.argv[4]))
print()
print("| figure | benchgate | peer or floor | ratio | target |")
print("|---|---|---|---|---|")
print("| /bin/true x 1000, whole invocation | %s | hyperfine -N %s | %.3f | ≤ 1.05 |"
      % (ms(f["bg_total"]), ms(f["hf_total"]), f["bg_total"] / f["hf_total"]))
print("| /bin/true x 1000, whole invocation | %s | bare spawn loop %s | %.3f | |"
      % (ms(f["bg_total"]), ms(f["loop_total"]), f["bg_total"] / f["loop_total"]))
print("| start-up: exec to the first benchmark's start | %s | hyperfine -N %s, loop %s | | < 20 ms |"
      % (ms(f["bg_start"]), ms(f["hf_start"]), ms(f["loop_start"])))
print("| start-up: the tool's CPU time until then | %s | hyperfine -N %s, loop %s | | |"
      % (ms(f["bg_start_cpu"]), ms(f["hf_start_cpu"]), ms(f["loop_start_cpu"])))
print("| one /bin/true as measured (median sample) | %s | hyperfine -N %s, loop %s | %.3f (to the loop) | |"
      % (us(f["bg_true"]), us(f["hf_true"]), us(f["loop_true"]), f["bg_true"] / f["loop_true"]))
print("| a 10 ms benchmark's median sample | %s | bare spawn loop %s | %.4f | within 2 %% |"
      % (ms_s(f["bg_spin"]), ms_s(f["loop_spin"]), f["bg_spin"] / f["loop_spin"]))
print("| /bin/true's wall sample with a peak-memory metric | %s | without %s | %.3f | within 5 %% |"
      % (us(f["bg_peak"]), us(f["bg_plain"]), f["bg_peak"] / f["bg_plain"]))
EOF

# The second half of the table: compare and history at scale, measured
# in rounds of their own (BENCH_SKIP_SCALE=1 leaves them out).
if [ -z "${BENCH_SKIP_SCALE:-}" ]; then
	echo
	bash tests/perf/bench-scale.sh "$build" "${BENCH_SCALE_ROUNDS:-5}"
fi
