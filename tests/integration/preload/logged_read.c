/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD shim for the tests: every pread of a file whose path contains SONDE_TEST_READ_MATCH
 * first sleeps SONDE_TEST_READ_DELAY seconds (0 when unset), then is logged as a "path offset
 * length seconds" line (seconds: the call's time, the delay and the real read, on the shim's own
 * clock), in the order the calls ended, to SONDE_TEST_READ_LOG.<pid>, written at exit: what the
 * process really read and how long that took, for the test to compare with what sonde reports.
 * Other reads pass untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *logbuf;
static size_t loglen, logcap;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether fd's path matches (into path, PATH_MAX bytes); if so, sleeps the delay. */
static int matched(int fd, char *path)
{
	const char *match = getenv("SONDE_TEST_READ_MATCH");
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, PATH_MAX - 1);
	if (!match || n <= 0)
		return 0;
	path[n] = '\0';
	if (!strstr(path, match))
		return 0;
	const char *delay = getenv("SONDE_TEST_READ_DELAY");
	double d = delay ? atof(delay) : 0;
	if (d > 0) {
		struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
		nanosleep(&ts, NULL);
	}
	return 1;
}

static void logged(const char *path, off_t offset, size_t len, double seconds)
{
	char line[PATH_MAX + 96];
	int len_line = snprintf(line, sizeof line, "%s %lld %zu %.9f\n", path, (long long)offset,
	                        len, seconds);
	pthread_mutex_lock(&mu);
	if (loglen + (size_t)len_line + 1 > logcap) {
		logcap = logcap ? 2 * logcap : 1 << 16;
		logbuf = realloc(logbuf, logcap);
		if (!logbuf)
			abort();
	}
	memcpy(logbuf + loglen, line, (size_t)len_line);
	loglen += (size_t)len_line;
	pthread_mutex_unlock(&mu);
}

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static ssize_t timed(pread_fn real, int fd, void *buf, size_t count, off_t offset)
{
	char path[PATH_MAX];
	double start = now();
	if (!matched(fd, path))
		return real(fd, buf, count, offset);
	ssize_t got = real(fd, buf, count, offset);
	logged(path, offset, count, now() - start);
	return got;
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	static pread_fn real;
	if (!real)
		real = (pread_fn)dlsym(RTLD_NEXT, "pread");
	return timed(real, fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off_t offset)
{
	static pread_fn real;
	if (!real)
		real = (pread_fn)dlsym(RTLD_NEXT, "pread64");
	return timed(real, fd, buf, count, offset);
}

__attribute__((destructor)) static void write_log(void)
{
	const char *base = getenv("SONDE_TEST_READ_LOG");
	if (!base || !loglen)
		return;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s.%d", base, (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fwrite(logbuf, 1, loglen, f);
	fclose(f);
}
