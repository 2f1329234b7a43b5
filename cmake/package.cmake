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
# Depends from the binary's libraries: libgit2, libcjson1, libssl3 and
# libpq5 (the PostgreSQL store's client, docs/install.md); and libcurl's
# package, which dpkg-shlibdeps cannot see: harness/forge/http.c loads it
# with dlopen() (CMakeLists.txt). It is the package that holds the
# library built against (libcurl4, libcurl4t64 on Ubuntu 24.04), at least
# that version.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(benchgate_libcurl_package libcurl4)
if(BENCHGATE_LIBCURL_FILE)
	get_filename_component(libcurl_real ${BENCHGATE_LIBCURL_FILE} REALPATH)
	execute_process(COMMAND dpkg-query -S ${libcurl_real}
		OUTPUT_VARIABLE libcurl_owner ERROR_QUIET)
	if(libcurl_owner MATCHES "^([a-z0-9][a-z0-9.+-]*)(:[a-z0-9-]+)?: ")
		set(benchgate_libcurl_package "${CMAKE_MATCH_1}")
	endif()
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
	"${benchgate_libcurl_package} (>= ${LIBCURL_VERSION})")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, git")
set(CPACK_DEBIAN_PACKAGE_RELEASE "1")
if(BENCHGATE_PACKAGE_DISTRO)
	set(CPACK_DEBIAN_PACKAGE_RELEASE "1~${BENCHGATE_PACKAGE_DISTRO}")
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_OUTPUT_FILE_PREFIX ${PROJECT_BINARY_DIR}/packages)
include(CPack)
