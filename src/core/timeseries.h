/* SPDX-License-Identifier: BSD-3-Clause */
/* --interval SECONDS: a phase's bytes, calls and call latencies over time, as "interval"
 * records (docs/results-schema.md), and --live FILE: the same records as they are produced.
 *
 * Intervals lie on one grid of the run's global clock (sonde_run_clock, the clock of the
 * profiles): interval k covers [k*S, (k+1)*S) seconds after the global zero, so every rank knows
 * which interval a call falls in without asking anyone. Each rank counts, per interval, the bytes
 * and operations of the calls it completed in it and a latency histogram of those calls. A phase's
 * records are its intervals from the one holding the earliest rank's start to the one holding the
 * last rank's end, the first and the last cut to the phase: they cover the phase without a gap, and
 * since every call counts in exactly one interval they sum to the phase's totals.
 *
 * Without --live nothing is sent while the phase runs: the intervals are reduced (one reduction
 * per interval: counters and histogram summed on rank 0) when the phase reports. With --live each
 * interval is reduced as soon as the rank has moved past it: one non-blocking MPI_Ireduce per
 * interval, tested between calls (a few times per interval), so rank 0 writes an interval's
 * record to the live file once every rank has left that interval.
 *
 * A phase, collectively over the ranks that run it:
 *     sonde_series_begin(comm, "write", iteration);  before the barrier that starts the phase
 *     sonde_series_start();     right after it: this rank's phase starts
 *     ... sonde_series_call(end, latency, bytes) for each call ...
 *     sonde_series_stop();      after the timed part (collective with --live)
 *     sonde_series_report();    once the phase has succeeded: the records (collective)
 * sonde_series_call is one test when --interval is off. Memory: each rank keeps one latency
 * histogram per interval it made calls in, until the phase reports (with --live, until the
 * interval's reduction is posted). */
#ifndef SONDE_TIMESERIES_H
#define SONDE_TIMESERIES_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct sonde_context;

/* The shortest --interval: every interval costs each rank a latency histogram. */
#define SONDE_SERIES_MIN_INTERVAL 0.01

/* --interval's value (the workloads' and sonde mix's): seconds, at least the shortest. Returns
 * 0, or -1 with a one-line message in err. */
int sonde_series_parse_interval(const char *value, double *seconds, char *err, size_t errlen);

/* One interval's counts on one rank. */
struct sonde_series_bin {
	int64_t bytes, ops;
	struct sonde_hist *hist; /* NULL until the interval's first call */
};

/* The state the inline call below reads; the rest lives in timeseries.c. */
struct sonde_series_now {
	int recording; /* a phase is between begin and stop */
	double lo, hi; /* local times: the current bin covers [lo, hi) (hi: also the next
	                  --live poll) */
	struct sonde_series_bin *cur;
};
extern struct sonde_series_now sonde_series_now;

/* Called from sonde_parse_command_line (which refuses --interval without --json or --live): syncs
 * the run clock and opens the live file (rank 0). Returns 0, or -1 with a one-line reason in err.
 * Collective over ctx->comm when MPI is up. */
int sonde_series_setup(struct sonde_context *ctx, char *err, size_t errlen);

/* Whether --interval is on in this run. */
int sonde_series_enabled(void);

/* Collective with --live (a communicator for its reductions), local otherwise. */
void sonde_series_begin(MPI_Comm comm, const char *phase, int iteration);
/* Local: this rank's phase starts now (with --live it also starts a non-blocking reduction of
 * the ranks' starts). */
void sonde_series_start(void);

/* Moves to the interval of time end (local), posting --live reductions; sonde_series_call
 * calls it when end leaves the current bin. */
void sonde_series_turn(double end);

/* Whether a phase is recording now: for a loop that must read the clock only for the series. */
static inline int sonde_series_recording(void)
{
	return sonde_series_now.recording;
}

/* One completed call: its end (local time, sonde_now), latency in seconds, the bytes it moved
 * and the operations the phase counts in it (1 for most; MPI-IO test's aggregators move several
 * objects, its operations, in one call). */
static inline void sonde_series_call(double end, double latency, int64_t bytes, int64_t ops)
{
	struct sonde_series_now *s = &sonde_series_now;
	if (!s->recording)
		return;
	if (end < s->lo || end >= s->hi)
		sonde_series_turn(end);
	s->cur->bytes += bytes;
	s->cur->ops += ops;
	sonde_hist_add(s->cur->hist, latency);
}

void sonde_series_stop(void);
void sonde_series_report(void);

/* One interval of a phase that reported, as its record gives it: start on the run's clock
 * (clock_s), its length, and what the ranks' calls that ended in it moved and counted. */
struct sonde_series_interval {
	char phase[32];
	int iteration;
	double start, seconds;
	int64_t bytes, ops;
};

/* sonde mix, on the rank that writes a group's records: from now on, keep the intervals of every
 * phase that reports (those kept before are dropped); the mix's figures inside its overlap
 * windows are sums of them. */
void sonde_series_keep(void);
/* The intervals kept since sonde_series_keep, in order. */
const struct sonde_series_interval *sonde_series_kept(int *count);

#endif
