#include "harness/util/error.h"

#include "harness/util/strbuf.h"
#include "harness/util/terminal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[4096];

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

/* "benchgate: <level>: <line>" for each line of text ("" is one empty
 * line). Every line starts with the prefix, so none starts a workflow
 * command. */
static void print_lines(const char *level, const char *text)
{
	struct strbuf out = STRBUF_INIT, line = STRBUF_INIT;

	do {
		size_t len = strcspn(text, "\n");

		strbuf_reset(&line);
		strbuf_add(&line, text, len);
		strbuf_addf(&out, "benchgate: %s: ", level);
		terminal_escape(&out, line.buf);
		strbuf_addch(&out, '\n');
		text += len + (text[len] == '\n');
	} while (*text);
	terminal_write(stderr, out.buf, 0);
	strbuf_release(&line);
	strbuf_release(&out);
}

void bg_error_print(const char *text)
{
	print_lines("error", text);
}

void bg_warn(const char *fmt, ...)
{
	struct strbuf text = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&text, fmt, ap);
	va_end(ap);
	print_lines("warning", text.buf);
	strbuf_release(&text);
}
