/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/forge/redact.h"

#include "harness/util/error.h"

#include <stdarg.h>
#include <string.h>

/* The length of the longest run of secret that starts at text, or 0. */
static size_t longest_fragment_at(const char *text, const char *secret)
{
	size_t longest = 0;

	for (const char *s = secret; *s; s++) {
		size_t len = 0;

		while (s[len] && text[len] == s[len])
			len++;
		if (len > longest)
			longest = len;
	}
	return longest;
}

void redact(struct strbuf *out, const char *text, const char *secret)
{
	size_t secret_len = secret ? strlen(secret) : 0;
	size_t min = secret_len < REDACT_FRAGMENT_MIN ? secret_len
						      : REDACT_FRAGMENT_MIN;
	size_t covered_to = 0; /* text[i] is hidden while i < covered_to */

	if (!secret_len) {
		strbuf_addstr(out, text);
		return;
	}
	/* Fragments may overlap in the text (a cut token, then the whole
	 * one), so every position is tried and the hidden span grows. */
	for (size_t i = 0; text[i]; i++) {
		size_t len = longest_fragment_at(text + i, secret);

		if (len >= min) {
			if (i >= covered_to)
				strbuf_addstr(out, "***");
			if (i + len > covered_to)
				covered_to = i + len;
		}
		if (i >= covered_to)
			strbuf_addch(out, text[i]);
	}
}

/* Formats fmt into clean with the secret scrubbed. */
static void vredact(struct strbuf *clean, const char *secret, const char *fmt,
		    va_list ap) __attribute__((format(printf, 3, 0)));

static void vredact(struct strbuf *clean, const char *secret, const char *fmt,
		    va_list ap)
{
	struct strbuf raw = STRBUF_INIT;

	strbuf_vaddf(&raw, fmt, ap);
	redact(clean, raw.buf, secret);
	strbuf_release(&raw);
}

int redact_error(const char *secret, int code, const char *fmt, ...)
{
	struct strbuf clean = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vredact(&clean, secret, fmt, ap);
	va_end(ap);
	if (code == BG_EINPUT)
		bg_input_error("%s", clean.buf);
	else
		bg_error("%s", clean.buf);
	strbuf_release(&clean);
	return code;
}

void redact_warn(const char *secret, const char *fmt, ...)
{
	struct strbuf clean = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vredact(&clean, secret, fmt, ap);
	va_end(ap);
	bg_warn("%s", clean.buf);
	strbuf_release(&clean);
}
