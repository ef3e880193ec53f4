/* SPDX-License-Identifier: BSD-3-Clause */
/* Types 1, 2 and 5: every process writes its own objects straight to its file, one object per
 * call (-nobj calls), from one object-sized buffer that is touched again before each call. */
#include <stdlib.h>

#include "clock.h"
#include "fail.h"
#include "progress.h"
#include "workloads/mpiio/mpiio.h"

/* Object j of this rank: its own region (s x nobj + j) or, with -strided 1, the j-th row of F
 * objects (j x F + s), s being its rank among the F ranks of its file. Type 1 is the F = 1 case. */
static int64_t offset_of(const struct mpiio_run *run, int64_t j)
{
	int64_t s = run->file_rank, f = run->file_ranks;
	int64_t index = run->p->strided ? j * f + s : s * run->p->nobj + j;
	return index * run->p->size;
}

double *mpiio_alloc(int64_t bytes)
{
	void *buf = NULL;
	/* Page alignment satisfies direct I/O (-dio). */
	if (posix_memalign(&buf, 4096, (size_t)bytes) != 0)
		sonde_fatal("cannot allocate %lld bytes", (long long)bytes);
	return buf;
}

/* The hints the file really carries, taken before the first transfer (as the original did). */
void mpiio_keep_hints(struct mpiio_run *run, MPI_File fh, int write)
{
	const struct mpiio_params *p = run->p;
	if (write && (p->hints.count || p->dio) && run->rank == run->io_leader &&
	    fh != MPI_FILE_NULL && run->used == MPI_INFO_NULL)
		MPI_File_get_info(fh, &run->used);
}

void mpiio_direct_phase(struct mpiio_run *run, int write, struct mpiio_times *t,
                        struct mpiio_verify *v)
{
	const struct mpiio_params *p = run->p;
	double *obj = mpiio_alloc(p->size);
	mpiio_fill_base(obj, run->blk, run->rank);

	double t0 = sonde_now();
	t->start = t0;
	MPI_File fh = MPI_FILE_NULL;
	if (!p->nofile)
		fh = mpiio_open(run, write, t);
	mpiio_keep_hints(run, fh, write);

	double op0 = sonde_now();
	struct sonde_progress live;
	sonde_progress_begin(&live, run->ctx, write ? "write" : "read", SONDE_PROGRESS_BYTES,
	                     p->nobj * p->size, run->senders, 0);
	for (int64_t j = 0; j < p->nobj; j++) {
		int64_t off = offset_of(run, j);
		if (write) {
			mpiio_touch(obj, run, off);
			if (p->barrier) {
				double b = sonde_now();
				MPI_Barrier(run->ctx->comm);
				t->barrier += sonde_now() - b;
			}
		}
		/* After a failure this rank moves nothing more; its collective calls go on empty,
		 * so that the ranks sharing its file never wait for it. */
		int failed = run->failure.err != 0;
		if (!p->nofile && (!failed || p->collective)) {
			struct mpiio_xfer x;
			double c = sonde_now();
			mpiio_start(run, fh, off, obj, failed ? 0 : run->blk, write, &x);
			/* A collective call's wait is the whole call, as the guide defines it. */
			double in_start = p->collective ? sonde_now() - c : 0;
			int64_t got = mpiio_finish(run, &x, obj, write, &t->wait);
			t->wait += in_start;
			if (!write && !failed && got < run->blk)
				v->short_reads++;
		}
		if (!write && p->chkdata && !run->failure.err)
			mpiio_check_object(run, obj, j, off, t, v);
		sonde_progress_update(&live, (j + 1) * p->size);
	}
	sonde_progress_end(&live);
	t->op = sonde_now() - op0 - t->check;
	mpiio_close(run, &fh, write, t);
	t->end = sonde_now();
	t->total = t->end - t0 - t->check - t->agree;
	free(obj);
}
