#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Harness overhead per measured run, against hyperfine in the same session.
# Both tools run /bin/true 1000 times, alternately, ROUNDS times:
# - total wall time of one whole invocation (startup + 1000 runs), median;
# - the median time each tool measured for one /bin/true (its spawn cost);
# - peak RSS of each tool (getrusage of the waited-for child, via python3).
#
#   tests/perf/overhead.sh [BUILD_DIR] [ROUNDS]   (a Release build; default build 7)
set -euo pipefail
cd "$(dirname "$0")/../.."
bg=$PWD/${1:-build}/benchgate
rounds=${2:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v hyperfine >/dev/null || { echo "hyperfine is missing (bash ci/install-deps)" >&2; exit 2; }

now() { date +%s%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# The numbers of a JSON array "key": [ ... ] (one per line or inline).
json_array() { tr -d ' \n\t' <"$2" | grep -o "\"$1\":\[[^]]*\]" | head -1 | sed 's/.*\[//; s/\]//' | tr ',' '\n'; }
maxrss_kib() { python3 -c 'import resource,subprocess,sys
subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"; }

for ((i = 0; i < rounds; i++)); do
	rm -rf "$work/store"
	t0=$(now)
	"$bg" run tests/perf/true-1000.json --store "$work/store" --quiet --json "$work/bg.json" >/dev/null 2>&1
	t1=$(now)
	hyperfine -N --runs 1000 --export-json "$work/hf.json" true >/dev/null 2>&1
	t2=$(now)
	echo $(( (t1 - t0) / 1000 )) >>"$work/bg.total"
	echo $(( (t2 - t1) / 1000 )) >>"$work/hf.total"
	json_array samples "$work/bg.json" | median >>"$work/bg.run"
	json_array times "$work/hf.json" | median >>"$work/hf.run"
done

bg_total=$(median <"$work/bg.total"); hf_total=$(median <"$work/hf.total")
bg_run=$(median <"$work/bg.run"); hf_run=$(median <"$work/hf.run")
rm -rf "$work/store"
bg_rss=$(maxrss_kib "$bg" run tests/perf/true-1000.json --store "$work/store" --quiet)
hf_rss=$(maxrss_kib hyperfine -N --runs 1000 true)
awk -v bt="$bg_total" -v ht="$hf_total" -v br="$bg_run" -v hr="$hf_run" \
    -v bm="$bg_rss" -v hm="$hf_rss" -v n="$rounds" 'BEGIN {
	printf "%d alternating rounds of 1000 x /bin/true (medians)\n", n
	printf "| | benchgate | hyperfine -N | ratio |\n|---|---|---|---|\n"
	printf "| whole invocation | %.0f ms | %.0f ms | %.2f |\n", bt / 1e3, ht / 1e3, bt / ht
	printf "| per run, total | %.2f ms | %.2f ms | %.2f |\n", bt / 1e6, ht / 1e6, bt / ht
	printf "| one /bin/true as measured | %.0f us | %.0f us | %.2f |\n", br * 1e6, hr * 1e6, br / hr
	printf "| peak RSS | %.1f MiB | %.1f MiB | %.2f |\n", bm / 1024, hm / 1024, bm / hm }'
