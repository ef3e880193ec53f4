/* SPDX-License-Identifier: BSD-3-Clause */
/* Time. MPI_Wtime when MPI is up, CLOCK_MONOTONIC otherwise (never 1-second time()).
 * A global zero: rank 0's clock after a barrier; each rank's offset to rank 0 is estimated by
 * ping-pong, keeping the sample with the smallest round trip (its error is at most half that
 * round trip), so per-call timestamps from different ranks share one zero. */
#ifndef SONDE_CLOCK_H
#define SONDE_CLOCK_H

#include <mpi.h>

struct sonde_clock {
	double offset;    /* add to a local time to get rank 0's time */
	double error;     /* half of the best round trip, seconds */
	double error_max; /* the largest error of the ranks synced together */
	double zero;      /* the global zero, in rank 0's time */
};

double sonde_now(void); /* seconds, local clock */

/* Collective: estimates offsets (rounds ping-pongs per rank) and sets a common zero. */
void sonde_clock_sync(MPI_Comm comm, int rounds, struct sonde_clock *c);

/* The run's clock, shared by everything that stamps times on the global zero (profiles, the
 * --interval time series): synced over comm at the first call (collective then), the same clock
 * at every later call. MPI_COMM_NULL (a run without MPI): this process's own clock. */
const struct sonde_clock *sonde_run_clock(MPI_Comm comm);

/* Collective over comm: a phase's span over its ranks, the earliest of their starts and the
 * latest of their ends (each rank's local times, sonde_now()), compared on the global clock c
 * and given back as times of the clock of comm's rank 0, in first and last there (a
 * measurement's start and end). */
void sonde_clock_span(MPI_Comm comm, const struct sonde_clock *c, double start, double end,
                      double *first, double *last);

/* Local time -> seconds since the global zero. */
static inline double sonde_clock_global(const struct sonde_clock *c, double local)
{
	return local + c->offset - c->zero;
}

#endif
