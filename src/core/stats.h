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

/* Log-linear (HDR-style) histogram of latencies in nanoseconds: each octave [2^e, 2^(e+1)) ns,
 * e = 0 .. SONDE_HIST_OCTAVES-1 (1 ns to 73 minutes), is split into SONDE_HIST_SUBS equal
 * sub-buckets; bucket 0 holds everything below 1 ns, the last bucket everything from
 * 2^SONDE_HIST_OCTAVES ns on. A percentile is reported as its sub-bucket's midpoint, within
 * half a sub-bucket of the true value: a relative error of at most 2^-(SONDE_HIST_SUB_BITS+1)
 * (SONDE_HIST_ERROR_REL, 0.78 %) from 1 ns up (below 1 ns, 0.5 ns at most). Fixed size, so
 * ranks merge by summing counts (MPI_SUM), and the merge of any split of the samples is the
 * histogram of all of them. */
#define SONDE_HIST_SUB_BITS  6
#define SONDE_HIST_SUBS      (1 << SONDE_HIST_SUB_BITS)
#define SONDE_HIST_OCTAVES   42
#define SONDE_HIST_BUCKETS   (SONDE_HIST_OCTAVES * SONDE_HIST_SUBS + 2)
#define SONDE_HIST_ERROR_REL (1.0 / (2 * SONDE_HIST_SUBS))
struct sonde_hist {
	int64_t count[SONDE_HIST_BUCKETS];
};

/* A few instructions: the bucket is read from the bits of the double, no log, no frexp. */
void sonde_hist_add(struct sonde_hist *h, double seconds);
/* Collective: sums every rank's histogram into *out on every rank. */
void sonde_hist_merge(MPI_Comm comm, const struct sonde_hist *local, struct sonde_hist *out);
/* Percentile p in [0,100] (p to a tenth): the midpoint of the bucket holding the sample of rank
 * ceil(p% of the count) (numpy's "inverted_cdf"), seconds; the overflow bucket gives its lower
 * edge. 0 for an empty histogram. */
double sonde_hist_percentile(const struct sonde_hist *h, double p);
int64_t sonde_hist_total(const struct sonde_hist *h);
/* Edges of bucket b in ns: [lower, upper); the last bucket's upper edge is +infinity. */
double sonde_hist_lower_ns(int b);
double sonde_hist_upper_ns(int b);

/* Per-call latency summary for results: exact percentiles from samples when sonde has every
 * sample (error_rel 0), histogram percentiles otherwise (error_rel SONDE_HIST_ERROR_REL, the
 * record says which). */
struct sonde_latency {
	int64_t count;
	double p50, p90, p99, p999, max, mean; /* seconds */
	int from_histogram;                    /* percentiles are histogram bucket midpoints */
	double error_rel;                      /* bound of the percentiles' relative error */
	struct sonde_hist hist;
};

/* Sets p50 .. p999 from l->hist (bucket midpoints, never above l->max) and marks them so. */
void sonde_latency_from_histogram(struct sonde_latency *l);

/* One rank's per-call latencies without the samples, for loops too long to keep them: the
 * histogram with the count, sum and largest value. Adding one costs a few integer operations
 * and additions. Start from all zeros. */
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
