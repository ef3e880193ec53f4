/* SPDX-License-Identifier: BSD-3-Clause */
/* The roff writer of the manual pages: escapes, and the Markdown of the docs pages converted
 * (the integration tests render every page with man; these pin the conversion itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "roff.h"

/* What f writes for text, as one string. */
static char *roff(void (*f)(FILE *, const char *), const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		abort();
	f(out, text);
	fclose(out);
	return buf;
}

static void check_roff(void (*f)(FILE *, const char *), const char *text, const char *want,
                       int line)
{
	char *got = roff(f, text);
	check_count++;
	if (strcmp(got, want) != 0)
		check_fail(__FILE__, line, "for\n%s\n---- got\n%s---- expected\n%s", text, got,
		           want);
	free(got);
}

#define MARKDOWN(text, want) check_roff(sonde_roff_markdown, text, want, __LINE__)
#define LINES(text, want)    check_roff(sonde_roff_lines, text, want, __LINE__)
#define LINE(text, want)     check_roff(sonde_roff_line, text, want, __LINE__)

int main(void)
{
	/* Dashes stay minus signs, backslashes print, a leading dot or quote is text. */
	LINE("-b, --blockSize a\\b", "\\-b, \\-\\-blockSize a\\eb\n");
	LINE(".hidden request", "\\&.hidden request\n");
	LINE("'quoted", "\\&'quoted\n");

	/* Paragraphs join their lines; inline code is bold, emphasis italic, links their text. */
	MARKDOWN("One `-t 4k` call\nand **more** of *it*, see [the guide](../x.md).\n",
	         ".PP\nOne \\fB\\-t 4k\\fR call and \\fBmore\\fR of \\fIit\\fR, see the guide.\n");
	/* A code span across lines, a backslash escape, an unmatched star and backtick. */
	MARKDOWN("a `x\ny` b \\| 2 * 3 `open\n", ".PP\na \\fBx y\\fR b | 2 * 3 `open\n");
	/* Bold around code goes back to bold after the code, then to roman. */
	MARKDOWN("**`-i` alone**, then\n", ".PP\n\\fB\\fB\\-i\\fB alone\\fR, then\n");
	/* A paragraph that starts with a dot after the macro line. */
	MARKDOWN(".5GB is a size\n", ".PP\n\\&.5GB is a size\n");

	/* Bullets with continuation lines, a nested list, and the paragraph after the list. */
	MARKDOWN("- first\n  item\n- second:\n  - inner\n  - inner two\n- third\n\nAfter.\n",
	         ".IP \\(bu 2\nfirst item\n.IP \\(bu 2\nsecond:\n.RS\n.IP \\(bu 2\ninner\n"
	         ".IP \\(bu 2\ninner two\n.RE\n.IP \\(bu 2\nthird\n.PP\nAfter.\n");
	/* Numbered items, and a second paragraph of an item. */
	MARKDOWN("1. one\n\n   more of one\n2. two\n",
	         ".IP 1. 4\none\n.IP\nmore of one\n.IP 2. 4\ntwo\n");
	/* Code blocks keep their lines; a heading is a subsection. */
	MARKDOWN("```\n.x \\n\n  -y\n```\n### Sub `h`\ntext\n",
	         ".RS 2\n.nf\n\\&.x \\en\n  \\-y\n.fi\n.RE\n.SS\nSub \\fBh\\fR\n.PP\ntext\n");
	/* A table: each row an item, its cells labelled by the header; empty and dash cells
	 * left out. */
	MARKDOWN("| A | B \\| C | why |\n| --- | --- | --- |\n| a1 | `b1` | |\n| \xe2\x80\x94 | b2 "
	         "| w |\n"
	         "\nNext.\n",
	         ".IP \\(bu 2\n\\fBA:\\fR\na1\n\\(em\n\\fBB | C:\\fR\n\\fBb1\\fR\n"
	         ".IP \\(bu 2\n\\fBB | C:\\fR\nb2\n\\(em\n\\fBwhy:\\fR\nw\n.PP\nNext.\n");

	/* Epilog lines: each its own line; indented ones without filling. */
	LINES("Operations:\n  a b\n  c\nEnd.",
	      "Operations:\n.br\n.nf\n  a b\n  c\n.fi\nEnd.\n.br\n");
	return check_finish("roff");
}
