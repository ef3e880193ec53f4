/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI-IO and PnetCDF completion checks (completion.h). */
#include "completion.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef SONDE_HAVE_PNETCDF
#include <pnetcdf.h>
#endif

#include "backend.h"
#include "clock.h"
#include "fail.h"
#include "interpose.h"
#include "ompio_semaphore.h"

/* --- one call -------------------------------------------------------------------------------- */

void sonde_mpio_begin(struct sonde_mpio_op *op, const char *fmt, ...)
{
	op->failures = sonde_interpose_failures();
	op->stalls = sonde_interpose_stalls();
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(op->what, sizeof op->what, fmt, ap);
	va_end(ap);
}

int sonde_mpio_syscall_errno(const struct sonde_mpio_op *op)
{
	return sonde_interpose_failures() != op->failures ? sonde_interpose_failed_errno() : 0;
}

/* The MPI library's words for an error code, on one line (MPICH's run over several lines
 * with a call stack). */
static void mpi_words(int mpi_rc, char *msg, size_t len)
{
	int n = 0;
	char text[MPI_MAX_ERROR_STRING];
	if (MPI_Error_string(mpi_rc, text, &n) != MPI_SUCCESS)
		snprintf(text, sizeof text, "MPI error %d", mpi_rc);
	sonde_one_line(text);
	size_t end = strlen(text);
	while (end && text[end - 1] == ' ')
		text[--end] = '\0';
	snprintf(msg, len, "%s", text);
}

int sonde_mpio_fail(int mpi_rc, const char *fmt, ...)
{
	char what[768], msg[MPI_MAX_ERROR_STRING];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	mpi_words(mpi_rc, msg, sizeof msg);
	/* The system's words first: MPI libraries word the same class differently ("No such
	 * file or directory" in Open MPI, "File does not exist" in MPICH). */
	int e = sonde_errno_of_mpi(mpi_rc);
	sonde_io_set_error("%s: %s (%s)", what, sonde_strerror(e), msg);
	return -e;
}

/* MPICH 4.0's ROMIO returns from a data-sieving write that failed with the file's byte-range
 * lock still held: the other ranks then wait for it in fcntl(F_SETLKW) forever. The lock is
 * this process's, on the file whose system call failed; releasing it lets them go on. */
static void release_locks(int fd)
{
	struct flock all = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
	if (fd >= 0)
		fcntl(fd, F_SETLK, &all);
}

/* A stalled write since sonde_mpio_begin: sets the error line ("<what>: short write: N of M
 * bytes at offset O (...)") and returns -EIO; 0 when there is none. */
static int short_transfer(const struct sonde_mpio_op *op, const char *who)
{
	if (sonde_interpose_stalls() == op->stalls)
		return 0;
	struct sonde_interpose_stall stalled = sonde_interpose_last_stall();
	release_locks(stalled.fd);
	sonde_io_set_error("%s: short write: %zu of %zu bytes at offset %lld (%s)", op->what,
	                   stalled.moved, stalled.asked, (long long)stalled.at, who);
	return -EIO;
}

int sonde_mpio_end(struct sonde_mpio_op *op, int rc, const MPI_Status *st, MPI_Datatype type,
                   MPI_Count *moved)
{
	int sys = sonde_mpio_syscall_errno(op);
	if (sys)
		release_locks(sonde_interpose_failed_fd());
	if (moved)
		*moved = 0;
	if (rc == MPI_ERR_PENDING && sys) {
		sonde_io_set_error("%s: %s (the MPI library never completed the request)", op->what,
		                   sonde_strerror(sys));
		return -sys;
	}
	if (rc != MPI_SUCCESS && sys) {
		char msg[MPI_MAX_ERROR_STRING];
		mpi_words(rc, msg, sizeof msg);
		sonde_io_set_error("%s: %s (%s)", op->what, sonde_strerror(sys), msg);
		return -sys;
	}
	if (rc != MPI_SUCCESS) {
		/* A short transfer is what the library's error is about, whatever its class. */
		char msg[MPI_MAX_ERROR_STRING];
		mpi_words(rc, msg, sizeof msg);
		int gap = short_transfer(op, msg);
		return gap ? gap : sonde_mpio_fail(rc, "%s", op->what);
	}
	if (sys) {
		sonde_io_set_error(
		    "%s: %s (in the MPI library's own I/O, which the call did not report)",
		    op->what, sonde_strerror(sys));
		return -sys;
	}
	int gap = short_transfer(op, "the system wrote no more and gave no reason");
	if (gap)
		return gap;
	if (!st || !moved)
		return 0;
	MPI_Count n = 0;
	if (MPI_Get_elements_x(st, type, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0) {
		sonde_io_set_error("%s: the MPI library gave no count of what it moved", op->what);
		return -EIO;
	}
	*moved = n;
	return 0;
}

/* A request is given up when every poll for this long saw a system call fail again: a
 * library that reports failures completes the request at its next poll instead. */
#define GIVE_UP_SECONDS 0.2
#define GIVE_UP_POLLS   100

int sonde_mpio_wait(struct sonde_mpio_op *op, MPI_Request *req, MPI_Status *st)
{
	unsigned long polls = 0, failing = 0;
	double failing_since = 0;
	for (;;) {
		int flag = 0, rc;
		unsigned long before = sonde_interpose_failures();
#ifdef OMPI_MAJOR_VERSION
		/* Open MPI 4.1: MPI_Test and MPI_Wait on a failed OMPIO request dereference a NULL
		 * file handle; MPI_Request_get_status does not, and a completed request is then
		 * freed without calling an error handler. MPI_Request_get_status leaves the
		 * status's MPI_ERROR alone, so a failure shows in the system calls (OMPIO's aio)
		 * and in the count, which sonde_mpio_end checks. */
		rc = MPI_Request_get_status(*req, &flag, st);
		if (rc == MPI_SUCCESS && flag) {
			if (*req != MPI_REQUEST_NULL)
				MPI_Request_free(req);
			*req = MPI_REQUEST_NULL;
			return MPI_SUCCESS;
		}
#else
		/* MPICH's MPI_Request_get_status does not poll ROMIO's generalized requests;
		 * MPI_Test does, and returns a failed request's error code. */
		rc = MPI_Test(req, &flag, st);
		if (flag)
			return rc;
#endif
		if (rc != MPI_SUCCESS)
			return rc;
		if (sonde_interpose_failures() != before) {
			if (!failing++)
				failing_since = sonde_now();
			if (failing >= GIVE_UP_POLLS &&
			    sonde_now() - failing_since >= GIVE_UP_SECONDS) {
				/* Never freed: MPICH would run the request's free function while
				 * its aio control block may still be listed; the process ends soon.
				 */
				*req = MPI_REQUEST_NULL;
				return MPI_ERR_PENDING;
			}
		} else {
			failing = 0;
		}
		/* MPI_Wait spins too; yielding lets an oversubscribed rank's aio thread run. */
		if (++polls > 64)
			sched_yield();
	}
}

/* A long name is shown by its first 60 characters. */
#define SHOWN(path, len) (int)((len) > 80 ? 60 : (len)), (path), (len) > 80 ? "..." : ""

int sonde_mpio_check_name(MPI_Comm comm, const char *path)
{
	size_t len = strlen(path), longest = 0;
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");
		longest = n > longest ? n : longest;
		c += n + (c[n] == '/');
	}
	if (len >= PATH_MAX || longest > NAME_MAX) {
		sonde_io_set_error("open %.*s%s: the name is %zu characters long; file names "
		                   "have at most %d and each part at most %d",
		                   SHOWN(path, len), len, PATH_MAX - 1, NAME_MAX);
		return -ENAMETOOLONG;
	}
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
	int size = 1;
	MPI_Comm_size(comm, &size);
	int digits = 1;
	for (int r = size - 1; r >= 10; r /= 10)
		digits++;
	size_t limit = 255 - strlen(".locktest.") - (size_t)digits;
	if (len > limit) {
		sonde_io_set_error("open %.*s%s: the name is %zu characters long; Open MPI %d.%d "
		                   "aborts when it opens a file whose name is longer than %zu "
		                   "characters on %d rank%s",
		                   SHOWN(path, len), len, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
		                   limit, size, size == 1 ? "" : "s");
		return -ENAMETOOLONG;
	}
#endif
	sonde_ompio_clear_dead_semaphore(comm, path);
	return 0;
}

int sonde_lib_end(struct sonde_mpio_op *op, int failed, const char *words)
{
	int sys = sonde_mpio_syscall_errno(op);
	if (sys)
		release_locks(sonde_interpose_failed_fd());
	if (!sys) {
		int gap = short_transfer(
		    op, failed ? words : "the system wrote no more and gave no reason");
		if (gap || !failed)
			return gap;
	}
	int e = sys ? sys : EIO;
	sonde_io_set_error("%s: %s (%s)", op->what, sonde_strerror(e),
	                   failed ? words : "the library reported success");
	return -e;
}

#ifdef SONDE_HAVE_PNETCDF
/* PnetCDF's codes for what the system reports, and positive values, which are errno values. */
static int nc_errno(int nc_rc)
{
	if (nc_rc > 0)
		return nc_rc;
	switch (nc_rc) {
	case NC_ENOENT:
		return ENOENT;
	case NC_EEXIST:
		return EEXIST;
	case NC_EPERM:
	case NC_EACCESS:
		return EACCES;
	case NC_ENO_SPACE:
		return ENOSPC;
	case NC_EQUOTA:
		return EDQUOT;
	case NC_EBAD_FILE:
	case NC_EMAXNAME:
		return ENAMETOOLONG;
	case NC_ENOTNC:
		return EINVAL;
	case NC_ENOMEM:
		return ENOMEM;
	default:
		return EIO;
	}
}

int sonde_nc_end(struct sonde_mpio_op *op, int nc_rc)
{
	int sys = sonde_mpio_syscall_errno(op);
	if (sys)
		release_locks(sonde_interpose_failed_fd());
	if (!sys) {
		int gap = short_transfer(op, nc_rc == NC_NOERR
		                                 ? "the system wrote no more and gave no reason"
		                                 : ncmpi_strerror(nc_rc));
		if (gap || nc_rc == NC_NOERR)
			return gap;
	}
	int e = sys ? sys : nc_errno(nc_rc);
	if (nc_rc == NC_NOERR)
		sonde_io_set_error("%s: %s (PnetCDF reported success)", op->what,
		                   sonde_strerror(e));
	else
		sonde_io_set_error("%s: %s (%s)", op->what, sonde_strerror(e),
		                   ncmpi_strerror(nc_rc));
	return -e;
}
#endif

void sonde_io_shield_writes(int on)
{
	sonde_interpose_shield_writes(on);
}
