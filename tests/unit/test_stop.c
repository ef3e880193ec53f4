/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 3
/* Who stopped the run: sonde_stop_init is collective on every rank, a second call on none (it
 * hung when only rank 0 remembered the first), and while every rank runs none is named as
 * failed. Runs that end with a rank killed or failed are stopped by the integration tests
 * (test_signals.py: "peer-failed" and the rank named). */
#include <mpi.h>

#include "check.h"
#include "stop.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	sonde_stop_init();
	sonde_stop_init(); /* a second call keeps the first one's peers */
	/* every rank alive: none failed, on rank 0 as on the others (which keep no peers) */
	CHECK_INT(sonde_stop_failed_peer(), -1);
	MPI_Barrier(MPI_COMM_WORLD);
	int failed = check_finish("test_stop");
	MPI_Finalize();
	return failed;
}
