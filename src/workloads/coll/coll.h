/* SPDX-License-Identifier: BSD-3-Clause */
/* sonde coll internals: the operations table, the timing kernels, the data checks and the
 * reporting, shared by src/workloads/coll.c and the files of src/workloads/coll/. */
#ifndef SONDE_COLL_H
#define SONDE_COLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "stats.h"

enum coll_timing {
	COLL_TIMING_BARRIER, /* mpiBench's default kernel: barrier after each call, inside the loop
	                      */
	COLL_TIMING_NOBARRIER, /* mpiBench's NO_BARRIER build: back-to-back calls */
	COLL_TIMING_PERCALL,   /* OSU/IMB: barrier, then one call timed alone */
};

/* The parsed command line, with the effective values after validation. */
struct coll_cfg {
	int64_t begin, end, mem_limit;
	int iters;
	int64_t time_limit_us;
	int dims, part_min;
	int check_last, check_all;
	int no_barrier, per_call;
	int percentiles;
	int overlap;
	enum coll_timing timing;
	MPI_Comm whole; /* the communicator the workload was given: every rank of the run */
};

/* Message buffers, sized once for the largest size and the world size. */
struct coll_buffers {
	char *sbuf, *rbuf;
	size_t len; /* bytes of each of sbuf and rbuf */
	int *scounts, *sdispls, *rcounts, *rdispls;
	size_t allocated; /* bytes of all the above, for "Message buffers (KB):" */
};

/* One test: an operation at one size on one communicator. */
struct coll_call {
	const struct coll_op *op;
	MPI_Comm comm;
	int rank, nranks, world_rank;
	int64_t size; /* the "Bytes:" figure: per-process message size */
	int count;    /* elements per process (per peer for the all-to-all family) */
	int my_count; /* v-variants: this rank's own contribution */
	int chunk;    /* v-variants: max(1, count / nranks) */
	size_t span;  /* bytes of each buffer a call at this size can touch: count x element size x
	                 ranks of comm; fills and checks stay within them */
	MPI_Datatype type;
	struct coll_buffers *b;
	int64_t checked; /* bytes compared by the checks so far */
};

enum coll_op_flags {
	COLL_MPIBENCH = 1 << 0,    /* one of mpiBench 1.5's 11, run when no operation is named */
	COLL_REDUCTION = 1 << 1,   /* MPI_DOUBLE + MPI_SUM; sizes below 8 bytes skipped */
	COLL_NO_SIZE = 1 << 2,     /* Barrier: run once, reported with Bytes 0 */
	COLL_NONBLOCKING = 1 << 3, /* start + MPI_Wait; overlap measured with --overlap */
};

struct coll_op {
	const char *name;
	unsigned flags;
	/* Counts and displacements for this call (v-variants); NULL when none are needed. */
	void (*setup)(struct coll_call *c);
	/* Blocking: the call itself. Non-blocking: starts it into *req. Returns an MPI code. */
	int (*call)(struct coll_call *c, MPI_Request *req);
	/* Checks the buffers after a call; reports the first mismatch as mpiBench words it and
	 * returns the number of bad bytes (elements for reductions). NULL = not checked (Barrier).
	 */
	int64_t (*check)(struct coll_call *c);
};

extern const struct coll_op coll_ops[];
extern const int coll_nops;

/* ops.c */
int coll_buffers_alloc(struct coll_buffers *b, int64_t max_size, int world_size);
void coll_buffers_free(struct coll_buffers *b);
/* mpiBench's fill, on the span of the size under test only: byte j of the send buffer of comm
 * rank r is (j+1)(r+1)+j (reductions: whole numbers, see ops.c); the receive span zeroed. */
void coll_fill(struct coll_call *c);
/* Before each checked call: the receive span zeroed (collectives leave the send buffer as it
 * is, and the check says so when one does not). */
void coll_clear_recv(struct coll_call *c);
/* Sets c->span for c->count and c->type. */
void coll_set_span(struct coll_call *c);
/* The test hooks SONDE_TEST_CORRUPT_RECV=<rank>:<offset> and SONDE_TEST_SLOW_CHECK=<rank>:<us>
 * (docs/workloads/coll.md): read from the environment (-1 and a reason on a malformed value),
 * announced with a warning each, applied before every check. Only in the builds the tests run
 * on (CMake's SONDE_TEST_HOOKS, which the Makefile's test builds set); a product build has none
 * and ignores the variables. */
#ifdef SONDE_TEST_HOOKS
int coll_test_hooks_init(char *err, size_t errlen);
void coll_test_hooks_announce(void);
void coll_test_hooks_apply(struct coll_call *c);
#else
static inline int coll_test_hooks_init(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 0;
}
static inline void coll_test_hooks_announce(void)
{
}
static inline void coll_test_hooks_apply(struct coll_call *c)
{
	(void)c;
}
#endif
/* Elements of size bytes of the op's type; and whether the op runs at that size at all. */
int coll_op_runs_at(const struct coll_op *op, int64_t size);

/* kernel.c */
struct coll_result {
	int iters;         /* iterations reported */
	double per_iter_s; /* this rank's time per iteration */
	double *samples;   /* per-call mode: one duration per reported iteration */
	int64_t nsamples;
	int64_t check_errors; /* bad bytes found by this rank */
	int64_t bytes_checked;
	int estimate_only; /* the 5-iteration estimate was reported (too few iterations fit) */
	double overall_s, pure_s, compute_s; /* --overlap, non-blocking ops */
	double start, end; /* MPI_Wtime() (sonde_now()) around the reported loop on this rank */
};

/* Primes, estimates, picks the iteration count (rank 0 decides) and measures, as mpiBench's
 * get_time does, with the kernel the configuration names. Collective over cfg->whole. */
void coll_measure(const struct coll_cfg *cfg, struct coll_call *c, struct coll_result *r);
void coll_result_free(struct coll_result *r);
const char *coll_timing_name(enum coll_timing t);

extern const struct sonde_option_table coll_option_table;

/* report.c */
void coll_report(const struct coll_cfg *cfg, const struct coll_call *c, const char *comm_name,
                 int comm_ranks, const struct coll_result *r, int64_t total_errors);

#endif
