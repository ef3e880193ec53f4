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

int check_finish(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
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
