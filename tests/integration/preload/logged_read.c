/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD shim for the tests: every pread of a file whose path contains SONDE_TEST_READ_MATCH
 * first sleeps SONDE_TEST_READ_DELAY seconds (0 when unset), then is logged as a "path offset
 * length" line, in the order the calls were made, to SONDE_TEST_READ_LOG.<pid>, written at exit:
 * what the process really read, for the test to compare with what sonde reports. Other reads
 * pass untouched. */
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

static void logged(int fd, off_t offset, size_t len)
{
	const char *match = getenv("SONDE_TEST_READ_MATCH");
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (!match || n <= 0)
		return;
	path[n] = '\0';
	if (!strstr(path, match))
		return;
	const char *delay = getenv("SONDE_TEST_READ_DELAY");
	double d = delay ? atof(delay) : 0;
	if (d > 0) {
		struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
		nanosleep(&ts, NULL);
	}
	char line[PATH_MAX + 64];
	int len_line = snprintf(line, sizeof line, "%s %lld %zu\n", path, (long long)offset, len);
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

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	logged(fd, offset, count);
	return real(fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off_t offset)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	if (!real)
		real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
	logged(fd, offset, count);
	return real(fd, buf, count, offset);
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
