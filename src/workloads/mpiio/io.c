/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO as the LANL test uses it: MPI_File_open on the communicator that shares the file,
 * optional MPI_File_preallocate, explicit-offset nonblocking transfers (collective ones with
 * -collective) and their waits, sync and close, each timed on its own. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "clock.h"
#include "completion.h"
#include "fail.h"
#include "open_errno.h"
#include "timeseries.h"
#include "workloads/mpiio/mpiio.h"

static void mpi_message(int rc, char *msg)
{
	int len = 0;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
}

void mpiio_fail(struct mpiio_run *run, int err)
{
	if (run->failure.err || !err)
		return;
	run->failure.err = err < 0 ? -err : err;
	snprintf(run->failure.msg, sizeof run->failure.msg, "%s", sonde_io_last_error());
}

static int is_symlink(const struct mpiio_run *run)
{
	return sonde_io_refuse_symlink(run->file_comm, run->io_path) < 0;
}

MPI_File mpiio_open(struct mpiio_run *run, int write, struct mpiio_times *t)
{
	MPI_File fh = MPI_FILE_NULL;
	int rc = MPI_SUCCESS, err = 0;
	const char *what = write ? "cannot create" : "cannot open";
	char msg[MPI_MAX_ERROR_STRING] = "";
	double t0 = sonde_now();
	if (run->file_comm != MPI_COMM_NULL &&
	    ((strcmp(run->path, run->io_path) != 0 &&
	      sonde_mpio_check_name(run->file_comm, run->path) < 0) ||
	     sonde_mpio_check_name(run->file_comm, run->io_path) < 0)) {
		what = "refusing to open";
		snprintf(msg, sizeof msg, "%s", sonde_io_last_error());
		err = ENAMETOOLONG;
	} else if (run->file_comm != MPI_COMM_NULL && is_symlink(run)) {
		what = "refusing to open";
		snprintf(msg, sizeof msg,
		         "it is a symbolic link; sonde does not follow symbolic "
		         "links at its test file paths");
		err = ELOOP;
	} else if (run->file_comm != MPI_COMM_NULL) {
		int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
		if (run->file_comm == MPI_COMM_SELF)
			amode |= MPI_MODE_UNIQUE_OPEN;
		rc = MPI_File_open(run->file_comm, run->io_path, amode, run->info, &fh);
		MPI_Offset bytes = 0;
		if (rc == MPI_SUCCESS) {
			what = "cannot get the size of";
			rc = MPI_File_get_size(fh, &bytes);
		}
		/* What an earlier, larger run left would stay behind the data, so such a file is
		 * cut; a file no longer than this run's layout is overwritten whole anyway, and
		 * is left alone (ext4 flushes a file truncated to 0 when it is closed, which
		 * would slow the close of every fresh file). */
		if (rc == MPI_SUCCESS && write) {
			int cut = bytes > run->layout_bytes;
			if (run->file_comm != MPI_COMM_SELF)
				MPI_Bcast(&cut, 1, MPI_INT, 0, run->file_comm);
			what = "cannot truncate";
			if (cut)
				rc = MPI_File_set_size(fh, 0);
		}
		run->file_bytes = bytes;
	}
	t->open = sonde_now() - t0;
	if (rc != MPI_SUCCESS) {
		char words[MPI_MAX_ERROR_STRING];
		mpi_message(rc, words);
		err = sonde_path_open_errno(run->path, write);
		if (!err)
			err = sonde_errno_of_mpi(rc);
		/* the system's words first, as for every other open (io/completion.c) */
		snprintf(msg, sizeof msg, "%s (%.200s)", sonde_strerror(err), words);
	}
	/* A file this run wrote and cannot open again was removed during the run; a file to
	 * read that was never there, or a directory to create it in, is bad input. */
	enum sonde_stage stage = !write && run->wrote ? SONDE_STAGE_RUN : SONDE_STAGE_INPUT;
	double a0 = sonde_now();
	err = sonde_agree_path(run->ctx->comm, err, run->path, "%s %s: %s", what, run->path, msg);
	if (err)
		sonde_exit(sonde_exit_class(err, stage));
	t->agree += sonde_now() - a0;

	if (write && run->p->preallocate >= 0) {
		rc = MPI_SUCCESS;
		if (fh != MPI_FILE_NULL) {
			t0 = sonde_now();
			rc = MPI_File_preallocate(fh, run->p->preallocate);
			t->prealloc = sonde_now() - t0;
		}
		if (rc != MPI_SUCCESS)
			mpi_message(rc, msg);
		a0 = sonde_now();
		if (sonde_agree_path(run->ctx->comm, rc == MPI_SUCCESS ? 0 : sonde_errno_of_mpi(rc),
		                     run->path, "cannot preallocate %s: %s", run->path, msg))
			sonde_exit(SONDE_EXIT_RUNTIME);
		t->agree += sonde_now() - a0;
	}
	return fh;
}

/* -sync's fsync of this rank's file through a descriptor of sonde's own. MPICH 4.0's ROMIO
 * skips the fsync of MPI_File_sync on a rank whose writes its bookkeeping did not mark (its
 * "dirty" flag): its nonblocking independent writes (aio, MPI_File_iwrite_at) are not marked, so
 * -sync without -collective made no fsync at all (counted: 0 for types 1-3; 2 with
 * -collective; Open MPI: one per rank). fsync flushes the file whichever descriptor names it,
 * and costs one system call where nothing is left to write. */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int err = fd < 0 || fsync(fd) != 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (err)
		sonde_io_set_error("sync %s: %s", path, sonde_strerror(err));
	return -err;
}

/* A failed sync or close is this rank's failure; the others close too (it is collective), and
 * the phase's agreement reports it. */
void mpiio_close(struct mpiio_run *run, MPI_File *fh, int write, struct mpiio_times *t)
{
	if (*fh == MPI_FILE_NULL)
		return;
	struct sonde_mpio_op op;
	if (write && run->p->sync) {
		double t0 = sonde_now();
		sonde_mpio_begin(&op, "sync %s", run->path);
		int err = sonde_mpio_end(&op, MPI_File_sync(*fh), NULL, MPI_BYTE, NULL);
		mpiio_fail(run, err ? err : sync_file(run->io_path));
		t->sync = sonde_now() - t0;
	}
	double t0 = sonde_now();
	sonde_mpio_begin(&op, "close %s", run->path);
	mpiio_fail(run, sonde_mpio_end(&op, MPI_File_close(fh), NULL, MPI_BYTE, NULL));
	t->close = sonde_now() - t0;
}

void mpiio_start(struct mpiio_run *run, MPI_File fh, int64_t offset, double *buf, int64_t count,
                 int write, struct mpiio_xfer *x)
{
	/* Reads stop at the end of the file: OMPIO's nonblocking reads never complete past it,
	 * and what is missing is reported as a short read anyway. */
	if (!write && offset + count * 8 > run->file_bytes)
		count = offset < run->file_bytes ? (run->file_bytes - offset) / 8 : 0;
	x->count = count;
	x->start = sonde_now();
	x->req = MPI_REQUEST_NULL;
	x->fh = fh;
	x->offset = offset;
	sonde_mpio_begin(&x->op, "%s %s at offset %lld", write ? "write" : "read", run->path,
	                 (long long)offset);
	int rc, n = (int)count;
	if (run->p->collective)
		rc = write ? MPI_File_iwrite_at_all(fh, offset, buf, n, MPI_DOUBLE, &x->req)
		           : MPI_File_iread_at_all(fh, offset, buf, n, MPI_DOUBLE, &x->req);
	else
		rc = write ? MPI_File_iwrite_at(fh, offset, buf, n, MPI_DOUBLE, &x->req)
		           : MPI_File_iread_at(fh, offset, buf, n, MPI_DOUBLE, &x->req);
	x->start_rc = rc;
}

int64_t mpiio_finish(struct mpiio_run *run, struct mpiio_xfer *x, double *buf, int write,
                     double *wait)
{
	MPI_Status st;
	MPI_Count got = 0;
	int rc = x->start_rc;
	if (rc == MPI_SUCCESS) {
		double t0 = sonde_now();
		rc = sonde_mpio_wait(&x->op, &x->req, &st);
		*wait += sonde_now() - t0;
	}
	int err = sonde_mpio_end(&x->op, rc, rc == MPI_SUCCESS ? &st : NULL, MPI_DOUBLE, &got);
	/* A short write is finished with independent blocking writes (no other rank waits for
	 * them): it was a moment's shortfall, or the next write says why (a full disk). */
	while (!err && write && got < x->count) {
		MPI_Count more = 0;
		MPI_Offset at = x->offset + (MPI_Offset)got * 8;
		sonde_mpio_begin(&x->op, "write %s at offset %lld (after %lld of %lld doubles)",
		                 run->path, (long long)at, (long long)got, (long long)x->count);
		rc =
		    MPI_File_write_at(x->fh, at, buf + got, (int)(x->count - got), MPI_DOUBLE, &st);
		err = sonde_mpio_end(&x->op, rc, &st, MPI_DOUBLE, &more);
		if (!err && more == 0) {
			sonde_io_set_error(
			    "%s: the MPI library wrote nothing and reported no error", x->op.what);
			err = -EIO;
		}
		got += more;
	}
	mpiio_fail(run, err);
	/* the objects moved are the operations the phase counts */
	double end = sonde_now();
	if (x->count > 0)
		sonde_series_call(end, end - x->start, (int64_t)got * 8,
		                  (int64_t)got * 8 / run->p->size);
	/* What a short or failed read did not bring must not pass for data. */
	for (int64_t i = got; i < x->count && !write; i++)
		buf[i] = NAN;
	return got;
}
