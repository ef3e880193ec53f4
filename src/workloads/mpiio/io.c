/* MPI-IO as the LANL test uses it: MPI_File_open on the communicator that shares the file,
 * optional MPI_File_preallocate, explicit-offset nonblocking transfers (collective ones with
 * -collective) and their waits, sync and close, each timed on its own. */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "clock.h"
#include "fail.h"
#include "workloads/mpiio/mpiio.h"

static void mpi_message(int rc, char *msg)
{
	int len = 0;
	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
}

void mpiio_check_mpi(int rc, const struct mpiio_run *run, const char *what)
{
	if (rc == MPI_SUCCESS)
		return;
	char msg[MPI_MAX_ERROR_STRING];
	mpi_message(rc, msg);
	sonde_fatal("%s %s: %s", what, run->path, msg);
}

static int is_symlink(const struct mpiio_run *run)
{
	return sonde_io_refuse_symlink(run->file_comm, run->path) < 0;
}

MPI_File mpiio_open(struct mpiio_run *run, int write, struct mpiio_times *t)
{
	MPI_File fh = MPI_FILE_NULL;
	int rc = MPI_SUCCESS;
	const char *what = write ? "cannot create" : "cannot open";
	char msg[MPI_MAX_ERROR_STRING] = "";
	double t0 = sonde_now();
	if (run->file_comm != MPI_COMM_NULL && is_symlink(run)) {
		what = "refusing to open";
		snprintf(msg, sizeof msg,
		         "it is a symbolic link; sonde does not follow symbolic "
		         "links at its test file paths");
		rc = MPI_ERR_FILE;
	} else if (run->file_comm != MPI_COMM_NULL) {
		int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
		if (run->file_comm == MPI_COMM_SELF)
			amode |= MPI_MODE_UNIQUE_OPEN;
		rc = MPI_File_open(run->file_comm, run->path, amode, run->info, &fh);
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
	if (rc != MPI_SUCCESS && !msg[0])
		mpi_message(rc, msg);
	double a0 = sonde_now();
	if (!sonde_agree(run->ctx->comm, rc == MPI_SUCCESS, "%s %s: %s", what, run->path, msg))
		sonde_exit(SONDE_EXIT_USAGE);
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
		if (!sonde_agree(run->ctx->comm, rc == MPI_SUCCESS, "cannot preallocate %s: %s",
		                 run->path, msg))
			sonde_exit(SONDE_EXIT_RUNTIME);
		t->agree += sonde_now() - a0;
	}
	return fh;
}

void mpiio_close(struct mpiio_run *run, MPI_File *fh, int write, struct mpiio_times *t)
{
	if (*fh == MPI_FILE_NULL)
		return;
	if (write && run->p->sync) {
		double t0 = sonde_now();
		mpiio_check_mpi(MPI_File_sync(*fh), run, "cannot sync");
		t->sync = sonde_now() - t0;
	}
	double t0 = sonde_now();
	mpiio_check_mpi(MPI_File_close(fh), run, "cannot close");
	t->close = sonde_now() - t0;
}

void mpiio_start(const struct mpiio_run *run, MPI_File fh, int64_t offset, double *buf,
                 int64_t count, int write, MPI_Request *req)
{
	/* Reads stop at the end of the file: OMPIO's nonblocking reads never complete past it,
	 * and what is missing is reported as a short read anyway. */
	if (!write && offset + count * 8 > run->file_bytes)
		count = offset < run->file_bytes ? (run->file_bytes - offset) / 8 : 0;
	int rc, n = (int)count;
	if (run->p->collective)
		rc = write ? MPI_File_iwrite_at_all(fh, offset, buf, n, MPI_DOUBLE, req)
		           : MPI_File_iread_at_all(fh, offset, buf, n, MPI_DOUBLE, req);
	else
		rc = write ? MPI_File_iwrite_at(fh, offset, buf, n, MPI_DOUBLE, req)
		           : MPI_File_iread_at(fh, offset, buf, n, MPI_DOUBLE, req);
	mpiio_check_mpi(rc, run, write ? "cannot write" : "cannot read");
}

int64_t mpiio_finish(const struct mpiio_run *run, MPI_Request *req, double *buf, int64_t count,
                     int write, double *wait)
{
	MPI_Status st;
	double t0 = sonde_now();
	int rc = MPI_Wait(req, &st);
	*wait += sonde_now() - t0;
	mpiio_check_mpi(rc, run, write ? "cannot write" : "cannot read");
	int got = 0;
	MPI_Get_count(&st, MPI_DOUBLE, &got);
	if (got == MPI_UNDEFINED || got < 0)
		got = 0;
	if (write && got < count)
		sonde_fatal("short write to %s: %d of %lld doubles", run->path, got,
		            (long long)count);
	/* What a short read did not bring must not pass for data. */
	for (int64_t i = got; i < count; i++)
		buf[i] = NAN;
	return got;
}
