/* SPDX-License-Identifier: BSD-3-Clause */
/* What make bench's same-launch pairs in the ior hard loop share (hist_pair, series_pair): the
 * call they time, one 4 KiB pwrite of ior hard's pattern on tmpfs (ranks interleaved in one
 * shared file) between two clock reads, as sonde ior's transfer loop makes it; and how rank 0
 * prints a side's turns. */
#ifndef SONDE_BENCH_PAIR_H
#define SONDE_BENCH_PAIR_H

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

#define HARD_XFER 4096

/* Call k of this rank: writes buf at its place and returns the call's end time (local clock),
 * *latency its seconds; a failed or short write ends the launch, naming who. */
static inline double hard_write(const char *who, int fd, const char *buf, long k, int rank,
                                int size, double *latency)
{
	off_t at = (off_t)(k * size + rank) * HARD_XFER;
	double t0 = sonde_now();
	ssize_t n = pwrite(fd, buf, HARD_XFER, at);
	double t1 = sonde_now();
	if (n != HARD_XFER) {
		fprintf(stderr, "%s: pwrite: %s\n", who, n < 0 ? strerror(errno) : "short");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	*latency = t1 - t0;
	return t1;
}

/* "key": [t, ...]: the turns' seconds per call, in ns. */
static inline void print_turns(const char *key, const double *v, int n)
{
	printf("\"%s\": [", key);
	for (int i = 0; i < n; i++)
		printf("%s%.3f", i ? ", " : "", v[i] * 1e9);
	printf("]");
}

#endif
