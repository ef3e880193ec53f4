/* SPDX-License-Identifier: BSD-3-Clause */
/* What the backend tests share: offset-dependent data, file paths and sizes, and checks of the
 * backend's last error message. */
#ifndef SONDE_IO_CHECK_H
#define SONDE_IO_CHECK_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "check.h"

/* Every byte a function of its offset and a seed, so misplaced data shows. */
static inline void fill(unsigned char *b, size_t n, int64_t off, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t x = (uint64_t)(off + (int64_t)i) * 0x9E3779B97F4A7C15ull + seed;
		b[i] = (unsigned char)(x >> 56);
	}
}

/* Case-insensitive: MPI libraries capitalise their messages differently. */
static inline int has(const char *haystack, const char *needle)
{
	return strcasestr(haystack, needle) != NULL;
}

#define CHECK_MSG(needle)                                                                          \
	do {                                                                                       \
		CHECK(has(sonde_io_last_error(), (needle)));                                       \
		if (!has(sonde_io_last_error(), (needle)))                                         \
			fprintf(stderr, "  message: %s\n  wanted: %s\n", sonde_io_last_error(),    \
			        (needle));                                                         \
	} while (0)

static inline void join(char *out, const char *dir, const char *name)
{
	if (snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX) {
		fprintf(stderr, "path too long: %s/%s\n", dir, name);
		exit(1);
	}
}

static inline int64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

#endif
