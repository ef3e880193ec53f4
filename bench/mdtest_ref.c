/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's reference for sonde mdtest (bench/README.md, case mdtest): the plainest loop of
 * the work `sonde mdtest -n N -F -u -C -T -r -d DIR/md` does. Each rank makes its directory
 * where sonde's is, DIR/md/test-dir.0-0/mdtest_tree.<rank>.0 (untimed): every call then walks
 * as many path components as sonde's, which a stat on tmpfs feels (two fewer: 5 % faster,
 * 1570 against 1650 ns). Then three phases, each between barriers: create (open
 * O_WRONLY|O_CREAT, close), stat, unlink of N files named file.mdtest.<rank>.<i>, the path
 * formatted with snprintf for every call. A phase's rate is the files of all ranks over the
 * slowest rank's time, as mdtest's. Rank 0 prints {"create":R,"stat":R,"remove":R} in files
 * per second.
 *
 * usage: mdtest_ref DIR N */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum phase { CREATE, STAT, REMOVE, NPHASES };

static int one(enum phase ph, const char *path)
{
	struct stat st;
	switch (ph) {
	case CREATE: {
		int fd = open(path, O_WRONLY | O_CREAT, 0644);
		return fd < 0 ? -1 : close(fd);
	}
	case STAT:
		return stat(path, &st);
	default:
		return unlink(path);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3 || atol(argv[2]) < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: mdtest_ref DIR N\n");
		MPI_Finalize();
		return 2;
	}
	long n = atol(argv[2]);
	char top[4096], base[4200], dir[4300], path[4400];
	snprintf(top, sizeof top, "%s/md", argv[1]);
	snprintf(base, sizeof base, "%s/test-dir.0-0", top);
	snprintf(dir, sizeof dir, "%s/mdtest_tree.%d.0", base, rank);
	if (rank == 0 && (mkdir(top, 0755) != 0 || mkdir(base, 0755) != 0)) {
		perror(base);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (mkdir(dir, 0755) != 0) {
		perror(dir);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	double rate[NPHASES];
	for (int ph = CREATE; ph < NPHASES; ph++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (long i = 0; i < n; i++) {
			snprintf(path, sizeof path, "%s/file.mdtest.%d.%ld", dir, rank, i);
			if (one((enum phase)ph, path) != 0) {
				perror(path);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
		MPI_Barrier(MPI_COMM_WORLD);
		double mine = MPI_Wtime() - t0, slowest = 0;
		MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		rate[ph] = (double)n * size / slowest;
	}
	rmdir(dir);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		rmdir(base);
		rmdir(top);
	}
	if (rank == 0)
		printf("{\"create\":%.3f,\"stat\":%.3f,\"remove\":%.3f}\n", rate[CREATE],
		       rate[STAT], rate[REMOVE]);
	MPI_Finalize();
	return 0;
}
