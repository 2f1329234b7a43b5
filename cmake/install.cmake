# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` puts where (docs/install.md). The launcher goes to
# libexec/benchgate/, where benchgate looks for it relative to its own
# binary (../libexec/benchgate/benchgate-launch, harness/run/session.c).

set(BENCHGATE_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
	"Where the Python helper is installed, relative to the prefix (Debian's system Python reads lib/python3/dist-packages)")

install(TARGETS benchgate RUNTIME DESTINATION bin)
install(TARGETS benchgate-launch RUNTIME DESTINATION libexec/benchgate)

# The man pages generated into man/ by the CLI's option tables, when there.
file(GLOB benchgate_man_pages ${PROJECT_SOURCE_DIR}/man/*.1)
if(benchgate_man_pages)
	install(FILES ${benchgate_man_pages} DESTINATION share/man/man1)
endif()

# The suite file's JSON Schema, when the tree has one.
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/schema)
	install(DIRECTORY ${PROJECT_SOURCE_DIR}/schema/
		DESTINATION share/benchgate/schema)
endif()

install(FILES ${PROJECT_SOURCE_DIR}/ci/gitlab/benchgate.gitlab-ci.yml
	DESTINATION share/benchgate/gitlab)

# The Python helper: a module today, a package once it has submodules.
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/python/benchgate)
	install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/benchgate
		DESTINATION ${BENCHGATE_INSTALL_PYTHONDIR}
		PATTERN __pycache__ EXCLUDE)
else()
	# benchgate.py and its companions (the pytest plugin)
	file(GLOB benchgate_python_modules ${PROJECT_SOURCE_DIR}/python/*.py)
	install(FILES ${benchgate_python_modules}
		DESTINATION ${BENCHGATE_INSTALL_PYTHONDIR})
endif()

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE
	${PROJECT_SOURCE_DIR}/CHANGELOG.md ${PROJECT_SOURCE_DIR}/README.md
	DESTINATION share/doc/benchgate)
