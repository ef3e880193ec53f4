/* SPDX-License-Identifier: BSD-3-Clause */
/* LD_PRELOAD shim for the tests: every pwrite of exactly SONDE_TEST_DELAY_SIZE bytes first sleeps
 * for a time drawn from a seeded log-normal distribution (median SONDE_TEST_DELAY_MEDIAN_US
 * microseconds, log standard deviation SONDE_TEST_DELAY_SIGMA; the rank SONDE_TEST_DELAY_SLOW_RANK
 * draws SONDE_TEST_DELAY_SLOW_FACTOR times longer), so a test knows the distribution of the
 * calls' latencies. Each delayed call's entry and exit (CLOCK_MONOTONIC seconds, one clock for
 * every process of the machine) are kept in memory and written at exit to
 * SONDE_TEST_DELAY_LOG.<rank>, one "start end" line a call: what the call really took, for the
 * test to compare with what sonde reports. Other writes pass untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

static double *times; /* start, end pairs */
static size_t ntimes, captimes;
static int rank = -1;
static uint64_t state;

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double env_double(const char *name, double dflt)
{
	const char *s = getenv(name);
	return s && *s ? atof(s) : dflt;
}

static int my_rank(void)
{
	const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (getenv(names[i]))
			return atoi(getenv(names[i]));
	return 0;
}

/* xorshift64*: uniform in (0, 1) */
static double uniform(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return ((double)((state * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
}

static double drawn_delay(void)
{
	if (rank < 0) {
		rank = my_rank();
		state = (uint64_t)env_double("SONDE_TEST_DELAY_SEED", 1) * 1000003ULL +
		        (uint64_t)rank + 1;
	}
	double z = sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform()); /* Box-Muller */
	double d = env_double("SONDE_TEST_DELAY_MEDIAN_US", 100) * 1e-6 *
	           exp(env_double("SONDE_TEST_DELAY_SIGMA", 0.5) * z);
	if (rank == (int)env_double("SONDE_TEST_DELAY_SLOW_RANK", -1))
		d *= env_double("SONDE_TEST_DELAY_SLOW_FACTOR", 1);
	return d;
}

static void keep(double start, double end)
{
	if (ntimes + 2 > captimes) {
		captimes = captimes ? 2 * captimes : 1 << 16;
		times = realloc(times, captimes * sizeof *times);
		if (!times)
			abort();
	}
	times[ntimes++] = start;
	times[ntimes++] = end;
}

__attribute__((destructor)) static void write_log(void)
{
	const char *prefix = getenv("SONDE_TEST_DELAY_LOG");
	if (!prefix || ntimes == 0)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s.%d", prefix, rank);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	for (size_t i = 0; i < ntimes; i += 2)
		fprintf(f, "%.9f %.9f\n", times[i], times[i + 1]);
	fclose(f);
}

static ssize_t delayed(ssize_t (*real)(int, const void *, size_t, off_t), int fd, const void *buf,
                       size_t count, off_t offset)
{
	if (count != (size_t)env_double("SONDE_TEST_DELAY_SIZE", -1))
		return real(fd, buf, count, offset);
	double start = monotonic(), d = drawn_delay();
	struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
	while (nanosleep(&ts, &ts) != 0)
		;
	ssize_t n = real(fd, buf, count, offset);
	keep(start, monotonic());
	return n;
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	if (!real)
		real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	return delayed(real, fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);
	if (!real)
		real = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
	return delayed(real, fd, buf, count, offset);
}
