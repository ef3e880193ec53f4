/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's reference for sonde coll --per-call (bench/README.md, case coll_percall): the
 * plainest loop that measures a collective the OSU/IMB way. For each iteration: MPI_Barrier,
 * MPI_Wtime, the call, MPI_Wtime; the time per call is the sum over the iterations / count, after
 * warm-up calls; the figure is the mean over ranks (rank 0 prints it in microseconds as JSON).
 * Same buffer contents, counts and types as sonde coll: MPI_BYTE for Bcast and Alltoall (count =
 * bytes, per peer for Alltoall), MPI_DOUBLE + MPI_SUM for Allreduce (count = bytes / 8), root 0.
 * Same MPI state too: sonde's start-up splits MPI_COMM_WORLD by shared memory to learn the node
 * layout and frees the result; with Open MPI 4.1 the first communicator created leaves the libnbc
 * component's progress function registered, so that every progress poll calls it for the rest of
 * the run (callgrind shows it in sonde's waits and not in a program that creates none). The
 * reference makes the same split, so both loops poll the same way.
 *
 * usage: coll_ref <Bcast|Allreduce|Alltoall> <bytes> <iterations> <warmup> */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
	MPI_Comm_free(&node);
	if (argc != 5) {
		if (rank == 0)
			fprintf(stderr, "usage: coll_ref <Bcast|Allreduce|Alltoall> <bytes> "
			                "<iterations> <warmup>\n");
		MPI_Finalize();
		return 2;
	}
	const char *op = argv[1];
	long bytes = atol(argv[2]);
	int iters = atoi(argv[3]), warmup = atoi(argv[4]);
	int kind = strcmp(op, "Bcast") == 0 ? 0 : strcmp(op, "Allreduce") == 0 ? 1 : 2;
	size_t len = (size_t)bytes * (size_t)size + 1;
	char *sbuf = calloc(len, 1), *rbuf = calloc(len, 1);
	if (!sbuf || !rbuf || iters < 1 || warmup < 0) {
		fprintf(stderr, "coll_ref: bad arguments or no memory\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	/* sonde's fill: mpiBench's byte pattern, and for reductions the whole numbers sonde adds.
	 */
	for (size_t j = 0; j < len; j++)
		sbuf[j] = (char)((j + 1) * (size_t)(rank + 1) + j);
	if (kind == 1)
		for (size_t k = 0; k < len / sizeof(double); k++)
			((double *)(void *)sbuf)[k] = (double)(k % 1000 + 1) * (rank + 1);
	int count = kind == 1 ? (int)(bytes / 8) : (int)bytes;
	double total = 0;
	for (int i = -warmup; i < iters; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		if (kind == 0)
			MPI_Bcast(rank == 0 ? sbuf : rbuf, count, MPI_BYTE, 0, MPI_COMM_WORLD);
		else if (kind == 1)
			MPI_Allreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		else
			MPI_Alltoall(sbuf, count, MPI_BYTE, rbuf, count, MPI_BYTE, MPI_COMM_WORLD);
		double dt = MPI_Wtime() - t0;
		if (i >= 0)
			total += dt;
	}
	double mine = total / iters, sum = 0;
	MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("{\"op\": \"%s\", \"bytes\": %ld, \"iterations\": %d, \"avg_us\": %.6f}\n",
		       op, bytes, iters, sum / size * 1e6);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
