#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A large baseline/candidate pair of result files, for timing what
# benchgate does per case and per metric when a suite has thousands of
# cases (README "Figures", "Reports for many cases"), and for the chart
# bound's end-to-end test (tests/test_charts.c).
#
#   tests/perf/many-cases.sh CASES DIR [REGRESS_EVERY]
#
# writes DIR/baseline.json and DIR/candidate.json: CASES cases, four
# variants (original, quantized, pruned, distilled) of each benchmark
# b00000, b00001, ... on device cpu, each with latency (ms, 10 samples),
# throughput (higher is better, 10 samples) and accuracy (exact, one
# sample), as `benchgate run` writes them. Every REGRESS_EVERY-th case
# (default 50, the first at index REGRESS_EVERY - 1) is 20 % slower in the
# candidate, a regression; the others move by -1 % to +1 %, inside the
# noise, a different amount for each case so that no two changes tie.
# The noise is a fixed pattern of relative deviations (robust CV about
# 1 %, as in tests/test_compare.c), so every run writes the same bytes.
# Needs only sh and awk.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 CASES DIR [REGRESS_EVERY]" >&2
	exit 2
fi
cases=$1
dir=$2
every=${3:-50}
case $cases$every in
*[!0-9]*)
	echo "$0: CASES and REGRESS_EVERY are whole numbers" >&2
	exit 2
	;;
esac
mkdir -p "$dir"

# side: 0 the baseline, 1 the candidate
write() {
	awk -v cases="$cases" -v every="$every" -v side="$1" '
	BEGIN {
		split("-0.012 0.004 0.009 -0.003 0.001 -0.007 0.013 -0.001 " \
		      "0.006 -0.010", jitter, " ")
		split("original quantized pruned distilled", variant, " ")
		split("10.0 4.1 6.3 3.2", latency, " ")
		split("0.951 0.946 0.948 0.932", accuracy, " ")
		commit = side ? "c0ffee1c0ffee1c0ffee1c0ffee1c0ffee1c0ffe" \
			      : "ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1ba5e1"
		printf "{\"benchgate_result\": 1, \"suite\": \"many\", "
		printf "\"git\": {\"commit\": \"%s\"}, ", commit
		printf "\"machine\": {\"id\": \"m1\"}, \"cases\": [\n"
		for (c = 0; c < cases; c++) {
			v = c % 4 + 1
			level = latency[v]
			if (side && every && c % every == every - 1)
				level *= 1.20
			else if (side)
				level *= 1 + ((c * 7919) % 2001 - 1000) / 1e5
			for (i = 0; i < 10; i++)
				x[i] = level * \
				       (1 + jitter[(i + side * 3 + c) % 10 + 1])
			printf "%s{\"benchmark\": \"b%05d\", ", c ? ",\n" : "",
			       int(c / 4)
			printf "\"variant\": \"%s\", ", variant[v]
			printf "\"device\": \"cpu\", \"status\": \"ok\", "
			printf "\"runs\": 10, \"metrics\": {\"latency\": "
			printf "{\"unit\": \"ms\", \"runs\": 10, \"samples\": ["
			for (i = 0; i < 10; i++)
				printf "%s%.6g", i ? ", " : "", x[i]
			printf "]}, \"throughput\": {\"unit\": "
			printf "\"samples/s\", \"better\": \"higher\", "
			printf "\"runs\": 10, \"samples\": ["
			for (i = 0; i < 10; i++)
				printf "%s%.6g", i ? ", " : "", 32000 / x[i]
			printf "]}, \"accuracy\": {\"exact\": true, "
			printf "\"tolerance\": 0.002, \"better\": \"higher\", "
			printf "\"runs\": 1, \"samples\": [%s]}}}", accuracy[v]
		}
		printf "\n]}\n"
	}' >"$2"
}

write 0 "$dir/baseline.json"
write 1 "$dir/candidate.json"
