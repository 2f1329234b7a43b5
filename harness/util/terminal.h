/* SPDX-License-Identifier: Apache-2.0 */
#ifndef BENCHGATE_TERMINAL_H
#define BENCHGATE_TERMINAL_H

#include "harness/util/strbuf.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * Text for a terminal or a CI log. Everything benchgate prints on stdout and
 * stderr goes out through terminal_write() or terminal_print_line(), and
 * every user string in it (names, units, file names, failure reasons, vars,
 * commit subjects, a message that quotes any of them) is first passed
 * through terminal_escape(). The readers already refuse most hostile names
 * (name.h); this is the second line, for the text they let through (a
 * failure reason, a log tail) and for anything they miss.
 *
 * Two things are kept out:
 * - characters a terminal or a log viewer acts on instead of showing: ESC
 *   and its sequences (colours, cursor moves, the window title, OSC 8
 *   links, clipboard writes), the other C0 and C1 controls and DEL, line and
 *   paragraph separators (U+2028, U+2029), and the bidirectional overrides
 *   and isolates (U+202A-U+202E, U+2066-U+2069) with which one text
 *   displays as another ("Trojan Source", CVE-2021-42574); also bytes that
 *   are no UTF-8. Each byte of one is written as \xNN (ESC as \x1b, U+202E
 *   as \xe2\x80\xae), so it is seen and not acted on.
 * - lines a CI runner executes. GitHub Actions runs a line of a step's
 *   output as a workflow command (::add-mask::, ::set-output, ::error,
 *   ::stop-commands::) when it starts with "::" after leading white space,
 *   which it trims as .NET's String.TrimStart() does (U+00A0, U+3000 and
 *   the other Unicode spaces too); and its legacy form "##[command]"
 *   anywhere in a line, as Azure Pipelines does "##vso[" and TeamCity
 *   "##teamcity[". So a line whose first character after white space
 *   would be "::" gets a backslash before it ("  \::add-mask::x"), and every
 *   "##", letters and "[" gets one before the "[" ("##\[error]"). Leading
 *   spaces alone would not do: the runner trims them. Only
 *   reporters/annotations.c writes "::" at the start of a line, around
 *   text escaped here, and only under GitHub Actions.
 *
 * The escapes are for reading, not for parsing back: a backslash of the
 * text is not doubled.
 */

enum terminal_flags {
	/* keep SGR sequences (ESC [ digits and ';' m), the colours that
	 * benchgate itself adds when stdout is a terminal */
	TERMINAL_COLOR = 1 << 0,
};

/*
 * Appends s, a user string shown inside a line, with every unsafe
 * character (above; a tab and a newline included, so it stays on its line
 * and in its column) and every byte that is no UTF-8 written as \xNN.
 * s == NULL reads as "". Never fails.
 */
void terminal_escape(struct strbuf *out, const char *s);

/*
 * Appends text, lines that benchgate composed (newlines are its own, and
 * tabs are layout), made safe to print: unsafe characters and invalid
 * UTF-8 as terminal_escape() writes them, except tabs, newlines, a CR
 * right before a newline (CSV's line end) and, with TERMINAL_COLOR, SGR
 * sequences; and the workflow-command forms broken with a backslash as
 * described above. A caller still escapes the user
 * strings it puts into text, else a newline in one would start a line of
 * its own (harmless here, but misleading).
 */
void terminal_guard(struct strbuf *out, const char *text, unsigned flags);

/* Writes terminal_guard()'s rendering of text to `to`. */
void terminal_write(FILE *to, const char *text, unsigned flags);

/*
 * Prints one line: the formatted text, all of it escaped as
 * terminal_escape() does (so a newline in an argument cannot end the
 * line) and guarded as terminal_guard() does, then a newline. For status
 * lines such as "stored PATH"; fmt has no newline of its own.
 */
void terminal_print_line(FILE *to, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Prints text, one message or several separated by newlines (such as
 * bg_error_last()), on stderr: "benchgate: error: <line>" for each line
 * ("" is one line). Messages quote what users wrote (file names, keys,
 * values, a server's answer), so each line is escaped as
 * terminal_escape() does, and starts with the prefix, so none can be taken
 * for a workflow command. Never fails. bg_warn() (error.h) prints its
 * warnings the same way.
 */
void terminal_print_error(const char *text);

/* --quiet: bg_warn() prints nothing from now on (errors still print). */
void terminal_quiet_warnings(bool quiet);

#endif
