/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD shim for the tests: fdopendir of a directory under SONDE_TEST_GATE_DIR waits until
 * the file SONDE_TEST_GATE exists, so a walk (sonde find's) is held at its first directory,
 * after its header record, for as long as a test needs: a fault injected meanwhile lands while
 * the run is under way, however fast the walk would otherwise end. Other directories pass
 * untouched. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int gated(int fd)
{
	const char *dir = getenv("SONDE_TEST_GATE_DIR");
	char link[64], path[4096];
	if (!dir || !*dir)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n < 0)
		return 0;
	path[n] = '\0';
	return strncmp(path, dir, strlen(dir)) == 0;
}

DIR *fdopendir(int fd)
{
	DIR *(*real)(int) = (DIR * (*)(int)) dlsym(RTLD_NEXT, "fdopendir");
	const char *gate = getenv("SONDE_TEST_GATE");
	if (gate && gated(fd)) {
		struct timespec ms = {0, 1000 * 1000};
		while (access(gate, F_OK) != 0)
			nanosleep(&ms, NULL);
	}
	return real(fd);
}
