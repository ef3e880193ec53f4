/* SPDX-License-Identifier: BSD-3-Clause */
/* Timing kernels and the iteration count, as mpiBench's get_time (reference 5.3, 5.4):
 * fill the buffers, prime with one iteration, estimate with five, let rank 0's estimate and the
 * time limit pick the iteration count, measure. Three kernels:
 *  - barrier:    start; N x {call; barrier(comm)}; stop            (mpiBench default)
 *  - no-barrier: start; N x {call}; stop                           (mpiBench NO_BARRIER build)
 *  - per-call:   N x {barrier(comm); start; call; stop}            (OSU/IMB)
 * Data checks run outside the timed region: with -c the last iteration, with -C every
 * iteration, is timed as its own segment with filling and checking between segments. Fills and
 * checks touch only the bytes of the size under test (coll_call.span), and a barrier on the
 * communicator follows them, so that no rank's untimed work becomes another rank's waiting time
 * inside the next timed call. */
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "workloads/coll/coll.h"

#define ESTIMATE_ITERS 5

const char *coll_timing_name(enum coll_timing t)
{
	switch (t) {
	case COLL_TIMING_BARRIER:
		return "barrier";
	case COLL_TIMING_NOBARRIER:
		return "no-barrier";
	case COLL_TIMING_PERCALL:
		return "per-call";
	}
	return "?";
}

static void mpi_check(int rc, const struct coll_call *c, const char *what)
{
	if (rc == MPI_SUCCESS)
		return;
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	MPI_Error_string(rc, msg, &len);
	sonde_fatal("%s %s (%lld bytes): %s", c->op->name, what, (long long)c->size, msg);
}

/* One complete operation: the call, and for non-blocking ops its completion. */
static inline void one_call(struct coll_call *c)
{
	MPI_Request req = MPI_REQUEST_NULL;
	mpi_check(c->op->call(c, &req), c, "call");
	if (c->op->flags & COLL_NONBLOCKING)
		mpi_check(MPI_Wait(&req, MPI_STATUS_IGNORE), c, "MPI_Wait");
}

/* n back-to-back operations, with the barrier after each in the barrier kernel. Barrier is
 * timed alone in every kernel, as mpiBench's time_barrier does. With samples (--percentiles),
 * the clock is read after every iteration: samples[i] = end of iteration i - end of the one
 * before (t0 for the first), so they add up to the loop's time. Returns the end time. */
static double run_loop(struct coll_call *c, int n, int with_barrier, double t0, double *samples)
{
	int barrier = with_barrier && !(c->op->flags & COLL_NO_SIZE);
	if (samples) {
		double prev = t0;
		for (int i = 0; i < n; i++) {
			one_call(c);
			if (barrier)
				mpi_check(MPI_Barrier(c->comm), c, "barrier");
			double now = MPI_Wtime();
			samples[i] = now - prev;
			prev = now;
		}
		return prev;
	}
	if (barrier) {
		for (int i = 0; i < n; i++) {
			one_call(c);
			mpi_check(MPI_Barrier(c->comm), c, "barrier");
		}
	} else {
		for (int i = 0; i < n; i++)
			one_call(c);
	}
	return MPI_Wtime();
}

static int checks_iteration(const struct coll_cfg *cfg, const struct coll_call *c, int i, int n)
{
	return c->op->check && (cfg->check_all || (cfg->check_last && i == n - 1));
}

static void verify(struct coll_call *c, struct coll_result *r)
{
	coll_test_hooks_apply(c);
	r->check_errors += c->op->check(c);
}

/* Loop kernels: seconds for n iterations, timed in segments that end before each checked
 * iteration's fill and resume after its check. */
static double kernel_loop(const struct coll_cfg *cfg, struct coll_call *c, int n, double *samples,
                          struct coll_result *r)
{
	int with_barrier = cfg->timing == COLL_TIMING_BARRIER;
	double elapsed = 0;
	MPI_Barrier(cfg->whole);
	for (int done = 0; done < n;) {
		int seg = n - done, check = 0;
		if (checks_iteration(cfg, c, done, n)) {
			seg = 1;
			check = 1;
		} else if (c->op->check && cfg->check_last) {
			seg--; /* leave the last iteration for its own, checked segment */
		}
		if (check) {
			coll_clear_recv(c);
			mpi_check(MPI_Barrier(c->comm), c, "barrier");
		}
		double t0 = MPI_Wtime();
		elapsed += run_loop(c, seg, with_barrier, t0, samples ? samples + done : NULL) - t0;
		if (check)
			verify(c, r);
		done += seg;
	}
	return elapsed;
}

/* Per-call kernel: each call timed alone after a barrier; samples[i] gets its duration. */
static double kernel_percall(const struct coll_cfg *cfg, struct coll_call *c, int n,
                             double *samples, struct coll_result *r)
{
	double elapsed = 0;
	MPI_Barrier(cfg->whole);
	for (int i = 0; i < n; i++) {
		int check = checks_iteration(cfg, c, i, n);
		if (check)
			coll_clear_recv(c);
		mpi_check(MPI_Barrier(c->comm), c, "barrier");
		double t0 = MPI_Wtime();
		one_call(c);
		double dt = MPI_Wtime() - t0;
		elapsed += dt;
		if (samples)
			samples[i] = dt;
		if (check)
			verify(c, r);
	}
	return elapsed;
}

static double kernel(const struct coll_cfg *cfg, struct coll_call *c, int n, double *samples,
                     struct coll_result *r)
{
	if (cfg->timing == COLL_TIMING_PERCALL)
		return kernel_percall(cfg, c, n, samples, r);
	return kernel_loop(cfg, c, n, samples, r);
}

static void spin(double seconds)
{
	double end = MPI_Wtime() + seconds;
	while (MPI_Wtime() < end)
		;
}

/* Overlap of a non-blocking op with computation, on iters iterations (each after a barrier):
 * pure = start + wait alone; then start, busy-wait for the largest pure time in the
 * communicator (no MPI calls in between, so only asynchronous progress helps), wait. */
static void measure_overlap(struct coll_call *c, int iters, struct coll_result *r)
{
	double pure = 0, overall = 0, compute = 0;
	for (int i = 0; i < iters; i++) {
		mpi_check(MPI_Barrier(c->comm), c, "barrier");
		double t0 = MPI_Wtime();
		one_call(c);
		pure += MPI_Wtime() - t0;
	}
	pure /= iters;
	double target;
	MPI_Allreduce(&pure, &target, 1, MPI_DOUBLE, MPI_MAX, c->comm);
	for (int i = 0; i < iters; i++) {
		MPI_Request req = MPI_REQUEST_NULL;
		mpi_check(MPI_Barrier(c->comm), c, "barrier");
		double t0 = MPI_Wtime();
		mpi_check(c->op->call(c, &req), c, "call");
		double t1 = MPI_Wtime();
		spin(target);
		double t2 = MPI_Wtime();
		mpi_check(MPI_Wait(&req, MPI_STATUS_IGNORE), c, "MPI_Wait");
		overall += MPI_Wtime() - t0;
		compute += t2 - t1;
	}
	r->pure_s = pure;
	r->overall_s = overall / iters;
	r->compute_s = compute / iters;
}

void coll_measure(const struct coll_cfg *cfg, struct coll_call *c, struct coll_result *r)
{
	memset(r, 0, sizeof *r);
	c->checked = 0;
	coll_set_span(c);
	if (c->op->setup)
		c->op->setup(c);
	coll_fill(c);

	/* Per-iteration durations: always in the per-call kernel; in the loop kernels only for
	 * --percentiles, which adds a clock read per iteration to the loop. */
	int sampled = cfg->timing == COLL_TIMING_PERCALL || cfg->percentiles;
	kernel(cfg, c, 1, NULL, r); /* prime */
	int nest = cfg->iters < ESTIMATE_ITERS ? cfg->iters : ESTIMATE_ITERS;
	double est_samples[ESTIMATE_ITERS];
	r->start = MPI_Wtime();
	double est = kernel(cfg, c, nest, sampled ? est_samples : NULL, r) / nest;
	r->end = MPI_Wtime();

	int limit = cfg->iters;
	double est_us = est * 1e6;
	if (cfg->time_limit_us > 0 && est_us > 0 && (double)cfg->time_limit_us / est_us < limit)
		limit = (int)((double)cfg->time_limit_us / est_us);
	/* Rank 0's count for everyone, as mpiBench does (the root is usually the slowest). */
	MPI_Bcast(&limit, 1, MPI_INT, 0, cfg->whole);

	if (limit > nest) {
		if (sampled) {
			r->samples = malloc(sizeof *r->samples * (size_t)limit);
			if (!r->samples)
				sonde_fatal("no memory for %d per-call samples", limit);
		}
		r->iters = limit;
		double start = MPI_Wtime();
		r->per_iter_s = kernel(cfg, c, limit, r->samples, r) / limit;
		r->end = MPI_Wtime();
		r->start = start;
	} else {
		/* Too few iterations fit the time limit: the estimate is the result. */
		r->estimate_only = 1;
		r->iters = nest;
		r->per_iter_s = est;
		if (sampled) {
			r->samples = malloc(sizeof *r->samples * ESTIMATE_ITERS);
			if (!r->samples)
				sonde_fatal("no memory for per-call samples");
			memcpy(r->samples, est_samples, sizeof *r->samples * (size_t)nest);
		}
	}
	r->nsamples = r->samples ? r->iters : 0;
	if (cfg->overlap && (c->op->flags & COLL_NONBLOCKING))
		measure_overlap(c, r->iters, r);
	r->bytes_checked = c->checked;
}

void coll_result_free(struct coll_result *r)
{
	free(r->samples);
	r->samples = NULL;
}
