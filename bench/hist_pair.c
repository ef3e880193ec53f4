/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's case hist_add (bench/README.md): what adding each call's latency to sonde's
 * log-linear histogram costs a timed loop, against the log2 histogram it replaced, on the
 * pattern with the most calls per second: ior hard on tmpfs (4 KiB pwrites, ranks interleaved
 * in one shared file). Both loops run in the same processes taking turns, so the launch's speed
 * divides out: per call a clock read, the pwrite, a clock read, and the add.
 *
 * The reference is sonde's former add (src/core/stats.c before the log-linear histogram): frexp
 * of the value in ns, a bucket of 48.
 *
 * usage: hist_pair <file> <calls per turn> <pairs> <new|old>
 * The last argument says which side goes first in the first pair; the sides alternate after.
 * Rank 0 prints {"new_ns": [...], "old_ns": [...]}: the mean time per call of each turn, the
 * slowest rank's. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "pair.h"
#include "stats.h"

#define OLD_BUCKETS 48

struct old_hist {
	int64_t count[OLD_BUCKETS];
};

static void old_add(struct old_hist *h, double seconds)
{
	double ns = seconds * 1e9;
	int b = 0;
	if (ns >= 2.0) {
		int e;
		frexp(ns, &e);
		b = e - 1 < OLD_BUCKETS ? e - 1 : OLD_BUCKETS - 1;
	}
	h->count[b]++;
}

/* One turn: calls 4 KiB pwrites at this rank's interleaved offsets, each timed and added with
 * the new add (use_new) or the old one. Returns the slowest rank's seconds per call. */
static double turn(int fd, const char *buf, long calls, int use_new, struct sonde_hist *h,
                   struct old_hist *o)
{
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	double start = sonde_now();
	for (long k = 0; k < calls; k++) {
		double latency;
		hard_write("hist_pair", fd, buf, k, rank, size, &latency);
		if (use_new)
			sonde_hist_add(h, latency);
		else
			old_add(o, latency);
	}
	double mine = (sonde_now() - start) / (double)calls, slowest;
	MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	return slowest;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc != 5) {
		fprintf(stderr, "usage: hist_pair <file> <calls per turn> <pairs> <new|old>\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	long calls = atol(argv[2]);
	int pairs = atoi(argv[3]), new_first = strcmp(argv[4], "new") == 0;
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int fd = open(argv[1], O_WRONLY | O_CREAT, 0600);
	if (fd < 0 || calls <= 0 || pairs <= 0 || pairs > 1000) {
		fprintf(stderr, "hist_pair: %s: %s\n", argv[1],
		        fd < 0 ? strerror(errno) : "bad counts");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	static char buf[HARD_XFER];
	memset(buf, 'h', sizeof buf);
	struct sonde_hist *h = calloc(1, sizeof *h);
	struct old_hist o;
	memset(&o, 0, sizeof o);
	double new_s[1000], old_s[1000];
	turn(fd, buf, calls, 1, h, &o); /* warm-up: the file's pages exist for every turn after */
	for (int i = 0; i < pairs; i++) {
		int first_new = (i % 2 == 0) == new_first;
		double a = turn(fd, buf, calls, first_new, h, &o);
		double b = turn(fd, buf, calls, !first_new, h, &o);
		new_s[i] = first_new ? a : b;
		old_s[i] = first_new ? b : a;
	}
	/* every add reached a bucket: nothing optimised away */
	int64_t added = sonde_hist_total(h), old_added = 0;
	for (int b = 0; b < OLD_BUCKETS; b++)
		old_added += o.count[b];
	if (added != calls * (pairs + 1) || old_added != calls * pairs) {
		fprintf(stderr, "hist_pair: %lld and %lld adds counted\n", (long long)added,
		        (long long)old_added);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (rank == 0) {
		printf("{");
		print_turns("new_ns", new_s, pairs);
		printf(", ");
		print_turns("old_ns", old_s, pairs);
		printf("}\n");
	}
	close(fd);
	free(h);
	MPI_Finalize();
	return 0;
}
