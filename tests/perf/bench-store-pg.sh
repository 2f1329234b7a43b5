#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `benchgate history` (with change points) from a PostgreSQL store beside
# the directory and git stores of the same generated history, measured in
# the same run (docs/performance.md, "History from PostgreSQL").
#
#   tests/perf/bench-store-pg.sh BENCHGATE [COMMITS] [RUNS]
#
# uses (generating it once, as bench-history.sh does) the history of
# COMMITS first-parent commits (default 10000) x 100 metrics x 10 samples
# in $BENCH_HISTORY_DIR (default /tmp/benchgate-history-COMMITS), starts a
# PostgreSQL server of its own on a Unix socket in a temporary directory
# (as the user nobody when run as root: initdb refuses root), runs
# `benchgate store init`, copies the directory store into the database
# with bench_pg_load (the store verbs; time and rate printed), then for
# each store measures RUNS times (default 5; medians printed):
#
# - cold: `history` with no index (every result read and summarised);
# - warm: `history` with the index (only the listing is read);
#
# wall seconds, CPU seconds and peak RSS (/usr/bin/time), with the load
# average before the run. The PostgreSQL server's own CPU time is not in
# the CPU column (it is another process tree). Needs python3, git, GNU time
# and the PostgreSQL server programs (initdb, pg_ctl).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/timing.sh" # bench_args, timed, median
bench_args "$@"
dir=${BENCH_HISTORY_DIR:-/tmp/benchgate-history-$commits}
loader=$(dirname "$bin")/tests/perf/bench_pg_load
[ -x "$loader" ] || {
	echo "$loader is missing: build the target bench_pg_load" >&2
	exit 2
}

pgbin=
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -rn) \
	$(dirname "$(command -v pg_ctl 2>/dev/null || echo /none/x)"); do
	if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
		pgbin=$d
		break
	fi
done
[ -n "$pgbin" ] || {
	echo "no PostgreSQL server programs (initdb, pg_ctl)" >&2
	exit 2
}
as_owner=
pgdir=$(mktemp -d /tmp/benchgate-perf-pg-XXXXXX)
chmod 755 "$pgdir"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$pgdir"
	as_owner="runuser -u nobody --"
fi
cleanup() {
	$as_owner "$pgbin/pg_ctl" -D "$pgdir/data" -m fast stop \
		>/dev/null 2>&1 || true
	rm -rf "$pgdir" "$scratch"
}
trap cleanup EXIT
$as_owner "$pgbin/initdb" -D "$pgdir/data" -U postgres -A trust -E UTF8 \
	--locale=C --no-instructions >/dev/null
$as_owner "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
	-o "-k $pgdir -c listen_addresses=" start >/dev/null
url="postgresql://postgres@/benchgate?host=$pgdir"
psql -q "postgresql://postgres@/postgres?host=$pgdir" \
	-c 'CREATE DATABASE benchgate'

if [ ! -f "$dir/planted.json" ]; then
	echo "generating $dir ..." >&2
	"$here/gen-history-store" "$dir" --commits "$commits" \
		--git-store results >&2
fi
cd "$dir"
export XDG_CACHE_HOME="$scratch/cache"
"$bin" store init "$url" >/dev/null
echo "copying $dir/.benchgate/results into PostgreSQL:"
"$loader" .benchgate/results "$url"
psql -q -At "$url" -c "SELECT count(*) || ' results, ' ||
	(SELECT count(*) FROM benchgate_metrics) || ' metric rows, ' ||
	pg_size_pretty(pg_database_size('benchgate'))
	FROM benchgate_results"
psql -q "$url" -c 'VACUUM ANALYZE'

printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
for kind in dir git pg; do
	case $kind in
	dir)
		store=.benchgate/results
		index=.benchgate/results/.history-index
		;;
	git)
		store=git:results
		index=.git/benchgate/results/.history-index
		;;
	pg)
		store=$url
		index=$(find "$XDG_CACHE_HOME" -name .history-index \
			2>/dev/null | head -1)
		;;
	esac
	for i in $(seq "$runs"); do
		if [ $kind = pg ]; then
			rm -rf "$XDG_CACHE_HOME/benchgate"
		else
			rm -f "$index"
		fi
		timed $kind-cold "$bin" history --store "$store"
		timed $kind-warm "$bin" history --store "$store"
	done
done
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s commits, medians of %s runs:\n' "$commits" "$runs"
printf '| store | history | wall s | CPU s | peak RSS MB |\n'
printf '|---|---|---|---|---|\n'
for kind in dir git pg; do
	for what in cold warm; do
		printf '| %s | %s | %s | %s | %s |\n' $kind $what \
			"$(median $kind-$what 1)" "$(median $kind-$what 3)" \
			"$(median $kind-$what 2 | awk '{ printf "%.0f", $1 / 1024 }')"
	done
done
