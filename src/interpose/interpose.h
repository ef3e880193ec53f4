/* SPDX-License-Identifier: BSD-3-Clause */
/* The libc interposer: sonde's own definitions of write, read, pwrite, pread, writev, readv,
 * pwritev, preadv and aio_error, for the whole process.
 *
 * Why: the MPI libraries sonde runs on drop some failures of the system calls they make for an
 * MPI-IO or PnetCDF call, and some never ask for the rest of a transfer that came short
 * (io/completion.h names them). The executable defines these entry points, the linker exports
 * them because libmpi refers to them, so the MPI library and its plugins (ROMIO, OMPIO's
 * fbtl_posix, PnetCDF through them) call these, which call the C library's (looked up with
 * dlsym(RTLD_NEXT), so an LD_PRELOAD shim below still sees every call). On a regular file a
 * call that failed is noted, and a transfer that came short is finished at once; every other
 * call and result passes through untouched. Every write(2) of sonde's own code (results
 * records, the stop handler's end record, progress lines) passes through too: whole, it is
 * untouched; short, it is finished as the MPI library's would be.
 *
 * The C library's entry points are looked up at start-up (a constructor), so that a signal
 * handler's write never calls dlsym; a call made before that (another library's constructor,
 * UCX's under MPICH, reads files before sonde's constructor runs) looks its entry point up
 * first. io/completion.c reads what was seen here around each MPI-IO call. */
#ifndef SONDE_INTERPOSE_H
#define SONDE_INTERPOSE_H

#include <stddef.h>
#include <sys/types.h>

/* 1 once every C library entry point is looked up (from the constructor on), else 0. */
int sonde_interpose_ready(void);

/* System calls on regular files that failed (not EINTR, EAGAIN, EINPROGRESS, ECANCELED) since
 * the process began; the errno value and descriptor of the last one. */
unsigned long sonde_interpose_failures(void);
int sonde_interpose_failed_errno(void);
int sonde_interpose_failed_fd(void);

/* Writes on regular files that stalled (moved nothing more and gave no reason) since the process
 * began, and the last one: asked bytes from offset at, of which moved were moved. */
struct sonde_interpose_stall {
	int fd;
	size_t asked, moved;
	off_t at;
};
unsigned long sonde_interpose_stalls(void);
struct sonde_interpose_stall sonde_interpose_last_stall(void);

/* While on, a write to a regular file on this thread that fails or comes short is noted as
 * always but reported done to the library that made it (sonde_io_shield_writes, io/completion.h).
 */
void sonde_interpose_shield_writes(int on);

#endif
