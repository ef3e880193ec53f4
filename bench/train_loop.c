/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's reference for sonde train (bench/README.md, case train): one process reads a
 * dataset sonde train --generate wrote, every sample of every file in order (the order sonde
 * train reads it on one rank without shuffles), each sample in one pread, a file opened before
 * its first sample and closed after its last, PASSES times over (sonde train's --epochs);
 * prints {"samples":N,"bytes":B,"seconds":S}, the seconds from the first open to the last
 * close.
 *
 * Sample i of a pass lands where sonde train puts it: in batch i / BATCH's buffer, one of
 * PREFETCH that take the batches in turn, at place i % BATCH, places a sample's size rounded up
 * to 4 KiB apart. A loader holds its batches in memory, and where a read copies to is part of
 * what a read from memory costs (a buffer reused for every sample stays in the CPU's caches,
 * PREFETCH x BATCH samples do not always): the same memory on both sides leaves the harness as
 * the only difference.
 *
 * It starts its clock where sonde train starts an epoch's: after MPI_Init and a barrier. Timed
 * from the first instant of a fresh process instead, the loop measured 2 to 5 times below
 * sonde on a busy machine for the same calls (strace: the same opens, preads and closes), most
 * likely the cost of a new process's first moments (its placement by the scheduler, cold code
 * and libraries), which made sonde look faster than the bare loop.
 *
 * usage: train_loop DIR FILES SAMPLES_PER_FILE RECORD_SIZE PASSES BATCH PREFETCH (npy, no size
 * deviation, seed 1) */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workloads/train/train.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr,
		        "usage: train_loop DIR FILES SAMPLES_PER_FILE RECORD_SIZE PASSES BATCH "
		        "PREFETCH\n");
		return 2;
	}
	struct train_params p;
	train_params_defaults(&p);
	p.data_dir = argv[1];
	p.num_files = atoll(argv[2]);
	p.samples_per_file = atoll(argv[3]);
	p.record_size = atoll(argv[4]);
	int passes = atoi(argv[5]), batch = atoi(argv[6]), prefetch = atoi(argv[7]);
	char err[256];
	if (p.num_files < 1 || p.samples_per_file < 1 || p.record_size < 1 || passes < 1 ||
	    batch < 1 || prefetch < 1 || train_params_check(&p, err, sizeof err) < 0) {
		fprintf(stderr, "train_loop: bad arguments\n");
		return 2;
	}
	size_t stride = ((size_t)p.record_size + 4095) / 4096 * 4096;
	size_t places = (size_t)batch * (size_t)prefetch;
	unsigned char *ring = NULL;
	if (posix_memalign((void **)&ring, 4096, places * stride) != 0)
		return 1;
	memset(ring, 0, places * stride); /* faulted in before the clock, as sonde's batches */
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS || MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) {
		fprintf(stderr, "train_loop: MPI_Init or MPI_Barrier failed\n");
		return 1;
	}
	int64_t samples = 0, bytes = 0;
	double start = now();
	int64_t i = 0; /* the sample's number in its pass */
	for (int64_t k = 0; k < p.num_files * passes; k++) {
		int64_t f = k % p.num_files;
		if (f == 0)
			i = 0;
		char path[4096];
		train_file_path(&p, f, 0, path, sizeof path);
		int fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		int64_t at = train_data_offset(&p, f);
		for (int64_t s = 0; s < p.samples_per_file; s++) {
			unsigned char *to = ring + ((size_t)(i / batch % prefetch) * (size_t)batch +
			                            (size_t)(i % batch)) *
			                               stride;
			ssize_t n = pread(fd, to, (size_t)p.record_size, at + s * p.record_size);
			i++;
			if (n != p.record_size) {
				fprintf(stderr, "train_loop: %s: short or failed read\n", path);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			samples++;
			bytes += n;
		}
		if (close(fd) != 0) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	double seconds = now() - start;
	printf("{\"samples\":%lld,\"bytes\":%lld,\"seconds\":%.9f}\n", (long long)samples,
	       (long long)bytes, seconds);
	free(ring);
	MPI_Finalize();
	return 0;
}
