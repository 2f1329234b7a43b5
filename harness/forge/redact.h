#ifndef BENCHGATE_REDACT_H
#define BENCHGATE_REDACT_H

#include "harness/util/strbuf.h"

/*
 * Messages that must not carry a secret. The forge's token goes into the
 * one request header that needs it and nowhere else, but servers and
 * libcurl may echo what they were sent, so every message the forge records
 * or prints (errors, warnings, the summary) passes through here first.
 */

/* Appends text with every occurrence of secret replaced by "***". A NULL
 * or empty secret leaves text unchanged. */
void redact(struct strbuf *out, const char *text, const char *secret);

/* Records the formatted message with the secret scrubbed, as
 * bg_input_error() when code is BG_EINPUT, else as bg_error(); returns
 * code. */
int redact_error(const char *secret, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* bg_warn() with the secret scrubbed. */
void redact_warn(const char *secret, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
