/* SPDX-License-Identifier: BSD-3-Clause */
// ranks: 4
/* Statistics: exact expected values for known inputs, across 4 ranks and 2-rank halves. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stats.h"

static void test_stats_of(void)
{
	const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct sonde_stats s;
	sonde_stats_of(v, 8, &s);
	CHECK_INT(s.n, 8);
	CHECK_NEAR(s.mean, 5.0, 1e-12);
	CHECK_NEAR(s.stddev, 2.0, 1e-12); /* population: sqrt(32 / 8) */
	CHECK_NEAR(s.sum, 40.0, 1e-12);
	CHECK_NEAR(s.min, 2.0, 0);
	CHECK_NEAR(s.max, 9.0, 0);
	CHECK_INT(s.min_rank, 0);
	CHECK_INT(s.max_rank, 7);

	const double ties[] = {3, 1, 1, 5, 5};
	sonde_stats_of(ties, 5, &s);
	CHECK_INT(s.min_rank, 1);
	CHECK_INT(s.max_rank, 3);

	/* Small spread on a large mean: a naive sum of squares would lose it. */
	const double close[] = {1e9 + 1, 1e9 + 3};
	sonde_stats_of(close, 2, &s);
	CHECK_NEAR(s.stddev, 1.0, 1e-9);

	sonde_stats_of(NULL, 0, &s);
	CHECK_INT(s.n, 0);
	CHECK_INT(s.min_rank, -1);
	CHECK_NEAR(s.mean, 0.0, 0);
}

static void test_percentile(void)
{
	double v[100];
	for (int i = 0; i < 100; i++)
		v[i] = (double)((i * 37) % 100 + 1); /* 1..100, shuffled */
	sonde_sort_doubles(v, 100);
	for (int i = 0; i < 100; i++)
		CHECK_NEAR(v[i], i + 1, 0);
	CHECK_NEAR(sonde_percentile(v, 100, 0), 1.0, 1e-12);
	CHECK_NEAR(sonde_percentile(v, 100, 25), 25.75, 1e-12);
	CHECK_NEAR(sonde_percentile(v, 100, 50), 50.5, 1e-12);
	CHECK_NEAR(sonde_percentile(v, 100, 90), 90.1, 1e-12);
	CHECK_NEAR(sonde_percentile(v, 100, 99), 99.01, 1e-12);
	CHECK_NEAR(sonde_percentile(v, 100, 100), 100.0, 1e-12);
	const double one = 7;
	CHECK_NEAR(sonde_percentile(&one, 1, 50), 7.0, 0);
	CHECK_NEAR(sonde_percentile(v, 0, 50), 0.0, 0);
}

static int bucket_of(double seconds)
{
	struct sonde_hist h;
	memset(&h, 0, sizeof h);
	sonde_hist_add(&h, seconds);
	for (int b = 0; b < SONDE_HIST_BUCKETS; b++)
		if (h.count[b])
			return b;
	return -1;
}

/* A reproducible stream of latencies spread over 1 ns .. 1 h: 2^(42 u) ns for uniform u, with a
 * 64-bit LCG (Knuth's MMIX constants) so every rank draws the same stream. */
static double draw(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	double u = (double)(*state >> 11) / 9007199254740992.0;
	return exp2(41.7 * u) * 1e-9;
}

/* numpy's "inverted_cdf": the sample of rank ceil(p% of n), from 1. */
static double inverted_cdf(const double *sorted, int64_t n, int tenths)
{
	int64_t want = (tenths * n + 999) / 1000;
	return sorted[want < 1 ? 0 : want - 1];
}

static void test_hist(int rank)
{
	CHECK_INT(bucket_of(0), 0);
	CHECK_INT(bucket_of(-1e-3), 0);
	CHECK_INT(bucket_of(NAN), 0);
	CHECK_INT(bucket_of(0.999e-9), 0);
	CHECK_INT(bucket_of(1.001e-9), 1);              /* [1, 1 + 1/64) ns */
	CHECK_INT(bucket_of(1.99e-9), SONDE_HIST_SUBS); /* [2 - 1/64, 2) ns */
	CHECK_INT(bucket_of(2.001e-9), SONDE_HIST_SUBS + 1);
	CHECK_INT(bucket_of(100e-9), 1 + 6 * SONDE_HIST_SUBS + 36);  /* 64 (1 + 36/64) = 100 */
	CHECK_INT(bucket_of(5000.0), SONDE_HIST_BUCKETS - 1);        /* 2^42 ns is 73 min */
	CHECK_INT(bucket_of(3600.0), 1 + 41 * SONDE_HIST_SUBS + 40); /* 1 h: still bounded */
	CHECK_NEAR(sonde_hist_lower_ns(1), 1.0, 0);
	CHECK_NEAR(sonde_hist_upper_ns(1), 1.015625, 0);
	CHECK_NEAR(sonde_hist_lower_ns(1 + 6 * SONDE_HIST_SUBS + 36), 100.0, 0);
	CHECK(isinf(sonde_hist_upper_ns(SONDE_HIST_BUCKETS - 1)));
	CHECK_NEAR(SONDE_HIST_ERROR_REL, 0.0078125, 0);

	/* Every value lies in its bucket, and the midpoint is within SONDE_HIST_ERROR_REL. */
	uint64_t st = 42;
	for (int i = 0; i < 200000; i++) {
		double v = draw(&st), ns = v * 1e9;
		int b = bucket_of(v);
		CHECK(b > 0 && b < SONDE_HIST_BUCKETS - 1);
		CHECK(ns >= sonde_hist_lower_ns(b) && ns < sonde_hist_upper_ns(b));
		double mid = 0.5 * (sonde_hist_lower_ns(b) + sonde_hist_upper_ns(b));
		CHECK(fabs(mid - ns) <= SONDE_HIST_ERROR_REL * ns);
	}

	/* Percentiles of 100000 drawn values against the exact ones (numpy's inverted_cdf), on
	 * the stated bound, p99.9 included. */
	enum { N = 100000 };
	double *v = malloc(sizeof *v * N);
	struct sonde_hist h;
	memset(&h, 0, sizeof h);
	st = 7;
	for (int i = 0; i < N; i++) {
		v[i] = draw(&st);
		sonde_hist_add(&h, v[i]);
	}
	sonde_sort_doubles(v, N);
	const int tenths[] = {0, 10, 500, 900, 990, 999, 1000};
	for (size_t k = 0; k < sizeof tenths / sizeof *tenths; k++) {
		double exact = inverted_cdf(v, N, tenths[k]);
		double got = sonde_hist_percentile(&h, tenths[k] / 10.0);
		CHECK(fabs(got - exact) <= SONDE_HIST_ERROR_REL * exact);
	}
	free(v);
	CHECK_INT(sonde_hist_total(&h), N);
	struct sonde_hist empty;
	memset(&empty, 0, sizeof empty);
	CHECK_NEAR(sonde_hist_percentile(&empty, 50), 0.0, 0);

	/* Merging is summing: the same stream split over the ranks (sample i on rank i mod size,
	 * then in uneven runs) merges into exactly the histogram of one rank holding it all. */
	int size;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	struct sonde_hist local, merged, whole;
	memset(&local, 0, sizeof local);
	memset(&whole, 0, sizeof whole);
	st = 99;
	for (int i = 0; i < 50000; i++) {
		double x = draw(&st);
		sonde_hist_add(&whole, x);
		if ((i < 20000 ? i % size : (i / 777) % size) == rank)
			sonde_hist_add(&local, x);
	}
	sonde_hist_merge(MPI_COMM_WORLD, &local, &merged);
	CHECK(memcmp(&merged, &whole, sizeof whole) == 0);
	struct sonde_latency_acc acc;
	memset(&acc, 0, sizeof acc);
	acc.hist = local;
	acc.count = sonde_hist_total(&local);
	acc.max = 1e4; /* above every drawn value: no clamp */
	struct sonde_latency l;
	sonde_latency_of_acc(MPI_COMM_WORLD, &acc, &l);
	if (rank == 0) {
		CHECK(memcmp(&l.hist, &whole, sizeof whole) == 0);
		CHECK_NEAR(l.p999, sonde_hist_percentile(&whole, 99.9), 0);
	}
}

static void test_across(MPI_Comm world, MPI_Comm half, int rank)
{
	/* 4 ranks: 3 1 1 3 -> min 1 on rank 1 (not 2), max 3 on rank 0 (not 3). */
	const double vals[] = {3, 1, 1, 3};
	struct sonde_stats s;
	sonde_stats_across(world, vals[rank], &s);
	CHECK_INT(s.n, 4);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 3, 0);
	CHECK_INT(s.min_rank, 1);
	CHECK_INT(s.max_rank, 0);
	CHECK_NEAR(s.mean, 2, 1e-12);
	CHECK_NEAR(s.stddev, 1, 1e-12);
	CHECK_NEAR(s.sum, 8, 1e-12);

	/* 4 ranks, distinct: 10 40 20 30. */
	const double d[] = {10, 40, 20, 30};
	sonde_stats_across(world, d[rank], &s);
	CHECK_INT(s.min_rank, 0);
	CHECK_INT(s.max_rank, 1);
	CHECK_NEAR(s.stddev, sqrt(125.0), 1e-9);

	/* 2 ranks, all equal: both extremes belong to the lowest rank. */
	sonde_stats_across(half, 5.0, &s);
	CHECK_INT(s.n, 2);
	CHECK_INT(s.min_rank, 0);
	CHECK_INT(s.max_rank, 0);
	CHECK_NEAR(s.stddev, 0, 0);

	/* 2 ranks: the upper half's ranks are 0 and 1 in their communicator. */
	int hrank;
	MPI_Comm_rank(half, &hrank);
	sonde_stats_across(half, hrank ? -2.0 : 6.0, &s);
	CHECK_NEAR(s.min, -2, 0);
	CHECK_NEAR(s.max, 6, 0);
	CHECK_INT(s.min_rank, 1);
	CHECK_INT(s.max_rank, 0);
	CHECK_NEAR(s.mean, 2, 1e-12);
	CHECK_NEAR(s.stddev, 4, 1e-12);
}

/* A subset of the ranks: only their values count, the others' are anything at all. */
static void test_across_some(MPI_Comm world, int rank)
{
	/* ranks 1 and 3 take part with 1e9+1 and 1e9+3; ranks 0 and 2 offer values that would
	 * be the extremes and move the mean if they counted */
	const double v[] = {-5e9, 1e9 + 1, 7e9, 1e9 + 3};
	struct sonde_stats s;
	sonde_stats_across_some(world, v[rank], rank % 2, &s);
	CHECK_INT(s.n, 2);
	CHECK_NEAR(s.min, 1e9 + 1, 0);
	CHECK_INT(s.min_rank, 1);
	CHECK_NEAR(s.max, 1e9 + 3, 0);
	CHECK_INT(s.max_rank, 3);
	CHECK_NEAR(s.mean, 1e9 + 2, 1e-6);
	CHECK_NEAR(s.sum, 2e9 + 4, 1e-6);
	/* two passes: a one-pass sum of squares gives 0 or garbage here */
	CHECK_NEAR(s.stddev, 1.0, 1e-9);

	/* one rank alone: its value three times over, no spread */
	sonde_stats_across_some(world, 42.0 + rank, rank == 2, &s);
	CHECK_INT(s.n, 1);
	CHECK_NEAR(s.min, 44, 0);
	CHECK_NEAR(s.max, 44, 0);
	CHECK_INT(s.min_rank, 2);
	CHECK_INT(s.max_rank, 2);
	CHECK_NEAR(s.stddev, 0, 0);

	/* nobody: zeros, never an infinity */
	sonde_stats_across_some(world, 1.0, 0, &s);
	CHECK_INT(s.n, 0);
	CHECK_NEAR(s.min, 0, 0);
	CHECK_NEAR(s.max, 0, 0);
	CHECK_NEAR(s.mean, 0, 0);
}

/* Latencies kept as histograms: count, mean and max exact, percentiles at bucket midpoints. */
static void test_latency_acc(MPI_Comm world, int rank)
{
	/* rank r: 1000 calls of (r + 1) us, and rank 3 100 more calls of 1 ms */
	struct sonde_latency_acc a;
	memset(&a, 0, sizeof a);
	for (int i = 0; i < 1000; i++)
		sonde_latency_acc_add(&a, (rank + 1) * 1e-6);
	for (int i = 0; rank == 3 && i < 100; i++)
		sonde_latency_acc_add(&a, 1e-3);
	CHECK_INT(a.count, rank == 3 ? 1100 : 1000);
	struct sonde_latency l;
	sonde_latency_of_acc(world, &a, &l);
	CHECK_INT(l.count, 4100); /* on every rank */
	if (rank == 0) {
		CHECK_INT(l.from_histogram, 1);
		CHECK_NEAR(l.max, 1e-3, 1e-15);
		CHECK_NEAR(l.mean, (10000e-6 + 100e-3) / 4100, 1e-15);
		/* samples 1..1000 are 1 us, 1001..2000 2 us, 2001..3000 3 us, 3001..4000 4 us,
		 * 4001..4100 1 ms: p50 is sample 2050 (3 us), p90 sample 3690 (4 us), p99 sample
		 * 4059 and p99.9 sample 4096 (1 ms), each within the stated error */
		CHECK_NEAR(l.error_rel, SONDE_HIST_ERROR_REL, 0);
		CHECK(fabs(l.p50 - 3e-6) <= l.error_rel * 3e-6);
		CHECK(fabs(l.p90 - 4e-6) <= l.error_rel * 4e-6);
		CHECK(fabs(l.p99 - 1e-3) <= l.error_rel * 1e-3);
		CHECK(fabs(l.p999 - 1e-3) <= l.error_rel * 1e-3);
		CHECK(l.p999 <= l.max); /* never above the largest value */
		CHECK_INT(sonde_hist_total(&l.hist), 4100);
	} else {
		CHECK_NEAR(l.max, 0, 0); /* only rank 0 holds the summary */
	}

	/* without MPI (mib -M): this process alone */
	sonde_latency_of_acc(MPI_COMM_NULL, &a, &l);
	CHECK_INT(l.count, a.count);
	CHECK_NEAR(l.max, rank == 3 ? 1e-3 : (rank + 1) * 1e-6, 1e-15);
	CHECK_NEAR(l.mean, a.sum / (double)a.count, 1e-18);

	/* nothing counted anywhere */
	struct sonde_latency_acc none;
	memset(&none, 0, sizeof none);
	sonde_latency_of_acc(world, &none, &l);
	CHECK_INT(l.count, 0);
	CHECK_NEAR(l.p99, 0, 0);
	CHECK_NEAR(l.max, 0, 0);
}

static void test_latency(MPI_Comm world, MPI_Comm half, int rank)
{
	int hrank;
	MPI_Comm_rank(half, &hrank);
	/* 2 ranks: 1..100 us, rank 0 holds the odd values, rank 1 the even ones, in reverse. */
	double s[50];
	for (int i = 0; i < 50; i++)
		s[i] = (hrank ? 100 - 2 * i : 2 * i + 1) * 1e-6;
	struct sonde_latency l;
	sonde_latency_across(half, s, 50, 1000, &l);
	if (hrank == 0) {
		CHECK_INT(l.count, 100);
		CHECK_NEAR(l.p50, 50.5e-6, 1e-15);
		CHECK_NEAR(l.p90, 90.1e-6, 1e-15);
		CHECK_NEAR(l.p99, 99.01e-6, 1e-15);
		CHECK_NEAR(l.p999, 99.901e-6, 1e-15);
		CHECK_NEAR(l.max, 100e-6, 1e-15);
		CHECK_NEAR(l.mean, 50.5e-6, 1e-15);
		CHECK_INT(l.from_histogram, 0);
		CHECK_NEAR(l.error_rel, 0, 0);
		int64_t n = 0;
		for (int b = 0; b < SONDE_HIST_BUCKETS; b++)
			n += l.hist.count[b];
		CHECK_INT(n, 100);
	}
	/* Histogram path: the 50th, 90th and 99th samples (50, 90 and 99 us) within the stated
	 * error; mean and max stay exact. */
	sonde_latency_across(half, s, 50, 10, &l);
	if (hrank == 0) {
		CHECK_INT(l.count, 100);
		CHECK(fabs(l.p50 - 50e-6) <= SONDE_HIST_ERROR_REL * 50e-6);
		CHECK(fabs(l.p90 - 90e-6) <= SONDE_HIST_ERROR_REL * 90e-6);
		CHECK(fabs(l.p99 - 99e-6) <= SONDE_HIST_ERROR_REL * 99e-6);
		CHECK(fabs(l.p999 - 100e-6) <= SONDE_HIST_ERROR_REL * 100e-6);
		CHECK_INT(l.from_histogram, 1);
		CHECK_NEAR(l.max, 100e-6, 1e-15);
		CHECK_NEAR(l.mean, 50.5e-6, 1e-15);
	}

	/* More samples than one message carries, from rank 1 only; rank 0 has none. */
	const int64_t big = 200000;
	double *b = malloc(big * sizeof *b);
	for (int64_t i = 0; i < big; i++)
		b[i] = (double)(big - i) * 1e-9;
	sonde_latency_across(half, b, hrank ? big : 0, 1000000, &l);
	if (hrank == 0) {
		CHECK_INT(l.count, big);
		CHECK_NEAR(l.p50, 100000.5e-9, 1e-15);
		CHECK_NEAR(l.max, 200000e-9, 1e-15);
		CHECK_NEAR(l.mean, 100000.5e-9, 1e-15);
	}
	free(b);

	/* 4 ranks: rank r holds 10r+1 .. 10r+10 ms. */
	double w[10];
	for (int i = 0; i < 10; i++)
		w[i] = (10 * rank + i + 1) * 1e-3;
	sonde_latency_across(world, w, 10, 40, &l);
	if (rank == 0) {
		CHECK_INT(l.count, 40);
		CHECK_NEAR(l.p50, 20.5e-3, 1e-12);
		CHECK_NEAR(l.p90, 36.1e-3, 1e-12);
		CHECK_NEAR(l.max, 40e-3, 1e-12);
	}

	/* No samples anywhere. */
	sonde_latency_across(world, NULL, 0, 40, &l);
	if (rank == 0) {
		CHECK_INT(l.count, 0);
		CHECK_NEAR(l.p99, 0, 0);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK_INT(size, 4);
	MPI_Comm half;
	MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);

	test_stats_of();
	test_percentile();
	test_hist(rank);
	test_across(MPI_COMM_WORLD, half, rank);
	test_latency(MPI_COMM_WORLD, half, rank);
	test_across_some(MPI_COMM_WORLD, rank);
	test_latency_acc(MPI_COMM_WORLD, rank);

	MPI_Comm_free(&half);
	int failed = check_finish("test_stats");
	int any;
	MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	MPI_Finalize();
	return any;
}
