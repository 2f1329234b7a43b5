#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Store size per case before and after `store compact`, and the time and
# rate of `store copy`, on a generated store (docs/performance.md, "Keeping
# the store small").
#
#     tests/perf/store-maintenance.sh BUILD_DIR [COMMITS]
#
# Generates (tests/perf/gen-history-store) a repository of COMMITS commits
# (default 200) whose directory store holds one result per measured
# commit: 4 cases of one metric with 5,000 per-iteration samples from 10
# runs each, the shape of the issue's example. Then measures, printing a
# Markdown table and the load average before and after:
# - bytes per case of the result documents, before and after
#   `store compact --samples 64`;
# - `store copy` directory -> git:copied (a commit per group of results,
#   STORE_BATCH_MAX) and back git:copied -> directory, wall time, CPU time
#   (user + system) and results and MB per second, the commits the copy
#   made, and that the round trip gives identical files (diff -r);
# - the git repository's packed size with the copied branch, after
#   `store compact --squash` of that branch and `git gc --prune=now`.
set -euo pipefail

build=${1:?usage: $0 BUILD_DIR [COMMITS]}
commits=${2:-200}
bg="$(cd "$build" && pwd)/benchgate"
gen="$(cd "$(dirname "$0")" && pwd)/gen-history-store"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
now() { date +%s.%N; }
json_bytes() { find "$1" -name '*.json' -printf '%s\n' | awk '{s += $1} END {print s}'; }
pack_kib() {
	git gc -q --prune=now
	git count-objects -v | awk '/^size-pack/ {print $2}'
}

before_load=$(load)
python3 "$gen" "$work/repo" --commits "$commits" --benchmarks 4 --metrics 1 \
	--samples 5000 --runs 10 >/dev/null
cd "$work/repo"
store=.benchgate/results
results=$(find "$store" -name '*.json' | wc -l)
cases=$((results * 4))
bytes=$(json_bytes "$store")

cpu() { /usr/bin/time -f '%U %S' -o "$work/cpu" "$@" && awk '{ print $1 + $2 }' "$work/cpu"; }
t0=$(now)
cpu0=$(cpu "$bg" store copy --quiet --from "$store" --to git:copied)
t1=$(now)
cpu1=$(cpu "$bg" store copy --quiet --from git:copied --to back)
t2=$(now)
commits_made=$(git rev-list --count copied)
diff -r -x .lock -x .tmp "$store" back >/dev/null && identical=yes || identical=NO
packed=$(pack_kib)

"$bg" store compact --quiet --store "$store" --samples 64
compacted=$(json_bytes "$store")
"$bg" store compact --quiet --store git:copied --samples 64 --squash
git reflog expire --expire=now --all
packed_after=$(pack_kib)
after_load=$(load)

awk -v r="$results" -v c="$cases" -v b="$bytes" -v a="$compacted" \
	-v t0="$t0" -v t1="$t1" -v t2="$t2" -v p="$packed" -v pa="$packed_after" \
	-v same="$identical" -v c0="$cpu0" -v c1="$cpu1" -v made="$commits_made" 'BEGIN {
	printf "| figure | value |\n|---|---|\n"
	printf "| results (cases) | %d (%d) |\n", r, c
	printf "| document bytes per case, before compact | %.0f |\n", b / c
	printf "| document bytes per case, after compact --samples 64 | %.0f |\n", a / c
	printf "| store copy dir -> git | %.2f s (CPU %.2f s), %.1f results/s, %.2f MB/s |\n", \
		t1 - t0, c0, r / (t1 - t0), b / 1e6 / (t1 - t0)
	printf "| commits the copy made on the branch | %d |\n", made
	printf "| store copy git -> dir | %.2f s (CPU %.2f s), %.1f results/s, %.2f MB/s |\n", \
		t2 - t1, c1, r / (t2 - t1), b / 1e6 / (t2 - t1)
	printf "| round trip identical (diff -r) | %s |\n", same
	printf "| git pack with the branch, before | %d KiB |\n", p
	printf "| git pack after compact --squash, gc | %d KiB |\n", pa
}'
echo
echo "load average before: $before_load; after: $after_load"
