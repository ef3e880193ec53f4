/* SPDX-License-Identifier: BSD-3-Clause */
/* make bench's case series_call (bench/README.md): what --interval and --live cost each call of
 * a timed loop, in the loop with the most calls per second: ior hard on tmpfs (4 KiB pwrites,
 * ranks interleaved in one shared file). Per call, both sides do what sonde ior's transfer loop
 * does (src/workloads/ior/transfer.c): a clock read, the pwrite, a clock read, the time series'
 * call and the latency sample kept. The side "on" runs each turn as a recorded phase (the
 * series begun and started before it, stopped and reported after it, outside the turn's time,
 * as ior's phases do), so the call counts bytes, ops and a histogram per interval and, with a
 * live file, posts and tests one MPI_Ireduce per interval; the side "off" makes the same call
 * with no phase recording, which is the one test it costs a run without --interval. Both sides
 * run in the same processes taking turns, so the launch's speed divides out.
 *
 * usage: series_pair <file> <live file> <interval s> <calls per turn> <pairs> <on|off>
 * The last argument says which side goes first in the first pair; the sides alternate after.
 * Rank 0 prints {"on_ns": [...], "off_ns": [...], "intervals": N}: the mean time per call of each
 * turn (the slowest rank's) and the interval records the "on" turns wrote to the live file. */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "pair.h"
#include "results.h"
#include "timeseries.h"
#include "workload.h"

#define MAX_PAIRS 1000

/* The latency samples a turn keeps, as ior's loop keeps them (grown by doubling). */
struct samples {
	double *s;
	long n, cap;
};

static void keep(struct samples *l, double s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->s = realloc(l->s, sizeof *l->s * (size_t)l->cap);
		if (!l->s) {
			fprintf(stderr, "series_pair: out of memory\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	l->s[l->n++] = s;
}

/* One turn of calls 4 KiB pwrites at this rank's interleaved offsets; recorded: as a phase of
 * the time series. Returns the slowest rank's seconds per call. */
static double turn(int fd, const char *buf, long calls, int recorded, int number, struct samples *l)
{
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	l->n = 0;
	if (recorded)
		sonde_series_begin(MPI_COMM_WORLD, "write", number);
	MPI_Barrier(MPI_COMM_WORLD);
	if (recorded)
		sonde_series_start();
	double start = sonde_now();
	for (long k = 0; k < calls; k++) {
		double latency, end = hard_write("series_pair", fd, buf, k, rank, size, &latency);
		sonde_series_call(end, latency, HARD_XFER, 1);
		keep(l, latency);
	}
	double mine = (sonde_now() - start) / (double)calls, slowest;
	if (recorded) {
		sonde_series_stop();
		sonde_series_report();
	}
	MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	return slowest;
}

/* The lines of the live file: its interval records (the file holds nothing else). */
static long live_records(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long lines = 0;
	for (int c; (c = fgetc(f)) != EOF;)
		lines += c == '\n';
	fclose(f);
	return lines;
}

static void usage(const char *why)
{
	fprintf(stderr,
	        "series_pair: %s\nusage: series_pair <file> <live file> <interval s> "
	        "<calls per turn> <pairs> <on|off>\n",
	        why);
	MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	if (argc != 7)
		usage("six arguments");
	long calls = atol(argv[4]);
	int pairs = atoi(argv[5]), on_first = strcmp(argv[6], "on") == 0;
	if (calls <= 0 || pairs <= 0 || pairs > MAX_PAIRS)
		usage("bad counts");
	struct sonde_context ctx = {.workload = "ior", .mpi = 1, .comm = MPI_COMM_WORLD};
	MPI_Comm_rank(MPI_COMM_WORLD, &ctx.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ctx.size);
	char err[512];
	if (sonde_series_parse_interval(argv[3], &ctx.common.interval, err, sizeof err) < 0)
		usage(err);
	ctx.common.live_path = argv[2];
	/* the results layer holds the live file (rank 0 writes it); no --json */
	if (sonde_results_open(MPI_COMM_WORLD, "ior", NULL, NULL, err, sizeof err) < 0 ||
	    sonde_series_setup(&ctx, err, sizeof err) < 0)
		usage(err);
	int fd = open(argv[1], O_WRONLY | O_CREAT, 0600);
	if (fd < 0)
		usage(strerror(errno));
	static char buf[HARD_XFER];
	memset(buf, 's', sizeof buf);
	struct samples l = {0};
	double on_s[MAX_PAIRS], off_s[MAX_PAIRS];
	/* warm-up, recorded: the file's pages, the sample array and the series' state exist for
	 * every turn after */
	turn(fd, buf, calls, 1, 0, &l);
	for (int i = 0; i < pairs; i++) {
		int first_on = (i % 2 == 0) == on_first;
		double a = turn(fd, buf, calls, first_on, i + 1, &l);
		double b = turn(fd, buf, calls, !first_on, i + 1, &l);
		on_s[i] = first_on ? a : b;
		off_s[i] = first_on ? b : a;
	}
	close(fd);
	free(l.s);
	sonde_results_close(0);
	if (ctx.rank == 0) {
		printf("{");
		print_turns("on_ns", on_s, pairs);
		printf(", ");
		print_turns("off_ns", off_s, pairs);
		printf(", \"intervals\": %ld}\n", live_records(argv[2]));
	}
	MPI_Finalize();
	return 0;
}
