#include "harness/forge/redact.h"

#include "harness/util/error.h"

#include <stdarg.h>
#include <string.h>

void redact(struct strbuf *out, const char *text, const char *secret)
{
	size_t secret_len = secret ? strlen(secret) : 0;
	const char *hit;

	if (!secret_len) {
		strbuf_addstr(out, text);
		return;
	}
	while ((hit = strstr(text, secret))) {
		strbuf_add(out, text, (size_t)(hit - text));
		strbuf_addstr(out, "***");
		text = hit + secret_len;
	}
	strbuf_addstr(out, text);
}

/* Formats fmt into clean with the secret scrubbed. */
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
