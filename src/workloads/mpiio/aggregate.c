/* SPDX-License-Identifier: BSD-3-Clause */
/* Types 3 and 4: N processes send their objects to M aggregators, which gather whole senders
 * into circular buffers of -csize bytes and write each full buffer with one call; reading runs
 * the same way backwards (the aggregator reads a buffer and sends each object home, where it
 * is checked). A buffer holds f = csize / (nobj x size) senders, in rank order, so sender k
 * (0-based among its aggregator's senders) finds its object j at byte
 * (first + k x nobj + j) x size of the aggregator's file, first being the objects of lower
 * aggregators in a shared type-4 file (0 for type 3). With -ahead n the aggregator keeps n+1
 * buffers and lets up to n+1 transfers run while it receives (writes) or sends (reads). */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "fail.h"
#include "progress.h"
#include "workloads/mpiio/mpiio.h"

#define TAG 0x4c41

static int64_t region_start(const struct mpiio_run *run, int agg)
{
	return run->p->type == MPIIO_N_TO_M_TO_1 ? run->plan.first[agg] * run->p->size : 0;
}

/* Byte offset in the aggregator's file of object j of the sender in slot k. */
static int64_t object_offset(const struct mpiio_run *run, int agg, int64_t k, int64_t j)
{
	return region_start(run, agg) + (k * run->p->nobj + j) * run->p->size;
}

static void timed_barrier(MPI_Comm comm, double *acc)
{
	double t0 = sonde_now();
	MPI_Barrier(comm);
	*acc += sonde_now() - t0;
}

static void sender(struct mpiio_run *run, int write, struct mpiio_times *t, struct mpiio_verify *v)
{
	const struct mpiio_params *p = run->p;
	const struct mpiio_plan *pl = &run->plan;
	int agg = pl->agg_of[run->rank], dest = pl->agg_rank[agg];
	int64_t k = pl->slot[run->rank];
	double *obj = mpiio_alloc(p->size);
	mpiio_fill_base(obj, run->blk, run->rank);
	MPI_Comm comm = run->ctx->comm;
	struct sonde_progress live;
	sonde_progress_begin(&live, run->ctx, write ? "write" : "read", SONDE_PROGRESS_BYTES,
	                     p->nobj * p->size, run->senders, 0);
	double t0 = sonde_now();
	for (int64_t j = 0; j < p->nobj; j++) {
		int64_t off = object_offset(run, agg, k, j);
		double c = sonde_now();
		if (write) {
			mpiio_touch(obj, run, off);
			c = sonde_now();
			MPI_Send(obj, (int)run->blk, MPI_DOUBLE, dest, TAG, comm);
			t->send += sonde_now() - c;
		} else {
			MPI_Status st;
			int got = 0;
			MPI_Recv(obj, (int)run->blk, MPI_DOUBLE, dest, TAG, comm, &st);
			t->recv += sonde_now() - c;
			MPI_Get_count(&st, MPI_DOUBLE, &got);
			/* An empty message: the aggregator's read failed, and the phase reports
			 * that. */
			if (p->chkdata && got == run->blk)
				mpiio_check_object(run, obj, j, off, t, v);
		}
		sonde_progress_update(&live, (j + 1) * p->size);
	}
	sonde_progress_end(&live);
	t->end = sonde_now();
	t->op = t->total = t->end - t0 - t->check;
	free(obj);
}

struct ring {
	int nbuf, f;
	int64_t senders, rounds, per_sender; /* per_sender: doubles */
	double **buf;
	struct mpiio_xfer *io; /* [nbuf] file transfer of each buffer */
	int *busy;             /* [nbuf] that transfer is in flight */
	MPI_Request *msg;      /* [f x nobj] messages of one buffer */
	/* [f x nobj] their statuses: a real array, as MPI_Waitall's prototype declares one (GCC
	 * 12 takes MPICH's MPI_STATUSES_IGNORE, address 1, for an array of no bytes). */
	MPI_Status *msg_status;
};

/* Senders k0..k1 of round i. */
static void round_senders(const struct ring *r, int64_t i, int64_t *k0, int64_t *k1)
{
	*k0 = i * r->f;
	*k1 = *k0 + r->f < r->senders ? *k0 + r->f : r->senders;
	if (*k1 < *k0)
		*k1 = *k0;
}

static void ring_init(struct ring *r, const struct mpiio_run *run, int agg)
{
	const struct mpiio_params *p = run->p;
	int64_t csize = p->csize ? p->csize : p->size * p->nobj;
	r->nbuf = p->ahead + 1;
	r->f = (int)(csize / (p->size * p->nobj));
	r->senders = run->plan.nsenders[agg];
	r->per_sender = run->blk * p->nobj;
	int64_t mine = (r->senders + r->f - 1) / r->f;
	/* Collective transfers and barriers need every aggregator in every round. */
	r->rounds = mine;
	if (p->collective || p->barrier)
		MPI_Allreduce(&mine, &r->rounds, 1, MPI_INT64_T, MPI_MAX, run->agg_comm);
	r->buf = calloc((size_t)r->nbuf, sizeof *r->buf);
	r->io = malloc(sizeof *r->io * (size_t)r->nbuf);
	r->busy = calloc((size_t)r->nbuf, sizeof *r->busy);
	for (int b = 0; b < r->nbuf; b++)
		r->buf[b] = mpiio_alloc(csize);
	r->msg = malloc(sizeof *r->msg * (size_t)r->f * (size_t)p->nobj);
	r->msg_status = malloc(sizeof *r->msg_status * (size_t)r->f * (size_t)p->nobj);
	if (!r->msg || !r->msg_status)
		sonde_fatal("out of memory for %lld messages", (long long)r->f * p->nobj);
}

static void ring_free(struct ring *r)
{
	for (int b = 0; b < r->nbuf; b++)
		free(r->buf[b]);
	free(r->buf);
	free(r->io);
	free(r->busy);
	free(r->msg);
	free(r->msg_status);
}

/* Starts the file transfer of round i from/into its buffer (a collective one even when this
 * aggregator has nothing left, so that the others' calls match). After a failure this
 * aggregator moves nothing more; its collective calls go on empty. */
static void ring_transfer(struct ring *r, struct mpiio_run *run, MPI_File fh, int agg, int64_t i,
                          int write, struct mpiio_times *t)
{
	int64_t k0, k1;
	round_senders(r, i, &k0, &k1);
	int64_t count = run->failure.err ? 0 : (k1 - k0) * r->per_sender;
	if (fh == MPI_FILE_NULL || (count == 0 && !run->p->collective))
		return;
	double t0 = sonde_now();
	int b = (int)(i % r->nbuf);
	mpiio_start(run, fh, object_offset(run, agg, k0, 0), r->buf[b], count, write, &r->io[b]);
	r->busy[b] = 1;
	if (run->p->collective)
		t->wait += sonde_now() - t0;
}

static void ring_wait(struct ring *r, struct mpiio_run *run, int64_t i, int write,
                      struct mpiio_times *t, struct mpiio_verify *v)
{
	int b = (int)(i % r->nbuf);
	if (!r->busy[b])
		return;
	r->busy[b] = 0;
	int failed = run->failure.err != 0;
	int64_t count = r->io[b].count;
	if (mpiio_finish(run, &r->io[b], r->buf[b], write, &t->wait) < count && v && !failed)
		v->short_reads++;
}

/* An aggregator's line: the objects of its senders, round by round; the aggregators share the
 * job alike. */
static void aggregator_progress(struct sonde_progress *live, const struct mpiio_run *run, int write)
{
	const struct mpiio_plan *pl = &run->plan;
	sonde_progress_begin(live, run->ctx, write ? "write" : "read", SONDE_PROGRESS_BYTES,
	                     pl->nsenders[pl->my_agg] * run->p->nobj * run->p->size, pl->naggs, 0);
}

/* The bytes of rounds 0..i (the senders k0..k1 of each). */
static int64_t rounds_bytes(const struct ring *r, const struct mpiio_run *run, int64_t i)
{
	int64_t k0, k1;
	round_senders(r, i, &k0, &k1);
	return k1 * run->p->nobj * run->p->size;
}

static void aggregator_write(struct mpiio_run *run, MPI_File fh, struct mpiio_times *t)
{
	const struct mpiio_params *p = run->p;
	int agg = run->plan.my_agg;
	struct ring r;
	ring_init(&r, run, agg);
	double *own = mpiio_alloc(p->size);
	mpiio_fill_base(own, run->blk, run->rank);
	struct sonde_progress live;
	aggregator_progress(&live, run, 1);
	for (int64_t i = 0; i < r.rounds; i++) {
		if (i)
			sonde_progress_update(&live, rounds_bytes(&r, run, i - 1));
		int b = (int)(i % r.nbuf);
		if (i >= r.nbuf)
			ring_wait(&r, run, i - r.nbuf, 1, t, NULL);
		int64_t k0, k1;
		round_senders(&r, i, &k0, &k1);
		int nmsg = 0;
		for (int64_t k = k0; k < k1; k++) {
			int s = run->plan.my_senders[k];
			for (int64_t j = 0; j < p->nobj; j++) {
				double *slot = r.buf[b] + (k - k0) * r.per_sender + j * run->blk;
				if (s == run->rank) {
					memcpy(slot, own, (size_t)p->size);
					mpiio_touch(slot, run, object_offset(run, agg, k, j));
				} else {
					MPI_Irecv(slot, (int)run->blk, MPI_DOUBLE, s, TAG,
					          run->ctx->comm, &r.msg[nmsg++]);
				}
			}
		}
		double t0 = sonde_now();
		MPI_Waitall(nmsg, r.msg, r.msg_status);
		t->recv += sonde_now() - t0;
		if (p->barrier)
			timed_barrier(run->agg_comm, &t->barrier);
		ring_transfer(&r, run, fh, agg, i, 1, t);
	}
	for (int64_t i = r.rounds - r.nbuf; i < r.rounds; i++)
		if (i >= 0)
			ring_wait(&r, run, i, 1, t, NULL);
	if (r.rounds)
		sonde_progress_update(&live, rounds_bytes(&r, run, r.rounds - 1));
	sonde_progress_end(&live);
	free(own);
	ring_free(&r);
}

static void aggregator_read(struct mpiio_run *run, MPI_File fh, struct mpiio_times *t,
                            struct mpiio_verify *v)
{
	const struct mpiio_params *p = run->p;
	int agg = run->plan.my_agg;
	struct ring r;
	ring_init(&r, run, agg);
	struct sonde_progress live;
	aggregator_progress(&live, run, 0);
	for (int64_t i = 0; i < r.nbuf && i < r.rounds; i++)
		ring_transfer(&r, run, fh, agg, i, 0, t);
	for (int64_t i = 0; i < r.rounds; i++) {
		if (i)
			sonde_progress_update(&live, rounds_bytes(&r, run, i - 1));
		int b = (int)(i % r.nbuf);
		ring_wait(&r, run, i, 0, t, v);
		int64_t k0, k1;
		round_senders(&r, i, &k0, &k1);
		int nmsg = 0;
		for (int64_t k = k0; k < k1; k++) {
			int s = run->plan.my_senders[k];
			for (int64_t j = 0; j < p->nobj; j++) {
				double *slot = r.buf[b] + (k - k0) * r.per_sender + j * run->blk;
				/* After a failed read the senders get empty messages: they
				 * wait for one each, and must not check data never read. */
				if (s != run->rank) {
					MPI_Isend(slot, run->failure.err ? 0 : (int)run->blk,
					          MPI_DOUBLE, s, TAG, run->ctx->comm,
					          &r.msg[nmsg++]);
				} else if (p->chkdata && !run->failure.err) {
					mpiio_check_object(run, slot, j,
					                   object_offset(run, agg, k, j), t, v);
				}
			}
		}
		double t0 = sonde_now();
		MPI_Waitall(nmsg, r.msg, r.msg_status);
		t->send += sonde_now() - t0;
		if (i + r.nbuf < r.rounds)
			ring_transfer(&r, run, fh, agg, i + r.nbuf, 0, t);
	}
	if (r.rounds)
		sonde_progress_update(&live, rounds_bytes(&r, run, r.rounds - 1));
	sonde_progress_end(&live);
	ring_free(&r);
}

void mpiio_aggregate_phase(struct mpiio_run *run, int write, struct mpiio_times *t,
                           struct mpiio_verify *v)
{
	int agg = run->plan.my_agg >= 0;
	double t0 = sonde_now();
	t->start = t0;
	MPI_File fh = MPI_FILE_NULL;
	/* Collective over the world (the agreement on open errors): senders take part, but their
	 * clocks start after it, as they open nothing. */
	if (!run->p->nofile)
		fh = mpiio_open(run, write, t);
	mpiio_keep_hints(run, fh, write);
	if (!agg) {
		sender(run, write, t, v);
		return;
	}
	double op0 = sonde_now();
	if (write)
		aggregator_write(run, fh, t);
	else
		aggregator_read(run, fh, t, v);
	t->op = sonde_now() - op0 - t->check;
	mpiio_close(run, &fh, write, t);
	t->end = sonde_now();
	t->total = t->end - t0 - t->check - t->agree;
}
