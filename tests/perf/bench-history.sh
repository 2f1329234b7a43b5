#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# How long `benchgate history` takes on a long history, against the time
# the store takes just to be read (README "Performance of history").
#
#   tests/perf/bench-history.sh BENCHGATE [COMMITS] [RUNS]
#
# generates (once, cached in $BENCH_HISTORY_DIR, default
# /tmp/benchgate-history-COMMITS) a repository of COMMITS first-parent
# commits (default 10000) with one result per commit of 10 benchmarks x
# 10 metrics x 10 samples (tests/perf/gen-history-store), in a directory
# store and on the branch `results` (git:results), then for each store
# kind measures, RUNS times each (default 5), medians printed:
#
# - cold: `history` and `history --json` with no index (the first call:
#   every result read, summarised and indexed);
# - warm: `history` (terminal view) and `history --json` with the index;
# - the floor: reading every result file (cat, or git cat-file --batch on
#   the branch's blobs), and reading the index file (cat, the time of ten
#   divided by ten: one is below /usr/bin/time's 10 ms);
#
# wall seconds and peak RSS (/usr/bin/time), and the ratios of cold and
# warm to reading the results, and of warm to reading the index. Needs python3, git and GNU
# time. A Release build gives the README's figures.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/timing.sh" # bench_args, timed, median
bench_args "$@"
dir=${BENCH_HISTORY_DIR:-/tmp/benchgate-history-$commits}

if [ ! -f "$dir/planted.json" ]; then
	echo "generating $dir ..." >&2
	"$here/gen-history-store" "$dir" --commits "$commits" \
		--git-store results >&2
fi
cd "$dir"

# timed_tenth NAME CMD...: as timed, the tenth of ten runs' seconds.
timed_tenth() {
	name=$1
	shift
	start=$(date +%s%N)
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		"$@" >/dev/null
	done
	end=$(date +%s%N)
	echo "$(((end - start) / 10000000)) 0" |
		awk '{ printf "%.3f %d\n", $1 / 1000, $2 }' >>"$scratch/$name"
}

for kind in dir git; do
	if [ $kind = dir ]; then
		store=.benchgate/results
		index=.benchgate/results/.history-index
		floor="find .benchgate/results -name '*.json' -print0 |
			xargs -0 cat"
	else
		store=git:results
		index=.git/benchgate/results/.history-index
		floor="git ls-tree -r results | awk '{ print \$3 }' |
			git cat-file --batch"
	fi
	for i in $(seq "$runs"); do
		rm -f "$index"
		timed $kind-cold "$bin" history --store $store
		rm -f "$index"
		timed $kind-cold-json "$bin" history --store $store \
			--json "$scratch/h.json"
		timed $kind-warm "$bin" history --store $store
		timed $kind-warm-json "$bin" history --store $store \
			--json "$scratch/h.json"
		timed $kind-floor sh -c "$floor"
		timed_tenth $kind-index cat "$index"
	done
	index_mb=$(du -m "$index" | cut -f1)
	printf '%s store (%s), %s commits, medians of %s runs:\n' \
		$kind $store "$commits" "$runs"
	printf '| | seconds | peak RSS MB |\n|---|---|---|\n'
	for what in cold cold-json warm warm-json floor index; do
		printf '| %s | %s | %s |\n' $what \
			"$(median $kind-$what 1)" \
			"$(median $kind-$what 2 | awk '{ printf "%.0f", $1 / 1024 }')"
	done
	awk -v c="$(median $kind-cold 1)" -v f="$(median $kind-floor 1)" \
		-v w="$(median $kind-warm 1)" -v i="$(median $kind-index 1)" \
		-v mb="$index_mb" 'BEGIN {
		printf "ratios: cold / reading the results %.1f, warm / " \
		       "reading the results %.2f, warm / reading the index " \
		       "(%d MB) %.0f\n\n", c / f, w / f, mb, w / (i > 0 ? i : 0.001) }'
done
