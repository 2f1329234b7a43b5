#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite on a machine that is not quiet: `ctest -j2` of a
# built tree, ROUNDS times, with a CPU-bound busy loop on every core for
# the whole time, as on a shared CI runner. Prints one line a round (exit
# status, seconds, load average, ctest's summary) and keeps each round's
# output in OUT/roundN.log. Exit 1 when a round failed.
#
#   tests/load/ctest-under-load.sh BUILD_DIR [ROUNDS] [OUT]
#
# BUILD_DIR: a configured and built tree (ci/test's build-test is the
# ASan+UBSan one); ROUNDS: default 10; OUT: default a new temporary
# directory. The verdict-asserting tests (second repository, bisect,
# import, baseline tree and their kind) are what it is for: their
# assertions must hold with the suite's own parallelism and a busy
# neighbour (docs/development.md, "Tests under load").
set -uo pipefail
build=${1:?usage: $0 BUILD_DIR [ROUNDS] [OUT]}
rounds=${2:-10}
out=${3:-$(mktemp -d)}
[ -f "$build/CTestTestfile.cmake" ] ||
	{ echo "ctest-under-load: $build is not a built tree" >&2; exit 2; }
mkdir -p "$out"
busy=()
for _ in $(seq "$(nproc)"); do
	(while :; do :; done) &
	busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT
failed=0
echo "ctest -j2 in $build, $rounds rounds, a busy loop on each of $(nproc) cores; logs in $out"
for round in $(seq "$rounds"); do
	start=$(date +%s)
	(cd "$build" && ctest -j2 --output-on-failure) >"$out/round$round.log" 2>&1
	rc=$?
	((rc == 0)) || failed=1
	printf 'round %d: rc %d, %d s, ended %s UTC, load %s, %s\n' \
		"$round" "$rc" "$(($(date +%s) - start))" "$(date -u +%H:%M)" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" \
		"$(grep -E 'tests passed' "$out/round$round.log" || echo 'no summary')"
done
exit "$failed"
