#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `history` with change points and `history --json` on the generated store
# of 10,000 commits x 100 series, the index warm: the rows of
# docs/performance.md "history with change points".
#
#   tests/perf/bench-history-speed.sh BENCHGATE [ROUNDS] [OTHER_BENCHGATE]
#
# The store is tests/perf/gen-history-store's (cached in
# $BENCH_HISTORY_DIR, default /tmp/benchgate-history-10000, as
# bench-scale.sh and bench-history.sh make it); its index is made before
# the rounds. Each round (default 5) runs, in turn, the terminal view
# (`history`) and `history --json FILE --quiet`, and the same two with
# OTHER_BENCHGATE when given (an older build: before and after measured
# in the same minutes), and checks that both builds wrote the same
# document and the same terminal view. Wall seconds, CPU seconds (user +
# system) and peak RSS by GNU time, medians over the rounds, with the
# load average before and after: on a loaded machine wall time is CPU time
# stretched by the wait for a core, so both are printed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	echo "usage: $0 BENCHGATE [ROUNDS] [OTHER_BENCHGATE]" >&2
	exit 2
fi
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
bg=$(abs "$1")
rounds=${2:-5}
other=${3:+$(abs "$3")}
[ -x /usr/bin/time ] || { echo "$0: GNU time (/usr/bin/time) is missing" >&2; exit 2; }
store=${BENCH_HISTORY_DIR:-/tmp/benchgate-history-10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$store/planted.json" ]; then
	echo "$0: generating $store ..." >&2
	"$here/gen-history-store" "$store" --commits 10000 >&2
fi
cd "$store"
"$bg" history --quiet >/dev/null 2>&1 || [ $? -eq 1 ]

# timed NAME CMD...: appends "wall cpu rss_kb" of CMD to $work/NAME (its
# stdout to $work/NAME.out); exit status 1 (a regression found) is no
# failure.
timed() {
	local name=$1
	shift
	/usr/bin/time -o "$work/time" -f '%e %U %S %M' "$@" >"$work/$name.out" ||
		[ $? -eq 1 ]
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time" >>"$work/$name"
}
# median NAME FIELD: the median of field FIELD (1 wall, 2 cpu, 3 rss KB).
median() {
	awk -v f="$2" '{ print $f }' "$work/$1" | sort -g | awk '{ v[NR] = $1 }
		END { n = NR / 2; print NR % 2 ? v[n + 0.5] : (v[n] + v[n + 1]) / 2 }'
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 0; round < rounds; round++)); do
	timed term "$bg" history
	timed json "$bg" history --json "$work/after.json" --quiet
	if [ -n "$other" ]; then
		timed other-term "$other" history
		timed other-json "$other" history --json "$work/before.json" --quiet
		cmp -s "$work/after.json" "$work/before.json" ||
			{ echo "$0: the two builds' documents differ" >&2; exit 1; }
		cmp -s "$work/term.out" "$work/other-term.out" ||
			{ echo "$0: the two builds' terminal views differ" >&2; exit 1; }
	fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

row() { # LABEL NAME
	printf '| %s | %s | %s | %.0f |\n' "$1" "$(median "$2" 1)" \
		"$(median "$2" 2)" "$(echo "$(median "$2" 3)" | awk '{ print $1 / 1024 }')"
}
printf 'history of %s (%s MB document), %s rounds, medians; %s CPUs; load average %s before, %s after\n\n' \
	"$store" "$(($(wc -c <"$work/after.json") / 1000000))" "$rounds" "$(nproc)" \
	"$load_before" "$load_after"
printf '| command | wall s | CPU s | peak RSS MB |\n|---|---|---|---|\n'
row "history (terminal view)" term
row "history --json FILE --quiet" json
if [ -n "$other" ]; then
	row "history (terminal view), $3" other-term
	row "history --json FILE --quiet, $3" other-json
	echo
	echo "The two builds wrote the same document and the same terminal view."
fi
