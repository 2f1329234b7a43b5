/* SPDX-License-Identifier: Apache-2.0 */
#include "harness/util/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[4096];

static int record(int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static int record(int code, const char *fmt, va_list ap)
{
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
	return code;
}

int bg_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = record(BG_ERROR, fmt, ap);
	va_end(ap);
	return code;
}

int bg_input_error(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = record(BG_EINPUT, fmt, ap);
	va_end(ap);
	return code;
}

int bg_notfound(const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = record(BG_ENOTFOUND, fmt, ap);
	va_end(ap);
	return code;
}

const char *bg_error_last(void)
{
	return last_message;
}

void bg_error_clear(void)
{
	last_message[0] = '\0';
}
