/* SPDX-License-Identifier: BSD-3-Clause */
/* roff for the generated manual pages (man(7) macros): sonde's own texts escaped, and the
 * Markdown of the docs pages converted, so that no page is written by hand. */
#ifndef SONDE_ROFF_H
#define SONDE_ROFF_H

#include <stdio.h>

/* s as roff text that continues the current input line: backslashes and minus signs escaped
 * (an option's dash must stay a minus, not become a hyphen). */
void sonde_roff_text(FILE *out, const char *s);

/* s as one input line of text (escaped as above, and a leading '.' or '\'' kept as text). */
void sonde_roff_line(FILE *out, const char *s);

/* A macro line with one quoted argument: .SH "EXIT STATUS". */
void sonde_roff_macro(FILE *out, const char *macro, const char *arg);

/* Plain text of several lines (--help's epilogs): each line stays a line; lines that start
 * with blanks (aligned lists) keep their layout. */
void sonde_roff_lines(FILE *out, const char *text);

/* Markdown blocks as roff: paragraphs, "-"/"*" and numbered lists with one nested level,
 * ### headings, fenced code, and tables (each row a list item whose cells are labelled by the
 * header row); inline `code`, **bold**, *emphasis*, [links](url) and backslash escapes. */
void sonde_roff_markdown(FILE *out, const char *md);

#endif
