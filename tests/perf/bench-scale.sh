#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What benchgate's large inputs cost, each figure beside its peer or floor
# measured in the same run, round by round, with the load average before
# and after: the second half of docs/performance.md's table
# (tests/perf/bench-overhead.sh runs it after its own rows).
#
#   tests/perf/bench-scale.sh [BUILD_DIR] [ROUNDS]
#
# BUILD_DIR: a Release build (default build-release); ROUNDS: default 5.
# Each round runs, in turn:
# - `compare` of 10,000 cases (tests/perf/many-cases.sh) into --json,
#   beside python3 reading both files (json.load), and of 20,000 cases
#   right after the 10,000, whose time is shown against 10,000's (linear:
#   2; target at most 2.1) as the median of each round's ratio, so that a
#   load that changes between rounds cancels;
# - `compare` of one metric with 1,000,000 samples a side (generated
#   here), beside python3 reading and sorting both sides;
# - `history --json FILE --quiet` on the generated store of 10,000 commits
#   x 100 series (tests/perf/gen-history-store, cached in
#   $BENCH_HISTORY_DIR, default /tmp/benchgate-history-10000, as
#   bench-history.sh does; its index made before the rounds), beside the
#   terminal view (`history`) of the same store.
# Wall seconds from the clock in nanoseconds (GNU time's are hundredths,
# 3 % of a 0.4 s compare), CPU seconds (user + system) and peak RSS by GNU
# time; every figure is the median over the rounds. On a loaded machine wall time is
# CPU time stretched by the wait for a core: both are printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
build=${1:-build-release}
bg=$PWD/$build/benchgate
rounds=${2:-5}
for tool in python3 git; do
	command -v "$tool" >/dev/null ||
		{ echo "bench-scale: $tool is missing" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench-scale: GNU time (/usr/bin/time) is missing" >&2; exit 2; }
[ -x "$bg" ] || { echo "bench-scale: no $bg (build it first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store=${BENCH_HISTORY_DIR:-/tmp/benchgate-history-10000}

sh "$here/many-cases.sh" 10000 "$work/c10k"
sh "$here/many-cases.sh" 20000 "$work/c20k"
python3 - "$work/big" <<'EOF'
import os, random, sys
os.makedirs(sys.argv[1], exist_ok=True)
for side, level in (("baseline", 10.0), ("candidate", 10.1)):
    r = random.Random(side)
    samples = ", ".join("%.6g" % (level * (1 + r.gauss(0, 0.02)))
                        for _ in range(1000000))
    with open(os.path.join(sys.argv[1], side + ".json"), "w") as f:
        f.write('{"benchgate_result": 1, "suite": "big", "git": {"commit": '
                '"ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1"}, "machine": '
                '{"id": "m1"}, "cases": [\n{"benchmark": "b", "variant": '
                '"v", "device": "cpu", "status": "ok", "runs": 1000000, '
                '"metrics": {"latency": {"unit": "ms", "runs": 1000000, '
                '"samples": [%s]}}}]}\n' % samples)
EOF
if [ ! -f "$store/planted.json" ]; then
	echo "bench-scale: generating $store ..." >&2
	"$here/gen-history-store" "$store" --commits 10000 >&2
fi
(cd "$store" && "$bg" history --quiet >/dev/null 2>&1)

# timed NAME CMD...: appends "wall cpu rss_kb" of CMD to $work/NAME; an
# exit status of 1 (a regression found) is no failure.
timed() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	/usr/bin/time -o "$work/time" -f '%U %S %M' "$@" >/dev/null 2>&1 ||
		[ $? -eq 1 ]
	t1=$(date +%s%N)
	# the last line: GNU time puts "Command exited with non-zero status
	# 1" (compare's regression) on a line before the figures
	tail -n 1 "$work/time" |
		awk -v ns=$((t1 - t0)) '{ printf "%.4f %.2f %s\n", ns / 1e9, $1 + $2, $3 }' \
			>>"$work/$name"
}
# median NAME FIELD: the median of field FIELD (1 wall, 2 cpu, 3 rss KB).
median() {
	awk -v f="$2" '{ print $f }' "$work/$1" | sort -g | awk '{ v[NR] = $1 }
		END { n = NR / 2; print NR % 2 ? v[n + 0.5] : (v[n] + v[n + 1]) / 2 }'
}
cmp_json() { # DIR: the command line of compare on DIR's pair
	echo "$bg" compare "$1/baseline.json" "$1/candidate.json" --json "$work/cmp.json" --quiet
}
cat >"$work/read.py" <<'EOF'
import json, sys
for f in ("/baseline.json", "/candidate.json"):
    doc = json.load(open(sys.argv[1] + f))
    if len(sys.argv) > 2:  # sort: the one metric's samples
        sorted(doc["cases"][0]["metrics"]["latency"]["samples"])
EOF

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 0; round < rounds; round++)); do
	timed cmp10k $(cmp_json "$work/c10k")
	timed cmp20k $(cmp_json "$work/c20k")
	timed py10k python3 "$work/read.py" "$work/c10k"
	timed cmpbig $(cmp_json "$work/big")
	timed pybig python3 "$work/read.py" "$work/big" sort
	timed histjson sh -c "cd '$store' && '$bg' history --json '$work/h.json' --quiet"
	timed histterm sh -c "cd '$store' && '$bg' history"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

for name in cmp10k py10k cmp20k cmpbig pybig histjson histterm; do
	printf '%s %s %s %s\n' "$name" "$(median $name 1)" "$(median $name 2)" "$(median $name 3)"
done >"$work/figures"
# each round's 20,000 over its 10,000, wall and CPU
paste "$work/cmp20k" "$work/cmp10k" |
	awk '{ printf "%.4f %.4f\n", $1 / $4, ($5 > 0 ? $2 / $5 : 0) }' >"$work/ratio20k"
printf 'ratio20k %s %s 0\n' "$(median ratio20k 1)" "$(median ratio20k 2)" >>"$work/figures"
python3 - "$work/figures" "$rounds" "$load_before" "$load_after" "$(nproc)" <<'EOF'
import sys
f = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss = line.split()
    f[name] = (float(wall), float(cpu), float(rss) / 1024)
t = lambda k: "%.2f s (CPU %.2f s)" % f[k][:2]
tm = lambda k: "%.2f s (CPU %.2f s), %.0f MB" % f[k]
print("benchgate at scale: %s rounds, medians; %s CPUs; load average %s before, %s after"
      % (sys.argv[2], sys.argv[5], sys.argv[3], sys.argv[4]))
print()
print("| figure | benchgate | peer or floor | ratio | target |")
print("|---|---|---|---|---|")
print("| compare, 10,000 cases | %s | python3 json.load of both files %s | %.2f | < 1.5 s |"
      % (t("cmp10k"), t("py10k"), f["cmp10k"][0] / f["py10k"][0]))
print("| compare, 20,000 cases | %s | compare of 10,000 cases %s | %.2f (CPU %.2f) | at most 2.1 |"
      % (t("cmp20k"), t("cmp10k"), f["ratio20k"][0], f["ratio20k"][1]))
print("| compare, one metric of 1,000,000 samples a side | %s | python3 reading and sorting both %s | %.2f | < 2 s |"
      % (t("cmpbig"), t("pybig"), f["cmpbig"][0] / f["pybig"][0]))
print("| history --json, 10,000 commits x 100 series | %s | the terminal view %s | %.2f | < 2 s, < 200 MB |"
      % (tm("histjson"), tm("histterm"), f["histjson"][0] / f["histterm"][0]))
EOF
