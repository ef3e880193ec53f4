/* SPDX-License-Identifier: BSD-3-Clause */
#include "timeseries.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "fail.h"
#include "json.h"
#include "results.h"
#include "units.h"
#include "workload.h"

struct sonde_series_now sonde_series_now;

/* An interval's reduction carries the rank's bytes, calls, whether it was running in the
 * interval, and its histogram, as int64 words summed on rank 0: a histogram merges by summing
 * its counts (stats.h), so one reduction per interval carries everything. */
enum { WORD_BYTES, WORD_OPS, WORD_ACTIVE, WORD_HIST };
_Static_assert(sizeof(struct sonde_hist) % sizeof(int64_t) == 0,
               "a histogram travels as int64 counts");
#define HIST_WORDS ((int)(sizeof(struct sonde_hist) / sizeof(int64_t)))
#define WORDS      (WORD_HIST + HIST_WORDS)
#define LIVE_POLLS 4 /* --live tests its reductions this many times per interval */

/* One interval's reduction in flight: send and (rank 0) receive words. */
struct pending {
	int64_t k;
	int64_t *words; /* WORDS to send, then (rank 0) WORDS received */
	MPI_Request req;
};

static struct {
	int enabled, live;
	int begun;     /* between sonde_series_begin and sonde_series_stop */
	int to_report; /* stopped, not reported yet */
	double period;
	const char *workload;
	struct sonde_clock clock;
	/* the phase */
	MPI_Comm comm, live_comm; /* the phase's ranks; --live's reductions on a duplicate */
	int rank, size;
	const char *phase;
	int iteration;
	double begin_g, end_g; /* this rank's span on the global clock (end: +inf until stop) */
	double origin, finish; /* the phase's span: earliest begin, latest end */
	int64_t first, last;   /* the phase's intervals */
	struct sonde_series_bin *bins; /* bins[i]: interval base + i of this rank */
	int64_t base, nbins, cap, cur_k;
	/* --live */
	struct pending *pend; /* a queue: head .. head + npend - 1 (mod cappend) */
	int head, npend, cappend;
	int64_t next_post;
	double next_poll;       /* local time */
	int origin_known;       /* the phase's first interval, and so the reductions' first */
	MPI_Request origin_req; /* the MIN of the ranks' starts, in flight */
	/* rank 0: the phase's records, written to --json when the phase reports */
	char **records;
	int64_t nrecords, caprecords;
	/* sonde_series_keep: the intervals of the phases that reported (nkept), then the current
	 * phase's (up to npending) */
	int keeping;
	struct sonde_series_interval *kept;
	int nkept, npending, capkept;
} S;

int sonde_series_enabled(void)
{
	return S.enabled;
}

int sonde_series_setup(struct sonde_context *ctx, char *err, size_t errlen)
{
	const struct sonde_common *c = &ctx->common;
	if (c->live_path && c->interval == 0)
		ctx->common.interval = 1;
	if (ctx->common.interval == 0)
		return 0;
	S.enabled = 1;
	S.live = c->live_path != NULL;
	S.period = ctx->common.interval;
	S.workload = ctx->workload;
	S.clock = *sonde_run_clock(ctx->mpi ? ctx->comm : MPI_COMM_NULL);
	if (sonde_results_collision(c->live_path, "--live file", err, errlen) < 0)
		return -1;
	return sonde_results_open_live(c->live_path, err, errlen);
}

static double global_of(double local)
{
	return sonde_clock_global(&S.clock, local);
}

static double local_of(double global)
{
	return global - S.clock.offset + S.clock.zero;
}

static int64_t interval_of(double global)
{
	return (int64_t)floor(global / S.period);
}

static struct sonde_series_bin *bin_of(int64_t k)
{
	return k >= S.base && k < S.base + S.nbins ? &S.bins[k - S.base] : NULL;
}

/* Whether this rank ran during interval k. */
static int active_in(int64_t k)
{
	return S.begin_g < (double)(k + 1) * S.period && S.end_g >= (double)k * S.period;
}

void sonde_series_keep(void)
{
	S.keeping = 1;
	S.nkept = S.npending = 0;
}

const struct sonde_series_interval *sonde_series_kept(int *count)
{
	*count = S.nkept;
	return S.kept;
}

/* Rank 0, sonde_series_keep: an interval of the current phase, kept once the phase reports. */
static void keep(double start, double seconds, const int64_t *w)
{
	if (!S.keeping)
		return;
	if (S.npending == S.capkept) {
		S.capkept = S.capkept ? 2 * S.capkept : 64;
		S.kept = realloc(S.kept, sizeof *S.kept * (size_t)S.capkept);
		if (!S.kept)
			sonde_fatal("out of memory for the intervals of sonde mix");
	}
	struct sonde_series_interval *iv = &S.kept[S.npending++];
	snprintf(iv->phase, sizeof iv->phase, "%s", S.phase);
	iv->iteration = S.iteration;
	iv->start = start;
	iv->seconds = seconds;
	iv->bytes = w[WORD_BYTES];
	iv->ops = w[WORD_OPS];
}

/* Rank 0: interval k's record from its reduced words, to --live now and to --json when the
 * phase reports. */
static void emit(int64_t k, const int64_t *w)
{
	struct sonde_hist *h = malloc(sizeof *h);
	if (!h)
		sonde_fatal("out of memory for an interval's histogram");
	memcpy(h, w + WORD_HIST, sizeof *h);
	double start = fmax((double)k * S.period, S.origin);
	double end = fmin((double)(k + 1) * S.period, S.finish);
	double seconds = end - start;
	struct sonde_json j;
	sonde_json_init(&j);
	sonde_json_object_begin(&j, NULL);
	sonde_json_string(&j, "phase", S.phase);
	sonde_json_int(&j, "iteration", S.iteration);
	sonde_json_int(&j, "interval", k - S.first);
	sonde_json_double(&j, "start_s", start - S.origin);
	sonde_json_double(&j, "seconds", seconds);
	sonde_json_double(&j, "clock_s", start);
	sonde_json_int(&j, "bytes", w[WORD_BYTES]);
	sonde_json_int(&j, "ops", w[WORD_OPS]);
	sonde_json_double(&j, "bandwidth_mib_s",
	                  seconds > 0 ? (double)w[WORD_BYTES] / (double)SONDE_MIB / seconds : 0);
	sonde_json_double(&j, "ops_per_s", seconds > 0 ? (double)w[WORD_OPS] / seconds : 0);
	if (w[WORD_OPS] > 0) {
		sonde_json_double(&j, "latency_p50_s", sonde_hist_percentile(h, 50));
		sonde_json_double(&j, "latency_p99_s", sonde_hist_percentile(h, 99));
	} else {
		sonde_json_null(&j, "latency_p50_s");
		sonde_json_null(&j, "latency_p99_s");
	}
	sonde_json_int(&j, "ranks_active", w[WORD_ACTIVE]);
	sonde_json_int(&j, "ranks", S.size);
	sonde_json_object_end(&j);
	free(h);
	keep(start, seconds, w);
	sonde_results_live("interval", S.workload, j.buf);
	if (S.nrecords == S.caprecords) {
		S.caprecords = S.caprecords ? 2 * S.caprecords : 64;
		S.records = realloc(S.records, sizeof *S.records * (size_t)S.caprecords);
		if (!S.records)
			sonde_fatal("out of memory for interval records");
	}
	S.records[S.nrecords++] = j.buf;
}

/* Starts interval k's reduction on comm; this rank's histogram of it is no longer needed. */
static struct pending post(MPI_Comm comm, int64_t k)
{
	struct pending p = {.k = k, .req = MPI_REQUEST_NULL};
	p.words = calloc((size_t)WORDS * (S.rank == 0 ? 2 : 1), sizeof *p.words);
	if (!p.words)
		sonde_fatal("out of memory for an interval's reduction");
	struct sonde_series_bin *b = bin_of(k);
	if (b) {
		p.words[WORD_BYTES] = b->bytes;
		p.words[WORD_OPS] = b->ops;
		if (b->hist)
			memcpy(p.words + WORD_HIST, b->hist, sizeof *b->hist);
		free(b->hist);
		b->hist = NULL;
	}
	p.words[WORD_ACTIVE] = active_in(k);
	if (comm == MPI_COMM_NULL)
		memcpy(p.words + WORDS, p.words, sizeof *p.words * WORDS);
	else
		MPI_Ireduce(p.words, S.rank == 0 ? p.words + WORDS : NULL, WORDS, MPI_INT64_T,
		            MPI_SUM, 0, comm, &p.req);
	return p;
}

static void complete(struct pending *p)
{
	if (S.rank == 0)
		emit(p->k, p->words + WORDS);
	free(p->words);
}

/* --live: queues interval k's reduction. */
static void post_live(int64_t k)
{
	if (S.npend == S.cappend) {
		int cap = S.cappend ? 2 * S.cappend : 16;
		struct pending *q = malloc(sizeof *q * (size_t)cap);
		if (!q)
			sonde_fatal("out of memory for the interval reductions");
		for (int i = 0; i < S.npend; i++)
			q[i] = S.pend[(S.head + i) % S.cappend];
		free(S.pend);
		S.pend = q;
		S.cappend = cap;
		S.head = 0;
	}
	S.pend[(S.head + S.npend++) % S.cappend] = post(S.live_comm, k);
}

/* --live: completes the reductions that are done, oldest first (rank 0 writes in order); wait:
 * all of them. */
static void progress_live(int wait)
{
	while (S.npend > 0) {
		struct pending *p = &S.pend[S.head];
		int done = 1;
		if (p->req == MPI_REQUEST_NULL)
			;
		else if (wait)
			MPI_Wait(&p->req, MPI_STATUS_IGNORE);
		else
			MPI_Test(&p->req, &done, MPI_STATUS_IGNORE);
		if (!done)
			return;
		complete(p);
		S.head = (S.head + 1) % S.cappend;
		S.npend--;
	}
}

static void free_bins(void)
{
	for (int64_t i = 0; i < S.nbins; i++)
		free(S.bins[i].hist);
	free(S.bins);
	S.bins = NULL;
	S.nbins = S.cap = 0;
}

/* The records of a phase that did not report (it failed) are not the next phase's. */
static void drop_records(void)
{
	for (int64_t i = 0; i < S.nrecords; i++)
		free(S.records[i]);
	S.nrecords = 0;
	S.npending = S.nkept;
}

void sonde_series_begin(MPI_Comm comm, const char *phase, int iteration)
{
	if (!S.enabled)
		return;
	free_bins();
	drop_records();
	S.comm = comm;
	S.rank = 0;
	S.size = 1;
	if (comm != MPI_COMM_NULL) {
		MPI_Comm_rank(comm, &S.rank);
		MPI_Comm_size(comm, &S.size);
	}
	S.phase = phase;
	S.iteration = iteration;
	S.begun = 1;
	S.to_report = 0;
	S.origin_known = 1; /* until sonde_series_start */
	S.origin_req = MPI_REQUEST_NULL;
	S.begin_g = global_of(sonde_now());
	/* --live's reductions go in one order on every rank, on a communicator of their own */
	S.live_comm = MPI_COMM_NULL;
	if (S.live && comm != MPI_COMM_NULL)
		MPI_Comm_dup(comm, &S.live_comm);
}

void sonde_series_start(void)
{
	if (!S.begun)
		return;
	double now = sonde_now();
	S.begin_g = global_of(now);
	S.end_g = HUGE_VAL;
	S.base = S.cur_k = interval_of(S.begin_g);
	if (S.live) {
		/* The phase's first interval is the earliest rank's: known once this reduction is
		 * done; the intervals' reductions wait for it. */
		S.origin = S.begin_g;
		S.origin_req = MPI_REQUEST_NULL;
		S.origin_known = S.live_comm == MPI_COMM_NULL;
		if (!S.origin_known)
			MPI_Iallreduce(&S.begin_g, &S.origin, 1, MPI_DOUBLE, MPI_MIN, S.live_comm,
			               &S.origin_req);
		if (S.origin_known)
			S.next_post = interval_of(S.origin);
		S.finish = HUGE_VAL;
		S.next_poll = now;
	}
	sonde_series_now = (struct sonde_series_now){.recording = 1};
}

/* --live: whether the phase's first interval is known (wait: waits for it). */
static int origin(int wait)
{
	if (!S.origin_known) {
		if (wait)
			MPI_Wait(&S.origin_req, MPI_STATUS_IGNORE);
		else
			MPI_Test(&S.origin_req, &S.origin_known, MPI_STATUS_IGNORE);
		S.origin_known |= wait;
		if (!S.origin_known)
			return 0;
		S.next_post = interval_of(S.origin);
	}
	S.first = interval_of(S.origin);
	return 1;
}

/* The bin of interval k, allocated with its histogram. */
static struct sonde_series_bin *enter(int64_t k)
{
	if (k - S.base >= S.cap) {
		int64_t cap = S.cap ? 2 * S.cap : 64;
		while (k - S.base >= cap)
			cap *= 2;
		S.bins = realloc(S.bins, sizeof *S.bins * (size_t)cap);
		if (!S.bins)
			sonde_fatal("out of memory for the time series");
		memset(S.bins + S.cap, 0, sizeof *S.bins * (size_t)(cap - S.cap));
		S.cap = cap;
	}
	if (k - S.base >= S.nbins)
		S.nbins = k - S.base + 1;
	struct sonde_series_bin *b = &S.bins[k - S.base];
	if (!b->hist && !(b->hist = calloc(1, sizeof *b->hist)))
		sonde_fatal("out of memory for the time series");
	S.cur_k = k;
	return b;
}

void sonde_series_turn(double end)
{
	struct sonde_series_now *s = &sonde_series_now;
	int64_t k = interval_of(global_of(end));
	if (k < S.cur_k) /* a clock that went back: the call counts where the rank stands */
		k = S.cur_k;
	if (!s->cur || k != S.cur_k)
		s->cur = enter(k);
	s->lo = local_of((double)S.cur_k * S.period);
	s->hi = local_of((double)(S.cur_k + 1) * S.period);
	if (!S.live)
		return;
	/* the intervals this rank has left, then a test of those in flight */
	if (origin(0)) {
		while (S.next_post < S.cur_k)
			post_live(S.next_post++);
		progress_live(0);
	}
	S.next_poll = end + S.period / LIVE_POLLS;
	if (S.next_poll < s->hi)
		s->hi = S.next_poll;
}

void sonde_series_stop(void)
{
	if (!S.begun)
		return;
	S.begun = 0;
	S.to_report = 1;
	sonde_series_now = (struct sonde_series_now){0};
	S.end_g = global_of(sonde_now());
	if (!S.live)
		return;
	S.finish = S.end_g;
	if (S.comm != MPI_COMM_NULL)
		MPI_Allreduce(&S.end_g, &S.finish, 1, MPI_DOUBLE, MPI_MAX, S.comm);
	S.last = interval_of(S.finish);
	origin(1);
	while (S.next_post <= S.last)
		post_live(S.next_post++);
	progress_live(1);
	if (S.live_comm != MPI_COMM_NULL)
		MPI_Comm_free(&S.live_comm);
}

void sonde_series_report(void)
{
	if (!S.to_report)
		return;
	S.to_report = 0;
	if (!S.live) {
		/* the phase's span: MINs of the begin and of the negated end */
		double mine[2] = {S.begin_g, -S.end_g}, span[2] = {S.begin_g, -S.end_g};
		if (S.comm != MPI_COMM_NULL)
			MPI_Allreduce(mine, span, 2, MPI_DOUBLE, MPI_MIN, S.comm);
		S.origin = span[0];
		S.finish = -span[1];
		S.first = interval_of(S.origin);
		S.last = interval_of(S.finish);
		for (int64_t k = S.first; k <= S.last; k++) {
			struct pending p = post(S.comm, k);
			if (p.req != MPI_REQUEST_NULL)
				MPI_Wait(&p.req, MPI_STATUS_IGNORE);
			complete(&p);
		}
	}
	for (int64_t i = 0; i < S.nrecords; i++)
		sonde_results_record("interval", S.workload, S.records[i]);
	S.nkept = S.npending;
	drop_records();
	free_bins();
}

int sonde_series_parse_interval(const char *value, double *seconds, char *err, size_t errlen)
{
	if (sonde_parse_double(value, seconds, err, errlen) < 0)
		return -1;
	if (!(*seconds >= SONDE_SERIES_MIN_INTERVAL)) {
		snprintf(err, errlen, "'%s' is shorter than %g seconds", value,
		         SONDE_SERIES_MIN_INTERVAL);
		return -1;
	}
	return 0;
}
