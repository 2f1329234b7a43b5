# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in the build tree: one .deb per distribution, named for it
# (libgit2's soname differs between Debian 12 and Ubuntu 22.04 and 24.04,
# so each is built in its own distribution, .github/workflows/release.yml).
# Depends come from the binary's libraries (dpkg-shlibdeps); gnuplot, for
# the charts, is only recommended: without it charts are skipped with a
# warning.

# The distribution: /etc/os-release's ID and VERSION_ID ("debian12",
# "ubuntu24.04"), or BENCHGATE_PACKAGE_DISTRO.
set(benchgate_distro "")
if(EXISTS /etc/os-release)
	file(STRINGS /etc/os-release os_release REGEX "^(ID|VERSION_ID)=")
	foreach(line ${os_release})
		if(line MATCHES "^ID=\"?([^\"]*)\"?$")
			set(os_id "${CMAKE_MATCH_1}")
		elseif(line MATCHES "^VERSION_ID=\"?([^\"]*)\"?$")
			set(os_version "${CMAKE_MATCH_1}")
		endif()
	endforeach()
	set(benchgate_distro "${os_id}${os_version}")
endif()
set(BENCHGATE_PACKAGE_DISTRO "${benchgate_distro}" CACHE STRING
	"The distribution the package is built for, in its file name and version (debian12, ubuntu22.04)")

# Debian's version: 0.3.0, 0.3.0+5.gabc1234 past the tag, 0.4.0~rc1 for a
# pre-release tag; the revision names the distribution: 0.3.0-1~debian12.
set(deb_version "${BENCHGATE_VERSION_FULL}")
if(deb_version MATCHES "^([0-9.]+)-(rc|alpha|beta)(.*)$")
	set(deb_version "${CMAKE_MATCH_1}~${CMAKE_MATCH_2}${CMAKE_MATCH_3}")
endif()
string(REGEX REPLACE "-([0-9]+)-g([0-9a-f]+)" "+\\1.g\\2" deb_version
	"${deb_version}")
string(REPLACE "-dirty" "+dirty" deb_version "${deb_version}")

# The copyright file Debian policy asks for, in its machine-readable form.
set(benchgate_copyright ${PROJECT_BINARY_DIR}/generated/copyright)
file(READ ${PROJECT_SOURCE_DIR}/LICENSE benchgate_license_text)
file(WRITE ${benchgate_copyright}
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: benchgate
Source: https://github.com/benchgate/benchgate

Files: *
Copyright: the benchgate authors
License: Apache-2.0
 On Debian systems, the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0 and in
 /usr/share/doc/benchgate/LICENSE.
")
install(FILES ${benchgate_copyright} DESTINATION share/doc/benchgate)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME benchgate)
set(CPACK_PACKAGE_VENDOR benchgate)
set(CPACK_PACKAGE_VERSION "${deb_version}")
set(CPACK_PACKAGE_CONTACT
	"benchgate maintainers <benchgate@users.noreply.github.com>")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/benchgate/benchgate")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
	"CI regression benchmarking with noise-aware statistics")
set(CPACK_PACKAGE_DESCRIPTION
"benchgate runs declarative benchmark suites, stores the results keyed by
git commit and machine, compares them with noise-aware statistics against
the right baseline, writes reports (JUnit, Markdown, HTML, JSON, CSV,
OpenMetrics, charts), and fails a CI build only on a real regression.
Includes the Python helper for benchmark authors (module benchgate).
Licence: Apache-2.0.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Depends from the binary's libraries: libgit2, libcjson1 and libssl3;
# and the packages of the two libraries dpkg-shlibdeps cannot see, loaded
# with dlopen() (CMakeLists.txt): libcurl (harness/forge/http.c) and
# libpq5, the PostgreSQL store's client (harness/store/store_pg.c,
# docs/install.md). Each is the package that holds the library built
# against (libcurl4, libcurl4t64 on Ubuntu 24.04), at least that version.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# benchgate_owner(VAR FILE DEFAULT): the Debian package holding FILE.
function(benchgate_owner var file default)
	set(${var} ${default} PARENT_SCOPE)
	if(file)
		get_filename_component(real ${file} REALPATH)
		execute_process(COMMAND dpkg-query -S ${real}
			OUTPUT_VARIABLE owner ERROR_QUIET)
		if(owner MATCHES "^([a-z0-9][a-z0-9.+-]*)(:[a-z0-9-]+)?: ")
			set(${var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
		endif()
	endif()
endfunction()
benchgate_owner(benchgate_libcurl_package "${BENCHGATE_LIBCURL_FILE}" libcurl4)
benchgate_owner(benchgate_libpq_package "${BENCHGATE_LIBPQ_FILE}" libpq5)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
	"${benchgate_libcurl_package} (>= ${LIBCURL_VERSION}), ${benchgate_libpq_package} (>= ${LIBPQ_VERSION})")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, git")
set(CPACK_DEBIAN_PACKAGE_RELEASE "1")
if(BENCHGATE_PACKAGE_DISTRO)
	set(CPACK_DEBIAN_PACKAGE_RELEASE "1~${BENCHGATE_PACKAGE_DISTRO}")
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_OUTPUT_FILE_PREFIX ${PROJECT_BINARY_DIR}/packages)
include(CPack)
