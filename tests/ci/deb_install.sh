#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The .deb as a new team meets it: built from this tree for this machine's
# distribution, installed with dpkg -i (and apt-get install -f for its
# Depends, from the Debian mirror this machine uses) into a fresh Debian 12
# root, and used there with nothing else of the source tree: a small suite
# whose benchmark imports the Python helper is run, checked (a planted
# tenfold slowdown caught, exit 1) and reported, and the helper is
# imported from the system Python. Prints the time from dpkg -i to the first result
# (docs/install.md).
#
#   bash tests/ci/deb_install.sh WORK_DIR [CACHE_DIR]
#
# Needs root, debootstrap and chroot (exit 77, a skip, without them). The
# debootstrapped root (minbase bookworm and python3, the system Python a
# user's image has) is kept as a tarball in CACHE_DIR (default: WORK_DIR's
# parent), so only the first run takes minutes; the package's build tree
# is kept in CACHE_DIR too. BENCHGATE_DEBIAN_MIRROR overrides the mirror.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: deb_install.sh WORK_DIR [CACHE_DIR]}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cache=${2:-$(dirname "$work")}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
skip() { echo "deb_install: SKIP: $*"; exit 77; }
fail() { echo "deb_install: FAIL: $*" >&2; exit 1; }
say() { echo "deb_install: $*" >&2; }

[[ $(id -u) == 0 ]] || skip "not root: debootstrap, chroot and dpkg -i into a root need it (CI runs as root)"
for tool in debootstrap chroot dpkg-deb cpack tar mount; do
	command -v "$tool" >/dev/null || skip "$tool is not installed (bash ci/install-deps --test installs debootstrap)"
done

# The mirror this machine uses (deb822 or one-line sources), else Debian's.
mirror=${BENCHGATE_DEBIAN_MIRROR:-}
if [[ -z $mirror ]]; then
	mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /debian\/?$/) { print $i; exit } }')
fi
if [[ -z $mirror ]]; then
	mirror=$(cat /etc/apt/sources.list 2>/dev/null |
		awk '$1 == "deb" && $2 ~ /debian\/?$/ { print $2; exit }')
fi
mirror=${mirror:-http://deb.debian.org/debian}

root="$work/root"
# Nothing is removed under a directory something is still mounted on: a
# bind mount there would take the host's files with it.
mounted_under() { awk -v dir="$1/" 'index($2 "/", dir) == 1 { found = 1 } END { exit !found }' /proc/mounts; }
safe_rm() {
	mounted_under "$1" && fail "something is still mounted under $1: not removing it"
	rm -rf "$1"
}
cleanup() {
	for m in "$root/sys" "$root/proc"; do
		mountpoint -q "$m" 2>/dev/null && umount "$m" || true
	done
}
trap cleanup EXIT
[[ -c /dev/null ]] || fail "/dev/null is not a device before the test"
cleanup
safe_rm "$root"
mkdir -p "$work"

# 1. The package, Release, for this distribution.
pkg_build="$cache/deb-build"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
say "building the package in $pkg_build"
cmake -S "$source_dir" -B "$pkg_build" -DCMAKE_BUILD_TYPE=Release \
	-DBUILD_TESTING=OFF "${launcher[@]}" >"$work/configure.log" 2>&1 ||
	{ tail -20 "$work/configure.log" >&2; fail "configure"; }
cmake --build "$pkg_build" --target benchgate benchgate-launch -j2 \
	>"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; fail "build"; }
rm -rf "$pkg_build/packages"
(cd "$pkg_build" && cpack -G DEB) >"$work/cpack.log" 2>&1 ||
	{ tail -20 "$work/cpack.log" >&2; fail "cpack"; }
debs=("$pkg_build"/packages/*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || fail "cpack made no single .deb: ${debs[*]}"
deb=${debs[0]}
. /etc/os-release
[[ $(basename "$deb") == *"~$ID$VERSION_ID"_*.deb ]] ||
	fail "$(basename "$deb") does not name the distribution $ID$VERSION_ID"
dpkg-deb -f "$deb" Depends > "$work/depends"
say "$(basename "$deb"): Depends: $(cat "$work/depends")"
grep -q "libgit2" "$work/depends" || fail "Depends lacks libgit2"
grep -q "libcjson" "$work/depends" || fail "Depends lacks libcjson"
grep -q "libcurl" "$work/depends" || fail "Depends lacks libcurl"
grep -q "libpq5" "$work/depends" || fail "Depends lacks libpq5"
dpkg-deb -f "$deb" Recommends | grep -q gnuplot || fail "gnuplot is not recommended"
if dpkg-deb -f "$deb" Depends | grep -q gnuplot; then fail "gnuplot is a Depends"; fi

# 2. A fresh Debian 12 root, from the cached tarball.
base="$cache/debootstrap-bookworm-minbase-python3.tar"
if [[ ! -f $base ]]; then
	say "debootstrap bookworm from $mirror (once; cached in $base)"
	fresh="$cache/debootstrap-root"
	safe_rm "$fresh"
	debootstrap --variant=minbase bookworm "$fresh" "$mirror" \
		>"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
	chroot "$fresh" apt-get install -y --no-install-recommends python3 \
		>>"$work/debootstrap.log" 2>&1 || fail "python3 in the root"
	chroot "$fresh" apt-get clean
	tar -C "$fresh" -cf "$base.part" . && mv "$base.part" "$base"
	safe_rm "$fresh"
fi
mkdir -p "$root"
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"
mount --bind -o ro /sys "$root/sys" 2>/dev/null || mount --bind /sys "$root/sys"
[[ ! -e $root/usr/bin/benchgate ]] || fail "the base root has benchgate"
cp "$deb" "$root/tmp/"

# The user's project: a suite whose benchmark imports the helper.
mkdir -p "$root/tmp/project"
cat > "$root/tmp/project/bench.py" <<'PY'
import os, time
import benchgate

slow = float(os.environ.get("SLOWDOWN", "1"))
samples = []
# 10 ms naps, not 2 ms: on a loaded runner a nap overshoots by a few
# milliseconds whatever its length, which at 2 ms left a tenfold slowdown
# reading as inconclusive (load 25)
for _ in range(10):
    start = time.perf_counter()
    time.sleep(0.01 * slow)
    samples.append((time.perf_counter() - start) * 1000)
with benchgate.metrics() as m:
    m.record("latency_ms", samples, unit="ms")
PY
cat > "$root/tmp/project/suite.json" <<'JSON'
{ "benchgate": 1, "suite": "installed",
  "defaults": { "warmup": 0, "runs": 6, "threshold": "50%" },
  "benchmarks": [ { "name": "sleep",
    "command": ["python3", "${suite_dir}/bench.py"],
    "metrics": [ { "name": "latency", "from": "metrics", "key": "latency_ms" },
                 { "name": "peak_rss", "from": "rusage", "field": "maxrss" } ] } ] }
JSON

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 "$@"; }

# 3. Timed: dpkg -i, its Depends from the mirror, the first result.
say "installing $(basename "$deb") into a fresh root"
start=$(date +%s.%N)
in_root dpkg -i "/tmp/$(basename "$deb")" >"$work/dpkg.log" 2>&1 || true
t_dpkg=$(date +%s.%N)
in_root apt-get install -f -y --no-install-recommends >"$work/apt.log" 2>&1 ||
	{ tail -20 "$work/apt.log" >&2; fail "apt-get install -f"; }
t_apt=$(date +%s.%N)
in_root sh -c 'cd /tmp/project && benchgate run suite.json --store store --json base.json --quiet' \
	>"$work/run.log" 2>&1 || { cat "$work/run.log" >&2; fail "run in the root"; }
end=$(date +%s.%N)
[[ -f $root/tmp/project/base.json ]] || fail "run wrote no result"
first=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
timing=$(awk -v a="$start" -v d="$t_dpkg" -v p="$t_apt" -v b="$end" \
	'BEGIN { printf "dpkg -i %.1f s, apt-get install -f %.1f s, run %.1f s", d - a, p - d, b - p }')
installed=$(in_root dpkg-query -W -f '${Package} ${Version}\n' benchgate)
new_packages=$(grep -c '^Setting up' "$work/apt.log" || true)
echo "deb_install: dpkg -i to the first result: $first s ($timing; $new_packages packages from the mirror; $installed)" | tee "$work/timing.txt"

# 4. The rest of the life of a result, in the root alone.
in_root benchgate --version >"$work/version.log" 2>&1 || fail "--version"
grep -q "^license Apache-2.0" "$work/version.log" || fail "--version names no licence"
[[ -x $root/usr/libexec/benchgate/benchgate-launch ]] || fail "no launcher in /usr/libexec/benchgate"
status=0
in_root sh -c 'cd /tmp/project && SLOWDOWN=10 benchgate check suite.json --baseline base.json --store store --json cmp.json' \
	>"$work/check.log" 2>&1 || status=$?
[[ $status == 1 ]] || { cat "$work/check.log" >&2; fail "check of a 10x slowdown: exit $status, expected 1"; }
grep -q "sleep/default/cpu" "$work/check.log" || fail "check does not name the case"
in_root sh -c 'cd /tmp/project && benchgate report cmp.json --out report --format markdown,junit,html' \
	>"$work/report.log" 2>&1 || { cat "$work/report.log" >&2; fail "report"; }
for f in report.md junit.xml report.html; do
	[[ -s $root/tmp/project/report/$f ]] || fail "report wrote no $f"
done
module=$(in_root python3 -c 'import benchgate; print(benchgate.__file__)')
[[ $module == /usr/lib/python3/dist-packages/benchgate* ]] ||
	fail "the system Python imports benchgate from '$module'"
in_root dpkg -r benchgate >"$work/remove.log" 2>&1 || fail "dpkg -r"
[[ ! -e $root/usr/bin/benchgate ]] || fail "dpkg -r left /usr/bin/benchgate"
cleanup
mounted_under "$root" && fail "$root still has mounts"
[[ -c /dev/null ]] || fail "/dev/null is no longer a device"
say "ok"
