/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 2
/* --interval: calls made by two ranks over several intervals end up, reduced, in interval
 * records whose bytes and operations add up to what the ranks did (counted here, not by sonde),
 * numbered without a gap; and what a call costs the loop: the inline hook with the series on
 * (one interval, no allocation) and off, printed per call (bench case timeseries measures it in
 * ior's loop). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "clock.h"
#include "results.h"
#include "timeseries.h"
#include "workload.h"

#define PERIOD 0.02
#define CALLS  12 /* per rank, 5 ms apart: about three intervals */
#define BYTES  4096

static void nap(double seconds)
{
	struct timespec ts = {0, (long)(seconds * 1e9)};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* The interval records of the file: how many, their bytes and ops summed, and whether they are
 * numbered 0, 1, ... */
static void read_records(const char *path, int *n, long long *bytes, long long *ops, int *in_order)
{
	char line[2048];
	FILE *f = fopen(path, "r");
	*n = 0;
	*bytes = *ops = 0;
	*in_order = 1;
	while (f && fgets(line, sizeof line, f)) {
		if (!strstr(line, "\"type\":\"interval\""))
			continue;
		long long b = -1, o = -1, k = -1;
		const char *at;
		if ((at = strstr(line, "\"bytes\":")))
			sscanf(at, "\"bytes\":%lld", &b);
		if ((at = strstr(line, "\"ops\":")))
			sscanf(at, "\"ops\":%lld", &o);
		if ((at = strstr(line, "\"interval\":")))
			sscanf(at, "\"interval\":%lld", &k);
		*in_order &= k == *n;
		*bytes += b;
		*ops += o;
		(*n)++;
	}
	if (f)
		fclose(f);
}

/* Nanoseconds per call of the hook, over n calls that all end in the current interval. */
static double per_call_ns(int64_t n)
{
	double end = sonde_now(), t0 = sonde_now();
	for (int64_t i = 0; i < n; i++)
		sonde_series_call(end, 1e-6 * (double)(i & 1023), BYTES, 1);
	return (sonde_now() - t0) / (double)n * 1e9;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char dir[4096] = "", json[4200];
	if (rank == 0)
		check_temp_dir("timeseries", dir);
	MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
	snprintf(json, sizeof json, "%s/r.jsonl", dir);
	struct sonde_context ctx = {.workload = "test",
	                            .mpi = 1,
	                            .comm = MPI_COMM_WORLD,
	                            .rank = rank,
	                            .size = 2,
	                            .common = {.json_path = json, .interval = PERIOD}};
	char err[256];
	CHECK_INT(sonde_results_open(MPI_COMM_WORLD, "test", json, NULL, err, sizeof err), 0);
	CHECK_INT(sonde_series_setup(&ctx, err, sizeof err), 0);
	CHECK(sonde_series_enabled());

	sonde_series_begin(MPI_COMM_WORLD, "write", 0);
	MPI_Barrier(MPI_COMM_WORLD);
	sonde_series_start();
	for (int i = 0; i < CALLS; i++) {
		nap(0.005);
		double end = sonde_now();
		sonde_series_call(end, 0.005, BYTES, 1);
	}
	sonde_series_stop();
	sonde_series_report();
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		int n, in_order;
		long long bytes, ops;
		read_records(json, &n, &bytes, &ops, &in_order);
		CHECK(n >= 3);
		CHECK(in_order);
		CHECK_INT(bytes, 2LL * CALLS * BYTES);
		CHECK_INT(ops, 2LL * CALLS);
	}

	/* The cost, on rank 0 alone (a phase of its own): on, then off (no phase recording). */
	if (rank == 0) {
		const int64_t n = 4000000;
		sonde_series_begin(MPI_COMM_SELF, "cost", 0);
		sonde_series_start();
		double on = per_call_ns(n);
		sonde_series_stop();
		double off = per_call_ns(n);
		sonde_series_report();
		/* printed, not checked: on a shared machine a time says more about the load */
		printf("test_timeseries: the hook costs %.1f ns per call on, %.2f ns off\n", on,
		       off);
	}
	sonde_results_close(0);
	int failed = check_finish("test_timeseries");
	MPI_Finalize();
	return failed;
}
