/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/name.h"

#include "harness/util/terminal.h"

#include <string.h>

bool name_valid(const char *name)
{
	size_t len = strlen(name);

	return len && strspn(name, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-_.+") == len;
}

bool name_printable(const char *text)
{
	struct strbuf escaped = STRBUF_INIT;
	bool printable;

	/* printable is what the terminal's escaper would leave as it is, so
	 * the rule and the escaping never disagree */
	terminal_escape(&escaped, text);
	printable = strncmp(text, "::", 2) && !strcmp(escaped.buf, text);
	strbuf_release(&escaped);
	return printable;
}

void name_quote(struct strbuf *out, const char *text)
{
	terminal_escape(out, text);
}
