/* SPDX-License-Identifier: BSD-3-Clause */
/* Open MPI's OMPIO opens its "sm" shared-file-pointer component inside every MPI_File_open
 * whose ranks share one node (Open MPI 4.1 and 5.0; sonde never uses shared file pointers,
 * but the component is opened anyway). It names a POSIX semaphore after the file's base name
 * only, "OMPIO_<name>" (/dev/shm/sem.OMPIO_<name> on Linux), opens it with a count of 1, and
 * rank 0 takes it and gives it back once before the semaphore is unlinked. A run killed
 * between the take and the give (a signal, a killed rank, the launcher ending a failed job)
 * leaves it behind with a count of 0: every later MPI_File_open of a file with that base
 * name, from any directory and any job on that node, then waits in sem_wait forever (IOR's
 * and every Open MPI program's too). Seen here: one such leftover of a killed test run hung
 * every mpiio test of the next CI run that opened a file named f.0. */
#ifndef SONDE_OMPIO_SEMAPHORE_H
#define SONDE_OMPIO_SEMAPHORE_H

#include <mpi.h>

/* Before MPI_File_open of path on comm (or ncmpi_create/ncmpi_open, H5Fcreate/H5Fopen with
 * the MPI-IO driver, which call it). On rank 0 of comm, the only rank that takes OMPIO's
 * semaphore, and before it enters MPI_File_open (the other ranks cannot reach the semaphore
 * before it: OMPIO's open is collective first): when the semaphore of path's base name exists
 * with a count of 0 and no process on the node has it mapped, no process can ever give it
 * back, so it is removed with a warning from this rank. One that a live process holds is left
 * alone (a job opening a file of the same name at this moment); when a process that could
 * hold it cannot be looked at, one still taken a second later is dead too. Removing the name
 * never disturbs a holder: its handle stays valid, and the offset it guards is its own job's.
 * One that cannot be removed (another user's) ends the run with sonde_fatal, one line saying
 * whose it is: no rank could open the file. Looks once per file name and process (the name
 * last looked at is kept): one failed open(2) when no such semaphore exists, a comparison for
 * the opens after; nothing outside Open MPI. */
void sonde_ompio_clear_dead_semaphore(MPI_Comm comm, const char *path);

#endif
