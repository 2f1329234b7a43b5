#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# How long an incremental `benchgate publish` takes after one new commit
# on a long history, against what it cannot do without: reading the
# history (README "Dashboard", figures in "Performance of history").
#
#   tests/perf/bench-publish.sh BENCHGATE [COMMITS] [RUNS]
#
# generates (once, cached in $BENCH_PUBLISH_DIR, default
# /tmp/benchgate-publish-COMMITS) a repository of COMMITS first-parent
# commits with one result per commit of 10 benchmarks x 10 metrics x 10
# samples (tests/perf/gen-history-store), copies it to a scratch
# directory, and there measures wall seconds, CPU seconds and peak RSS
# (/usr/bin/time), medians of RUNS (default 5):
#
# - first: the first `publish --out site` (every page, 100 charts);
# - again: `publish` once more with nothing new (every file kept);
# - one more commit: gen-history-store appends one commit and its result,
#   then `publish` (RUNS times, a commit each): what a nightly job pays;
# - history: `history` (terminal view) on the same store, warm index:
#   the walk, the store read and the change points that publish needs too;
# - read: reading every result file of the store (cat), the floor under
#   anything that shows the history.
#
# Prints publish's own line (files written and kept) of the last
# incremental run. Needs python3, git, gnuplot and GNU time. A Release
# build gives the README's figures.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/timing.sh" # bench_args, timed, median
bench_args "$@"
base=${BENCH_PUBLISH_DIR:-/tmp/benchgate-publish-$commits}

if [ ! -f "$base/planted.json" ]; then
	echo "generating $base ..." >&2
	"$here/gen-history-store" "$base" --commits "$commits" >&2
fi
# Appending changes the store: work on a copy, keep the cache as made.
cp -a "$base" "$scratch/repo"
cd "$scratch/repo"

"$bin" history >/dev/null # builds the history index (not timed here)
timed first "$bin" publish --out "$scratch/site"
for i in $(seq "$runs"); do
	timed again "$bin" publish --out "$scratch/site"
done
for i in $(seq "$runs"); do
	"$here/gen-history-store" . --commits $((commits + i)) >/dev/null
	timed one-more "$bin" publish --out "$scratch/site"
	cp "$scratch/out" "$scratch/last"
	timed history "$bin" history
	timed read sh -c "find .benchgate/results -name '*.json' -print0 |
		xargs -0 cat"
done

printf 'publish, %s commits, 100 series, medians of %s runs:\n' \
	"$commits" "$runs"
printf '| | seconds | CPU seconds | peak RSS MB |\n|---|---|---|---|\n'
for what in first again one-more history read; do
	printf '| %s | %s | %s | %s |\n' $what "$(median $what 1)" \
		"$(median $what 3)" \
		"$(median $what 2 | awk '{ printf "%.0f", $1 / 1024 }')"
done
cat "$scratch/last"
awk -v p="$(median one-more 1)" -v h="$(median history 1)" \
	-v r="$(median read 1)" 'BEGIN {
	printf "ratios: one more commit / history %.2f, / reading the " \
	       "results %.2f\n", (h > 0 ? p / h : 0), (r > 0 ? p / r : 0) }'
