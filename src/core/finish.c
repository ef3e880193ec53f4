/* SPDX-License-Identifier: BSD-3-Clause */
#include "finish.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "stats.h"
#include "topology.h"
#include "units.h"

/* F_RANK: the rank in the phase's communicator, which the topology (made on that communicator,
 * a group's in sonde mix) is indexed by; F_WORLD_RANK: the launch's rank, the one named. */
enum { F_FINISH, F_BYTES, F_OPS, F_WORLD_RANK, F_RANK, F_N };

/* Slowest first; equal times in rank order, so the names do not depend on qsort. */
static int slower_first(const void *a, const void *b)
{
	const double *x = a, *y = b;
	if (x[F_FINISH] != y[F_FINISH])
		return x[F_FINISH] < y[F_FINISH] ? 1 : -1;
	return (x[F_WORLD_RANK] > y[F_WORLD_RANK]) - (x[F_WORLD_RANK] < y[F_WORLD_RANK]);
}

static void summarise(const struct sonde_topology *topo, double *all, int n,
                      struct sonde_finish *out)
{
	double *times = malloc(sizeof *times * (size_t)n);
	if (!times)
		sonde_fatal("out of memory for %d finish times", n);
	double bytes = 0, ops = 0, first_bytes_rate = 0, first_ops_rate = 0, sum = 0;
	for (int i = 0; i < n; i++) {
		const double *r = all + (size_t)i * F_N;
		times[i] = r[F_FINISH];
		sum += r[F_FINISH];
		bytes += r[F_BYTES];
		ops += r[F_OPS];
		if (r[F_FINISH] > 0) {
			first_bytes_rate += r[F_BYTES] / r[F_FINISH];
			first_ops_rate += r[F_OPS] / r[F_FINISH];
		}
	}
	sonde_sort_doubles(times, n);
	out->n = n;
	out->min = times[0];
	out->max = times[n - 1];
	out->p50 = sonde_percentile(times, n, 50);
	out->mean = sum / n;
	out->lost_s = out->max - out->mean;
	out->first_done_mib_s = first_bytes_rate / (double)SONDE_MIB;
	out->first_done_ops_s = first_ops_rate;
	out->last_done_mib_s = out->max > 0 ? bytes / (double)SONDE_MIB / out->max : NAN;
	out->last_done_ops_s = out->max > 0 ? ops / out->max : NAN;
	free(times);
	qsort(all, (size_t)n, sizeof *all * F_N, slower_first);
	out->nslowest = n < SONDE_SLOWEST ? n : SONDE_SLOWEST;
	for (int i = 0; i < out->nslowest; i++) {
		const double *r = all + (size_t)i * F_N;
		int rank = (int)r[F_RANK];
		out->slowest_rank[i] = (int)r[F_WORLD_RANK];
		out->slowest_node[i] = topo->node_of_rank[rank];
		out->slowest_host[i] = sonde_host_of(topo, rank);
		out->slowest_s[i] = r[F_FINISH];
	}
}

void sonde_finish_across(const struct sonde_topology *topo, MPI_Comm comm, double start, double end,
                         int64_t bytes, int64_t ops, struct sonde_finish *out)
{
	memset(out, 0, sizeof *out);
	int rank, size, world_rank;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	double phase_start;
	MPI_Allreduce(&start, &phase_start, 1, MPI_DOUBLE, MPI_MIN, comm);
	double mine[F_N] = {end - phase_start, (double)bytes, (double)ops, (double)world_rank,
	                    (double)rank};
	double *all = NULL;
	if (rank == 0) {
		all = malloc(sizeof *all * F_N * (size_t)size);
		if (!all)
			sonde_fatal("out of memory for %d finish times", size);
	}
	MPI_Gather(mine, F_N, MPI_DOUBLE, all, F_N, MPI_DOUBLE, 0, comm);
	if (rank == 0)
		summarise(topo, all, size, out);
	free(all);
}
