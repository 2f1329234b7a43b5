#include "harness/util/name.h"

#include "harness/util/utf8.h"

#include <stdint.h>
#include <string.h>

bool name_valid(const char *name)
{
	size_t len = strlen(name);

	return len && strspn(name, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-_.+") == len;
}

/* The characters a terminal or a log viewer acts on rather than shows. */
static bool is_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The length of the character at s, or 0 when it is unsafe or no UTF-8. */
static size_t safe_char_len(const char *s)
{
	uint32_t cp;
	size_t len = utf8_decode(s, &cp);

	/* a real U+FFFD takes three bytes; a lone byte read as it is not
	 * UTF-8 */
	if (is_unsafe(cp) || (cp == UTF8_REPLACEMENT && len == 1))
		return 0;
	return len;
}

bool name_printable(const char *text)
{
	if (!strncmp(text, "::", 2))
		return false;
	while (*text) {
		size_t len = safe_char_len(text);

		if (!len)
			return false;
		text += len;
	}
	return true;
}

void name_quote(struct strbuf *out, const char *text)
{
	while (*text) {
		size_t len = safe_char_len(text);

		if (len) {
			strbuf_add(out, text, len);
			text += len;
		} else {
			strbuf_addf(out, "\\x%02x", (unsigned char)*text++);
		}
	}
}
