#include "harness/util/name.h"

#include "harness/util/terminal.h"
#include "harness/util/utf8.h"

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
	if (!strncmp(text, "::", 2))
		return false;
	for (size_t len; *text; text += len)
		if (!utf8_printable(text, &len))
			return false;
	return true;
}

void name_quote(struct strbuf *out, const char *text)
{
	terminal_escape(out, text);
}
