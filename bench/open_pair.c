/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's case mpio_open (bench/README.md): what the look for a semaphore Open MPI left
 * taken (src/io/ompio_semaphore.h) costs each MPI-IO open, which sonde's timed opens include.
 * Both sides open and close one shared file on tmpfs collectively, as ior -a MPIIO's open and
 * close do; the side "on" first makes sonde's look on rank 0 (one failed open(2) when no such
 * semaphore exists, as on a healthy node). Both sides run in the same processes taking turns,
 * so the launch's speed divides out.
 *
 * usage: open_pair <file> <opens per turn> <pairs> <on|off>
 * The last argument says which side goes first in the first pair; the sides alternate after.
 * Rank 0 prints {"on_ns": [...], "off_ns": [...]}: the mean time per open and close of each
 * turn (the slowest rank's). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ompio_semaphore.h"
#include "pair.h"

#define MAX_PAIRS 1000

/* One turn of opens; with_look: sonde's look before each. Returns the slowest rank's seconds per
 * open and close. */
static double turn(const char *path, long opens, int with_look)
{
	MPI_Barrier(MPI_COMM_WORLD);
	double start = sonde_now();
	for (long k = 0; k < opens; k++) {
		if (with_look)
			sonde_ompio_clear_dead_semaphore(MPI_COMM_WORLD, path);
		MPI_File fh;
		int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
		                       MPI_INFO_NULL, &fh);
		if (rc == MPI_SUCCESS)
			rc = MPI_File_close(&fh);
		if (rc != MPI_SUCCESS) {
			fprintf(stderr, "open_pair: open or close of %s failed (MPI error %d)\n",
			        path, rc);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	double mine = (sonde_now() - start) / (double)opens, slowest;
	MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	return slowest;
}

static void usage(const char *why)
{
	fprintf(stderr,
	        "open_pair: %s\nusage: open_pair <file> <opens per turn> <pairs> <on|off>\n", why);
	MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc != 5)
		usage("four arguments");
	long opens = atol(argv[2]);
	int pairs = atoi(argv[3]), on_first = strcmp(argv[4], "on") == 0;
	if (opens <= 0 || pairs <= 0 || pairs > MAX_PAIRS)
		usage("bad counts");
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double on_s[MAX_PAIRS], off_s[MAX_PAIRS];
	/* warm-up: the file, the library's components and the caches exist for every turn after */
	turn(argv[1], opens, 1);
	for (int i = 0; i < pairs; i++) {
		int first_on = (i % 2 == 0) == on_first;
		double a = turn(argv[1], opens, first_on);
		double b = turn(argv[1], opens, !first_on);
		on_s[i] = first_on ? a : b;
		off_s[i] = first_on ? b : a;
	}
	if (rank == 0) {
		printf("{");
		print_turns("on_ns", on_s, pairs);
		printf(", ");
		print_turns("off_ns", off_s, pairs);
		printf("}\n");
	}
	MPI_Finalize();
	return 0;
}
