/* SPDX-License-Identifier: BSD-3-Clause */
/* Target names: %r %h %p templates, and the -targets file. */
#include <stdio.h>
#include <string.h>

#include "workloads/mpiio/mpiio.h"

static int append(char *out, size_t outlen, size_t *at, const char *s, char *err, size_t errlen)
{
	size_t n = strlen(s);
	if (*at + n >= outlen) {
		snprintf(err, errlen, "expanded name longer than %zu characters", outlen - 1);
		return -1;
	}
	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
	return 0;
}

int mpiio_expand_target(const char *tmpl, int rank, const char *host, long pid, char *out,
                        size_t outlen, char *err, size_t errlen)
{
	size_t at = 0;
	out[0] = '\0';
	if (!*tmpl) {
		snprintf(err, errlen, "empty file name");
		return -1;
	}
	for (const char *s = tmpl; *s; s++) {
		char piece[64] = {*s, '\0'};
		if (*s == '%') {
			switch (s[1]) {
			case 'r':
				snprintf(piece, sizeof piece, "%d", rank);
				break;
			case 'p':
				snprintf(piece, sizeof piece, "%ld", pid);
				break;
			case '%':
				strcpy(piece, "%");
				break;
			case 'h':
				/* A host name comes from outside the command line: it must stay one
				 * path component inside the directory the template names. */
				if (!*host || strchr(host, '/') || strstr(host, "..")) {
					snprintf(
					    err, errlen,
					    "%%h: host name '%s' cannot be part of a file name",
					    host);
					return -1;
				}
				if (append(out, outlen, &at, host, err, errlen) < 0)
					return -1;
				s++;
				continue;
			default:
				snprintf(err, errlen,
				         "unknown escape '%%%c' (known: %%r %%h %%p %%%%)",
				         s[1] ? s[1] : ' ');
				return -1;
			}
			s++;
		}
		if (append(out, outlen, &at, piece, err, errlen) < 0)
			return -1;
	}
	return 0;
}
