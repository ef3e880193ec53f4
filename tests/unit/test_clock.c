/* SPDX-License-Identifier: BSD-3-Clause */
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

/* CLOCK_MONOTONIC minus sonde_now(), with sonde_now() read between two monotonic readings: the
 * closest pair of readings bounds the answer within *err. */
static double local_skew(double *err)
{
	double best = 0;
	*err = -1;
	for (int i = 0; i < 50; i++) {
		double m1 = monotonic(), n = sonde_now(), m2 = monotonic();
		if (*err < 0 || (m2 - m1) / 2 < *err) {
			*err = (m2 - m1) / 2;
			best = (m1 + m2) / 2 - n;
		}
	}
	return best;
}

/* Generous slack for what the error estimates do not cover (scheduling between the barrier and
 * the clock read, in the agreement check). */
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

	/* local + offset = rank 0's time, and rank 0's time = monotonic - skew0: the estimate must
	 * be within the sync's own error of the truth (plus how well the truth is known, and a few
	 * microseconds of rounding), a bound tight enough to see a missing or wrong-signed offset
	 * where MPI_Wtime has a per-process origin, as Open MPI's does. */
	double skew_err, skew = local_skew(&skew_err);
	double ref[2] = {skew, skew_err};
	MPI_Bcast(ref, 2, MPI_DOUBLE, 0, comm);
	CHECK_NEAR(c.offset, skew - ref[0], c.error + skew_err + ref[1] + 5e-6);

	/* An event every rank sees at once, up to the barrier's exit skew: the global times agree
	 * within the errors of the two ranks compared plus that skew. A rank descheduled right
	 * after the barrier spreads one trial (by tens of ms on a loaded, oversubscribed machine),
	 * so trials go on, apart in time, until one agrees; wrong offsets never do. */
	double maxerr, best = -1, first = 0;
	MPI_Allreduce(&c.error, &maxerr, 1, MPI_DOUBLE, MPI_MAX, comm);
	for (int trial = 0; trial < 100 && !(best >= 0 && best <= 2 * maxerr + SLACK); trial++) {
		if (trial)
			nanosleep(&(struct timespec){0, 10000000}, NULL);
		MPI_Barrier(comm);
		double g = sonde_clock_global(&c, sonde_now());
		double lo, hi;
		MPI_Allreduce(&g, &lo, 1, MPI_DOUBLE, MPI_MIN, comm);
		MPI_Allreduce(&g, &hi, 1, MPI_DOUBLE, MPI_MAX, comm);
		if (best < 0 || hi - lo < best)
			best = hi - lo;
		if (trial == 0)
			first = lo;
	}
	CHECK(best <= 2 * maxerr + SLACK);
	CHECK(first >= -(maxerr + SLACK)); /* after the zero */
}

/* A phase's span: every rank's times through its own offset, the earliest start and the latest
 * end on the global clock, back on rank 0's clock. Made-up offsets (rank r's clock 10 r behind
 * rank 0's) and spans (the last rank starts first and ends last) whose answer is known. */
static void test_span(MPI_Comm comm)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	struct sonde_clock c = {.offset = 10.0 * rank, .zero = 50};
	double first = -1, last = -1;
	sonde_clock_span(comm, &c, 5.0 - rank - 10.0 * rank, 20.0 + rank - 10.0 * rank, &first,
	                 &last);
	if (rank == 0) {
		CHECK_NEAR(first, 5.0 - (size - 1), 1e-12);
		CHECK_NEAR(last, 20.0 + (size - 1), 1e-12);
	}
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
	test_span(MPI_COMM_WORLD);
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
