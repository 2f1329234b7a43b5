#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# How `benchgate import` grows with its input (docs/reliability.md): a
# Google Benchmark JSON of N entries (each its own benchmark, with
# real_time, cpu_time and one counter) imported and timed, for N = 1,000,
# 2,000, 5,000 and 10,000 by default. Linear work doubles with N; the
# pairwise checks it once had took 48-55 s at 10,000.
#
#   tests/perf/import-scale.sh BENCHGATE [N ...]
#
# Needs sh and awk.
set -eu
benchgate=$1
shift
[ $# -gt 0 ] || set -- 1000 2000 5000 10000
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for n in "$@"; do
	awk -v n="$n" 'BEGIN {
		print "{\"context\": {\"date\": \"2026-01-01T00:00:00+00:00\","
		print " \"library_build_type\": \"release\"}, \"benchmarks\": ["
		for (i = 0; i < n; i++)
			printf "%s{\"name\": \"BM_case/%d\", \"run_name\": " \
			    "\"BM_case/%d\", \"run_type\": \"iteration\", " \
			    "\"iterations\": 1000, \"real_time\": %d.5, " \
			    "\"cpu_time\": %d.25, \"time_unit\": \"ns\", " \
			    "\"items_per_second\": %d}\n", i ? "," : "", i, i,
			    100 + i, 99 + i, 1000 + i
		print "]}"
	}' >"$dir/gbench.json"
	start=$(date +%s.%N)
	"$benchgate" import --format gbench "$dir/gbench.json" \
		--store "$dir/store$n" --json "$dir/result.json" >/dev/null
	end=$(date +%s.%N)
	echo "$n entries: $(echo "$end - $start" | bc) s"
done
