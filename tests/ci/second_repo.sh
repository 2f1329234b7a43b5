#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CI templates, used from a repository that is not benchgate's, as the
# manual (docs/how-to/) tells a user to: a small Python project whose
# benchmark imports its own module, with the documented GitHub workflow
# (uses: benchgate/benchgate@v0) and GitLab include (project:
# benchgate/benchgate) copied in as they are printed there, run by
# tests/ci/run_workflow.py.
#
#   bash tests/ci/second_repo.sh WORK_DIR
#
# "benchgate/benchgate" is a repository made from this work tree and tagged
# as a release (v0 and v0.3.0, its version), whose .deb and SHA256SUMS are
# the release's downloads (BENCHGATE_RELEASE_URL, a directory); "origin" is
# a bare repository the user's clone pushes the results branch to. Checked:
# - the action at a release installs the release's package, checksum
#   verified (a tampered SHA256SUMS stops it), and builds nothing;
# - a pull request that slows the imported module is caught (exit 1, the
#   case named, the action's outputs verdict, regressions and comparison
#   set), with the merge base measured from the scratch tree of check
#   --against;
# - a pull request that changes only documentation passes;
# - a push to main stores the result and pushes the results branch;
# - the GitLab template, outside its image, builds benchgate from the
#   sources and catches the slow merge request too, and its dashboard job
#   publishes the site for GitLab Pages.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: second_repo.sh WORK_DIR}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
runner="$source_dir/tests/ci/run_workflow.py"
fail() { echo "second_repo: FAIL: $*" >&2; exit 1; }
git_quiet() { git -c user.name=test -c user.email=test@example.com "$@" >/dev/null; }

# A block of the manual: the ```yaml block whose first line is $1, in
# README.md or a page of docs/.
readme_block() {
	awk -v first="$1" '
		/^```yaml$/ { inside = 1; started = 0; next }
		/^```$/ { if (started) exit; inside = 0; next }
		inside && !started && $0 == first { started = 1 }
		inside && started { print }
	' "$source_dir/README.md" $(find "$source_dir/docs" -name '*.md' | sort)
}

# benchgate/benchgate@v0: this work tree as it is, committed and tagged.
upstream="$work/benchgate/benchgate.git"
mkdir -p "$upstream"
(cd "$source_dir" && git ls-files --cached --others --exclude-standard -z |
	xargs -0 -I{} sh -c 'test -e "{}" && echo "{}"' |
	tar -cf - -T -) | tar -xf - -C "$upstream"
git_quiet -C "$upstream" init -q -b main
git_quiet -C "$upstream" add -A
git_quiet -C "$upstream" commit -q -m "benchgate"
version=$(sed -n 's/^project(benchgate VERSION \([0-9.]*\).*/\1/p' "$upstream/CMakeLists.txt")
git_quiet -C "$upstream" tag "v$version"
git_quiet -C "$upstream" tag v0

# The release's downloads: the package for this machine's distribution,
# built from the tagged tree as the release workflow builds it, and
# SHA256SUMS.
release="$work/release"
mkdir -p "$release"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
echo "second_repo: packaging the release v$version" >&2
{ cmake -S "$upstream" -B "$work/release-build" -DCMAKE_BUILD_TYPE=Release \
	-DBUILD_TESTING=OFF "${launcher[@]}" &&
	cmake --build "$work/release-build" -j2 --target benchgate benchgate-launch &&
	(cd "$work/release-build" && cpack -G DEB); } > "$work/release.log" 2>&1 ||
	{ tail -20 "$work/release.log" >&2; fail "packaging the release"; }
cp "$work"/release-build/packages/*.deb "$release/"
(cd "$release" && sha256sum -- *.deb > SHA256SUMS)
export BENCHGATE_RELEASE_URL="file://$release"

# The user's project: a module, a benchmark that imports it, a suite.
origin="$work/origin.git"
user="$work/user-src"
mkdir -p "$user/mylib" "$user/bench"
cat > "$user/mylib/__init__.py" <<'EOF'
EOF
cat > "$user/mylib/work.py" <<'EOF'
def preprocess(n):
    total = 0
    for i in range(n):
        total += (i * 7) % 13
    return total
EOF
cat > "$user/bench/bench.py" <<'EOF'
import os, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from mylib.work import preprocess

# The process's CPU time, not the wall clock: this test is about the CI
# templates, and its verdicts must hold on a loaded runner, where other
# processes stretch the wall time of each run by several times.
times = []
for _ in range(5):
    start = time.process_time()
    preprocess(200000)
    times.append((time.process_time() - start) * 1000)
with open(os.environ["BENCHGATE_METRICS_FILE"], "w") as out:
    for t in times:
        out.write("latency_ms %f ms\n" % t)
EOF
cat > "$user/bench/suite.json" <<'EOF'
{ "benchgate": 1, "suite": "mylib",
  "defaults": { "warmup": 1, "runs": 16, "threshold": "10%" },
  "benchmarks": [ { "name": "preprocess",
    "command": ["python3", "${suite_dir}/bench.py"],
    "metrics": [ { "name": "latency", "from": "metrics", "key": "latency_ms" } ] } ] }
EOF
echo "# mylib" > "$user/README.md"
mkdir -p "$user/.github/workflows"
readme_block "# .github/workflows/benchmarks.yml" > "$user/.github/workflows/benchmarks.yml"
readme_block "# .gitlab-ci.yml" > "$user/.gitlab-ci.yml"
grep -q "uses: benchgate/benchgate@v0" "$user/.github/workflows/benchmarks.yml" ||
	fail "the documented workflow does not use benchgate/benchgate@v0"
grep -q "project: benchgate/benchgate" "$user/.gitlab-ci.yml" ||
	fail "the documented GitLab include was not found"
git_quiet -C "$user" init -q -b main
git_quiet -C "$user" add -A
git_quiet -C "$user" commit -q -m "mylib"
git_quiet clone -q --bare "$user" "$origin"

# Branches: one that slows the module the benchmark imports by half again,
# one that changes the documentation only.
git_quiet -C "$user" checkout -q -b slow
sed -i 's/total += (i \* 7) % 13/total += (i * 7) % 13 + (i * 3) % 11/' "$user/mylib/work.py"
git_quiet -C "$user" commit -q -am "preprocess: more work"
git_quiet -C "$user" checkout -q -b docs main
echo "More words." >> "$user/README.md"
git_quiet -C "$user" commit -q -am "docs"
git_quiet -C "$user" push -q "$origin" slow docs

export RUNNER_TEMP="$work/runner-temp"
mkdir -p "$RUNNER_TEMP"
# One clone per job, as a runner checks out with fetch-depth: 0.
checkout() {
	rm -rf "$work/job"
	git_quiet clone -q "$origin" "$work/job"
	git_quiet -C "$work/job" checkout -q "$1"
}
# The documented workflow: job benchmark on pull requests (no write to
# the repository), job store on pushes.
github() {
	local job=benchmark
	[[ $1 == pull_request ]] || job=store
	(cd "$work/job" && python3 "$runner" github .github/workflows/benchmarks.yml \
		"$job" "$1" --action "benchgate/benchgate=$upstream") > "$work/$2.log" 2>&1
}

echo "second_repo: GitHub, a pull request that slows mylib" >&2
checkout slow
status=0
GITHUB_BASE_REF=main PR_FROM_FORK=true github pull_request pr-slow || status=$?
[[ $status == 1 ]] || { tail -40 "$work/pr-slow.log" >&2; fail "slow PR: exit $status, expected 1"; }
grep -q "preprocess/default/cpu" "$work/pr-slow.log" || fail "slow PR: the case is not named"
grep -q "regression" "$work/pr-slow.log" || fail "slow PR: no regression reported"
grep -q "baseline: --against main: the merge base with origin/main, checked out" "$work/pr-slow.log" ||
	fail "slow PR: the merge base was not measured in the job"
[[ -f $work/job/benchgate-report/report.html ]] || fail "slow PR: no report.html"
grep -q "benchgate: installing benchgate_${version}-1~.*\.deb from file://$release" "$work/pr-slow.log" ||
	fail "slow PR: the action did not install the release's package"
grep -q "Building C object" "$work/pr-slow.log" && fail "slow PR: the action built benchgate"
grep -qx "::output::verdict=regression" "$work/pr-slow.log" || fail "slow PR: output verdict"
grep -qx "::output::regressions=[1-9][0-9]*" "$work/pr-slow.log" || fail "slow PR: output regressions"
grep -qx "::output::failed=0" "$work/pr-slow.log" || fail "slow PR: output failed"
grep -qx "::output::comparison=benchgate-report/comparison.json" "$work/pr-slow.log" ||
	fail "slow PR: output comparison"
grep -qx "::output::installed-from=package" "$work/pr-slow.log" || fail "slow PR: output installed-from"

echo "second_repo: GitHub, a release whose checksum does not match" >&2
checkout docs
cp -r "$release" "$work/release-tampered"
awk '{ printf "%064d  %s\n", 0, $2 }' "$release/SHA256SUMS" > "$work/release-tampered/SHA256SUMS"
status=0
GITHUB_BASE_REF=main PR_FROM_FORK=true BENCHGATE_RELEASE_URL="file://$work/release-tampered" \
	github pull_request pr-tampered || status=$?
[[ $status != 0 ]] || fail "tampered release: exit 0"
grep -q "does not match its SHA256SUMS" "$work/pr-tampered.log" ||
	{ tail -20 "$work/pr-tampered.log" >&2; fail "tampered release: the checksum was not the reason"; }
grep -q "::step::Check" "$work/pr-tampered.log" && fail "tampered release: the check ran"

echo "second_repo: GitHub, a pull request that changes documentation only" >&2
checkout docs
status=0
GITHUB_BASE_REF=main PR_FROM_FORK=true github pull_request pr-docs || status=$?
[[ $status == 0 ]] || { tail -40 "$work/pr-docs.log" >&2; fail "docs PR: exit $status, expected 0"; }
grep -qx "::output::verdict=pass" "$work/pr-docs.log" || fail "docs PR: output verdict"

echo "second_repo: GitHub, a push to main" >&2
checkout main
status=0
GITHUB_REF=refs/heads/main github push push-main || status=$?
[[ $status == 0 ]] || { tail -40 "$work/push-main.log" >&2; fail "push: exit $status, expected 0"; }
git -C "$origin" rev-parse --verify -q refs/heads/benchgate-results >/dev/null ||
	fail "push: the results branch was not pushed"
git -C "$origin" ls-tree -r --name-only benchgate-results | grep -q "mylib-.*\.json" ||
	fail "push: no result on the results branch"

echo "second_repo: GitLab, a merge request that slows mylib" >&2
checkout slow
status=0
(cd "$work/job" && CI_SERVER_URL="file://$work" CI_MERGE_REQUEST_IID=1 \
	CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main CI_DEFAULT_BRANCH=main \
	CI_PIPELINE_SOURCE=merge_request_event BENCHGATE_SOURCE="$work/gitlab-benchgate" \
	BENCHGATE_BUILD="$RUNNER_TEMP/gitlab-benchgate-build" \
	BENCHGATE_REPOSITORY="file://$upstream" BENCHGATE_REF="v$version" \
	python3 "$runner" gitlab .gitlab-ci.yml benchgate \
	--project "benchgate/benchgate=$upstream" --var BENCHGATE_SOURCE \
	--var BENCHGATE_BUILD --var BENCHGATE_REPOSITORY --var BENCHGATE_REF) > "$work/mr-slow.log" 2>&1 || status=$?
[[ $status == 1 ]] || { tail -40 "$work/mr-slow.log" >&2; fail "slow MR: exit $status, expected 1"; }
grep -q "preprocess/default/cpu" "$work/mr-slow.log" || fail "slow MR: the case is not named"
[[ -f $work/job/out/junit.xml ]] || fail "slow MR: no junit.xml for the widget"

echo "second_repo: GitLab, the scheduled dashboard (pages)" >&2
checkout main
status=0
(cd "$work/job" && CI_SERVER_URL="file://$work" CI_DEFAULT_BRANCH=main \
	CI_COMMIT_BRANCH=main CI_PIPELINE_SOURCE=schedule \
	BENCHGATE_SOURCE="$work/gitlab-benchgate" \
	BENCHGATE_BUILD="$RUNNER_TEMP/gitlab-benchgate-build" \
	BENCHGATE_REPOSITORY="file://$upstream" BENCHGATE_REF="v$version" \
	python3 "$runner" gitlab .gitlab-ci.yml pages \
	--project "benchgate/benchgate=$upstream" --var BENCHGATE_SOURCE \
	--var BENCHGATE_BUILD --var BENCHGATE_REPOSITORY --var BENCHGATE_REF) > "$work/pages.log" 2>&1 || status=$?
[[ $status == 0 ]] || { tail -40 "$work/pages.log" >&2; fail "pages: exit $status, expected 0"; }
[[ -f $work/job/public/index.html && -f $work/job/public/benchgate-state.json ]] ||
	fail "pages: no site in public/"
grep -q "mylib" "$work/job/public/index.html" || fail "pages: the suite is not on the index"

echo "second_repo: ok" >&2
