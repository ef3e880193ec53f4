/* SPDX-License-Identifier: BSD-3-Clause */
#include "clock.h"

#include <time.h>

double sonde_now(void)
{
	int up = 0, down = 0;
	MPI_Initialized(&up);
	if (up)
		MPI_Finalized(&down);
	if (up && !down)
		return MPI_Wtime();
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CLOCK_TAG 0x434c

/* Rank 0 answers each ping of rank r with its own time; r keeps the exchange with the shortest
 * round trip: rank 0 read its clock somewhere inside that round trip, so taking the midpoint is
 * wrong by at most half of it. */
static void serve(MPI_Comm comm, int r, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		char ping;
		MPI_Recv(&ping, 1, MPI_CHAR, r, CLOCK_TAG, comm, MPI_STATUS_IGNORE);
		double t = sonde_now();
		MPI_Send(&t, 1, MPI_DOUBLE, r, CLOCK_TAG, comm);
	}
}

static void measure(MPI_Comm comm, int rounds, struct sonde_clock *c)
{
	double best = -1;
	for (int i = 0; i < rounds; i++) {
		char ping = 0;
		double remote;
		double t0 = sonde_now();
		MPI_Send(&ping, 1, MPI_CHAR, 0, CLOCK_TAG, comm);
		MPI_Recv(&remote, 1, MPI_DOUBLE, 0, CLOCK_TAG, comm, MPI_STATUS_IGNORE);
		double t1 = sonde_now();
		if (best < 0 || t1 - t0 < best) {
			best = t1 - t0;
			c->offset = remote - (t0 + t1) / 2;
		}
	}
	c->error = best / 2;
}

void sonde_clock_sync(MPI_Comm comm, int rounds, struct sonde_clock *c)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (rounds < 1)
		rounds = 1;
	c->offset = 0;
	c->error = 0;
	/* One rank at a time, so that rank 0 answers at once and no exchange queues behind another.
	 */
	MPI_Barrier(comm);
	if (rank == 0) {
		for (int r = 1; r < size; r++)
			serve(comm, r, rounds);
	} else {
		measure(comm, rounds, c);
	}
	/* Two ranks' times compared on this clock are off by up to the sum of their errors, even
	 * on one node, where they share the hardware clock and the offsets are estimates of 0. */
	MPI_Allreduce(&c->error, &c->error_max, 1, MPI_DOUBLE, MPI_MAX, comm);
	MPI_Barrier(comm);
	if (rank == 0)
		c->zero = sonde_now();
	MPI_Bcast(&c->zero, 1, MPI_DOUBLE, 0, comm);
}

const struct sonde_clock *sonde_run_clock(MPI_Comm comm)
{
	static struct sonde_clock run;
	static int synced;
	if (!synced) {
		if (comm == MPI_COMM_NULL)
			run = (struct sonde_clock){.zero = sonde_now()};
		else
			sonde_clock_sync(comm, 10, &run);
		synced = 1;
	}
	return &run;
}

void sonde_clock_span(MPI_Comm comm, const struct sonde_clock *c, double start, double end,
                      double *first, double *last)
{
	/* one MAX reduction: the earliest start is the largest negated one */
	double mine[2] = {-sonde_clock_global(c, start), sonde_clock_global(c, end)}, most[2];
	MPI_Reduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, 0, comm);
	*first = -most[0] - c->offset + c->zero;
	*last = most[1] - c->offset + c->zero;
}
