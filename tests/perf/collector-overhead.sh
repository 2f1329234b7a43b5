#!/usr/bin/env bash
# What the sampling collectors cost the benchmark: the example suite run with
# collectors off (suites/mlp-variants/suite.json) and on (the same suite
# plus system, rapl and perf metrics: tests/perf/mlp-with-collectors.json,
# the same binary and models), in one session, ROUNDS rounds. Each round
# runs three invocations in a rotating order: off, on, and off again as an
# A/A control that shows how far two identical invocations differ here.
#
# Per variant and round, the median latency (the benchmark's own per-batch
# timings) and the median wall time of a run (measured by benchgate) of
# each invocation; then per variant the median over rounds of the paired
# ratios on/off and off'/off, whose [min, max] over rounds is the spread.
# The budget is 1 %: on/off above 1.01 beyond what A/A shows.
#
# Where the machine is too noisy for A/A to resolve 1 %, the second table
# bounds the cost directly: the CPU time benchgate itself spends (its
# rusage less its children's, which is the benchmark's) while 20 runs of
# `sleep 0.5` are sampled, against the same runs unsampled, as a share of
# one core over the sampled time. The sampling thread competes with the
# benchmark for at most that share of a core.
#
#   tests/perf/collector-overhead.sh [BUILD_DIR] [ROUNDS]  (Release; default build 8)
#   SAMPLE_INTERVAL_MS=10 ... also passes --sample-interval (default 100 ms)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
rounds=${2:-8}
bg=$build/benchgate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$build/suites/mlp-variants/mlp_bench" ] ||
	{ echo "no mlp_bench in $build: build it first (Release)" >&2; exit 2; }
extra=()
[ -n "${SAMPLE_INTERVAL_MS:-}" ] && extra=(--sample-interval "$SAMPLE_INTERVAL_MS")

run() {         # run SIDE SUITE ROUND
	"$bg" run "$2" --build-dir "$build" --store "$work/store" --quiet \
		--json "$work/$1-$3.json" "${extra[@]}" >/dev/null 2>"$work/$1-$3.err"
}

sides=(off on aa)
suite_of() { [ "$1" = on ] && echo tests/perf/mlp-with-collectors.json ||
	echo suites/mlp-variants/suite.json; }
for ((i = 0; i < rounds; i++)); do
	for ((k = 0; k < 3; k++)); do
		side=${sides[(i + k) % 3]}
		run "$side" "$(suite_of "$side")" "$i"
	done
done

python3 - "$work" "$rounds" <<'EOF'
import json, math, statistics, sys

work, rounds = sys.argv[1], int(sys.argv[2])
implied = {"latency", "throughput", "accuracy", "model_size", "params",
           "wall_time", "peak_rss"}

def medians(side, i):
    """variant -> metric -> median of one invocation"""
    out = {}
    for case in json.load(open(f"{work}/{side}-{i}.json"))["cases"]:
        out[case["variant"]] = {name: statistics.median(m["samples"])
                                for name, m in case["metrics"].items()}
    return out

runs = [{side: medians(side, i) for side in ("off", "on", "aa")}
        for i in range(rounds)]
variants = sorted(runs[0]["off"])
sampled = sorted(set(runs[0]["on"][variants[0]]) - implied)

def ratios(variant, metric, side):
    return [r[side][variant][metric] / r["off"][variant][metric]
            for r in runs]

def cell(values):
    return (f"{statistics.median(values):.4f} "
            f"[{min(values):.3f}, {max(values):.3f}]")

print(f"{rounds} rounds of the mlp-variants suite: collectors off, on, and "
      "off again (A/A), in rotating order; medians over rounds")
print("| variant | latency off | on/off | A/A | wall off | on/off | A/A |")
print("|---|---|---|---|---|---|---|")
geo = {}
for v in variants:
    row = [v]
    for metric, scale in (("latency", 1), ("wall_time", 1e3)):
        off = statistics.median(r["off"][v][metric] for r in runs) * scale
        on, aa = ratios(v, metric, "on"), ratios(v, metric, "aa")
        geo.setdefault(metric, []).append(statistics.median(on))
        geo.setdefault(metric + " aa", []).append(statistics.median(aa))
        row += [f"{off:.4g} ms", cell(on), cell(aa)]
    print("| " + " | ".join(row) + " |")
g = {k: math.exp(sum(map(math.log, v)) / len(v)) for k, v in geo.items()}
print(f"| geometric mean | | {g['latency']:.4f} | {g['latency aa']:.4f} "
      f"| | {g['wall_time']:.4f} | {g['wall_time aa']:.4f} |")
print("collected with collectors on: " + (", ".join(sampled) or "none"))
EOF
# The sampler's own CPU time, on a benchmark that uses none.
for side in off on; do
	metrics='{ "name": "wall", "from": "wall" }'
	[ "$side" = on ] && metrics+='
	  , { "name": "cpu", "from": "system", "field": "cpu_utilization_mean" }
	  , { "name": "peak", "from": "system", "field": "cpu_utilization_peak" }
	  , { "name": "load", "from": "system", "field": "load" }
	  , { "name": "disk", "from": "system", "field": "disk_free" }
	  , { "name": "energy", "from": "rapl", "field": "energy" }
	  , { "name": "cpu_time", "from": "perf", "field": "task_clock" }
	  , { "name": "instructions", "from": "perf", "field": "instructions" }'
	cat >"$work/sleep-$side.json" <<EOF
{ "benchgate": 1, "suite": "sleep-$side",
  "defaults": { "warmup": 0, "runs": 20 },
  "benchmarks": [ { "name": "sleep", "command": ["sleep", "0.5"],
    "metrics": [ $metrics ] } ] }
EOF
done
python3 - "$bg" "$work" "${extra[@]}" <<'EOF'
import os, resource, subprocess, sys, time

bg, work, extra = sys.argv[1], sys.argv[2], sys.argv[3:]

def self_cpu(side):
    """CPU seconds of benchgate and its children, and wall seconds: the
    sleeps use next to no CPU, so on less off is the sampling"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run([bg, "run", f"{work}/sleep-{side}.json", "--quiet",
                    "--store", f"{work}/store", *extra],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime +
            after.ru_stime - before.ru_stime), wall

cost = {side: min(self_cpu(side) for _ in range(3)) for side in ("off", "on")}
extra_cpu = cost["on"][0] - cost["off"][0]
print()
print("| 20 runs of sleep 0.5 | CPU time of benchgate + sleeps | wall |")
print("|---|---|---|")
for side in ("off", "on"):
    print(f"| collectors {side} | {cost[side][0] * 1e3:.1f} ms "
          f"| {cost[side][1]:.2f} s |")
print(f"sampling cost: {extra_cpu * 1e3:.1f} ms of CPU over "
      f"{cost['on'][1]:.1f} s sampled = {extra_cpu / cost['on'][1] * 100:.3f} % "
      "of one core")
EOF

# what the collectors said they could not do here, once each
sort -u "$work"/on-*.err | grep -v "not in a git repository" | sed 's/^/note: /' || true
