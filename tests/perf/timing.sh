# Sourced by the tests/perf/bench-*.sh scripts: timing one command and
# the median of several. They need $scratch, a directory of their own.

# timed NAME CMD...: appends "seconds kilobytes" of one run (GNU time's
# wall clock and peak RSS) to $scratch/NAME; the command's stdout goes to
# $scratch/out.
timed() {
	name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$scratch/time" "$@" >"$scratch/out"
	cat "$scratch/time" >>"$scratch/$name"
}

# median NAME FIELD: the median of column FIELD (1 seconds, 2 KB).
median() {
	cut -d' ' -f"$2" "$scratch/$1" | sort -n |
		awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      print m }'
}
