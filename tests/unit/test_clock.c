// ranks: 4
/* Clock sync: on one machine CLOCK_MONOTONIC is one clock for every process, so each rank's true
 * offset to rank 0 is known independently of the ping-pong, and the estimate must match it within
 * the error the sync itself claims. */
#include <mpi.h>
#include <time.h>

#include "check.h"
#include "clock.h"

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CLOCK_MONOTONIC minus sonde_now(): the smallest of a few readings, so a preemption between the
 * two reads does not count. */
static double local_skew(void)
{
	double best = 0;
	for (int i = 0; i < 20; i++) {
		double m = monotonic(), n = sonde_now(), d = m - n;
		if (i == 0 || d < best)
			best = d;
	}
	return best;
}

/* Generous slack for everything the error estimate does not cover (clock reads, scheduling). */
#define SLACK 10e-3

static void test_sync(MPI_Comm comm)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	struct sonde_clock c;
	sonde_clock_sync(comm, 20, &c);
	CHECK(c.error >= 0);
	CHECK(c.error < 1.0);
	if (rank == 0) {
		CHECK_NEAR(c.offset, 0, 0);
		CHECK_NEAR(c.error, 0, 0);
	}
	double zero;
	MPI_Allreduce(&c.zero, &zero, 1, MPI_DOUBLE, MPI_MAX, comm);
	CHECK_NEAR(c.zero, zero, 0);

	/* local + offset = rank 0's time, and rank 0's time = monotonic - skew0. */
	double skew = local_skew(), skew0 = skew;
	MPI_Bcast(&skew0, 1, MPI_DOUBLE, 0, comm);
	double truth = skew - skew0;
	CHECK_NEAR(c.offset, truth, c.error + SLACK);

	/* An event every rank sees at once, up to the barrier's exit skew: the global times agree
	 * within the errors of the two ranks compared plus that skew. */
	MPI_Barrier(comm);
	double g = sonde_clock_global(&c, sonde_now());
	double lo, hi, maxerr;
	MPI_Allreduce(&g, &lo, 1, MPI_DOUBLE, MPI_MIN, comm);
	MPI_Allreduce(&g, &hi, 1, MPI_DOUBLE, MPI_MAX, comm);
	MPI_Allreduce(&c.error, &maxerr, 1, MPI_DOUBLE, MPI_MAX, comm);
	CHECK(hi - lo <= 2 * maxerr + SLACK);
	CHECK(lo >= -SLACK); /* after the zero */
}

int main(int argc, char **argv)
{
	/* Before MPI_Init: the monotonic clock, which moves forward. */
	double a = sonde_now(), b = sonde_now();
	CHECK(a > 0);
	CHECK(b >= a);
	CHECK_NEAR(a, monotonic(), 1.0);

	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK_NEAR(sonde_now(), MPI_Wtime(), 1e-3);

	test_sync(MPI_COMM_WORLD);
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
	test_sync(half);
	MPI_Comm_free(&half);

	/* One rank alone: no offset, no error; rounds < 1 still works. */
	struct sonde_clock c;
	sonde_clock_sync(MPI_COMM_SELF, 0, &c);
	CHECK_NEAR(c.offset, 0, 0);
	CHECK_NEAR(c.error, 0, 0);
	CHECK_NEAR(sonde_clock_global(&c, c.zero), 0, 0);

	int failed = check_finish("test_clock"), any;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any;
}
