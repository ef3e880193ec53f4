/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the libFuzzer targets: the fuzzer's bytes as C strings, argv words and files. */
#ifndef SONDE_FUZZ_UTIL_H
#define SONDE_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* libFuzzer's entry point, which every target defines (libFuzzer has no header for it). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated malloc'd copy (parsers read C strings; embedded NULs end them early). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Splits text in place at '\n' into argv[first..], at most max words; returns argc. */
static inline int fuzz_words(char *text, char **argv, int first, int max)
{
	int argc = first;
	char *s = text;
	while (argc < max) {
		argv[argc++] = s;
		char *nl = strchr(s, '\n');
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	argv[argc] = NULL;
	return argc;
}

/* The bytes as a file that parsers can open by name: a memfd, named through /proc. Returns
 * the descriptor (the caller closes it) and fills path. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
	int fd = memfd_create("sonde-fuzz", 0);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
