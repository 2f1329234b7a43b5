#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fault injection against a built benchgate (issue 17): kill -9 in the middle
# of runs, a full disk, and concurrent writers, over both stores (a directory
# and git:BRANCH). It builds nothing: give it the binary.
#
#   bash tests/faults/run.sh BUILD/benchgate [--kills N] [--writers N]
#                                            [--disk tmpfs|ulimit]
#
# --kills N   kill -9 per store (default 40: 80 in all, as in the issue)
# --writers N concurrent `benchgate run` per store (default 12)
# --disk M    how to fill the disk (default: tmpfs when it can be mounted)
#
# Every check prints what it tried and what held; the last lines are the
# figures the README's "Reliability" section quotes. Exit status 0 when
# everything held, 1 when a check failed, 2 on bad usage. It takes a few
# minutes (an ASan build is slower), so it is not part of ctest's default
# run. The git program is used here only, to set up the repository and to
# run `git fsck`: benchgate itself never runs it.
#
# A full disk is a small tmpfs when mount(8) works (as root, in CI), else
# `ulimit -f` (the kernel refuses to grow any file past the limit), which
# also stops the fallback file: that mode checks only that nothing is left
# behind and the exit status. The summary says which one was used.
set -u -o pipefail

usage() {
	echo "usage: $0 BENCHGATE [--kills N] [--writers N] [--disk tmpfs|ulimit]" >&2
	exit 2
}

[[ $# -ge 1 ]] || usage
BENCHGATE=$(realpath "$1") || usage
shift
KILLS=40
WRITERS=12
DISK=
while [[ $# -gt 0 ]]; do
	case $1 in
	--kills) KILLS=${2:?}; shift 2 ;;
	--writers) WRITERS=${2:?}; shift 2 ;;
	--disk) DISK=${2:?}; shift 2 ;;
	*) usage ;;
	esac
done
[[ -x $BENCHGATE ]] || { echo "$0: '$BENCHGATE' is not executable" >&2; exit 2; }
command -v git >/dev/null || { echo "$0: needs git (for fsck)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchgate-faults-XXXXXX")
MNT=$WORK/mnt
MOUNTED=0
cleanup() {
	[[ $MOUNTED == 1 ]] && umount "$MNT" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# benchgate's own temporary files (the runner's) stay inside the work dir
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
export BENCHGATE_MACHINE_ID=faults
export NO_COLOR=1
BRANCH=faults
FAILED=0
EXECUTIONS=0
FIGURES=()

held() { printf '  held: %s\n' "$*"; }
broke() { printf '  FAILED: %s\n' "$*"; FAILED=1; }
check() { # check DESCRIPTION COMMAND...: held when the command succeeds
	local what=$1
	shift
	if "$@"; then held "$what"; else broke "$what"; fi
}

# A repository with one commit: the git store's home, and the commit every
# result is keyed by.
make_repo() {
	local dir=$1
	mkdir -p "$dir"
	git -C "$dir" init -q -b main
	git -C "$dir" -c user.name=faults -c user.email=faults@localhost \
		commit -q --allow-empty -m "the code"
}

# The benchmark: a marker in its path (to count orphans), some output for
# the stdout metric, and a few milliseconds of work.
BENCH=$WORK/bench-faults-marker.sh
cat >"$BENCH" <<'EOF'
#!/bin/sh
echo "v=$((BENCHGATE_RUN + 100))"
sleep 0.005
EOF
chmod +x "$BENCH"

# A suite of CASES cases, 3 measured runs each, every run's log and the
# result big enough that writing them takes a while. $1: an extra case
# (JSON) or nothing.
CASES=40
write_suite() {
	local path=$1 extra=${2:-}
	{
		printf '{"benchgate": 1, "suite": "faults",'
		printf ' "defaults": {"runs": 3, "warmup": 0, "timeout": "30s"},'
		printf ' "benchmarks": [%s' "$extra"
		for ((i = 0; i < CASES; i++)); do
			[[ $i -gt 0 || -n $extra ]] && printf ', '
			printf '{"name": "case%03d", "command": ["%s"],' "$i" "$BENCH"
			printf ' "metrics": [{"name": "v", "from": "stdout",'
			printf ' "regex": "v=([0-9]+)"}, {"name": "wall", "from": "wall"}]}'
		done
		printf ']}\n'
	} >"$path"
}

REPO=$WORK/repo
make_repo "$REPO"
SUITE=$REPO/suite.json
write_suite "$SUITE"

# One store spec per kind, relative to the repository.
DIR_STORE=$REPO/store
GIT_STORE=git:$BRANCH

# Runs benchgate in the repository; its exit status.
bg() {
	EXECUTIONS=$((EXECUTIONS + 1))
	(cd "$REPO" && "$BENCHGATE" "$@")
}

# The result files of a store, one path a line (git: "BRANCH:path").
list_results() {
	local store=$1
	if [[ $store == git:* ]]; then
		git -C "$REPO" ls-tree -r --name-only "refs/heads/${store#git:}" \
			2>/dev/null | grep -E '^[^/]+/[^/]+/[^/]+\.json$' |
			sed "s|^|${store#git:}:|"
	else
		find "$store" -mindepth 3 -maxdepth 3 -name '*.json' \
			! -name '.*' 2>/dev/null
	fi
}

# Whether every result of a store loads (benchgate report validates the
# whole document); prints the number of bad ones.
count_corrupt() {
	local store=$1 bad=0 file
	while read -r file; do
		local doc=$file
		if [[ $store == git:* ]]; then
			doc=$WORK/check.json
			git -C "$REPO" show "$file" >"$doc" || { bad=$((bad + 1)); continue; }
		fi
		rm -rf "$WORK/report"
		EXECUTIONS=$((EXECUTIONS + 1))
		"$BENCHGATE" report "$doc" --out "$WORK/report" --format json \
			>/dev/null 2>&1 || bad=$((bad + 1))
	done < <(list_results "$store")
	echo "$bad"
}

# What writes left behind that nobody will use: the directory store's
# temporary files, the git store's scratch (its .lock excepted) and
# temporary objects, and fallback files. Prints them.
leftovers() {
	local store=$1
	if [[ $store == git:* ]]; then
		local scratch=$REPO/.git/benchgate/${store#git:}
		[[ -d $scratch ]] && find "$scratch" -mindepth 1 ! -name .lock
		find "$REPO/.git/objects" -name 'tmp_*' 2>/dev/null
		find "$REPO/.git" -maxdepth 3 -name 'quarantine*' 2>/dev/null
	else
		find "$store" \( -path '*/.tmp/*' -o -name '.tmp-*' \) 2>/dev/null
	fi
	find "$REPO" -maxdepth 1 -name '*benchgate-unstored-*' 2>/dev/null
}

orphans() {
	pgrep -f "bench-faults-marker" | wc -l
}

fsck_clean() {
	git -C "$REPO" fsck --full --no-dangling >/dev/null 2>&1
}

# The time of one undisturbed run, in seconds (and a check that it works).
time_run() {
	local store=$1 start end
	start=$(date +%s.%N)
	bg run suite.json --store "$store" --quiet >/dev/null 2>&1 || return 1
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}

# A delay in [0, 1.05 T] for a run that takes T: half of them uniform, half
# from 0.85 T on, where the result and the logs are being written.
random_delay() {
	local t=$1 permille
	if ((RANDOM % 2)); then
		permille=$((RANDOM % 1000))
	else
		permille=$((850 + RANDOM % 200))
	fi
	awk -v t="$t" -v p="$permille" 'BEGIN { printf "%.3f\n", t * p / 1000 }'
}

kill_loop() {
	local store=$1 kind=$2 t killed=0 finished=0 reported=0 missing=0
	local before after out pid corrupt left orphan next=0 t2
	echo "kill -9 mid-run, $kind store ($store): $KILLS kills"
	# the shorter of two undisturbed runs, so that most kills land
	# before the end
	t=$(time_run "$store") && t2=$(time_run "$store") ||
		{ broke "an undisturbed run into $store"; return; }
	t=$(awk -v a="$t" -v b="$t2" 'BEGIN { print (a < b ? a : b) }')
	before=$(list_results "$store" | wc -l)
	for ((k = 0; k < KILLS; k++)); do
		out=$WORK/kill-$k.out
		EXECUTIONS=$((EXECUTIONS + 1))
		(cd "$REPO" && exec "$BENCHGATE" run suite.json --store "$store" \
			--quiet >"$out" 2>&1) &
		pid=$!
		sleep "$(random_delay "$t")"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		case $? in
		0) finished=$((finished + 1)) ;;
		137) killed=$((killed + 1)) ;;
		*) broke "run $k exited with $? before it was killed" ;;
		esac
		# every result a run said it stored is there
		while read -r _ path; do
			reported=$((reported + 1))
			if [[ $store == git:* ]]; then
				git -C "$REPO" cat-file -e "$path" 2>/dev/null ||
					missing=$((missing + 1))
			else
				[[ -f $path ]] || missing=$((missing + 1))
			fi
		done < <(grep '^stored ' "$out")
	done
	sleep 0.5
	orphan=$(orphans)
	# the next runs reclaim what the killed ones left, and succeed
	for _ in 1 2; do
		bg run suite.json --store "$store" --quiet >/dev/null 2>&1 &&
			next=$((next + 1))
	done
	after=$(list_results "$store" | wc -l)
	corrupt=$(count_corrupt "$store")
	left=$(leftovers "$store" | wc -l)
	echo "  $killed killed mid-run, $finished finished before the kill;" \
		"$((after - before - next)) results stored by them, $reported" \
		"reported stored"
	check "no result lost: $missing of $reported reported results missing" \
		[ "$missing" -eq 0 ]
	check "no result corrupt: $corrupt of $after unreadable" [ "$corrupt" -eq 0 ]
	check "the next runs succeed: $next of 2" [ "$next" -eq 2 ]
	check "nothing left behind after the next run: $left files" [ "$left" -eq 0 ]
	check "no orphaned benchmark: $orphan" [ "$orphan" -eq 0 ]
	check "git fsck clean" fsck_clean
	if [[ $store != git:* ]]; then
		local dead
		dead=$(find "$store" -mindepth 4 -maxdepth 4 -path '*/logs/*' -type d |
			wc -l)
		echo "  (logs/ directories, killed runs' included, kept by design: $dead)"
	fi
	FIGURES+=("kill -9, $kind store: $killed kills ($finished runs finished first), $missing lost, $corrupt corrupt of $after results, $left left behind, $orphan orphans, fsck $(fsck_clean && echo clean || echo FAILED)")
}

writers() {
	local store=$1 kind=$2 before after pids=() ok=0 corrupt left
	echo "$WRITERS concurrent writers, $kind store ($store)"
	before=$(list_results "$store" | wc -l)
	for ((w = 0; w < WRITERS; w++)); do
		EXECUTIONS=$((EXECUTIONS + 1))
		(cd "$REPO" && exec "$BENCHGATE" run suite.json --store "$store" \
			--quiet >"$WORK/writer-$w.out" 2>&1) &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" && ok=$((ok + 1))
	done
	after=$(list_results "$store" | wc -l)
	corrupt=$(count_corrupt "$store")
	left=$(leftovers "$store" | wc -l)
	check "every writer succeeded: $ok of $WRITERS" [ "$ok" -eq "$WRITERS" ]
	check "every result present: $((after - before)) new of $WRITERS" \
		[ $((after - before)) -eq "$WRITERS" ]
	check "none corrupt: $corrupt" [ "$corrupt" -eq 0 ]
	check "nothing left behind: $left files" [ "$left" -eq 0 ]
	check "git fsck clean" fsck_clean
	FIGURES+=("$WRITERS concurrent writers, $kind store: $ok succeeded, $((after - before)) results, $corrupt corrupt, $left left behind")
}

# A disk that fills during the run: the first case's first run fills it,
# so every benchmark runs and the store then cannot take the result.
full_disk() {
	local mode=$1 store kind rc out kept left json
	local fill_repo=$REPO
	echo "full disk ($mode)"
	for kind in directory git; do
		if [[ $mode == tmpfs ]]; then
			rm -rf "$MNT/repo"
			make_repo "$MNT/repo"
			fill_repo=$MNT/repo
			# once: the marker is on another disk
			rm -f "$WORK/filled"
			write_suite "$fill_repo/suite.json" "{\"name\": \"filler\", \"shell\": \"[ -e $WORK/filled ] || { : >$WORK/filled; dd if=/dev/zero of=$MNT/filler bs=64k 2>/dev/null; }; true\", \"metrics\": [{\"name\": \"wall\", \"from\": \"wall\"}]}"
		fi
		store=$fill_repo/store
		[[ $kind == git ]] && store=$GIT_STORE
		out=$WORK/full-$kind.out
		# the directory store's run with --json on another disk, the
		# git store's without: the current directory is on the full
		# disk, so the fallback file goes to $TMPDIR
		json=$WORK/full-$kind.json
		args=(--json "$json")
		[[ $kind == git ]] && args=()
		rm -f "$json" "$TMPDIR"/benchgate-unstored-*
		EXECUTIONS=$((EXECUTIONS + 1))
		if [[ $mode == tmpfs ]]; then
			(cd "$fill_repo" && "$BENCHGATE" run suite.json --store "$store" \
				"${args[@]}" --quiet >"$out" 2>&1)
		else
			(cd "$fill_repo" && ulimit -f 1 && trap '' XFSZ &&
				"$BENCHGATE" run suite.json --store "$store" \
				"${args[@]}" --quiet >"$out" 2>&1)
		fi
		rc=$?
		check "$kind store: exit 4, measured but not stored (got $rc)" [ "$rc" -eq 4 ]
		if [[ $mode == tmpfs ]]; then
			[[ $kind == git ]] &&
				json=$(ls "$TMPDIR"/benchgate-unstored-faults-*.json 2>/dev/null)
			kept=0
			[[ -n $json ]] && "$BENCHGATE" report "$json" --out "$WORK/report" \
				--format json >/dev/null 2>&1 && kept=1
			check "$kind store: the result is kept in ${json:-nothing}" \
				[ "$kept" -eq 1 ]
			check "$kind store: the message names it" grep -qF "$json" "$out"
		else
			check "$kind store: the message says the result is lost" \
				grep -q "measurements are lost" "$out"
		fi
		# nothing of the failed write stays on the full disk
		if [[ $kind == git ]]; then
			left=$(find "$fill_repo/.git/benchgate" -mindepth 2 ! -name .lock \
				2>/dev/null | wc -l)
			left=$((left + $(find "$fill_repo/.git/objects" -name 'tmp_*' | wc -l)))
		else
			left=$(find "$store" \( -path '*/.tmp/*' -o -name '.tmp-*' \) \
				2>/dev/null | wc -l)
		fi
		check "$kind store: no scratch or temporary file left: $left" [ "$left" -eq 0 ]
		rm -f "$MNT/filler"
		EXECUTIONS=$((EXECUTIONS + 1))
		(cd "$fill_repo" && "$BENCHGATE" run suite.json --store "$store" \
			--quiet >/dev/null 2>&1)
		next=$?
		check "$kind store: the next run stores (exit $next)" [ "$next" -eq 0 ]
		check "$kind store: git fsck clean" \
			git -C "$fill_repo" fsck --full --no-dangling
		if [[ $mode == tmpfs && $kind == git ]]; then
			kept="the result kept in a fallback file in \$TMPDIR"
		elif [[ $mode == tmpfs ]]; then
			kept="the result kept in --json on another disk"
		else
			kept="no file can be written, the message says the result is lost"
		fi
		FIGURES+=("full disk ($mode), $kind store: exit $rc, $kept, $left left behind, next run exit $next")
	done
}

echo "benchgate fault injection: $BENCHGATE"
echo "work directory: $WORK"
kill_loop "$DIR_STORE" directory
kill_loop "$GIT_STORE" git
writers "$DIR_STORE" directory
writers "$GIT_STORE" git
mkdir -p "$MNT"
if [[ $DISK != ulimit ]] && mount -t tmpfs -o size=8m tmpfs "$MNT" 2>/dev/null; then
	MOUNTED=1
	DISK="a full 8 MiB tmpfs"
	full_disk tmpfs
elif [[ $DISK == tmpfs ]]; then
	broke "cannot mount a tmpfs on $MNT (--disk tmpfs)"
else
	DISK="ulimit -f 1 (no tmpfs: mount refused or --disk ulimit)"
	full_disk ulimit
fi

echo
echo "figures: $EXECUTIONS benchgate executions; full disk by $DISK"
for figure in "${FIGURES[@]}"; do
	echo "  $figure"
done
if [[ $FAILED == 0 ]]; then
	echo "everything held"
else
	echo "SOME CHECKS FAILED"
fi
exit $FAILED
