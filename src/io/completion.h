/* SPDX-License-Identifier: BSD-3-Clause */
/* The one failure contract for MPI-IO and PnetCDF calls, used by the MPI-IO backend (ior -a
 * MPIIO), btio (methods 0-3) and mpiio (types 1-5): every data call, wait, sync and close is
 * checked here, the same way, once.
 *
 * A call is checked by its return code, by its MPI status count, and by the system calls the
 * MPI library made for it: sonde sees the failures of pwrite, pwritev, pread, preadv and
 * aio_error in its own process (src/interpose wraps them), because the MPI libraries it runs on
 * drop some of them. The same wrappers finish a transfer that came short (OMPIO 4.1 never
 * asks for the rest, and reported a collective write over short pwritev calls complete); a
 * write that then moves nothing and gives no reason fails the call: "short write: N of M
 * bytes". Open MPI 4.1's OMPIO reports a collective write that hit a full disk as complete;
 * its blocking writes report success with a zero count; MPICH 4.0's ROMIO never completes a
 * nonblocking request whose aio failed (MPI_Wait spins forever); Open MPI 4.1 crashes in
 * MPI_Wait and MPI_Test on a nonblocking request that failed (its error handler is looked up
 * on a NULL file). Hence sonde completes requests with sonde_mpio_wait, never with MPI_Wait.
 *
 * A failure is a negative errno value with sonde_io_last_error() set to one line that names
 * the operation and the path, the system's words first, then the MPI library's or PnetCDF's:
 * "write /scratch/f at offset 4096: No space left on device (MPI_ERR_NO_SPACE: ...)".
 * Ranks agree on it with sonde_agree_path (fail.h), and its exit code is sonde_exit_class. */
#ifndef SONDE_IO_COMPLETION_H
#define SONDE_IO_COMPLETION_H

#include <mpi.h>

/* One MPI-IO or PnetCDF call being checked: begin before the call, end after it. */
struct sonde_mpio_op {
	unsigned long failures; /* system-call failures seen before the call */
	unsigned long stalls;   /* stalled writes seen before the call */
	char what[1024];        /* "write /x/f at offset 4096": the start of the error line */
};

/* Starts watching one call; what is printf-like and names the operation and its path. */
void sonde_mpio_begin(struct sonde_mpio_op *op, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The errno value of a system call the MPI library made (in this process) that failed since
 * sonde_mpio_begin, or 0. */
int sonde_mpio_syscall_errno(const struct sonde_mpio_op *op);

/* Checks a finished call: rc its return code (MPI_SUCCESS, or MPI_ERR_PENDING after an
 * abandoned wait), st its status or NULL (calls without one), type the datatype the count is
 * in. *moved gets the elements of type's basic type that the status counts (NULL: not asked).
 * Returns 0 or a negative errno value with the error line set. A count the library could not
 * give is an error; a short count is not (the caller decides: retry, end of file, error). A
 * write under it that stalled (moved nothing more, gave no reason) is an error (-EIO, "short
 * write: N of M bytes at offset O"). */
int sonde_mpio_end(struct sonde_mpio_op *op, int rc, const MPI_Status *st, MPI_Datatype type,
                   MPI_Count *moved);

/* Completes a nonblocking request: polls it (MPI_Test, or MPI_Request_get_status and
 * MPI_Request_free with Open MPI) until it is done. A request that a failed system call will
 * never let complete (ROMIO's aio) is given up after a grace period: *req becomes
 * MPI_REQUEST_NULL and MPI_ERR_PENDING is returned, which sonde_mpio_end reports with the
 * system's error. Returns the request's MPI error code; *st holds its status. */
int sonde_mpio_wait(struct sonde_mpio_op *op, MPI_Request *req, MPI_Status *st);

/* Sets the error line for an MPI error code outside a watched call: "<what>: <system words>
 * (<MPI words>)"; returns the negative errno value of its class. */
int sonde_mpio_fail(int mpi_rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Before MPI_File_open (or ncmpi_create/ncmpi_open, which call it): refuses a name the MPI
 * library cannot take, with a message instead of the library's own failure. Any library: a
 * name of PATH_MAX characters or more, or with a component longer than NAME_MAX. Open MPI 4.1:
 * OMPIO's sharedfp lockedfile component formats "<name>.locktest.<rank>" into a 256-byte
 * buffer whenever a file is opened, and glibc aborts the process ("buffer overflow
 * detected") when that does not fit, so names are limited to 245 characters minus the digits
 * of the highest rank of comm. Open MPI also waits forever on a semaphore of the name's a dead
 * run left taken: sonde_ompio_clear_dead_semaphore removes it (ompio_semaphore.h). Returns 0,
 * or -ENAMETOOLONG with the error line set. */
int sonde_mpio_check_name(MPI_Comm comm, const char *path);

/* PnetCDF: checks a finished call's return code (NC_NOERR or an error) and the system calls
 * under it. Returns 0 or a negative errno value with the error line set ("<what>: <system
 * words> (<PnetCDF words>)"). Defined only when sonde is built with PnetCDF. */
int sonde_nc_end(struct sonde_mpio_op *op, int nc_rc);

/* Another library over MPI-IO (HDF5): checks a finished call that reported failed (non-zero)
 * or success, with words its own description of the failure, and the system calls under it.
 * Returns 0 or a negative errno value with the error line set ("<what>: <system words>
 * (<words>)"); a failure the system did not explain is EIO. */
int sonde_lib_end(struct sonde_mpio_op *op, int failed, const char *words);

/* While on, a write to a regular file on this thread that fails or comes short is noted as
 * always (sonde_mpio_syscall_errno, the short-write check of sonde_mpio_end and sonde_lib_end
 * report it) but reported done to the library: for the calls of a library that cannot survive
 * a failed write there (hdf5.c says why). */
void sonde_io_shield_writes(int on);

#endif
