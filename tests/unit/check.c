/* SPDX-License-Identifier: BSD-3-Clause */
#include "check.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int check_failures;
int check_count;
int check_skips;

void check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	check_failures++;
}

void check_skip(const char *fmt, ...)
{
	va_list ap;
	fputs("skipped ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	check_skips++;
}

int check_finish(const char *name)
{
	printf("%s: %d checks, %d failed, %d parts skipped\n", name, check_count, check_failures,
	       check_skips);
	return check_failures ? 1 : check_skips ? CHECK_SKIPPED : 0;
}

void check_temp_dir(const char *name, char *out)
{
	const char *base = getenv("TEST_TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	mkdir(base, 0755);
	char made[PATH_MAX];
	snprintf(made, sizeof made, "%s/sonde-%s-XXXXXX", base, name);
	if (!mkdtemp(made) || !realpath(made, out)) {
		fprintf(stderr, "mkdtemp %s: %s\n", made, strerror(errno));
		exit(1);
	}
}
