#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# How long `benchgate compare` and `benchgate report --out` take on a
# suite of many cases, and what the report writes (README "Figures",
# "Reports for many cases"):
#
#   tests/perf/many-cases-time.sh BENCHGATE [CASES] [ROUNDS] [-- REPORT_ARGS]
#
# generates the pair of CASES cases (default 10000) of many-cases.sh, then
# ROUNDS times (default 3) compares them into a comparison document and
# writes every report of it (the charts with gnuplot, as
# BENCHGATE_GNUPLOT or PATH has it) into a fresh directory, and prints the
# wall time of each step in each round, their medians, and the number and
# size of the chart files. REPORT_ARGS go to `report` (such as
# --charts all). Needs sh, awk, du and date with %N.
set -eu

if [ $# -lt 1 ]; then
	echo "usage: $0 BENCHGATE [CASES] [ROUNDS] [-- REPORT_ARGS]" >&2
	exit 2
fi
benchgate=$1
shift
cases=10000
rounds=3
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	cases=$1
	shift
fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then
	rounds=$1
	shift
fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sh "$(dirname "$0")/many-cases.sh" "$cases" "$work"
now() { date +%s%N; }
median() {
	sort -g | awk '{ v[NR] = $1 }
		END { n = NR / 2
		      print NR % 2 ? v[n + 0.5] : (v[n] + v[n + 1]) / 2 }'
}

round=0
while [ "$round" -lt "$rounds" ]; do
	rm -rf "$work/out" "$work/cmp.json"
	t0=$(now)
	# exit 1: the generated regressions
	"$benchgate" compare "$work/baseline.json" "$work/candidate.json" \
		--json "$work/cmp.json" --quiet >/dev/null 2>&1 || [ $? -eq 1 ]
	t1=$(now)
	"$benchgate" report "$work/cmp.json" --out "$work/out" --quiet \
		"$@" >/dev/null 2>"$work/stderr"
	t2=$(now)
	echo "$(( (t1 - t0) / 1000000 ))" >>"$work/compare.ms"
	echo "$(( (t2 - t1) / 1000000 ))" >>"$work/report.ms"
	echo "round $((round + 1)): compare $(( (t1 - t0) / 1000000 )) ms," \
		"report $(( (t2 - t1) / 1000000 )) ms"
	round=$((round + 1))
done
echo "cases: $cases; rounds: $rounds;" \
	"load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "compare, median: $(median <"$work/compare.ms") ms"
echo "report --out, median: $(median <"$work/report.ms") ms"
echo "chart files: $(find "$work/out/charts" -type f 2>/dev/null | wc -l)," \
	"$(du -sm "$work/out/charts" 2>/dev/null | cut -f1) MB;" \
	"all reports: $(du -sm "$work/out" | cut -f1) MB"
sed 's/^/stderr: /' "$work/stderr"
