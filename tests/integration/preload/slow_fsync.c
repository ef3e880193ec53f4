/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD shim for the tests: fsync and fdatasync sleep SONDE_TEST_SYNC_DELAY seconds before
 * doing their work, so a test knows how long a phase that includes its sync must at least
 * last. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void delay(void)
{
	const char *s = getenv("SONDE_TEST_SYNC_DELAY");
	double d = s ? atof(s) : 0;
	if (d <= 0)
		return;
	struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
	while (nanosleep(&ts, &ts) != 0)
		;
}

int fsync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	delay();
	return real(fd);
}

int fdatasync(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	delay();
	return real(fd);
}
