/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_ERROR_H
#define BENCHGATE_ERROR_H

/*
 * One error code enum for the whole library, and one recorded message.
 *
 * A function that fails records why with bg_error() (or bg_input_error()
 * for bad user input) where the failure happens, and every caller above it
 * passes the code up unchanged. cli.c turns the codes into exit statuses.
 */

enum {
	BG_OK = 0,
	BG_ERROR = -1,	   /* the environment failed: I/O, a child, libgit2 */
	BG_ENOTFOUND = -2, /* a thing looked up is absent; often not fatal */
	BG_EINPUT = -3,	   /* the user's input is wrong: exit status 2 */
};

/* Records the formatted message (replacing the last) and returns BG_ERROR. */
int bg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records the message and returns BG_EINPUT. Input errors put the position
 * first: "suite.json:8:3: expected ..." */
int bg_input_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Records the message and returns BG_ENOTFOUND. */
int bg_notfound(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The last recorded message; "" when none. Borrowed until the next record. */
const char *bg_error_last(void);

/* Forgets the last message. */
void bg_error_clear(void);

/*
 * Prints "benchgate: warning: <msg>" on stderr, each line of it escaped as
 * terminal_print_error() prints errors. Never fails. Defined with that
 * printer in terminal.c: printing needs the terminal escaper, which needs
 * strbuf, which records its own errors here.
 */
void bg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
