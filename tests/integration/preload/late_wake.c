/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD shim for the tests: a nanosleep of the process's main thread that asks for at least
 * SONDE_TEST_LATE_WAKE_MIN seconds returns SONDE_TEST_LATE_WAKE seconds after it would have: a
 * thread woken late, as one is when every core is busy when its sleep ends. Other threads and
 * shorter sleeps (the MPI library's) are left alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double env_seconds(const char *name)
{
	const char *s = getenv(name);
	return s ? atof(s) : 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	int (*real)(const struct timespec *, struct timespec *) =
	    (int (*)(const struct timespec *, struct timespec *))dlsym(RTLD_NEXT, "nanosleep");
	int rc = real(req, rem);
	double asked = (double)req->tv_sec + (double)req->tv_nsec / 1e9;
	double late = env_seconds("SONDE_TEST_LATE_WAKE");
	if (rc != 0 || late <= 0 || asked < env_seconds("SONDE_TEST_LATE_WAKE_MIN") ||
	    syscall(SYS_gettid) != getpid())
		return rc;
	struct timespec more = {(time_t)late, (long)((late - (double)(time_t)late) * 1e9)};
	while (real(&more, &more) != 0)
		;
	return 0;
}
