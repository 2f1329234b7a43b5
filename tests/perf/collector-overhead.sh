#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the sampling collectors cost the benchmark, as a 95 % confidence
# interval: the example suite run with collectors off
# (suites/mlp-variants/suite.json) and on (the same suite plus system, rapl
# and perf metrics: tests/perf/mlp-with-collectors.json, the same binary
# and models), in one session, ROUNDS rounds of four invocations.
#
# Order: rounds alternate off,on,on,off and on,off,off,on (ABBA/BAAB), so
# the two settings share the same mean position in every round and a drift
# of the machine that is linear over a round cancels out of on/off.
#
# Statistic: an invocation's latency is the median of its per-batch
# latencies (mlp_bench's own timings, all runs), per variant. Per round
# and variant, log(on/off) is the mean log of the two on invocations less
# that of the two off ones; the mean over the four variants makes one
# value per round. Over rounds: the geometric-mean on/off ratio with a
# Student t interval (rounds taken as independent). The 1 % budget is
# shown when the interval's upper bound is below 1.01, and not otherwise.
#
# A/A control from the same data: the later off invocation of a round over
# the earlier one. It has no treatment in it, so its interval should hold
# 1; it keeps any drift (the offs are 3 slots apart in ABBA rounds, 1 in
# BAAB) and compares single invocations rather than pairs, so from noise
# alone it is about 1.4 times as wide as on/off.
#
# The second table bounds the cost directly: the CPU time benchgate itself
# spends (its rusage less its children's, which is the benchmark's) while
# 20 runs of `sleep 0.5` are sampled, against the same runs unsampled, as a
# share of one core over the sampled time. The sampling thread competes
# with the benchmark for at most that share of a core.
#
#   tests/perf/collector-overhead.sh [BUILD_DIR] [ROUNDS]
#       Release build (default build), ROUNDS >= 2 (default 20; 3 for a
#       smoke run). Progress goes to stderr, the report (Markdown) to stdout.
#   SAMPLE_INTERVAL_MS=10 ... also passes --sample-interval (default 100 ms)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
rounds=${2:-20}
if ! [[ $rounds =~ ^[0-9]+$ ]] || [ "$rounds" -lt 2 ]; then
	echo "ROUNDS '$rounds': want 2 or more (the interval needs two)" >&2
	exit 2
fi
bg=$build/benchgate
off_suite=suites/mlp-variants/suite.json
on_suite=tests/perf/mlp-with-collectors.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$build/suites/mlp-variants/mlp_bench" ] ||
	{ echo "no mlp_bench in $build: build it first (Release)" >&2; exit 2; }
extra=()
[ -n "${SAMPLE_INTERVAL_MS:-}" ] && extra=(--sample-interval "$SAMPLE_INTERVAL_MS")

# The comparison means something only while the two suites differ in
# metrics alone: check before spending the session on it.
python3 - "$off_suite" "$on_suite" <<'EOF'
import json, sys

off, on = (json.load(open(path)) for path in sys.argv[1:3])

def without_metrics(suite):
    suite = {k: v for k, v in suite.items() if k not in ("suite", "description")}
    suite["benchmarks"] = [{k: v for k, v in b.items() if k != "metrics"}
                           for b in suite["benchmarks"]]
    return suite

def metric_names(suite):
    return {m["name"] for b in suite["benchmarks"] for m in b["metrics"]}

if without_metrics(off) != without_metrics(on):
    sys.exit(f"{sys.argv[2]}: differs from {sys.argv[1]} in more than "
             "its metrics: make them the same suite again")
if not metric_names(off) <= metric_names(on):
    sys.exit(f"{sys.argv[2]}: lacks metrics of {sys.argv[1]}: "
             + ", ".join(sorted(metric_names(off) - metric_names(on))))
EOF

run() {         # run SETTING ROUND SLOT
	local suite=$off_suite name=$work/$2-$3-$1
	[ "$1" = on ] && suite=$on_suite
	"$bg" run "$suite" --build-dir "$build" --store "$work/store" --quiet \
		--json "$name.json" "${extra[@]}" >/dev/null 2>"$name.err" ||
		{ cat "$name.err" >&2; echo "benchgate run $suite failed" >&2; exit 1; }
}

orders=("off on on off" "on off off on")
begin=$(date +%s.%N)
for ((i = 0; i < rounds; i++)); do
	round_begin=$(date +%s.%N)
	read -ra order <<<"${orders[i % 2]}"
	for ((slot = 0; slot < 4; slot++)); do
		run "${order[slot]}" "$i" "$slot"
	done
	round_end=$(date +%s.%N)
	echo "$round_begin $round_end" >>"$work/rounds"
	awk -v i=$((i + 1)) -v n="$rounds" -v o="${orders[i % 2]// /,}" \
		-v s="$round_begin" -v e="$round_end" \
		'BEGIN { printf "round %d/%d (%s): %.0f s\n", i, n, o, e - s }' >&2
done

python3 - "$work" "$rounds" "$begin" "$on_suite" <<'EOF'
import json, math, statistics, sys, time

work, rounds, begin, on_suite = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
orders = (("off", "on", "on", "off"), ("on", "off", "off", "on"))
spans = [tuple(map(float, line.split())) for line in open(f"{work}/rounds")]
elapsed = spans[-1][1] - begin

def invocation(i, slot):
    """variant -> metric -> median over all samples of one invocation"""
    setting = orders[i % 2][slot]
    doc = json.load(open(f"{work}/{i}-{slot}-{setting}.json"))
    out = {}
    for case in doc["cases"]:
        if case["status"] != "ok":
            sys.exit(f"round {i}, {setting}: {case['variant']} is "
                     f"{case['status']}: {case['reason']}")
        out[case["variant"]] = {name: statistics.median(m["samples"])
                                for name, m in case["metrics"].items()}
    return setting, out

def t_quantile(p, df):
    """Student t quantile by bisection on the CDF, the CDF by Simpson's
    rule on the density (no scipy here); 12.706 at df 1, 4.303 at 2"""
    norm = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) \
        / math.sqrt(df * math.pi)
    def pdf(x):
        return norm * (1 + x * x / df) ** (-(df + 1) / 2)
    def cdf(x):
        n, h = 2000, x / 2000
        s = pdf(0) + pdf(x) + sum((4 if k % 2 else 2) * pdf(k * h)
                                  for k in range(1, n))
        return 0.5 + s * h / 3
    lo, hi = 0.0, 100.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2

t975 = t_quantile(0.975, rounds - 1)

def interval(logs):
    """geometric mean ratio and its 95 % t interval from per-round logs"""
    mean = statistics.fmean(logs)
    half = t975 * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)

def cell(logs, bold=False):
    mid, lo, hi = interval(logs)
    text = f"{mid:.4f} [{lo:.4f}, {hi:.4f}]"
    return f"**{text}**" if bold else text

# per round: variant -> metric -> (log on/off, log A/A, offs, ons)
on_off, aa, level = [], [], {"off": {}, "on": {}}
for i in range(rounds):
    invs = [invocation(i, slot) for slot in range(4)]
    offs = [m for s, m in invs if s == "off"]       # in time order
    ons = [m for s, m in invs if s == "on"]
    on_off.append({})
    aa.append({})
    for v in offs[0]:
        on_off[i][v], aa[i][v] = {}, {}
        for metric in ("latency", "wall_time"):
            lon = [math.log(m[v][metric]) for m in ons]
            loff = [math.log(m[v][metric]) for m in offs]
            on_off[i][v][metric] = statistics.fmean(lon) - statistics.fmean(loff)
            aa[i][v][metric] = loff[1] - loff[0]
            for setting, ms in (("off", offs), ("on", ons)):
                level[setting].setdefault((v, metric), []).extend(
                    m[v][metric] for m in ms)

variants = sorted(on_off[0])
def pooled(per_round, metric):
    return [statistics.fmean(r[v][metric] for v in variants) for r in per_round]

def per_variant(per_round, v, metric):
    return [r[v][metric] for r in per_round]

def latency_cell(setting, v):
    return f"{statistics.median(level[setting][(v, 'latency')]):#.4g} ms"

started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(begin))
print(f"{rounds} rounds of suites/mlp-variants, collectors off and on in "
      f"ABBA/BAAB order, {started}; latency = median per-batch latency of an "
      "invocation, medians over invocations; ratios = geometric mean over "
      "rounds [95 % t interval]")
print()
print("| variant | latency off | latency on | on/off | A/A (off/off) |")
print("|---|---|---|---|---|")
for v in variants:
    print(f"| {v} | {latency_cell('off', v)} "
          f"| {latency_cell('on', v)} "
          f"| {cell(per_variant(on_off, v, 'latency'))} "
          f"| {cell(per_variant(aa, v, 'latency'))} |")
print(f"| **pooled** (mean of the {len(variants)} variants per round) | | "
      f"| {cell(pooled(on_off, 'latency'), True)} "
      f"| {cell(pooled(aa, 'latency'), True)} |")
print(f"| wall time of a run, pooled | | "
      f"| {cell(pooled(on_off, 'wall_time'))} "
      f"| {cell(pooled(aa, 'wall_time'))} |")
print()

_, lo, hi = interval(pooled(on_off, "latency"))
if hi < 1.01:
    print(f"1 % budget: shown (upper bound {hi:.4f} < 1.01)")
else:
    print(f"1 % budget: not shown (upper bound {hi:.4f} >= 1.01)")
_, aa_lo, aa_hi = interval(pooled(aa, "latency"))
if not aa_lo <= 1 <= aa_hi:
    print(f"caution: the A/A interval [{aa_lo:.4f}, {aa_hi:.4f}] excludes 1: "
          "two invocations of the same setting differ systematically here "
          "(drift, or an order effect); ABBA cancels a linear drift in on/off, "
          "not a curved one")
print("per round, pooled on/off: " + " ".join(
    f"{math.exp(x):.4f}" for x in pooled(on_off, "latency")))
print("per round, pooled A/A:    " + " ".join(
    f"{math.exp(x):.4f}" for x in pooled(aa, "latency")))
secs = [end - start for start, end in spans]
print(f"measurement: {rounds} rounds x 4 invocations in "
      f"{int(elapsed // 60)} min {elapsed % 60:.0f} s "
      f"(a round {statistics.median(secs):.0f} s median, "
      f"{min(secs):.0f}-{max(secs):.0f} s)")

suite = json.load(open(on_suite))
sampled = [m["name"] for b in suite["benchmarks"] for m in b["metrics"]
           if m["from"] in ("system", "rapl", "perf", "nvml")]
got = set(invocation(0, orders[0].index("on"))[1][variants[0]])
print("collected with collectors on: "
      + (", ".join(n for n in sampled if n in got) or "none")
      + "; left out here: "
      + (", ".join(n for n in sampled if n not in got) or "none"))
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
sort -u "$work"/*-on.err | grep -v "not in a git repository" | sed 's/^/note: /' || true
