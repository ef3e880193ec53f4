/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives sonde coll times: mpiBench 1.5's eleven, in its order, then sonde's additions.
 * Counts, buffers and data checks follow mpiBench (reference section 5): one send and one
 * receive buffer of (largest size x world size) bytes, MPI_BYTE for data movement, MPI_DOUBLE +
 * MPI_SUM for reductions, root 0, and the v-variants' non-uniform counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fail.h"
#include "workloads/coll/coll.h"

int coll_buffers_alloc(struct coll_buffers *b, int64_t max_size, int world_size)
{
	memset(b, 0, sizeof *b);
	b->len = (size_t)max_size * (size_t)world_size;
	size_t alloc = b->len ? b->len : 1;
	size_t ints = sizeof(int) * (size_t)world_size;
	b->sbuf = calloc(alloc, 1);
	b->rbuf = calloc(alloc, 1);
	b->scounts = calloc(1, ints);
	b->sdispls = calloc(1, ints);
	b->rcounts = calloc(1, ints);
	b->rdispls = calloc(1, ints);
	b->allocated = 2 * b->len + 4 * ints;
	return b->sbuf && b->rbuf && b->scounts && b->sdispls && b->rcounts && b->rdispls ? 0 : -1;
}

void coll_buffers_free(struct coll_buffers *b)
{
	free(b->sbuf);
	free(b->rbuf);
	free(b->scounts);
	free(b->sdispls);
	free(b->rcounts);
	free(b->rdispls);
	memset(b, 0, sizeof *b);
}

static inline char pattern(size_t j, int rank)
{
	return (char)((j + 1) * (size_t)(rank + 1) + j);
}

/* Reductions add whole numbers, element k of comm rank r being base(k) x (r + 1): every sum is
 * exact whatever order the library adds in, so results can be checked bit for bit (mpiBench
 * added its byte pattern read as doubles, and never checked). */
static double base(size_t k)
{
	return (double)(k % 1000 + 1);
}

void coll_set_span(struct coll_call *c)
{
	size_t elem = c->type == MPI_DOUBLE ? sizeof(double) : 1;
	c->span = (size_t)c->count * elem * (size_t)c->nranks;
}

/* mpiBench filled and checked the whole buffer (largest size x ranks) whatever the size under
 * test: at 8 bytes that was megabytes of memory traffic per checked call, which evicted the
 * caches the next call ran from. */
void coll_fill(struct coll_call *c)
{
	if (c->op->flags & COLL_REDUCTION) {
		double *d = (double *)(void *)c->b->sbuf;
		for (size_t k = 0; k < c->span / sizeof *d; k++)
			d[k] = base(k) * (c->rank + 1);
	} else {
		char *s = c->b->sbuf;
		for (size_t j = 0; j < c->span; j++)
			s[j] = pattern(j, c->rank);
	}
	coll_clear_recv(c);
}

void coll_clear_recv(struct coll_call *c)
{
	memset(c->b->rbuf, 0, c->span);
}

/* ---- test hooks: what the tests need to prove the checks catch corruption and stay out of the
 * timings. Each is <rank>:<number> in the environment, acts on that world rank in checked runs
 * only, and is announced by a warning (docs/workloads/coll.md). Test builds only. ---- */
#ifdef SONDE_TEST_HOOKS

struct test_hook {
	const char *var, *what, *announce;
	int active, rank;
	long long value;
};

static struct test_hook hooks[] = {
    /* flips byte <value> of the receive buffer after every checked call, before the check */
    {"SONDE_TEST_CORRUPT_RECV", "<rank>:<byte offset>, e.g. 1:0",
     "received data is corrupted on purpose"},
    /* makes every check on that rank <value> microseconds longer (a sleep, which leaves the
     * processor to others: on a loaded machine a busy wait would get the ranks preempted) */
    {"SONDE_TEST_SLOW_CHECK", "<rank>:<microseconds>, e.g. 1:3000",
     "checks are slowed down on purpose"},
};
enum { HOOK_CORRUPT, HOOK_SLOW, NHOOKS };

int coll_test_hooks_init(char *err, size_t errlen)
{
	for (int i = 0; i < NHOOKS; i++) {
		struct test_hook *h = &hooks[i];
		const char *v = getenv(h->var);
		if (!v || !*v)
			continue;
		int used = 0;
		if (sscanf(v, "%d:%lld%n", &h->rank, &h->value, &used) != 2 || v[used] ||
		    h->rank < 0 || h->value < 0) {
			snprintf(err, errlen, "%s='%s': expected %s", h->var, v, h->what);
			return -1;
		}
		h->active = 1;
	}
	return 0;
}

void coll_test_hooks_announce(void)
{
	for (int i = 0; i < NHOOKS; i++)
		if (hooks[i].active)
			sonde_warn("test hook %s is set: %s", hooks[i].var, hooks[i].announce);
}

void coll_test_hooks_apply(struct coll_call *c)
{
	const struct test_hook *h = &hooks[HOOK_CORRUPT];
	if (h->active && c->world_rank == h->rank && (size_t)h->value < c->b->len)
		c->b->rbuf[h->value] ^= (char)0x5a;
	h = &hooks[HOOK_SLOW];
	if (h->active && c->world_rank == h->rank) {
		struct timespec pause = {h->value / 1000000, h->value % 1000000 * 1000};
		nanosleep(&pause, NULL);
	}
}
#endif

/* ---- checks, with mpiBench's messages ---- */

/* The send span must be exactly as filled. */
static int64_t check_send(struct coll_call *c)
{
	int64_t bad = 0;
	const char *s = c->b->sbuf;
	c->checked += (int64_t)c->span;
	for (size_t j = 0; j < c->span; j++) {
		if (s[j] == pattern(j, c->rank))
			continue;
		if (bad++ == 0)
			printf("Send buffer corruption detected on rank %d at sbuffer[%zu]\n",
			       c->world_rank, j);
	}
	return bad;
}

/* n received bytes at buf[at] must be the sender's (comm rank src) bytes from src_at on. Only
 * the first mismatch of a check is printed; all are counted. */
static int64_t check_recv(struct coll_call *c, const char *buf, size_t at, int src, size_t src_at,
                          size_t n, int64_t *reported)
{
	int64_t bad = 0;
	c->checked += (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		if (buf[at + i] == pattern(src_at + i, src))
			continue;
		bad++;
		if ((*reported)++ == 0)
			printf("Receive buffer corruption detected on rank %d at rbuffer[%zu] from "
			       "rank %d\n",
			       c->world_rank, at + i, src);
	}
	return bad;
}

static int64_t done(int64_t bad)
{
	fflush(stdout);
	return bad;
}

static int64_t check_bcast(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	/* The root broadcasts from its send buffer, the others receive into their receive buffer.
	 */
	const char *buf = c->rank == 0 ? c->b->sbuf : c->b->rbuf;
	bad += check_recv(c, buf, 0, 0, 0, (size_t)c->size, &rep);
	return done(bad);
}

static int64_t check_alltoall(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	size_t sz = (size_t)c->size;
	for (int j = 0; j < c->nranks; j++)
		bad += check_recv(c, c->b->rbuf, (size_t)j * sz, j, (size_t)c->rank * sz, sz, &rep);
	return done(bad);
}

static int64_t check_alltoallv(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	for (int k = 0; k < c->nranks; k++) {
		/* Where rank k's block for me starts in k's send buffer: k's displacement for me.
		 */
		size_t src_at = 0;
		for (int j = 0; j < c->rank; j++)
			src_at += (size_t)(((int64_t)(j + k) * c->chunk) % (c->count + 1));
		bad += check_recv(c, c->b->rbuf, (size_t)c->b->rdispls[k], k, src_at,
		                  (size_t)c->b->rcounts[k], &rep);
	}
	return done(bad);
}

/* Rank j's first size bytes at j x size (Allgather, and Gather at the root). */
static int64_t recv_blocks(struct coll_call *c, int64_t *rep)
{
	int64_t bad = 0;
	size_t sz = (size_t)c->size;
	for (int j = 0; j < c->nranks; j++)
		bad += check_recv(c, c->b->rbuf, (size_t)j * sz, j, 0, sz, rep);
	return bad;
}

/* Rank j's first rcounts[j] bytes at rdispls[j] (Allgatherv, and Gatherv at the root). */
static int64_t recv_vblocks(struct coll_call *c, int64_t *rep)
{
	int64_t bad = 0;
	for (int j = 0; j < c->nranks; j++)
		bad += check_recv(c, c->b->rbuf, (size_t)c->b->rdispls[j], j, 0,
		                  (size_t)c->b->rcounts[j], rep);
	return bad;
}

static int64_t check_allgather(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	return done(bad + recv_blocks(c, &rep));
}

static int64_t check_allgatherv(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	return done(bad + recv_vblocks(c, &rep));
}

static int64_t check_gather(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	if (c->rank == 0)
		bad += recv_blocks(c, &rep);
	return done(bad);
}

static int64_t check_gatherv(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	if (c->rank == 0)
		bad += recv_vblocks(c, &rep);
	return done(bad);
}

static int64_t check_scatter(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	bad += check_recv(c, c->b->rbuf, 0, 0, (size_t)c->rank * (size_t)c->size, (size_t)c->size,
	                  &rep);
	return done(bad);
}

static int64_t check_scatterv(struct coll_call *c)
{
	int64_t rep = 0, bad = check_send(c);
	bad += check_recv(c, c->b->rbuf, 0, 0, (size_t)c->b->sdispls[c->rank],
	                  (size_t)c->b->scounts[c->rank], &rep);
	return done(bad);
}

/* ---- reductions: exact sums of the whole-number fill ---- */

static int64_t check_send_doubles(struct coll_call *c)
{
	int64_t bad = 0;
	const double *d = (const double *)(const void *)c->b->sbuf;
	size_t n = c->span / sizeof *d;
	c->checked += (int64_t)(n * sizeof *d);
	for (size_t k = 0; k < n; k++) {
		if (d[k] == base(k) * (c->rank + 1))
			continue;
		if (bad++ == 0)
			printf("Send buffer corruption detected on rank %d at sbuffer[%zu]\n",
			       c->world_rank, k * sizeof *d);
	}
	return bad;
}

/* n result elements must be base(first + i) x factor: factor is the sum of (q + 1) over the
 * ranks q that contribute. */
static int64_t check_sums(struct coll_call *c, size_t first, size_t n, double factor)
{
	int64_t bad = 0;
	const double *d = (const double *)(const void *)c->b->rbuf;
	c->checked += (int64_t)(n * sizeof *d);
	for (size_t i = 0; i < n; i++) {
		double want = base(first + i) * factor;
		if (d[i] == want)
			continue;
		if (bad++ == 0)
			printf("Receive buffer corruption detected on rank %d at rbuffer[%zu] "
			       "(reduction: expected %.17g, found %.17g)\n",
			       c->world_rank, i * sizeof *d, want, d[i]);
	}
	return bad;
}

/* 1 + 2 + ... + m */
static double triangle(int m)
{
	return (double)m * (m + 1) / 2;
}

static int64_t check_allreduce(struct coll_call *c)
{
	int64_t bad = check_send_doubles(c);
	return done(bad + check_sums(c, 0, (size_t)c->count, triangle(c->nranks)));
}

static int64_t check_reduce(struct coll_call *c)
{
	int64_t bad = check_send_doubles(c);
	if (c->rank == 0)
		bad += check_sums(c, 0, (size_t)c->count, triangle(c->nranks));
	return done(bad);
}

static int64_t check_reduce_scatter_block(struct coll_call *c)
{
	int64_t bad = check_send_doubles(c);
	size_t first = (size_t)c->rank * (size_t)c->count;
	return done(bad + check_sums(c, first, (size_t)c->count, triangle(c->nranks)));
}

static int64_t check_reduce_scatter(struct coll_call *c)
{
	int64_t bad = check_send_doubles(c);
	size_t first = 0;
	for (int q = 0; q < c->rank; q++)
		first += (size_t)c->b->rcounts[q];
	return done(bad +
	            check_sums(c, first, (size_t)c->b->rcounts[c->rank], triangle(c->nranks)));
}

static int64_t check_scan(struct coll_call *c)
{
	int64_t bad = check_send_doubles(c);
	return done(bad + check_sums(c, 0, (size_t)c->count, triangle(c->rank + 1)));
}

/* Exscan leaves rank 0's result undefined. */
static int64_t check_exscan(struct coll_call *c)
{
	int64_t bad = check_send_doubles(c);
	if (c->rank > 0)
		bad += check_sums(c, 0, (size_t)c->count, triangle(c->rank));
	return done(bad);
}

/* ---- counts of the v-variants (reference 5.6) ---- */

static int v_count(const struct coll_call *c, int i)
{
	return (int)(((int64_t)i * c->chunk) % (c->count + 1));
}

static void set_chunk(struct coll_call *c)
{
	c->chunk = c->count / c->nranks;
	if (c->chunk == 0)
		c->chunk = 1;
}

static void setup_alltoallv(struct coll_call *c)
{
	set_chunk(c);
	int disp = 0;
	for (int i = 0; i < c->nranks; i++) {
		int n = v_count(c, i + c->rank);
		c->b->scounts[i] = c->b->rcounts[i] = n;
		c->b->sdispls[i] = c->b->rdispls[i] = disp;
		disp += n;
	}
}

/* Rank i contributes (i x chunk) mod (count + 1) elements, packed at the receiver. */
static void setup_gatherv(struct coll_call *c)
{
	set_chunk(c);
	int disp = 0;
	for (int i = 0; i < c->nranks; i++) {
		c->b->rcounts[i] = v_count(c, i);
		c->b->rdispls[i] = disp;
		disp += c->b->rcounts[i];
	}
	c->my_count = v_count(c, c->rank);
}

/* Scatterv mirrors Gatherv: rank i receives (i x chunk) mod (count + 1) elements. */
static void setup_scatterv(struct coll_call *c)
{
	set_chunk(c);
	int disp = 0;
	for (int i = 0; i < c->nranks; i++) {
		c->b->scounts[i] = v_count(c, i);
		c->b->sdispls[i] = disp;
		disp += c->b->scounts[i];
	}
	c->my_count = v_count(c, c->rank);
}

/* Reduce_scatter: the v-variants' non-uniform counts, in doubles. */
static void setup_reduce_scatter(struct coll_call *c)
{
	set_chunk(c);
	for (int i = 0; i < c->nranks; i++)
		c->b->rcounts[i] = v_count(c, i);
}

/* ---- the calls ---- */

static int do_barrier(struct coll_call *c, MPI_Request *r)
{
	return MPI_Barrier(c->comm);
}

static void *bcast_buffer(struct coll_call *c)
{
	return c->rank == 0 ? c->b->sbuf : c->b->rbuf;
}

static int do_bcast(struct coll_call *c, MPI_Request *r)
{
	return MPI_Bcast(bcast_buffer(c), c->count, c->type, 0, c->comm);
}

static int do_alltoall(struct coll_call *c, MPI_Request *r)
{
	return MPI_Alltoall(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, c->comm);
}

static int do_alltoallv(struct coll_call *c, MPI_Request *r)
{
	struct coll_buffers *b = c->b;
	return MPI_Alltoallv(b->sbuf, b->scounts, b->sdispls, c->type, b->rbuf, b->rcounts,
	                     b->rdispls, c->type, c->comm);
}

static int do_allgather(struct coll_call *c, MPI_Request *r)
{
	return MPI_Allgather(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, c->comm);
}

static int do_allgatherv(struct coll_call *c, MPI_Request *r)
{
	struct coll_buffers *b = c->b;
	return MPI_Allgatherv(b->sbuf, c->my_count, c->type, b->rbuf, b->rcounts, b->rdispls,
	                      c->type, c->comm);
}

static int do_gather(struct coll_call *c, MPI_Request *r)
{
	return MPI_Gather(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, 0, c->comm);
}

static int do_gatherv(struct coll_call *c, MPI_Request *r)
{
	struct coll_buffers *b = c->b;
	return MPI_Gatherv(b->sbuf, c->my_count, c->type, b->rbuf, b->rcounts, b->rdispls, c->type,
	                   0, c->comm);
}

static int do_scatter(struct coll_call *c, MPI_Request *r)
{
	return MPI_Scatter(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, 0,
	                   c->comm);
}

static int do_scatterv(struct coll_call *c, MPI_Request *r)
{
	struct coll_buffers *b = c->b;
	return MPI_Scatterv(b->sbuf, b->scounts, b->sdispls, c->type, b->rbuf, c->my_count, c->type,
	                    0, c->comm);
}

static int do_allreduce(struct coll_call *c, MPI_Request *r)
{
	return MPI_Allreduce(c->b->sbuf, c->b->rbuf, c->count, c->type, MPI_SUM, c->comm);
}

static int do_reduce(struct coll_call *c, MPI_Request *r)
{
	return MPI_Reduce(c->b->sbuf, c->b->rbuf, c->count, c->type, MPI_SUM, 0, c->comm);
}

static int do_reduce_scatter_block(struct coll_call *c, MPI_Request *r)
{
	return MPI_Reduce_scatter_block(c->b->sbuf, c->b->rbuf, c->count, c->type, MPI_SUM,
	                                c->comm);
}

static int do_reduce_scatter(struct coll_call *c, MPI_Request *r)
{
	return MPI_Reduce_scatter(c->b->sbuf, c->b->rbuf, c->b->rcounts, c->type, MPI_SUM, c->comm);
}

static int do_scan(struct coll_call *c, MPI_Request *r)
{
	return MPI_Scan(c->b->sbuf, c->b->rbuf, c->count, c->type, MPI_SUM, c->comm);
}

static int do_exscan(struct coll_call *c, MPI_Request *r)
{
	return MPI_Exscan(c->b->sbuf, c->b->rbuf, c->count, c->type, MPI_SUM, c->comm);
}

static int do_ibarrier(struct coll_call *c, MPI_Request *r)
{
	return MPI_Ibarrier(c->comm, r);
}

static int do_ibcast(struct coll_call *c, MPI_Request *r)
{
	return MPI_Ibcast(bcast_buffer(c), c->count, c->type, 0, c->comm, r);
}

static int do_ialltoall(struct coll_call *c, MPI_Request *r)
{
	return MPI_Ialltoall(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, c->comm,
	                     r);
}

static int do_iallgather(struct coll_call *c, MPI_Request *r)
{
	return MPI_Iallgather(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, c->comm,
	                      r);
}

static int do_igather(struct coll_call *c, MPI_Request *r)
{
	return MPI_Igather(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, 0, c->comm,
	                   r);
}

static int do_iscatter(struct coll_call *c, MPI_Request *r)
{
	return MPI_Iscatter(c->b->sbuf, c->count, c->type, c->b->rbuf, c->count, c->type, 0,
	                    c->comm, r);
}

static int do_iallreduce(struct coll_call *c, MPI_Request *r)
{
	return MPI_Iallreduce(c->b->sbuf, c->b->rbuf, c->count, c->type, MPI_SUM, c->comm, r);
}

static int do_ireduce(struct coll_call *c, MPI_Request *r)
{
	return MPI_Ireduce(c->b->sbuf, c->b->rbuf, c->count, c->type, MPI_SUM, 0, c->comm, r);
}

#define MB  COLL_MPIBENCH
#define RED COLL_REDUCTION
#define NB  COLL_NONBLOCKING

const struct coll_op coll_ops[] = {
    {"Barrier", MB | COLL_NO_SIZE, NULL, do_barrier, NULL},
    {"Bcast", MB, NULL, do_bcast, check_bcast},
    {"Alltoall", MB, NULL, do_alltoall, check_alltoall},
    {"Alltoallv", MB, setup_alltoallv, do_alltoallv, check_alltoallv},
    {"Allgather", MB, NULL, do_allgather, check_allgather},
    {"Allgatherv", MB, setup_gatherv, do_allgatherv, check_allgatherv},
    {"Gather", MB, NULL, do_gather, check_gather},
    {"Gatherv", MB, setup_gatherv, do_gatherv, check_gatherv},
    {"Scatter", MB, NULL, do_scatter, check_scatter},
    {"Allreduce", MB | RED, NULL, do_allreduce, check_allreduce},
    {"Reduce", MB | RED, NULL, do_reduce, check_reduce},
    /* sonde's additions: run only when named (or with the word "all") */
    {"Scatterv", 0, setup_scatterv, do_scatterv, check_scatterv},
    {"Reduce_scatter_block", RED, NULL, do_reduce_scatter_block, check_reduce_scatter_block},
    {"Reduce_scatter", RED, setup_reduce_scatter, do_reduce_scatter, check_reduce_scatter},
    {"Scan", RED, NULL, do_scan, check_scan},
    {"Exscan", RED, NULL, do_exscan, check_exscan},
    {"Ibarrier", NB | COLL_NO_SIZE, NULL, do_ibarrier, NULL},
    {"Ibcast", NB, NULL, do_ibcast, check_bcast},
    {"Ialltoall", NB, NULL, do_ialltoall, check_alltoall},
    {"Iallgather", NB, NULL, do_iallgather, check_allgather},
    {"Igather", NB, NULL, do_igather, check_gather},
    {"Iscatter", NB, NULL, do_iscatter, check_scatter},
    {"Iallreduce", NB | RED, NULL, do_iallreduce, check_allreduce},
    {"Ireduce", NB | RED, NULL, do_ireduce, check_reduce},
};

const int coll_nops = (int)(sizeof coll_ops / sizeof coll_ops[0]);

int coll_op_runs_at(const struct coll_op *op, int64_t size)
{
	return !(op->flags & COLL_REDUCTION) || size >= (int64_t)sizeof(double);
}
