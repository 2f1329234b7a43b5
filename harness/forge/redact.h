/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_REDACT_H
#define BENCHGATE_REDACT_H

#include "harness/util/strbuf.h"

/*
 * Messages that must not carry a secret. The forge's token goes into the
 * one request header that needs it and nowhere else, but servers and
 * libcurl may echo what they were sent, so every message the forge records
 * or prints (errors, warnings, the summary) passes through here first.
 */

/* A run of this many characters of the secret, anywhere in it, is enough
 * to hide: servers cut what they echo ("Bad credentials: ghp_1234..."),
 * and a third of a token still narrows the search for the rest. */
#define REDACT_FRAGMENT_MIN 8

/* Appends text with every run of REDACT_FRAGMENT_MIN or more characters
 * of secret (the whole secret when it is shorter) replaced by "***";
 * runs that overlap become one "***". A NULL or empty secret leaves text
 * unchanged. */
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
