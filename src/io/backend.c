/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-thread error description and "key=value" hints; the registry is registry.c. */
#include "backend.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Long enough for two paths and an MPI error string (MPI_MAX_ERROR_STRING is 256). */
static _Thread_local char last_error[1024];

const char *sonde_io_last_error(void)
{
	return last_error;
}

void sonde_io_set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
}

int sonde_io_link_refused(const char *op, const char *path)
{
	sonde_io_set_error("%s %s: is a symbolic link; sonde does not follow symbolic links at its "
	                   "test file paths",
	                   op, path);
	return -ELOOP;
}

/* Copies s[0..n) without surrounding blanks into dst (size cap); returns the trimmed length or
 * (size_t)-1 when it does not fit. */
static size_t copy_trimmed(char *dst, size_t cap, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= cap)
		return (size_t)-1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return n;
}

/* Checks one "key=value" string before any MPI call: MPI_Info_set reports bad keys through the
 * default (fatal) error handler, and sonde wants one clear line instead. */
static int parse_hint(const char *hint, char *key, char *value)
{
	const char *eq = hint ? strchr(hint, '=') : NULL;
	if (!eq) {
		sonde_io_set_error("bad I/O hint '%s': expected key=value", hint ? hint : "(null)");
		return -1;
	}
	size_t klen = copy_trimmed(key, MPI_MAX_INFO_KEY, hint, (size_t)(eq - hint));
	if (klen == 0) {
		sonde_io_set_error("bad I/O hint '%s': empty key", hint);
		return -1;
	}
	if (klen == (size_t)-1) {
		sonde_io_set_error("bad I/O hint '%s': key longer than %d characters", hint,
		                   MPI_MAX_INFO_KEY - 1);
		return -1;
	}
	size_t vlen = copy_trimmed(value, MPI_MAX_INFO_VAL, eq + 1, strlen(eq + 1));
	if (vlen == 0) {
		sonde_io_set_error("bad I/O hint '%s': empty value", hint);
		return -1;
	}
	if (vlen == (size_t)-1) {
		sonde_io_set_error("bad I/O hint '%s': value longer than %d characters", hint,
		                   MPI_MAX_INFO_VAL - 1);
		return -1;
	}
	return 0;
}

int sonde_io_hints_info(const char **hints, int nhints, MPI_Info *out)
{
	char key[MPI_MAX_INFO_KEY];
	char value[MPI_MAX_INFO_VAL];

	if (out)
		*out = MPI_INFO_NULL;
	if (!hints || nhints <= 0)
		return 0;
	/* Validate everything first so that a bad string leaves nothing to free. */
	for (int i = 0; i < nhints; i++)
		if (parse_hint(hints[i], key, value) != 0)
			return -1;
	if (!out)
		return 0;
	MPI_Info info = MPI_INFO_NULL;
	int rc = MPI_Info_create(&info);
	for (int i = 0; i < nhints && rc == MPI_SUCCESS; i++) {
		parse_hint(hints[i], key, value);
		rc = MPI_Info_set(info, key, value);
	}
	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len = 0;
		MPI_Error_string(rc, msg, &len);
		sonde_io_set_error("I/O hints: %s", msg);
		if (info != MPI_INFO_NULL)
			MPI_Info_free(&info);
		return -1;
	}
	*out = info;
	return 0;
}

int sonde_io_check_flags(const char *path, unsigned flags)
{
	unsigned mode = flags & (SONDE_IO_RDONLY | SONDE_IO_WRONLY | SONDE_IO_RDWR);
	if (mode != SONDE_IO_RDONLY && mode != SONDE_IO_WRONLY && mode != SONDE_IO_RDWR) {
		sonde_io_set_error("open %s: exactly one of read-only, write-only and read-write "
		                   "must be asked for",
		                   path);
		return -EINVAL;
	}
	if ((flags & SONDE_IO_EXCL) && !(flags & SONDE_IO_CREATE)) {
		sonde_io_set_error("open %s: exclusive open needs create", path);
		return -EINVAL;
	}
	return 0;
}
