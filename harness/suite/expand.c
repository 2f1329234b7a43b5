/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/suite/expand.h"

#include "harness/util/alloc.h"
#include "harness/util/error.h"

#include <stdlib.h>
#include <string.h>

int expand_vars(struct strbuf *out, const char *template,
		expand_lookup_fn lookup, void *payload, char **bad)
{
	const char *p = template;

	*bad = NULL;
	while (*p) {
		const char *dollar = strchr(p, '$');
		const char *close;
		const char *value;
		char *name;

		if (!dollar) {
			strbuf_addstr(out, p);
			break;
		}
		strbuf_add(out, p, (size_t)(dollar - p));
		if (dollar[1] == '$') {
			strbuf_addch(out, '$');
			p = dollar + 2;
			continue;
		}
		if (dollar[1] != '{') {
			strbuf_addch(out, '$');
			p = dollar + 1;
			continue;
		}
		close = strchr(dollar + 2, '}');
		if (!close) {
			*bad = xstrdup(dollar);
			return BG_EINPUT;
		}
		name = xstrndup(dollar + 2, (size_t)(close - dollar - 2));
		value = lookup(name, payload);
		if (!value) {
			*bad = name;
			return BG_EINPUT;
		}
		free(name);
		strbuf_addstr(out, value);
		p = close + 1;
	}
	return BG_OK;
}
