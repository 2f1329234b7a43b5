/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_VERSION_H
#define BENCHGATE_VERSION_H

#include <stdio.h>

/*
 * What `benchgate --version` says: the version, the commit it was built
 * from, the libraries it runs with and its licence.
 *
 * The version comes from git at build time (cmake/version.cmake): the
 * v* tag's version ("0.3.0"), with "-N-gHASH" past the tag and "-dirty"
 * with local changes; the project's version without git or tags.
 * BENCHGATE_VERSION, the macro every file sees, is the release part only
 * ("0.3.0"), so a new commit does not recompile the tree.
 */

#define BENCHGATE_LICENSE "Apache-2.0"
#define BENCHGATE_HOME "https://github.com/benchgate/benchgate"

/* Generated into the build tree (version_info.c). */
extern const char benchgate_version_full[];
extern const char benchgate_commit[];

/* Prints the version text, several lines, to out. */
void version_print(FILE *out);

#endif
