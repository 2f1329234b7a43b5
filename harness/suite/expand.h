/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_EXPAND_H
#define BENCHGATE_EXPAND_H

#include "harness/util/strbuf.h"

/*
 * ${name} substitution in command templates. "$$" is a literal '$'.
 * `env:NAME` names are looked up in the process environment by the caller's
 * lookup function like any other name.
 */

/* Returns the value of name (borrowed), or NULL when it is unknown. */
typedef const char *(*expand_lookup_fn)(const char *name, void *payload);

/* Appends template to out with every ${name} replaced. On an unknown name
 * or an unterminated "${", returns BG_EINPUT and stores the offending name
 * (or the template) in *bad (caller frees). */
int expand_vars(struct strbuf *out, const char *template,
		expand_lookup_fn lookup, void *payload, char **bad);

#endif
