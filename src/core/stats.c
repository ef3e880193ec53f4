/* SPDX-License-Identifier: BSD-3-Clause */
#include "stats.h"

#include "fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sonde_stats_of(const double *v, int64_t n, struct sonde_stats *out)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	out->min_rank = out->max_rank = -1;
	if (n <= 0)
		return;
	out->min = out->max = v[0];
	out->min_rank = out->max_rank = 0;
	double sum = 0;
	for (int64_t i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < out->min) {
			out->min = v[i];
			out->min_rank = (int)i;
		}
		if (v[i] > out->max) {
			out->max = v[i];
			out->max_rank = (int)i;
		}
	}
	out->sum = sum;
	out->mean = sum / (double)n;
	/* Two passes: a sum of squares minus the squared mean loses every digit when the spread is
	 * small next to the mean, which is the usual case for per-rank times. */
	double ss = 0;
	for (int64_t i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->stddev = sqrt(ss / (double)n);
}

void sonde_stats_across(MPI_Comm comm, double value, struct sonde_stats *out)
{
	sonde_stats_across_some(comm, value, 1, out);
}

void sonde_stats_across_some(MPI_Comm comm, double value, int take_part, struct sonde_stats *out)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	/* MINLOC picks the lowest rank among equal values; the maximum is the MINLOC of the negated
	 * value, so both extremes come from one reduction with the same tie rule. A rank that
	 * takes no part offers +infinity to both. */
	struct {
		double v;
		int rank;
	} in[2] = {{take_part ? value : HUGE_VAL, rank}, {take_part ? -value : HUGE_VAL, rank}},
	  res[2];
	MPI_Allreduce(in, res, 2, MPI_DOUBLE_INT, MPI_MINLOC, comm);
	double part[2] = {take_part ? value : 0, take_part ? 1 : 0}, tot[2];
	MPI_Allreduce(part, tot, 2, MPI_DOUBLE, MPI_SUM, comm);

	memset(out, 0, sizeof *out);
	out->n = (int64_t)tot[1];
	if (out->n == 0)
		return;
	out->min = res[0].v;
	out->min_rank = res[0].rank;
	out->max = -res[1].v;
	out->max_rank = res[1].rank;
	out->sum = tot[0];
	out->mean = out->sum / tot[1];
	/* Two passes, as in sonde_stats_of: the deviations from the mean every rank now knows. */
	double dev = take_part ? (value - out->mean) * (value - out->mean) : 0, ss;
	MPI_Allreduce(&dev, &ss, 1, MPI_DOUBLE, MPI_SUM, comm);
	out->stddev = sqrt(ss / tot[1]);
}

double sonde_percentile(const double *sorted, int64_t n, double p)
{
	if (n <= 0)
		return 0.0;
	if (p <= 0)
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	double h = (double)(n - 1) * p / 100.0;
	int64_t lo = (int64_t)floor(h);
	if (lo >= n - 1)
		return sorted[n - 1];
	return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void sonde_sort_doubles(double *v, int64_t n)
{
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, cmp_double);
}

static int hist_bucket(double seconds)
{
	double ns = seconds * 1e9;
	if (!(ns >= 1.0)) /* below 1 ns, negative, or NaN */
		return 0;
	/* The double's own exponent and leading mantissa bits are the octave and the sub-bucket:
	 * ns = (1 + m) * 2^e, and the top SONDE_HIST_SUB_BITS bits of m pick the linear slice. */
	uint64_t bits;
	memcpy(&bits, &ns, sizeof bits);
	int e = (int)(bits >> 52) - 1023;
	if (e >= SONDE_HIST_OCTAVES)
		return SONDE_HIST_BUCKETS - 1;
	return 1 + (e << SONDE_HIST_SUB_BITS) +
	       (int)((bits >> (52 - SONDE_HIST_SUB_BITS)) & (SONDE_HIST_SUBS - 1));
}

void sonde_hist_add(struct sonde_hist *h, double seconds)
{
	h->count[hist_bucket(seconds)]++;
}

double sonde_hist_lower_ns(int b)
{
	if (b <= 0)
		return 0.0;
	if (b >= SONDE_HIST_BUCKETS - 1)
		return ldexp(1.0, SONDE_HIST_OCTAVES);
	int e = (b - 1) >> SONDE_HIST_SUB_BITS, s = (b - 1) & (SONDE_HIST_SUBS - 1);
	return ldexp(1.0 + (double)s / SONDE_HIST_SUBS, e);
}

double sonde_hist_upper_ns(int b)
{
	return b >= SONDE_HIST_BUCKETS - 1 ? HUGE_VAL : sonde_hist_lower_ns(b + 1);
}

void sonde_hist_merge(MPI_Comm comm, const struct sonde_hist *local, struct sonde_hist *out)
{
	MPI_Allreduce(local->count, out->count, SONDE_HIST_BUCKETS, MPI_INT64_T, MPI_SUM, comm);
}

int64_t sonde_hist_total(const struct sonde_hist *h)
{
	int64_t total = 0;
	for (int b = 0; b < SONDE_HIST_BUCKETS; b++)
		total += h->count[b];
	return total;
}

double sonde_hist_percentile(const struct sonde_hist *h, double p)
{
	int64_t total = sonde_hist_total(h);
	if (total == 0)
		return 0.0;
	/* The sample of rank ceil(p% of total), counted from 1, in integers for p given to a
	 * tenth (99.9 x total / 100 in doubles can land a hair above a whole rank). */
	int64_t tenths = llround(p * 10);
	int64_t want = (tenths * total + 999) / 1000;
	if (want < 1)
		want = 1;
	int64_t seen = 0;
	int b = 0;
	for (; b < SONDE_HIST_BUCKETS - 1; b++) {
		seen += h->count[b];
		if (seen >= want)
			break;
	}
	/* The midpoint is within half a sub-bucket of every value in it; the overflow bucket has
	 * no upper edge, its lower edge is what is known. */
	if (b == SONDE_HIST_BUCKETS - 1)
		return sonde_hist_lower_ns(b) * 1e-9;
	return 0.5 * (sonde_hist_lower_ns(b) + sonde_hist_upper_ns(b)) * 1e-9;
}

/* A histogram percentile never above the largest value seen: the true percentile is not, so
 * the clamp only brings the figure closer (and gives the overflow bucket a value). */
static double hist_figure(const struct sonde_latency *l, double p)
{
	double v = sonde_hist_percentile(&l->hist, p);
	return l->count > 0 && v > l->max ? l->max : v;
}

void sonde_latency_from_histogram(struct sonde_latency *l)
{
	l->p50 = hist_figure(l, 50);
	l->p90 = hist_figure(l, 90);
	l->p99 = hist_figure(l, 99);
	l->p999 = hist_figure(l, 99.9);
	l->from_histogram = 1;
	l->error_rel = SONDE_HIST_ERROR_REL;
}

/* Samples travel to rank 0 in pieces of this many, so no message (and no count) grows with the
 * number of calls, and no rank ever needs a second copy of its samples. */
#define LATENCY_CHUNK (1 << 16)
#define LATENCY_TAG   0x5347

static void send_samples(MPI_Comm comm, const double *samples, int64_t n)
{
	for (int64_t i = 0; i < n; i += LATENCY_CHUNK) {
		int64_t len = n - i < LATENCY_CHUNK ? n - i : LATENCY_CHUNK;
		MPI_Send(samples + i, (int)len, MPI_DOUBLE, 0, LATENCY_TAG, comm);
	}
}

static void recv_samples(MPI_Comm comm, int from, double *dst, int64_t n)
{
	for (int64_t i = 0; i < n; i += LATENCY_CHUNK) {
		int64_t len = n - i < LATENCY_CHUNK ? n - i : LATENCY_CHUNK;
		MPI_Recv(dst + i, (int)len, MPI_DOUBLE, from, LATENCY_TAG, comm, MPI_STATUS_IGNORE);
	}
}

/* Rank 0 gathers every sample (total fits in max_exact) and takes exact percentiles. */
static void exact_percentiles(MPI_Comm comm, const double *samples, int64_t n, int64_t total,
                              struct sonde_latency *out)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (rank != 0) {
		MPI_Send(&n, 1, MPI_INT64_T, 0, LATENCY_TAG + 1, comm);
		send_samples(comm, samples, n);
		return;
	}
	double *all = malloc((size_t)total * sizeof *all);
	if (!all)
		sonde_fatal("out of memory for %lld latency samples", (long long)total);
	if (n > 0)
		memcpy(all, samples, (size_t)n * sizeof *all);
	int64_t at = n;
	for (int r = 1; r < size; r++) {
		int64_t theirs;
		MPI_Recv(&theirs, 1, MPI_INT64_T, r, LATENCY_TAG + 1, comm, MPI_STATUS_IGNORE);
		recv_samples(comm, r, all + at, theirs);
		at += theirs;
	}
	sonde_sort_doubles(all, total);
	out->p50 = sonde_percentile(all, total, 50);
	out->p90 = sonde_percentile(all, total, 90);
	out->p99 = sonde_percentile(all, total, 99);
	out->p999 = sonde_percentile(all, total, 99.9);
	free(all);
}

void sonde_latency_acc_add(struct sonde_latency_acc *a, double seconds)
{
	sonde_hist_add(&a->hist, seconds);
	a->sum += seconds;
	if (a->count++ == 0 || seconds > a->max)
		a->max = seconds;
}

void sonde_latency_of_acc(MPI_Comm comm, const struct sonde_latency_acc *local,
                          struct sonde_latency *out)
{
	memset(out, 0, sizeof *out);
	double sum = local->sum;
	/* A rank without samples must not pull the maximum towards its zero. */
	double max = local->count > 0 ? local->max : -HUGE_VAL;
	out->count = local->count;
	out->hist = local->hist;
	if (comm != MPI_COMM_NULL) {
		double mine[2] = {sum, max}, sums;
		MPI_Allreduce(&local->count, &out->count, 1, MPI_INT64_T, MPI_SUM, comm);
		MPI_Reduce(local->hist.count, out->hist.count, SONDE_HIST_BUCKETS, MPI_INT64_T,
		           MPI_SUM, 0, comm);
		MPI_Reduce(&mine[0], &sums, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
		MPI_Reduce(&mine[1], &max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
		sum = sums;
	}
	int rank = 0;
	if (comm != MPI_COMM_NULL)
		MPI_Comm_rank(comm, &rank);
	if (out->count == 0 || rank != 0) {
		memset(&out->hist, 0, sizeof out->hist);
		return;
	}
	out->mean = sum / (double)out->count;
	out->max = max;
	sonde_latency_from_histogram(out);
}

void sonde_latency_across(MPI_Comm comm, const double *samples, int64_t n, int64_t max_exact,
                          struct sonde_latency *out)
{
	struct sonde_latency_acc local;
	memset(&local, 0, sizeof local);
	for (int64_t i = 0; i < n; i++)
		sonde_latency_acc_add(&local, samples[i]);
	sonde_latency_of_acc(comm, &local, out);
	if (out->count == 0 || out->count > max_exact)
		return;
	exact_percentiles(comm, samples, n, out->count, out);
	out->from_histogram = 0;
	out->error_rel = 0;
}
