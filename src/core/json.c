/* SPDX-License-Identifier: BSD-3-Clause */
#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sonde_json_init(struct sonde_json *j)
{
	memset(j, 0, sizeof *j);
}

void sonde_json_free(struct sonde_json *j)
{
	free(j->buf);
	sonde_json_init(j);
}

void sonde_json_reset(struct sonde_json *j)
{
	j->len = 0;
	j->depth = 0;
	memset(j->has_items, 0, sizeof j->has_items);
	if (j->buf)
		j->buf[0] = '\0';
}

static void put(struct sonde_json *j, const char *s, size_t n)
{
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		while (cap < j->len + n + 1)
			cap *= 2;
		char *b = realloc(j->buf, cap);
		if (!b)
			abort();
		j->buf = b;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct sonde_json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* Length of the well-formed UTF-8 sequence at p (1 to 4), or 0 when p starts none: a stray
 * continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF. */
static int utf8_length(const unsigned char *p)
{
	int n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC0 ? 2 : 0;
	if (n == 0 || p[0] < 0xC2 || p[0] > 0xF4)
		return 0;
	for (int k = 1; k < n; k++)
		if ((p[k] & 0xC0) != 0x80)
			return 0;
	if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0) ||
	    (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))
		return 0;
	return n;
}

/* JSON text is UTF-8. A byte of a string that is not part of well-formed UTF-8 (a file name
 * in another encoding) is written as the escape \udcXX, XX being the byte: what Python calls
 * surrogateescape, so that os.fsencode() of the loaded string gives the original bytes back,
 * and no well-formed string is ever written that way. */
static void quoted(struct sonde_json *j, const char *s)
{
	put(j, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		switch (*p) {
		case '"':
			puts_(j, "\\\"");
			break;
		case '\\':
			puts_(j, "\\\\");
			break;
		case '\n':
			puts_(j, "\\n");
			break;
		case '\t':
			puts_(j, "\\t");
			break;
		case '\r':
			puts_(j, "\\r");
			break;
		default:
			if (*p < 0x20) {
				snprintf(esc, sizeof esc, "\\u%04x", *p);
				puts_(j, esc);
			} else if (*p < 0x80) {
				put(j, (const char *)p, 1);
			} else {
				int n = utf8_length(p);
				if (n) {
					put(j, (const char *)p, (size_t)n);
					p += n - 1;
				} else {
					snprintf(esc, sizeof esc, "\\udc%02x", *p);
					puts_(j, esc);
				}
			}
		}
	}
	put(j, "\"", 1);
}

/* Comma and key before a member. */
static void member(struct sonde_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->has_items[j->depth])
			put(j, ",", 1);
		j->has_items[j->depth] = 1;
	}
	if (key) {
		quoted(j, key);
		put(j, ":", 1);
	}
}

static void open_(struct sonde_json *j, const char *key, const char *bracket)
{
	member(j, key);
	puts_(j, bracket);
	if (j->depth + 1 >= SONDE_JSON_MAX_DEPTH)
		abort();
	j->has_items[++j->depth] = 0;
}

void sonde_json_object_begin(struct sonde_json *j, const char *key)
{
	open_(j, key, "{");
}

void sonde_json_object_end(struct sonde_json *j)
{
	j->depth--;
	puts_(j, "}");
}

void sonde_json_array_begin(struct sonde_json *j, const char *key)
{
	open_(j, key, "[");
}

void sonde_json_array_end(struct sonde_json *j)
{
	j->depth--;
	puts_(j, "]");
}

void sonde_json_string(struct sonde_json *j, const char *key, const char *value)
{
	member(j, key);
	if (value)
		quoted(j, value);
	else
		puts_(j, "null");
}

void sonde_json_int(struct sonde_json *j, const char *key, int64_t value)
{
	char b[32];
	member(j, key);
	snprintf(b, sizeof b, "%" PRId64, value);
	puts_(j, b);
}

void sonde_json_double(struct sonde_json *j, const char *key, double value)
{
	char b[40];
	member(j, key);
	if (!isfinite(value)) {
		puts_(j, "null");
		return;
	}
	/* The shortest of 15..17 significant digits that reads back as the same double. */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(b, sizeof b, "%.*g", digits, value);
		if (strtod(b, NULL) == value)
			break;
	}
	puts_(j, b);
}

void sonde_json_bool(struct sonde_json *j, const char *key, int value)
{
	member(j, key);
	puts_(j, value ? "true" : "false");
}

void sonde_json_null(struct sonde_json *j, const char *key)
{
	member(j, key);
	puts_(j, "null");
}

void sonde_json_raw(struct sonde_json *j, const char *key, const char *json)
{
	member(j, key);
	puts_(j, json && *json ? json : "null");
}

void sonde_json_raw_text_append(struct sonde_json *j, const char *text)
{
	puts_(j, text);
}
