# SPDX-License-Identifier: Apache-2.0
# The version and commit benchgate reports, from git (the latest vX.Y.Z
# tag): run at configure time
# (the package's version) and again at every build (version_info.c, written
# only when it changes, so only a new commit relinks).
#
# Inputs: SOURCE_DIR, FALLBACK_VERSION (the project's version, used when
# there is no git or no v* tag); OUTPUT and TEMPLATE when run as a script.
# Sets BENCHGATE_VERSION_FULL (0.3.0, or 0.3.0-5-gabc1234 past the tag,
# -dirty with local changes) and BENCHGATE_COMMIT (full hash or "unknown").

function(benchgate_git_version source_dir fallback out_version out_commit)
	set(version "${fallback}")
	set(commit "unknown")
	find_package(Git QUIET)
	if(GIT_FOUND AND EXISTS "${source_dir}/.git")
		# vX.Y.Z only: vX, the action's moving major tag, names no
		# version of its own
		execute_process(COMMAND "${GIT_EXECUTABLE}" describe --tags
				--match "v[0-9]*.[0-9]*.[0-9]*" --dirty
			WORKING_DIRECTORY "${source_dir}"
			OUTPUT_VARIABLE described RESULT_VARIABLE failed
			OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
		if(NOT failed AND described MATCHES "^v([0-9]+[.][0-9]+[.][0-9]+.*)$")
			set(version "${CMAKE_MATCH_1}")
		endif()
		execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse HEAD
			WORKING_DIRECTORY "${source_dir}"
			OUTPUT_VARIABLE head RESULT_VARIABLE failed
			OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
		if(NOT failed AND head MATCHES "^[0-9a-f]+$")
			set(commit "${head}")
		endif()
	endif()
	set(${out_version} "${version}" PARENT_SCOPE)
	set(${out_commit} "${commit}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
	benchgate_git_version("${SOURCE_DIR}" "${FALLBACK_VERSION}"
		BENCHGATE_VERSION_FULL BENCHGATE_COMMIT)
	configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
endif()
