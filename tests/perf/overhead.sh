#!/usr/bin/env bash
# Harness overhead per measured run, against hyperfine in the same session:
# both run /bin/true 1000 times; the median measured time of one run is the
# spawn-and-wait cost each tool adds. Also the whole invocation's wall time
# and peak RSS, measured by benchgate itself through a suite (rusage of the
# child), three times each.
#
#   tests/perf/overhead.sh [BUILD_DIR]     (default: build, a Release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
bg=$build/benchgate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v hyperfine >/dev/null || { echo "hyperfine is missing (bash ci/install-deps)" >&2; exit 2; }

cat >"$work/tools.json" <<JSON
{
  "benchgate": 1,
  "suite": "overhead",
  "defaults": { "warmup": 1, "runs": 5, "timeout": "120s" },
  "variants": {
    "hyperfine": { "vars": { "cmd": "hyperfine -N --runs 1000 --export-json $work/hf.json true" } },
    "benchgate": { "vars": { "cmd": "$PWD/$bg run $PWD/tests/perf/true-1000.json --store $work/store --quiet --json $work/bg.json" } }
  },
  "benchmarks": [{
    "name": "true-x1000",
    "shell": "\${cmd} >/dev/null 2>&1",
    "metrics": [
      { "name": "wall_time", "from": "wall" },
      { "name": "peak_rss", "from": "rusage", "field": "maxrss" }
    ]
  }]
}
JSON
"$bg" run "$work/tools.json" --store "$work/outer" --no-color --order sequential

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
hf=$(tr ',[]' '\n\n\n' <"$work/hf.json" | sed -n '/"times"/,/"exit_codes"/p' | grep -E '^ *[0-9.e-]+ *$' | median)
bgm=$(tr ',[]' '\n\n\n' <"$work/bg.json" | sed -n '/"samples"/,/]/p' | grep -E '^[[:space:]]*[0-9.e-]+[[:space:]]*$' | median)
awk -v hf="$hf" -v bg="$bgm" 'BEGIN {
	printf "median measured /bin/true: hyperfine -N %.1f us, benchgate %.1f us, ratio %.2f\n",
		hf * 1e6, bg * 1e6, bg / hf }'
