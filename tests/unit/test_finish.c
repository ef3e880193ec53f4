/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 4
/* Stragglers (finish.c): known start and finish times on 4 ranks and on a 2-rank subset, the
 * figures recomputed by hand. */
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "finish.h"
#include "topology.h"
#include "units.h"

/* Rank r starts at 10 + r ms and finishes at 10 + (r + 1) s (rank 3 last, rank 0 first), with
 * 1 MiB and 10 calls each: the phase starts at 10 s, finishes are 1, 2, 3, 4 s. */
static void test_all(const struct sonde_topology *topo, int rank)
{
	struct sonde_finish f;
	sonde_finish_across(topo, MPI_COMM_WORLD, 10 + rank * 1e-3, 10 + rank + 1, SONDE_MIB, 10,
	                    &f);
	if (rank != 0)
		return;
	CHECK_INT(f.n, 4);
	CHECK_NEAR(f.min, 1, 1e-12);
	CHECK_NEAR(f.p50, 2.5, 1e-12);
	CHECK_NEAR(f.max, 4, 1e-12);
	CHECK_NEAR(f.mean, 2.5, 1e-12);
	CHECK_NEAR(f.lost_s, 1.5, 1e-12);
	CHECK_INT(f.nslowest, SONDE_SLOWEST);
	for (int i = 0; i < SONDE_SLOWEST; i++) {
		CHECK_INT(f.slowest_rank[i], 3 - i);
		CHECK_NEAR(f.slowest_s[i], 4 - i, 1e-12);
		CHECK_INT(f.slowest_node[i], topo->node_of_rank[3 - i]);
		CHECK(strcmp(f.slowest_host[i], sonde_host_of(topo, 3 - i)) == 0);
	}
	/* each rank's own rate: 1/1 + 1/2 + 1/3 + 1/4 MiB/s; everything over the last 4 s */
	CHECK_NEAR(f.first_done_mib_s, 25.0 / 12, 1e-12);
	CHECK_NEAR(f.first_done_ops_s, 250.0 / 12, 1e-12);
	CHECK_NEAR(f.last_done_mib_s, 1.0, 1e-12);
	CHECK_NEAR(f.last_done_ops_s, 10.0, 1e-12);
}

/* World ranks 1 and 3 in a communicator of their own, finishing together: the names are world
 * ranks, ties go to the lower rank, and nothing is lost. */
static void test_subset(const struct sonde_topology *topo, int rank)
{
	MPI_Comm odd;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd);
	struct sonde_finish f;
	sonde_finish_across(topo, odd, 5, 7, 0, 4, &f);
	if (rank == 1) {
		CHECK_INT(f.n, 2);
		CHECK_INT(f.nslowest, 2);
		CHECK_INT(f.slowest_rank[0], 1);
		CHECK_INT(f.slowest_rank[1], 3);
		CHECK_NEAR(f.lost_s, 0, 0);
		CHECK_NEAR(f.first_done_mib_s, 0, 0);
		CHECK_NEAR(f.first_done_ops_s, 4, 1e-12);
		CHECK_NEAR(f.last_done_ops_s, 4, 1e-12);
	}
	MPI_Comm_free(&odd);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	struct sonde_topology topo;
	sonde_topology_init(MPI_COMM_WORLD, &topo);
	test_all(&topo, rank);
	test_subset(&topo, rank);
	sonde_topology_free(&topo);
	int failed = check_finish("test_finish");
	int any;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any;
}
