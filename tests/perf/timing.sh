# SPDX-License-Identifier: Apache-2.0
# Sourced by the tests/perf/bench-*.sh scripts: their arguments, timing
# one command and the median of several.

# bench_args "$@": BENCHGATE [COMMITS] [RUNS] into $bin (absolute),
# $commits (default 10000) and $runs (default 5); makes $scratch, a
# directory removed on exit.
bench_args() {
	if [ $# -lt 1 ] || [ $# -gt 3 ]; then
		echo "usage: $0 BENCHGATE [COMMITS] [RUNS]" >&2
		exit 2
	fi
	bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	commits=${2:-10000}
	runs=${3:-5}
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' EXIT
}

# timed NAME CMD...: appends "seconds kilobytes cpu-seconds" of one run
# (GNU time's wall clock, peak RSS, and user + system time of it and its
# children) to $scratch/NAME; the command's stdout goes to $scratch/out.
# On a loaded machine the CPU time says more than the wall clock.
timed() {
	name=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$scratch/time" "$@" >"$scratch/out"
	awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$scratch/time" \
		>>"$scratch/$name"
}

# median NAME FIELD: the median of column FIELD (1 seconds, 2 KB, 3 CPU
# seconds).
median() {
	cut -d' ' -f"$2" "$scratch/$1" | sort -n |
		awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      print m }'
}
