/* SPDX-License-Identifier: BSD-3-Clause */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *text, const char *why)
{
	snprintf(err, errlen, "'%s': %s", text, why);
	return -1;
}

/* A size beyond int64_t: -2, so that the option layer can name its own limit instead. */
static int too_large(char *err, size_t errlen, const char *text)
{
	char why[64];
	sonde_check_range(INT64_MAX, 1, 0, INT64_MAX, why, sizeof why);
	fail(err, errlen, text, why);
	return -2;
}

/* Whole decimal digits only: strtoll would accept leading blanks, '+' and hex-like junk.
 * Returns -1 when text does not start with a digit, -2 when the digits exceed INT64_MAX (*end
 * still set past them), else 0. */
static int parse_digits(const char *text, const char **end, int64_t *out)
{
	const char *p = text;
	if (!isdigit((unsigned char)*p))
		return -1;
	int64_t v = 0;
	int overflow = 0;
	for (; isdigit((unsigned char)*p); p++) {
		int d = *p - '0';
		if (overflow || v > (INT64_MAX - d) / 10)
			overflow = 1;
		else
			v = v * 10 + d;
	}
	*end = p;
	*out = v;
	return overflow ? -2 : 0;
}

static int multiply(int64_t v, int64_t mult, int64_t *out)
{
	if (mult != 0 && v > INT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

struct suffix {
	const char *text;
	int64_t mult;
};

/* LANL's dd-like set, longest first so "KB" is not read as "K" + junk. */
static const struct suffix lanl_suffixes[] = {
    {"KB", 1000},     {"MB", 1000000}, {"GB", 1000000000}, {"K", SONDE_KIB}, {"M", SONDE_MIB},
    {"G", SONDE_GIB}, {"w", 2},        {"b", 512},         {"", 1},
};

static int binary_multiplier(char c, int64_t *mult)
{
	switch (tolower((unsigned char)c)) {
	case 'k':
		*mult = SONDE_KIB;
		return 0;
	case 'm':
		*mult = SONDE_MIB;
		return 0;
	case 'g':
		*mult = SONDE_GIB;
		return 0;
	case 't':
		*mult = SONDE_GIB * 1024;
		return 0;
	default:
		return -1;
	}
}

static int parse_integer_size(const char *text, enum sonde_size_style style, int64_t *out,
                              char *err, size_t errlen)
{
	const char *end;
	int64_t v;
	int rc = parse_digits(text, &end, &v);
	if (rc == -1)
		return fail(err, errlen, text,
		            text[0] == '-' ? "must not be negative" : "not a size");
	int64_t mult = 1;
	if (style == SONDE_SIZE_BINARY) {
		if (*end && (end[1] != '\0' || binary_multiplier(*end, &mult) < 0))
			return fail(err, errlen, text, "unknown unit (use k, m, g or t)");
	} else {
		const struct suffix *s = lanl_suffixes;
		while (strcmp(end, s->text) != 0 && s->text[0])
			s++;
		if (strcmp(end, s->text) != 0)
			return fail(err, errlen, text,
			            "unknown unit (use w, b, KB, K, MB, M, GB or G)");
		mult = s->mult;
	}
	if (rc == -2 || multiply(v, mult, out) < 0)
		return too_large(err, errlen, text);
	return 0;
}

static int parse_mpibench_size(const char *text, int64_t *out, char *err, size_t errlen)
{
	const char *p = text;
	if (*p == '-')
		return fail(err, errlen, text, "must not be negative");
	if (!isdigit((unsigned char)*p) && *p != '.')
		return fail(err, errlen, text, "not a byte string");
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || errno == ERANGE || !isfinite(v))
		return fail(err, errlen, text, "not a byte string");
	int64_t mult = 1;
	if (*end && *end != 'b' && *end != 'B') {
		if (binary_multiplier(*end, &mult) < 0 || tolower((unsigned char)*end) == 't')
			return fail(err, errlen, text, "unexpected byte string (use k, m or g)");
		end++;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return fail(err, errlen, text, "unexpected byte string");
	double bytes = v * (double)mult;
	if (bytes >= 9.2e18)
		return too_large(err, errlen, text);
	if (bytes != floor(bytes))
		return fail(err, errlen, text, "not a whole number of bytes");
	*out = (int64_t)bytes;
	return 0;
}

int sonde_parse_size(const char *text, enum sonde_size_style style, int64_t *out, char *err,
                     size_t errlen)
{
	if (!text || !*text)
		return fail(err, errlen, text ? text : "", "empty size");
	if (style == SONDE_SIZE_MPIBENCH)
		return parse_mpibench_size(text, out, err, errlen);
	return parse_integer_size(text, style, out, err, errlen);
}

int sonde_check_range(int64_t v, int beyond, int64_t min, int64_t max, char *why, size_t len)
{
	if (!beyond && v >= min && v <= max)
		return 0;
	if (v > max || (beyond && v > 0))
		snprintf(why, len, "too large (at most %" PRId64 ")", max);
	else if (max == INT64_MAX || max == INT32_MAX)
		snprintf(why, len, "must be at least %" PRId64, min);
	else
		snprintf(why, len, "must be between %" PRId64 " and %" PRId64, min, max);
	return -1;
}

int sonde_parse_int(const char *text, int64_t min, int64_t max, int64_t *out, char *err,
                    size_t errlen)
{
	if (!text || !*text)
		return fail(err, errlen, text ? text : "", "empty number");
	const char *p = text, *end;
	int negative = *p == '-';
	if (negative)
		p++;
	int64_t v;
	int rc = parse_digits(p, &end, &v);
	if (rc == -1 || *end)
		return fail(err, errlen, text, "not a whole number");
	int beyond = rc == -2;
	if (beyond)
		v = negative ? INT64_MIN : INT64_MAX;
	else if (negative)
		v = -v;
	char why[96];
	if (sonde_check_range(v, beyond, min, max, why, sizeof why) < 0) {
		fail(err, errlen, text, why);
		return beyond ? -2 : -1;
	}
	*out = v;
	return 0;
}

int sonde_parse_double(const char *text, double *out, char *err, size_t errlen)
{
	if (!text || !*text)
		return fail(err, errlen, text ? text : "", "empty number");
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end || isspace((unsigned char)*text))
		return fail(err, errlen, text, "not a number");
	if (errno == ERANGE || !isfinite(v))
		return fail(err, errlen, text, "out of range");
	*out = v;
	return 0;
}

char *sonde_format_size(int64_t bytes, char *buf, size_t buflen)
{
	static const char *const names[] = {"MiB", "GiB", "TiB"};
	int u = 2;
	while (u >= 0 && bytes < ((int64_t)1 << (20 + 10 * u)))
		u--;
	if (u < 0) {
		snprintf(buf, buflen, "%" PRId64 " bytes", bytes);
		return buf;
	}
	int64_t unit = (int64_t)1 << (20 + 10 * u);
	if (bytes % unit == 0)
		snprintf(buf, buflen, "%" PRId64 " %s", bytes / unit, names[u]);
	else
		snprintf(buf, buflen, "%.2f %s", (double)bytes / (double)unit, names[u]);
	return buf;
}

int sonde_u64_digits(char *buf, uint64_t v)
{
	char rev[20];
	int n = 0;
	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = rev[n - 1 - i];
	return n;
}
