#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lists the external functions of harness/ and reporters/ that no other
# object of the library or of the binaries calls: dead code, or code that
# should be static. Every exported function has a caller outside its tests,
# or goes (issue 12); this finds the ones that break the rule.
#
#   tests/tools/exported-unused.sh [BUILD_DIR]     (default: build)
#
# BUILD_DIR must hold a current build (cmake --build BUILD_DIR), best a Debug
# one: the optimizer may inline a file's own calls away, and a function that
# its own file uses would then look unused. It reads the objects, not the
# sources, so a call through a function-pointer table counts as a use and a
# name in a comment or a string does not.
#
# One line per hit:  SOURCE  FUNCTION  WHERE-USED  [TESTS]
#   file-local  only its own file refers to it: make it static
#   nowhere     nothing in the library or the binaries refers to it: delete
#               it (with the tests listed)
# TESTS names the test and benchmark programs (tests/, tests/perf/) that
# call it; those do not count as uses.
#
# Names listed in exported-unused.allow beside this script (one a line,
# then the reason it stays exported; # starts a comment) are not hits:
# the entry points unit tests and tests/perf drive on their own.
#
# Exit status: 0 nothing found, 1 hits listed, 2 usage or build problem.
# Needs bash, nm and readelf (binutils), awk and find.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
if [[ $# -gt 1 || ${1:-} == -* ]]; then
	echo "usage: $0 [BUILD_DIR]" >&2
	exit 2
fi
build=$(cd "$build" 2>/dev/null && pwd) || {
	echo "$0: no build directory '${1:-build}'" >&2
	exit 2
}

# Objects of the shipped code: the library and the two programs. CMake puts
# the object of SOURCE at CMakeFiles/TARGET.dir/SOURCE.o.
ship=()
for target in benchgate_core benchgate benchgate-launch; do
	dir=$build/CMakeFiles/$target.dir
	[[ -d $dir ]] || {
		echo "$0: $dir missing: build benchgate in $build first" >&2
		exit 2
	}
	while IFS= read -r -d '' object; do
		source=${object#"$dir"/}
		source=${source%.o}
		# A source moved or deleted since leaves its object behind.
		[[ -f $root/$source ]] || continue
		if [[ $root/$source -nt $object ]]; then
			echo "$0: $source is newer than its object:" \
				"rebuild $build first" >&2
			exit 2
		fi
		ship+=("$object")
	done < <(find "$dir" -name '*.c.o' -print0 | sort -z)
done
# Objects of the test and benchmark programs, those of sources that still
# exist: BUILD/DIR/CMakeFiles/PROGRAM.dir/REL.o is built from DIR/REL.
tests=()
if [[ -d $build/tests ]]; then
	while IFS= read -r -d '' object; do
		source=${object#"$build"/}
		source=${source%%/CMakeFiles/*}/${source#*/CMakeFiles/*.dir/}
		[[ -f $root/${source%.o} ]] && tests+=("$object")
	done < <(find "$build/tests" -path '*/CMakeFiles/*.dir/*' \
		-name '*.c.o' -print0 | sort -z)
fi

# The table the awk below reads, one record a line:
#   def OBJECT NAME    OBJECT defines the external function NAME
#   use OBJECT NAME    OBJECT refers to NAME, undefined there
#   self OBJECT NAME   OBJECT relocates against its own NAME in code or data
#                      (a call, or a pointer in a table); debug information
#                      and unwind tables are not uses
#   test OBJECT NAME   a test or benchmark object refers to NAME
symbols() {
	local object

	for object in "${ship[@]}"; do
		nm --defined-only -g "$object" |
			awk -v o="$object" '$2 == "T" { print "def", o, $3 }'
		nm -u "$object" | awk -v o="$object" '{ print "use", o, $2 }'
		readelf -rW "$object" | awk -v o="$object" '
			/^Relocation section/ {
				keep = $3 !~ /debug|eh_frame/
				next
			}
			keep && NF >= 5 && $1 ~ /^[0-9a-f]+$/ {
				print "self", o, $5
			}'
	done
	for object in "${tests[@]}"; do
		nm -u "$object" | awk -v o="$object" '{ print "test", o, $2 }'
	done
}

hits=$(symbols | awk -v build="$build" '
	function source_of(object) {
		sub("^" build "/CMakeFiles/[^/]*\\.dir/", "", object)
		sub(/\.o$/, "", object)
		return object
	}
	function program_of(object) {
		sub(/\.dir\/.*/, "", object)
		sub(/.*\//, "", object)
		return object
	}
	$1 == "def" {
		source = source_of($2)
		if (source ~ /^(harness|reporters)\// && $3 != "main")
			defined[$3] = $2
	}
	$1 == "use" { users[$3] = users[$3] " " $2 }
	$1 == "self" { self[$2, $3] = 1 }
	$1 == "test" {
		program = program_of($2)
		if (index(" " callers[$3] " ", " " program " ") == 0)
			callers[$3] = callers[$3] (callers[$3] ? " " : "") program
	}
	END {
		for (name in defined) {
			object = defined[name]
			n = split(users[name], list, " ")
			used = 0
			for (i = 1; i <= n; i++)
				if (list[i] != object)
					used = 1
			if (used)
				continue
			where = (object, name) in self ? "file-local" : "nowhere"
			line = sprintf("%-32s %-34s %-10s", source_of(object),
				       name, where)
			if (callers[name] != "")
				line = line " tests: " callers[name]
			print line
		}
	}' | sort)

allow=$root/tests/tools/exported-unused.allow
if [[ -f $allow && -n $hits ]]; then
	hits=$(awk 'NR == FNR {
			sub(/#.*/, "")
			if ($1 != "")
				allowed[$1] = 1
			next
		}
		!($2 in allowed)' "$allow" - <<<"$hits")
fi
[[ -z $hits ]] && exit 0
printf '%s\n' "$hits"
exit 1
