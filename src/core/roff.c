/* SPDX-License-Identifier: BSD-3-Clause */
#include "roff.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void put_char(FILE *out, char c)
{
	if (c == '\\')
		fputs("\\e", out);
	else if (c == '-')
		fputs("\\-", out);
	else
		fputc(c, out);
}

static void put_text(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_char(out, s[i]);
}

/* A control character at the start of an input line would make the line a request. */
static void line_start(FILE *out, char first)
{
	if (first == '.' || first == '\'')
		fputs("\\&", out);
}

void sonde_roff_text(FILE *out, const char *s)
{
	put_text(out, s, strlen(s));
}

void sonde_roff_line(FILE *out, const char *s)
{
	line_start(out, *s);
	sonde_roff_text(out, s);
	fputc('\n', out);
}

void sonde_roff_macro(FILE *out, const char *macro, const char *arg)
{
	fprintf(out, ".%s \"", macro);
	for (; *arg; arg++) {
		if (*arg == '"')
			fputs("\\(dq", out);
		else
			put_char(out, *arg);
	}
	fputs("\"\n", out);
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

void sonde_roff_lines(FILE *out, const char *text)
{
	int nofill = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		int indented = n > 0 && blank(p[0]);
		if (indented != nofill) {
			fputs(indented ? ".nf\n" : ".fi\n", out);
			nofill = indented;
		}
		if (n == 0) {
			fputs(".sp\n", out);
		} else {
			line_start(out, p[0]);
			put_text(out, p, n);
			fputs(nofill ? "\n" : "\n.br\n", out);
		}
		p += n + (nl != NULL);
	}
	if (nofill)
		fputs(".fi\n", out);
}

/* ---- inline Markdown ----------------------------------------------------------------------- */

struct font {
	int bold, italic;
};

static void set_font(FILE *out, int code, const struct font *f)
{
	if (code || (f->bold && !f->italic))
		fputs("\\fB", out);
	else if (f->bold)
		fputs("\\f(BI", out);
	else
		fputs(f->italic ? "\\fI" : "\\fR", out);
}

/* Where the run of k backticks that closes a code span starting at s[from] is, or -1. */
static long closing_ticks(const char *s, size_t n, size_t from, size_t k)
{
	for (size_t i = from; i < n;) {
		size_t run = 0;
		while (i + run < n && s[i + run] == '`')
			run++;
		if (run == k)
			return (long)i;
		i += run ? run : 1;
	}
	return -1;
}

static const char *find(const char *s, size_t n, size_t from, const char *what)
{
	size_t w = strlen(what);
	for (size_t i = from; i + w <= n; i++)
		if (memcmp(s + i, what, w) == 0)
			return s + i;
	return NULL;
}

/* A single '*' that opens emphasis: followed by a word, and closed later by a '*' after one. */
static int opens_emphasis(const char *s, size_t n, size_t i)
{
	if (i + 1 >= n || blank(s[i + 1]) || s[i + 1] == '*' ||
	    (i > 0 && isalnum((unsigned char)s[i - 1])))
		return 0;
	for (size_t j = i + 2; j < n; j++)
		if (s[j] == '*' && !blank(s[j - 1]))
			return 1;
	return 0;
}

static void put_inline(FILE *out, const char *s, size_t n, struct font *f)
{
	for (size_t i = 0; i < n;) {
		char c = s[i];
		if (c == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
			put_char(out, s[i + 1]);
			i += 2;
		} else if (c == '`') {
			size_t k = 0;
			while (i + k < n && s[i + k] == '`')
				k++;
			long end = closing_ticks(s, n, i + k, k);
			if (end < 0) {
				put_text(out, s + i, k);
				i += k;
				continue;
			}
			size_t a = i + k, b = (size_t)end;
			if (b - a >= 2 && s[a] == ' ' && s[b - 1] == ' ')
				a++, b--;
			set_font(out, 1, f);
			put_text(out, s + a, b - a);
			set_font(out, 0, f);
			i = (size_t)end + k;
		} else if (c == '*' && i + 1 < n && s[i + 1] == '*' &&
		           (f->bold || find(s, n, i + 2, "**"))) {
			f->bold = !f->bold;
			set_font(out, 0, f);
			i += 2;
		} else if (c == '*' &&
		           (f->italic ? i > 0 && !blank(s[i - 1]) : opens_emphasis(s, n, i))) {
			f->italic = !f->italic;
			set_font(out, 0, f);
			i++;
		} else if (c == '[' && find(s, n, i, "](")) {
			/* [text](target): the text alone; targets are the docs' own files and
			 * pages. */
			const char *mid = find(s, n, i, "](");
			const char *close = find(s, n, (size_t)(mid - s) + 2, ")");
			if (!close) {
				put_char(out, c);
				i++;
				continue;
			}
			put_inline(out, s + i + 1, (size_t)(mid - s) - i - 1, f);
			i = (size_t)(close - s) + 1;
		} else {
			put_char(out, c);
			i++;
		}
	}
}

static void put_markdown_line(FILE *out, const char *s, size_t n)
{
	struct font f = {0, 0};
	line_start(out, n ? s[0] : '\0');
	put_inline(out, s, n, &f);
	if (f.bold || f.italic)
		fputs("\\fR", out);
	fputc('\n', out);
}

/* ---- Markdown blocks ----------------------------------------------------------------------- */

enum block { NO_BLOCK, PARAGRAPH, ITEM, ITEM_PARAGRAPH };

struct md {
	FILE *out;
	enum block block;
	char tag[24]; /* the open item's roff tag: \(bu or "3." */
	char *text;   /* the open block's lines joined by blanks */
	size_t len, cap;
	int depth;     /* open list levels: 0, 1 or 2 */
	char **header; /* the open table's header cells */
	int ncols;
	int in_code;
	size_t code_indent;
};

static void append(struct md *m, const char *s, size_t n)
{
	if (m->len + n + 2 > m->cap) {
		m->cap = (m->len + n + 2) * 2;
		m->text = realloc(m->text, m->cap);
		if (!m->text)
			abort();
	}
	if (m->len)
		m->text[m->len++] = ' ';
	memcpy(m->text + m->len, s, n);
	m->len += n;
	m->text[m->len] = '\0';
}

static void flush(struct md *m)
{
	if (m->block == NO_BLOCK)
		return;
	if (m->block == PARAGRAPH)
		fputs(".PP\n", m->out);
	else if (m->block == ITEM)
		fprintf(m->out, ".IP %s %d\n", m->tag, m->tag[0] == '\\' ? 2 : 4);
	else
		fputs(".IP\n", m->out);
	put_markdown_line(m->out, m->text, m->len);
	m->block = NO_BLOCK;
	m->len = 0;
}

/* Opens or closes list levels until depth is reached (a nested list sits in .RS/.RE). */
static void set_depth(struct md *m, int depth)
{
	for (; m->depth < depth; m->depth++)
		if (m->depth >= 1)
			fputs(".RS\n", m->out);
	for (; m->depth > depth; m->depth--)
		if (m->depth >= 2)
			fputs(".RE\n", m->out);
}

static void end_table(struct md *m)
{
	for (int i = 0; i < m->ncols; i++)
		free(m->header[i]);
	free(m->header);
	m->header = NULL;
	m->ncols = 0;
}

/* The cells of a table row "| a | b \| c |", trimmed; returns their count. */
static int split_row(const char *s, size_t n, char ***cells)
{
	int count = 0;
	*cells = NULL;
	size_t i = 0;
	while (i < n && s[i] != '|')
		i++;
	for (i++; i < n;) {
		size_t a = i;
		while (i < n && !(s[i] == '|' && s[i - 1] != '\\'))
			i++;
		if (i >= n && count > 0)
			break; /* text after the last '|' */
		size_t b = i;
		while (a < b && blank(s[a]))
			a++;
		while (b > a && blank(s[b - 1]))
			b--;
		*cells = realloc(*cells, (size_t)(count + 1) * sizeof **cells);
		if (!*cells)
			abort();
		(*cells)[count++] = strndup(s + a, b - a);
		i++;
	}
	return count;
}

static int separator_row(char **cells, int n)
{
	for (int i = 0; i < n; i++)
		if (strspn(cells[i], "-: ") != strlen(cells[i]) || !strchr(cells[i], '-'))
			return 0;
	return n > 0;
}

/* A table row after the header becomes a list item: each cell labelled by its column. */
static void table_row(struct md *m, const char *s, size_t n)
{
	char **cells;
	int count = split_row(s, n, &cells);
	if (!m->header) {
		m->header = cells;
		m->ncols = count;
		return;
	}
	if (!separator_row(cells, count)) {
		set_depth(m, 0);
		fputs(".IP \\(bu 2\n", m->out);
		int first = 1;
		for (int i = 0; i < count && i < m->ncols; i++) {
			if (!cells[i][0] || strcmp(cells[i], "\xe2\x80\x94") == 0 ||
			    strcmp(cells[i], "-") == 0)
				continue;
			if (!first)
				fputs("\\(em\n", m->out);
			first = 0;
			struct font bold = {1, 0};
			fputs("\\fB", m->out);
			put_inline(m->out, m->header[i], strlen(m->header[i]), &bold);
			fputs(":\\fR\n", m->out);
			put_markdown_line(m->out, cells[i], strlen(cells[i]));
		}
	}
	for (int i = 0; i < count; i++)
		free(cells[i]);
	free(cells);
}

/* "- ", "* " or "12. ": the marker's length, and the roff tag in tag; 0 for other lines. */
static size_t item_marker(const char *s, size_t n, char *tag, size_t taglen)
{
	if (n >= 2 && (s[0] == '-' || s[0] == '*') && s[1] == ' ') {
		snprintf(tag, taglen, "\\(bu");
		return 2;
	}
	size_t d = 0;
	while (d < n && d < 4 && isdigit((unsigned char)s[d]))
		d++;
	if (d > 0 && d + 1 < n && s[d] == '.' && s[d + 1] == ' ') {
		snprintf(tag, taglen, "%.*s.", (int)d, s);
		return d + 2;
	}
	return 0;
}

static void code_line(struct md *m, const char *s, size_t n)
{
	for (size_t k = 0; k < m->code_indent && n > 0 && blank(*s); k++)
		s++, n--;
	line_start(m->out, n ? s[0] : '\0');
	put_text(m->out, s, n);
	fputc('\n', m->out);
}

static void markdown_line(struct md *m, const char *line, size_t len, int *after_blank)
{
	size_t indent = 0;
	while (indent < len && blank(line[indent]))
		indent++;
	const char *s = line + indent;
	size_t n = len - indent;
	if (m->in_code) {
		if (n >= 3 && memcmp(s, "```", 3) == 0) {
			fputs(".fi\n.RE\n", m->out);
			m->in_code = 0;
		} else {
			code_line(m, line, len);
		}
		return;
	}
	if (m->header && (n == 0 || s[0] != '|'))
		end_table(m);
	if (n == 0) {
		flush(m);
		*after_blank = 1;
		return;
	}
	char tag[sizeof m->tag];
	size_t marker;
	if (n >= 3 && memcmp(s, "```", 3) == 0) {
		flush(m);
		fputs(".RS 2\n.nf\n", m->out);
		m->in_code = 1;
		m->code_indent = indent;
	} else if (s[0] == '#') {
		flush(m);
		set_depth(m, 0);
		size_t h = strspn(s, "#");
		while (h < n && blank(s[h]))
			h++;
		fputs(".SS\n", m->out); /* the heading is the next line */
		put_markdown_line(m->out, s + h, n - h);
	} else if (s[0] == '|') {
		flush(m);
		table_row(m, s, n);
	} else if ((marker = item_marker(s, n, tag, sizeof tag)) > 0) {
		flush(m);
		int level = indent >= 2 ? 2 : 1;
		set_depth(m, level > m->depth + 1 ? m->depth + 1 : level);
		m->block = ITEM;
		memcpy(m->tag, tag, sizeof tag);
		append(m, s + marker, n - marker);
	} else if (m->block != NO_BLOCK && !*after_blank) {
		append(m, s, n); /* the open paragraph or item goes on */
	} else {
		if (m->depth > 0 && indent >= 2) {
			m->block = ITEM_PARAGRAPH; /* a further paragraph of the open item */
		} else {
			set_depth(m, 0);
			m->block = PARAGRAPH;
		}
		append(m, s, n);
	}
	*after_blank = 0;
}

void sonde_roff_markdown(FILE *out, const char *md)
{
	struct md m = {.out = out};
	int after_blank = 1;
	for (const char *p = md; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		markdown_line(&m, p, n, &after_blank);
		p += n + (nl != NULL);
	}
	flush(&m);
	if (m.in_code)
		fputs(".fi\n.RE\n", out);
	set_depth(&m, 0);
	end_table(&m);
	free(m.text);
}
