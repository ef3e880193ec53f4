/* SPDX-License-Identifier: BSD-3-Clause */
/* find(1)'s tests as the IO500 query uses them: -name (a shell pattern on the base name),
 * -size (rounded up to its unit), -newer (modification time strictly later, to the
 * nanosecond). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "workloads/find/find.h"

int find_size_parse(const char *text, struct find_size *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->cmp = '=';
	out->unit = 512;
	const char *p = text;
	if (*p == '+' || *p == '-')
		out->cmp = *p++;
	size_t len = strlen(p);
	if (len == 0) {
		snprintf(err, errlen, "'%s': a number of units, e.g. 3901c", text);
		return -1;
	}
	char number[64];
	switch (p[len - 1]) {
	case 'c':
		out->unit = 1;
		len--;
		break;
	case 'w':
		out->unit = 2;
		len--;
		break;
	case 'b':
		out->unit = 512;
		len--;
		break;
	case 'k':
		out->unit = SONDE_KIB;
		len--;
		break;
	case 'M':
		out->unit = SONDE_MIB;
		len--;
		break;
	case 'G':
		out->unit = SONDE_GIB;
		len--;
		break;
	default:
		break;
	}
	if (len == 0 || len >= sizeof number) {
		snprintf(err, errlen, "'%s': a number of units, e.g. 3901c", text);
		return -1;
	}
	memcpy(number, p, len);
	number[len] = '\0';
	char why[128];
	if (sonde_parse_int(number, 0, INT64_MAX / SONDE_GIB, &out->count, why, sizeof why) != 0) {
		snprintf(err, errlen, "'%s': %s", text, why);
		return -1;
	}
	out->given = 1;
	return 0;
}

int find_needs_stat(const struct find_tests *t)
{
	return t->size.given || t->newer;
}

int find_name_matches(const struct find_tests *t, const char *base)
{
	return !t->name || fnmatch(t->name, base, 0) == 0;
}

int find_stat_matches(const struct find_tests *t, const struct stat *st)
{
	if (t->newer) {
		const struct timespec *m = &st->st_mtim;
		if (m->tv_sec < t->newer_than.tv_sec ||
		    (m->tv_sec == t->newer_than.tv_sec && m->tv_nsec <= t->newer_than.tv_nsec))
			return 0;
	}
	if (t->size.given) {
		/* Sizes are rounded up to whole units, as find(1) does. */
		int64_t bytes = st->st_size;
		int64_t units = bytes / t->size.unit + (bytes % t->size.unit != 0);
		if (t->size.cmp == '+'   ? units <= t->size.count
		    : t->size.cmp == '-' ? units >= t->size.count
		                         : units != t->size.count)
			return 0;
	}
	return 1;
}
