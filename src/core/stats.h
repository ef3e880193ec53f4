/* SPDX-License-Identifier: BSD-3-Clause */
/* Statistics over ranks and over samples. */
#ifndef SONDE_STATS_H
#define SONDE_STATS_H

#include <mpi.h>
#include <stdint.h>

struct sonde_stats {
	int64_t n;
	double min, max, mean, stddev, sum; /* stddev: population (divide by n), as IOR does */
	int min_rank, max_rank;             /* for across-rank stats; -1 for plain samples */
};

/* Stats of n samples (min/max ranks are the sample indexes). */
void sonde_stats_of(const double *v, int64_t n, struct sonde_stats *out);

/* Collective: stats of one value per rank, with the ranks that held min and max (lowest rank
 * wins ties). Every rank gets the result. */
void sonde_stats_across(MPI_Comm comm, double value, struct sonde_stats *out);

/* sonde_stats_across over the ranks that pass take_part != 0 (every rank calls it): n counts
 * them, and the others' values count for nothing. When no rank takes part, everything is 0. */
void sonde_stats_across_some(MPI_Comm comm, double value, int take_part, struct sonde_stats *out);

/* Percentile p in [0,100] of sorted[0..n), linear interpolation between closest ranks. */
double sonde_percentile(const double *sorted, int64_t n, double p);

/* Sorts in place (ascending). */
void sonde_sort_doubles(double *v, int64_t n);

/* Log2 histogram of latencies in nanoseconds: bucket b counts samples in [2^b, 2^(b+1)) ns,
 * bucket 0 also holds everything below 2 ns. Mergeable across ranks with MPI_SUM. */
#define SONDE_HIST_BUCKETS 48
struct sonde_hist {
	int64_t count[SONDE_HIST_BUCKETS];
};

void sonde_hist_add(struct sonde_hist *h, double seconds);
/* Collective: sums every rank's histogram into *out on every rank. */
void sonde_hist_merge(MPI_Comm comm, const struct sonde_hist *local, struct sonde_hist *out);
/* Approximate percentile from a histogram (upper edge of the bucket holding it), seconds. */
double sonde_hist_percentile(const struct sonde_hist *h, double p);

/* Per-call latency summary for results: exact percentiles from samples when a workload keeps
 * them, histogram otherwise (the record says which: a reader comparing p99s must know that a
 * histogram percentile is the upper edge of a log2 bucket, up to twice the true value). */
struct sonde_latency {
	int64_t count;
	double p50, p90, p99, max, mean; /* seconds */
	int from_histogram;              /* p50/p90/p99 are bucket upper edges */
	struct sonde_hist hist;
};

/* Sets p50, p90 and p99 from l->hist (bucket upper edges) and marks them so. */
void sonde_latency_from_histogram(struct sonde_latency *l);

/* One rank's per-call latencies without the samples, for loops too long to keep them: the
 * histogram with the count, sum and largest value. Adding one costs a frexp and a few
 * additions. Start from all zeros. */
struct sonde_latency_acc {
	struct sonde_hist hist;
	int64_t count;
	double sum, max;
};

void sonde_latency_acc_add(struct sonde_latency_acc *a, double seconds);

/* Collective over comm (MPI_COMM_NULL: this process alone): the latency summary of every rank's
 * calls, percentiles from the merged histogram. count is valid on every rank, the rest on rank
 * 0. */
void sonde_latency_of_acc(MPI_Comm comm, const struct sonde_latency_acc *local,
                          struct sonde_latency *out);

/* Collective: latency summary over every rank's samples (gathered to rank 0 in bounded
 * chunks, exact percentiles when the total fits in max_exact samples, histogram percentiles
 * otherwise). Result valid on rank 0. */
void sonde_latency_across(MPI_Comm comm, const double *samples, int64_t n, int64_t max_exact,
                          struct sonde_latency *out);

/* The max_exact workloads pass: rank 0 sorts up to 8 MiB of samples, a fraction of a second. */
#define SONDE_LATENCY_MAX_EXACT ((int64_t)1 << 20)

#endif
