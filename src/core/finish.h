/* SPDX-License-Identifier: BSD-3-Clause */
/* Stragglers: when each rank finished a phase, on the global clock (clock.h), relative to the
 * phase start; the slowest ranks by name; the rate while every rank was still at work against
 * the rate when the last one finished (elbencho's first and last done); the time the ranks that
 * were done spent waiting for the tail. One helper every I/O workload calls at the end of a
 * phase, so the figures mean the same for all of them. */
#ifndef SONDE_FINISH_H
#define SONDE_FINISH_H

#include <mpi.h>
#include <stdint.h>

struct sonde_topology;

/* How many of the slowest ranks a record names. */
#define SONDE_SLOWEST 3

struct sonde_finish {
	int n;                      /* ranks of the phase; 0: nothing measured */
	double min, p50, max, mean; /* finish times, seconds since the phase start */
	int nslowest;
	int slowest_rank[SONDE_SLOWEST]; /* MPI_COMM_WORLD ranks, slowest first */
	int slowest_node[SONDE_SLOWEST];
	const char *slowest_host[SONDE_SLOWEST];
	double slowest_s[SONDE_SLOWEST];
	/* First done: the sum of every rank's own rate (its bytes or ops over its own finish
	 * time), the aggregate rate while all ranks were at work if each held its pace. Last
	 * done: everything moved over the last finish time. */
	double first_done_mib_s, first_done_ops_s;
	double last_done_mib_s, last_done_ops_s;
	/* max - mean: the mean rank's wait for the slowest, the share of the phase's rank-time
	 * lost to the tail being lost_s / max. */
	double lost_s;
};

/* Collective over comm (a subset of MPI_COMM_WORLD or all of it). start and end are this rank's
 * times on a global clock (sonde_clock_global; the context's clock serves any workload) of
 * its start of the phase (for instance its exit from the barrier that opens the phase) and of
 * its own finish; bytes and ops are what this rank did. The phase starts at the earliest start
 * of any rank. topo (of MPI_COMM_WORLD) names the slowest ranks' nodes. The result is valid on
 * comm's rank 0. */
void sonde_finish_across(const struct sonde_topology *topo, MPI_Comm comm, double start, double end,
                         int64_t bytes, int64_t ops, struct sonde_finish *out);

#endif
